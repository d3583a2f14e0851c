"""The rules that keep the layers honest, read from the source with ``ast``.

The layer table is the one of ``docs/architecture.md`` (the page on the docs site): a package
renamed or added changes that page, and with it these checks, in one commit.

A module imports only modules of its own line or of the lines above it; imports inside
functions count as much as those at the top. No import cycle (not even inside one line or
one package); nothing imports the package root; no module imports another module's
``_private`` name, and a private module (``build/_kernel.py``) is imported only from inside
its own package; no public alias of a private name; no module over 600 lines and no
function over 120 lines of code (its docstring, blank and comment lines aside).

The checks take the sources as a ``{dotted module name: text}`` mapping, so each one is
also run on a small synthetic package that breaks it (the tests of the tests, at the end).
"""

from __future__ import annotations

import ast
import functools
import pathlib
import re
from collections.abc import Iterator, Mapping
from typing import NamedTuple

import pytest

PACKAGE = "cvframe"
ROOT = pathlib.Path(__file__).resolve().parents[1] / PACKAGE
#: The project's architecture page: its layer table is the one the checks below enforce.
ARCHITECTURE = pathlib.Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def architecture_lines(text: str) -> dict[int, set[str]]:
    """The layer table of docs/architecture.md: its ``line N  a, b/, c (+ its d module)`` rows."""
    block = next(b for b in text.split("```")[1::2] if re.search(r"^line 1 ", b, re.M))
    table: dict[int, set[str]] = {}
    for row in block.splitlines():
        match = re.match(r"line (\d+)\s+(.*)", row)
        if not match:
            continue
        names = set()
        for item in match.group(2).split(","):
            extra = re.search(r"\(\+ its (\w+) module\)", item)
            if extra:
                names.add(extra.group(1))
            names.add(re.sub(r"\(.*?\)", "", item).strip().rstrip("/"))
        table[int(match.group(1))] = names
    return table


LINES: dict[int, set[str]] = architecture_lines(ARCHITECTURE.read_text())
#: The package's doors: outside every line (they may import anything, nothing imports them).
DOORS = {"__init__", "__main__"}
LINE_OF = {component: line for line, names in LINES.items() for component in names}
LINE_OF.update(dict.fromkeys(DOORS, max(LINES) + 1))

MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 120


# --- reading the package --------------------------------------------------------------------


class Package(NamedTuple):
    """Module sources by dotted name, and which of them are packages (``__init__.py``)."""

    sources: Mapping[str, str]
    packages: frozenset[str]


def read_package(root: pathlib.Path = ROOT) -> Package:
    sources, packages = {}, set()
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
            packages.add(".".join(parts))
        sources[".".join(parts)] = path.read_text()
    return Package(sources, frozenset(packages))


def fake_package(sources: Mapping[str, str], packages: tuple[str, ...] = ()) -> Package:
    """A synthetic package (the root ``cvframe`` is always a package)."""
    return Package(dict(sources), frozenset({PACKAGE, *packages}))


def component(module: str) -> str:
    """The layer component of a dotted module: ``cvframe.build._kernel`` -> ``build``."""
    parts = module.split(".")
    return "__init__" if len(parts) == 1 else parts[1]


class Import(NamedTuple):
    line: int
    target: str  # the module imported (a package for ``from pkg import attribute``)
    name: str | None  # the attribute imported from ``target`` (None: the module itself)
    text: str  # the import as written


@functools.cache
def _parse(text: str) -> ast.Module:
    return ast.parse(text)


