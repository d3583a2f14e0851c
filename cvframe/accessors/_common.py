"""What both accessors share: the function's docstring rendered for the method (through
:func:`cvframe._docs.accessor_doc`, its parameters in the method's order) and the one way a
method hands its arguments to the function."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any, TypeVar

from .. import _docs

__all__ = ["args", "compare_doc", "compare_function", "doc_from", "in_method_order"]

F = TypeVar("F", bound=Callable[..., Any])


def args(scope: dict[str, Any]) -> dict[str, Any]:
    """A method's arguments by name: its ``locals()`` at entry, without ``self``.

    Every method is one call, ``func(self._obj, **args(locals()))``: the method's parameters
    have the function's names (``tests/test_parity.py`` checks it), so each reaches the
    function unchanged and no call lists the parameters a second time.
    """
    return {k: v for k, v in scope.items() if k != "self"}


def compare_function() -> Callable[..., Any]:
    """:func:`cvframe.compare.compare`, looked up per call (the name ``cvframe.compare`` may
    be the function, and a test may replace it)."""
    from ..compare import compare

    return compare


SECTION = re.compile(r"^(?P<indent>[ \t]*)Parameters\n(?P=indent)-+\n", re.MULTILINE)


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


def doc_from(func: Callable[..., Any], data: tuple[str, ...] = ("ds", "df")) -> Callable[[F], F]:
    """Give the accessor method ``func``'s docstring: without its data parameter, the
    parameters in the method's order."""

    def deco(method: F) -> F:
        method.__doc__ = in_method_order(_docs.accessor_doc(func, data), method)
        return method

    return deco


def compare_doc(method: F) -> F:
    """The docstring of :func:`cvframe.compare.compare` for ``ds.cv``/``df.cv``: no ``data``."""
    return doc_from(compare_function(), ("data",))(method)
