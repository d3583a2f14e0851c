r"""Cost-sensitive ROC analysis: the ROC convex hull, iso-cost lines, the optimal operating
point and the expected cost of a classifier's decisions.

Two kinds of error cost differently: a false positive costs :math:`c_{FP}`, a false negative
:math:`c_{FN}`. At a class prior :math:`\pi = P(\text{pos})` the expected cost per sample of
the operating point :math:`(FPR, TPR)` is

.. math:: EC = c_{FN}\,\pi\,(1 - TPR) + c_{FP}\,(1 - \pi)\,FPR

and the points of equal cost lie on a line of slope
:math:`m = c_{FP}(1-\pi) / (c_{FN}\,\pi)` (cost ratio × N/P), an *iso-performance line*.
The optimal operating point is the first vertex of the ROC convex hull that such a line
touches coming down from the upper left; no point below the hull can do better at any
costs or prior (Provost & Fawcett 2001).

:func:`roc_hull` and :func:`optimal_operating_point` read the predictions frame with the
package's one parser (:mod:`._frame`) and its one ROC kernel (:meth:`._rank.Ranked.curve`:
the same points as :func:`cvframe.scores.roc`), per fold and merged; the hull is found in
exact integer arithmetic on the counts (TP, FP) of those points. :func:`expected_cost`
reads a counts cube: the expected cost of the classifier's actual (hard) decisions from a
cost matrix.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
import xarray as xr

from .. import _checks, formulas
from .._docs import doc, register
from .._labels.frame import Frame, by_frame_dims, parse, place
from .._types import Dims, How, ZeroDivision
from ..errors import UndefinedMetricWarning, few, user_stacklevel
from ..reduce import fold_dims, warn
from ..schema import (
    CLASS,
    CONFUSION,
    FOLD,
    PRED,
    REPEAT,
    TRUE,
    check_structure,
    provenance,
    read_counts,
)
from ._rank import Ranked
from .curves import curve_rows
from .ranking import UNDEFINED, Undefined

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


# ------------------------------------------------------------------------------------------
# Scalar helpers and argument checks
# ------------------------------------------------------------------------------------------


def _costs(cost_fp: Any, cost_fn: Any) -> tuple[float, float]:
    fp = _checks.real("cost_fp", cost_fp, 0.0)
    fn = _checks.real("cost_fn", cost_fn, 0.0)
    if fp == 0.0 and fn == 0.0:
        raise ValueError(
            "cost_fp=0 and cost_fn=0: with no cost for either error every operating point "
            "is optimal; give at least one of cost_fp, cost_fn a positive cost."
        )
    return fp, fn


def _prevalence(prevalence: Any) -> float | None:
    if prevalence is None:
        return None
    return _checks.real("prevalence", prevalence, 0.0, 1.0, low_open=True, high_open=True)


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

    References
    ----------
    <<cost_refs>>

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


# ------------------------------------------------------------------------------------------
# The kernel: ROC points with counts, and their upper convex hull
# ------------------------------------------------------------------------------------------


def _points(fr: Frame, per_fold: bool) -> list[dict[str, np.ndarray]]:
    """Per class: every ROC point (with (0, 0) at +inf first) of every group, with counts.

    Rows are ordered by group and decreasing threshold; ``tp``/``fp`` are the counts scored
    at or above the threshold; ``npos``/``nneg`` are per group.
    """
    g, n_groups = fr.groups(per_fold)
    out = []
    for s, (lo, hi), y in zip(fr.scores, fr.ranges, fr.ys, strict=True):
        ranked = Ranked(s, lo, hi, y, g, n_groups)
        if per_fold and fr.present_ is None:
            fr.present_ = ranked.size > 0
        cur = ranked.curve()
        del ranked
        present = fr.present if per_fold else np.ones(fr.n_reps, dtype=bool)
        gs = np.flatnonzero(present)
        n0, n1 = len(gs), len(cur["group"])
        grp = np.concatenate([gs, cur["group"]])
        seq = np.concatenate([np.zeros(n0, np.int64), np.arange(1, n1 + 1)])
        order = np.lexsort((seq, grp))
        out.append(
            {
                "group": grp[order],
                "threshold": np.concatenate([np.full(n0, np.inf), cur["threshold"]])[order],
                "tp": np.concatenate([np.zeros(n0, np.int64), cur["tp"]])[order],
                "fp": np.concatenate([np.zeros(n0, np.int64), cur["fp"]])[order],
                "npos": cur["npos"],
                "nneg": cur["nneg"],
                "present": present,
            }
        )
    return out


def hull_mask(group: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Which points are vertices of the upper-left convex hull of their group.

    The points of a group are consecutive and monotone (non-decreasing ``x`` and ``y``,
    e.g. the (FP, TP) counts of a ROC curve from (0, 0) to (N, P)). A point is dropped when
    it lies on or below the chord joining its two neighbours — a left turn or no turn,
    ``cross((m - p), (n - p)) >= 0`` — and the pass repeats until every inner point is a
    strict right turn. The first and last point of each group are always kept. Integer
    coordinates give exact turns (scaling the axes by ``1/N`` and ``1/P`` keeps the sign).

    >>> hull_mask(np.zeros(5, int), np.array([0, 1, 1, 2, 3]), np.array([0, 1, 2, 2, 3]))
    array([ True, False,  True, False,  True])
    """
    n = len(group)
    alive = np.arange(n)
    for _ in range(_PASSES):
        if len(alive) < 3:
            break
        p, m, q = alive[:-2], alive[1:-1], alive[2:]
        inner = (group[p] == group[m]) & (group[m] == group[q])
        cross = (x[m] - x[p]) * (y[q] - y[p]) - (y[m] - y[p]) * (x[q] - x[p])
        drop = inner & (cross >= 0)
        if not drop.any():
            break
        keep = np.ones(len(alive), dtype=bool)
        keep[1:-1] = ~drop
        alive = alive[keep]
    else:  # rare shapes peel one point per pass: finish with the sequential monotone chain
        alive = _chain(alive, group, x, y)
    mask = np.zeros(n, dtype=bool)
    mask[alive] = True
    return mask


