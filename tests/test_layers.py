"""The import rule that keeps the layers honest, read from the source with ``ast``.

::

    line 1  _types, _docs, _checks, _labels, _kernel, errors, schema, formulas  import only line 1
    line 2  reduce, multiclass, repeats                                  import only line 1
    line 3  build/, scores/, tidy, diagnostics, bootstrap, io, splits    import lines 1-2
    line 4  runner, simulation/, plot/, report/, cli/, accessors, ...    outer: anything below

A module imports only modules of its own line or of the lines above it; imports inside
functions count as much as those at the top. No module imports another module's ``_private``
name; a private module (``build/_kernel.py``) is imported only from inside its own package.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

PACKAGE = "cvframe"
ROOT = pathlib.Path(__file__).resolve().parents[1] / PACKAGE

LINES: dict[int, set[str]] = {
    1: {"_types", "_docs", "_checks", "_labels", "_kernel", "errors", "schema", "formulas"},
    2: {"reduce", "multiclass", "repeats"},
    # splits holds the resampling iterators runner uses; it imports nothing of cvframe.
    # compare tests differences of cubes and of predictions frames (scores, build).
    3: {"build", "scores", "tidy", "diagnostics", "bootstrap", "io", "splits", "compare"},
    # datasets builds the paper's cubes with build; __init__/__main__ are the package's doors.
    4: {
        "runner",
        "readers",
        "explain",
        "search",
        "simulation",
        "plot",
        "report",
        "cli",
        "accessors",
        "datasets",
        "__init__",
        "__main__",
    },
}
LINE_OF = {component: line for line, names in LINES.items() for component in names}

# Package metadata the root sets before it imports any submodule (not code: no layer).
ROOT_METADATA = {"__version__"}


def _modules() -> dict[str, pathlib.Path]:
    """Dotted module name -> file, for every module of the package."""
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()
PACKAGES = {name for name, path in MODULES.items() if path.name == "__init__.py"}


def _component(module: str) -> str:
    """The layer component of a dotted module: ``cvframe.build._kernel`` -> ``build``."""
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__"
    return parts[1]


def _imports(module: str) -> list[tuple[int, str, str | None, str]]:
    """Every cvframe import of ``module``: (line, target module, imported name, source text).

    ``from pkg import name`` targets ``pkg.name`` when that is a module of the package,
    else ``pkg`` with ``name`` the imported attribute.
    """
    path = MODULES[module]
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module if module in PACKAGES else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == PACKAGE or alias.name.startswith(PACKAGE + "."):
                    found.append((node.lineno, alias.name, None, f"import {alias.name}"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
                if target != PACKAGE and not target.startswith(PACKAGE + "."):
                    continue
            src = f"from {'.' * node.level}{node.module or ''} import "
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in MODULES:
                    found.append((node.lineno, sub, None, src + alias.name))
                else:
                    found.append((node.lineno, target, alias.name, src + alias.name))
    return sorted(found)


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _violations(module: str) -> list[str]:
    where = MODULES[module].relative_to(ROOT.parent)
    own = _component(module)
    out = []
    for lineno, target, name, src in _imports(module):
        here = f"{where}:{lineno}: `{src}`"
        # private modules: only from inside the package that holds them
        parts = target.split(".")
        for i, part in enumerate(parts[1:], start=1):
            holder = ".".join(parts[:i])
            if part.startswith("_") and not part.startswith("__") and not _inside(module, holder):
                out.append(
                    f"{here} imports the private module {'.'.join(parts[: i + 1])} "
                    f"from outside {holder}"
                )
        # private names: never from another module
        if name is not None and name.startswith("_") and not name.startswith("__"):
            out.append(f"{here} imports the private name {name} of {target}")
        # layers
        if target == PACKAGE and name in ROOT_METADATA:
            continue
        dep = _component(target)
        if dep == own or own not in LINE_OF or dep not in LINE_OF:
            continue  # a package's own internals; unplaced components fail their own test
        if LINE_OF[dep] > LINE_OF[own]:
            out.append(
                f"{here}: {own} (line {LINE_OF[own]}) imports {dep} (line {LINE_OF[dep]}, below it)"
            )
    return out


def test_every_module_has_a_line():
    unplaced = sorted({_component(m) for m in MODULES} - set(LINE_OF))
    assert not unplaced, (
        f"modules not placed in a layer (add them to LINES in tests/test_layers.py): {unplaced}"
    )


def test_no_module_imports_below_its_line_or_a_private_name():
    problems = [p for module in sorted(MODULES) for p in _violations(module)]
    if problems:
        pytest.fail(
            f"{len(problems)} import(s) break the layer rule:\n  " + "\n  ".join(problems),
            pytrace=False,
        )


# --- the checker itself ------------------------------------------------------------------


@pytest.fixture
def fake_module(monkeypatch, tmp_path):
    """Register a throw-away module text under a dotted name and return its violations."""

    def check(name: str, text: str, is_package: bool = False) -> list[str]:
        path = tmp_path / ("__init__.py" if is_package else name.rpartition(".")[2] + ".py")
        path.write_text(text)
        monkeypatch.setitem(MODULES, name, path)
        monkeypatch.setitem(MODULES, "cvframe.build._kernel", path)  # a private submodule
        if is_package:
            monkeypatch.setattr(f"{__name__}.PACKAGES", PACKAGES | {name})
        monkeypatch.setattr(f"{__name__}.ROOT", tmp_path.parent)
        return _violations(name)

    return check


def test_checker_flags_a_lazy_import_from_a_lower_line(fake_module):
    found = fake_module("cvframe.reduce", "def f():\n    from .build import from_counts\n")
    assert len(found) == 1 and "reduce (line 2) imports build (line 3" in found[0]
    assert ":2:" in found[0] and "from .build import from_counts" in found[0]


def test_checker_flags_private_names_and_modules(fake_module):
    found = fake_module(
        "cvframe.runner",
        "from .schema import _where\n"
        "from .build import _kernel\n"
        "from .build._kernel import count\n"
        "from . import _types, errors, __version__\n",
    )
    assert len(found) == 3, found
    assert "private name _where of cvframe.schema" in found[0]
    assert "private module cvframe.build._kernel from outside cvframe.build" in found[1]
    assert "private module cvframe.build._kernel" in found[2]


def test_checker_allows_a_package_its_own_internals(fake_module):
    text = "from ._kernel import count\nfrom .. import reduce\nimport cvframe.schema\n"
    assert fake_module("cvframe.build.predictions", text) == []
    assert fake_module("cvframe.build", "from ._kernel import count\n", is_package=True) == []
