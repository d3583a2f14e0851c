"""Tests that resample the tested samples of the predictions frame, for pooled metrics (which
have no per-fold values): the paired bootstrap (within strata fold x true class), the paired
permutation test and McNemar's test; formulas in :func:`cvframe.compare.compare`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .. import measure, metrics
from .._core import checks as _checks
from .._core import labels as _labels
from .._core.labels import frame as frame_reader
from .._core.labels.frame import FrameArgs
from .._core.quantiles import z_quantile
from ..errors import few
from ..intervals.shared import whole
from ..schema import REPEAT
from ._common import Outcome, Request, arrays, average_info, frame_counts, pairs

__all__ = [
    "Paired",
    "bootstrap",
    "check_frame",
    "is_multilabel",
    "mcnemar",
    "permutation",
    "pooled_values",
    "read",
    "run",
]

_ROW = "__cvframe_row"


@dataclass
class Paired:
    """Paired predictions of M models on S samples in R repeats (C classes kept apart)."""

    models: list[Any]
    repeats: Any  # the repeat coordinate, or None
    y: np.ndarray  # (S,) true class code of every sample (the strata of the bootstrap)
    fold0: np.ndarray  # (S,) fold code of every sample in the first repeat
    correct: np.ndarray | None = None  # (M, R, S) bool
    counts: dict[str, np.ndarray] | None = None  # tp, fp, fn, tn: (M, R, S, C) float64
    score: np.ndarray | None = None  # (M, R, C, S) float64
    positive: np.ndarray | None = None  # (C, S) bool: the sample is of the class
    classes: list[Any] | None = None  # the C classes compared (one: the positive class)

    @property
    def n_repeats(self) -> int:
        return 1 if self.repeats is None else len(self.repeats)


def _models(col: pd.Series) -> list[Any]:
    if isinstance(col.dtype, pd.CategoricalDtype):
        return [m for m in col.cat.categories if (col == m).any()]
    return sorted(pd.unique(col), key=lambda v: (str(type(v)), v))


def _check_paired(
    parts: list[pd.DataFrame], models: list[Any], keys: list[str], cols: dict, dim: str
) -> None:
    """Every model tested on the same folds and samples, row by row."""
    base = parts[0]
    names = frame_reader.multilabel_names(base, cols["y_true"])
    truth = [cols["y_true"]] if names is None else [f"{cols['y_true']}_{x}" for x in names]
    by = [k for k in keys if k != cols["sample"]] + [cols["fold"]]
    sizes0 = base.groupby(by).size()
    for m, part in zip(models[1:], parts[1:], strict=True):
        sizes1 = part.groupby(by).size()
        same = len(part) == len(base) and sizes0.equals(sizes1)
        why = f"fold sizes {few(sizes1.to_numpy())} vs {few(sizes0.to_numpy())}"
        for c in [*keys, cols["fold"], *truth] if same else []:
            if not np.array_equal(part[c].to_numpy(), base[c].to_numpy()):
                same, why = False, f"column {c!r} differs row by row"
                break
        if not same:
            raise ValueError(
                f"unpaired design: {dim}={_labels.plain(m)!r} was not tested on the same folds "
                f"and samples as {dim}={_labels.plain(models[0])!r} ({why}). A paired "
                f"comparison needs every {dim} fitted on the same splits "
                "(cvframe.cross_validate with several models does that)."
            )


def _align(req: Request) -> tuple[list[Any], list[pd.DataFrame], Any, int]:
    """The models, their rows sorted by (repeat, sample), the repeat coordinate, S."""
    df, dim, cols = req.data, req.dim, req.cols
    need = ["y_true", "fold", "score" if req.entry.kind == "score" else "y_pred"]
    if frame_reader.multilabel_names(df, cols["y_true"]) is not None:
        need = ["fold"]  # y_true_<label>, y_pred_<label> columns
    for arg in need:
        _checks.column(df, cols[arg], arg, "predictions frame")
    mcol = _checks.column(df, dim, "dim", "predictions frame")
    models = _models(mcol)
    rep, sample = cols["repeat"], cols["sample"]
    keys = [c for c in (rep, sample) if c is not None and c in df.columns]
    named = {"dim": dim, "fold": cols["fold"], "repeat": rep, "sample": sample}
    for arg, name in named.items():
        if name in keys or arg in ("dim", "fold"):
            _labels.check_no_missing(df[name], arg)
    parts = []
    for m in models:
        part = df[(mcol == m).to_numpy()]
        parts.append(part.sort_values(keys, kind="stable") if keys else part)
    if len(models) > 1:
        _check_paired(parts, models, keys, cols, dim)
    base = parts[0]
    has_rep = rep is not None and rep in df.columns
    r_codes, r_coord = (
        pd.factorize(base[rep], sort=True) if has_rep else (np.zeros(len(base), np.int64), None)
    )
    n_rep, n = int(r_codes.max()) + 1, len(base)
    if n % n_rep or (np.bincount(r_codes, minlength=n_rep) != n // n_rep).any():
        raise ValueError(
            "the bootstrap, permutation and McNemar tests need every sample tested once per "
            "repeat (k-fold partitions); the repeats of this frame differ in size."
        )
    s_per = n // n_rep
    if sample is not None and sample in df.columns:
        sid = base[sample].to_numpy().reshape(n_rep, s_per)
        if not (sid == sid[:1]).all() or len(pd.unique(sid[0])) != s_per:
            raise ValueError(
                f"sample={sample!r}: every repeat must test each sample exactly once (k-fold "
                "partitions) for a resampling test over samples."
            )
    elif n_rep > 1:
        raise ValueError(
            f"sample={sample!r} is not a column of the frame; with several repeats the "
            "resampling tests need the sample id to pair a sample's rows across repeats."
        )
    return models, parts, r_coord, s_per


def _counts(req: Request, pr: Paired, parts: list[pd.DataFrame], shape: tuple) -> None:
    """Per-sample tp, fp, fn, tn of every model (the counts cube with one row per fold)."""
    cols = req.cols
    names = frame_reader.multilabel_names(parts[0], cols["y_true"])
    keep = [cols["y_true"], cols["y_pred"]]
    if names is not None:  # one y_true_<label>, y_pred_<label> column pair per label
        keep = [f"{cols[c]}_{label}" for c in ("y_true", "y_pred") for label in names]
    rows = pd.concat([p[keep] for p in parts], ignore_index=True)
    rows[_ROW] = np.arange(len(rows))
    rows.attrs = dict(req.data.attrs)
    cube, k = frame_counts(req, rows, _ROW, None, [])
    classes = [_labels.plain(c) for c in cube["class"].values]
    arr = {
        k: cube[k].transpose(..., "class").to_numpy().reshape(*shape, -1).astype(np.float64)
        for k in "tp fp fn tn".split()
    }
    multi = cube.attrs.get("task") == "multiclass"
    pr.correct = (arr["tp"].sum(-1) if multi else arr["tp"][..., 0] + arr["tn"][..., 0]) > 0
    support = arr["tp"][0, 0] + arr["fn"][0, 0]  # (S, C)
    pr.y = support.argmax(-1) if multi else support[:, 0].astype(np.int64)
    if k is not None:
        arr = {key: v[..., k : k + 1] for key, v in arr.items()}
        classes = classes[k : k + 1]
    pr.counts, pr.classes = arr, classes


def _scores(req: Request, pr: Paired, parts: list[pd.DataFrame], shape: tuple) -> None:
    """The scores of every model per class, read by the one predictions-frame reader."""
    named = ("y_true", "fold", "repeat", "score")
    args = FrameArgs(pos_label=req.pos_label, **{k: req.cols[k] for k in named})
    per_model = []
    for part in parts:
        fr = frame_reader.parse(part, **vars(args))
        per_model.append(np.stack(fr.scores).reshape(len(fr.classes), *shape[1:]))
    pr.score = np.stack(per_model).transpose(0, 2, 1, 3)  # (M, R, C, S)
    pr.positive = np.stack([np.asarray(y, dtype=bool)[: shape[-1]] for y in fr.ys])
    pr.classes = list(fr.classes)
    pr.y = pr.positive.argmax(0) if len(fr.classes) > 1 else pr.positive[0].astype(np.int64)


def read(req: Request) -> Paired:
    """The rows of every model aligned by (repeat, sample), checked paired, with the labels
    (per-sample counts from :func:`cvframe.build.counts_from_frame`) or the scores (read by
    :func:`cvframe._core.labels.frame.parse`) the metric needs."""
    models, parts, r_coord, s_per = _align(req)
    fold0 = pd.factorize(parts[0][req.cols["fold"]].to_numpy()[:s_per], sort=True)[0]
    pr = Paired(models, r_coord, np.zeros(s_per, np.int64), fold0)
    shape = (len(models), pr.n_repeats, s_per)
    if req.entry.kind == "score":
        _scores(req, pr, parts, shape)
    else:
        _counts(req, pr, parts, shape)
    return pr


def _score_values(
    pr: Paired, metric: str, average: str | None, w: np.ndarray | None = None
) -> np.ndarray:
    """The merged score metric of every model and repeat, averaged over classes: (M, R) or
    (B, M, R)."""
    assert pr.score is not None and pr.positive is not None
    kernel = arrays(metric)
    m_n, r_n, c_n, _ = pr.score.shape
    lead = () if w is None else (w.shape[0],)
    out = np.empty(lead + (m_n, r_n, c_n))
    for m in range(m_n):
        for r in range(r_n):
            for c in range(c_n):
                s = pr.score[m, r, c] if w is None else np.broadcast_to(pr.score[m, r, c], w.shape)
                out[..., m, r, c] = kernel(s, pr.positive[c], weights=w)
    pos = pr.positive.astype(np.float64)
    support = pos.sum(-1) if w is None else w @ pos.T  # (C,) or (B, C)
    support = support[..., None, None, :] if w is not None else support
    return measure.average_classes(out, np.broadcast_to(support, out.shape), average)


def pooled_values(
    pr: Paired, metric: str, beta: float, average: str | None, w: np.ndarray | None = None
) -> np.ndarray:
    """The pooled metric of every model and repeat: (M, R), or (B, M, R) under weights ``w``
    (bootstrap counts per sample, (B, S))."""
    name = metrics.resolve(metric).metric
    if whole(name) == "correct":  # the share of correct samples (accuracy)
        assert pr.correct is not None
        c = pr.correct.astype(np.float64)
        if w is None:
            return c.mean(-1)
        return np.tensordot(w, c, axes=([1], [2])) / w.sum(1)[:, None, None]
    if metrics.REGISTRY[name].kind == "score":
        return _score_values(pr, name, average, w)
    assert pr.counts is not None
    cnt = {
        k: a.sum(2) if w is None else np.tensordot(w, a, axes=([1], [2]))
        for k, a in pr.counts.items()
    }
    return _counts_metric(name, cnt, average, beta)


def _counts_metric(
    metric: str, counts: dict[str, np.ndarray], average: str | None, beta: float
) -> np.ndarray:
    """The pooled count metric of summed counts (..., C) (one class: the positive one of a
    binary frame, or the one compared against the rest)."""
    binary = counts["tp"].shape[-1] == 1
    return measure.pooled_counts(metric, counts, average, beta, binary=binary)


def _draw(pr: Paired, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Bootstrap counts per sample (B, S), drawn within strata fold x class."""
    s = len(pr.y)
    strata = pr.fold0 * (int(pr.y.max()) + 1) + pr.y
    idx = np.empty((n_resamples, s), dtype=np.int64)
    pos = 0
    order = np.argsort(strata, kind="stable")
    bounds = np.flatnonzero(np.diff(strata[order])) + 1
    for members in np.split(order, bounds):
        k = len(members)
        idx[:, pos : pos + k] = members[rng.integers(0, k, size=(n_resamples, k))]
        pos += k
    flat = (np.arange(n_resamples)[:, None] * s + idx).ravel()
    return np.bincount(flat, minlength=n_resamples * s).reshape(n_resamples, s).astype(np.float64)


