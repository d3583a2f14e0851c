"""Hyperparameter search ranked by the pooled out-of-fold metric: :class:`PooledSearchCV`.

scikit-learn's ``GridSearchCV`` scores every test fold on its own and ranks candidates by
the mean of those scores; for ``scoring="f1"`` that is F_avg, which Forman & Scholz (2010)
show is biased when positives are rare (a fold with one or two positives contributes an F
of 0 or 1). A scorer cannot see the other folds, so the pooled number (F_tp,fp) cannot be
had through ``scoring=``. :class:`PooledSearchCV` keeps the out-of-fold predictions of every
candidate instead, builds one counts cube with a ``param`` dimension, and ranks candidates
by a cvframe aggregation of it.

This is an outer layer: it imports scikit-learn and joblib; nothing in the core imports it.
"""

from __future__ import annotations

import numbers
import time
import warnings
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from sklearn.base import clone
from sklearn.model_selection import ParameterGrid, ParameterSampler, check_cv
from sklearn.model_selection._search import BaseSearchCV
from sklearn.utils import _safe_indexing
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted

from . import _checks, _labels, multiclass, reduce
from .build import counts_from_frame
from .errors import UndefinedMetricWarning, few, user_stacklevel
from .runner import param_label
from .schema import CLASS, FOLD, REPEAT

__all__ = ["COUNT_SCORINGS", "PARAM", "SCORE_SCORINGS", "PooledSearchCV"]

#: Name of the candidate dimension of ``cube_`` and of the column of ``predictions_``.
PARAM = "param"

#: Named scorings computed from the counts cube: name -> per-class metric pooled over folds.
COUNT_SCORINGS = {
    "f_tp_fp": "f",
    "precision_tp_fp": "precision",
    "recall_tp_fp": "recall",
    "accuracy": "accuracy",
}
#: Named scorings computed from the out-of-fold scores: name -> ranking metric, merged.
SCORE_SCORINGS = {"auc_merge": "auc", "average_precision_merge": "average_precision"}
_AVERAGES = (None, "macro", "micro", "weighted")


