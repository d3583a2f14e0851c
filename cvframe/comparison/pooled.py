r"""Paired tests of a pooled metric (F_tp,fp, pooled precision, recall, accuracy, MCC, ...;
AUC_merge): the difference of two models' numbers computed once from all folds, with a
variance that respects what was paired.

- :func:`fold_jackknife` (the counts cube: fold counts, no per-sample pairing): the
  delete-one-fold jackknife of the pooled difference within each repeat; with repeats, the
  mean of the repeats' jackknife variances less the part of the spread between repeats that
  averaging over them removes, on Satterthwaite's degrees of freedom.
- :func:`paired_delta` (the predictions frame, count metrics): the delta method on the
  per-sample outcomes of both models (a sample is the unit: its rows in every repeat go
  together), the variance stratified by true class.
- :func:`paired_delong` (the predictions frame, AUC_merge): DeLong's paired test of
  correlated ROC areas from the placements of :func:`cvframe.scores.ranking.delong_paired_arrays`,
  extended in the same way to repeats and to class averages.

They work on numpy arrays with any leading dims (a simulation's studies); :func:`run` reads a
:class:`~cvframe.comparison._common.Request` for :func:`cvframe.compare`. Formulas in
:func:`cvframe.compare`; their type I error and power are measured by
:func:`cvframe.power_study`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import xarray as xr

from .. import measure, metrics, scores
from .._core import labels as _labels
from .._core.quantiles import t_quantile, z_quantile
from ..errors import few
from ..intervals.shared import whole
from ..schema import CLASS, FOLD, REPEAT, read_counts
from . import fold, resampling
from ._common import Outcome, Request, average_info, pairs

__all__ = [
    "COUNTS",
    "fold_jackknife",
    "gradient",
    "paired_delong",
    "paired_delta",
    "pooled",
    "run",
    "stratified_variance",
]

#: The count variables, in the order the arrays hold them.
COUNTS = ("tp", "fp", "fn", "tn")
#: Step of the central differences of :func:`gradient` (in counts).
STEP = 1e-4

Counts = dict[str, np.ndarray]


def pooled(name: str, counts: Counts, average: str | None, beta: float, single: bool) -> np.ndarray:
    """The pooled count metric of summed counts (..., C) -> (...): accuracy of single-label
    data with several classes is the share of samples on the diagonal (every sample counted
    once), any other metric :func:`cvframe.measure.pooled_counts` (a binary problem: its
    positive class, C = 1)."""
    tp = counts["tp"]
    if whole(name) == "correct" and single and tp.shape[-1] > 1:
        n = (tp + counts["fp"] + counts["fn"] + counts["tn"])[..., 0]
        with np.errstate(invalid="ignore", divide="ignore"):
            acc = np.where(n > 0, tp.sum(-1) / np.where(n > 0, n, 1.0), 0.0)
        return 1.0 - acc if not metrics.REGISTRY[name].higher_is_better else acc
    binary = tp.shape[-1] == 1
    return measure.pooled_counts(name, counts, average, beta, binary=binary)


def gradient(name: str, counts: Counts, average: str | None, beta: float, single: bool) -> Counts:
    """The partial derivatives of :func:`pooled` with respect to every summed count (..., C),
    by central differences of step :data:`STEP` (all of them in one vectorised call)."""
    c = counts["tp"].shape[-1]
    base = np.stack([counts[k] for k in COUNTS], axis=-2)  # (..., 4, C)
    eye = np.eye(4 * c).reshape(4 * c, 4, c) * STEP
    eye = np.concatenate([eye, -eye]).reshape(8 * c, *([1] * (base.ndim - 2)), 4, c)
    both = base[None] + eye  # (8C, ..., 4, C): every count moved up, then down
    vals = pooled(name, {k: both[..., i, :] for i, k in enumerate(COUNTS)}, average, beta, single)
    d = (vals[: 4 * c] - vals[4 * c :]) / (2 * STEP)  # (4C, ...)
    d = np.moveaxis(d, 0, -1).reshape(*d.shape[1:], 4, c)
    return {k: d[..., i, :] for i, k in enumerate(COUNTS)}


def stratified_variance(phi: np.ndarray, strata: np.ndarray | None) -> np.ndarray:
    r"""The variance of :math:`\sum_s \phi_s` over samples drawn within strata:
    :math:`\sum_g \frac{n_g}{n_g - 1} \sum_{s \in g} (\phi_s - \bar\phi_g)^2` (one stratum when
    ``strata`` is None; a stratum of one sample adds nothing)."""
    if strata is None:
        strata = np.zeros(phi.shape[-1], dtype=np.int64)
    out = np.zeros(phi.shape[:-1])
    for g in np.unique(strata):
        part = phi[..., strata == g]
        m = part.shape[-1]
        if m > 1:
            dev = part - part.mean(-1, keepdims=True)
            out += m / (m - 1) * np.einsum("...s,...s->...", dev, dev)
    return out


def fold_jackknife(
    a: Counts,
    b: Counts,
    present: np.ndarray,
    name: str,
    *,
    average: str | None,
    beta: float,
    single: bool,
) -> dict[str, np.ndarray]:
    r"""The fold jackknife of the pooled difference ``metric(a) - metric(b)``.

    ``a``, ``b``: fold counts (..., R, K, C) of the two models on the same folds;
    ``present``: (..., R, K) where a fold holds samples. Per repeat :math:`r`,
    :math:`D_r` is the pooled difference and :math:`D_{r,-j}` the same without fold
    :math:`j`; :math:`V_r = \frac{k_r - 1}{k_r} \sum_j (D_{r,-j} - \bar D_{r,\cdot})^2`. The
    estimate is :math:`\bar D = \frac1R \sum_r D_r` with variance
    :math:`\max(\bar V - (1 - \frac1R) S^2_D, \bar V / R)` (:math:`S^2_D` the variance of
    :math:`D_r` over the repeats: the part of every repeat's variance that the mean over
    repeats averages away) and Satterthwaite's degrees of freedom, between
    :math:`\min_r k_r - 1` and :math:`\sum_r (k_r - 1)`.

    Returns ``mean``, ``se``, ``df`` (...) and ``per_repeat`` (..., R).
    """
    total = {k: a[k].sum(-2) for k in COUNTS}, {k: b[k].sum(-2) for k in COUNTS}
    d_r = pooled(name, total[0], average, beta, single) - pooled(
        name, total[1], average, beta, single
    )
    left = [
        {k: t[k][..., None, :] - x[k] for k in COUNTS} for t, x in zip(total, (a, b), strict=True)
    ]
    d_j = pooled(name, left[0], average, beta, single) - pooled(
        name, left[1], average, beta, single
    )
    k_r = present.sum(-1)  # (..., R)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_j = np.where(present, d_j, 0.0).sum(-1) / k_r
        ss = np.where(present, (d_j - mean_j[..., None]) ** 2, 0.0).sum(-1)
        v_r = (k_r - 1) / k_r * ss
    n_rep = d_r.shape[-1]
    v_bar = v_r.mean(-1)
    nu_w = (k_r - 1).sum(-1).astype(np.float64)
    if n_rep > 1:
        between = (1 - 1 / n_rep) * d_r.var(-1, ddof=1)
        var = np.maximum(v_bar - between, v_bar / n_rep)
        with np.errstate(invalid="ignore", divide="ignore"):
            df = var**2 / (v_bar**2 / nu_w + between**2 / (n_rep - 1))
        df = np.clip(np.nan_to_num(df, nan=nu_w), (k_r - 1).min(-1), nu_w)
    else:
        var, df = v_bar, nu_w
    return {"mean": d_r.mean(-1), "se": np.sqrt(var), "df": df, "per_repeat": d_r}


def influence(counts: Counts, grad: Counts) -> np.ndarray:
    r"""Per-sample influence :math:`\sum_{c,k} \partial g / \partial T_{ck} \; t_{sck}` of
    per-sample counts (..., R, S, C) under the gradient (..., R, C), summed over repeats
    -> (..., S)."""
    return sum(np.einsum("...rc,...rsc->...s", grad[k], counts[k]) for k in COUNTS)


def paired_delta(
    a: Counts,
    b: Counts,
    strata: np.ndarray | None,
    name: str,
    *,
    average: str | None,
    beta: float,
    single: bool,
) -> dict[str, np.ndarray]:
    r"""The delta-method test of the pooled difference on per-sample counts.

    ``a``, ``b``: per-sample counts (..., R, S, C) of the two models (each sample's own
    tp, fp, fn, tn: 0 or 1 per class), the same S samples in every repeat. With
    :math:`g` the pooled metric of the summed counts :math:`T_r`,
    :math:`\bar D = \frac1R \sum_r g(T^a_r) - g(T^b_r)` and every sample's influence
    :math:`\phi_s = \frac1R \sum_r \nabla g(T^a_r) \cdot t^a_{rs} - \nabla g(T^b_r) \cdot
    t^b_{rs}`; the variance is :func:`stratified_variance` of :math:`\phi` (strata: the true
    class, or None), the reference distribution normal.

    Returns ``mean``, ``se`` (...) and ``per_repeat`` (..., R).
    """
    total = [{k: x[k].sum(-2) for k in COUNTS} for x in (a, b)]
    g = [pooled(name, t, average, beta, single) for t in total]
    n_rep = g[0].shape[-1]
    if whole(name) == "correct" and single and a["tp"].shape[-1] > 1:
        n = a["tp"].shape[-2]
        sign = 1.0 if metrics.REGISTRY[name].higher_is_better else -1.0
        phi = sign * (a["tp"].sum(-1) - b["tp"].sum(-1)).sum(-2) / (n_rep * n)
    else:
        grads = [gradient(name, t, average, beta, single) for t in total]
        phi = (influence(a, grads[0]) - influence(b, grads[1])) / n_rep
    var = stratified_variance(phi, strata)
    d_r = g[0] - g[1]
    return {"mean": d_r.mean(-1), "se": np.sqrt(var), "per_repeat": d_r}


def paired_delong(
    sa: np.ndarray, sb: np.ndarray, positive: np.ndarray, strata: np.ndarray, weights: np.ndarray
) -> dict[str, np.ndarray]:
    r"""DeLong's paired test of AUC_merge, per class and repeat, averaged over classes.

    ``sa``, ``sb``: scores (..., R, C, S) of the two models for each class, ``positive``
    (C, S) whether a sample is of the class, ``strata`` (S,) its true class, ``weights``
    (C,) the class average (one-hot for one class). With the placements :math:`V` of
    :func:`cvframe.scores.ranking.delong_paired_arrays`, a sample's influence on
    :math:`AUC_{rc}` is :math:`(V_{rcs} - AUC_{rc}) / n^{\pm}_c` (:math:`n^+_c` positives
    of the class when it is one, else the :math:`n^-_c` negatives); :math:`\phi_s` is the
    weighted difference of the two models' influences, averaged over repeats, and the
    variance :func:`stratified_variance` of :math:`\phi` by true class. With one class and
    one repeat this is DeLong's :math:`(V_a + V_b - 2 C_{ab})` exactly, as
    ``pROC::roc.test(paired=TRUE, method="delong")``.

    Returns ``mean``, ``se`` (...) and ``per_repeat`` (..., R).
    """
    both = np.stack([sa, sb], axis=-2)  # (..., R, C, 2, S)
    auc, _, v = scores.ranking.delong_paired_arrays(both, positive[:, None, :], placements=True)
    n_pos = positive.sum(-1).astype(np.float64)  # (C,)
    n_neg = positive.shape[-1] - n_pos
    scale = np.where(positive, 1.0 / n_pos[:, None], 1.0 / n_neg[:, None])  # (C, S)
    psi = (v - auc[..., None]) * scale[:, None, :]  # (..., R, C, 2, S)
    dpsi = psi[..., 0, :] - psi[..., 1, :]  # (..., R, C, S)
    n_rep = dpsi.shape[-3]
    phi = np.einsum("c,...rcs->...s", weights, dpsi) / n_rep
    d_r = np.einsum("c,...rc->...r", weights, auc[..., 0] - auc[..., 1])
    return {
        "mean": d_r.mean(-1),
        "se": np.sqrt(stratified_variance(phi, strata)),
        "per_repeat": d_r,
    }


# --- compare: reading a request ----------------------------------------------------------------


def _class_sets(n_classes: int, req: Request) -> list[Any]:
    """The class selections of the request: all classes at once (one averaged value, or a
    metric of every class), or one per class for ``average=None``."""
    if n_classes == 1 or whole(req.name) or req.entry.one_value or req.average is not None:
        return [slice(None)]
    return [slice(c, c + 1) for c in range(n_classes)]


def _fold_arrays(req: Request) -> tuple[Any, list[Any], list[int], list[int], Counts, np.ndarray]:
    """The cube of the request (checked paired), its models and contrasts, the fold counts
    (M, R, K, C) and where a fold is present (M, R, K)."""
    ds, models, ia, ib = fold.paired_cube(req)
    if whole(req.name) is None and req.entry.kind == "sample":
        raise ValueError(f"{req.shown} is not a count metric of the cube's classes.")
    c = read_counts(ds)
    dims = [req.dim, REPEAT, FOLD, CLASS]
    arrays = {}
    for k, da in zip(COUNTS, (c.tp, c.fp, c.fn, c.tn), strict=True):
        da = da if REPEAT in da.dims else da.expand_dims(REPEAT)
        arrays[k] = np.asarray(da.transpose(*dims).values, dtype=np.float64)
    present = arrays["tp"] + arrays["fp"] + arrays["fn"] + arrays["tn"]
    return ds, models, ia, ib, arrays, present[..., 0] > 0


def _outcome(
    res: list[list[dict[str, np.ndarray]]],
    req: Request,
    reference: Callable[[np.ndarray], Any],
    classes: list[Any] | None,
    repeats: Any,
) -> dict[str, xr.DataArray]:
    """Variables over ``contrast`` (and ``class`` per class) from the per-contrast,
    per-class results: the test's statistic, p-value and interval."""
    from scipy import stats

    def stack(key: str) -> np.ndarray:
        return np.array([[r[key] for r in per] for per in res])  # (contrast, class, ...)

    mean, se = stack("mean"), stack("se")
    df = stack("df") if "df" in res[0][0] else np.full(mean.shape, np.inf)
    with np.errstate(invalid="ignore", divide="ignore"):
        stat = np.where(se > 0, mean / se, np.where(mean == 0, 0.0, np.sign(mean) * np.inf))
    with np.errstate(invalid="ignore"):
        p_t = 2 * stats.t.sf(np.abs(stat), np.where(np.isfinite(df), df, 1.0))
    p = np.where(np.isfinite(df), p_t, 2 * stats.norm.sf(np.abs(stat)))
    p = np.where(np.isnan(se), np.nan, p)
    q = reference(df)
    per = stack("per_repeat")  # (contrast, class, R)
    keep = classes is not None
    dims = ("contrast", CLASS) if keep else ("contrast",)
    coords = {CLASS: classes} if keep else {}

    def da(x: np.ndarray, extra: tuple[str, ...] = ()) -> xr.DataArray:
        x = x if keep else x[:, 0]
        rep = {REPEAT: np.asarray(repeats)} if extra and repeats is not None else {}
        return xr.DataArray(x, {**coords, **rep}, dims + extra)

    out = {"difference": da(per, (REPEAT,)), "mean": da(mean), "low": da(mean - q * se)}
    out.update(high=da(mean + q * se), effect_size=da(mean), statistic=da(stat))
    if "df" in res[0][0]:
        out["df"] = da(df)
    out.update(p_value=da(p), se=da(se))
    out["significant"] = out["p_value"] < 1 - req.level
    return out


