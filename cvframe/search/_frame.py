"""What a search builds and reports: the predictions frame (one row per candidate and tested
sample), the ``param`` coordinates of its cube, its scores as (param, repeat[, fold]), its
metric warnings as one, and ``cv_results_`` in scikit-learn's format."""

from __future__ import annotations

import contextlib
import numbers
import time
import warnings
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import xarray as xr

from .. import metrics
from .._core import labels as _labels
from ..errors import UndefinedMetricWarning, few, user_stacklevel
from ..runner import Target, align_scores, fit_predict, param_label
from ..schema import CLASS, FOLD, REPEAT
from ..splits import n_samples

#: Name of the candidate dimension of ``cube_`` and of the column of ``predictions_``.
PARAM = "param"
#: Scorings of a multilabel ``y`` with one value whatever the labels, from the per-sample
#: sums of the cube (:mod:`cvframe.reduce.multilabel`): name -> metric (the Hamming loss
#: negated, so that higher is better); a view of :data:`cvframe.metrics.REGISTRY`.
MULTILABEL_SCORINGS = {metrics.scoring_name(m): m for m in metrics.names("sample")}
#: Class averages a search takes (``"samples"``: the sample-based form of a multilabel metric).
AVERAGES = (*metrics.AVERAGES, "samples")


class Scoring(NamedTuple):
    """A scoring resolved: the registry metric, the name ``scoring_`` records, the class
    average, and the sign that makes higher better (-1 for a lower-is-better metric)."""

    metric: str
    name: str
    average: str | None
    sign: float

    @property
    def entry(self) -> metrics.Metric:
        return metrics.REGISTRY[self.metric]


def _sample_form(metric: str, scoring: Any) -> str:
    """The sample-based metric of a count metric (``average="samples"``): ``f`` ->
    ``f_samples``, named so in the registry."""
    name = f"{metric}_samples"
    if name not in metrics.by_kind("sample"):
        have = [m for m in metrics.names("count") if f"{m}_samples" in metrics.REGISTRY]
        raise ValueError(
            f"average='samples' is defined here for "
            f"{' and '.join(metrics.display(m) for m in have)} ({few(have)}), not for "
            f"scoring={scoring!r}: the cube keeps each sample's {few(have)} only. Pass "
            "average='macro', 'micro' or 'weighted'."
        )
    return name


def _lookup(name: str, multilabel: bool) -> tuple[metrics.Resolved, str | None]:
    """A scoring name as a registry metric and the average its suffix asks for (a name
    ending in ``_samples``: the sample-based form)."""
    try:
        return metrics.resolve(name, multilabel=multilabel, argument="scoring"), None
    except ValueError:
        stem, _, suffix = name.rpartition("_")
        if suffix == "samples" and stem:
            with contextlib.suppress(ValueError):
                return metrics.resolve(stem, argument="scoring"), suffix
        metrics.scorer_metric(name, multilabel)  # raises, listing scikit-learn's names
        raise


def scoring(name: Any, average: str | None, multilabel: bool) -> Scoring:
    """The metric a scoring name ranks by (any spelling of the registry: a scikit-learn
    scorer name, a pooled name; a lower-is-better metric is ranked negated, as its ``neg_``
    name says), its average and sign, checked against ``average`` and the kind of ``y``."""
    if not isinstance(name, str):
        metrics.scorer_metric(name, multilabel)  # raises for a non-name
    r, asked = _lookup(name, multilabel)
    entry = r.entry
    if r.variant not in (None, entry.pooled):
        raise ValueError(
            f"scoring={name!r} asks for {metrics.display(r.metric, r.variant)}; a search "
            f"ranks by the pooled out-of-fold metric: pass {metrics.scoring_name(r.metric)!r}."
        )
    suffix = asked or r.average or ("samples" if entry.kind == "sample" else None)
    if suffix is not None and average not in (None, suffix):
        raise ValueError(
            f"scoring={name!r} asks for average={suffix!r} but average={average!r} is given; "
            "drop one of them."
        )
    average = average or suffix
    metric = r.metric
    if entry.kind == "sample" or average == "samples":
        if not multilabel:
            raise ValueError(
                f"scoring={name!r}, average={average!r} score a multilabel y (a 0/1 indicator "
                "matrix, one column per label); y is 1-D."
            )
        metric = metric if entry.kind == "sample" else _sample_form(metric, name)
        average = None
    elif multilabel and (entry.kind != "count" or entry.scope != "class"):
        per_label = [m for m in metrics.names("count") if metrics.REGISTRY[m].scope == "class"]
        raise ValueError(
            f"scoring={name!r} ({metrics.display(metric)}) is not defined for a multilabel y "
            f"here; pass one of {', '.join(map(repr, MULTILABEL_SCORINGS))}, or "
            f"{few([metrics.scoring_name(m) for m in per_label])} with average='macro', "
            "'micro' or 'weighted' (e.g. 'f1_micro')."
        )
    entry = metrics.REGISTRY[metric]
    if average is not None and entry.scope == "class" and average not in entry.averages:
        raise ValueError(
            f"average={average!r} is not defined for scoring={name!r}; pass one of "
            f"{few([a for a in entry.averages if a is not None])}."
        )
    sign = 1.0 if entry.higher_is_better else -1.0
    return Scoring(metric, metrics.scoring_name(metric), average, sign)


