"""Hyperparameter search ranked by the pooled out-of-fold metric: :class:`PooledSearchCV`.

A scikit-learn scorer sees one test fold at a time, so ``GridSearchCV`` cannot rank by a
pooled number such as F_tp,fp; :class:`PooledSearchCV` keeps every candidate's out-of-fold
predictions, builds one counts cube with a ``param`` dimension and ranks by an aggregation of
it. An outer layer: it imports scikit-learn and joblib; nothing in the core imports it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import xarray as xr
from sklearn.base import clone
from sklearn.model_selection import ParameterGrid, ParameterSampler, check_cv
from sklearn.model_selection._search import BaseSearchCV
from sklearn.utils.validation import check_is_fitted

from .. import metrics
from .._core import checks as _checks
from .._core.docs import doc
from ..metrics import SCORER_ALIASES
from ..runner import fit_pool, n_repeats
from ..splits import multilabel_kfold
from . import _corrections, _fit, _frame, _habits, curse
from ._corrections import threshold_band
from ._frame import MULTILABEL_SCORINGS, PARAM, Scoring
from ._stability import selection_stability
from .threshold import PooledThresholdClassifierCV

__all__ = [
    "COUNT_SCORINGS",
    "MULTILABEL_SCORINGS",
    "PARAM",
    "SCORER_ALIASES",
    "SCORE_SCORINGS",
    "PooledSearchCV",
    "PooledThresholdClassifierCV",
    "selection_stability",
    "threshold_band",
]

#: Named scorings computed from the counts cube: name -> the count metric pooled over the
#: folds (a view of :data:`cvframe.metrics.REGISTRY`; any other spelling of the metric works).
COUNT_SCORINGS = {metrics.scoring_name(m): m for m in metrics.names("count")}
#: Named scorings computed from the out-of-fold scores: name -> score metric of the merged
#: folds (Brier and log-loss negated, so that higher is better as for scikit-learn's scorers).
SCORE_SCORINGS = {metrics.scoring_name(m): m for m in metrics.names("score")}


@doc
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

    The fits run as in ``GridSearchCV`` (one joblib task per candidate and split); each
    returns its test predictions instead of a per-fold score. ``predict``, ``classes_`` and
    the like come from scikit-learn's ``BaseSearchCV``; ``fit`` is this class's own.

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

        - any metric of :data:`cvframe.metrics.REGISTRY` by any of its names, ranked by its
          pooled variant: a count metric from the counts cube pooled over the folds
          (``"f_tp_fp"``, F_beta; ``"precision_tp_fp"``, ...; ``"accuracy"``: total correct /
          total tested, every sample counted once whatever ``average``; a metric over every
          class, such as ``"neg_error_tp_fp"``, needs no ``average``); a score metric from one
          ranking of all folds' out-of-fold scores (``"auc_merge"``,
          ``"average_precision_merge"``: ``predict_proba``, else ``decision_function``;
          ``"neg_brier_merge"``, ``"neg_log_loss_merge"``: ``predict_proba`` only, and on
          multiclass ``y`` the score of the probability vector unless ``average`` is given).
          A lower-is-better metric is ranked negated and named with ``neg_``;
        - a scikit-learn scorer name, mapped to its pooled counterpart by
          :data:`cvframe.metrics.SCORER_ALIASES` (``"f1"`` -> ``"f_tp_fp"``, ``"roc_auc"``
          -> ``"auc_merge"``, ``"neg_log_loss"`` -> ``"neg_log_loss_merge"``, ...); with a
          ``_macro``/``_micro``/``_weighted`` suffix (``"f1_macro"``) the suffix sets
          ``average``. ``scoring_`` records the pooled name
          (:func:`cvframe.metrics.scoring_name`);
        - multilabel ``y`` (a 0/1 indicator matrix): the sample-based metrics
          (:data:`MULTILABEL_SCORINGS`: ``"f_samples"`` or ``"f1_samples"``, ...,
          ``"subset_accuracy"`` or ``"accuracy"``, ``"neg_hamming_loss"``) pool the per-sample
          outcomes over every tested sample (:mod:`cvframe.reduce.multilabel`); a per-class
          count metric (``"f1_micro"``) with ``average="macro"``/``"micro"``/``"weighted"``
          pools each label's counts; ``average="samples"`` turns F and Jaccard into their
          sample-based forms;
        - a callable ``scoring(cube) -> xarray.DataArray`` reducing ``fold`` (and ``class``)
          of a counts cube and keeping ``param`` (and ``repeat``), e.g.
          ``lambda ds: ds.cv.kappa()``; it is called on the whole cube (the pooled score)
          and on every single fold (the per-fold scores);
        - several at once, as ``GridSearchCV`` takes them: a list of names
          (``["f1", "roc_auc"]``) or a dict of key -> name or callable
          (``{"f": "f1", "auc": "roc_auc"}``). ``cv_results_`` then has every column per
          scoring, named by its key (``pooled_test_auc``, ``rank_test_auc``,
          ``mean_test_auc``, ``split0_test_auc``, ...) and ``refit`` names the one that
          picks the best candidate.

        A ranking metric (AUC, average precision) reads each candidate's own scores:
        ``predict_proba`` where the candidate has it, else ``decision_function``, so a grid
        over estimators (``{"clf": [LogisticRegression(), LinearSVC()]}``) scores every
        candidate; Brier and log-loss need ``predict_proba`` of every candidate and name the
        one without it. ``None`` (the estimator's own ``score``) and scikit-learn scorer
        objects (``make_scorer``) score one fold at a time and are refused with the name to
        pass instead.
    average : {None, "macro", "micro", "weighted", "samples"}, default None
        Multiclass (and multilabel) ``y``: how the per-class values of count scorings are
        averaged over classes (``"micro"`` is not defined for the ranking scorings;
        ``"samples"`` is for multilabel F and Jaccard). Binary ``y``: None.
    beta : float, default 1
        The beta of F for ``"f_tp_fp"``.
    pos_label : label, optional
        The positive class of a binary ``y`` (default 1 / True for labels {0, 1} /
        {False, True}; required for other pairs).
    zero_division : {"warn", 0.0, 1.0, np.nan}, default "warn"
        Policy for undefined precision/recall (see :func:`cvframe.reduce.f_tp_fp`); under
        ``"warn"`` one :class:`~cvframe.UndefinedMetricWarning` per ``fit``.
    cv : int, splitter or iterable of (train, test), default 5
        As for ``GridSearchCV`` (an int is ``StratifiedKFold(cv)``, unshuffled; for a
        multilabel ``y`` :func:`cvframe.splits.multilabel_kfold`, as ``cross_validate``). With a
        Repeated* splitter, split ``i`` is repeat ``i // n_splits``, fold
        ``i % n_splits``; the pooled score is computed per repeat, then averaged.
    refit : bool, str or callable, default True
        Refit the best candidate on the whole data as ``best_estimator_``. With several
        scorings, the key of the one that picks it (``refit="auc"``; ``True`` is then an
        error, as in ``GridSearchCV``, and ``False`` leaves no best candidate). With one
        scoring, a name of that scoring (``refit="f1"`` with ``scoring="f1"``) is ``True``;
        another metric's name is refused. A callable ``refit(cv_results_) -> int`` picks the
        best index itself (``best_score_`` is then not set, as in ``GridSearchCV``).
    n_jobs : int or None, default None
        Parallel fits with joblib; results do not depend on it.
    pre_dispatch : int or str, default "2*n_jobs"
        As for ``GridSearchCV``.
    random_state : int, RandomState or None
        Seed of the draws from ``param_distributions`` (the splitter has its own).
    progress : bool or None, default None
        A ``tqdm.auto`` progress bar over the fits (a widget in Jupyter, text on stderr
        elsewhere), by the rule of :func:`cvframe.cross_validate`: ``True`` shows it, ``False``
        hides it, ``None`` shows it in a terminal or Jupyter once the fits have run 2 s (or as
        ``CVFRAME_PROGRESS`` says). With more than one worker every fit runs with one
        BLAS/OpenMP thread, as in ``cross_validate``.

    verbose : int, default 0
        As ``GridSearchCV``'s: 1 prints the number of fits before they run; 2 and more also
        one line per candidate and split after them (``[CV 2/5; 1/4] END C=0.1; score=...
        total time=...``, the split's score alone, and its training score with
        ``return_train_score``). The progress bar is ``progress``.
    return_train_score : bool, default False
        Also predict every training set and score it as the test folds are scored:
        ``cv_results_`` gains ``split<i>_train_score``, ``mean_train_score``,
        ``std_train_score`` (as ``GridSearchCV``) and ``pooled_train_score`` (the metric of
        the pooled training predictions, each sample counted once per training set it is
        in); ``pooled_train_score - pooled_test_score`` is the train-test gap.
    error_score : "raise" or float, default np.nan
        What a failed fit gives, as in ``GridSearchCV``: ``"raise"`` raises the error (with
        the candidate and split that failed); a number (``np.nan``) is the score of every
        split of a candidate that has a failed fit, and its pooled score (its out-of-fold
        predictions are incomplete), with one ``FitFailedWarning`` listing the failures.
        Such candidates rank last (NaN) and are left out of ``cube_`` and ``predictions_``.
        When every fit fails, a ValueError.
    n_bootstraps : int, default 1000
        Bootstrap samples of the correction of the winner's curse (``best_score_corrected_``;
        :mod:`cvframe.search.curse`), drawn from the kept out-of-fold predictions (no refit;
        seeded by ``random_state``, 0 when it is None). 0 skips it.

    Attributes
    ----------
    cv_results_ : dict of numpy arrays
        scikit-learn's format (``pd.DataFrame(search.cv_results_)`` loads it):
        ``mean_fit_time``, ``std_fit_time``, ``mean_score_time``, ``std_score_time``,
        ``param_<name>`` (masked arrays), ``params``, ``split<i>_test_score`` (the metric on
        test fold ``i`` alone), ``mean_test_score`` and ``std_test_score`` (their mean and
        std: what ``GridSearchCV`` ranks by), ``rank_mean_test_score`` (that ranking),
        ``pooled_test_score`` (the metric of the pooled folds, mean over repeats) and
        ``rank_test_score`` (the ranking by ``pooled_test_score`` that this search uses);
        with ``return_train_score`` the ``*_train_score`` keys.
    best_index_ : int
        Index of the best candidate (rank 1 by ``pooled_test_score``, or by
        ``pooled_test_<refit>`` with several scorings; the first on ties).
    best_params_ : dict
    best_score_ : float
        ``pooled_test_score`` (``pooled_test_<refit>``) of the best candidate: biased
        upwards by the choice (the maximum of noisy estimates; the winner's curse).
    best_score_corrected_ : float
        The chosen configuration's score corrected for the choice: bootstrap bias corrected
        CV (BBC-CV, Tsamardinos et al. 2018), computed from the out-of-fold predictions
        with no refit: on each bootstrap sample of the tested samples the candidate best on
        the in-bag samples is scored on the out-of-bag ones, and the scores are averaged.
        NaN for ranking scorings (AUC, Brier, log-loss), with ``n_bootstraps=0`` and for a
        callable ``refit``; with several scorings, of the ``refit`` one.
    best_score_interval_ : tuple of float
        Its 95 % interval, ``best_score_corrected_ -/+ 1.96 se`` with the half-sampling
        standard error (the estimate recomputed on random halves of the samples); coverage
        measured in the docs ("Choosing without fooling yourself").
    selection_corrected_ : dict
        ``score``, ``low``, ``high``, ``se``, ``level``, ``naive`` (``best_score_``),
        ``bias`` (naive - corrected), ``n_bootstraps``, ``method``.
    selection_stability_ : pandas.DataFrame
        How often each candidate wins under resampling: one row per candidate (``choice``,
        ``param_<name>``, ``count`` and ``share`` of the bootstrap samples it wins,
        ``chosen``: it is ``best_index_``); :func:`selection_stability` of the search.
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
    scoring_ : str or dict
        The pooled scoring used (``"f_tp_fp"`` for ``scoring="f1"``; ``"callable"`` for a
        callable); with several scorings, key -> pooled scoring.
    multimetric_ : bool
        Whether several scorings were given.

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
    ``predict`` does. A candidate with a failed fit has missing out-of-fold predictions and
    so no pooled score: ``error_score`` stands for it.

    References
    ----------
    <<reference>>

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
        scoring: Any = "f_tp_fp",
        average: str | None = None,
        beta: float = 1.0,
        pos_label: Hashable | None = None,
        zero_division: Any = "warn",
        cv: Any = 5,
        refit: Any = True,
        n_jobs: int | None = None,
        pre_dispatch: Any = "2*n_jobs",
        random_state: Any = None,
        progress: bool | None = None,
        verbose: int = 0,
        return_train_score: bool = False,
        error_score: Any = np.nan,
        n_bootstraps: int = curse.BOOTSTRAPS,
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
        self.progress = progress
        self.verbose = verbose
        self.return_train_score = return_train_score
        self.error_score = error_score
        self.n_bootstraps = n_bootstraps

    def _run_search(self, evaluate_candidates: Callable[[Any], Any]) -> None:
        """Evaluate the grid, or ``n_iter`` draws from ``param_distributions``."""
        if self.param_distributions is None:
            evaluate_candidates(ParameterGrid(self.param_grid))
        else:
            dist, seed = self.param_distributions, self.random_state
            evaluate_candidates(ParameterSampler(dist, self.n_iter, random_state=seed))

    def _check_params(self, multilabel: bool = False) -> None:
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
        resolved = self._resolved(multilabel)
        _habits.refit_key(self.refit, resolved, _habits.is_multimetric(self.scoring))
        _checks.beta(self.beta)
        _checks.zero_division(self.zero_division)
        if self.progress is not None:
            _checks.flag("progress", self.progress)
        _checks.integer("verbose", self.verbose, low=0)
        _checks.flag("return_train_score", self.return_train_score)
        _checks.integer(
            "n_bootstraps", self.n_bootstraps, low=0,
            fix="0 skips the correction of the winner's curse; the paper uses 1000.",
        )  # fmt: skip
        err = self.error_score
        number = isinstance(err, (int, float, np.number)) and not isinstance(err, bool)
        if not (number or isinstance(err, str) and err == "raise"):
            raise ValueError(
                f"error_score={err!r} is not valid; pass 'raise' or a number such as np.nan "
                "(the score of a candidate whose fit failed)."
            )

    def _resolved(self, multilabel: bool = False) -> dict[str, Any]:
        """Every scoring by its key (``"score"`` for one), resolved in the registry (or the
        callable), with its average."""
        _checks.choice("average", self.average, _frame.AVERAGES)
        return _habits.scorings(self.scoring, self.average, multilabel)

    def fit(self, X: Any, y: Any, groups: Any = None, **fit_params: Any) -> PooledSearchCV:
        """Fit every candidate on every split, rank by the pooled score, refit the best.

        Parameters
        ----------
        X : array-like of shape (n_samples, ...)
        y : array-like of shape (n_samples,) or (n_samples, n_labels)
            Class labels (binary or multiclass), or a multilabel 0/1 indicator matrix.
        groups : array-like of shape (n_samples,), optional
            Group labels for group splitters.
        **fit_params
            Passed to the estimator's ``fit``; arrays with one value per sample are indexed
            by the training set.

        Returns
        -------
        self
        """
        multi = _frame.is_multilabel(y)
        self._check_params(multi)
        resolved = self._resolved(multi)
        self.multimetric_ = multimetric = _habits.is_multimetric(self.scoring)
        key = _habits.refit_key(self.refit, resolved, multimetric)
        names = {}
        for name, scoring in resolved.items():
            if isinstance(scoring, Scoring):
                average, one, names[name] = scoring.average, scoring.entry.one_value, scoring.name
            else:
                average, one, names[name] = self.average, True, "callable"
            asked = self.scoring if not multimetric else name
            y_arr, universe, pos, task = _frame.target(X, y, self.pos_label, average, one, asked)
        self.scoring_ = names if multimetric else names[_habits.SINGLE]
        self._scorings = resolved
        int_cv = self.cv is None or isinstance(self.cv, (int, np.integer))
        if multi and int_cv:  # iterative stratification of every label, as cross_validate
            cv = multilabel_kfold(5 if self.cv is None else int(self.cv))
        else:
            cv = check_cv(self.cv, y_arr, classifier=True)
        splits = [(np.asarray(tr), np.asarray(te)) for tr, te in cv.split(X, y_arr, groups)]
        if not splits:
            raise ValueError(f"cv={cv!r} produced no splits; nothing to search.")
        self.n_splits_ = k = len(splits)
        n_rep = n_repeats(cv, len(splits))
        scored = [
            s for s in resolved.values() if isinstance(s, Scoring) and s.entry.kind == "score"
        ]
        proba = any(s.entry.probabilities for s in scored)
        method = ("predict_proba" if proba else "auto") if scored else None
        base = clone(self.estimator)
        named = self.scoring if not multimetric else next(s.name for s in scored) if scored else ""

        design = _frame.Design(splits, n_rep, y_arr, universe, pos, task, method, multi and int_cv)
        note = "PooledSearchCV: while fitting candidate {} {}, split {}."
        all_params: list[dict[str, Any]] = []
        all_out: list[list[dict[str, Any]]] = []
        state: dict[str, Any] = {}
        extra = {"return_train": bool(self.return_train_score), "error_score": self.error_score}

        def evaluate_candidates(candidate_params: Any) -> dict[str, Any]:
            params = list(candidate_params)
            if not params:
                raise ValueError("the search has no candidates (an empty param_grid?).")
            if self.verbose > 0:
                print(
                    f"Fitting {k} folds for each of {len(params)} candidates, totalling "
                    f"{len(params) * k} fits"
                )
            labels = _frame.param_labels([*all_params, *params])[len(all_params) :]
            how = [
                _habits.candidate_method(base, p, proba, named, lab) if method else None
                for p, lab in zip(params, labels, strict=True)
            ]
            calls = (
                (
                    (base, p, X, y_arr, tr, te, m),
                    {"fit_params": fit_params, "note": note.format(c, p, i), **extra},
                )
                for c, (p, m) in enumerate(zip(params, how, strict=True), start=len(all_params))
                for i, (tr, te) in enumerate(splits)
            )
            n_jobs, pre, show = self.n_jobs, self.pre_dispatch, self.progress
            out = fit_pool(
                calls, len(params) * k, n_jobs, show, "PooledSearchCV", pre, _frame.guarded_fit
            )
            for i, o in enumerate(out):
                o["method"] = how[i // k]
            first = len(all_params)
            all_params.extend(params)
            all_out.extend(out[i * k : (i + 1) * k] for i in range(len(params)))
            state.update(_fit.evaluate(self, all_params, all_out, design))
            if self.verbose > 1:
                shown = key or next(iter(resolved))
                _frame.print_splits(state["results"], all_out, first, k, shown)
            return state["results"]

        self._run_search(evaluate_candidates)

        errors = [o["error"] for row in all_out for o in row if "error" in o]
        _frame.warn_failures(errors, len(all_out) * k, self.error_score)
        results = state["results"]
        self.cv_results_ = results
        self.cube_ = state["cube"]
        self.predictions_ = state["frame"]
        best = _habits.best_index(self.refit, results, key)
        if best is None:  # several scorings, refit=False: no best candidate, as GridSearchCV
            return self
        self.best_index_ = best
        if key is not None:
            self.best_score_ = float(results[f"pooled_test_{key}"][best])
        self._correct(design, None if key is None else self._scorings[key])
        self.best_params_ = results["params"][best]
        if self.refit is not False:
            self.best_estimator_ = clone(base).set_params(**clone(self.best_params_, safe=False))
            t0 = time.perf_counter()
            self.best_estimator_.fit(X, y_arr, **fit_params)
            self.refit_time_ = time.perf_counter() - t0
            if hasattr(self.best_estimator_, "feature_names_in_"):
                self.feature_names_in_ = self.best_estimator_.feature_names_in_
        return self

    def _correct(self, design: _frame.Design, scoring: Any) -> None:
        """The winner's curse of ``best_score_`` corrected (BBC-CV, :mod:`.curse`), from the
        out-of-fold predictions already kept: ``best_score_corrected_`` and its interval,
        ``selection_corrected_`` and ``selection_stability_``."""
        names = list(self.cube_[PARAM].values) if self.cube_ is not None else []
        labels = _frame.param_labels(self.cv_results_["params"])
        result = _corrections.search_correction(self, design, names, labels, scoring)
        self._selection = result
        self.selection_corrected_ = result.summary
        self.best_score_corrected_ = result.summary["score"]
        self.best_score_interval_ = (result.summary["low"], result.summary["high"])
        self.selection_stability_ = selection_stability(self)

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
        if self.refit is False or not hasattr(self, "best_index_"):
            raise AttributeError(
                "score needs the refitted best_estimator_, but this PooledSearchCV was fitted "
                "with refit=False; set refit=True."
            )
        check_is_fitted(self, "best_estimator_")
        return float(self.best_estimator_.score(X, y, **params))

    def _metric(self, ds: xr.Dataset, scoring: Any) -> xr.DataArray:
        """A scoring's value of a cube over its folds: dims (param, repeat)."""
        return _fit.metric(self, ds, scoring)
