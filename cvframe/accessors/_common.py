"""What both accessors share: the function's docstring rendered for the method (through
:func:`cvframe._core.docs.accessor_doc`, its parameters in the method's order) and the one way a
method hands its arguments to the function.

A method over a module that ``import cvframe`` does not load (the report, diagnostics,
scores, comparisons: :func:`doc_later`) imports it when called, and gets its docstring on
its first look-up (``ds.cv.report``, ``help``, the API docs), from the same function.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeVar, cast

from .._core import docs as _docs

__all__ = [
    "args",
    "compare_doc",
    "compare_function",
    "compare_module",
    "doc_from",
    "doc_later",
    "finish",
    "in_method_order",
    "interval_module",
    "plain",
    "scores_module",
]

F = TypeVar("F", bound=Callable[..., Any])


def args(scope: dict[str, Any]) -> dict[str, Any]:
    """A method's arguments by name: its ``locals()`` at entry, without ``self``.

    Every method is one call, ``func(self._obj, **args(locals()))``: the method's parameters
    have the function's names (``tests/test_parity.py`` checks it), so each reaches the
    function unchanged and no call lists the parameters a second time.
    """
    return {k: v for k, v in scope.items() if k != "self"}


def compare_module() -> ModuleType:
    """The package :mod:`cvframe.comparison`, loaded on first use."""
    from .. import comparison

    return comparison


def interval_module() -> ModuleType:
    """The module of :func:`cvframe.interval`, loaded on first use."""
    from .. import intervals as interval

    return interval


def scores_module() -> ModuleType:
    """The package :mod:`cvframe.scores`, loaded on first use."""
    from .. import scores

    return scores


def compare_function() -> Callable[..., Any]:
    """:func:`cvframe.compare`, looked up per call (a test may replace it)."""
    from ..comparison import compare

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


class Later:
    """An accessor method whose function lives in a module loaded on first use.

    The class attribute until the method is first looked up: then the method gets the
    function's docstring (as :func:`doc_from` gives it) and replaces this entry in the class,
    so that ``vars(cls)`` holds plain functions from then on (:func:`finish` does it for
    every method of a class at once).
    """

    __slots__ = ("data", "load", "method", "name")

    def __init__(
        self,
        method: Callable[..., Any],
        load: Callable[[], ModuleType],
        name: str,
        data: tuple[str, ...],
    ) -> None:
        self.method, self.load, self.name, self.data = method, load, name, data

    def function(self) -> Callable[..., Any]:
        """The function the method calls (its module is imported now)."""
        return cast(Callable[..., Any], getattr(self.load(), self.name))

    def done(self, owner: type) -> Callable[..., Any]:
        """The method, documented, in place of this entry of ``owner``."""
        method = self.method
        if method.__doc__ is None:
            method.__doc__ = in_method_order(_docs.accessor_doc(self.function(), self.data), method)
        if vars(owner).get(method.__name__) is self:
            setattr(owner, method.__name__, method)
        return method

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        method = self.done(type(obj) if owner is None else owner)
        return method if obj is None else method.__get__(obj, owner)


def doc_later(
    load: Callable[[], ModuleType], name: str | None = None, data: tuple[str, ...] = ("ds", "df")
) -> Callable[[F], F]:
    """:func:`doc_from` for a function of a module loaded on first use: ``load()`` imports
    and returns the module, whose function ``name`` (default: the method's name) the method
    calls; the docstring is rendered on the method's first look-up, not at import."""

    def deco(method: F) -> F:
        return cast(F, Later(method, load, name or method.__name__, data))

    return deco


def finish(cls: type) -> type:
    """Document every method of ``cls`` that :func:`doc_later` left for its first look-up
    (their modules are imported now): ``vars(cls)`` then holds plain functions."""
    for member in list(vars(cls).values()):
        if isinstance(member, Later):
            member.done(cls)
    return cls


def plain(member: Any) -> Any:
    """A class attribute as looked up without side effects: a :class:`Later` entry's method
    (undocumented yet), anything else as it is."""
    return member.method if isinstance(member, Later) else member


def compare_doc(method: F) -> F:
    """The docstring of :func:`cvframe.compare` for ``ds.cv``/``df.cv``: no ``data``."""
    return doc_later(compare_module, "compare", ("data",))(method)
