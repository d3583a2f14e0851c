"""Fold diagnostics: the findings a person should look at before trusting an aggregate.

Forman & Scholz (2010) warn that anomalies in individual folds "go undiscovered when they
are buried in aggregated results". :func:`anomalies` lists them, one row per finding;
:func:`fold_table` and :func:`methods_table` are the tidy tables the report and the plots
are drawn from.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from . import reduce
from ._types import ZeroDivision
from .schema import CLASS, COUNTS, FOLD, check_structure

__all__ = ["KINDS", "anomalies", "fold_table", "methods_table"]

#: The kinds of finding :func:`anomalies` reports, in the order it lists them.
KINDS = ("empty_fold", "undefined_precision", "undefined_recall", "outlying_fold",
         "class_absent", "methods_disagree")

_REFERENCE = """G. Forman and M. Scholz, "Apples-to-Apples in Cross-Validation Studies:
       Pitfalls in Classifier Performance Measurement", ACM SIGKDD Explorations 12(1), 2010."""


def _extra_dims(ds: xr.Dataset) -> list[Hashable]:
    """The dims of the counts other than fold and class (repeat, model, ...), in cube order."""
    return [d for d in ds["tp"].dims if d not in (FOLD, CLASS)]


def _loaded(ds: xr.Dataset) -> xr.Dataset:
    check_structure(ds)
    names = list(COUNTS) + (["confusion"] if "confusion" in ds.data_vars else [])
    return ds[names].load() if any(ds[v].chunks is not None for v in names) else ds


def _tidy(obj: xr.Dataset, order: list[Hashable]) -> pd.DataFrame:
    """A Dataset as a flat frame with index dims as leading columns, in ``order``."""
    dims = [d for d in order if d in obj.dims]
    frame = obj.transpose(*dims).to_dataframe().reset_index()
    keep = dims + [v for v in obj.data_vars]
    return frame[keep]


def fold_table(ds: xr.Dataset, *, beta: float = 1.0, zero_division: ZeroDivision = 0.0
               ) -> pd.DataFrame:
    """Every fold's counts and metrics as a tidy table, one row per (..., fold, class).

    Columns: the cube's other dims (``repeat``, ``model``, ...), ``fold``, ``class``,
    ``tp``, ``fp``, ``fn``, ``tn``, ``precision``, ``recall``, ``f`` and ``valid``
    (:math:`V^{(i)}`: precision and recall both defined).

    Parameters
    ----------
    ds : xarray.Dataset
        A counts cube.
    beta : float, default 1
        F-measure weight (``beta=1`` is F1).
    zero_division : {"warn", 0.0, 1.0, np.nan}, default 0.0
        Value of an undefined precision or recall (the paper's 0; ``valid`` says where).

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import cvframe
    >>> from cvframe.diagnostics import fold_table
    >>> fold_table(cvframe.datasets.table2())[["fold", "tp", "fp", "fn", "f", "valid"]]
       fold  tp  fp  fn         f  valid
    0     0   2   0   2  0.666667   True
    1     1   0   0   4  0.000000  False
    2     2   4   0   0  1.000000   True
    3     3   4   0   0  1.000000   True
    """
    ds = _loaded(ds)
    out = xr.Dataset({v: ds[v] for v in COUNTS})
    out["precision"] = reduce.precision(ds, zero_division=zero_division)
    out["recall"] = reduce.recall(ds, zero_division=zero_division)
    out["f"] = reduce.f(ds, beta=beta, zero_division=zero_division)
    out["valid"] = reduce.valid(ds)
    return _tidy(out, _extra_dims(ds) + [FOLD, CLASS])


