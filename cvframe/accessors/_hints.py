"""Errors that point to the fix: a name asked of the wrong accessor says where it lives.

``ds.cv`` (a counts cube) and ``df.cv`` (a predictions frame) have different methods, and so
have their ``plot`` namespaces. A name that only the other object has raises an
AttributeError naming the object that has it and the call that gets there:
``pred.cv.f_tp_fp()`` says ``pred.cv.counts().cv.f_tp_fp()``; ``ds.cv.roc()`` says it needs
the predictions frame with scores, ``df.cv.roc()``. The names are the set difference of the
two classes' public attributes, computed once when the pair is linked (:func:`link`), so a
method added to one accessor gets its hint on the other without a line here. Any other
missing name raises Python's own message (with its "Did you mean" suggestion); ``dir()``
and tab completion list only what the object has, and ``hasattr`` is False for the rest.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, NoReturn

#: class -> {a name only its twin has: the message}; filled by :func:`link`
HINTS: dict[type, dict[str, str]] = {}

#: the frame method that builds the cube: the way from a frame to every cube method
TO_CUBE = "counts"


def _public(cls: type) -> set[str]:
    return {n for n in dir(cls) if not n.startswith("_")}


def _member(cls: type, name: str) -> Any:
    """``cls.name`` as the class holds it (a property is not run for its hint)."""
    return inspect.getattr_static(cls, name)


def _params(member: Any) -> set[str]:
    """The parameter names of a method (none for a property or an opaque callable)."""
    code = getattr(member, "__code__", None)
    plain_function = not hasattr(member, "__wrapped__") and not hasattr(member, "__signature__")
    if code is not None and plain_function:  # its parameters, read cheaply from its code
        return set(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    try:
        return set(inspect.signature(member).parameters)
    except (TypeError, ValueError):
        return set()


def _on_frame(name: str, member: Any, ns: str) -> str:
    """The message for ``name``, a member of the cube's namespace ``ns``, asked of a frame."""
    what = "plot" if ns else "method"
    scores = "scores=pred" if "scores" in _params(member) else ""
    return (
        f"{name!r} is not a {what} of a predictions frame (pred.cv{ns}): it is a {what} of "
        f"the counts cube (ds.cv{ns}). Build the cube from the frame first: "
        f"pred.cv.{TO_CUBE}().cv{ns}.{name}({scores})"
    )


def _on_cube(name: str, member: Any, ns: str) -> str:
    """The message for ``name``, a member of the frame's namespace ``ns``, asked of a cube."""
    what = "plot" if ns else "method"
    head = f"{name!r} is not a {what} of a counts cube (ds.cv{ns}): "
    call = f"df.cv{ns}.{name}()"
    if not ns and name == TO_CUBE:
        return head + f"it builds one from the predictions frame ({call}); ds already is one"
    if "score" in _params(member):
        return head + (
            f"it needs the predictions frame with scores (a cube holds counts only): {call}"
        )
    return head + f"it is a {what} of the predictions frame: {call}"


def link(cube: type, frame: type, ns: str = "") -> None:
    """Give ``cube`` and ``frame`` (the two accessors, or their ``ns`` = ``".plot"``
    namespaces) the hints for the names only the other one has."""
    on_cube, on_frame = _public(cube), _public(frame)
    HINTS[frame] = {n: _on_frame(n, _member(cube, n), ns) for n in sorted(on_cube - on_frame)}
    HINTS[cube] = {n: _on_cube(n, _member(frame, n), ns) for n in sorted(on_frame - on_cube)}


def missing(obj: Any, name: str) -> AttributeError:
    """The AttributeError for ``obj.name`` (a ``__getattr__`` raises it): where the name
    lives when the twin class has it, else Python's own error (a property of ``obj`` that
    raised one gives that one back, not "no attribute")."""
    if not name.startswith("_"):
        for cls in type(obj).__mro__:
            hint = HINTS.get(cls, {}).get(name)
            if hint is not None:
                return AttributeError(hint, name=name)
    try:
        object.__getattribute__(obj, name)
    except AttributeError as err:
        return err
    return AttributeError(name, name=name, obj=obj)  # pragma: no cover - found the second time


def fail(obj: Any, name: str) -> NoReturn:
    """Raise :func:`missing` (the hook of the plot namespaces' ``__getattr__``)."""
    raise missing(obj, name)


@functools.cache
def plot_namespaces() -> tuple[Any, Any]:
    """``(DatasetPlotter, DataFramePlotter)``, linked: each one's ``__getattr__`` raises
    :func:`missing` through :func:`fail`. Linked on the first ``.plot``, not at import: the
    plots load on first use, and ``cvframe.plot`` cannot import this package (which imports
    it), so the hook is set from here."""
    from ..plot import DataFramePlotter, DatasetPlotter

    link(DatasetPlotter, DataFramePlotter, ".plot")
    DatasetPlotter._missing = fail
    DataFramePlotter._missing = fail
    return DatasetPlotter, DataFramePlotter