class PooledSearchCV(BaseSearchCV):
    r"""Search over hyperparameters, ranking candidates by a metric of the pooled folds.

    Every candidate is fitted on the same cross-validation splits; its out-of-fold
    predictions (and scores, for AUC) are kept; one counts cube with a ``param`` dimension is
    built from all of them, and candidates are ranked by the chosen aggregation of that cube
    over the folds. For the default ``scoring="f_tp_fp"`` (binary):

    .. math:: F_{tp,fp} = \frac{2\sum_i TP^{(i)}}
              {2\sum_i TP^{(i)} + \sum_i FP^{(i)} + \sum_i FN^{(i)}},

    the F of the pooled out-of-fold predictions, where ``GridSearchCV(scoring="f1")`` ranks by
    :math:`F_{avg} = \frac1k \sum_i F^{(i)}`. Both are reported, so the difference is visible.

    Design: the fits run as in ``GridSearchCV`` (one joblib task per candidate and split,
    clones of ``estimator`` with ``set_params``); each task returns its test predictions
    instead of a per-fold score. The search then builds ``cube_`` and computes the pooled
    score of every candidate and, for comparison, the same metric on every single fold.
    scikit-learn's :class:`~sklearn.model_selection._search.BaseSearchCV` provides
    ``predict``, ``predict_proba``, ``decision_function``, ``classes_`` and the candidate
    iterator hook ``_run_search``; ``fit`` is this class's own, because a scikit-learn scorer
    sees one test fold at a time and cannot pool.

    Parameters
    ----------
    estimator : scikit-learn classifier
        Cloned for every candidate and split (a Pipeline is fine; grid keys like
        ``"clf__C"``).
    param_grid : dict or list of dicts, optional
        The candidates of a grid search, as for ``GridSearchCV``. Give this or
        ``param_distributions``.
    param_distributions : dict or list of dicts, optional
        The candidates of a randomized search, as for ``RandomizedSearchCV``: ``n_iter``
        draws with ``random_state``.
    n_iter : int, default 10
        Number of candidates drawn from ``param_distributions``.
    scoring : str or callable, default "f_tp_fp"
        The aggregation that ranks candidates:

        - ``"f_tp_fp"`` (F_beta of the pooled counts), ``"precision_tp_fp"``,
          ``"recall_tp_fp"``, ``"accuracy"`` (pooled: total correct / total tested): from
          the counts cube;
        - ``"auc_merge"``, ``"average_precision_merge"``: one ranking over all folds'
          out-of-fold scores (from ``predict_proba``, else ``decision_function``);
        - a callable ``scoring(cube) -> xarray.DataArray`` reducing ``fold`` (and ``class``)
          of a counts cube and keeping ``param`` (and ``repeat``), e.g.
          ``lambda ds: ds.cv.kappa()``; it is called on the whole cube (the pooled score)
          and on every single fold (the per-fold scores).
    average : {None, "macro", "micro", "weighted"}, default None
        Multiclass ``y``: how the per-class values of count scorings are averaged over
        classes (``"micro"`` is not defined for the ranking scorings). Binary ``y``: None.
    beta : float, default 1
        The beta of F for ``"f_tp_fp"``.
    pos_label : label, optional
        The positive class of a binary ``y`` (default 1 / True for labels {0, 1} /
        {False, True}; required for other pairs).
    zero_division : {"warn", 0.0, 1.0, np.nan}, default "warn"
        Policy for undefined precision/recall (see :func:`cvframe.reduce.f_tp_fp`); under
        ``"warn"`` one :class:`~cvframe.UndefinedMetricWarning` per ``fit``.
    cv : int, splitter or iterable of (train, test), default 5
        As for ``GridSearchCV`` (an int is ``StratifiedKFold(cv)``, unshuffled). With a
        Repeated* splitter, split ``i`` is repeat ``i // n_splits``, fold
        ``i % n_splits``; the pooled score is computed per repeat, then averaged.
    refit : bool, default True
        Refit the best candidate on the whole data as ``best_estimator_``.
    n_jobs : int or None, default None
        Parallel fits with joblib; results do not depend on it.
    pre_dispatch : int or str, default "2*n_jobs"
        As for ``GridSearchCV``.
    random_state : int, RandomState or None
        Seed of the draws from ``param_distributions`` (the splitter has its own).

    Attributes
    ----------
    cv_results_ : dict of numpy arrays
        scikit-learn's format (``pd.DataFrame(search.cv_results_)`` loads it):
        ``mean_fit_time``, ``std_fit_time``, ``mean_score_time``, ``std_score_time``,
        ``param_<name>`` (masked arrays), ``params``, ``split<i>_test_score`` (the metric on
        test fold ``i`` alone), ``mean_test_score`` and ``std_test_score`` (their mean and
        std: what ``GridSearchCV`` ranks by), ``rank_mean_test_score`` (that ranking),
        ``pooled_test_score`` (the metric of the pooled folds, mean over repeats) and
        ``rank_test_score`` (the ranking by ``pooled_test_score`` that this search uses).
    best_index_ : int
        Index of the best candidate (rank 1 by ``pooled_test_score``; the first on ties).
    best_params_ : dict
    best_score_ : float
        ``pooled_test_score`` of the best candidate.
    best_estimator_ : estimator
        The best candidate refitted on all data (``refit=True``).
    refit_time_ : float
    cube_ : xarray.Dataset
        The counts cube over (``param``, ``repeat``, ``fold``, ``class``); ``param`` holds
        one readable label per candidate (:func:`cvframe.runner.param_label`:
        ``"C=0.1, class_weight='balanced'"``) in candidate order, with one coordinate
        ``param_<name>`` per parameter.
    predictions_ : pandas.DataFrame
        The out-of-fold predictions frame with a ``param`` column (and scores when the
        scoring needs them): ``cvframe.compare`` and every ``df.cv`` function read it.
    n_splits_ : int
    scoring_ : str
        The scoring used (``"callable"`` for a callable).

    See Also
    --------
    sklearn.model_selection.GridSearchCV : ranks by the mean of per-fold scores.
    cvframe.cross_validate : keeps every prediction; use it around this search for nested
        cross-validation with a pooled outer score.

    Notes
    -----
    ``mean_test_score`` equals ``GridSearchCV(scoring="f1").cv_results_["mean_test_score"]``
    on the same splits (per-fold F, undefined folds as ``zero_division``). The two
    rankings part when positives are rare: a few positives per fold make per-fold F jump
    between 0 and 1, and their mean favours candidates that are lucky on small folds.
    ``score(X, y)`` delegates to ``best_estimator_.score`` (accuracy for classifiers), as
    ``predict`` does. Fits that fail raise (there is no ``error_score``): a candidate with
    missing out-of-fold predictions has no pooled score.

    References
    ----------
    Forman, G. & Scholz, M. (2010). Apples-to-Apples in Cross-Validation Studies: Pitfalls
    in Classifier Performance Measurement. SIGKDD Explorations 12(1), 49-57.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from cvframe.search import PooledSearchCV
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> search = PooledSearchCV(GaussianNB(), {"var_smoothing": [1e-9, 1e-3]}, cv=5)
    >>> search = search.fit(X, y)
    >>> search.best_params_
    {'var_smoothing': 1e-09}
    >>> round(search.best_score_, 4)
    0.9519
    >>> search.cube_.tp.dims
    ('param', 'repeat', 'fold', 'class')
    >>> search.cube_.param.values.tolist()
    ['var_smoothing=1e-09', 'var_smoothing=0.001']
    >>> [k for k in search.cv_results_ if k.endswith("test_score") and "split" not in k][2:]
    ['rank_mean_test_score', 'pooled_test_score', 'rank_test_score']
    """

    _parameter_constraints: dict = {}

    def __init__(
        self,
        estimator: Any,
        param_grid: Any = None,
        *,
        param_distributions: Any = None,
        n_iter: int = 10,
        scoring: str | Callable[[xr.Dataset], xr.DataArray] = "f_tp_fp",
        average: str | None = None,
        beta: float = 1.0,
        pos_label: Hashable | None = None,
        zero_division: Any = "warn",
        cv: Any = 5,
        refit: bool = True,
        n_jobs: int | None = None,
        pre_dispatch: Any = "2*n_jobs",
        random_state: Any = None,
    ) -> None:
        self.estimator = estimator
        self.param_grid = param_grid
        self.param_distributions = param_distributions
        self.n_iter = n_iter
        self.scoring = scoring
        self.average = average
        self.beta = beta
        self.pos_label = pos_label
        self.zero_division = zero_division
        self.cv = cv
        self.refit = refit
        self.n_jobs = n_jobs
        self.pre_dispatch = pre_dispatch
        self.random_state = random_state

    # --- candidates -----------------------------------------------------------------------

    def _run_search(self, evaluate_candidates: Callable[[Any], Any]) -> None:
        """Evaluate the grid, or ``n_iter`` draws from ``param_distributions``."""
        if self.param_distributions is not None:
            evaluate_candidates(
                ParameterSampler(
                    self.param_distributions, self.n_iter, random_state=self.random_state
                )
            )
        else:
            evaluate_candidates(ParameterGrid(self.param_grid))

    def _check_params(self) -> None:
        if self.param_grid is None and self.param_distributions is None:
            raise ValueError(
                "param_grid is None and so is param_distributions; pass the candidates, e.g. "
                "param_grid={'C': [0.1, 1, 10]}."
            )
        if self.param_grid is not None and self.param_distributions is not None:
            raise ValueError(
                "param_grid and param_distributions are both given; pass one (a grid, or "
                "distributions with n_iter)."
            )
        if self.param_distributions is not None:
            _checks.integer("n_iter", self.n_iter, low=1)
        scoring = self.scoring
        if not callable(scoring):
            valid = list(COUNT_SCORINGS) + list(SCORE_SCORINGS)
            _checks.choice("scoring", scoring, valid)
        _checks.choice("average", self.average, _AVERAGES)
        if scoring in SCORE_SCORINGS and self.average == "micro":
            raise ValueError(
                f"average='micro' is not defined for scoring={scoring!r}; pass "
                "average='macro' or 'weighted'."
            )
        _checks.beta(self.beta)
        _checks.zero_division(self.zero_division)
        _checks.flag("refit", self.refit)

    # --- fit ------------------------------------------------------------------------------

    def fit(self, X: Any, y: Any, groups: Any = None, **fit_params: Any) -> PooledSearchCV:
        """Fit every candidate on every split, rank by the pooled score, refit the best.

        Parameters
        ----------
        X : array-like of shape (n_samples, ...)
        y : array-like of shape (n_samples,)
            Class labels (binary or multiclass).
        groups : array-like of shape (n_samples,), optional
            Group labels for group splitters.
        **fit_params
            Passed to the estimator's ``fit``; arrays with one value per sample are indexed
            by the training set.

        Returns
        -------
        self
        """
        self._check_params()
        if y is None:
            raise ValueError("y is None; PooledSearchCV needs the class label of every sample.")
        y_arr = np.asarray(y)
        if y_arr.ndim == 2 and y_arr.shape[1] == 1:
            y_arr = y_arr.ravel()
        if y_arr.ndim != 1:
            raise ValueError(
                f"y has shape {y_arr.shape}; PooledSearchCV takes 1-D class labels "
                "(binary or multiclass)."
            )
        n = _num_samples(X)
        if len(y_arr) != n:
            raise ValueError(f"X has {n} samples but y has {len(y_arr)}; pass one label each.")
        universe, from_data = _labels.universe(y_arr)
        pos = _labels.binary_pos(universe, from_data, self.pos_label)
        task = "binary" if pos is not None else "multiclass"
        if task == "binary" and self.average is not None:
            raise ValueError(
                f"average={self.average!r} is for multiclass y; y is binary (pos_label="
                f"{pos!r}): leave average=None."
            )
        needs_average = task == "multiclass" and self.average is None
        if needs_average and self.scoring not in ("accuracy",) and not callable(self.scoring):
            raise ValueError(
                f"y has {len(universe)} classes {few(universe)}; scoring={self.scoring!r} "
                "needs average='macro', 'micro' or 'weighted' for multiclass y."
            )
        cv = check_cv(self.cv, y_arr, classifier=True)
        splits = [(np.asarray(tr), np.asarray(te)) for tr, te in cv.split(X, y_arr, groups)]
        if not splits:
            raise ValueError(f"cv={cv!r} produced no splits; nothing to search.")
        self.n_splits_ = len(splits)
        n_rep = _n_repeats(cv, len(splits))
        method = self._score_method() if self.scoring in SCORE_SCORINGS else None
        self.scoring_ = self.scoring if isinstance(self.scoring, str) else "callable"
        base = clone(self.estimator)
        parallel = Parallel(n_jobs=self.n_jobs, pre_dispatch=self.pre_dispatch)

        all_params: list[dict[str, Any]] = []
        all_out: list[list[dict[str, Any]]] = []
        state: dict[str, Any] = {}

        def evaluate_candidates(candidate_params: Any) -> dict[str, Any]:
            params = list(candidate_params)
            if not params:
                raise ValueError("the search has no candidates (an empty param_grid?).")
            jobs = (
                delayed(_fit_predict)(base, p, X, y_arr, tr, te, fit_params, method, c, s)
                for c, p in enumerate(params, start=len(all_params))
                for s, (tr, te) in enumerate(splits)
            )
            out = list(parallel(jobs))
            k = len(splits)
            all_params.extend(params)
            all_out.extend(out[i * k : (i + 1) * k] for i in range(len(params)))
            state.update(
                self._evaluate(
                    all_params, all_out, splits, n_rep, y_arr, universe, pos, task, method
                )
            )
            return state["results"]

        with parallel:
            self._run_search(evaluate_candidates)

        results = state["results"]
        self.cv_results_ = results
        self.cube_ = state["cube"]
        self.predictions_ = state["frame"]
        self.multimetric_ = False
        self.best_index_ = int(np.argmin(results["rank_test_score"]))
        self.best_score_ = float(results["pooled_test_score"][self.best_index_])
        self.best_params_ = results["params"][self.best_index_]
        if self.refit:
            self.best_estimator_ = clone(base).set_params(**clone(self.best_params_, safe=False))
            t0 = time.perf_counter()
            self.best_estimator_.fit(X, y_arr, **fit_params)
            self.refit_time_ = time.perf_counter() - t0
            if hasattr(self.best_estimator_, "feature_names_in_"):
                self.feature_names_in_ = self.best_estimator_.feature_names_in_
        return self

    def _score_method(self) -> str:
        for m in ("predict_proba", "decision_function"):
            if hasattr(self.estimator, m):
                return m
        raise ValueError(
            f"scoring={self.scoring!r} needs scores, but estimator="
            f"{type(self.estimator).__name__} has neither predict_proba nor "
            "decision_function; use a count scoring such as 'f_tp_fp'."
        )

    def score(self, X: Any, y: Any = None, **params: Any) -> float:
        """``best_estimator_.score(X, y)`` (accuracy for a classifier).

        Parameters
        ----------
        X : array-like
        y : array-like
        **params
            Passed to ``best_estimator_.score``.

        Returns
        -------
        float
        """
        if not self.refit:
            raise AttributeError(
                "score needs the refitted best_estimator_, but this PooledSearchCV was fitted "
                "with refit=False; set refit=True."
            )
        check_is_fitted(self, "best_estimator_")
        return float(self.best_estimator_.score(X, y, **params))

    # --- evaluation -----------------------------------------------------------------------

    def _evaluate(
        self,
        all_params: list[dict[str, Any]],
        all_out: list[list[dict[str, Any]]],
        splits: list[tuple[np.ndarray, np.ndarray]],
        n_rep: int,
        y: np.ndarray,
        universe: list[Hashable],
        pos: Hashable | None,
        task: str,
        method: str | None,
    ) -> dict[str, Any]:
        names = _param_labels(all_params)
        frame = _frame(names, all_out, splits, n_rep, y, universe, pos, task, method)
        labels = None if task == "binary" else universe
        cube = counts_from_frame(frame, labels=labels, pos_label=pos, dims=[PARAM])
        cube = cube.assign_coords(_param_coords(all_params))
        k = len(splits) // n_rep
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if self.scoring in SCORE_SCORINGS:
                pooled, per_fold = self._ranking_scores(frame, names, labels, pos)
            else:
                pooled, per_fold = self._count_scores(cube, k)
        _rewarn(caught)
        fit_t = np.array([[o["fit_time"] for o in row] for row in all_out])
        score_t = np.array([[o["score_time"] for o in row] for row in all_out])
        results = _results(all_params, fit_t, score_t, per_fold, pooled)
        return {"results": results, "cube": cube, "frame": frame}

    def _metric(self, ds: xr.Dataset) -> xr.DataArray:
        """The scoring's value of a cube over its folds: dims (param, repeat)."""
        scoring, zd, b = self.scoring, self.zero_division, _checks.beta(self.beta)
        if callable(scoring):
            out = scoring(ds)
            if not isinstance(out, xr.DataArray):
                raise TypeError(
                    f"scoring returned {type(out).__name__}; a callable scoring must return "
                    "an xarray.DataArray over param (and repeat)."
                )
        else:
            metric = COUNT_SCORINGS[scoring]
            if metric == "accuracy" and self.average is None:
                out = reduce.accuracy(ds, how="pooled", zero_division=zd)
            elif self.average is None:
                out = reduce.aggregate(ds, metric, "tp_fp", beta=b, zero_division=zd)  # type: ignore[arg-type]
            else:
                avg = getattr(multiclass, self.average)
                out = avg(ds, metric, fold_method="tp_fp", beta=b, zero_division=zd)
        return _finish(out, "scoring")

    def _count_scores(self, cube: xr.Dataset, k: int) -> tuple[np.ndarray, np.ndarray]:
        pooled = self._metric(cube)
        folds = [self._metric(cube.isel({FOLD: [i]})) for i in range(k)]
        per = xr.concat(folds, dim=FOLD).transpose(PARAM, REPEAT, FOLD)
        n_c = cube.sizes[PARAM]
        return pooled.mean(REPEAT).values, per.values.reshape(n_c, -1)

    def _ranking_scores(
        self, frame: pd.DataFrame, names: list[str], labels: Any, pos: Any
    ) -> tuple[np.ndarray, np.ndarray]:
        from . import scores

        func = getattr(scores, SCORE_SCORINGS[str(self.scoring)])
        pooled, per = [], []
        for name in names:
            part = frame[frame[PARAM] == name].drop(columns=PARAM)
            kw = {"average": self.average, "labels": labels, "pos_label": pos}
            merged = _finish(func(part, "merge", "nan", **kw), "scoring", param=False)
            fold = _finish(func(part, "fold", "nan", **kw), "scoring", param=False)
            pooled.append(float(merged.mean(REPEAT)))
            per.append(fold.transpose(REPEAT, FOLD).values.ravel())
        return np.array(pooled), np.array(per)


