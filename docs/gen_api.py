"""Regenerate docs/api.md from the docstrings: python docs/gen_api.py

tests/test_docs.py fails when api.md is stale, so the API page changes with the code.
"""
from __future__ import annotations

import inspect
import pathlib

import cvframe
from cvframe.accessors import CVDataFrameAccessor, CVDatasetAccessor

OUT = pathlib.Path(__file__).with_name("api.md")

MODULE_LEVEL = [
    ("Constructors and IO", ["from_predictions", "from_counts", "from_confusion", "validate",
                             "open_dataset"]),
    ("Running cross-validation", ["cross_validate", "splits.Bootstrap"]),
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


def render() -> str:
    lines = ["# API reference", "",
             "Generated from the docstrings by `python docs/gen_api.py`; every entry's full "
             "docstring (formula, undefined cases, example, reference) is one `help()` away.",
             ""]
    for title, names in MODULE_LEVEL:
        lines += [f"## {title}", ""]
        for name in names:
            obj = _resolve(name)
            sig = "" if inspect.isclass(obj) and issubclass(obj, Exception) else _sig(obj)
            lines += [f"### `cvframe.{name}{sig}`", "", _summary(obj), ""]
    for title, cls, prefix in [("Dataset accessor `ds.cv`", CVDatasetAccessor, "ds.cv"),
                               ("DataFrame accessor `df.cv`", CVDataFrameAccessor, "df.cv")]:
        lines += [f"## {title}", "", _summary(cls), ""]
        for name, member in vars(cls).items():
            if name.startswith("_"):
                continue
            if isinstance(member, property):
                lines += [f"### `{prefix}.{name}`", "", _summary(member.fget), ""]
            elif callable(member):
                sig = _sig(member).replace("(self, ", "(").replace("(self)", "()")
                lines += [f"### `{prefix}.{name}{sig}`", "", _summary(member), ""]
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    OUT.write_text(render())
    print(f"wrote {OUT}")