def _t_reference(level: float) -> Callable[[np.ndarray], Any]:
    return lambda df: np.asarray(t_quantile(level, df), dtype=np.float64)


def _run_jackknife(req: Request) -> Outcome:
    ds, models, ia, ib, arrays, present = _fold_arrays(req)
    single = ds.attrs.get("task") != "multilabel"
    classes = [c for c in ds[CLASS].values]
    sets = _class_sets(len(classes), req)
    res = []
    for a, b in zip(ia, ib, strict=True):
        res.append([
            fold_jackknife(
                {k: v[a][..., s] for k, v in arrays.items()},
                {k: v[b][..., s] for k, v in arrays.items()},
                present[a], req.name, average=req.average, beta=req.beta, single=single,
            )
            for s in sets
        ])  # fmt: skip
    reps = ds[REPEAT].values if REPEAT in ds.dims else None
    kept = classes if len(sets) > 1 or (len(classes) == 1 and not whole(req.name)) else None
    out = _outcome(res, req, _t_reference(req.level), kept, reps)
    info = {"n_folds": ds.sizes[FOLD], "n_repeats": ds.sizes.get(REPEAT, 1)}
    info.update(_effect(req), interval=f"{req.level:.0%} t interval of the jackknife variance")
    info.update(average_info(ds[CLASS].values, req))
    return Outcome(out, models, ia, ib, info)


