"""Nested cross-validation: how far the cross-validation estimate is from the truth.

Bates, Hastie & Tibshirani (2024, Algorithm 1) estimate the mean squared error of the K-fold
cross-validation point estimate by running, for each repetition and each outer fold, an
inner (K-1)-fold cross-validation on the outer training set next to the outer holdout. From
it come a point estimate (the mean of the inner errors), a bias correction towards training
sets of all ``n`` samples and a standard error that, unlike the naive one, accounts for the
correlation between folds. :func:`cvframe.cross_validate` runs it with ``nested=R`` and stores
one entry per model in ``frame.attrs["nested_cv"]``, which
``cvframe.interval(frame, ..., method="nested")`` reads. Only losses that are a mean of
per-sample terms qualify (:data:`NESTED_METRICS`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import metrics
from .._core import labels as _labels
from ..errors import few
from ._fit import align_scores, fit_pool
from ._splitter import Target

__all__ = ["NESTED_METRICS", "ncv_estimate", "per_sample_loss"]

#: Per-sample losses nested CV estimates (the registry's ``per_sample`` metrics): 0/1 error,
#: its complement accuracy (subset error and subset accuracy for multilabel y), and, from
#: ``predict_proba``, the Brier score and the log-loss of the probability vector.
NESTED_METRICS = tuple(m.name for m in metrics.REGISTRY.values() if m.per_sample)
_PROBA = tuple(m for m in NESTED_METRICS if metrics.REGISTRY[m].probabilities)


def check(
    nested: Any, metric: Any, *, param_grid: Any, groups: Any, task: str
) -> tuple[int | None, str]:
    """``nested`` as a number of repetitions (None: off) and ``nested_metric``, checked."""
    if nested is None:
        return None, str(metric)
    if isinstance(nested, bool) or not isinstance(nested, (int, np.integer)) or nested < 1:
        raise ValueError(
            f"nested={nested!r} is not valid; pass the number of nested repetitions (a "
            "positive int, e.g. nested=10) or None to skip nested cross-validation."
        )
    if not isinstance(metric, str) or metric not in NESTED_METRICS:
        raise ValueError(
            f"nested_metric={metric!r} is not valid; nested cross-validation needs a loss "
            f"that is a mean over samples: one of {list(NESTED_METRICS)!r} (F and AUC are "
            "not, so they have no nested estimate)."
        )
    if metric in _PROBA and task == "multilabel":
        raise ValueError(
            f"nested_metric={metric!r} is not defined for multilabel y here; use "
            "nested_metric='error' (subset error) or 'accuracy'."
        )
    if param_grid is not None:
        raise ValueError(
            "nested= estimates the error of one learning procedure, but param_grid fits "
            "several candidates; make the tuning part of the procedure (pass "
            "GridSearchCV(estimator, param_grid) as the estimator) or drop param_grid."
        )
    if groups is not None:
        raise ValueError(
            "nested= assumes exchangeable samples (Bates, Hastie & Tibshirani's setting) "
            "and draws its own folds, which would mix groups; drop groups= or nested=."
        )
    return int(nested), metric


def check_design(
    models: list[tuple[Any, Any]], metric: str, k: int, test_sets: str, cv: str
) -> None:
    """Before any fit: k-fold test sets, ``k >= 3``, and ``predict_proba`` where the metric
    needs it."""
    if test_sets != "partition":
        raise ValueError(
            f"nested= needs k-fold cross-validation (test sets that partition the samples); "
            f"cv={cv} gives {test_sets} test sets. Pass an int cv or a "
            "(Repeated)(Stratified)KFold."
        )
    if k < 3:
        raise ValueError(
            f"nested= needs at least 3 folds (the inner cross-validation runs on k - 1 >= 2 "
            f"of them); cv has {k}. Pass cv=5 or cv=10."
        )
    if metric in _PROBA:
        lacking = [name for name, est in models if not hasattr(est, "predict_proba")]
        if lacking:
            raise ValueError(
                f"nested_metric={metric!r} needs predict_proba, which models {few(lacking)} "
                "lack; use nested_metric='error' or a probabilistic classifier."
            )


def per_sample_loss(metric: str, target: Target, idx: np.ndarray, pred: Any, proba: Any) -> Any:
    """The loss of every sample ``idx`` (float64), from predictions ``pred`` or the
    ``predict_proba`` output ``proba`` (already aligned to ``target.labels``).

    ``error`` is 1 for a wrong label (multilabel: any label wrong), ``accuracy`` its
    complement; ``brier`` is the sum over classes of ``(p_c - y_c)**2``, halved for two
    classes (scikit-learn's ``brier_score_loss`` and :func:`cvframe.scores.brier` with
    ``average="multiclass"``); ``log_loss`` is ``-log p`` of the true class, ``p`` clipped
    to ``[eps, 1 - eps]`` (float64 machine epsilon, as scikit-learn).
    """
    y = target.fit_y[idx]
    if metric not in _PROBA:  # error, accuracy: of the predicted labels
        p = np.asarray(pred)
        wrong = (p != y).any(axis=1) if target.task == "multilabel" else p != y
        return (wrong if metric == "error" else ~wrong).astype(np.float64)
    codes = pd.Index(target.labels, dtype=object).get_indexer(
        [_labels.plain(v) for v in np.asarray(y).tolist()]
    )
    P = np.asarray(proba, dtype=np.float64)
    rows = np.arange(len(idx))
    if metric == "brier":
        onehot = np.zeros_like(P)
        onehot[rows, codes] = 1.0
        half = 0.5 if P.shape[1] == 2 else 1.0
        return half * ((P - onehot) ** 2).sum(axis=1)
    eps = float(np.finfo(np.float64).eps)
    return -np.log(np.clip(P[rows, codes], eps, 1 - eps))


def ncv_estimate(
    inner: Sequence[np.ndarray], outer: Sequence[np.ndarray], n: int, k: int
) -> dict[str, float]:
    r"""Nested CV's estimate, bias and standard error from its per-sample losses.

    ``inner[j]`` and ``outer[j]`` belong to one (repetition, outer fold) pair ``j``:
    ``outer[j]`` holds the losses of the outer holdout :math:`I_k` under the model fit on
    the other folds; ``inner[j]`` the losses of the inner cross-validation on those other
    folds (every :math:`I_{k'}`, :math:`k' \ne k`, under the model fit without
    :math:`I_k` and :math:`I_{k'}`). As in Bates, Hastie & Tibshirani (2024, Algorithm 1
    and Section 4):

    .. math::

        a_j = (\bar e^{in}_j - \bar e^{out}_j)^2, \quad
        b_j = \frac{s^2(e^{out}_j)}{|I_k|}, \quad
        \widehat{MSE} = \overline{a} - \overline{b},

        \widehat{Err}^{NCV} = \text{mean of all inner losses}, \quad
        \widehat{Err}^{CV} = \text{mean of all outer losses},

        \widehat{bias} = \left(1 + \frac{K-2}{K}\right)
            (\widehat{Err}^{NCV} - \widehat{Err}^{CV}),

        \widehat{SE} = \min\!\left(\max\!\left(\sqrt{\max(0, \tfrac{K-1}{K}\widehat{MSE})},
            \frac{\hat\sigma}{\sqrt n}\right), \frac{\sqrt K \hat\sigma}{\sqrt n}\right),

    with :math:`\hat\sigma` the standard deviation of all inner losses: the standard error
    lies between the naive one (independent folds) and :math:`\sqrt K` times it (fully
    dependent folds). The interval is
    :math:`\widehat{Err}^{NCV} - \widehat{bias} \pm z_{1-\alpha/2}\widehat{SE}`.

    Parameters
    ----------
    inner, outer : sequences of numpy.ndarray
        Per (repetition, outer fold), the inner and outer per-sample losses.
    n : int
        Number of samples.
    k : int
        Folds per repetition (``K >= 3``).

    Returns
    -------
    dict
        ``estimate`` (:math:`\widehat{Err}^{NCV}`), ``se``, ``bias``, ``cv_estimate``
        (:math:`\widehat{Err}^{CV}`) and ``mse`` (:math:`\widehat{MSE}` before rescaling).

    References
    ----------
    Bates, S., Hastie, T. & Tibshirani, R. (2024). Cross-validation: what does it estimate
    and how well does it do it? Journal of the American Statistical Association 119(546),
    1434-1445.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> outer = [rng.random(10) for _ in range(6)]
    >>> inner = [rng.random(20) for _ in range(6)]
    >>> out = ncv_estimate(inner, outer, n=30, k=3)
    >>> sorted(out)
    ['bias', 'cv_estimate', 'estimate', 'mse', 'se']
    >>> bool(out["se"] > 0)
    True
    """
    a = [(e_in.mean() - e_out.mean()) ** 2 for e_in, e_out in zip(inner, outer, strict=True)]
    b = [e_out.var(ddof=1) / e_out.size for e_out in outer]
    mse = float(np.mean(a) - np.mean(b))
    every_in = np.concatenate(list(inner))
    err_ncv = float(every_in.mean())
    err_cv = float(np.concatenate(list(outer)).mean())
    naive = float(every_in.std(ddof=1)) / np.sqrt(n)
    se = min(max(np.sqrt(max(0.0, (k - 1) / k * mse)), naive), np.sqrt(k) * naive)
    bias = (1 + (k - 2) / k) * (err_ncv - err_cv)
    return {"estimate": err_ncv, "se": float(se), "bias": bias, "cv_estimate": err_cv, "mse": mse}


def partitions(
    k: int, repeats: int, stratified: bool, target: Target, X: Any, random_state: Any
) -> list[list[np.ndarray]]:
    """Per repetition, the ``k`` test folds (a partition of the samples): repeated k-fold of
    the run's kind (stratified, multilabel-stratified or not), seeded by ``random_state``."""
    from iterstrat.ml_stratifiers import RepeatedMultilabelStratifiedKFold
    from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold

    cls: Any = RepeatedStratifiedKFold if stratified else RepeatedKFold
    if stratified and target.task == "multilabel":  # iterative stratification, as the run
        cls = RepeatedMultilabelStratifiedKFold
    splitter = cls(n_splits=k, n_repeats=repeats, random_state=random_state)
    tests = [te for _, te in splitter.split(X, target.fit_y)]
    return [tests[r * k : (r + 1) * k] for r in range(repeats)]