def mcnemar(
    pr: Paired, req: Request, ia: list[int], ib: list[int], mean: np.ndarray
) -> dict[str, Any]:
    """McNemar's exact test of the discordant pairs, and the Wald interval of the difference."""
    from scipy import stats

    assert pr.correct is not None
    corr = pr.correct[:, 0]  # one repeat: (M, S)
    only_a = (corr[ia] & ~corr[ib]).sum(-1)  # model right, baseline wrong
    only_b = (~corr[ia] & corr[ib]).sum(-1)
    n_dis = only_a + only_b
    ab = zip(only_a, n_dis, strict=True)
    p_exact = np.array([stats.binomtest(int(x), int(k), 0.5).pvalue if k else 1.0 for x, k in ab])
    chi2 = np.where(n_dis > 0, (np.abs(only_a - only_b) - 1.0) ** 2 / np.maximum(n_dis, 1), 0.0)
    s = corr.shape[-1]
    se = np.sqrt(np.maximum(n_dis - (only_a - only_b) ** 2 / s, 0.0)) / s
    z = z_quantile(req.level)
    out = {"n_model_only": only_a, "n_baseline_only": only_b, "statistic": chi2}
    out.update(p_value=p_exact, p_value_chi2=stats.chi2.sf(chi2, 1))
    return {**out, "low": mean - z * se, "high": mean + z * se}