def _effect(req: Request) -> dict[str, str]:
    return {
        "effect_size": f"the difference itself, on the scale of {req.metric!r} (a pooled "
        "metric has no per-fold spread to standardise by)"
    }


def _sample_strata(pr: resampling.Paired, multilabel: bool) -> np.ndarray | None:
    return None if multilabel else pr.y


def _run_delta(req: Request) -> Outcome:
    pr, multilabel = _read(req)
    assert pr.counts is not None
    ia, ib = pairs(pr.models, req.baseline, req.dim)
    classes = pr.classes or []
    sets = _class_sets(len(classes), req)
    single = not multilabel
    res = [
        [
            paired_delta(
                {k: v[a][..., s] for k, v in pr.counts.items()},
                {k: v[b][..., s] for k, v in pr.counts.items()},
                _sample_strata(pr, multilabel), req.name, average=req.average, beta=req.beta,
                single=single,
            )
            for s in sets
        ]
        for a, b in zip(ia, ib, strict=True)
    ]  # fmt: skip
    kept = classes if len(sets) > 1 else None
    z = z_quantile(req.level)
    out = _outcome(res, req, lambda df: z, kept, pr.repeats)
    return Outcome(
        out, pr.models, ia, ib, _frame_info(req, pr, "normal interval of the delta method")
    )