# --- helpers --------------------------------------------------------------------------------


def _num_samples(X: Any) -> int:
    from sklearn.utils.validation import _num_samples as num

    return int(num(X))


def _n_repeats(splitter: Any, n_splits: int) -> int:
    r = getattr(splitter, "n_repeats", None)
    if isinstance(r, (int, np.integer)) and r >= 1 and n_splits % r == 0:
        return int(r)
    return 1


def _fit_params_for(fit_params: Mapping[str, Any], n: int, idx: np.ndarray) -> dict[str, Any]:
    """Fit parameters with one value per sample are indexed like X; others pass as they are."""
    out = {}
    for key, value in fit_params.items():
        if hasattr(value, "__len__") and not isinstance(value, (str, bytes, dict)):
            try:
                if len(value) == n:
                    value = _safe_indexing(value, idx)
            except TypeError:
                pass
        out[key] = value
    return out


def _fit_predict(
    base: Any,
    params: dict[str, Any],
    X: Any,
    y: np.ndarray,
    train: np.ndarray,
    test: np.ndarray,
    fit_params: Mapping[str, Any],
    method: str | None,
    candidate: int,
    split: int,
) -> dict[str, Any]:
    est = clone(base).set_params(**clone(params, safe=False))
    t0 = time.perf_counter()
    try:
        est.fit(_safe_indexing(X, train), y[train], **_fit_params_for(fit_params, len(y), train))
    except Exception as err:  # noqa: BLE001 - re-raised with the candidate and split
        err.add_note(
            f"PooledSearchCV: while fitting candidate {candidate} {params}, split {split}."
        )
        raise
    t1 = time.perf_counter()
    Xt = _safe_indexing(X, test)
    pred = np.asarray(est.predict(Xt))
    score = getattr(est, method)(Xt) if method else None
    t2 = time.perf_counter()
    return {
        "pred": pred,
        "score": score,
        "classes": getattr(est, "classes_", None),
        "fit_time": t1 - t0,
        "score_time": t2 - t1,
    }


