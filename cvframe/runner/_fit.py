"""Fitting and its rows: the estimators of a run, their score method, one joblib pool of
:func:`fit_predict` calls (through which :class:`cvframe.search.PooledSearchCV` fits too), and
the predictions frame: one row per (model, candidate, split, tested sample), each fit's
predictions checked (labels of ``y``, never recoded), its scores aligned by class name."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._core import checks as _checks
from .._core import labels as _labels
from ..errors import few
from ..schema import FOLD, REPEAT, SUBSET
from ._progress import (
    LONG_SECONDS,
    THREADS_ENV,
    fit_threads,
    one_thread,
    progress_bar,
    progress_from_env,
    wants_progress,
)
from ._splitter import Target
from .params import Grids, Models

__all__ = [
    "LONG_SECONDS",
    "THREADS_ENV",
    "NotAClassifierError",
    "align_scores",
    "fit_pool",
    "fit_predict",
    "fit_threads",
    "progress_bar",
    "progress_from_env",
    "wants_progress",
]

SCORE_METHODS = ("auto", "predict_proba", "decision_function", False, None)
TEST, TRAIN = "test", "train"


class NotAClassifierError(TypeError, ValueError):
    """The estimator given to :func:`cross_validate` is not a classifier (a regressor, or an
    object without ``fit``/``predict``); a TypeError and a ValueError."""

    __module__ = "cvframe.runner"  # its public home, in tracebacks and pickles


def check_estimator(estimator: Any, arg: str = "estimator") -> None:
    """An instance with ``fit`` and ``predict`` that is not a regressor, else an error naming
    ``arg``."""
    if isinstance(estimator, type):
        raise TypeError(
            f"{arg}={estimator.__name__} is a class; pass an instance, e.g. {estimator.__name__}()."
        )
    name = type(estimator).__name__
    missing = [m for m in ("fit", "predict") if not callable(getattr(estimator, m, None))]
    if missing:
        raise NotAClassifierError(
            f"{arg}={name} has no {' or '.join(missing)} method, so it is not a "
            "classifier; cross_validate needs a scikit-learn classifier with fit(X, y) and "
            "predict(X) (wrap other models in a Pipeline or an estimator class)."
        )
    if _checks.is_regressor(estimator):
        raise NotAClassifierError(
            f"{arg}={name} is a regressor, not a classifier; cross_validate evaluates "
            "classifiers (their predictions are class labels). Pass a classifier, e.g. "
            "LogisticRegression instead of LinearRegression."
        )


def models_of(estimator: Any) -> Models:
    """``[(name, estimator)]``: one ``(None, estimator)`` or the named models, checked."""
    if isinstance(estimator, Mapping):
        pairs, kind = list(estimator.items()), "dict"
    elif isinstance(estimator, (list, tuple)):
        pairs, kind = list(estimator), "list"
        for i, item in enumerate(pairs):
            if not (isinstance(item, tuple) and len(item) == 2):
                raise TypeError(
                    f"estimator[{i}] is {type(item).__name__}; a list estimator must hold "
                    "(name, estimator) pairs, e.g. [('lr', LogisticRegression()), "
                    "('nb', GaussianNB())], or pass a dict {name: estimator}."
                )
    else:
        check_estimator(estimator)
        return [(None, estimator)]
    if not pairs:
        raise ValueError(
            f"estimator is an empty {kind}; pass at least one model, e.g. "
            "{'lr': LogisticRegression()}."
        )
    seen: set[str] = set()
    for name, est in pairs:
        if not isinstance(name, str) or not name:
            raise TypeError(
                f"estimator has the model name {name!r}; model names must be non-empty "
                "strings (they become the coordinates of the model dimension)."
            )
        if name in seen:
            raise ValueError(
                f"estimator names the model {name!r} twice; every model needs its own name."
            )
        seen.add(name)
        check_estimator(est, f"estimator[{name!r}]")
    return pairs


def where_of(name: str | None, est: Any, label: str | None = None) -> str:
    """How messages name one model (and candidate) of the call."""
    cls = type(est).__name__
    out = f"estimator={cls}" if name is None else f"estimator[{name!r}] ({cls})"
    return out if label is None else f"{out} with {label}"


def score_method(estimator: Any, scores: Any, where: str = "") -> str | None:
    """The method whose output fills the score columns (None: no scores), ``scores`` checked."""
    for valid in SCORE_METHODS:
        if scores is valid or (isinstance(scores, str) and scores == valid):
            break
    else:
        raise ValueError(
            f"scores={scores!r} is not valid; expected one of {list(SCORE_METHODS)!r}."
        )
    if not scores:
        return None
    if scores == "auto":
        for m in ("predict_proba", "decision_function"):
            if hasattr(estimator, m):
                return m
        return None
    if not hasattr(estimator, str(scores)):
        where = where or f"estimator={type(estimator).__name__}"
        raise ValueError(
            f"scores={scores!r} but {where} has no {scores} method; pass scores='auto' "
            "(which picks per model) or scores=False."
        )
    return str(scores)


def fit_pool(
    calls: Iterable[tuple[tuple[Any, ...], dict[str, Any]]],
    total: int,
    n_jobs: int | None,
    progress: bool | None,
    desc: str,
    pre_dispatch: Any = "2*n_jobs",
    func: Any = None,
) -> list[Any]:
    """:func:`fit_predict` (or ``func``, a module-level function that calls it) over ``calls``
    (``(args, kwargs)`` pairs) in one joblib pool, results in call order, with a
    :func:`progress_bar` of ``total`` fits.

    Every fit runs with :func:`fit_threads` BLAS/OpenMP threads (threadpoolctl; one by
    default, with one worker or many): a limit around the pool for this process and thread
    workers, and inside every fit for worker processes. Without it each of n workers starts as
    many threads as there are cores, and on a busy machine small fits such as logistic
    regression on digits run tens of times slower than with one thread; with one worker, the
    OpenMP threads of gradient boosting stall under load (see :func:`fit_threads`).
    """
    from joblib import effective_n_jobs
    from sklearn.utils.parallel import Parallel, delayed
    from threadpoolctl import threadpool_limits

    limit = fit_threads()
    many = effective_n_jobs(n_jobs) > 1 and limit is not None
    parent = os.getpid()
    jobs = (
        delayed(one_thread)(parent, limit, func or fit_predict, *a, **kw)
        if many
        else delayed(func or fit_predict)(*a, **kw)
        for a, kw in calls
    )
    parallel = Parallel(n_jobs=n_jobs, pre_dispatch=pre_dispatch, return_as="generator")
    out = []
    with progress_bar(total, desc, "fit", progress) as bar:
        with threadpool_limits(limit) if limit is not None else contextlib.nullcontext():
            for res in parallel(jobs):
                out.append(res)
                bar.update()
    return out


def run(
    tasks: list[tuple[Any, dict[str, Any], str]],
    methods: list[str | None],
    X: Any,
    y: np.ndarray,
    splits: list[Any],
    return_train: bool,
    n_jobs: int | None,
    progress: bool | None,
) -> list[list[dict[str, Any]]]:
    """Per (model, param) task, its :func:`fit_predict` results in split order: one
    :func:`fit_pool` over all fits."""
    if n_jobs is not None and (
        isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0
    ):
        raise ValueError(
            f"n_jobs={n_jobs!r} is not valid; pass None (one process), a positive number of "
            "workers, or -1 for all cores."
        )
    n_splits = len(splits)
    note = "cvframe.cross_validate: while fitting split {} of {}."
    calls = (
        (
            (est, params, X, y, tr, te, method),
            {"return_train": return_train, "note": note.format(i, where)},
        )
        for (est, params, where), method in zip(tasks, methods, strict=True)
        for i, (tr, te) in enumerate(splits)
    )
    flat = fit_pool(calls, len(tasks) * n_splits, n_jobs, progress, "cross_validate")
    return [flat[t * n_splits : (t + 1) * n_splits] for t in range(len(tasks))]


def fit_predict(
    estimator: Any,
    params: Mapping[str, Any],
    X: Any,
    y: np.ndarray,
    train: np.ndarray,
    test: np.ndarray,
    method: str | None = None,
    *,
    return_train: bool = False,
    fit_params: Mapping[str, Any] | None = None,
    note: str = "",
) -> dict[str, Any]:
    """Fit a clone of ``estimator`` with ``params`` on ``train`` and predict ``test``.

    The estimator is cloned (never fitted in place) and the parameter values too, so an
    estimator-valued parameter is a fresh object in every fit. Fit parameters with one value
    per sample (``sample_weight``) are indexed by the training set; others pass as they are.

    Parameters
    ----------
    estimator : scikit-learn estimator
    params : mapping
        Parameters set with ``set_params`` on the clone (``{}``: as given).
    X : array-like of shape (n_samples, ...)
    y : numpy.ndarray of shape (n_samples,) or (n_samples, n_labels)
    train, test : numpy.ndarray of int
        Row positions of the training and test sets.
    method : {"predict_proba", "decision_function"} or None
        The method whose output is the score; None for no scores.
    return_train : bool, default False
        Also predict the training set (resubstitution).
    fit_params : mapping, optional
        Passed to ``fit``.
    note : str
        Added to an exception raised by ``fit`` (which split, which model), so the user sees
        where the fit failed.

    Returns
    -------
    dict
        ``"classes"`` (the fitted ``classes_`` or None), ``"test"`` (and with
        ``return_train``, ``"train"``): ``(predictions, scores)`` as numpy arrays (scores
        None without ``method``, both None for an empty set); ``"fit_time"`` and
        ``"score_time"`` in seconds.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.naive_bayes import GaussianNB
    >>> X, y = np.arange(8.0)[:, None], np.array([0, 0, 0, 0, 1, 1, 1, 1])
    >>> out = fit_predict(GaussianNB(), {}, X, y, np.arange(1, 7), np.array([0, 7]))
    >>> out["test"][0].tolist(), out["classes"].tolist()
    ([0, 1], [0, 1])
    """
    from sklearn.base import clone
    from sklearn.utils import _safe_indexing

    est = clone(estimator, safe=False)
    if params:
        est.set_params(**clone(dict(params), safe=False))
    kwargs = dict(fit_params or {})
    for key, value in kwargs.items():  # one value per sample: indexed like X
        if hasattr(value, "__len__") and not isinstance(value, (str, bytes, dict)):
            try:
                if len(value) == len(y):
                    kwargs[key] = _safe_indexing(value, train)
            except TypeError:
                pass
    t0 = time.perf_counter()
    try:
        est.fit(_safe_indexing(X, train), y[train], **kwargs)
    except Exception as err:  # noqa: BLE001 - re-raised with the split that failed
        if note:
            err.add_note(note)
        raise
    t1 = time.perf_counter()
    out: dict[str, Any] = {"classes": getattr(est, "classes_", None)}
    if isinstance(getattr(est, "best_params_", None), dict):  # a search: what it chose
        out["best_params"] = est.best_params_
    subsets = [(TEST, test)] + ([(TRAIN, train)] if return_train else [])
    for name, idx in subsets:
        if idx.size == 0:
            out[name] = (None, None)
            continue
        Xs = _safe_indexing(X, idx)
        pred = est.predict(Xs)
        pred = np.asarray(pred.toarray() if hasattr(pred, "toarray") else pred)
        score = getattr(est, method)(Xs) if method else None
        out[name] = (pred, score)
    out["fit_time"] = t1 - t0
    out["score_time"] = time.perf_counter() - t1
    return out


SAMPLE = "sample"


def assemble(
    results: list[dict[str, Any]],
    splits: list[Any],
    n_rep: int,
    target: Target,
    method: str | None,
    return_train: bool,
    estimator_name: str,
) -> tuple[pd.DataFrame, int]:
    """The frame block of one (model, candidate): its rows over every split, in split order.

    Returns the block and how many (split, class) score entries had no score (a class absent
    from the training set under ``decision_function``).
    """
    per = len(splits) // n_rep
    parts: dict[str, list[Any]] = {k: [] for k in (SUBSET, REPEAT, FOLD, SAMPLE)}
    preds: list[np.ndarray] = []
    score_parts: list[np.ndarray] = []
    n_absent = 0
    for sub in [TEST, TRAIN] if return_train else [TEST]:
        for i, ((tr, te), res) in enumerate(zip(splits, results, strict=True)):
            idx = te if sub == TEST else tr
            parts[SUBSET].append(np.full(idx.size, sub, dtype=object))
            parts[REPEAT].append(np.full(idx.size, i // per, dtype=np.int64))
            parts[FOLD].append(np.full(idx.size, i % per, dtype=np.int64))
            parts[SAMPLE].append(idx.astype(np.int64))
            pred, score = res[sub]
            if idx.size == 0:
                continue
            _check_predictions(pred, target, estimator_name, i)
            preds.append(pred)
            if method:
                s, absent = _scores(score, res["classes"], target, method)
                n_absent += absent
                score_parts.append(s)
    cols = {k: np.concatenate(v) for k, v in parts.items() if return_train or k != SUBSET}
    sample, labels = cols[SAMPLE], target.labels
    if target.task == "multilabel":
        y_pred = np.concatenate(preds) if preds else np.zeros((0, len(labels)))
        cols.update({f"y_true_{c}": target.fit_y[sample, j] for j, c in enumerate(labels)})
        cols.update({f"y_pred_{c}": y_pred[:, j].astype(np.int64) for j, c in enumerate(labels)})
    else:
        assert target.series is not None
        y_pred = np.concatenate(preds) if preds else np.empty(0, dtype=target.fit_y.dtype)
        if isinstance(target.series.dtype, pd.CategoricalDtype):
            y_pred = pd.Categorical(y_pred, dtype=target.series.dtype)
        cols["y_true"] = target.series.iloc[sample].reset_index(drop=True)
        cols["y_pred"] = y_pred
    if method:
        S = np.concatenate(score_parts) if score_parts else np.zeros((0, len(labels)))
        if target.task == "binary":
            cols["score"] = S[:, labels.index(target.pos_label)]
        else:
            cols.update({f"score_{c}": S[:, j] for j, c in enumerate(labels)})
    return pd.DataFrame(cols, index=pd.RangeIndex(sample.size)), n_absent


def _check_predictions(pred: np.ndarray, target: Target, name: str, split: int) -> None:
    """Predictions must be labels of ``y``: an unknown label is never dropped or recoded."""
    if target.task == "multilabel":
        if pred.ndim != 2 or pred.shape[1] != len(target.labels):
            raise ValueError(
                f"{name} predicted an array of shape {pred.shape} in split {split}; "
                f"multilabel y needs one 0/1 column per label ({len(target.labels)})."
            )
        bad = np.setdiff1d(pd.unique(pred.ravel()), [0, 1])
        if bad.size:
            raise ValueError(
                f"{name} predicted values {few(bad)} in split {split}; multilabel y "
                "needs 0/1 indicator predictions."
            )
        return
    if pred.ndim != 1:
        raise ValueError(
            f"{name} predicted an array of shape {pred.shape} in split {split}; a "
            "classifier of 1-D y must predict one label per sample."
        )
    uniq = pd.unique(pred)
    known = pd.Index(target.labels, dtype=object)
    try:
        found = known.get_indexer([_labels.plain(u) for u in uniq])
    except TypeError:
        found = np.full(len(uniq), -1, dtype=np.intp)
    unknown = [_labels.plain(u) for u, i in zip(uniq, found, strict=True) if i < 0]
    frac = [u for u in unknown if isinstance(u, float) and not u.is_integer()]
    if frac:
        raise NotAClassifierError(
            f"{name} predicted continuous values {few(frac)} in split {split}: it behaves as "
            "a regressor (its predict returns numbers, not class labels); cross_validate "
            f"evaluates classifiers whose predict returns labels of y {few(target.labels)}."
        )
    if unknown:
        raise ValueError(
            f"{name} predicted labels {few(unknown)} in split {split} that are not "
            f"classes of y {few(target.labels)}; cross_validate needs predictions that are "
            "labels of y (a classifier fitted on y as given, not on transformed labels)."
        )


def _scores(score: Any, classes: Any, target: Target, method: str) -> tuple[np.ndarray, int]:
    """Scores of one split as an (m, n_labels) array in the order of target.labels."""
    if target.task != "multilabel":
        return align_scores(score, classes, target.labels, method)
    if not isinstance(score, list):
        return np.asarray(score, dtype=float), 0
    # one (m, k_j) array per label (e.g. RandomForest): the column of class 1
    out = np.full(
        (score[0].shape[0], len(target.labels)), 0.0 if method == "predict_proba" else np.nan
    )
    for j, s in enumerate(score):
        cl = list(np.asarray(classes[j]).tolist()) if isinstance(classes, list) else [0, 1]
        if 1 in cl:
            out[:, j] = np.asarray(s)[:, cl.index(1)]
    return out, 0


def align_scores(
    score: Any, classes: Any, labels: Sequence[Hashable], method: str
) -> tuple[np.ndarray, int]:
    """One split's scores as an ``(m, len(labels))`` array, columns matched to ``labels`` by name.

    ``classes`` is the fitted estimator's ``classes_`` (the order of its score columns); a
    binary ``decision_function`` column (the score of ``classes_[1]``) becomes
    ``[-s, s]``. A class of ``labels`` the estimator never saw (absent from its training set)
    gets probability 0 under ``predict_proba`` and NaN under ``decision_function``.

    Parameters
    ----------
    score : array-like of shape (m,) or (m, n_classes)
    classes : array-like
        The estimator's ``classes_``.
    labels : sequence
        The class universe, in the order of the returned columns.
    method : {"predict_proba", "decision_function"}

    Returns
    -------
    (numpy.ndarray, int)
        The scores, and how many classes got no ``decision_function`` score (NaN).

    Examples
    --------
    >>> import numpy as np
    >>> proba = np.array([[0.2, 0.8]])
    >>> s, absent = align_scores(proba, ["b", "c"], ["a", "b", "c"], "predict_proba")
    >>> s.tolist(), absent
    ([[0.0, 0.2, 0.8]], 0)
    >>> align_scores(np.array([1.5]), [0, 1], [0, 1], "decision_function")[0].tolist()
    [[-1.5, 1.5]]
    """
    score = np.asarray(score, dtype=float)
    cl = [_labels.plain(c) for c in np.asarray(classes).tolist()]
    if score.ndim == 1:  # binary decision_function: the score of classes_[1]
        if len(cl) != 2:
            raise ValueError(
                f"{method} returned one column but the fitted estimator has classes {few(cl)}."
            )
        score = np.column_stack([-score, score])
    pos = {c: i for i, c in enumerate(cl)}
    out = np.full((score.shape[0], len(labels)), 0.0 if method == "predict_proba" else np.nan)
    absent = 0
    for j, c in enumerate(labels):
        if c in pos:
            out[:, j] = score[:, pos[c]]
        elif method != "predict_proba":
            absent += 1
    return out, absent


def stack(blocks: list[pd.DataFrame], models: Models, grids: Grids) -> pd.DataFrame:
    """One frame of all (model, param) blocks with ``model``/``param`` Categorical columns."""
    has_model = models[0][0] is not None
    has_param = grids[0][0][0] is not None
    if not (has_model or has_param):
        return blocks[0]
    columns = list(dict.fromkeys(c for b in blocks for c in b.columns))
    if any(list(b.columns) != columns for b in blocks):  # a model without scores
        columns = sorted(columns, key=lambda c: str(c).startswith("score"))
        blocks = [b.reindex(columns=columns) for b in blocks]
    frame = pd.concat(blocks, ignore_index=True)
    sizes = [len(b) for b in blocks]
    lead: dict[str, Any] = {}
    if has_model:
        names = [str(name) for name, _ in models]
        codes = [i for i, grid in enumerate(grids) for _ in grid]
        lead["model"] = pd.Categorical.from_codes(np.repeat(codes, sizes), categories=names)
    if has_param:
        labels = list(dict.fromkeys(str(label) for grid in grids for label, _ in grid))
        at = {label: i for i, label in enumerate(labels)}
        codes = [at[str(label)] for grid in grids for label, _ in grid]
        lead["param"] = pd.Categorical.from_codes(np.repeat(codes, sizes), categories=labels)
    for i, (col, values) in enumerate(lead.items()):
        frame.insert(i, col, values)
    return frame