def _run_delong(req: Request) -> Outcome:
    pr, _ = _read(req)
    assert pr.score is not None and pr.positive is not None
    ia, ib = pairs(pr.models, req.baseline, req.dim)
    classes = pr.classes or []
    n_c = len(classes)
    support = pr.positive.sum(-1).astype(np.float64)
    if (support < 2).any() or (pr.positive.shape[-1] - support < 2).any():
        bad = [c for c, s in zip(classes, support, strict=True) if s < 2 or len(pr.y) - s < 2]
        raise ValueError(
            f"test='delong' needs at least 2 positives and 2 negatives of every class; "
            f"class {few(bad)} has fewer. Compare fewer classes (pos_label=) or more samples."
        )
    # one class (or each class on its own): stratified by its positives and negatives, as
    # DeLong's variance is; a class average: by true class
    if n_c > 1 and req.average is None:
        sets = [(w, pr.positive[c].astype(np.int64)) for c, w in enumerate(np.eye(n_c))]
    elif n_c > 1 and req.average == "weighted":
        sets = [(support / support.sum(), pr.y)]
    else:
        sets = [(np.full(n_c, 1.0 / n_c), pr.y if n_c > 1 else pr.positive[0].astype(np.int64))]
    res = [
        [paired_delong(pr.score[a], pr.score[b], pr.positive, strata, w) for w, strata in sets]
        for a, b in zip(ia, ib, strict=True)
    ]
    kept = classes if len(sets) > 1 else None
    z = z_quantile(req.level)
    out = _outcome(res, req, lambda df: z, kept, pr.repeats)
    return Outcome(
        out, pr.models, ia, ib, _frame_info(req, pr, "normal interval of DeLong's variance")
    )


