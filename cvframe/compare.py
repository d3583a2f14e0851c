"""Paired comparisons of models evaluated on the same cross-validation splits.

:func:`compare` takes either the counts cube (tests on per-fold values) or the predictions
frame (tests that resample the tested samples, which pooled metrics such as F_tp,fp need),
and returns, for every model against a baseline (or for every pair of models), the paired
difference per repeat, its mean, an interval and a p-value as a labelled Dataset whose attrs
say which test produced it and what the test assumes.

=================  ===========================  =============================================
``test=``          data and metric              reference
=================  ===========================  =============================================
``corrected_t``    per-fold values (cube)       Nadeau & Bengio (2003); Bouckaert & Frank
                                                (2004); WEKA's ``PairedCorrectedTTester``
``bayesian``       per-fold values (cube)       Benavoli et al. (2017), correlated t + ROPE
``5x2cv_t``        5 repeats x 2 folds (cube)   Dietterich (1998)
``5x2cv_f``        5 repeats x 2 folds (cube)   Alpaydin (1999)
``t``              per-fold values (cube)       uncorrected; warns (too many false positives)
``mcnemar``        pooled accuracy, one run     McNemar (1947); Dietterich (1998)
``bootstrap``      pooled metric (frame)        paired bootstrap, stratified within folds
``permutation``    pooled metric (frame)        paired permutation (swap the two models)
``friedman``       one score per dataset        Friedman (1937); Nemenyi / Holm; Demšar (2006)
=================  ===========================  =============================================

(Over 400 lines: every test keeps its formula, reference and assumptions next to its code;
splitting the tests from the one reading of the cube and frame they share would scatter them.)
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd
import xarray as xr

from . import _checks, _labels, build, reduce, scores
from .errors import few, user_stacklevel
from .schema import CLASS, FOLD, REPEAT, read_counts, where_text

__all__ = ["FOLD_METRICS", "POOLED_METRICS", "TESTS", "compare"]

#: The names ``test=`` accepts.
TESTS = (
    "auto",
    "corrected_t",
    "bayesian",
    "5x2cv_t",
    "5x2cv_f",
    "t",
    "mcnemar",
    "bootstrap",
    "permutation",
    "friedman",
)
#: Metrics with one value per fold (tested by the fold tests): name -> reduce.aggregate metric.
FOLD_METRICS = {
    "f": "f",
    "f_avg": "f",
    "precision": "precision",
    "precision_avg": "precision",
    "recall": "recall",
    "recall_avg": "recall",
    "accuracy": "accuracy",
    "accuracy_avg": "accuracy",
    "specificity": "specificity",
    "specificity_avg": "specificity",
}
#: Metrics computed once on the pooled predictions (no per-fold values).
POOLED_METRICS = (
    "f_tp_fp",
    "precision_tp_fp",
    "recall_tp_fp",
    "accuracy_pooled",
    "auc_merge",
)
_FOLD_TESTS = ("corrected_t", "bayesian", "5x2cv_t", "5x2cv_f", "t")
_FRAME_TESTS = ("mcnemar", "bootstrap", "permutation")

_REFERENCES = {
    "corrected_t": (
        "C. Nadeau and Y. Bengio, Inference for the generalization error, Machine Learning "
        "52(3), 2003; R. Bouckaert and E. Frank, Evaluating the replicability of significance "
        "tests for comparing learning algorithms, PAKDD 2004 (WEKA PairedCorrectedTTester)."
    ),
    "t": "Student's paired t-test over all folds (no correction for overlapping training sets).",
    "bayesian": (
        "A. Benavoli, G. Corani, J. Demsar and M. Zaffalon, Time for a change: a tutorial for "
        "comparing multiple classifiers through Bayesian analysis, JMLR 18(77), 2017; "
        "G. Corani and A. Benavoli, A Bayesian approach for comparing cross-validated "
        "algorithms on multiple data sets, Machine Learning 100, 2015."
    ),
    "5x2cv_t": (
        "T. G. Dietterich, Approximate statistical tests for comparing supervised "
        "classification learning algorithms, Neural Computation 10(7), 1998."
    ),
    "5x2cv_f": (
        "E. Alpaydin, Combined 5x2 cv F test for comparing supervised classification "
        "learning algorithms, Neural Computation 11(8), 1999."
    ),
    "mcnemar": (
        "Q. McNemar, Note on the sampling error of the difference between correlated "
        "proportions or percentages, Psychometrika 12(2), 1947; Dietterich (1998)."
    ),
    "bootstrap": (
        "B. Efron and R. Tibshirani, An Introduction to the Bootstrap, 1993, ch. 16; "
        "T. Berg-Kirkpatrick, D. Burkett and D. Klein, An empirical investigation of "
        "statistical significance in NLP, EMNLP 2012."
    ),
    "permutation": (
        "E. W. Noreen, Computer-Intensive Methods for Testing Hypotheses, 1989 "
        "(approximate randomization); A. Yeh, More accurate tests for the statistical "
        "significance of result differences, COLING 2000."
    ),
    "friedman": (
        "J. Demsar, Statistical comparisons of classifiers over multiple data sets, JMLR 7, "
        "2006 (Friedman test, Iman-Davenport F, Nemenyi critical difference, Holm)."
    ),
}
_ASSUMES = {
    "corrected_t": (
        "every model was tested on the same folds (paired); per-fold differences are "
        "approximately normal; their correlation across overlapping training sets is "
        "n_test/(n_test+n_train) (Nadeau-Bengio heuristic); the folds of a repeat partition "
        "the data (n_train = repeat total - n_test)"
    ),
    "t": (
        "per-fold differences are independent and normal, which cross-validation breaks: "
        "the type I error is far above alpha"
    ),
    "bayesian": (
        "as corrected_t; flat prior on the mean difference; a region of practical "
        "equivalence [-rope, rope] on the metric's scale"
    ),
    "5x2cv_t": "5 repeats of 2-fold CV on the same splits; the differences are normal",
    "5x2cv_f": "5 repeats of 2-fold CV on the same splits; the differences are normal",
    "mcnemar": (
        "one CV run (each sample tested once) by both models; the discordant pairs are "
        "exchangeable under the null"
    ),
    "bootstrap": (
        "samples are independent draws; resampled within strata fold (of the first repeat) "
        "x true class, the same draw for both models and every repeat"
    ),
    "permutation": (
        "the two models' predictions of a sample are exchangeable under the null; each "
        "sample's pair is swapped with probability 1/2, the same swap in every repeat"
    ),
    "friedman": (
        "data sets are independent; one score per model and data set (mean over repeats); "
        "ranks are exchangeable under the null"
    ),
}


# --- arguments -------------------------------------------------------------------------------


def _metric(metric: Any) -> str:
    valid = list(FOLD_METRICS) + list(POOLED_METRICS) + ["auc", "auc_avg"]
    if not isinstance(metric, str) or metric not in valid:
        raise ValueError(
            f"metric={metric!r} is not valid; expected one of {valid}. Per-fold metrics "
            "('f', 'accuracy', ... and their '_avg' names) are tested over folds; pooled ones "
            "('f_tp_fp', 'accuracy_pooled', 'auc_merge', ...) over resampled predictions."
        )
    return metric


def _choose(data: Any, metric: str, test: str, n_repeats: int) -> str:
    """The test ``"auto"`` picks: fold tests for per-fold metrics, resampling for pooled."""
    if test != "auto":
        return test
    if metric in POOLED_METRICS:
        if not isinstance(data, pd.DataFrame):
            return "corrected_t"  # refused with the fix by _check_pairing
        if metric == "accuracy_pooled" and n_repeats == 1:
            return "mcnemar"
        return "bootstrap"
    return "corrected_t"


def _pairs(models: Sequence[Any], baseline: Any, dim: str) -> tuple[list[int], list[int]]:
    """Index pairs (a, b) of every contrast ``a - b``: each model vs ``baseline``, or all pairs."""
    if len(models) < 2:
        raise ValueError(
            f"dim={dim!r} holds {len(models)} {dim}(s) {few(models)}; a comparison needs at "
            "least two."
        )
    if baseline is None:
        ia = [j for i in range(len(models)) for j in range(i + 1, len(models))]
        ib = [i for i in range(len(models)) for j in range(i + 1, len(models))]
        return ia, ib
    plain = [_labels.plain(m) for m in models]
    hits = [i for i, m in enumerate(plain) if isinstance(m, str) == isinstance(baseline, str)]
    hits = [i for i in hits if plain[i] == baseline]
    if not hits:
        raise ValueError(
            f"baseline={baseline!r} is not a {dim} of the data; the {dim}s are {few(plain)}."
        )
    b = hits[0]
    return [i for i in range(len(models)) if i != b], [b] * (len(models) - 1)


def _contrast_coords(
    models: Sequence[Any], ia: list[int], ib: list[int], dim: str
) -> dict[str, Any]:
    a = [_labels.plain(models[i]) for i in ia]
    b = [_labels.plain(models[i]) for i in ib]
    names = np.array([f"{x} - {y}" for x, y in zip(a, b, strict=True)], dtype=object)
    return {
        "contrast": names,
        dim: ("contrast", _labels.coord(a)),
        "baseline": ("contrast", _labels.coord(b)),
    }


def _diff(da: xr.DataArray, dim: str, ia: list[int], ib: list[int]) -> xr.DataArray:
    """``da[a] - da[b]`` of every contrast, along a new ``contrast`` dim."""
    a = da.isel({dim: ia}).drop_vars(dim, errors="ignore").rename({dim: "contrast"})
    b = da.isel({dim: ib}).drop_vars(dim, errors="ignore").rename({dim: "contrast"})
    return a - b


def _attrs(test: str, metric: str, alpha: float, dim: str, baseline: Any, **extra: Any) -> dict:
    attrs: dict[str, Any] = {
        "test": test,
        "metric": metric,
        "alpha": alpha,
        "difference": f"{dim} - baseline (> 0: the {dim} scores higher)",
        "baseline": "all pairs" if baseline is None else str(baseline),
        "assumes": _ASSUMES[test],
        "reference": _REFERENCES[test],
    }
    for k, v in extra.items():
        attrs[k] = "None" if v is None else v
    return attrs


# --- per-fold values --------------------------------------------------------------------------


def _fold_values(
    ds: xr.Dataset, metric: str, dim: str, beta: float, zero_division: Any
) -> tuple[xr.DataArray, xr.DataArray]:
    """Per-fold metric values (NaN where a cell is not a fold) and fold test sizes."""
    c = read_counts(ds)
    vals = reduce.aggregate(
        ds, cast(Any, FOLD_METRICS[metric]), None, beta=beta, zero_division=zero_division
    )
    vals = vals.where(c.is_fold)
    n_test = c.n.isel({CLASS: 0}, drop=True)
    _check_pairing(c, dim)
    return vals, n_test


def _check_pairing(c: Any, dim: str) -> None:
    """Refuse unpaired designs: every model must see the same folds (sizes and supports)."""
    size = c.n.isel({CLASS: 0}, drop=True)
    fold = c.is_fold.any(CLASS)
    checks = (
        ("folds (a fold present for one and absent for another)", fold.any(dim) != fold.all(dim)),
        ("test-fold sizes (tp+fp+fn+tn)", size.max(dim) != size.min(dim)),
        ("class supports (tp+fn)", (c.tp + c.fn).max(dim) != (c.tp + c.fn).min(dim)),
    )
    for what, bad in checks:
        if bool(bad.any()):
            raise ValueError(
                f"unpaired design: the {dim}s were not tested on the same folds — their "
                f"{what} differ at {where_text(bad)}. A paired comparison needs every {dim} "
                "fitted on the same splits (cvframe.cross_validate with several models does "
                "that)."
            )


def _obs(da: xr.DataArray) -> xr.DataArray:
    """``da`` with ``repeat`` (added when absent) and ``fold`` stacked into ``_obs``."""
    if REPEAT not in da.dims:
        da = da.expand_dims(REPEAT)
    return da.stack(_obs=(REPEAT, FOLD))


def _fold_test(
    d: xr.DataArray,
    n_test: xr.DataArray,
    test: str,
    alpha: float,
    rope: float,
) -> tuple[dict[str, xr.DataArray], dict[str, Any]]:
    """The fold tests on per-fold differences ``d`` (contrast, [repeat], fold, ...)."""
    from scipy import stats

    if test in ("5x2cv_t", "5x2cv_f"):
        return _five_by_two(d, test, alpha)
    x = _obs(d)
    n = x.notnull().sum("_obs")
    if int(n.min()) < 2:
        raise ValueError(
            f"test={test!r} needs at least two folds per comparison (got {int(n.min())}); "
            "run more folds or repeats."
        )
    mean = x.mean("_obs")
    var = x.var("_obs", ddof=1)
    ratio: Any = 0.0
    info: dict[str, Any] = {"n_folds_used": int(n.max())}
    if test != "t":
        tests = n_test.where(n_test > 0)
        if REPEAT not in tests.dims:
            tests = tests.expand_dims(REPEAT)
        tot = tests.sum(FOLD)
        trains = tot - tests
        ratio_da = tests.sum((REPEAT, FOLD)) / trains.where(tests.notnull()).sum((REPEAT, FOLD))
        ratio = ratio_da
        info["n_test"] = float(tests.mean().item())
        info["n_train"] = float(trains.where(tests.notnull()).mean().item())
        info["test_train_ratio"] = float(ratio_da.mean().item())
    se = np.sqrt((1.0 / n + ratio) * var)
    df = n - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        t = xr.where(se > 0, mean / se, xr.where(mean == 0, 0.0, np.sign(mean) * np.inf))
    q = xr.apply_ufunc(stats.t.ppf, 1 - alpha / 2, df)
    out = {"mean": mean, "low": mean - q * se, "high": mean + q * se, "df": df.astype("float64")}
    if test == "bayesian":
        scale = se

        def cdf(v: float) -> xr.DataArray:
            z = xr.where(scale > 0, (v - mean) / scale, np.sign(v - mean) * np.inf)
            z = xr.where((scale == 0) & (v == mean), 0.0, z)
            return xr.apply_ufunc(stats.t.cdf, z, df)

        left, right = cdf(-rope), cdf(rope)
        out.update(p_left=left, p_rope=right - left, p_right=1.0 - right)
        info["rope"] = rope
        info["interval"] = f"{1 - alpha:.0%} credible interval of the posterior Student t"
    else:
        p = xr.apply_ufunc(lambda tt, dd: 2 * stats.t.sf(np.abs(tt), dd), t, df)
        out.update(statistic=t, p_value=p, significant=p < alpha)
        info["interval"] = (
            f"{1 - alpha:.0%} t interval with the {'corrected ' if test != 't' else ''}variance"
        )
    return out, info


def _five_by_two(
    d: xr.DataArray, test: str, alpha: float
) -> tuple[dict[str, xr.DataArray], dict[str, Any]]:
    """Dietterich's 5x2cv t and Alpaydin's combined F on (contrast, repeat=5, fold=2, ...)."""
    from scipy import stats

    n_rep = d.sizes.get(REPEAT, 1)
    if n_rep != 5 or d.sizes[FOLD] != 2 or bool(d.isnull().any()):
        raise ValueError(
            f"test={test!r} needs 5 repeats of 2-fold cross-validation with every fold present "
            f"(got {n_rep} repeat(s) x {d.sizes[FOLD]} fold(s)); run "
            "cross_validate(..., cv=2, repeats=5) or use test='corrected_t'."
        )
    pbar = d.mean(FOLD)
    s2 = ((d - pbar) ** 2).sum(FOLD)
    mean = d.mean((REPEAT, FOLD))
    if test == "5x2cv_t":
        p11 = d.isel({REPEAT: 0, FOLD: 0}, drop=True)
        se = np.sqrt(s2.mean(REPEAT))
        with np.errstate(divide="ignore", invalid="ignore"):
            t = p11 / se
        p = xr.apply_ufunc(lambda tt: 2 * stats.t.sf(np.abs(tt), 5), t)
        q = stats.t.ppf(1 - alpha / 2, 5)
        out = {
            "mean": mean,
            "low": p11 - q * se,
            "high": p11 + q * se,
            "statistic": t,
            "p_value": p,
            "df": xr.full_like(mean, 5.0),
            "significant": p < alpha,
        }
        interval = f"{1 - alpha:.0%} t interval around the first fold's difference (5 df)"
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            f = (d**2).sum((REPEAT, FOLD)) / (2 * s2.sum(REPEAT))
        p = xr.apply_ufunc(lambda ff: stats.f.sf(ff, 10, 5), f)
        out = {
            "mean": mean,
            "low": xr.full_like(mean, np.nan),
            "high": xr.full_like(mean, np.nan),
            "statistic": f,
            "p_value": p,
            "significant": p < alpha,
        }
        interval = "none (the combined F test defines no interval)"
    return out, {"interval": interval}


# --- the predictions frame --------------------------------------------------------------------


class _Paired:
    """Paired predictions of M models on S samples in R repeats, as numpy arrays."""

    def __init__(self, models: list[Any], y: np.ndarray, fold0: np.ndarray, rows: Any) -> None:
        self.repeats: Any = None  # the repeat coordinate, when the frame has one
        self.models = models
        self.y = y  # (S,) true label codes
        self.fold0 = fold0  # (S,) fold code of every sample in the first repeat
        self.rows = rows  # dict: name -> (M, R, S) arrays


def _read_frame(
    df: pd.DataFrame,
    dim: str,
    metric: str,
    pos_label: Any,
    cols: dict[str, Any],
) -> tuple[_Paired, list[Any], int]:
    """Align the rows of every model by (repeat, sample) and check that the design is paired."""
    for arg in ("y_true", "fold"):
        if cols[arg] not in df.columns:
            raise ValueError(
                f"{arg}={cols[arg]!r} is not a column of the predictions frame (columns "
                f"{few(df.columns, 10)}); pass {arg}= with its name."
            )
    if dim not in df.columns:
        raise ValueError(
            f"dim={dim!r} is not a column of the predictions frame (columns "
            f"{few(df.columns, 10)}); stack the models' frames with a {dim!r} column, as "
            "cvframe.cross_validate with several models does."
        )
    need = cols["score"] if metric == "auc_merge" else cols["y_pred"]
    arg = "score" if metric == "auc_merge" else "y_pred"
    if need not in df.columns:
        raise ValueError(
            f"{arg}={need!r} is not a column of the predictions frame (columns "
            f"{few(df.columns, 10)}); metric={metric!r} needs it."
        )
    mcol = df[dim]
    if isinstance(mcol.dtype, pd.CategoricalDtype):
        models = [m for m in mcol.cat.categories if (mcol == m).any()]
    else:
        models = sorted(pd.unique(mcol), key=lambda v: (str(type(v)), v))
    rep = cols["repeat"]
    has_rep = rep is not None and rep in df.columns
    sample = cols["sample"]
    has_sample = sample is not None and sample in df.columns
    parts = []
    for m in models:
        part = df[(mcol == m).to_numpy()]
        keys = [c for c in ((rep if has_rep else None), (sample if has_sample else None)) if c]
        if keys:
            part = part.sort_values(keys, kind="stable")
        parts.append(part)
    base = parts[0]
    r_codes, r_coord = (
        pd.factorize(base[rep], sort=True) if has_rep else (np.zeros(len(base), np.int64), None)
    )
    n_rep = int(r_codes.max()) + 1
    for m, part in zip(models[1:], parts[1:], strict=True):
        sizes0 = base.groupby([rep, cols["fold"]] if has_rep else cols["fold"]).size()
        sizes1 = part.groupby([rep, cols["fold"]] if has_rep else cols["fold"]).size()
        same = (
            len(part) == len(base)
            and sizes0.index.equals(sizes1.index)
            and (sizes0.to_numpy() == sizes1.to_numpy()).all()
        )
        why = f"fold sizes {few(sizes1.to_numpy())} vs {few(sizes0.to_numpy())}"
        aligned = (rep if has_rep else None, cols["fold"], sample if has_sample else None)
        for c in [k for k in (*aligned, cols["y_true"]) if k is not None] if same else []:
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
    n = len(base)
    if n % n_rep or (np.bincount(r_codes, minlength=n_rep) != n // n_rep).any():
        raise ValueError(
            "the bootstrap, permutation and McNemar tests need every sample tested once per "
            "repeat (k-fold partitions); the repeats of this frame differ in size."
        )
    s_per = n // n_rep
    if has_sample:
        sid = base[sample].to_numpy().reshape(n_rep, s_per)
        if not (sid == sid[:1]).all() or len(np.unique(sid[0])) != s_per:
            raise ValueError(
                f"sample={sample!r}: every repeat must test each sample exactly once (k-fold "
                "partitions) for a resampling test over samples."
            )
    elif n_rep > 1:
        raise ValueError(
            f"sample={sample!r} is not a column of the frame; with several repeats the "
            "resampling tests need the sample id to pair a sample's rows across repeats."
        )
    yt = base[cols["y_true"]].to_numpy()[:s_per]
    fold0 = pd.factorize(base[cols["fold"]].to_numpy()[:s_per], sort=True)[0]
    universe = sorted(
        pd.unique(
            np.concatenate(
                [base[cols["y_true"]].to_numpy()]
                + ([p[cols["y_pred"]].to_numpy() for p in parts] if metric != "auc_merge" else [])
            )
        ),
        key=lambda v: (str(type(v)), v),
    )
    rows: dict[str, np.ndarray] = {}
    if metric in ("accuracy_pooled",):
        y_codes = pd.Index(universe).get_indexer(yt)
        pred = np.stack([p[cols["y_pred"]].to_numpy() for p in parts]).reshape(
            len(models), n_rep, s_per
        )
        truth = np.tile(yt, n_rep).reshape(n_rep, s_per)
        rows["correct"] = pred == truth[None]
        paired = _Paired(models, y_codes, fold0, rows)
        paired.repeats = r_coord
        return paired, universe, n_rep
    pos = _positive(df, pos_label, universe)
    y_pos = _is(yt, pos)
    if metric == "auc_merge":
        rows["score"] = np.stack(
            [p[cols["score"]].to_numpy(dtype=np.float64) for p in parts]
        ).reshape(len(models), n_rep, s_per)
    else:
        flat = np.stack([p[cols["y_pred"]].to_numpy() for p in parts]).reshape(-1)
        pp = _is(flat, pos).reshape(len(models), n_rep, s_per)
        yy = np.broadcast_to(y_pos, pp.shape)
        rows["tp"], rows["fp"], rows["fn"] = pp & yy, pp & ~yy, ~pp & yy
    paired = _Paired(models, y_pos.astype(np.int64), fold0, rows)
    paired.repeats = r_coord
    return paired, [pos], n_rep


def _is(values: np.ndarray, pos: Any) -> np.ndarray:
    """Elementwise ``values == pos`` (vectorised; a string never equals a number)."""
    return np.asarray(pd.Series(values, copy=False).to_numpy() == pos, dtype=bool)


def _same(a: Any, b: Any) -> bool:
    return isinstance(a, str) == isinstance(b, str) and bool(a == b)


def _positive(df: pd.DataFrame, pos_label: Any, universe: list[Any]) -> Any:
    if pos_label is not None:
        hit = [u for u in universe if _same(_labels.plain(u), pos_label)]
        if not hit:
            raise ValueError(
                f"pos_label={pos_label!r} is not among the labels {few(universe)}; pass one."
            )
        return hit[0]
    if df.attrs.get("task") == "binary" and "pos_label" in df.attrs:
        return _labels.from_attr(df.attrs["pos_label"], universe)
    pos = _labels.binary_pos([_labels.plain(u) for u in universe], True, None)
    if pos is None:
        raise ValueError(
            f"y_true has {len(universe)} labels {few(universe)}: pass pos_label= to compare "
            "one class against the rest, or metric='accuracy_pooled'."
        )
    return pos


def _metric_from_counts(
    tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, metric: str, beta: float
) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        if metric == "precision_tp_fp":
            num, den = tp, tp + fp
        elif metric == "recall_tp_fp":
            num, den = tp, tp + fn
        else:
            b2 = beta * beta
            num, den = (1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp
        return np.where(den > 0, num / np.where(den > 0, den, 1), 0.0)


def _auc(scores_: np.ndarray, y: np.ndarray) -> np.ndarray:
    """AUC of every row of ``scores_`` (..., S) with labels ``y`` (..., S) (midranks)."""
    from scipy import stats

    ranks = stats.rankdata(scores_, axis=-1)
    npos = y.sum(-1)
    nneg = y.shape[-1] - npos
    with np.errstate(divide="ignore", invalid="ignore"):
        return (np.sum(ranks * y, -1) - npos * (npos + 1) / 2) / (npos * nneg)


def _pooled_values(
    pr: _Paired, metric: str, beta: float, w: np.ndarray | None = None, idx: Any = None
) -> np.ndarray:
    """The pooled metric of every model and repeat: (M, R), or (B, M, R) under weights ``w``."""
    if metric == "accuracy_pooled":
        c = pr.rows["correct"].astype(np.float64)
        if w is None:
            return c.mean(-1)
        return np.tensordot(w, c, axes=([1], [2])) / w.sum(1)[:, None, None]
    if metric == "auc_merge":
        s = pr.rows["score"]
        if idx is None:
            return _auc(s, np.broadcast_to(pr.y, s.shape))
        yb = pr.y[idx]
        out = np.empty((idx.shape[0],) + s.shape[:2])
        for m in range(s.shape[0]):
            for r in range(s.shape[1]):
                out[:, m, r] = _auc(s[m, r][idx], yb)
        return out
    cnt = {}
    for k in ("tp", "fp", "fn"):
        a = pr.rows[k].astype(np.float64)
        cnt[k] = a.sum(-1) if w is None else np.tensordot(w, a, axes=([1], [2]))
    return _metric_from_counts(cnt["tp"], cnt["fp"], cnt["fn"], metric, beta)


def _draw(pr: _Paired, n_resamples: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap indices (B, S) drawn within strata fold x class, and their counts per sample."""
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
    w = np.bincount(flat, minlength=n_resamples * s).reshape(n_resamples, s).astype(np.float64)
    return idx, w


