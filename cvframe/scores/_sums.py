"""One class's rows of a predictions frame as sums: samples, or per-group sums of a dask frame.

The calibration scores are means over samples, so they need only sums per (repeat, fold)
group; a plain frame gives one row per sample (``n = 1``), a dask DataFrame is reduced
lazily to per-group sums whose rows stand for all the samples of their group, and a
score-count table gives one row per (group, score, label) standing for its ``count``
samples (each class its own rows: :func:`groups`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._core import checks as _checks
from .._core.labels.frame import Frame
from ..schema import FRAME_DIMS
from ._counted import CountedFrame

__all__ = ["STATS", "Rows", "bin_of", "from_dask", "groups", "rows"]

STATS = "cvframe_group_sums"  # attrs key of a frame of per-group sums (a reduced dask frame)
_PRE = "__cvframe_"  # prefix of the sum columns of such a frame


@dataclass
class Rows:
    """One class's rows: samples of a plain frame, or per-group sums of a reduced one."""

    y: np.ndarray  # 1.0 where the row's label is the class
    n: np.ndarray  # samples in the row
    s1: np.ndarray  # sum of the scores
    s2: np.ndarray  # sum of the squared scores
    lp: np.ndarray | None  # sum of -log(clip(s))
    lq: np.ndarray | None  # sum of -log(clip(1 - s))
    b: np.ndarray | None  # bin of the row (an integer code, or the score for bins=None)


def bin_of(s: Any, bins: int | None) -> Any:
    """Equal-width bin of a probability (1.0 in the last bin); the score itself for None."""
    if bins is None:
        return s
    return np.minimum(np.floor(s * bins), bins - 1)


def _check_probabilities(name: str, lo: float, hi: float, bad: int = 0) -> None:
    if bad:
        raise ValueError(
            f"score column {name!r} has {bad} NaN or infinite scores; every tested sample "
            "needs a finite score. Drop those rows or fix the model's output."
        )
    if lo < 0.0 or hi > 1.0:
        raise ValueError(
            f"score column {name!r} has scores outside [0, 1] (min {lo:g}, max {hi:g}): the "
            "Brier score and log-loss need probabilities (predict_proba), not decision "
            "values. Pass score= naming probability columns, or calibrate the model "
            "(sklearn.calibration.CalibratedClassifierCV)."
        )


def rows(fr: Frame, eps: float | None, bins: int | None | bool) -> list[Rows]:
    """Every class's rows of the parsed frame (of its per-group sums ``fr.sums``, when it
    was read from a dask frame reduced to them).

    ``eps`` given: the log terms are read; ``bins`` not False: the bin of every row.
    """
    df = fr.sums
    reduced = df is not None
    out = []
    for c, (name, y, s, (lo, hi)) in enumerate(
        zip(fr.score_cols, fr.ys, fr.scores, fr.ranges, strict=True)
    ):
        yf = y.astype(np.float64)
        if isinstance(fr, CountedFrame):  # every row stands for its count of samples
            _check_probabilities(name, lo, hi)
            n = fr.weights[c].astype(np.float64)
            lp = lq = b = None
            if eps is not None:
                lp = n * -np.log(np.clip(s, eps, 1 - eps))
                lq = n * -np.log(np.clip(1 - s, eps, 1 - eps))
            if bins is not False:
                b = bin_of(s, bins)
            out.append(Rows(yf, n, n * s, n * (s * s), lp, lq, b))
            continue
        if reduced:

            def col(k: str, name: str = name) -> np.ndarray:
                return df[f"{_PRE}{k}:{name}"].to_numpy(np.float64)

            _check_probabilities(name, col("min").min(), col("max").max(), int(col("bad").sum()))
            lp, lq = (col("lp"), col("lq")) if eps is not None else (None, None)
            b = col("bin") if bins is not False else None
            n = df[f"{_PRE}n"].to_numpy(np.float64)
            out.append(Rows(yf, n, col("s1"), col("s2"), lp, lq, b))
            continue
        _check_probabilities(name, lo, hi)
        lp = lq = b = None
        if eps is not None:
            lp = -np.log(np.clip(s, eps, 1 - eps))
            lq = -np.log(np.clip(1 - s, eps, 1 - eps))
        if bins is not False:
            b = bin_of(s, bins)
        out.append(Rows(yf, np.ones(len(s)), s, s * s, lp, lq, b))
    return out


def groups(fr: Frame, c: int, per_fold: bool) -> tuple[np.ndarray, int]:
    """The group of every row of class ``c``'s :class:`Rows` (``per_fold``: (repeat, fold),
    else repeat) and the number of groups: the frame's rows, or a score-count table's rows
    of that class."""
    if isinstance(fr, CountedFrame):
        return fr.class_groups(c, per_fold)
    g, k = fr.groups(per_fold)
    return (np.zeros(fr.n, dtype=np.int64) if g is None else g), k


def from_dask(
    ddf: Any,
    y_true: str,
    fold: str,
    repeat: str | None,
    score: str,
    eps: float | None,
    bins: int | None | bool,
) -> pd.DataFrame:
    """A dask frame reduced lazily to per-group sums, one dask ``groupby().agg`` computed.

    The groups are the frame dims, repeat, fold, label (and, for the decomposition, the bin
    of every score column); a score column of the result holds its group's mean score, so
    the frame is parsed like the original one.
    """
    cols = list(ddf.columns)
    for name, arg in ((y_true, "y_true"), (fold, "fold")):
        _checks.column(ddf, name, arg, "predictions frame")
    keys = [d for d in FRAME_DIMS if d in cols]
    if repeat is not None and repeat in cols:
        keys.append(repeat)
    keys += [fold, y_true]
    scored = [c for c in cols if c == score or (isinstance(c, str) and c.startswith(score + "_"))]
    new: dict[str, Any] = {f"{_PRE}n": 1}
    agg: dict[str, str] = {f"{_PRE}n": "sum"}
    bin_keys = []
    for c in scored:
        s = ddf[c].astype("float64")
        finite = s.notnull() & (s.abs() != np.inf)
        clean = s.where(finite, 0.0)
        parts = {
            "s1": (clean, "sum"),
            "s2": (clean * clean, "sum"),
            "bad": ((~finite).astype("int64"), "sum"),
            "min": (s, "min"),
            "max": (s, "max"),
        }
        if eps is not None:
            clipped = clean.clip(lower=eps, upper=1 - eps)
            parts["lp"] = (-np.log(clipped), "sum")
            parts["lq"] = (-np.log((1 - clean).clip(lower=eps, upper=1 - eps)), "sum")
        for k, (v, how) in parts.items():
            new[f"{_PRE}{k}:{c}"] = v
            agg[f"{_PRE}{k}:{c}"] = how
        if bins is not False:
            new[f"{_PRE}bin:{c}"] = bin_of(clean, bins)
            bin_keys.append(f"{_PRE}bin:{c}")
    grouped = ddf.assign(**new).groupby(keys + bin_keys, dropna=False, observed=True)
    out = grouped.agg(agg).compute().reset_index()
    for c in scored:
        out[c] = out[f"{_PRE}s1:{c}"] / out[f"{_PRE}n"]
    out.attrs = {**dict(getattr(ddf, "attrs", {}) or {}), STATS: True}
    return out
