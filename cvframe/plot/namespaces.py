"""The ``ds.cv.plot`` and ``df.cv.plot`` namespaces: each plot of a cube or a frame as a
method (:func:`cvframe.plot._style.as_method`: the function's parameters, defaults and
docstring, one call)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from ._style import as_method
from .aggregations import folds, methods
from .confusion_matrix import confusion
from .cost import cost_roc
from .precision_recall import pr_curve
from .rate_curves import score_rates
from .reliability import calibration
from .roc_curves import roc

__all__ = ["DataFramePlotter", "DatasetPlotter"]


class _Plotter:
    """A plot namespace of one object (stateless)."""

    __slots__ = ("_obj",)

    def __init__(self, obj: Any) -> None:
        self._obj = obj

    #: raises the AttributeError of a missing name; cvframe.accessors makes ``ds.cv.plot.roc``
    #: name the namespace that has the plot (from the difference of the two plotters' methods)
    _missing: ClassVar[Callable[[Any, str], Any]] = object.__getattribute__

    def __getattr__(self, name: str) -> Any:
        return type(self)._missing(self, name)


class DatasetPlotter(_Plotter):
    """``ds.cv.plot``: the plots of a counts cube (stateless; see :mod:`cvframe.plot`)."""

    __slots__ = ()

    folds = as_method(folds)
    methods = as_method(methods)
    confusion = as_method(confusion)


class DataFramePlotter(_Plotter):
    """``df.cv.plot``: the plots of a predictions frame with scores (stateless)."""

    __slots__ = ()

    roc = as_method(roc)
    score_rates = as_method(score_rates)
    cost_roc = as_method(cost_roc)
    pr_curve = as_method(pr_curve)
    calibration = as_method(calibration)