def _frame_test(
    pr: _Paired,
    test: str,
    metric: str,
    ia: list[int],
    ib: list[int],
    alpha: float,
    beta: float,
    n_resamples: int,
    rng: np.random.Generator,
) -> dict[str, np.ndarray]:
    """McNemar, bootstrap or permutation on the paired predictions; arrays over contrasts."""
    from scipy import stats

    obs = _pooled_values(pr, metric, beta)  # (M, R)
    diff = obs[ia] - obs[ib]  # (C, R)
    mean = diff.mean(-1)
    c_n = len(ia)
    out: dict[str, np.ndarray] = {"difference": diff, "mean": mean}
    if test == "mcnemar":
        corr = pr.rows["correct"][:, 0]  # one repeat: (M, S)
        only_a = (corr[ia] & ~corr[ib]).sum(-1)  # model right, baseline wrong
        only_b = (~corr[ia] & corr[ib]).sum(-1)
        n_dis = only_a + only_b
        p_exact = np.array(
            [
                stats.binomtest(int(x), int(k), 0.5).pvalue if k else 1.0
                for x, k in zip(only_a, n_dis, strict=True)
            ]
        )
        with np.errstate(divide="ignore", invalid="ignore"):
            chi2 = np.where(
                n_dis > 0, (np.abs(only_a - only_b) - 1.0) ** 2 / np.maximum(n_dis, 1), 0.0
            )
        s = corr.shape[-1]
        se = np.sqrt(np.maximum(n_dis - (only_a - only_b) ** 2 / s, 0.0)) / s
        z = stats.norm.ppf(1 - alpha / 2)
        out.update(
            n_model_only=only_a,
            n_baseline_only=only_b,
            statistic=chi2,
            p_value=p_exact,
            p_value_chi2=stats.chi2.sf(chi2, 1),
            low=mean - z * se,
            high=mean + z * se,
        )
        return out
    if test == "bootstrap":
        idx, w = _draw(pr, n_resamples, rng)
        star = _pooled_values(pr, metric, beta, w=w, idx=idx)  # (B, M, R)
        dstar = (star[:, ia] - star[:, ib]).mean(-1)  # (B, C)
        extreme = np.abs(dstar - mean) >= np.abs(mean) - 1e-12
        p = (1 + extreme.sum(0)) / (n_resamples + 1)
        low, high = np.quantile(dstar, [alpha / 2, 1 - alpha / 2], axis=0)
        out.update(statistic=mean, p_value=p, low=low, high=high)
        return out
    # permutation: swap the two models' predictions of a sample with probability 1/2
    p = np.empty(c_n)
    low, high = np.full(c_n, np.nan), np.full(c_n, np.nan)
    s = len(pr.y)
    for c in range(c_n):
        swap = rng.random((n_resamples, s)) < 0.5
        a, b = ia[c], ib[c]
        if metric == "auc_merge":
            sc = pr.rows["score"]
            da = np.empty((n_resamples, sc.shape[1]))
            for r in range(sc.shape[1]):
                xa = np.where(swap, sc[b, r], sc[a, r])
                xb = np.where(swap, sc[a, r], sc[b, r])
                yb = np.broadcast_to(pr.y, xa.shape)
                da[:, r] = _auc(xa, yb) - _auc(xb, yb)
        elif metric == "accuracy_pooled":
            ca = pr.rows["correct"][a].astype(np.float64)  # (R, S)
            cb = pr.rows["correct"][b].astype(np.float64)
            delta = swap.astype(np.float64) @ (cb - ca).T  # (B, R)
            da = ((ca.sum(-1) + delta) - (cb.sum(-1) - delta)) / s
        else:
            sw = swap.astype(np.float64)
            va, vb = {}, {}
            for k in ("tp", "fp", "fn"):
                ka = pr.rows[k][a].astype(np.float64)
                kb = pr.rows[k][b].astype(np.float64)
                delta = sw @ (kb - ka).T  # (B, R)
                va[k], vb[k] = ka.sum(-1) + delta, kb.sum(-1) - delta
            da = _metric_from_counts(va["tp"], va["fp"], va["fn"], metric, beta) - (
                _metric_from_counts(vb["tp"], vb["fp"], vb["fn"], metric, beta)
            )
        dstar = da.mean(-1)
        p[c] = (1 + (np.abs(dstar) >= np.abs(mean[c]) - 1e-12).sum()) / (n_resamples + 1)
    out.update(statistic=mean, p_value=p, low=low, high=high)
    return out


