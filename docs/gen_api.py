"""Regenerate docs/api.md from the docstrings: python docs/gen_api.py

tests/test_docs.py fails when api.md is stale, so the API page changes with the code.
"""

from __future__ import annotations

import importlib
import inspect
import pathlib
import pkgutil

import cvframe
from cvframe.accessors import CVDataFrameAccessor, CVDatasetAccessor

OUT = pathlib.Path(__file__).with_name("api.md")

MODULE_LEVEL = [
    (
        "Constructors and IO",
        ["from_predictions", "from_counts", "from_confusion", "validate", "open_dataset"],
    ),
    ("Running cross-validation", ["cross_validate", "splits.Bootstrap"]),
    ("Comparing and tuning models", ["compare", "PooledSearchCV"]),
    ("Other tools' folds and reported numbers", ["readers.read", "readers.detect", "explain"]),
    ("Simulation", ["simulate", "bias_study", "p_fold_without_positives"]),
    ("Plots (module level)", ["plot.bias", "plot.fold_risk"]),
    ("Errors and warnings", ["CountsError", "UndefinedMetricWarning"]),
]


def _resolve(path: str):
    obj = cvframe
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _summary(obj) -> str:
    doc = inspect.getdoc(obj) or ""
    para = doc.split("\n\n")[0].replace("\n", " ").strip()
    return para


def _sig(obj) -> str:
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return ""


def _modules() -> list[str]:
    """One section per public module or package of cvframe (a package is listed once: its
    ``__init__`` re-exports the public names of its private modules)."""
    lines = [
        "## Modules",
        "",
        "Each module's public names (its `__all__`); `(package)` marks a module that is a "
        "package of private parts.",
        "",
    ]
    for info in sorted(pkgutil.iter_modules(cvframe.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"cvframe.{info.name}")
        kind = " (package)" if info.ispkg else ""
        lines += [f"### `cvframe.{info.name}`{kind}", "", _summary(mod), ""]
        names = getattr(mod, "__all__", None)
        if names:
            lines += [", ".join(f"`{n}`" for n in names), ""]
    return lines


def render() -> str:
    lines = [
        "# API reference",
        "",
        "Generated from the docstrings by `python docs/gen_api.py`; every entry's full "
        "docstring (formula, undefined cases, example, reference) is one `help()` away.",
        "",
    ]
    for title, names in MODULE_LEVEL:
        lines += [f"## {title}", ""]
        for name in names:
            obj = _resolve(name)
            sig = "" if inspect.isclass(obj) and issubclass(obj, Exception) else _sig(obj)
            lines += [f"### `cvframe.{name}{sig}`", "", _summary(obj), ""]
    for title, cls, prefix in [
        ("Dataset accessor `ds.cv`", CVDatasetAccessor, "ds.cv"),
        ("DataFrame accessor `df.cv`", CVDataFrameAccessor, "df.cv"),
    ]:
        lines += [f"## {title}", "", _summary(cls), ""]
        for name, member in vars(cls).items():
            if name.startswith("_"):
                continue
            if isinstance(member, property):
                lines += [f"### `{prefix}.{name}`", "", _summary(member.fget), ""]
            elif callable(member):
                sig = _sig(member).replace("(self, ", "(").replace("(self)", "()")
                lines += [f"### `{prefix}.{name}{sig}`", "", _summary(member), ""]
    lines += _modules()
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    OUT.write_text(render())
    print(f"wrote {OUT}")
