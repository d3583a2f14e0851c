"""The checks of :mod:`.frame`, the predictions-frame reader: one column in one role, and
score columns read as finite numbers.

:func:`one_role` refuses a column read in two roles when one of them is a dim
(``repeat="fold"``); :func:`role` says what an argument that names a column reads, as the
messages word it; :func:`read_scores` reads the score columns as float64 (a TypeError for a
column that is not numeric, a ValueError naming the rows with NaN or infinite scores) and
warns once for columns that hold hard 0/1 predictions.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...errors import few, user_stacklevel
from ...schema import FRAME_DIMS
from .. import checks as _checks
from .. import labels as _labels

__all__ = ["one_role", "read_scores", "role"]


#: What each argument that names a column reads, as an error message says it.
_ROLE = {
    "y_true": "the true labels",
    "y_pred": "the predicted labels",
    "fold": "the test fold of every row",
    "repeat": "the repeat of every row (or repeat=None for one repeat)",
    "score": "the scores",
    "sample_weight": "the sample weights",
    "dims": "a further dim of the cube",
}
_DEFAULT = {name: name for name in ("y_true", "y_pred", "fold", "repeat", "score")}


def one_role(roles: Sequence[tuple[str, Any, bool]]) -> None:
    """Refuse a column read in two roles when one of them is a dim.

    ``roles``: (argument, column or None, is a dim) in the order the arguments are read. A
    column cannot be two dims (``repeat="fold"`` would make every repeat one fold, and a
    fold-averaged metric would be reported as a pooled one), nor a dim and the labels,
    scores or weights; a ValueError names both arguments and the fix. Two non-dim roles
    (``y_pred=y_true``) are left to the caller.

    >>> one_role([("fold", "fold", True), ("repeat", "fold", True)])
    Traceback (most recent call last):
    ...
    ValueError: repeat='fold' names the column 'fold', which fold='fold' already reads as ...
    """
    seen: dict[Any, tuple[str, bool]] = {}
    for arg, col, is_dim in roles:
        if col is None:
            continue
        try:
            prev = seen.get(col)
        except TypeError:  # an unhashable name: the column check reports it
            continue
        if prev is None:
            seen[col] = (arg, is_dim)
            continue
        first, first_dim = prev
        if not (is_dim or first_dim):
            continue
        if not _passed(arg, col) and _passed(first, col):  # blame the argument passed
            (arg, is_dim), (first, first_dim) = (first, first_dim), (arg, is_dim)
        other = arg if first_dim else first  # the role that is not a dim, if any
        kind = "two dims" if is_dim and first_dim else f"both a dim and {role(other)}"
        by = (
            f"which {first}={col!r} already reads as {role(first)}"
            if first in _ROLE and not (first == "dims" and col in FRAME_DIMS)
            else f"which is the cube's {col!r} dim (a {col!r} column always is one)"
        )
        raise ValueError(
            f"{arg}={col!r} names the column {col!r}, {by}; one column cannot be {kind}. "
            f"Pass {arg}= with the column that holds {role(arg)}."
        )


def _passed(arg: str, col: Any) -> bool:
    """Whether ``arg`` names ``col`` by choice: not its default name, not a dim column
    (``model``, ...) read under its own name."""
    return arg in _ROLE and col != _DEFAULT.get(arg) and not (arg == "dims" and col in FRAME_DIMS)


def role(arg: str) -> str:
    """What the argument ``arg`` reads, as a message words it (a further dim by default)."""
    return _ROLE.get(arg, f"the cube's {arg!r} dim")


def read_scores(
    df: pd.DataFrame, names: Sequence[Hashable], complement: bool
) -> tuple[list[np.ndarray], list[tuple[float, float]]]:
    """The float64 scores and (min, max) of every score column (``1 - s`` for a complement),
    with one warning for columns that hold hard 0/1 predictions."""
    arrays, ranges, hard = [], [], []
    for name in names:
        s, lo, hi = _score_array(_checks.column(df, name, "score", "predictions frame"))
        if complement:
            s, lo, hi = 1.0 - s, 1.0 - hi, 1.0 - lo
        if lo == 0.0 and hi == 1.0 and bool(np.all((s == 0.0) | (s == 1.0))):
            hard.append(name)
        arrays.append(s)
        ranges.append((lo, hi))
    if hard:
        warnings.warn(
            f"score column(s) {few(hard)} hold only the values 0 and 1: they look like hard "
            "predictions, not scores. AUC of hard predictions equals balanced accuracy and "
            "ranking metrics see one big tie; pass predict_proba or decision_function values "
            "for a real ROC.",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
    return arrays, ranges


def _score_array(col: pd.Series) -> tuple[np.ndarray, float, float]:
    name = col.name
    if col.dtype.kind == "b" or col.dtype == "boolean":
        _labels.check_no_missing(col, "score")
        s = col.to_numpy(dtype=np.float64)
        return s, float(s.min()), float(s.max())
    if not pd.api.types.is_numeric_dtype(col.dtype):
        raise TypeError(
            f"score column {name!r} has dtype {col.dtype}; scores must be numbers "
            "(predict_proba or decision_function values). Convert with "
            f"df[{name!r}].astype(float)."
        )
    f64 = col.dtype == np.float64
    s = col.to_numpy() if f64 else col.to_numpy(dtype=np.float64, na_value=np.nan)
    lo, hi = (float(s.min()), float(s.max())) if len(s) else (0.0, 0.0)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        bad = ~np.isfinite(s)
        raise ValueError(
            f"score column {name!r} has {int(bad.sum())} NaN or infinite scores at rows "
            f"{few(col.index[bad])} (values {few(np.unique(s[bad]))}); every tested sample "
            "needs a finite score. Drop those rows or fix the model's output."
        )
    return s, lo, hi
