"""The findings about single folds of :func:`cvframe.diagnostics.anomalies` and the table
that collects every finding (:class:`Findings`)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .. import scores as score_metrics
from .._core import labels as _labels
from .._core.labels import frame as labels_frame
from .._core.labels import plain
from ..errors import UndefinedMetricWarning
from ..reduce import F_METHODS
from ..schema import CLASS, COUNTS, FOLD, REPEAT, check_structure, read_counts
from ..tidy import methods_table
from ._table import FINDINGS, SEVERITIES


def binom_two_sided(x: np.ndarray, n: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Exact two-sided binomial p-value 2·min(P[X <= x], P[X >= x]), capped at 1.

    ``bdtr(x, n, p)`` is :math:`P[X \\le x]` and ``bdtrc(x - 1, n, p)`` is :math:`P[X \\ge x]`
    (the regularized incomplete beta function, as ``scipy.stats.binom`` computes them).
    """
    from scipy import special

    x, n = np.asarray(x, dtype=np.int64), np.asarray(n, dtype=np.int64)  # integral counts
    low = special.bdtr(x, n, p)
    high = special.bdtrc(x - 1, n, p)
    return np.minimum(1.0, 2.0 * np.minimum(low, high))


def fmt(v: float) -> str:
    return "nan" if not math.isfinite(v) else f"{v:.3f}"


class Findings:
    """Collects findings from boolean masks (positions come from ``np.argwhere``)."""

    def __init__(self, extra: list[Hashable]) -> None:
        self.extra = extra
        self.rows: list[dict[Any, Any]] = []
        self.keys: list[tuple[Any, ...]] = []

    def add(self, mask: xr.DataArray, kind: str, detail: Callable[[tuple[int, ...]], str]) -> None:
        dims = mask.dims
        coords: dict[Any, Any] = {
            d: mask[d].values if d in mask.coords else np.arange(mask.sizes[d]) for d in dims
        }
        kind_pos = list(FINDINGS).index(kind)
        rank = SEVERITIES.index(FINDINGS[kind].severity)
        for raw in np.argwhere(np.asarray(mask.values)):
            pos = tuple(int(i) for i in raw)
            at: dict[Any, int] = dict(zip(dims, pos, strict=True))
            row: dict[Any, Any] = {
                d: plain(coords[d][at[d]]) if d in at else None for d in self.extra
            }
            row[FOLD] = plain(coords[FOLD][at[FOLD]]) if FOLD in at else None
            row[CLASS] = plain(coords[CLASS][at[CLASS]]) if CLASS in at else None
            row["kind"] = kind
            row["detail"] = detail(pos)
            self.rows.append(row)
            big = 1 << 40  # summary findings (no fold / no class) sort after the folds
            self.keys.append(
                (rank,)
                + tuple(at.get(d, big) for d in self.extra)
                + (at.get(FOLD, big), at.get(CLASS, big), kind_pos)
            )

    def frame(self) -> pd.DataFrame:
        """The findings sorted by severity, then by the cube's dims, fold, class and kind."""
        first, last = ["severity", "code", "kind"], [FOLD, CLASS, "detail", "explanation"]
        cols = [*first, *self.extra, *last]
        if not self.rows:
            return pd.DataFrame({c: pd.Series([], dtype=object) for c in cols})
        for row in self.rows:
            code, severity, explanation = FINDINGS[row["kind"]]
            row.update(code=code, severity=severity, explanation=explanation)
        order = sorted(range(len(self.rows)), key=self.keys.__getitem__)
        # object columns: a None fold or class stays None (no cast of labels to float)
        return pd.DataFrame(
            {c: pd.Series([self.rows[i].get(c) for i in order], dtype=object) for c in cols}
        )


def loaded(ds: xr.Dataset) -> xr.Dataset:
    """The counts of ``ds`` (dask-backed ones computed), after the structure checks."""
    check_structure(ds)
    lazy = any(ds[v].chunks is not None for v in COUNTS)
    return ds[list(COUNTS)].load() if lazy else ds


def num(v: Any) -> str:
    """A count as text: integral values without a decimal point (NaN-padded cubes are float)."""
    v = plain(v)
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


