r"""Cost-sensitive ROC analysis: the ROC convex hull, iso-cost lines, the optimal operating
point and the expected cost of a classifier's decisions.

With costs :math:`c_{FP}`, :math:`c_{FN}`, points of equal expected cost lie on iso-cost lines
(:func:`iso_cost_slope`); the optimal operating point is the first vertex of the ROC convex
hull such a line touches (Provost & Fawcett 2001). :func:`roc_hull` and
:func:`optimal_operating_point` use the points of :func:`.curves.points` (exact integer hull
on the counts); :func:`expected_cost` reads a counts cube.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
import xarray as xr

from .. import formulas
from .._core import checks as _checks
from .._core.docs import doc, register, section
from .._core.labels.frame import Frame, FrameArgs
from .._core.types import Dims, How, ZeroDivision
from ..errors import few
from ..reduce import fold_dims, fold_mean, warn
from ..schema import CLASS, CONFUSION, PRED, TRUE, check_structure, provenance, read_counts
from ._driver import Metric, Undefined, check, dataset, run
from ._parsed import by_frame_dims, read
from .curves import WHY, curve_rows, curve_table, hull_mask, points, rates

__all__ = ["expected_cost", "iso_cost_slope", "optimal_operating_point", "roc_hull"]

CostMethod = Literal["fold", "merge"]
COST_METHODS = ("fold", "merge")

register(
    {
        "cost_refs": """\
.. [1] F. Provost and T. Fawcett, "Robust Classification for Imprecise Environments",
   Machine Learning 42(3), 2001 (the ROC convex hull and iso-performance lines).
.. [2] T. Fawcett, "An introduction to ROC analysis", Pattern Recognition Letters 27(8),
   2006, §6-7.
.. [3] P. Trigo Silva, "Evaluation of learning" (course slides): type of error and
   associated cost; ROC analysis.""",
        "cost_params": """\
cost_fp, cost_fn : float, default 1
    Cost of a false positive and of a false negative (finite, >= 0, not both 0). Only
    their ratio matters for the optimal point; the expected cost is in their unit.