def bootstrap(
    pr: Paired, req: Request, ia: list[int], ib: list[int], mean: np.ndarray
) -> dict[str, Any]:
    """The paired bootstrap: p-value and percentile interval of the mean difference."""
    rng = np.random.default_rng(req.random_state)
    w = _draw(pr, req.n_resamples, rng)
    star = pooled_values(pr, req.metric, req.beta, req.average, w=w)  # (B, M, R)
    dstar = (star[:, ia] - star[:, ib]).mean(-1)  # (B, C)
    extreme = np.abs(dstar - mean) >= np.abs(mean) - 1e-12
    p = (1 + extreme.sum(0)) / (req.n_resamples + 1)
    low, high = np.quantile(dstar, [(1 - req.level) / 2, (1 + req.level) / 2], axis=0)
    return {"statistic": mean, "p_value": p, "low": low, "high": high}


def _swapped(pr: Paired, req: Request, a: int, b: int, swap: np.ndarray) -> np.ndarray:
    """The difference ``a - b`` per resample and repeat (B, R) with the swapped samples."""
    if req.entry.kind == "score":
        assert pr.score is not None and pr.positive is not None
        kernel = arrays(req.name)
        _, r_n, c_n, _ = pr.score.shape
        vals = np.empty((2, swap.shape[0], r_n, c_n))
        for r in range(r_n):
            for c in range(c_n):
                sa, sb = pr.score[a, r, c], pr.score[b, r, c]
                vals[0, :, r, c] = kernel(np.where(swap, sb, sa), pr.positive[c])
                vals[1, :, r, c] = kernel(np.where(swap, sa, sb), pr.positive[c])
        support = np.broadcast_to(pr.positive.sum(-1), vals.shape[1:])
        da, db = (measure.average_classes(v, support, req.average) for v in vals)
        return da - db
    s = len(pr.y)
    sw = swap.astype(np.float64)
    if whole(req.name) == "correct":
        assert pr.correct is not None
        ca, cb = (pr.correct[i].astype(np.float64) for i in (a, b))  # (R, S)
        delta = sw @ (cb - ca).T  # (B, R)
        return ((ca.sum(-1) + delta) - (cb.sum(-1) - delta)) / s
    assert pr.counts is not None
    va, vb = {}, {}
    for k, arr in pr.counts.items():
        ka, kb = arr[a], arr[b]  # (R, S, C)
        delta = np.einsum("bs,rsc->brc", sw, kb - ka)
        va[k], vb[k] = ka.sum(1) + delta, kb.sum(1) - delta
    da, db = (_counts_metric(req.name, v, req.average, req.beta) for v in (va, vb))
    return da - db