#: Vectorised pruning passes before :func:`hull_mask` falls back to the monotone chain.
_PASSES = 64


def _chain(idx: np.ndarray, group: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Andrew's monotone chain (upper hull) over the points ``idx``, group by group."""
    gs, xs, ys = group[idx].tolist(), x[idx].tolist(), y[idx].tolist()
    stack: list[int] = []  # positions into idx
    start = 0
    for i in range(len(gs)):
        if i > 0 and gs[i] != gs[i - 1]:
            start = len(stack)
        while len(stack) - start >= 2:
            a, b = stack[-2], stack[-1]
            if (xs[b] - xs[a]) * (ys[i] - ys[a]) - (ys[b] - ys[a]) * (xs[i] - xs[a]) >= 0:
                stack.pop()
            else:
                break
        stack.append(i)
    return idx[np.asarray(stack, dtype=np.int64)]


def _undefined_groups(
    fr: Frame, per_fold: bool, ci: int, pts: dict[str, np.ndarray]
) -> tuple[np.ndarray, list[str]]:
    bad = pts["present"] & ((pts["npos"] == 0) | (pts["nneg"] == 0))
    return bad, [place(fr, per_fold, g, fr.classes[ci]) for g in np.flatnonzero(bad)]


def _warn(what: str, n: int, total: int, where: list[str], action: str) -> None:
    warnings.warn(
        f"{what} (no positives or no negatives for a class) is undefined in {n} of {total} "
        f"curves ({few(where)}); {action}. Pass undefined='nan' to keep them as NaN and "
        "silence this warning.",
        UndefinedMetricWarning,
        stacklevel=user_stacklevel(),
    )


# ------------------------------------------------------------------------------------------
# The ROC convex hull
# ------------------------------------------------------------------------------------------


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

    Parameters
    ----------
    <<frame_params>>
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

    References
    ----------
    <<cost_refs>>

    Examples
    --------
    >>> import pandas as pd
    >>> from cvframe import scores
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 0, 0],
    ...                    "y_true": [1, 0, 1, 1, 0, 0],
    ...                    "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.1]})
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
    _checks.choice("undefined", undefined, UNDEFINED)
    fr = parse(df, labels, pos_label, y_true, fold, repeat, score)
    kinds = [
        (kind, per_fold)
        for kind, per_fold, m in (("fold", True, "fold"), ("merged", False, "merge"))
        if method in (None, m)
    ]
    frames, where, n_undef, total = [], [], 0, 0
    for kind, per_fold in kinds:
        for ci, pts in enumerate(_points(fr, per_fold)):
            bad, places = _undefined_groups(fr, per_fold, ci, pts)
            n_undef += int(bad.sum())
            total += int(pts["present"].sum())
            where += places
            grp = pts["group"]
            ok = ~bad[grp]
            vertex = hull_mask(grp, pts["fp"], pts["tp"]) & ok
            grp_v = grp[vertex]
            npos, nneg = pts["npos"][grp_v], pts["nneg"][grp_v]
            cols = {
                "threshold": pts["threshold"][vertex],
                "fpr": pts["fp"][vertex] / nneg.astype(np.float64),
                "tpr": pts["tp"][vertex] / npos.astype(np.float64),
            }
            if undefined == "nan" and bad.any():
                gb = np.flatnonzero(bad)
                grp_v = np.concatenate([grp_v, gb])
                cols = {k: np.concatenate([v, np.full(len(gb), np.nan)]) for k, v in cols.items()}
                order = np.argsort(grp_v, kind="stable")
                grp_v = grp_v[order]
                cols = {k: v[order] for k, v in cols.items()}
            frames.append(curve_rows(fr, per_fold, kind, grp_v, ci, cols))
    if n_undef and undefined == "skip":
        _warn("ROC hull", n_undef, total, where, "left out")
    out = pd.concat(frames, ignore_index=True)
    keys = ["kind"] + [c for c in (REPEAT, FOLD) if c in out.columns]
    out = out.sort_values(keys, kind="stable", ignore_index=True)
    out.attrs = {"undefined": undefined}
    return out