def methods_table(ds: xr.Dataset, *, beta: float = 1.0, zero_division: ZeroDivision = 0.0
                  ) -> pd.DataFrame:
    """The five F aggregations over folds as a tidy table, one row per (..., class).

    Columns: the cube's other dims, ``class`` and ``f_tp_fp``, ``f_avg``, ``f_pr_re``,
    ``f_avg_skip``, ``f_pr_re_skip`` (see :func:`cvframe.reduce.f_methods`).

    Parameters
    ----------
    ds : xarray.Dataset
        A counts cube.
    beta : float, default 1
    zero_division : {"warn", 0.0, 1.0, np.nan}, default 0.0

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import cvframe
    >>> from cvframe.diagnostics import methods_table
    >>> methods_table(cvframe.datasets.table1()).round(3)
       class  f_tp_fp  f_avg  f_pr_re  f_avg_skip  f_pr_re_skip
    0      1    0.583  0.692    0.734       0.692         0.734
    """
    ds = _loaded(ds)
    m = reduce.f_methods(ds, beta=beta, zero_division=zero_division)
    return _tidy(m, _extra_dims(ds) + [CLASS])


# --- anomalies -----------------------------------------------------------------------------------

def _binom_two_sided(x: np.ndarray, n: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Exact two-sided binomial p-value 2·min(P[X <= x], P[X >= x]), capped at 1."""
    from scipy import stats

    low = stats.binom.cdf(x, n, p)
    high = stats.binom.sf(x - 1, n, p)
    return np.minimum(1.0, 2.0 * np.minimum(low, high))


def _fmt(v: float) -> str:
    return "nan" if not math.isfinite(v) else f"{v:.3f}"


class _Findings:
    """Collects findings from boolean masks (positions come from ``np.argwhere``)."""

    def __init__(self, extra: list[Hashable]) -> None:
        self.extra = extra
        self.rows: list[dict[Any, Any]] = []
        self.keys: list[tuple[Any, ...]] = []

    def add(self, mask: xr.DataArray, kind: str,
            detail: Callable[[tuple[int, ...]], str]) -> None:
        dims = mask.dims
        coords: dict[Any, Any] = {
            d: mask[d].values if d in mask.coords else np.arange(mask.sizes[d]) for d in dims}
        kind_pos = KINDS.index(kind)
        for raw in np.argwhere(np.asarray(mask.values)):
            pos = tuple(int(i) for i in raw)
            at: dict[Any, int] = dict(zip(dims, pos))
            row: dict[Any, Any] = {d: _py(coords[d][at[d]]) for d in self.extra}
            row[FOLD] = _py(coords[FOLD][at[FOLD]]) if FOLD in at else None
            row[CLASS] = _py(coords[CLASS][at[CLASS]]) if CLASS in at else None
            row["kind"] = kind
            row["detail"] = detail(pos)
            self.rows.append(row)
            big = 1 << 40  # summary findings (no fold / no class) sort after the folds
            self.keys.append(tuple(at[d] for d in self.extra)
                             + (at.get(FOLD, big), at.get(CLASS, big), kind_pos))

    def frame(self) -> pd.DataFrame:
        cols = [*self.extra, FOLD, CLASS, "kind", "detail"]
        if not self.rows:
            return pd.DataFrame({c: pd.Series([], dtype=object) for c in cols})
        order = sorted(range(len(self.rows)), key=self.keys.__getitem__)
        # object columns: a None fold or class stays None (no cast of labels to float)
        return pd.DataFrame({c: pd.Series([self.rows[i][c] for i in order], dtype=object)
                             for c in cols})


def _py(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def anomalies(ds: xr.Dataset, *, tolerance: float = 0.05, alpha: float = 0.01,
              beta: float = 1.0) -> pd.DataFrame:
    r"""Every finding about individual folds a person should look at, one row per finding.

    Kinds of finding (column ``kind``), each with a one-line ``detail`` giving the counts:

    ``empty_fold``
        The fold tested no samples (:math:`TP+FP+FN+TN = 0`); one row per fold, ``class``
        is None. The undefined metrics it implies are not listed again.
    ``undefined_precision``
        No predicted positives (:math:`TP + FP = 0`): precision is undefined, F counts 0.
    ``undefined_recall``
        No positives of the class in the fold (:math:`TP + FN = 0`).
    ``outlying_fold``
        The fold's precision or recall lies further from the pooled value than binomial
        noise explains. The rule: with the pooled rates of its (``class``, ``repeat``, ...)
        cell, :math:`\hat R = \sum_i TP^{(i)} / \sum_i (TP^{(i)}+FN^{(i)})` and
        :math:`\hat P = \sum_i TP^{(i)} / \sum_i (TP^{(i)}+FP^{(i)})`, the null hypothesis
        is :math:`TP^{(i)} \sim \mathrm{Binomial}(TP^{(i)}+FN^{(i)}, \hat R)` (recall) and
        :math:`TP^{(i)} \sim \mathrm{Binomial}(TP^{(i)}+FP^{(i)}, \hat P)` (precision). Each
        gets the exact two-sided p-value :math:`2\min(P[X \le TP^{(i)}], P[X \ge TP^{(i)}])`;
        a fold is flagged when a p-value is below ``alpha / m``, where :math:`m` is the
        number of tests run in the call (Bonferroni), so data that follow the binomial model
        raise a false finding with probability at most ``alpha`` per call. Tests with no
        trials or a pooled rate of 0 or 1 (every fold then agrees exactly) are not run.
    ``class_absent``
        The class has zero support in every fold (``fold`` is None); its per-fold
        ``undefined_recall`` rows are folded into this one.
    ``methods_disagree``
        The five F aggregations (:func:`cvframe.reduce.f_methods`, undefined counted as 0)
        span more than ``tolerance`` (max − min) for a (``class``, ``repeat``, ...) cell;
        ``fold`` is None.

    Parameters
    ----------
    ds : xarray.Dataset
        A counts cube; dask-backed cubes are computed.
    tolerance : float, default 0.05
        Largest accepted spread of the five F methods (absolute F units, >= 0).
    alpha : float, default 0.01
        Family-wise false-alarm rate of the ``outlying_fold`` tests, in (0, 1).
    beta : float, default 1
        F-measure weight for ``methods_disagree``.

    Returns
    -------
    pandas.DataFrame
        Columns: the cube's other dims (``repeat``, ``model``, ...; only those it has),
        ``fold``, ``class``, ``kind``, ``detail``; sorted by those dims, fold, class and
        kind (findings about a whole class after its folds). Empty (with those columns)
        when nothing is found.

    Raises
    ------
    ValueError
        ``tolerance`` negative or not finite, ``alpha`` outside (0, 1).

    References
    ----------
    G. Forman and M. Scholz, "Apples-to-Apples in Cross-Validation Studies: Pitfalls in
    Classifier Performance Measurement", ACM SIGKDD Explorations 12(1), 2010, §3.

    Examples
    --------
    >>> import cvframe
    >>> found = cvframe.datasets.table2().cv.anomalies()
    >>> found[["fold", "kind"]]
       fold                 kind
    0     1  undefined_precision
    1  None     methods_disagree
    >>> print(found.detail[0])
    no predicted positives (TP=0, FP=0, FN=4): precision undefined, F counts as 0
    """
    tol = _nonneg("tolerance", tolerance)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise ValueError(f"alpha={alpha!r} must be a number in (0, 1), e.g. alpha=0.01.")
    ds = _loaded(ds)
    extra = _extra_dims(ds)
    order = [*extra, FOLD, CLASS]
    tp, fp, fn, tn = (ds[v].transpose(*order) for v in COUNTS)
    n = tp + fp + fn + tn
    found = _Findings(extra)
    a = {k: np.asarray(v.values) for k, v in zip(COUNTS, (tp, fp, fn, tn))}

    def counts_at(pos: tuple[int, ...]) -> str:
        return f"TP={a['tp'][pos]}, FP={a['fp'][pos]}, FN={a['fn'][pos]}"

    empty = n.max(CLASS) == 0
    found.add(empty, "empty_fold", lambda pos: "the fold tested no samples")

    support_all = (tp + fn).sum(FOLD)
    absent = support_all == 0
    nonempty = n > 0
    found.add(nonempty & (tp + fp == 0), "undefined_precision", lambda pos: (
        f"no predicted positives ({counts_at(pos)}): precision undefined, F counts as 0"))
    found.add(nonempty & (tp + fn == 0) & ~absent, "undefined_recall", lambda pos: (
        f"no positives in the fold ({counts_at(pos)}, TN={a['tn'][pos]}): recall undefined, "
        "F counts as 0"))

    # outlying folds: exact binomial tests against the pooled rates, Bonferroni over tests
    p_val = {}
    tests: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for name, other in (("recall", fn), ("precision", fp)):
        trials = np.asarray((tp + other).values)
        tot_tp = np.asarray(tp.sum(FOLD).values)[..., None, :]
        tot_n = np.asarray((tp + other).sum(FOLD).values)[..., None, :]
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = np.broadcast_to(np.where(tot_n > 0, tot_tp / np.maximum(tot_n, 1), np.nan),
                                   trials.shape)
        run = (trials > 0) & (rate > 0) & (rate < 1)
        p = np.ones(trials.shape)
        p[run] = _binom_two_sided(a["tp"][run], trials[run], rate[run])
        p_val[name] = np.where(run, p, 1.0)
        tests[name] = (trials, rate, run)
    m = int(sum(int(t[2].sum()) for t in tests.values()))
    cut = alpha / max(m, 1)
    out_r, out_p = p_val["recall"] < cut, p_val["precision"] < cut
    outlying = xr.DataArray(out_r | out_p, dims=tp.dims, coords=tp.coords)

    def outlying_detail(pos: tuple[int, ...]) -> str:
        parts = []
        for name, flag in (("recall", out_r), ("precision", out_p)):
            if flag[pos]:
                trials, rate, _ = tests[name]
                parts.append(
                    f"{name} {a['tp'][pos] / trials[pos]:.3f} ({a['tp'][pos]}/{trials[pos]}) "
                    f"vs pooled {rate[pos]:.3f}: binomial p={p_val[name][pos]:.2g} "
                    f"< {alpha:g}/{m}")
        return "; ".join(parts)

    found.add(outlying, "outlying_fold", outlying_detail)

    found.add(absent, "class_absent", lambda pos: (
        f"the class has no positives in any of the {ds.sizes[FOLD]} folds: recall and F are "
        "undefined for it"))

    methods = reduce.f_methods(ds, beta=beta, zero_division=0.0)
    names = list(methods.data_vars)
    stacked = methods.to_array("method").transpose(*extra, CLASS, "method")
    vals = np.asarray(stacked.values)
    with np.errstate(invalid="ignore"):
        spread = np.nanmax(vals, axis=-1) - np.nanmin(vals, axis=-1) if vals.size else vals
    disagree = xr.DataArray(np.nan_to_num(spread, nan=0.0) > tol,
                            dims=[*extra, CLASS],
                            coords={d: ds[d] for d in [*extra, CLASS] if d in ds.coords})
    disagree = disagree & ~absent.transpose(*extra, CLASS)

    def disagree_detail(pos: tuple[int, ...]) -> str:
        v = vals[pos]
        listed = ", ".join(f"{k}={_fmt(x)}" for k, x in zip(names, v))
        return (f"the five F methods span {_fmt(np.nanmin(v))}-{_fmt(np.nanmax(v))} "
                f"(spread {np.nanmax(v) - np.nanmin(v):.3f} > tolerance {tol:g}): {listed}")

    found.add(disagree, "methods_disagree", disagree_detail)
    return found.frame()


def _nonneg(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or not (
            math.isfinite(float(value)) and float(value) >= 0):
        raise ValueError(f"{name}={value!r} must be a finite number >= 0, e.g. {name}=0.05.")
    return float(value)
