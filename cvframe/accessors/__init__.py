"""The ``ds.cv`` and ``df.cv`` accessors: one-line facades over the module functions.

Importing this package (``import cvframe`` does) registers both: ``ds.cv``
(:class:`CVDatasetAccessor`, in ``dataset``) on a counts cube and ``df.cv``
(:class:`CVDataFrameAccessor`, in ``frame``) on a predictions frame.

Accessors hold no state (``__slots__ = ("_obj",)``), cache nothing and validate nothing in
``__init__``. Each method has its own explicit signature (the data argument is the accessor's
object, the other parameters keep the function's names and defaults), is one call
``func(self._obj, **args(locals()))`` and has the function's docstring rendered for the
method by :mod:`cvframe._core.docs` (without the ``ds``/``df`` parameter, the parameters in the
method's order). No ``__wrapped__``: ``help`` and ``inspect.signature`` show the method as it
is called. The function API is the typed API; the accessor is sugar; ``tests/test_parity.py``
keeps the two in step.

The modules delegated to import only numpy, pandas, xarray (and scipy lazily); plotting
(matplotlib/seaborn) is imported on first use of the ``plot`` namespaces. ``import cvframe``
imports only the cube's core modules (``reduce``, ``multiclass``, ``repeats``, ``build``): a
method over the report, the diagnostics, the bootstrap, the score metrics or a comparison
imports its module when called and gets its docstring, rendered from the function's, on its
first look-up (``help(ds.cv.report)`` shows it; ``cvframe.accessors._common.doc_later``).

A name that only the other accessor (or its ``plot`` namespace) has raises an AttributeError
that says which object has it and how to get there (``cvframe.accessors._hints``):
``pred.cv.f_tp_fp()`` -> ``pred.cv.counts().cv.f_tp_fp()``, ``ds.cv.roc()`` -> ``df.cv.roc()``.
"""

from __future__ import annotations

from typing import Any

from . import dataset as _dataset  # registers ds.cv
from . import frame as _frame  # registers df.cv
from ._common import finish
from ._hints import link

# a name only the other one has says where it is
link(_dataset.CVDatasetAccessor, _frame.CVDataFrameAccessor)

__all__ = ["CVDataFrameAccessor", "CVDatasetAccessor"]


def __getattr__(name: str) -> Any:
    """The accessor classes, every method documented (:func:`~cvframe.accessors._common.finish`).

    ``import cvframe`` registers the accessors without importing the modules of the report,
    the diagnostics and the scores; a method over one of them imports it when called and
    gets its docstring on its first look-up. Naming the class here (the tests, the API docs,
    ``isinstance``) finishes them all, so that ``vars(cls)`` holds plain functions.
    """
    if name in __all__:
        cls = finish(getattr(_dataset if name == "CVDatasetAccessor" else _frame, name))
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
