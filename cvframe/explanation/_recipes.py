"""The recipes of :func:`cvframe.explain.reconcile`: how a number is made from the folds.

A :class:`Recipe` names the choices (aggregation, fold weighting, undefined folds, repeats);
:class:`Counts` (a counts cube) and :class:`Scores` (a scored predictions frame) compute its
value for any count or score metric of :data:`cvframe.metrics.REGISTRY`: per-fold and pooled
values through :mod:`cvframe.measure`, fold means with the package's one fold mean,
:func:`cvframe.reduce.fold_mean`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .. import formulas, measure, metrics, reduce
from .._core.labels.frame import parse
from ..schema import CLASS, FOLD, REPEAT
from ..tidy import all_folds


@dataclass(frozen=True)
class Recipe:
    """How one number was computed from the folds.

    ``aggregation``: ``"pooled"`` (counts summed over the folds), ``"avg"`` (the metric per
    fold, then the mean), ``"pr_re"`` (F of the mean precision and recall) or, for AUC,
    ``"merge"`` / ``"avg"``; ``weighting``: ``"equal"`` or ``"size"`` (``"pairs"``,
    positive-negative pairs, only on the path to AUC_merge); ``undefined``: ``"zero"``,
    ``"skip"`` or ``"one"``; ``repeats``: None (no repeats), ``"mean"``, ``"all"`` or one
    repeat's label. ``weighting`` and ``undefined`` are None for pooled numbers.
    """

    aggregation: str
    weighting: str | None = None
    undefined: str | None = None
    repeats: Any = None

    @property
    def folded(self) -> bool:
        """Whether the number is a mean over folds (not pooled or merged)."""
        return self.aggregation in ("avg", "pr_re")

    def variant(self, metric: str) -> str:
        """The registry variant of ``metric`` the recipe computes (``"avg_skip"``...)."""
        entry = metrics.REGISTRY[metric]
        if self.aggregation == "pooled":
            return entry.pooled
        skip = self.undefined == "skip" and entry.kind != "score"  # score means skip anyway
        return self.aggregation + ("_skip" if skip else "")

    def name(self, metric: str) -> str:
        """A short name: ``F_avg, fold-size weighted, mean over repeats``."""
        base = metrics.display(metric, self.variant(metric))
        if self.undefined == "one":
            base += " (undefined folds = 1)"
        if self.weighting == "size":
            base += ", fold-size weighted"
        elif self.weighting == "pairs":
            base += ", weighted by positive-negative pairs"
        return base + _repeat_text(self.repeats)


def _repeat_text(repeats: Any) -> str:
    if repeats is None:
        return ""
    if repeats == "mean":
        return ", mean over repeats"
    if repeats == "all":
        return ", over the folds of all repeats"
    return f", repeat {repeats}"


# --- the values of a recipe --------------------------------------------------------------


class Counts:
    """A counts cube (one class, or a metric over every class) and what every recipe needs."""

    def __init__(self, ds: xr.Dataset, metric: str, beta: float) -> None:
        multi = ds.attrs.get("task") == "multiclass" and ds.sizes.get(CLASS, 1) > 1
        if multi and metrics.REGISTRY[metric].scope == "class":
            raise ValueError(
                f"metric={metric!r} on a multiclass cube needs one class: pass pos_label= "
                "(a one-vs-rest class), or compare class averages with explain()."
            )
        self.ds, self.metric, self.beta, self.multi = ds, metric, beta, multi
        f64 = {v: formulas.as_float(ds[v]) for v in ("tp", "fp", "fn", "tn")}
        self.f64 = f64
        size = (f64["tp"] + f64["fn"]).sum(CLASS) if multi else f64["tp"] + f64["fp"]
        self.size = size if multi else size + f64["fn"] + f64["tn"]
        self.real = self.size > 0
        self.differ = self.undefined = False
        self.sizes: tuple[int, int] | None = None
        self._cells: dict[tuple[str, float], tuple[xr.DataArray, xr.DataArray]] = {}

    def cells(self, metric: str, fill: float) -> tuple[xr.DataArray, xr.DataArray]:
        """Per-fold values (undefined cells = ``fill``) and the mask where they are defined
        (computed once per metric and fill)."""
        key = (metric, fill)
        if key not in self._cells:
            self._cells[key] = self._compute_cells(metric, fill)
        return self._cells[key]

    def _per_fold(self, metric: str, fill: float) -> xr.DataArray:
        return measure.cube(self.ds, metric, None, beta=self.beta, zero_division=fill)

    def _compute_cells(self, metric: str, fill: float) -> tuple[xr.DataArray, xr.DataArray]:
        val = self._per_fold(metric, fill)
        spec = formulas.METRIC_SPECS[metrics.REGISTRY[metric].kernel]
        if CLASS in val.dims and not spec.over_classes:
            tp, fp, fn, tn = (self.f64[v] for v in ("tp", "fp", "fn", "tn"))
            return val, ~spec.undefined(tp, fp, fn, tn)
        # one value over every class: undefined where the fill decides the value
        return val, val == self._per_fold(metric, 1.0 - fill)

    def pooled(self, metric: str, dims: tuple[str, ...]) -> xr.DataArray:
        ds = all_folds(self.ds) if REPEAT in dims else self.ds
        return measure.cube(ds, metric, "tp_fp", beta=self.beta, zero_division=0)

    def mean(self, metric: str, r: Recipe, dims: tuple[str, ...]) -> xr.DataArray:
        """The fold mean of ``metric`` under the recipe's weighting and undefined policy."""
        val, ok = self.cells(metric, 1.0 if r.undefined == "one" else 0.0)
        keep = self.real & ok if r.undefined == "skip" else self.real
        w = self.size.where(keep, 0.0) if r.weighting == "size" else keep.astype(float)
        return weighted(val, w, keep, dims)

    def value(self, r: Recipe, dims: tuple[str, ...]) -> xr.DataArray:
        if r.aggregation == "pooled":
            return self.pooled(self.metric, dims)
        if r.aggregation == "avg":
            return self.mean(self.metric, r, dims)
        # F of the fold means of its components, precision and recall (the pr_re variant)
        parts = metrics.REGISTRY[self.metric].components
        p, rc = (self.mean(m, r, dims) for m in parts)
        if r.undefined == "skip":  # the paper's tilde: folds where both are defined
            keep = self.real & self.cells(self.metric, 0.0)[1]
            w = self.size.where(keep, 0.0) if r.weighting == "size" else keep.astype(float)
            p, rc = (weighted(self.cells(m, 0.0)[0], w, keep, dims) for m in parts)
        return formulas.f_from_pr(p, rc, self.beta)