# --- Friedman across data sets ---------------------------------------------------------------


def _dataset_scores(
    data: Any, metric: str, dim: str, beta: float, zero_division: Any, frame_kw: dict
) -> xr.DataArray:
    """One score per model and data set (and kept dims such as class): mean over repeats."""
    if isinstance(data, pd.DataFrame):
        if metric == "auc_merge" or metric in ("auc", "auc_avg"):
            method = "merge" if metric == "auc_merge" else "avg"
            val = scores.auc(
                data,
                method,
                pos_label=frame_kw["pos_label"],
                y_true=frame_kw["y_true"],
                fold=frame_kw["fold"],
                repeat=frame_kw["repeat"],
                score=frame_kw["score"],
            )
            return val.mean(REPEAT) if REPEAT in val.dims else val
        data = _frame_cube(data, dim, frame_kw)
    if metric in ("auc_merge", "auc", "auc_avg"):
        raise ValueError(
            f"metric={metric!r} needs scores: pass the predictions frame, not the counts cube."
        )
    if metric == "accuracy_pooled":
        val = reduce.accuracy(data, "pooled", zero_division=zero_division)
    elif metric in POOLED_METRICS:
        val = reduce.aggregate(
            data, cast(Any, metric.split("_")[0]), "tp_fp", beta=beta, zero_division=zero_division
        )
    elif FOLD_METRICS[metric] == "accuracy":
        val = reduce.accuracy(data, "avg", zero_division=zero_division)
    else:
        val = reduce.aggregate(
            data, cast(Any, FOLD_METRICS[metric]), "avg", beta=beta, zero_division=zero_division
        )
    return val.mean(REPEAT) if REPEAT in val.dims else val