def permutation(
    pr: Paired, req: Request, ia: list[int], ib: list[int], mean: np.ndarray
) -> dict[str, Any]:
    """The paired permutation test (approximate randomization); no interval."""
    rng = np.random.default_rng(req.random_state)
    p = np.empty(len(ia))
    for c, (a, b) in enumerate(zip(ia, ib, strict=True)):
        swap = rng.random((req.n_resamples, len(pr.y))) < 0.5
        dstar = _swapped(pr, req, a, b, swap).mean(-1)
        p[c] = (1 + (np.abs(dstar) >= np.abs(mean[c]) - 1e-12).sum()) / (req.n_resamples + 1)
    nan = np.full(len(ia), np.nan)
    return {"statistic": mean, "p_value": p, "low": nan, "high": nan.copy()}


def is_multilabel(req: Request) -> bool:
    """Whether the request's frame is multilabel (``y_true_<label>`` columns)."""
    return frame_reader.multilabel_names(req.data, req.cols["y_true"]) is not None


def check_frame(req: Request) -> None:
    """The request fits a test of the frame: a score metric with its array form, a
    predictions frame (not a cube) of one data set."""
    if req.entry.kind == "score" and arrays(req.name) is None:
        raise ValueError(
            f"test={req.test!r} recomputes {req.shown} on every resample, which needs its "
            f"weighted array form (cvframe.scores.{req.entry.kernel}_arrays), not written yet; "
            f"compare {metrics.display(req.name, 'avg')} across data sets (test='friedman'), "
            "or a score metric that has one (AUC_merge)."
        )
    if not req.is_frame:
        raise ValueError(
            f"test={req.test!r} resamples the tested samples and needs the predictions frame "
            "(one row per model and sample), not the counts cube: pass cross_validate's "
            "frame as data."
        )
    if "dataset" in req.data.columns:
        raise ValueError(
            "the frame has a 'dataset' column; compare one data set at a time with "
            "data[data.dataset == name], or use test='friedman' across data sets."
        )