# ------------------------------------------------------------------------------------------
# The optimal operating point
# ------------------------------------------------------------------------------------------

_OPTIMUM_VARS = ("threshold", "fpr", "tpr", "expected_cost", "prevalence", "slope", "intercept")


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
    out["threshold"][gb] = thr[best]
    out["fpr"][gb] = fpr[best]
    out["tpr"][gb] = tpr[best]
    out["expected_cost"][gb] = ec[best]
    out["prevalence"] = np.asarray(prev, dtype=np.float64)
    out["slope"] = np.asarray(slope, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        out["intercept"] = np.where(
            np.isinf(out["slope"]), np.nan, out["tpr"] - out["slope"] * out["fpr"]
        )
    return out


def _cube(fr: Frame, per_fold: bool, per_class: list[np.ndarray]) -> xr.DataArray:
    """Per-class group arrays as a DataArray over (repeat?, fold?, class)."""
    arr = np.stack(per_class, axis=-1).astype(np.float64)
    dims: list[str] = []
    coords: dict[str, Any] = {}
    shape: list[int] = []
    if fr.rep_coord is not None:
        dims.append(REPEAT)
        coords[REPEAT] = fr.rep_coord
        shape.append(fr.n_reps)
    if per_fold:
        dims.append(FOLD)
        coords[FOLD] = fr.fold_coord[fr.fold_keep]
        shape.append(fr.n_folds)
    dims.append(CLASS)
    cls = np.asarray(fr.classes)
    coords[CLASS] = np.asarray(fr.classes, dtype=object) if cls.dtype.kind in "USO" else cls
    shape.append(len(fr.classes))
    arr = arr.reshape(shape)
    if per_fold:
        arr = arr[..., fr.fold_keep, :]
    return xr.DataArray(arr, dims=dims, coords=coords)


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

    Parameters
    ----------
    <<frame_params>>
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

    References
    ----------
    <<cost_refs>>

    Examples
    --------
    >>> import pandas as pd
    >>> from cvframe import scores
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 0, 0],
    ...                    "y_true": [1, 0, 1, 1, 0, 0],
    ...                    "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.1]})
    >>> op = scores.optimal_operating_point(df, cost_fp=1, cost_fn=1)
    >>> float(op.threshold.item()), round(float(op.expected_cost.item()), 4)
    (0.6, 0.1667)
    >>> op = scores.optimal_operating_point(df, cost_fp=5, cost_fn=1)  # FPs are dear
    >>> float(op.threshold.item()), float(op.slope.item())
    (0.9, 5.0)
    """
    cfp, cfn = _costs(cost_fp, cost_fn)
    pi = _prevalence(prevalence)
    method = _method(method)
    _checks.choice("undefined", undefined, UNDEFINED)
    fr = parse(df, labels, pos_label, y_true, fold, repeat, score)
    per_fold = method == "fold"
    n_groups = fr.groups(per_fold)[1]
    per_var: dict[str, list[np.ndarray]] = {v: [] for v in _OPTIMUM_VARS}
    where, n_undef, total = [], 0, 0
    for ci, pts in enumerate(_points(fr, per_fold)):
        bad, places = _undefined_groups(fr, per_fold, ci, pts)
        n_undef += int(bad.sum())
        total += int(pts["present"].sum())
        where += places
        opt = _optimum(pts, n_groups, cfp, cfn, pi)
        absent = ~pts["present"]
        for v in _OPTIMUM_VARS:
            values = opt[v]
            values[bad | absent] = np.nan
            per_var[v].append(values)
    if n_undef and undefined == "skip":
        _warn("the optimal operating point", n_undef, total, where, "left as NaN")
    ds = xr.Dataset({v: _cube(fr, per_fold, per_var[v]) for v in _OPTIMUM_VARS})
    ds.attrs = {
        "method": "optimal_operating_point",
        "fold_method": method,
        "cost_fp": cfp,
        "cost_fn": cfn,
        "prevalence": "data" if pi is None else pi,
        "undefined": undefined,
    }
    return ds


# ------------------------------------------------------------------------------------------
# Expected cost of the actual decisions (a counts cube)
# ------------------------------------------------------------------------------------------


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

    References
    ----------
    <<cost_refs>>

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
    if how == "avg":
        real = n > 0
        value = formulas.safe_divide(
            value.where(real, 0.0).sum(dims, skipna=False), real.sum(dims), fill
        )
        warn(
            [(real.sum(dims) == 0, "the fold mean (no folds to average)", f"set to {fill}", None)],
            zero_division,
        )
    else:
        what = "expected cost (empty fold)" if how is None else "expected cost (no tested samples)"
        warn([(n == 0, what, f"set to {fill}", None)], zero_division)
    name = "expected_cost" + ("" if how is None else f"_{how}")
    return provenance(
        value,
        name,
        dims,
        costs=str(np.asarray(cm).tolist()),
        zero_division=zero_division,
    )
