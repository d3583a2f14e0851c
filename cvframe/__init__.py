"""cvframe: honest, comparable classifier evaluation under cross-validation.

Every fold's outcome lives in a labeled :class:`xarray.Dataset` (the "counts cube":
``tp``, ``fp``, ``fn``, ``tn`` over ``fold`` x ``class`` plus ``repeat`` and any user
dims); the ``ds.cv`` and ``df.cv`` accessors compute every aggregation explicitly and by
name. See Forman & Scholz (2010), "Apples-to-Apples in Cross-Validation Studies".
"""

from __future__ import annotations

from typing import Any

from . import accessors as _accessors  # noqa: F401  (registers ds.cv and df.cv)
from ._version import __version__
from .errors import CountsError, UndefinedMetricWarning

# Every other name loads on first use (`cvframe.reduce`, `from cvframe import
# from_predictions`), so that `import cvframe` costs little more than `import xarray`: the
# outer layers import scikit-learn, scipy.stats, matplotlib or dask, and even the cube's
# builders and reductions are a few dozen modules. The accessor methods import theirs when
# called.
_LAZY = {
    "datasets": ("datasets", None),
    "formulas": ("formulas", None),
    "reduce": ("reduce", None),
    "schema": ("schema", None),
    "from_confusion": ("build", "from_confusion"),
    "from_counts": ("build", "from_counts"),
    "from_predictions": ("build", "from_predictions"),
    "from_grouped": ("build", "from_grouped"),
    "sql": ("sql", None),
    "f_from_rates": ("formulas", "f_from_rates"),
    "open_dataset": ("io", "open_dataset"),
    "validate": ("schema", "validate"),
    "compare": ("comparison", "compare"),
    "explain": ("explanation", "explain"),
    "cross_validate": ("runner", "cross_validate"),
    "splits": ("splits", None),
    "simulation": ("simulation", None),
    "simulate": ("simulation", "simulate"),
    "bias_study": ("simulation", "bias_study"),
    "p_fold_without_positives": ("simulation", "p_fold_without_positives"),
    "plot": ("plot", None),
    "bootstrap": ("bootstrap", None),
    "diagnostics": ("diagnostics", None),
    "report": ("report", None),
    "scores": ("scores", None),
    "tidy": ("tidy", None),
    "search": ("search", None),
    "readers": ("readers", None),
    "PooledSearchCV": ("search", "PooledSearchCV"),
    "param_label": ("runner", "param_label"),
    "read_params": ("runner", "read_params"),
    "interval": ("intervals", "interval"),
    "coverage_study": ("simulation", "coverage_study"),
    "plan": ("simulation", "plan"),
    "power_study": ("simulation", "power_study"),
    "PooledThresholdClassifierCV": ("search", "PooledThresholdClassifierCV"),
    "selection_stability": ("search", "selection_stability"),
    "reconcile": ("explanation", "reconcile"),
}

__all__ = [
    "CountsError",
    "PooledSearchCV",
    "PooledThresholdClassifierCV",
    "UndefinedMetricWarning",
    "__version__",
    "bias_study",
    "compare",
    "coverage_study",
    "cross_validate",
    "datasets",
    "explain",
    "f_from_rates",
    "formulas",
    "from_confusion",
    "from_counts",
    "from_grouped",
    "from_predictions",
    "interval",
    "open_dataset",
    "p_fold_without_positives",
    "param_label",
    "plan",
    "plot",
    "power_study",
    "read_params",
    "readers",
    "reconcile",
    "reduce",
    "schema",
    "search",
    "selection_stability",
    "simulate",
    "simulation",
    "splits",
    "sql",
    "validate",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module_name, attr = _LAZY[name]
        module = importlib.import_module(f".{module_name}", __name__)
        value = module if attr is None else getattr(module, attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'cvframe' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
