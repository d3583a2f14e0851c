"""What both accessors share: their base (the object, the hint for a name the other one has),
the one way a method hands its arguments to its function, the function modules loaded on first
use, and the methods' docstrings, stored with the package.

Each method's docstring is its function's, rendered for the method (the data parameter left
out, the parameters in the method's order) by ``python -m cvframe.accessors.generate`` and
stored in ``docstrings.json``; :func:`documented` gives the methods their docstrings when the
class is made, so ``help``, ``__doc__``, ``inspect`` and the API docs read plain functions
with plain docstrings and no function module is imported for it.
"""

from __future__ import annotations

import importlib
import json
from functools import cache
from importlib import resources
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

from ._hints import missing

T = TypeVar("T", bound=type)

#: The file of the stored docstrings, beside this module: ``{class: {method: [lines]}}`` (a
#: docstring's lines one per line of the file, so that a change reads as a diff of its lines).
STORE = "docstrings.json"


class Accessor:
    """``ds.cv`` / ``df.cv``: stateless, the object itself its only field."""

    __slots__ = ("_obj",)

    def __init__(self, obj: Any) -> None:
        self._obj = obj

    if not TYPE_CHECKING:  # at run time only: a type checker still flags an unknown name

        def __getattr__(self, name: str) -> Any:  # ds.cv.roc says: df.cv.roc()
            raise missing(self, name)


def args(scope: dict[str, Any]) -> dict[str, Any]:
    """A method's arguments by name: its ``locals()`` without ``self`` (and without a module a
    method body may import for its call).

    Every method is one call, ``module.func(self._obj, **args(locals()))``: the method's
    parameters have the function's names (``tests/test_parity.py`` checks it), so each reaches
    the function unchanged and no call lists the parameters a second time.
    """
    return {k: v for k, v in scope.items() if k != "self" and not isinstance(v, ModuleType)}


class Lazy:
    """The module ``cvframe.<name>``, imported when an attribute is first asked of it: the
    accessors' function modules, which ``import cvframe`` does not load."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(f"cvframe.{self._name}"), attr)


def lazy(*names: str) -> tuple[Any, ...]:
    """One :class:`Lazy` module per name."""
    return tuple(Lazy(n) for n in names)


@cache
def stored() -> dict[str, dict[str, str]]:
    """The stored docstrings, ``{class name: {method name: docstring}}``."""
    try:
        text = resources.files(__package__).joinpath(STORE).read_text(encoding="utf-8")
    except FileNotFoundError:  # none written yet: the generator writes the first
        return {}
    return {
        cls: {name: "\n".join(lines) for name, lines in docs.items()}
        for cls, docs in json.loads(text).items()
    }


def documented(cls: T) -> T:
    """Give every method of ``cls`` its stored docstring (a method added since the last
    ``python -m cvframe.accessors.generate`` has none until it is run again, and
    ``tests/test_accessors.py`` fails until then)."""
    for name, text in stored().get(cls.__name__, {}).items():
        method = vars(cls).get(name)
        if callable(method):
            method.__doc__ = text
    return cls