def short(value: Any) -> str:
    if hasattr(value, "get_params") and not isinstance(value, type):
        return f"{type(value).__name__}()"
    if callable(value):
        return getattr(value, "__name__", type(value).__name__)
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)


def param_labels(all_params: Sequence[Mapping[str, Any]]) -> list[str]:
    """One unique label per candidate, as :func:`cvframe.runner.param_label` writes them."""
    labels = [param_label(p) for p in all_params]
    seen: dict[str, int] = {}
    out = []
    for lab in labels:
        seen[lab] = seen.get(lab, 0) + 1
        out.append(lab if labels.count(lab) == 1 else f"{lab} #{seen[lab]}")
    return out


def param_coords(all_params: Sequence[Mapping[str, Any]]) -> dict[str, tuple[str, np.ndarray]]:
    """``param_<name>`` coordinates: numbers stay numbers, anything else its readable text."""
    coords = {}
    for key in dict.fromkeys(k for p in all_params for k in p):
        values = [p.get(key) for p in all_params]
        if all(isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) for v in values):
            arr = np.array(values, dtype=float)
        else:
            arr = np.array([short(p[key]) if key in p else "" for p in all_params], dtype=object)
        coords[f"param_{key}"] = (PARAM, arr)
    return coords


class Design(NamedTuple):
    """What every candidate of one search shares: the splits and the labels."""

    splits: list[tuple[np.ndarray, np.ndarray]]
    n_rep: int
    y: np.ndarray
    universe: list[Hashable]
    pos: Hashable | None
    task: str
    method: str | None
    stratified: bool = False


