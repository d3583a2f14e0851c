"""The ``ds.cv`` and ``df.cv`` accessors: one-line facades over the module functions.

Importing this package (``import cvframe`` does) registers both: ``ds.cv``
(:class:`CVDatasetAccessor`, in ``dataset``) on a counts cube and ``df.cv``
(:class:`CVDataFrameAccessor`, in ``frame``) on a predictions frame.

Accessors hold no state (``__slots__ = ("_obj",)``), cache nothing and validate nothing in
``__init__``. Each method has its own explicit signature (the data argument is the accessor's
object, the other parameters keep the function's names and defaults), is one call
``func(self._obj, **args(locals()))`` and has the function's docstring rendered for the
method by :mod:`cvframe._docs` (without the ``ds``/``df`` parameter, the parameters in the
method's order). No ``__wrapped__``: ``help`` and ``inspect.signature`` show the method as it
is called. The function API is the typed API; the accessor is sugar; ``tests/test_parity.py``
keeps the two in step.

The modules delegated to import only numpy, pandas, xarray (and scipy lazily); plotting
(matplotlib/seaborn) is imported on first use of the ``plot`` namespaces.

A name that only the other accessor (or its ``plot`` namespace) has raises an AttributeError
that says which object has it and how to get there (``cvframe.accessors._hints``):
``pred.cv.f_tp_fp()`` -> ``pred.cv.counts().cv.f_tp_fp()``, ``ds.cv.roc()`` -> ``df.cv.roc()``.
"""

from __future__ import annotations

from ._hints import link
from .dataset import CVDatasetAccessor
from .frame import CVDataFrameAccessor

link(CVDatasetAccessor, CVDataFrameAccessor)  # a name only the other one has says where it is

__all__ = ["CVDataFrameAccessor", "CVDatasetAccessor"]