def fold_findings(
    found: Findings,
    ds: xr.Dataset,
    tol: float,
    alpha: float,
    beta: float,
    scores: Any,
    methods: pd.DataFrame | None,
    fold_auc: xr.DataArray | None = None,
) -> None:
    """The findings about single folds and classes (see :func:`cvframe.diagnostics.anomalies`);
    ``fold_auc``: the per-fold AUC of ``scores`` already computed."""
    extra = found.extra
    order = [*extra, FOLD, CLASS]
    read = read_counts(ds)
    tp, fp, fn, tn = (read[v].transpose(*order) for v in COUNTS)
    real = read.is_fold.transpose(*order)
    a = {k: np.asarray(v.values) for k, v in zip(COUNTS, (tp, fp, fn, tn), strict=True)}

    def counts_at(pos: tuple[int, ...]) -> str:
        return f"TP={num(a['tp'][pos])}, FP={num(a['fp'][pos])}, FN={num(a['fn'][pos])}"

    # a fold id without samples in every cell of the cube was declared empty by the user;
    # one that has samples elsewhere (another repeat or model) is padding: no finding
    fold_real = real.any(CLASS)
    others = [d for d in fold_real.dims if d != FOLD]
    empty = ~fold_real & ~(fold_real.any(others) if others else fold_real)
    found.add(
        empty,
        "empty_fold",
        lambda pos: "the fold tested no samples; it is left out of every average over folds",
    )

    support_all = (tp + fn).sum(FOLD)
    absent = (support_all == 0) & real.any(FOLD)  # a cell never run (padding) is no class
    n_folds = np.asarray(fold_real.sum(FOLD).values)
    found.add(
        real & (tp + fp == 0),
        "undefined_precision",
        lambda pos: (
            f"no predicted positives ({counts_at(pos)}): precision undefined, F counts as 0"
        ),
    )
    found.add(
        real & (tp + fn == 0) & ~absent,
        "undefined_recall",
        lambda pos: (
            f"no positives in the fold ({counts_at(pos)}, TN={num(a['tn'][pos])}): recall "
            "undefined, F counts as 0"
        ),
    )

    found.add(*outlying(tp, fp, fn, order, alpha))
    if scores is not None or fold_auc is not None:
        worse_than_random(found, ds, scores, fold_auc)

    found.add(
        absent,
        "class_absent",
        lambda pos: (
            f"the class has no positives in any of the {int(n_folds[pos[:-1]])} folds: "
            "recall and F are undefined for it"
        ),
    )

    names = list(F_METHODS)
    vals = methods_values(ds, extra, methods, beta)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a cell with every method undefined
        spread = np.nanmax(vals, axis=-1) - np.nanmin(vals, axis=-1) if vals.size else vals
    disagree = xr.DataArray(
        np.nan_to_num(spread, nan=0.0) > tol,
        dims=[*extra, CLASS],
        coords={d: ds[d] for d in [*extra, CLASS] if d in ds.coords},
    )
    disagree = disagree & ~absent.transpose(*extra, CLASS)

    def disagree_detail(pos: tuple[int, ...]) -> str:
        v = vals[pos]
        listed = ", ".join(f"{k}={fmt(x)}" for k, x in zip(names, v, strict=True))
        return (
            f"the five F methods span {fmt(np.nanmin(v))}-{fmt(np.nanmax(v))} "
            f"(spread {np.nanmax(v) - np.nanmin(v):.3f} > tolerance {tol:g}): {listed}"
        )

    found.add(disagree, "methods_disagree", disagree_detail)