def predictions(
    names: list[str], all_out: list[list[dict[str, Any]]], d: Design, subset: str = "test"
) -> pd.DataFrame:
    """The out-of-fold predictions of every candidate, one row per (candidate, tested sample);
    with ``subset="train"`` the predictions of every training set (``return_train_score``)."""
    splits, y, universe, pos, method = d.splits, d.y, d.universe, d.pos, d.method
    k = len(splits) // d.n_rep
    rows = [te if subset == "test" else tr for tr, te in splits]
    sizes = np.array([idx.size for idx in rows])
    test = np.concatenate(rows)
    rep = np.repeat(np.arange(len(splits)) // k, sizes)
    fold = np.repeat(np.arange(len(splits)) % k, sizes)
    n_c = len(names)
    cols: dict[str, Any] = {
        PARAM: pd.Categorical.from_codes(np.repeat(np.arange(n_c), test.size), categories=names),
        REPEAT: np.tile(rep, n_c),
        FOLD: np.tile(fold, n_c),
        "sample": np.tile(test, n_c).astype(np.int64),
    }
    pred = np.concatenate([np.asarray(o[subset][0]) for row in all_out for o in row])
    if d.task == "multilabel":  # one 0/1 column per label, as cross_validate writes them
        truth = np.tile(y[test], (n_c, 1))
        cols.update({f"y_true_{c}": truth[:, j] for j, c in enumerate(universe)})
        cols.update({f"y_pred_{c}": pred[:, j].astype(np.int64) for j, c in enumerate(universe)})
    else:
        cols.update(y_true=np.tile(y[test], n_c), y_pred=pred)
    if method is not None:
        wanted = [pos] if pos is not None else universe
        fits = [o for row in all_out for o in row]
        s = np.concatenate(
            [
                align_scores(o[subset][1], o["classes"], wanted, o.get("method", method))[0]
                for o in fits
            ]
        )
        score_cols = ["score"] if pos is not None else [f"score_{c}" for c in universe]
        cols.update({c: s[:, j] for j, c in enumerate(score_cols)})
    frame = pd.DataFrame(cols)
    used = list(dict.fromkeys(str(o.get("method", method)) for row in all_out for o in row))
    # a grid over estimators may score some candidates by probability, others by decision
    frame.attrs.update(task=d.task, scores=" and ".join(used) if method else "none")
    if d.stratified:  # an int cv on multilabel y: iterative stratification
        frame.attrs["stratified"] = "yes"
    if pos is not None:
        _labels.write_pos_label(frame, pos)
    else:
        frame.attrs["labels"] = list(universe)
    return frame


def finish(out: xr.DataArray, name: str, param: bool = True) -> xr.DataArray:
    """A scoring result as (param, repeat): a length-1 ``class`` dim is dropped."""
    if CLASS in out.dims:
        if out.sizes[CLASS] != 1:
            raise ValueError(
                f"{name} returned a value per class ({out.sizes[CLASS]} classes); pass "
                "average='macro', 'micro' or 'weighted' (or reduce class in the callable)."
            )
        out = out.isel({CLASS: 0}, drop=True)
    if REPEAT not in out.dims:
        out = out.expand_dims(REPEAT)
    extra = [d for d in out.dims if d not in (PARAM, REPEAT, FOLD)]
    if extra or (param and PARAM not in out.dims):
        raise ValueError(
            f"{name} returned dims {tuple(out.dims)}; it must reduce every dim but "
            f"'{PARAM}' and '{REPEAT}' (and '{FOLD}' for per-fold values)."
        )
    return out.transpose(*[d for d in (PARAM, REPEAT, FOLD) if d in out.dims])


def rewarn(caught: list[warnings.WarningMessage]) -> None:
    """The metric warnings of one fit as one UndefinedMetricWarning; others pass through."""
    inner = [w for w in caught if issubclass(w.category, UndefinedMetricWarning)]
    for w in caught:
        if not issubclass(w.category, UndefinedMetricWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if inner:
        more = (
            f" ({len(inner) - 1} more such warnings of the pooled and per-fold scores combined)"
            if len(inner) > 1
            else ""
        )
        warnings.warn(
            f"PooledSearchCV: {inner[0].message}{more}",
            UndefinedMetricWarning,
            stacklevel=user_stacklevel(),
        )


def masked(values: list[Any], present: list[bool]) -> np.ma.MaskedArray:
    try:
        arr = np.array([v if p else 0 for v, p in zip(values, present, strict=True)])
        if arr.dtype.kind not in "biufU" or arr.ndim != 1:
            raise ValueError
    except (ValueError, TypeError):
        arr = np.empty(len(values), dtype=object)
        arr[:] = values
    return np.ma.MaskedArray(arr, mask=[not p for p in present])


def rank(scores: np.ndarray) -> np.ndarray:
    """1 for the highest score, ties share the lowest rank, NaN ranks last (as scikit-learn)."""
    from scipy.stats import rankdata

    s = np.asarray(scores, dtype=float)
    if np.isnan(s).all():
        return np.ones(len(s), dtype=np.int32)
    s = np.where(np.isnan(s), np.nanmin(s) - 1, s)
    return rankdata(-s, method="min").astype(np.int32)


def cv_results(
    all_params: list[dict[str, Any]],
    fit_t: np.ndarray,
    score_t: np.ndarray,
    per_fold: np.ndarray,
    pooled: np.ndarray,
    train: tuple[np.ndarray, np.ndarray] | None = None,
    key: str = "score",
) -> dict[str, Any]:
    """``cv_results_`` in scikit-learn's order; ``train``: the per-split and pooled training
    scores of ``return_train_score``; ``key``: the scoring's name in the columns
    (``mean_test_<key>``; ``"score"`` for a single scoring)."""
    results: dict[str, Any] = {
        "mean_fit_time": fit_t.mean(axis=1),
        "std_fit_time": fit_t.std(axis=1),
        "mean_score_time": score_t.mean(axis=1),
        "std_score_time": score_t.std(axis=1),
    }
    for name in dict.fromkeys(k for p in all_params for k in p):
        results[f"param_{name}"] = masked(
            [p.get(name) for p in all_params], [name in p for p in all_params]
        )
    results["params"] = list(all_params)
    parts = [("test", per_fold, pooled)] + ([("train", *train)] if train is not None else [])
    for name, per, pool in parts:
        for i in range(per.shape[1]):
            results[f"split{i}_{name}_{key}"] = per[:, i]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            results[f"mean_{name}_{key}"] = per.mean(axis=1)
            results[f"std_{name}_{key}"] = per.std(axis=1)
        if name == "test":
            results[f"rank_mean_test_{key}"] = rank(results[f"mean_test_{key}"])
        results[f"pooled_{name}_{key}"] = np.asarray(pool, dtype=float)
        if name == "test":
            results[f"rank_test_{key}"] = rank(pool)
    return results


def guarded_fit(*args: Any, error_score: Any = "raise", **kwargs: Any) -> dict[str, Any]:
    """:func:`cvframe.runner.fit_predict`; unless ``error_score="raise"``, a fit that raises
    returns ``{"error": traceback}`` (as ``GridSearchCV`` catches it) instead."""
    if isinstance(error_score, str):
        return fit_predict(*args, **kwargs)
    t0 = time.perf_counter()
    try:
        return fit_predict(*args, **kwargs)
    except Exception as err:  # noqa: BLE001 - reported as a FitFailedWarning, as GridSearchCV does
        took = time.perf_counter() - t0
        return {"error": f"{type(err).__name__}: {err}", "fit_time": took, "score_time": 0.0}


def warn_failures(errors: list[str], total: int, error_score: Any) -> None:
    """One ``FitFailedWarning`` for the failed fits, worded as ``GridSearchCV`` words it, or a
    ValueError when every fit failed."""
    from collections import Counter

    from sklearn.exceptions import FitFailedWarning

    if not errors:
        return
    counts = Counter(errors)
    details = "\n".join(
        f"--------------------------------------------------------------------------------\n"
        f"{n} fits failed with the following error:\n{text}"
        for text, n in counts.items()
    )
    if len(errors) == total:
        raise ValueError(
            f"All the {total} fits failed; PooledSearchCV has no candidate to rank. Check the "
            f"estimator and its parameters, or pass error_score='raise' to see the first "
            f"failure as it happens.\nBelow are more details about the failures:\n{details}"
        )
    warnings.warn(
        f"\n{len(errors)} fits failed out of a total of {total}.\nThe score on these "
        f"train-test partitions for these parameters will be set to {error_score}.\nIf "
        "these failures are not expected, you can try to debug them by setting "
        f"error_score='raise'.\n\nBelow are more details about the failures:\n{details}",
        FitFailedWarning,
        stacklevel=user_stacklevel(),
    )


def print_splits(
    results: dict[str, Any],
    all_out: list[list[dict[str, Any]]],
    first: int,
    k: int,
    key: str = "score",
) -> None:
    """GridSearchCV's ``verbose >= 2`` lines: one per candidate and split, after the fits
    (the scores of the scoring ``key``)."""
    n = len(all_out)
    labels = param_labels(results["params"])
    for c in range(first, n):
        for i, o in enumerate(all_out[c]):
            test = results[f"split{i}_test_{key}"][c]
            shown = f"score={test:.3f}"
            if f"split{i}_train_{key}" in results:
                train = results[f"split{i}_train_{key}"][c]
                shown = f"score=(train={train:.3f}, test={test:.3f})"
            took = o["fit_time"] + o["score_time"]
            print(f"[CV {i + 1}/{k}; {c + 1}/{n}] END {labels[c]}; {shown} total time={took:.1f}s")


def target(
    X: Any, y: Any, pos_label: Any, average: str | None, one_value: bool, scoring: Any
) -> tuple[np.ndarray, list[Hashable], Hashable | None, str]:
    """``y`` as 1-D labels (a multilabel ``y``: its 0/1 indicator matrix), its class universe,
    positive class and task, checked."""
    if y is None:
        raise ValueError("y is None; PooledSearchCV needs the class label of every sample.")
    if is_multilabel(y):  # the label rule of cross_validate
        t = Target(y, n_samples(X), pos_label)
        if average is None and not one_value:
            raise ValueError(
                f"y is a multilabel indicator of {len(t.labels)} labels {few(t.labels)}; "
                f"scoring={scoring!r} needs average='samples', 'macro', 'micro' or 'weighted' "
                f"(or a multilabel scoring: {', '.join(map(repr, MULTILABEL_SCORINGS))})."
            )
        return t.fit_y, t.labels, None, "multilabel"
    y_arr = np.asarray(y)
    if y_arr.ndim == 2 and y_arr.shape[1] == 1:
        y_arr = y_arr.ravel()
    if y_arr.ndim != 1:
        raise ValueError(
            f"y has shape {y_arr.shape}; PooledSearchCV takes 1-D class labels "
            "(binary or multiclass)."
        )
    n = n_samples(X)
    if len(y_arr) != n:
        raise ValueError(f"X has {n} samples but y has {len(y_arr)}; pass one label each.")
    universe, from_data = _labels.universe(y_arr)
    pos = _labels.binary_pos(universe, from_data, pos_label)
    task = "binary" if pos is not None else "multiclass"
    if task == "binary" and average is not None:
        raise ValueError(
            f"average={average!r} is for multiclass y; y is binary (pos_label="
            f"{pos!r}): leave average=None."
        )
    if task == "multiclass" and average is None and not one_value:
        raise ValueError(
            f"y has {len(universe)} classes {few(universe)}; scoring={scoring!r} "
            "needs average='macro', 'micro' or 'weighted' for multiclass y."
        )
    return y_arr, universe, pos, task


def is_multilabel(y: Any) -> bool:
    """Whether ``y`` is 2-D with more than one column (a multilabel indicator matrix)."""
    shape = np.shape(y) if not hasattr(y, "toarray") else y.shape
    return len(shape) == 2 and shape[1] > 1