prevalence : float in (0, 1), optional
    The class prior :math:`\\pi = P(\\text{pos})` of the deployment. Default: the share of
    positives of each fold (``method="fold"``) or of each repeat's pooled test sets
    (``method="merge"``).""",
    }
)
register({"cost_references": section("References", "cost_refs")})


def _costs(cost_fp: Any, cost_fn: Any) -> tuple[float, float]:
    fp = _checks.real("cost_fp", cost_fp, 0.0)
    fn = _checks.real("cost_fn", cost_fn, 0.0)
    if fp == 0.0 and fn == 0.0:
        raise ValueError(
            "cost_fp=0 and cost_fn=0: with no cost for either error every operating point "
            "is optimal; give at least one of cost_fp, cost_fn a positive cost."
        )
    return fp, fn


def iso_cost_slope(cost_fp: float = 1.0, cost_fn: float = 1.0, prevalence: float = 0.5) -> float:
    r"""Slope of the iso-performance (iso-cost) lines in ROC space.

    .. math:: m = \frac{c_{FP}\,(1 - \pi)}{c_{FN}\,\pi} = \frac{c_{FP}}{c_{FN}}\cdot\frac{N}{P}

    Every operating point on a line :math:`TPR = m \cdot FPR + b` has the same expected
    cost :math:`c_{FN}\pi(1 - TPR) + c_{FP}(1-\pi)FPR`; a higher line costs less.

    Parameters
    ----------
    cost_fp, cost_fn : float, default 1
        Cost of a false positive and of a false negative (finite, >= 0, not both 0).
    prevalence : float in (0, 1), default 0.5
        The class prior :math:`\pi = P(\text{pos}) = P/(P+N)`.

    Returns
    -------
    float
        The slope; ``inf`` when ``cost_fn`` is 0 (never predict positive), 0 when
        ``cost_fp`` is 0 (always predict positive).

    <<cost_references>>

    Examples
    --------
    >>> iso_cost_slope(1, 1, 0.5)
    1.0
    >>> iso_cost_slope(cost_fp=1, cost_fn=5, prevalence=0.1)  # (1/5) * (90/10)
    1.8
    """
    fp, fn = _costs(cost_fp, cost_fn)
    pi = _checks.real("prevalence", prevalence, 0.0, 1.0, low_open=True, high_open=True)
    if fn == 0.0:
        return math.inf
    return (fp * (1.0 - pi)) / (fn * pi)


def _method(method: Any, allow_none: bool = False) -> Any:
    return _checks.choice("method", method, ((None,) if allow_none else ()) + COST_METHODS)


@doc
@by_frame_dims
def roc_hull(
    df: pd.DataFrame,
    method: CostMethod | None = None,
    undefined: Undefined = "skip",
    *,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
) -> pd.DataFrame:
    r"""The ROC convex hull (ROCCH) of every fold, and of the merged curve of each repeat.

    The vertices of the upper-left convex hull of the ROC points of :func:`roc` (which
    include (0, 0) at threshold +inf and (1, 1) at the lowest score). Every point on the hull
    is reachable by thresholding the scores at one of two adjacent vertex thresholds (and
    randomising between them); every ROC point below the hull is worse than some hull
    point for *every* cost ratio and class prior, so only hull vertices can be optimal
    (see :func:`optimal_operating_point`). Collinear points are not vertices.

    <<frame_parameters>>
    method : {None, "fold", "merge"}, default None
        ``"fold"``: the hull of each fold's curve; ``"merge"``: of each repeat's pooled
        curve; ``None``: both, as :func:`roc` returns both kinds.
    undefined : {"skip", "nan"}
        Curves of folds without positives or without negatives: ``"skip"`` leaves them out
        with one :class:`~cvframe.UndefinedMetricWarning`; ``"nan"`` keeps one row with
        NaN threshold and rates, silently.

    Returns
    -------
    pandas.DataFrame
        The layout of :func:`roc`: columns ``kind`` (``"fold"`` or ``"merged"``),
        ``repeat`` (when the frame has one), ``fold`` (``<NA>`` on merged rows),
        ``class``, ``threshold``, ``fpr``, ``tpr``; one row per hull vertex, by decreasing
        threshold (increasing FPR and TPR).

    See Also
    --------
    roc, optimal_operating_point

    <<cost_references>>

    <<cost_examples>>
    >>> scores.roc(df).query("kind == 'fold'")[["threshold", "fpr", "tpr"]].values.round(3)
    array([[  inf, 0.   , 0.   ],
           [0.9  , 0.   , 0.333],
           [0.8  , 0.333, 0.333],
           [0.7  , 0.333, 0.667],
           [0.6  , 0.333, 1.   ],
           [0.5  , 0.667, 1.   ],
           [0.1  , 1.   , 1.   ]])
    >>> h = scores.roc_hull(df, method="fold")
    >>> h[["threshold", "fpr", "tpr"]].values.round(3)
    array([[  inf, 0.   , 0.   ],
           [0.9  , 0.   , 0.333],
           [0.6  , 0.333, 1.   ],
           [0.1  , 1.   , 1.   ]])
    """
    method = _method(method, allow_none=True)
    check((), undefined, None)
    fr = read(df, FrameArgs.of(locals()))

    def rows(pts: dict[str, np.ndarray], per_fold: bool, kind: Any, ci: int) -> list[Any]:
        grp, bad = pts["group"], pts["bad"]
        grp_v, thr, fpr, tpr = rates(pts, hull_mask(grp, pts["fp"], pts["tp"]) & ~bad[grp])
        cols = {"threshold": thr, "fpr": fpr, "tpr": tpr}
        if undefined == "nan" and bad.any():  # one row of NaN per undefined curve
            gb = np.flatnonzero(bad)
            order = np.argsort(np.r_[grp_v, gb], kind="stable")
            grp_v = np.r_[grp_v, gb][order]
            cols = {k: np.r_[v, np.full(len(gb), np.nan)][order] for k, v in cols.items()}
        return [curve_rows(fr, per_fold, kind, grp_v, ci, cols)]

    kinds = [
        (kind, per_fold)
        for kind, per_fold, m in (("fold", True, "fold"), ("merged", False, "merge"))
        if method in (None, m)
    ]
    return curve_table(fr, kinds, rows, "ROC hull", undefined, "keep them as NaN")


_OPTIMUM_VARS = ("threshold", "fpr", "tpr", "expected_cost", "prevalence", "slope", "intercept")


def _optimum_metric(cfp: float, cfn: float, pi: float | None) -> Metric:
    """The optimal operating point as a spec of the one driver: per fold or merged."""

    def values(fr: Frame, per_fold: bool, merged: bool) -> tuple[Any, Any]:
        n_groups = fr.groups(per_fold)[1]
        out = []
        for pts in points(fr, per_fold):
            opt = _optimum(pts, n_groups, cfp, cfn, pi)
            for v in _OPTIMUM_VARS:
                opt[v][pts["bad"] | ~pts["present"]] = np.nan
            out.append({**opt, "support": pts["npos"]})
        return (out, None) if per_fold else (None, out)

    kw: dict[str, Any] = {"averages": (None,), "label": "the optimal operating point"}
    return Metric("optimal_operating_point", WHY, values, methods=COST_METHODS, **kw)


def _optimum(
    pts: dict[str, np.ndarray], n_groups: int, cfp: float, cfn: float, pi: float | None
) -> dict[str, np.ndarray]:
    """Per group: the hull vertex of least expected cost (ties: the highest threshold)."""
    grp = pts["group"]
    vertex = hull_mask(grp, pts["fp"], pts["tp"])
    g = grp[vertex]
    tp, fp, thr = pts["tp"][vertex], pts["fp"][vertex], pts["threshold"][vertex]
    npos = pts["npos"].astype(np.float64)
    nneg = pts["nneg"].astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        prev = npos / (npos + nneg) if pi is None else np.full(n_groups, pi)
        tpr = tp / npos[g]
        fpr = fp / nneg[g]
        if pi is None:  # exact for integer costs: (c_FN FN + c_FP FP) / n
            ec = (cfn * (npos[g] - tp) + cfp * fp) / (npos[g] + nneg[g])
        else:
            ec = cfn * pi * (1.0 - tpr) + cfp * (1.0 - pi) * fpr
        slope = np.where(cfn == 0.0, np.inf, (cfp * (1.0 - prev)) / (cfn * prev))
    seq = np.arange(len(g))  # decreasing threshold within a group
    order = np.lexsort((seq, np.nan_to_num(ec, nan=np.inf), g))
    first = np.ones(len(order), dtype=bool)
    first[1:] = g[order][1:] != g[order][:-1]
    best = order[first]
    out = {v: np.full(n_groups, np.nan) for v in _OPTIMUM_VARS}
    gb = g[best]
    for v, at in zip(_OPTIMUM_VARS, (thr, fpr, tpr, ec), strict=False):  # the first four
        out[v][gb] = at[best]
    out["prevalence"] = np.asarray(prev, dtype=np.float64)
    out["slope"] = np.asarray(slope, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        out["intercept"] = np.where(
            np.isinf(out["slope"]), np.nan, out["tpr"] - out["slope"] * out["fpr"]
        )
    return out


@doc
@by_frame_dims
def optimal_operating_point(
    df: pd.DataFrame,
    cost_fp: float = 1.0,
    cost_fn: float = 1.0,
    prevalence: float | None = None,
    method: CostMethod = "fold",
    undefined: Undefined = "skip",
    *,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
) -> xr.Dataset:
    r"""The threshold of least expected cost, per fold or merged, and its expected cost.

    Over the vertices of the ROC convex hull (:func:`roc_hull`), the one minimising the
    expected cost per sample

    .. math:: EC(t) = c_{FN}\,\pi\,(1 - TPR(t)) + c_{FP}\,(1 - \pi)\,FPR(t)

    where the scores :math:`s \ge t` are predicted positive. It is where the steepest
    iso-cost line :math:`TPR = m\,FPR + b`, :math:`m = c_{FP}(1-\pi)/(c_{FN}\pi)`, touches
    the hull; the minimum over the hull equals the minimum over all thresholds. Ties (an
    edge of slope exactly :math:`m`) go to the higher threshold. With the data's prevalence
    the cost is computed as :math:`(c_{FN} FN + c_{FP} FP)/n`.

    <<frame_parameters>>
    <<cost_params>>
    method : {"fold", "merge"}, default "fold"
        ``"fold"``: one optimum per fold (the ``fold`` dimension is kept); ``"merge"``: one
        per repeat, over the pooled scores of its folds (meaningful only when the fold
        models' scores are calibrated with each other, Forman & Scholz 2010, §3.2).
    undefined : {"skip", "nan"}
        Folds without positives or without negatives have no ROC curve: their cells are
        NaN; ``"skip"`` says so in one :class:`~cvframe.UndefinedMetricWarning`, ``"nan"``
        is silent.

    Returns
    -------
    xarray.Dataset
        Over ``(repeat?, fold?, class)`` (plus ``model``/``dataset``/``subset`` when the
        frame stacks them): ``threshold`` (predict positive when ``score >= threshold``;
        ``inf`` means never), ``fpr``, ``tpr``, ``expected_cost``, ``prevalence`` (the
        :math:`\pi` used), ``slope`` and ``intercept`` of the iso-cost line
        :math:`TPR = slope \cdot FPR + intercept` through the optimum.

    See Also
    --------
    roc_hull, iso_cost_slope, expected_cost

    <<cost_references>>

    <<cost_examples>>
    >>> op = scores.optimal_operating_point(df, cost_fp=1, cost_fn=1)
    >>> float(op.threshold.item()), round(float(op.expected_cost.item()), 4)
    (0.6, 0.1667)
    >>> op = scores.optimal_operating_point(df, cost_fp=5, cost_fn=1)  # FPs are dear
    >>> float(op.threshold.item()), float(op.slope.item())
    (0.9, 5.0)
    """
    cfp, cfn = _costs(cost_fp, cost_fn)
    pi: float | None = None
    if prevalence is not None:
        pi = _checks.real("prevalence", prevalence, 0.0, 1.0, low_open=True, high_open=True)
    method = _method(method)
    args = FrameArgs.of(locals())
    (out,) = run(df, _optimum_metric(cfp, cfn, pi), (method,), undefined, None, args)
    prior = "data" if pi is None else pi
    attrs = {"method": "optimal_operating_point", "fold_method": method, "cost_fp": cfp}
    attrs.update(cost_fn=cfn, prevalence=prior, undefined=undefined)
    return dataset(out, attrs)


def _cost_array(cost_matrix: Any, labels: list[Any] | None, size: int) -> np.ndarray:
    """The cost matrix as a float (size × size) array in the order of ``labels``."""
    if cost_matrix is None:
        return 1.0 - np.eye(size)
    if isinstance(cost_matrix, pd.DataFrame):
        cost_matrix = xr.DataArray(
            cost_matrix.to_numpy(),
            dims=(TRUE, PRED),
            coords={TRUE: list(cost_matrix.index), PRED: list(cost_matrix.columns)},
        )
    if isinstance(cost_matrix, xr.DataArray):
        if set(cost_matrix.dims) != {TRUE, PRED}:
            raise ValueError(
                f"cost_matrix has dims {cost_matrix.dims}; a labelled cost matrix is over "
                f"({TRUE!r}, {PRED!r}) (rows: true class, columns: predicted class)."
            )
        if labels is None:
            raise ValueError(
                "cost_matrix is labelled but the cube has no 'true'/'pred' coordinate to "
                "match it to; pass a plain 2 x 2 array ordered [negative, positive]."
            )
        for d in (TRUE, PRED):
            have = list(cost_matrix[d].values) if d in cost_matrix.coords else []
            if sorted(map(str, have)) != sorted(map(str, labels)) or len(have) != len(labels):
                raise ValueError(
                    f"cost_matrix labels {few(have)} along {d!r} do not match the cube's "
                    f"classes {few(labels)}; give one row and one column per class."
                )
        cost_matrix = cost_matrix.transpose(TRUE, PRED)
        rows = [list(cost_matrix[TRUE].values).index(c) for c in labels]
        cols = [list(cost_matrix[PRED].values).index(c) for c in labels]
        arr = np.asarray(cost_matrix.values, dtype=np.float64)[np.ix_(rows, cols)]
    else:
        try:
            arr = np.asarray(cost_matrix, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"cost_matrix must be a square array of numbers (rows: true class, columns: "
                f"predicted class), got {type(cost_matrix).__name__}."
            ) from exc
    if arr.shape != (size, size):
        order = "[negative, positive]" if labels is None else f"{few(labels)}"
        raise ValueError(
            f"cost_matrix has shape {arr.shape}; this cube needs a {size} x {size} matrix "
            f"(rows: true class, columns: predicted class, in the order {order})."
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError("cost_matrix has NaN or infinite costs; every cost must be finite.")
    return arr


@doc
def expected_cost(
    ds: xr.Dataset,
    cost_matrix: Any = None,
    how: How = None,
    dim: Dims = "fold",
    *,
    zero_division: ZeroDivision = "warn",
) -> xr.DataArray:
    r"""Expected cost per sample of the classifier's actual decisions, from a cost matrix.

    With :math:`C_{jk}` the cost of predicting class :math:`k` for a sample of class
    :math:`j` and :math:`N_{jk}` the confusion matrix of a fold:

    .. math:: EC = \frac{1}{n}\sum_{j,k} C_{jk}\,N_{jk}

    For a binary (or multilabel) cube the 2 × 2 matrix is read from the one-vs-all counts,
    :math:`EC = (C_{00}TN + C_{01}FP + C_{10}FN + C_{11}TP)/n`, per class; a single-label
    multiclass cube uses its ``confusion`` variable. The default 0/1 cost (1 off the
    diagonal) gives the error rate.

    - ``how=None``: per fold;
    - ``how="pooled"``: the counts summed over ``dim`` (the fold-size-weighted mean);
    - ``how="avg"``: the unweighted mean of the per-fold costs over the folds with test
      samples.

    Parameters
    ----------
    <<ds>>
    cost_matrix : array-like, pandas.DataFrame or xarray.DataArray, optional
        Rows: true class, columns: predicted class. A plain array is ordered like the
        cube's ``true``/``pred`` coordinate (what ``ds.cv.confusion()`` shows); a binary
        cube without one takes ``[negative, positive]``. A DataFrame (index: true,
        columns: predicted) or a DataArray over (``true``, ``pred``) is matched by label.
        Default: 0 on the diagonal, 1 elsewhere.
    how : {None, "pooled", "avg"}, default None
    <<dim>>
        Only used when ``how`` is given.
    <<zero_division>>
        The expected cost is undefined for an empty fold.

    Returns
    -------
    xarray.DataArray
        float64; ``class`` is kept for binary and multilabel cubes (one-vs-all) and dropped
        for multiclass ones, every other dimension is kept.

    <<cost_references>>

    Examples
    --------
    >>> import cvframe
    >>> ds = cvframe.datasets.table1()   # binary: TN, FP, FN, TP per fold
    >>> cost = [[0, 1],                  # true negative: TN costs 0, FP costs 1
    ...         [10, 0]]                 # true positive: FN costs 10, TP costs 0
    >>> cvframe.scores.expected_cost(ds, cost).values.ravel().round(4).tolist()
    [0.0, 0.0027, 0.0346, 0.0399]
    >>> pooled = cvframe.scores.expected_cost(ds, cost, how="pooled")  # (19 + 10 * 1) / 1504
    >>> round(float(pooled.item()), 5)
    0.01928
    """
    how = _checks.choice("how", how, [None, "pooled", "avg"])
    fill = _checks.zero_division(zero_division)
    check_structure(ds)
    dims = fold_dims(ds, dim) if how is not None else ()
    c = read_counts(ds)
    multiclass = ds.attrs.get("task") == "multiclass" or (
        CONFUSION in ds.data_vars and ds.sizes.get(CLASS, 0) > 1
    )
    if multiclass:
        if CONFUSION not in ds.data_vars:
            raise ValueError(
                "ds is a multiclass cube without a 'confusion' variable; the expected cost of "
                "a C x C cost matrix needs it (build the cube with cvframe.from_predictions)."
            )
        conf = ds[CONFUSION]
        if conf.dtype.kind == "f":
            conf = conf.fillna(0)
        labels = list(ds[TRUE].values) if TRUE in ds.coords else None
        cm = _cost_array(cost_matrix, labels, conf.sizes[TRUE])
        if labels is not None and PRED in ds.coords and list(ds[PRED].values) != labels:
            cols = [list(ds[PRED].values).index(v) for v in labels]
            conf = conf.isel({PRED: cols})
        weights = xr.DataArray(cm, dims=(TRUE, PRED))
        conf = formulas.as_float(conf)
        total = (conf.drop_vars([TRUE, PRED], errors="ignore") * weights).sum((TRUE, PRED))
        n = conf.sum((TRUE, PRED))
    else:
        binary_labels = list(ds[TRUE].values) if TRUE in ds.coords and ds.sizes[TRUE] == 2 else None
        cm = _cost_array(cost_matrix, binary_labels, 2)
        neg, pos = 0, 1
        if binary_labels is not None and ds.sizes.get(CLASS) == 1:
            pos_label = ds[CLASS].values[0]
            if pos_label in binary_labels:
                pos = binary_labels.index(pos_label)
                neg = 1 - pos
        tp, fp, fn, tn = (formulas.as_float(c[v]) for v in ("tp", "fp", "fn", "tn"))
        total = cm[neg, neg] * tn + cm[neg, pos] * fp + cm[pos, neg] * fn + cm[pos, pos] * tp
        n = tp + fp + fn + tn
    if how == "pooled":
        total, n = total.sum(dims), n.sum(dims)
    value = formulas.safe_divide(total, n, fill)
    if how == "avg":  # the one fold mean: over the real folds of the counts
        value, none = fold_mean(value, c, dims, fill)
        warn([(none, "the fold mean (no folds to average)", f"set to {fill}", None)], zero_division)
    else:
        what = "expected cost (empty fold)" if how is None else "expected cost (no tested samples)"
        warn([(n == 0, what, f"set to {fill}", None)], zero_division)
    name = "expected_cost" + ("" if how is None else f"_{how}")
    return provenance(
        value, name, dims, costs=str(np.asarray(cm).tolist()), zero_division=zero_division
    )