def _short(value: Any) -> str:
    if hasattr(value, "get_params") and not isinstance(value, type):
        return f"{type(value).__name__}()"
    if callable(value):
        return getattr(value, "__name__", type(value).__name__)
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)


def _param_labels(all_params: Sequence[Mapping[str, Any]]) -> list[str]:
    """One unique label per candidate, as :func:`cvframe.runner.param_label` writes them."""
    labels = [param_label(p) for p in all_params]
    seen: dict[str, int] = {}
    out = []
    for lab in labels:
        seen[lab] = seen.get(lab, 0) + 1
        out.append(lab if labels.count(lab) == 1 else f"{lab} #{seen[lab]}")
    return out


def _param_coords(all_params: Sequence[Mapping[str, Any]]) -> dict[str, tuple[str, np.ndarray]]:
    """``param_<name>`` coordinates: numbers stay numbers, anything else its readable text."""
    keys = list(dict.fromkeys(k for p in all_params for k in p))
    coords = {}
    for key in keys:
        values = [p.get(key, None) for p in all_params]
        numeric = all(
            isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) for v in values
        )
        if numeric:
            arr = np.array(values, dtype=float)
        else:
            arr = np.array(
                ["" if key not in p else _short(p[key]) for p in all_params], dtype=object
            )
        coords[f"param_{key}"] = (PARAM, arr)
    return coords