def _read(req: Request) -> tuple[resampling.Paired, bool]:
    """The paired per-sample data of the frame, and whether it is multilabel."""
    resampling.check_frame(req)
    multilabel = req.entry.kind == "count" and resampling.is_multilabel(req)
    pr = resampling.read(req)
    if req.average == "micro" and req.entry.kind == "score":
        raise ValueError(
            f"average='micro' is not a class average of {req.entry.display}; pass 'macro' or "
            "'weighted'."
        )
    return pr, multilabel


def _frame_info(req: Request, pr: resampling.Paired, interval: str) -> dict[str, Any]:
    info: dict[str, Any] = {"n_samples": len(pr.y), "n_repeats": pr.n_repeats, **_effect(req)}
    info["interval"] = f"{req.level:.0%} {interval}"
    if whole(req.name) != "correct" and pr.classes is not None:
        if len(pr.classes) == 1:
            info["pos_label"] = _labels.to_attr(pr.classes[0])
        else:
            info.update(average_info(pr.classes, req))
    return info


def run(req: Request) -> Outcome:
    """The pooled test of the request: ``"fold_jackknife"``, ``"paired_delta"`` or
    ``"delong"``."""
    return {"fold_jackknife": _run_jackknife, "paired_delta": _run_delta, "delong": _run_delong}[
        req.test
    ](req)