def outlying(
    tp: xr.DataArray, fp: xr.DataArray, fn: xr.DataArray, order: list[Hashable], alpha: float
) -> tuple[xr.DataArray, str, Callable[[tuple[int, ...]], str]]:
    """The ``outlying_fold`` finding (see :func:`anomalies`): which cells, and their detail."""
    a = {"tp": np.asarray(tp.values)}
    # exact binomial tests against the pooled rates, Bonferroni over tests
    p_val = {}
    tests: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for name, other in (("recall", fn), ("precision", fp)):
        trials = np.asarray((tp + other).values)
        tot_tp = np.asarray(tp.sum(FOLD).values)[..., None, :]
        tot_n = np.asarray((tp + other).sum(FOLD).values)[..., None, :]
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = np.broadcast_to(
                np.where(tot_n > 0, tot_tp / np.maximum(tot_n, 1), np.nan), trials.shape
            )
        run = (trials > 0) & (rate > 0) & (rate < 1)
        p = np.ones(trials.shape)
        p[run] = binom_two_sided(a["tp"][run], trials[run], rate[run])
        p_val[name] = np.where(run, p, 1.0)
        tests[name] = (trials, rate, run)
    # one Bonferroni family per model (user-dim cell): its repeats, folds and classes
    family = tuple(i for i, d in enumerate(order) if d in (REPEAT, FOLD, CLASS))
    runs = tests["recall"][2].astype(int) + tests["precision"][2].astype(int)
    m_at = np.broadcast_to(runs.sum(axis=family, keepdims=True), runs.shape)
    cut = alpha / np.maximum(m_at, 1)
    out_r, out_p = p_val["recall"] < cut, p_val["precision"] < cut
    outlying = xr.DataArray(out_r | out_p, dims=tp.dims, coords=tp.coords)

    def outlying_detail(pos: tuple[int, ...]) -> str:
        parts = []
        for name, flag in (("recall", out_r), ("precision", out_p)):
            if flag[pos]:
                trials, rate, _ = tests[name]
                parts.append(
                    f"{name} {a['tp'][pos] / trials[pos]:.3f} "
                    f"({num(a['tp'][pos])}/{num(trials[pos])}) "
                    f"vs pooled {rate[pos]:.3f}: binomial p={p_val[name][pos]:.2g} "
                    f"< {alpha:g}/{int(m_at[pos])}"
                )
        return "; ".join(parts)

    return outlying, "outlying_fold", outlying_detail


def methods_values(
    ds: xr.Dataset, extra: list[Hashable], methods: pd.DataFrame | None, beta: float
) -> np.ndarray:
    """The five F methods as an array over (*extra, class, method): given, or computed."""
    keys = [*extra, CLASS]
    if methods is None:
        methods = methods_table(ds, beta=beta, zero_division=0.0)
    missing = [c for c in [*keys, *F_METHODS] if c not in methods.columns]
    if missing:
        raise ValueError(
            f"methods lacks the columns {missing}; pass cvframe.tidy.methods_table(ds) of the "
            "same cube (one row per class and cell of its other dims), or methods=None."
        )
    grid = pd.MultiIndex.from_product([ds[d].values for d in keys], names=keys)
    table = methods[list(F_METHODS)].set_axis(pd.MultiIndex.from_frame(methods[keys]))
    table = table.reindex(grid)
    return table.to_numpy(dtype="float64").reshape(*(ds.sizes[d] for d in keys), len(F_METHODS))


def nonneg(name: str, value: Any) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.number))
        or not (math.isfinite(float(value)) and float(value) >= 0)
    ):
        raise ValueError(f"{name}={value!r} must be a finite number >= 0, e.g. {name}=0.05.")
    return float(value)


def worse_than_random(
    found: Findings, ds: xr.Dataset, frame: Any, per_fold: xr.DataArray | None = None
) -> None:
    """Add a ``worse_than_random`` finding for every fold and class with AUC below 0.5;
    ``per_fold``: the frame's per-fold AUC already computed (else computed here)."""
    if per_fold is None:
        per_fold = fold_auc(ds, frame)
    for d in per_fold.dims:
        if d not in (FOLD, CLASS) and d not in found.extra:
            found.extra.append(d)
    values = np.asarray(per_fold.values)

    def detail(at: tuple[int, ...]) -> str:
        a = float(values[at])
        return (
            f"AUC {a:.3f} < 0.5: the scores rank negatives ahead of positives; inverting "
            f"them (-score, or 1 - p) mirrors the ROC curve through (0.5, 0.5) and would "
            f"give AUC = 1 - {a:.3f} = {1 - a:.3f}"
        )

    found.add(per_fold.fillna(1.0) < 0.5, "worse_than_random", detail)


def fold_auc(ds: xr.Dataset, frame: Any) -> xr.DataArray:
    """The per-fold AUC of a predictions frame (test rows), NaN where undefined; a binary
    cube's positive class when the frame names none."""
    if not (isinstance(frame, pd.DataFrame) or labels_frame.is_dask_frame(frame)):
        raise TypeError(
            f"scores must be a pandas DataFrame of predictions, got {type(frame).__name__}."
        )
    frame = labels_frame.test_rows(frame)
    pos = None
    if ds.attrs.get("task") == "binary" and "pos_label" in ds.attrs:
        if _labels.attrs_pos(frame.attrs) is None:  # the frame names no positive class
            pos = _labels.from_attr(ds.attrs["pos_label"], ds[CLASS].values)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return score_metrics.auc(frame, method="fold", undefined="nan", pos_label=pos)
