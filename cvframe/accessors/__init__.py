"""The ``ds.cv`` and ``df.cv`` accessors: one-line facades over the module functions.

Importing this package (``import cvframe`` does) registers both: ``ds.cv``
(:class:`CVDatasetAccessor`, in ``dataset``) on a counts cube and ``df.cv``
(:class:`CVDataFrameAccessor`, in ``frame``) on a predictions frame; ``ddf.cv``
(:class:`CVDaskFrameAccessor`, in ``dask_frame``: the methods of ``df.cv`` that run lazily or
by reduction) on a dask DataFrame once ``dask.dataframe`` is imported.

Accessors hold no state (``__slots__ = ("_obj",)``), cache nothing and validate nothing in
``__init__``. Each method has its own explicit signature (the data argument is the accessor's
object, the other parameters keep the function's names and defaults) and is one call
``module.func(self._obj, **args(locals()))``; ``module`` is loaded on that first call
(:class:`cvframe.accessors._common.Lazy`), so ``import cvframe`` loads none of the report, the
diagnostics, the score metrics or the comparisons. No ``__wrapped__``: ``help`` and
``inspect.signature`` show the method as it is called. The function API is the typed API; the
accessor is sugar; ``tests/test_parity.py`` keeps the two in step.

The methods' docstrings are their functions', stored with the package
(:mod:`cvframe.accessors._common`, written by ``python -m cvframe.accessors.generate``); a name
that only the other accessor (or its ``plot`` namespace) has says where it lives
(:mod:`cvframe.accessors._hints`): ``pred.cv.f_tp_fp()`` -> ``pred.cv.counts().cv.f_tp_fp()``.
"""

from __future__ import annotations

from ._hints import link
from .dask_frame import CVDaskFrameAccessor, register_when_imported
from .dataset import CVDatasetAccessor  # registers ds.cv
from .frame import CVDataFrameAccessor  # registers df.cv

# a name only the other one has says where it is
link(CVDatasetAccessor, CVDataFrameAccessor)
register_when_imported()  # ddf.cv, when dask.dataframe is (or gets) imported

__all__ = ["CVDaskFrameAccessor", "CVDataFrameAccessor", "CVDatasetAccessor"]