def _align(
    score: Any, classes: Any, universe: list[Hashable], pos: Hashable | None, method: str
) -> np.ndarray:
    """Scores of one split as (m,) for binary (of ``pos``) or (m, n_classes) in class order."""
    s = np.asarray(score, dtype=float)
    cl = [_labels.plain(c) for c in np.asarray(classes).tolist()]
    if s.ndim == 1:
        s = np.column_stack([-s, s])
    fill = 0.0 if method == "predict_proba" else np.nan
    wanted = [pos] if pos is not None else universe
    out = np.full((s.shape[0], len(wanted)), fill)
    for j, c in enumerate(wanted):
        if c in cl:
            out[:, j] = s[:, cl.index(c)]
    return out[:, 0] if pos is not None else out


def _frame(
    names: list[str],
    all_out: list[list[dict[str, Any]]],
    splits: list[tuple[np.ndarray, np.ndarray]],
    n_rep: int,
    y: np.ndarray,
    universe: list[Hashable],
    pos: Hashable | None,
    task: str,
    method: str | None,
) -> pd.DataFrame:
    """The out-of-fold predictions of every candidate, one row per (candidate, tested sample)."""
    k = len(splits) // n_rep
    sizes = np.array([te.size for _, te in splits])
    test = np.concatenate([te for _, te in splits])
    rep = np.repeat(np.arange(len(splits)) // k, sizes)
    fold = np.repeat(np.arange(len(splits)) % k, sizes)
    n_c = len(names)
    cols: dict[str, Any] = {
        PARAM: pd.Categorical.from_codes(np.repeat(np.arange(n_c), test.size), categories=names),
        REPEAT: np.tile(rep, n_c),
        FOLD: np.tile(fold, n_c),
        "sample": np.tile(test, n_c).astype(np.int64),
        "y_true": np.tile(y[test], n_c),
        "y_pred": np.concatenate([o["pred"] for row in all_out for o in row]),
    }
    if method is not None:
        parts = [
            _align(o["score"], o["classes"], universe, pos, method) for row in all_out for o in row
        ]
        s = np.concatenate(parts)
        if pos is not None:
            cols["score"] = s
        else:
            for j, c in enumerate(universe):
                cols[f"score_{c}"] = s[:, j]
    frame = pd.DataFrame(cols)
    frame.attrs.update({"task": task, "scores": method or "none"})
    if pos is not None:
        frame.attrs["pos_label"] = pos
    else:
        frame.attrs["labels"] = list(universe)
    return frame


def _finish(out: xr.DataArray, name: str, param: bool = True) -> xr.DataArray:
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


def _rewarn(caught: list[warnings.WarningMessage]) -> None:
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


def _masked(values: list[Any], present: list[bool]) -> np.ma.MaskedArray:
    try:
        arr = np.array([v if p else 0 for v, p in zip(values, present, strict=True)])
        if arr.dtype.kind not in "biufU" or arr.ndim != 1:
            raise ValueError
    except (ValueError, TypeError):
        arr = np.empty(len(values), dtype=object)
        arr[:] = values
    return np.ma.MaskedArray(arr, mask=[not p for p in present])


def _rank(scores: np.ndarray) -> np.ndarray:
    """1 for the highest score, ties share the lowest rank, NaN ranks last (as scikit-learn)."""
    from scipy.stats import rankdata

    s = np.asarray(scores, dtype=float)
    if np.isnan(s).all():
        return np.ones(len(s), dtype=np.int32)
    s = np.where(np.isnan(s), np.nanmin(s) - 1, s)
    return rankdata(-s, method="min").astype(np.int32)


def _results(
    all_params: list[dict[str, Any]],
    fit_t: np.ndarray,
    score_t: np.ndarray,
    per_fold: np.ndarray,
    pooled: np.ndarray,
) -> dict[str, Any]:
    results: dict[str, Any] = {
        "mean_fit_time": fit_t.mean(axis=1),
        "std_fit_time": fit_t.std(axis=1),
        "mean_score_time": score_t.mean(axis=1),
        "std_score_time": score_t.std(axis=1),
    }
    for key in dict.fromkeys(k for p in all_params for k in p):
        results[f"param_{key}"] = _masked(
            [p.get(key) for p in all_params], [key in p for p in all_params]
        )
    results["params"] = list(all_params)
    for i in range(per_fold.shape[1]):
        results[f"split{i}_test_score"] = per_fold[:, i]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        results["mean_test_score"] = per_fold.mean(axis=1)
        results["std_test_score"] = per_fold.std(axis=1)
    results["rank_mean_test_score"] = _rank(results["mean_test_score"])
    results["pooled_test_score"] = np.asarray(pooled, dtype=float)
    results["rank_test_score"] = _rank(pooled)
    return results