def _info(req: Request, pr: Paired) -> dict[str, Any]:
    info: dict[str, Any] = {"n_samples": len(pr.y), "n_repeats": pr.n_repeats}
    info["effect_size"] = (
        f"the difference itself, on the scale of {req.metric!r} (a pooled metric has no "
        "per-fold spread to standardise by)"
    )
    if req.test == "mcnemar":
        info["interval"] = f"{req.level:.0%} Wald interval of the paired difference"
        info["p_value"] = (
            "exact binomial (two-sided); p_value_chi2: chi-square with continuity correction"
        )
    else:
        info.update(n_resamples=req.n_resamples, random_state=req.random_state)
        info["interval"] = "none (a permutation test defines no interval)"
        if req.test == "bootstrap":
            info["interval"] = f"{req.level:.0%} percentile bootstrap interval"
        info["p_value"] = "two-sided, (1 + extreme) / (n_resamples + 1)"
    if whole(req.name) != "correct" and pr.classes is not None:
        if len(pr.classes) == 1:
            info["pos_label"] = _labels.to_attr(pr.classes[0])
        else:
            info.update(average_info(pr.classes, req))
    return info


def run(req: Request) -> Outcome:
    """McNemar, bootstrap or permutation on the paired predictions of the frame."""
    check_frame(req)
    pr = read(req)
    if req.test == "mcnemar" and pr.n_repeats != 1:
        raise ValueError(
            f"test='mcnemar' needs one CV run (one repeat), got {pr.n_repeats} repeats; select "
            "one repeat or use test='bootstrap'."
        )
    classes = pr.classes or []
    if len(classes) > 1 and req.average is None and not whole(req.name):
        raise ValueError(
            f"test={req.test!r} compares one number per {req.dim}, but average=None keeps "
            f"{len(classes)} classes {few(classes)}: pass pos_label= for one class "
            "against the rest, or average='macro', 'micro' or 'weighted'."
        )
    ia, ib = pairs(pr.models, req.baseline, req.dim)
    obs = pooled_values(pr, req.metric, req.beta, req.average)  # (M, R)
    diff = obs[ia] - obs[ib]  # (C, R)
    mean = diff.mean(-1)
    test = {"mcnemar": mcnemar, "bootstrap": bootstrap, "permutation": permutation}[req.test]
    res = {"difference": diff, "mean": mean, **test(pr, req, ia, ib, mean), "effect_size": mean}
    coords = {} if pr.repeats is None else {REPEAT: np.asarray(pr.repeats)}
    dims = ("contrast", REPEAT)
    out = {
        k: xr.DataArray(v, coords if v.ndim == 2 else {}, dims[: v.ndim]) for k, v in res.items()
    }
    out["significant"] = out["p_value"] < 1 - req.level
    return Outcome(out, pr.models, ia, ib, _info(req, pr))