def _friedman(
    score: xr.DataArray, dim: str, ia: list[int], ib: list[int], baseline: Any, alpha: float
) -> tuple[dict[str, xr.DataArray], dict[str, Any]]:
    r"""Friedman's test over ``dataset``, Nemenyi/Holm post-hoc and the critical difference."""
    from scipy import stats

    if "dataset" not in score.dims or score.sizes["dataset"] < 2:
        raise ValueError(
            f"test='friedman' compares {dim}s across data sets and needs a 'dataset' dim with "
            f"at least two data sets (got {score.sizes.get('dataset', 0)}); for one data set "
            "use test='corrected_t' (per-fold values) or 'bootstrap' (pooled metrics)."
        )
    if bool(score.isnull().any()):
        raise ValueError("test='friedman' needs a score for every model and data set (got NaN).")
    k, n = score.sizes[dim], score.sizes["dataset"]
    ranks = xr.apply_ufunc(
        lambda a: stats.rankdata(-a, axis=-1),
        score,
        input_core_dims=[[dim]],
        output_core_dims=[[dim]],
    ).transpose(*score.dims)
    mean_rank = ranks.mean("dataset")

    def ties(a: np.ndarray) -> np.ndarray:
        srt = np.sort(a, axis=-1)
        out = np.zeros(a.shape[:-1])
        for idx in np.ndindex(*a.shape[:-1]):
            _, cnt = np.unique(srt[idx], return_counts=True)
            out[idx] = (cnt**3 - cnt).sum()
        return out

    tie = xr.apply_ufunc(ties, ranks, input_core_dims=[[dim]]).sum("dataset")
    corr = 1 - tie / (n * k * (k * k - 1))
    chi2 = (12 * n / (k * (k + 1)) * ((mean_rank**2).sum(dim) - k * (k + 1) ** 2 / 4)) / corr
    p = xr.apply_ufunc(lambda x: stats.chi2.sf(x, k - 1), chi2)
    with np.errstate(divide="ignore", invalid="ignore"):
        ff = (n - 1) * chi2 / (n * (k - 1) - chi2)
    p_ff = xr.apply_ufunc(lambda x: stats.f.sf(x, k - 1, (k - 1) * (n - 1)), ff)
    se = math.sqrt(k * (k + 1) / (6 * n))
    q = float(stats.studentized_range.ppf(1 - alpha, k, np.inf)) / math.sqrt(2)
    cd = q * se
    rank_diff = _diff(-mean_rank, dim, ia, ib)  # > 0: the model ranks better than the baseline
    z = rank_diff / se
    if baseline is None:
        p_pair = xr.apply_ufunc(
            lambda zz: stats.studentized_range.sf(np.abs(zz) * math.sqrt(2), k, np.inf), z
        )
        post = "nemenyi"
        sig = np.abs(rank_diff) > cd
    else:
        raw = xr.apply_ufunc(lambda zz: 2 * stats.norm.sf(np.abs(zz)), z)
        p_pair = xr.apply_ufunc(
            _holm, raw, input_core_dims=[["contrast"]], output_core_dims=[["contrast"]]
        ).transpose(*raw.dims)
        post = "holm"
        sig = p_pair < alpha
    diff = _diff(score, dim, ia, ib)
    out = {
        "difference": diff,
        "mean": diff.mean("dataset"),
        "rank": mean_rank,
        "rank_difference": rank_diff,
        "low": rank_diff - cd,
        "high": rank_diff + cd,
        "statistic": z,
        "p_value": p_pair,
        "significant": sig,
        "friedman_statistic": chi2,
        "friedman_p_value": p,
        "iman_davenport_statistic": ff,
        "iman_davenport_p_value": p_ff,
        "critical_difference": xr.DataArray(cd),
    }
    info = {
        "posthoc": post,
        "n_datasets": n,
        "interval": "rank difference +/- the Nemenyi critical difference",
        "p_value": "Nemenyi (all pairs)" if baseline is None else "Holm-adjusted z (vs baseline)",
    }
    return out, info


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values along the last axis."""
    order = np.argsort(p, axis=-1)
    m = p.shape[-1]
    srt = np.take_along_axis(p, order, -1) * (m - np.arange(m))
    adj = np.minimum(np.maximum.accumulate(srt, axis=-1), 1.0)
    out = np.empty_like(adj)
    np.put_along_axis(out, order, adj, -1)
    return out


# --- the entry point -------------------------------------------------------------------------


def _frame_cube(df: pd.DataFrame, dim: str, kw: dict) -> xr.Dataset:
    if not isinstance(df, pd.DataFrame) or dim not in df.columns:
        raise ValueError(
            f"dim={dim!r} is not a column of the predictions frame; stack the models' frames "
            f"with a {dim!r} column."
        )
    dims = [dim] + [d for d in build.FRAME_DIMS if d in df.columns and d != dim]
    return build.counts_from_frame(
        df,
        pos_label=kw["pos_label"],
        y_true=kw["y_true"],
        y_pred=kw["y_pred"],
        fold=kw["fold"],
        repeat=kw["repeat"],
        dims=dims,
    )


def compare(
    data: xr.Dataset | pd.DataFrame,
    metric: str = "f_tp_fp",
    *,
    baseline: Hashable | None = None,
    dim: str = "model",
    test: str = "auto",
    alpha: float = 0.05,
    n_resamples: int = 2000,
    random_state: int | None = None,
    rope: float = 0.01,
    beta: float = 1.0,
    zero_division: Any = "warn",
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    y_pred: str = "y_pred",
    score: str = "score",
    fold: str = "fold",
    repeat: str | None = "repeat",
    sample: str | None = "sample",
) -> xr.Dataset:
    r"""Paired comparison of models tested on the same folds: difference, interval, p-value.

    For every ``dim`` entry (model) against ``baseline`` — or every pair when ``baseline``
    is None — the paired difference ``model - baseline`` of ``metric``: per repeat, its
    mean, a ``1 - alpha`` interval and a two-sided p-value of the chosen test.

    **Which test for which data** (``test="auto"`` picks the first that applies and says so
    in ``attrs["test"]``):

    - per-fold metrics (``"f"``, ``"accuracy"``, ``"precision"``, ``"recall"``,
      ``"specificity"`` and their ``"_avg"`` names, which average them) on a cube or a frame:
      ``"corrected_t"``, the corrected repeated k-fold t-test (Nadeau & Bengio 2003,
      Bouckaert & Frank 2004; WEKA's ``PairedCorrectedTTester``). With per-fold differences
      :math:`d_{ij}` over :math:`n = k r` folds,

      .. math::

          t = \frac{\bar d}{\sqrt{(1/n + n_{test}/n_{train})\, \hat\sigma^2_d}},
          \qquad \nu = n - 1,

      with :math:`n_{test}/n_{train}` read from the cube: the summed test-fold sizes
      :math:`tp+fp+fn+tn` over the summed training sizes (repeat total minus the fold), as
      WEKA reads them. ``"bayesian"`` (Benavoli et al. 2017): the posterior of the mean
      difference is Student t with the same location, scale and :math:`\nu`; attrs give
      :math:`P(<-rope)`, :math:`P(|\mu| \le rope)`, :math:`P(>rope)`. ``"5x2cv_t"``
      (Dietterich 1998): :math:`t = p_1^{(1)} / \sqrt{\tfrac15 \sum_i s_i^2}` on 5 df;
      ``"5x2cv_f"`` (Alpaydin 1999):
      :math:`f = \sum_{i,j} (p_i^{(j)})^2 / (2 \sum_i s_i^2)` on (10, 5) df — both need
      5 repeats of 2 folds. ``"t"`` is the uncorrected paired t over folds; it warns
      (its type I error is far above ``alpha``, Dietterich 1998).
    - pooled metrics (``"f_tp_fp"``, ``"precision_tp_fp"``, ``"recall_tp_fp"``,
      ``"accuracy_pooled"``, ``"auc_merge"``) have no per-fold values, so they need the
      predictions frame: ``"bootstrap"`` resamples the samples within strata fold (of the
      first repeat) x true class, the same draw for both models and every repeat; the
      p-value is :math:`(1 + \#\{|D^* - \hat D| \ge |\hat D|\})/(B + 1)` and the interval
      the percentile interval of :math:`D^*`. ``"permutation"`` swaps the two models'
      predictions of each sample with probability 1/2;
      :math:`p = (1 + \#\{|D^*| \ge |\hat D|\})/(B+1)` (no interval). ``"mcnemar"``
      (pooled accuracy of one CV run): the exact binomial test of the discordant pairs
      ``p_value`` (``p_value_chi2`` and ``statistic``: the chi-square with continuity
      correction :math:`(|b-c|-1)^2/(b+c)`); interval: Wald interval of the paired
      difference. ``"auto"`` picks McNemar for ``"accuracy_pooled"`` on one repeat, else
      the bootstrap. A pooled metric on a cube is refused (pass the frame, or choose the
      per-fold ``metric="f"``).
    - ``"friedman"``, across a ``dataset`` dim (Demšar 2006): one score per model and data
      set (the metric, mean over repeats), ranked per data set (1 = best);
      :math:`\chi^2_F = \frac{12N}{k(k+1)}\left[\sum_j R_j^2 - \frac{k(k+1)^2}{4}\right]`
      (divided by the tie correction, as :func:`scipy.stats.friedmanchisquare`) and
      Iman-Davenport's :math:`F_F`; post-hoc Nemenyi for all pairs, Holm against a
      ``baseline``; the critical difference
      :math:`CD = q_\alpha \sqrt{k(k+1)/(6N)}`.

    Parameters
    ----------
    data : xarray.Dataset or pandas.DataFrame
        The counts cube with a ``dim`` dimension, or the predictions frame with a ``dim``
        column (one row per model and tested sample).
    metric : str, default "f_tp_fp"
        One of :data:`FOLD_METRICS`, :data:`POOLED_METRICS`, or ``"auc"``/``"auc_avg"``
        (per-fold AUC, frame and ``test="friedman"`` only).
    baseline : label, optional
        The ``dim`` entry every other one is compared with; None compares all pairs.
    dim : str, default "model"
        The dimension (or frame column) holding the compared models.
    test : str, default "auto"
        One of :data:`TESTS`.
    alpha : float, default 0.05
        Level of the intervals (``1 - alpha``) and of ``significant``.
    n_resamples : int, default 2000
        Resamples of ``"bootstrap"`` and ``"permutation"``.
    random_state : int, optional
        Seed of the resampling tests (written to attrs).
    rope : float, default 0.01
        Half-width of the region of practical equivalence (``"bayesian"``).
    beta : float, default 1
        Weight of recall in F.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default "warn"
        Value of per-fold metrics where they are undefined (see :func:`reduce.aggregate`).
    pos_label : label, optional
        Positive class of the frame (binary default as in ``df.cv.counts()``).
    y_true, y_pred, score, fold, repeat, sample : str
        Column names of the predictions frame; ``sample`` pairs a sample's rows across
        repeats (needed with several repeats by the resampling tests).

    Returns
    -------
    xarray.Dataset
        Over ``contrast`` (labels ``"a - b"``, with coordinates ``dim`` and ``baseline``)
        and every kept dim (``class``, ``dataset``, ...): ``difference`` (per repeat, or per
        data set for Friedman), ``mean``, ``low``, ``high``, ``statistic``, ``p_value``,
        ``significant`` and the test's own variables. ``attrs``: ``test``, ``metric``,
        ``alpha``, ``assumes``, ``reference``, ``interval``, and where they apply
        ``n_test``/``n_train``, ``n_resamples``, ``random_state``.

    Raises
    ------
    ValueError
        Unknown ``metric``/``test``, ``baseline`` not in ``dim``, an unpaired design
        (models tested on different folds: fold sizes, supports or sample ids differ), a
        design the test cannot use (5x2cv without 5 x 2 folds, McNemar on several repeats,
        Friedman without two data sets), a pooled metric on a cube.

    References
    ----------
    Nadeau & Bengio (2003); Bouckaert & Frank (2004); Dietterich (1998); Alpaydin (1999);
    McNemar (1947); Efron & Tibshirani (1993); Demšar (2006); Benavoli et al. (2017).

    Examples
    --------
    >>> import numpy as np, pandas as pd, xarray as xr, cvframe
    >>> from cvframe.compare import compare
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200); fold = np.arange(200) % 10
    >>> cubes = [cvframe.from_predictions(y, np.where(rng.random(200) < acc, y, 1 - y), fold)
    ...          for acc in (0.7, 0.9)]
    >>> ds = xr.concat(cubes, dim=pd.Index(["weak", "strong"], name="model"))
    >>> res = compare(ds, "f", baseline="weak")
    >>> res.attrs["test"], res["contrast"].values.tolist()
    ('corrected_t', ['strong - weak'])
    >>> bool(res["mean"].item() > 0), bool(res["p_value"].item() < 0.05)
    (True, True)
    """
    metric = _metric(metric)
    test = _checks.choice("test", test, TESTS)
    alpha = _checks.real("alpha", alpha, 0, 1, low_open=True, high_open=True)
    n_res = _checks.integer("n_resamples", n_resamples, low=100)
    rope = _checks.real("rope", rope, 0)
    b = _checks.beta(beta)
    _checks.zero_division(zero_division)
    if random_state is not None:
        random_state = _checks.integer("random_state", random_state, low=0)
    if not isinstance(dim, str):
        raise TypeError(f"dim={dim!r} must be the name of the models' dimension, e.g. 'model'.")
    frame_kw = dict(
        pos_label=pos_label,
        y_true=y_true,
        y_pred=y_pred,
        score=score,
        fold=fold,
        repeat=repeat,
        sample=sample,
    )
    is_frame = isinstance(data, pd.DataFrame)
    if not is_frame and not isinstance(data, xr.Dataset):
        raise TypeError(
            f"data must be a counts cube (xarray.Dataset) or a predictions frame "
            f"(pandas.DataFrame), got {type(data).__name__}."
        )
    if is_frame:
        n_rep = data[repeat].nunique() if repeat is not None and repeat in data.columns else 1
    else:
        n_rep = data.sizes.get(REPEAT, 1)
    chosen = _choose(data, metric, test, n_rep)

    if chosen == "friedman":
        sc = _dataset_scores(data, metric, dim, b, zero_division, frame_kw)
        if dim not in sc.dims:
            raise ValueError(f"dim={dim!r} is not a dimension of the data (dims {sc.dims}).")
        models = list(sc[dim].values)
        ia, ib = _pairs(models, baseline, dim)
        out, f_info = _friedman(sc, dim, ia, ib, baseline, alpha)
        return _result(out, models, ia, ib, dim, chosen, metric, alpha, baseline, f_info)

    if chosen in _FRAME_TESTS:
        if metric not in POOLED_METRICS:
            raise ValueError(
                f"test={chosen!r} tests a pooled metric on resampled predictions; "
                f"metric={metric!r} is per-fold: use one of {list(POOLED_METRICS)} or "
                "test='corrected_t'."
            )
        if chosen == "mcnemar" and metric != "accuracy_pooled":
            raise ValueError(
                f"test='mcnemar' compares accuracies; metric={metric!r} is not "
                "'accuracy_pooled'. Use test='bootstrap' or 'permutation' for it."
            )
        if not is_frame:
            raise ValueError(
                f"test={chosen!r} resamples the tested samples and needs the predictions frame "
                "(one row per model and sample), not the counts cube: pass "
                "cross_validate's frame as data."
            )
        if "dataset" in data.columns:
            raise ValueError(
                "the frame has a 'dataset' column; compare one data set at a time with "
                "data[data.dataset == name], or use test='friedman' across data sets."
            )
        pr, labels, n_rep = _read_frame(data, dim, metric, pos_label, frame_kw)
        if chosen == "mcnemar" and n_rep != 1:
            raise ValueError(
                f"test='mcnemar' needs one CV run (one repeat), got {n_rep} repeats; select "
                "one repeat or use test='bootstrap'."
            )
        ia, ib = _pairs(pr.models, baseline, dim)
        rng = np.random.default_rng(random_state)
        res = _frame_test(pr, chosen, metric, ia, ib, alpha, b, n_res, rng)
        out = {
            k: xr.DataArray(v, dims=("contrast", REPEAT) if v.ndim == 2 else ("contrast",))
            for k, v in res.items()
        }
        if pr.repeats is not None:
            out = {
                k: v.assign_coords({REPEAT: np.asarray(pr.repeats)}) if REPEAT in v.dims else v
                for k, v in out.items()
            }
        if "p_value" in out:
            out["significant"] = out["p_value"] < alpha
        info: dict[str, Any] = {"n_samples": len(pr.y), "n_repeats": n_rep}
        if chosen != "mcnemar":
            info.update(n_resamples=n_res, random_state=random_state)
            info["interval"] = (
                f"{1 - alpha:.0%} percentile bootstrap interval"
                if chosen == "bootstrap"
                else "none (a permutation test defines no interval)"
            )
            info["p_value"] = "two-sided, (1 + extreme) / (n_resamples + 1)"
        else:
            info["interval"] = f"{1 - alpha:.0%} Wald interval of the paired difference"
            info["p_value"] = (
                "exact binomial (two-sided); p_value_chi2: chi-square with continuity correction"
            )
        if metric != "accuracy_pooled":
            info["pos_label"] = _labels.to_attr(labels[0])
        return _result(out, pr.models, ia, ib, dim, chosen, metric, alpha, baseline, info)

    # fold tests
    if metric in POOLED_METRICS:
        raise ValueError(
            f"metric={metric!r} is pooled over the folds and has no per-fold values for "
            f"test={chosen!r}: pass the predictions frame (data=frame, test='bootstrap' or "
            "'permutation'), or compare per-fold F with metric='f' (test='corrected_t')."
        )
    if metric in ("auc", "auc_avg"):
        raise ValueError(
            f"metric={metric!r} is tested across data sets only (test='friedman'); for the "
            "fold tests use a per-fold counts metric or metric='auc_merge' on the frame."
        )
    ds = _frame_cube(data, dim, frame_kw) if is_frame else data
    reduce.fold_dims(ds, "fold")
    if dim not in ds.dims:
        raise ValueError(
            f"dim={dim!r} is not a dimension of the cube (dims {tuple(ds.dims)}); stack the "
            f"models with xr.concat(..., dim=pd.Index(names, name={dim!r}))."
        )
    models = list(ds[dim].values)
    ia, ib = _pairs(models, baseline, dim)
    vals, n_test = _fold_values(ds, metric, dim, b, zero_division)
    if chosen == "t":
        warnings.warn(
            "test='t' is the uncorrected paired t-test over folds: the folds share training "
            "data, so its type I error is far above alpha (Dietterich 1998). Use "
            "test='corrected_t'.",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
    d = _diff(vals, dim, ia, ib)
    nt = n_test.isel({dim: 0}, drop=True)
    out, info = _fold_test(d, nt, chosen, alpha, rope)
    per_rep = d.mean(FOLD) if REPEAT in d.dims else d.mean(FOLD).expand_dims(REPEAT)
    out["difference"] = per_rep
    info.update(n_folds=ds.sizes[FOLD], n_repeats=ds.sizes.get(REPEAT, 1))
    return _result(out, models, ia, ib, dim, chosen, metric, alpha, baseline, info)


def _result(
    out: dict[str, xr.DataArray],
    models: list[Any],
    ia: list[int],
    ib: list[int],
    dim: str,
    test: str,
    metric: str,
    alpha: float,
    baseline: Any,
    info: dict[str, Any],
) -> xr.Dataset:
    order = [
        "difference",
        "mean",
        "low",
        "high",
        "statistic",
        "df",
        "p_value",
        "significant",
    ]
    names = [k for k in order if k in out] + [k for k in out if k not in order]
    res = xr.Dataset({k: out[k] for k in names})
    res = res.assign_coords(_contrast_coords(models, ia, ib, dim))
    res.attrs = _attrs(test, metric, alpha, dim, baseline, **info)
    # a difference says so wherever it goes (summary() copies these as result_*)
    for name in ("difference", "mean", "low", "high"):
        if name in res:
            res[name].attrs = {
                "method": "difference",
                "metric": metric,
                "difference": res.attrs["difference"],
                "test": test,
            }
    return res
