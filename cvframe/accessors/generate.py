"""Render the accessor methods' docstrings from their functions and store them.

``python -m cvframe.accessors.generate`` writes ``cvframe/accessors/docstrings.json``: run it
after changing an accessor method or the docstring or signature of its function (``--check``
only compares, exit status 1 when stale; ``tests/test_accessors.py`` compares too). As xarray
generates its aggregation methods, the text is made here once, not on every import.

A method's function is the one its body calls, ``module.func(self._obj, **args(locals()))``;
its docstring is the function's (:func:`cvframe._core.docs.accessor_doc`) without the data
parameter (the function's first), the Parameters entries in the method's order
(:func:`in_method_order`). A method whose body is not that call, or whose parameters or
defaults differ from its function's, is refused: its docstring would describe another call.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import json
import pathlib
import re
import textwrap
from collections.abc import Callable, Sequence
from typing import Any

from .._core.docs import accessor_doc
from ._common import STORE, stored
from .dask_frame import CVDaskFrameAccessor
from .dataset import CVDatasetAccessor
from .frame import CVDataFrameAccessor

__all__ = ["CLASSES", "COMMAND", "function_of", "in_method_order", "main", "render", "stale"]

#: The accessor classes whose methods are documented here.
CLASSES: tuple[type, ...] = (CVDatasetAccessor, CVDataFrameAccessor, CVDaskFrameAccessor)

#: The command that writes the stored docstrings (what an error about them says to run).
COMMAND = "python -m cvframe.accessors.generate"

SECTION = re.compile(r"^(?P<indent>[ \t]*)Parameters\n(?P=indent)-+\n", re.MULTILINE)


def _refuse(cls: type, name: str, why: str) -> ValueError:
    return ValueError(f"{cls.__name__}.{name}: {why}")


def function_of(cls: type, name: str) -> Callable[..., Any]:
    """The function that the method ``name`` of ``cls`` calls: its body's last statement is
    ``return module.func(self._obj, **args(locals()))``, ``module`` a module of cvframe."""
    method = vars(cls)[name]
    tree = ast.parse(textwrap.dedent(inspect.getsource(method)))
    body = tree.body[0].body if isinstance(tree.body[0], ast.FunctionDef) else []
    last = body[-1] if body else None
    call = last.value if isinstance(last, ast.Return) else None
    if not (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and isinstance(call.func.value, ast.Name)
        and [ast.unparse(a) for a in call.args] == ["self._obj"]
        and [(k.arg, ast.unparse(k.value)) for k in call.keywords] == [(None, "args(locals())")]
    ):
        raise _refuse(
            cls, name, "its body must end with the one call "
            "`return module.func(self._obj, **args(locals()))`",
        )  # fmt: skip
    module = importlib.import_module(f"cvframe.{call.func.value.id}")
    func = getattr(module, call.func.attr)
    if not inspect.isfunction(func):
        raise _refuse(cls, name, f"{module.__name__}.{call.func.attr} is not a function")
    return func


def check_signature(cls: type, name: str, func: Callable[..., Any]) -> str:
    """The function's data parameter (its first); refuses a method whose parameters or
    defaults differ from the function's other ones."""
    want = list(inspect.signature(func).parameters.values())
    got = list(inspect.signature(vars(cls)[name]).parameters.values())[1:]
    defaults = {p.name: p.default for p in want[1:]}
    have = {p.name: p.default for p in got}
    if set(have) != set(defaults):
        raise _refuse(
            cls, name, f"parameters {sorted(have)} differ from those of "
            f"{func.__module__}.{func.__name__} {sorted(defaults)}",
        )  # fmt: skip
    differ = {n: (have[n], d) for n, d in defaults.items() if have[n] is not d and have[n] != d}
    if differ:
        raise _refuse(cls, name, f"defaults differ (method, function): {differ}")
    return want[0].name


def in_method_order(text: str, method: Callable[..., Any]) -> str:
    """Reorder the Parameters entries of ``text`` as the parameters of ``method``.

    An entry starts on a line at the section's indent (``name : type`` or ``a, b : type``)
    and runs until the next such line; an entry naming several parameters sits at the first
    of them; entries naming no parameter of the method keep their order at the end. A
    section left empty (the function documented only its data parameter) is removed.
    """
    head = SECTION.search(text)
    if head is None:
        return text
    indent = head.group("indent")
    lines = text[head.end() :].split("\n")
    end = 0  # the section ends at the first blank line followed by an unindented line
    while end < len(lines) and (
        lines[end].strip() or (end + 1 < len(lines) and lines[end + 1].startswith(indent + " "))
    ):
        end += 1
    if end == 0:  # only the data parameter was documented: no section at all
        return text[: head.start()] + "\n".join(lines[1:])
    entries: list[list[str]] = []
    for line in lines[:end]:
        if line.startswith(indent) and line[len(indent) : len(indent) + 1].strip():
            entries.append([line])
        elif entries:
            entries[-1].append(line)
        else:
            return text
    order = {name: i for i, name in enumerate(inspect.signature(method).parameters)}

    def position(entry: list[str]) -> int:
        names = entry[0].split(" : ")[0].replace("*", "").split(",")
        return min((order.get(n.strip(), len(order)) for n in names), default=len(order))

    entries.sort(key=position)  # stable: ties keep the function's order
    body = [line for entry in entries for line in entry]
    return text[: head.end()] + "\n".join(body + lines[end:])


def render() -> dict[str, dict[str, str]]:
    """Every method's docstring as its function renders it now, by class and method."""
    out: dict[str, dict[str, str]] = {}
    for cls in CLASSES:
        docs = out.setdefault(cls.__name__, {})
        for name, method in vars(cls).items():
            if name.startswith("_") or not inspect.isfunction(method):
                continue
            func = function_of(cls, name)
            data = check_signature(cls, name, func)
            docs[name] = in_method_order(accessor_doc(func, (data,)), method)
    return out


def stale(current: dict[str, dict[str, str]] | None = None) -> list[str]:
    """``Class.method`` of every stored docstring that differs from what its function renders
    now (missing and left-over ones included)."""
    want = render() if current is None else current
    have = stored()
    keys = {(c, m) for c in want for m in want[c]} | {(c, m) for c in have for m in have[c]}
    return sorted(f"{c}.{m}" for c, m in keys if want.get(c, {}).get(m) != have.get(c, {}).get(m))


def main(argv: Sequence[str] | None = None) -> int:
    """Write the stored docstrings (``--check``: only compare them)."""
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    opts = parser.parse_args(argv)
    docs = render()
    differ = stale(docs)
    if opts.check:
        if differ:
            print(f"stale accessor docstrings: {', '.join(differ)}; run {COMMAND}")
        return 1 if differ else 0
    path = pathlib.Path(__file__).with_name(STORE)
    lines = {cls: {name: text.split("\n") for name, text in d.items()} for cls, d in docs.items()}
    path.write_text(json.dumps(lines, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{path}: {sum(map(len, docs.values()))} docstrings ({len(differ)} changed)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