def _tests(folds: list[np.ndarray]) -> list[np.ndarray]:
    """The test sets of one repetition's fits: the ``k`` outer folds, then each pair of
    folds ``i < j`` (the fit without both tests both)."""
    k = len(folds)
    pairs = [np.concatenate([folds[i], folds[j]]) for i in range(k) for j in range(i + 1, k)]
    return list(folds) + pairs


def _calls(models: list[tuple[str, Any]], method: Any, X: Any, y: Any, parts: Any) -> Any:
    """The fits, lazily (a training set is made when its fit is dispatched): per model and
    repetition, the test sets of :func:`_tests` with the other samples as training set."""
    everyone = np.arange(len(y))
    for _, est in models:
        for folds in parts:
            for test in _tests(folds):
                yield (est, {}, X, y, np.setdiff1d(everyone, test), test, method), {}


def run(
    models: list[tuple[str, Any]],
    X: Any,
    target: Target,
    k: int,
    repeats: int,
    metric: str,
    stratified: bool,
    random_state: Any,
    n_jobs: int | None,
    progress: bool | None,
) -> dict[str, dict[str, Any]]:
    """Nested CV of every model on the same ``repeats`` partitions into ``k`` folds:
    ``frame.attrs["nested_cv"]``, one dict per model name."""
    method = "predict_proba" if metric in _PROBA else None
    n = len(target.fit_y)
    parts = partitions(k, repeats, stratified, target, X, random_state)
    per_rep = k + k * (k - 1) // 2
    calls = _calls(models, method, X, target.fit_y, parts)
    results = fit_pool(calls, len(models) * repeats * per_rep, n_jobs, progress, "nested CV")
    tests = [test for folds in parts for test in _tests(folds)] * len(models)
    losses = [
        _losses(metric, target, test, res, method) for test, res in zip(tests, results, strict=True)
    ]
    del results
    out: dict[str, dict[str, Any]] = {}
    for m, (name, _) in enumerate(models):
        inner: list[np.ndarray] = []
        outer: list[np.ndarray] = []
        for r, folds in enumerate(parts):
            start = (m * repeats + r) * per_rep
            outer.extend(losses[start : start + k])
            got: dict[tuple[int, int], np.ndarray] = {}  # (outer fold, fold): its losses
            pair = start + k
            for i in range(k):
                for j in range(i + 1, k):  # the fit without folds i and j tested both
                    got[(j, i)] = losses[pair][: folds[i].size]
                    got[(i, j)] = losses[pair][folds[i].size :]
                    pair += 1
            inner.extend(
                np.concatenate([got[(i, j)] for j in range(k) if j != i]) for i in range(k)
            )
        fits = repeats * per_rep
        out[name] = {
            "metric": metric,
            **ncv_estimate(inner, outer, n, k),
            "n_train": n,
            "repeats": repeats,
            "k": k,
            "fits": fits,
        }
    return out


def _losses(metric: str, target: Target, idx: np.ndarray, res: dict[str, Any], method: Any) -> Any:
    pred, score = res["test"]
    proba = None
    if method:
        proba, _ = align_scores(score, res["classes"], target.labels, method)
    return per_sample_loss(metric, target, idx, pred, proba)