def imports(pkg: Package, module: str) -> list[Import]:
    """Every cvframe import of ``module``, at any depth (inside functions too).

    ``from pkg import name`` targets ``pkg.name`` when that is a module of the package,
    else ``pkg`` with ``name`` the imported attribute.
    """
    tree = _parse(pkg.sources[module])
    here = module if module in pkg.packages else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == PACKAGE:
                    found.append(Import(node.lineno, alias.name, None, f"import {alias.name}"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
                if target.split(".")[0] != PACKAGE:
                    continue
            text = f"from {'.' * node.level}{node.module or ''} import "
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in pkg.sources:
                    found.append(Import(node.lineno, sub, None, text + alias.name))
                else:
                    found.append(Import(node.lineno, target, alias.name, text + alias.name))
    return sorted(found)


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


# --- the checks -------------------------------------------------------------------------------


def layer_problems(pkg: Package) -> list[str]:
    """Imports of a lower line, of another module's private name or of a private module."""
    out = []
    for module in sorted(pkg.sources):
        own = component(module)
        for imp in imports(pkg, module):
            where = f"{module}:{imp.line}: `{imp.text}`"
            parts = imp.target.split(".")
            for i, part in enumerate(parts[1:], start=1):
                holder = ".".join(parts[:i])
                if _private(part) and not _inside(module, holder):
                    out.append(
                        f"{where} imports the private module {'.'.join(parts[: i + 1])} "
                        f"from outside {holder}"
                    )
            if imp.name is not None and _private(imp.name):
                out.append(f"{where} imports the private name {imp.name} of {imp.target}")
            dep = component(imp.target)
            if dep in (own, "__init__") or own not in LINE_OF or dep not in LINE_OF:
                continue  # own internals; the root and unplaced components fail their own tests
            if LINE_OF[dep] > LINE_OF[own]:
                out.append(
                    f"{where}: {own} (line {LINE_OF[own]}) imports {dep} "
                    f"(line {LINE_OF[dep]}, below it)"
                )
    return out


def private_attributes(pkg: Package) -> list[str]:
    """``module._private`` read through a name bound to another cvframe module."""
    out = []
    for module in sorted(pkg.sources):
        tree = _parse(pkg.sources[module])
        found = imports(pkg, module)
        bound = {}  # local name -> module, from ``from . import x [as y]``/``import ... as y``
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    local = alias.asname or alias.name
                    for imp in found:
                        if imp.line == node.lineno and imp.name is None and "." not in local:
                            if imp.target.rpartition(".")[2] == alias.name.rpartition(".")[2]:
                                bound[local] = imp.target
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in bound
                and _private(node.attr)
            ):
                out.append(
                    f"{module}:{node.lineno}: `{node.value.id}.{node.attr}` reads the private "
                    f"name {node.attr} of {bound[node.value.id]}"
                )
    return out


def root_imports(pkg: Package) -> list[str]:
    """Imports of the package root (``cvframe/__init__.py``) from inside the package."""
    return [
        f"{module}:{imp.line}: `{imp.text}` imports the package root"
        for module in sorted(pkg.sources)
        if module != PACKAGE
        for imp in imports(pkg, module)
        if imp.target == PACKAGE or imp.text.startswith(f"import {PACKAGE}")
    ]


def cycles(pkg: Package) -> list[list[str]]:
    """The import cycles between modules (strongly connected components, Tarjan)."""
    graph = {m: sorted({i.target for i in imports(pkg, m) if i.target in pkg.sources} - {m})
             for m in pkg.sources}  # fmt: skip
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def _module_level(tree: ast.Module) -> Iterator[ast.stmt]:
    """Statements run at import time (inside module-level ``if``/``try`` blocks too)."""
    todo = list(tree.body)
    while todo:
        node = todo.pop(0)
        yield node
        if isinstance(node, (ast.If, ast.Try)):
            todo += node.body + node.orelse + getattr(node, "finalbody", [])
            todo += [s for h in getattr(node, "handlers", []) for s in h.body]


def _private_value(value: ast.expr | None) -> str | None:
    if isinstance(value, ast.Name) and _private(value.id):
        return value.id
    if isinstance(value, ast.Attribute) and _private(value.attr):
        return ast.unparse(value)
    return None


def public_aliases(pkg: Package) -> list[str]:
    """Module-level ``name = _private`` and ``from x import _y as name`` with a public name."""
    out = []
    for module in sorted(pkg.sources):
        for node in _module_level(_parse(pkg.sources[module])):
            pairs: list[tuple[str, str]] = []
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                value = _private_value(node.value)
                pairs = [(t.id, value) for t in targets if isinstance(t, ast.Name) and value]
            elif isinstance(node, ast.ImportFrom):
                pairs = [(a.asname, a.name) for a in node.names if a.asname and _private(a.name)]
            for name, private in pairs:
                if not name.startswith("_"):
                    out.append(f"{module}:{node.lineno}: public {name} is an alias of {private}")
    return out


def _code_lines(node: ast.AST, lines: list[str]) -> int:
    """Lines of code of a function: neither its docstring nor blank nor comment lines."""
    body = node.body  # type: ignore[attr-defined]
    skip: set[int] = set()
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        if isinstance(first.value.value, str):
            skip = set(range(first.lineno, first.end_lineno + 1))  # type: ignore[operator]
    count = 0
    for n in range(node.lineno, node.end_lineno + 1):  # type: ignore[attr-defined,operator]
        text = lines[n - 1].strip()
        if n not in skip and text and not text.startswith("#"):
            count += 1
    return count


def size_problems(pkg: Package) -> list[str]:
    """Modules over MAX_MODULE_LINES lines, functions over MAX_FUNCTION_LINES lines of code."""
    out = []
    for module in sorted(pkg.sources):
        lines = pkg.sources[module].splitlines()
        if len(lines) > MAX_MODULE_LINES:
            out.append(f"{module} has {len(lines)} lines (at most {MAX_MODULE_LINES})")
        for node in ast.walk(_parse(pkg.sources[module])):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = _code_lines(node, lines)
                if n > MAX_FUNCTION_LINES:
                    out.append(
                        f"{module}:{node.lineno}: {node.name}() has {n} lines of code "
                        f"(at most {MAX_FUNCTION_LINES}, docstring aside)"
                    )
    return out


def _fail(problems: list[str], what: str) -> None:
    if problems:
        pytest.fail(f"{len(problems)} {what}:\n  " + "\n  ".join(problems), pytrace=False)


# --- the rules on cvframe ------------------------------------------------------------------------

PKG = read_package()


def test_every_module_has_a_line():
    unplaced = sorted({component(m) for m in PKG.sources} - set(LINE_OF))
    assert not unplaced, f"modules not placed in a layer (add them to LINES): {unplaced}"


def test_every_name_of_the_table_is_a_module_of_the_package():
    present = {component(m) for m in PKG.sources}
    stale = sorted(set(LINE_OF) - present - DOORS)
    assert not stale, f"docs/architecture.md names modules the package lacks: {stale}"


def test_no_module_imports_below_its_line_or_a_private_name():
    _fail(layer_problems(PKG) + private_attributes(PKG), "import(s) break the layer rule")


def test_nothing_imports_the_package_root():
    _fail(root_imports(PKG), "import(s) of the package root")


def test_no_import_cycle():
    _fail([" <-> ".join(c) for c in cycles(PKG)], "import cycle(s)")


def test_no_public_alias_of_a_private_name():
    _fail(public_aliases(PKG), "public alias(es) of private names")


def test_no_module_or_function_too_long():
    _fail(size_problems(PKG), "module(s) or function(s) too long")


# --- the tests of the tests -------------------------------------------------------------------


def test_architecture_table_parser():
    text = "x\n```\nline 1  a, _b\nline 2  c (+ its d module), e/\nrule text\n```\n"
    assert architecture_lines(text) == {1: {"a", "_b"}, 2: {"c", "d", "e"}}


def test_checker_flags_a_lazy_import_from_a_lower_line():
    pkg = fake_package({"cvframe.reduce": "def f():\n    from .build import from_counts\n"})
    (found,) = layer_problems(pkg)
    assert "reduce (line 2) imports build (line 3" in found
    assert "cvframe.reduce:2:" in found and "from .build import from_counts" in found


def test_checker_flags_private_names_and_modules():
    text = (
        "from .schema import _where\n"
        "from .build import _kernel\n"
        "from .build._kernel import count\n"
        "from . import _types, errors\n"
    )
    pkg = fake_package(
        {"cvframe.accessors": text, "cvframe.build._kernel": "", "cvframe.build": ""}
        | dict.fromkeys(["cvframe._types", "cvframe.errors", "cvframe.schema"], ""),
        ("cvframe.build",),
    )
    found = layer_problems(pkg)
    assert len(found) == 3, found
    assert "private name _where of cvframe.schema" in found[0]
    assert "private module cvframe.build._kernel from outside cvframe.build" in found[1]
    assert "private module cvframe.build._kernel" in found[2]


def test_checker_flags_a_private_name_read_through_a_module():
    sources = {
        "cvframe.reduce": "from . import formulas as fm, _kernel\nx = fm._float(1)\n"
        "def f():\n    return _kernel.engine(1), _kernel._loop, fm.__name__\n",
        "cvframe.formulas": "",
        "cvframe._kernel": "",
    }
    assert private_attributes(fake_package(sources)) == [
        "cvframe.reduce:2: `fm._float` reads the private name _float of cvframe.formulas",
        "cvframe.reduce:4: `_kernel._loop` reads the private name _loop of cvframe._kernel",
    ]


def test_checker_allows_a_package_its_own_internals():
    sources = {
        "cvframe.build": "from ._kernel import count\n",
        "cvframe.build._kernel": "from .. import reduce\n",
        "cvframe.build.predictions": "from ._kernel import count\nfrom ..schema import COUNTS\n",
        "cvframe.reduce": "",
        "cvframe.schema": "",
    }
    pkg = fake_package(sources, ("cvframe.build",))
    assert layer_problems(pkg) == [] and cycles(pkg) == [] and root_imports(pkg) == []


def test_checker_flags_an_import_of_the_package_root():
    sources = {
        "cvframe": "from . import accessors\n",
        "cvframe.accessors": "from . import schema\n",
        "cvframe.schema": "def f():\n    from . import __version__\n",
        "cvframe.build": "",
        "cvframe.build.tables": "from .. import __version__ as version\n",
        "cvframe.tidy": "import cvframe\n",
    }
    found = root_imports(fake_package(sources, ("cvframe.build",)))
    assert [f.split(":")[0] for f in found] == [
        "cvframe.build.tables",
        "cvframe.schema",
        "cvframe.tidy",
    ]
    assert "`from . import __version__` imports the package root" in found[1]


def test_checker_flags_cycles_inside_one_line_and_one_package():
    sources = {
        "cvframe.reduce": "from .multiclass import macro\n",
        "cvframe.multiclass": "def f():\n    from . import reduce\n",
        "cvframe.scores": "from ._driver import run\n",
        "cvframe.scores._driver": "from .ranking import auc\n",
        "cvframe.scores.ranking": "from ._driver import Metric\n",
        "cvframe.tidy": "from .reduce import f\n",
    }
    found = cycles(fake_package(sources, ("cvframe.scores",)))
    assert found == [
        ["cvframe.multiclass", "cvframe.reduce"],
        ["cvframe.scores._driver", "cvframe.scores.ranking"],
    ]


def test_checker_flags_a_cycle_through_the_root():
    sources = {"cvframe": "from . import cli\n", "cvframe.cli": "from . import __version__\n"}
    assert cycles(fake_package(sources)) == [["cvframe", "cvframe.cli"]]


def test_checker_flags_public_aliases_of_private_names():
    sources = {
        "cvframe.runner": (
            "def _run():\n    pass\n"
            "run_metric = _run\n"
            "_fill = _checks.zero_division\n"
            "beta = _checks._beta\n"
            "try:\n    from ._fit import _fit as fit\nexcept ImportError:\n    pass\n"
            "from .x import _y as _z\n"
            "from . import _labels as labels\n"
            "def f():\n    local = _run\n"
        )
    }
    found = public_aliases(fake_package(sources))
    assert found == [
        "cvframe.runner:3: public run_metric is an alias of _run",
        "cvframe.runner:5: public beta is an alias of _checks._beta",
        "cvframe.runner:11: public labels is an alias of _labels",
        "cvframe.runner:7: public fit is an alias of _fit",
    ]


def test_checker_flags_long_modules_and_functions():
    doc = '    """' + "\n" * 200 + '    """\n'
    body = "    x = 1\n\n    # a note\n" * (MAX_FUNCTION_LINES - 1)
    short = "def ok():\n" + doc + body + "# padding\n" * 300
    long = "def too_long():\n" + "    x = 1\n" * MAX_FUNCTION_LINES
    found = size_problems(fake_package({"cvframe.a": short, "cvframe.b": long}))
    assert found == [
        f"cvframe.a has {len(short.splitlines())} lines (at most {MAX_MODULE_LINES})",
        f"cvframe.b:1: too_long() has {MAX_FUNCTION_LINES + 1} lines of code "
        f"(at most {MAX_FUNCTION_LINES}, docstring aside)",
    ]