def weighted(val: xr.DataArray, w: xr.DataArray, keep: xr.DataArray, dims: Any) -> Any:
    """The ``w``-weighted mean of ``val`` over the ``keep`` folds, through the one fold mean:
    ``fold_mean(w x) / fold_mean(w)`` (the counts of folds cancel)."""
    keep = keep.broadcast_like(val)
    num = reduce.fold_mean((w * val).where(keep, 0.0), keep, dims, math.nan)[0]
    den = reduce.fold_mean(w.broadcast_like(val).where(keep, 0.0), keep, dims, math.nan)[0]
    return num / den.where(den > 0)


class Scores:
    """A predictions frame with scores: a score metric per fold and merged, fold sizes and
    positive-negative pairs."""

    def __init__(self, df: pd.DataFrame, metric: str, pos_label: Any) -> None:
        self.df, self.metric, self.pos_label = df, metric, pos_label
        self.rep = REPEAT if REPEAT in df.columns else None
        kw = dict(pos_label=pos_label, repeat=self.rep)
        self.fold = measure.frame(df, metric, "fold", "nan", **kw)
        fr = parse(df, None, pos_label, "y_true", FOLD, self.rep, "score")
        g = fr.fold_codes if fr.rep_codes is None else fr.rep_codes * len(fr.fold_coord)
        g = g + (0 if fr.rep_codes is None else fr.fold_codes)
        shape = self.fold.shape[:-1]
        size = np.bincount(g, minlength=int(np.prod(shape))).reshape(shape).astype(float)
        npos = np.bincount(g, weights=np.asarray(fr.ys[0], dtype=float), minlength=size.size)
        npos = npos.reshape(shape)
        like = self.fold.isel({CLASS: 0}, drop=True)
        self.size = like.copy(data=size)
        self.pairs = like.copy(data=npos * (size - npos))
        self.real = self.size > 0
        self.differ = self.undefined = False
        self.sizes: tuple[int, int] | None = None

    def value(self, r: Recipe, dims: tuple[str, ...]) -> xr.DataArray:
        if r.aggregation == "merge":
            rep = self.rep if dims == (FOLD,) else None
            kw = dict(pos_label=self.pos_label, repeat=rep)
            return measure.frame(self.df, self.metric, "merge", "nan", **kw)
        val = self.fold
        keep = self.real & val.notnull()
        w = {"size": self.size, "pairs": self.pairs}.get(r.weighting or "", keep.astype(float))
        return weighted(val.fillna(0.0), w.where(keep, 0.0), keep, dims)


def evaluate(source: Any, r: Recipe, has_rep: bool) -> float:
    """The single number of recipe ``r``."""
    dims: tuple[str, ...] = (REPEAT, FOLD) if r.repeats == "all" and has_rep else (FOLD,)
    val = source.value(r, dims)
    if has_rep and r.repeats not in ("all", None) and REPEAT in val.dims:
        val = val.mean(REPEAT) if r.repeats == "mean" else val.sel({REPEAT: r.repeats})
    val = val.squeeze(drop=True)
    if val.ndim:
        raise ValueError(
            f"the data hold {dict(val.sizes)} numbers per recipe; select one model, data set "
            "or class first (e.g. data.sel(model=...) or pos_label=)."
        )
    return float(val)
