"""What both accessors share: the one way a method hands its arguments to its function, and
the methods' docstrings, stored with the package.

Each method's docstring is its function's, rendered for the method (the data parameter left
out, the parameters in the method's order) by ``python -m cvframe.accessors.generate`` and
stored in ``docstrings.json``; :func:`documented` gives the methods their docstrings when the
class is made, so ``help``, ``__doc__``, ``inspect`` and the API docs read plain functions
with plain docstrings and no function module is imported for it.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from types import ModuleType
from typing import Any, TypeVar

__all__ = ["STORE", "args", "documented", "stored"]

T = TypeVar("T", bound=type)

#: The file of the stored docstrings, beside this module: ``{class: {method: [lines]}}`` (a
#: docstring's lines one per line of the file, so that a change reads as a diff of its lines).
STORE = "docstrings.json"


def args(scope: dict[str, Any]) -> dict[str, Any]:
    """A method's arguments by name: its ``locals()`` without ``self`` and the module its
    body imported for the call.

    Every method is one call, ``module.func(self._obj, **args(locals()))``: the method's
    parameters have the function's names (``tests/test_parity.py`` checks it), so each reaches
    the function unchanged and no call lists the parameters a second time. A method over a
    module that ``import cvframe`` does not load imports it first (``from .. import report``),
    which puts that module among its locals: a module is never an argument, so it is left out.
    """
    return {k: v for k, v in scope.items() if k != "self" and not isinstance(v, ModuleType)}


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
