"""The decision threshold chosen on the pooled out-of-fold scores:
:class:`PooledThresholdClassifierCV` (its docstring compares it with scikit-learn's
``TunedThresholdClassifierCV``). The counts at every threshold come from
:func:`cvframe.scores.metric_at_thresholds`, the metrics from :mod:`cvframe.measure`."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.utils import indexable
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted

from .. import measure, metrics, reduce, scores
from .._core import checks as _checks
from ..errors import few, user_stacklevel
from ..runner import cross_validate
from ..schema import CLASS, COUNTS, FOLD, REPEAT
from ..tidy import all_folds
from . import _corrections, curse

__all__ = ["THRESHOLD_SCORINGS", "PooledThresholdClassifierCV"]

#: Pooled metrics a threshold can be tuned for: name -> the count metric (its pooled name,
#: as ``scoring_`` records it, and its registry name); a view of
#: :data:`cvframe.metrics.REGISTRY`, where any other spelling of a count metric works too.
THRESHOLD_SCORINGS: dict[str, tuple[str, ...]] = {
    name: (m,) for m in metrics.names("count") for name in (metrics.scoring_name(m), m)
}

_THRESHOLD = "threshold"


def _has(attr: str) -> Any:
    """For ``available_if``: the fitted estimator (else the given one) has ``attr``."""

    def check(self: Any) -> bool:
        return hasattr(getattr(self, "estimator_", self.estimator), attr)

    return check


def _scoring(scoring: Any) -> tuple[str, tuple[str, ...]]:
    """The pooled name and the count metric of ``scoring`` (any name of a count metric of
    the registry, a scikit-learn scorer name among them)."""
    if not isinstance(scoring, str):
        metrics.scorer_metric(scoring)  # raises, listing the names
    r = metrics.resolve(scoring, variants=("tp_fp",), argument="scoring")
    if r.entry.kind != "count":
        raise ValueError(
            f"scoring={scoring!r} ({metrics.display(r.metric)}) does not depend on the "
            f"decision threshold; pass a count metric: one of "
            f"{few(list(THRESHOLD_SCORINGS), 12)}, or a cost_matrix."
        )
    return metrics.scoring_name(r.metric), (r.metric,)


def _cost_matrix(cost: Any) -> np.ndarray:
    c = np.asarray(cost, dtype=np.float64)
    if c.shape != (2, 2) or not np.isfinite(c).all():
        raise ValueError(
            f"cost_matrix must be a finite 2 x 2 array (rows: true negative/positive class, "
            f"columns: predicted), got shape {c.shape}; e.g. [[0, 1], [5, 0]] when a false "
            "negative costs 5 times a false positive."
        )
    return c


class PooledThresholdClassifierCV(ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    r"""Binary classifier whose decision threshold maximises a metric of the pooled folds.

    Out-of-fold scores of ``estimator`` come from :func:`cvframe.cross_validate` on ``cv``
    (repeats allowed); at every candidate threshold :math:`t` (predict the positive class
    when its score is :math:`\ge t`) the counts of all folds and repeats are summed and the
    metric computed once, e.g. for ``scoring="f1"``

    .. math:: F_{tp,fp}(t) = \frac{2\sum_i TP^{(i)}(t)}
        {2\sum_i TP^{(i)}(t) + \sum_i FP^{(i)}(t) + \sum_i FN^{(i)}(t)},

    and ``best_threshold_`` is :math:`\arg\max_t F_{tp,fp}(t)` (the lowest of tied maxima);
    with ``cost_matrix`` :math:`C` it minimises the pooled expected cost per sample
    :math:`(C_{00} TN + C_{01} FP + C_{10} FN + C_{11} TP)/n`. scikit-learn's
    ``TunedThresholdClassifierCV`` instead maximises a mean over folds of per-fold curves;
    the fold-mean choice on this search's candidate thresholds is reported as
    ``fold_averaged_threshold_`` (not scikit-learn's exact rule: see there), and each
    fold's own choice as ``thresholds_per_fold_``. Pooling matters when positives are rare: a fold's
    F is noisy or undefined, the pooled F is not (Forman & Scholz 2010, §4.3, Figures 4-8). Then the
    estimator is refitted on all the data and predicts with the chosen threshold.

    Parameters
    ----------
    estimator : scikit-learn classifier
        Has ``fit`` and ``predict_proba`` or ``decision_function``; cloned.
    scoring : str, default "f1"
        The pooled metric to maximise: any count metric of :data:`cvframe.metrics.REGISTRY`
        by any of its names (scikit-learn's ``"f1"``, ``"precision"``, ``"recall"``,
        ``"accuracy"``, ...; pooled names ``"f_tp_fp"``, ...; ``"f"`` with ``beta``,
        ``"specificity"``); a lower-is-better one (``"error"``) is minimised. Ignored with
        ``cost_matrix``. A metric undefined at a threshold (precision where nothing is
        predicted positive) counts as 0 there, as in scikit-learn's scorers.
    cv : int, splitter or iterable of splits, default 5
        As in :func:`cvframe.cross_validate` (an int is a stratified k-fold, shuffled with
        ``random_state`` when one is given; a Repeated* splitter gives repeats).
    thresholds : None, int or array-like, default None
        The candidates: None, every distinct out-of-fold score (the exact optimum); an int
        ``n``, ``n`` equally spaced values from the lowest to the highest score (as
        scikit-learn); an array, those values (a warning, naming the scores' range, when
        they all lie above every score, or at or below every score: no threshold then
        separates anything).
    cost_matrix : array-like of shape (2, 2), optional
        Cost of (true class, predicted class), rows and columns ordered (negative,
        positive); the threshold of least pooled expected cost is chosen.
    beta : float, default 1
        The :math:`\beta` of ``scoring="f"``.
    response_method : {"auto", "predict_proba", "decision_function"}, default "auto"
        Which scores are thresholded (``"auto"``: ``predict_proba`` when available).
    pos_label : label, optional
        The positive class (default as :func:`cvframe.cross_validate`: 1/True, else the
        last label in sorted order).
    refit : bool, default True
        Refit ``estimator`` on all the data. ``False`` uses ``estimator`` as given, which
        must then be fitted already.
    n_jobs : int, optional
        Parallel fits of the cross-validation (joblib).
    random_state : int, RandomState or None
        Seed of the shuffle of an int ``cv`` (and of the bootstrap samples: 0 when None).
    n_bootstraps : int, default 1000
        Bootstrap samples of the correction of the winner's curse and of the bands; 0
        skips them.

    Attributes
    ----------
    estimator_ : classifier
        The refitted (or given) estimator.
    best_threshold_ : float
        The chosen threshold: predict the positive class when its score is >= it.
    best_score_ : float
        The pooled metric there (the expected cost per sample with ``cost_matrix``),
        optimistic: the threshold was chosen for it (the winner's curse).
    best_score_corrected_ : float
        The score at the chosen threshold corrected for the choice: BBC-CV over the
        candidate thresholds (:mod:`cvframe.search.curse`): on each bootstrap sample of the
        tested samples the threshold is chosen again on the in-bag samples and scored on the
        out-of-bag ones. No refit.
    best_score_interval_ : tuple of float
        Its 95 % interval (half-sampling standard error); the threshold is chosen again on
        every resample, so the interval includes the threshold's own variability.
    selection_corrected_ : dict
        ``score``, ``low``, ``high``, ``se``, ``level``, ``naive``, ``bias`` (naive minus
        corrected: positive for a metric, negative for a cost), ``n_bootstraps``,
        ``method``.
    threshold_bootstrap_ : pandas.Series
        ``n``, ``mean``, ``std``, ``low``, ``median``, ``high`` (2.5 %, 50 %, 97.5 %
        quantiles) of the thresholds chosen on the bootstrap samples: the spread of the
        threshold under resampling (``threshold_spread_``: across the folds).
    selection_stability_ : pandas.DataFrame
        The thresholds chosen on the bootstrap samples and their shares
        (:func:`cvframe.search.selection_stability`).
    score_band_ : pandas.DataFrame
        ``threshold``, ``score`` (the pooled curve), ``low``, ``high`` (its 95 % bootstrap
        band at up to 200 thresholds): what :func:`threshold_band` and
        :func:`cvframe.plot.threshold_band` show.
    fold_averaged_threshold_ : float
        The candidate threshold that maximises the unweighted mean over the folds (and
        repeats) of each fold's own metric, every fold evaluated at the same candidate
        thresholds (the lowest among ties). Not scikit-learn's exact rule:
        ``TunedThresholdClassifierCV`` evaluates each fold on its own grid of thresholds,
        interpolates the curves onto one grid between the mean of the folds' lowest and
        highest thresholds and averages them there; the two differ by that interpolation.
    fold_averaged_score_ : float
        That mean at ``fold_averaged_threshold_``.
    thresholds_per_fold_ : pandas.DataFrame
        One row per fold and repeat: ``repeat``, ``fold``, ``threshold`` (the fold's own
        choice; NaN where a class is absent), ``score``, ``n_pos``, ``n_neg``.
    threshold_spread_ : pandas.Series
        ``n``, ``mean``, ``std`` (ddof=1), ``min``, ``max`` of the defined per-fold choices.
    folds_missing_class_ : pandas.DataFrame
        ``repeat``, ``fold``, ``missing`` ("positive" or "negative") of every test fold
        without one of the classes; a warning says how many.
    cv_results_ : pandas.DataFrame
        The pooled curve: ``threshold``, the summed ``tp``, ``fp``, ``fn``, ``tn``,
        ``pooled`` (the metric, or expected cost) and ``fold_averaged``.
    cv_predictions_ : pandas.DataFrame
        The out-of-fold predictions frame (``df.cv`` applies).
    classes_ : numpy.ndarray
        The classes of ``estimator_``.
    pos_label_ : label
        The positive class.
    response_method_ : str
        The scores thresholded: ``"predict_proba"`` or ``"decision_function"``.
    scoring_ : str
        The pooled metric tuned (``"f_tp_fp"``, ...) or ``"expected_cost"``.

    See Also
    --------
    sklearn.model_selection.TunedThresholdClassifierCV : the fold-averaged choice.
    cvframe.scores.metric_at_thresholds : the counts and metric at every cut-off.

    References
    ----------
    .. [1] G. Forman and M. Scholz, "Apples-to-Apples in Cross-Validation Studies:
       Pitfalls in Classifier Performance Measurement", ACM SIGKDD Explorations 12(1),
       2010, §3.2, §4.3 and §5.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> import cvframe
    >>> X, y = make_classification(300, weights=[0.85], random_state=0)
    >>> clf = cvframe.PooledThresholdClassifierCV(LogisticRegression(), cv=5).fit(X, y)
    >>> round(clf.best_threshold_, 3), round(clf.best_score_, 3)
    (0.314, 0.784)
    >>> clf.predict(X[:5]).tolist()
    [1, 0, 0, 1, 1]
    """

    def __init__(
        self,
        estimator: Any,
        *,
        scoring: str = "f1",
        cv: Any = 5,
        thresholds: int | Sequence[float] | None = None,
        cost_matrix: Any = None,
        beta: float = 1.0,
        response_method: str = "auto",
        pos_label: Any = None,
        refit: bool = True,
        n_jobs: int | None = None,
        random_state: Any = None,
        n_bootstraps: int = curse.BOOTSTRAPS,
    ) -> None:
        self.estimator = estimator
        self.scoring = scoring
        self.cv = cv
        self.thresholds = thresholds
        self.cost_matrix = cost_matrix
        self.beta = beta
        self.response_method = response_method
        self.pos_label = pos_label
        self.refit = refit
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.n_bootstraps = n_bootstraps

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        try:
            from sklearn.utils import get_tags

            tags.input_tags.sparse = get_tags(self.estimator).input_tags.sparse
        except (ImportError, AttributeError):  # scikit-learn < 1.6
            pass
        return tags

    # --- fit ------------------------------------------------------------------------------
    def fit(self, X: Any, y: Any, groups: Any = None) -> PooledThresholdClassifierCV:
        """Cross-validate, choose the threshold on the pooled out-of-fold scores, refit.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Binary labels.
        groups : array-like, optional
            Group labels for a group splitter.

        Returns
        -------
        self
        """
        metric = self._check_params()
        X, y = indexable(X, y)
        kind = type_of_target(y, input_name="y")
        if kind != "binary" or len(np.unique(np.asarray(y))) < 2:
            raise ValueError(
                f"Only binary classification is supported. Unknown label type: {kind}; y "
                f"needs exactly two classes, got {few(np.unique(np.asarray(y)).tolist())} "
                "(one class cannot be thresholded)."
            )
        method = self.response_method
        df = cross_validate(
            clone(self.estimator),
            X,
            y,
            cv=self.cv,
            groups=groups,
            scores=method,
            n_jobs=self.n_jobs,
            random_state=self.random_state,
            pos_label=self.pos_label,
            progress=False,
        )
        if df.attrs.get("scores") not in ("predict_proba", "decision_function"):
            raise ValueError(
                f"{type(self.estimator).__name__} has neither predict_proba nor "
                "decision_function: a threshold needs scores."
            )
        self.cv_predictions_ = df
        self.pos_label_ = df.attrs["pos_label"]
        self.response_method_ = df.attrs["scores"]
        s = df["score"].to_numpy(np.float64)
        if not np.isfinite(s).all():
            raise ValueError("the estimator gave NaN or infinite out-of-fold scores.")
        candidates = self._candidates(s)
        table = scores.metric_at_thresholds(
            df, None, candidates, method="fold", pos_label=self.pos_label_
        )
        cube = self._cube(table)
        self._choose(cube, candidates, metric)
        self._correct(candidates, metric)
        self._fit_final(X, y)
        return self

    def _check_params(self) -> str | None:
        _checks.choice(
            "response_method", self.response_method, ("auto", "predict_proba", "decision_function")
        )
        _checks.flag("refit", self.refit)
        _checks.beta(self.beta)
        _checks.integer(
            "n_bootstraps", self.n_bootstraps, low=0,
            fix="0 skips the correction of the winner's curse; the paper uses 1000.",
        )  # fmt: skip
        if self.cost_matrix is not None:
            self._cost = _cost_matrix(self.cost_matrix)
            self.scoring_ = "expected_cost"
            return None
        self.scoring_, (metric,) = _scoring(self.scoring)
        return metric

    def _candidates(self, s: np.ndarray) -> np.ndarray:
        t = self.thresholds
        if t is None:
            return np.unique(s)
        if isinstance(t, Integral) and not isinstance(t, bool):
            n = _checks.integer("thresholds", t, low=1, fix="an int is the number of thresholds.")
            return np.unique(np.linspace(s.min(), s.max(), n))
        arr = np.asarray(t, dtype=np.float64).ravel()
        if arr.size == 0 or not np.isfinite(arr).all():
            raise ValueError(
                "thresholds must be None, an int, or a non-empty array of finite numbers; got "
                f"{few(np.asarray(t).ravel().tolist())}."
            )
        arr = np.unique(arr)
        lo, hi = float(s.min()), float(s.max())
        if arr.min() > hi or arr.max() <= lo:
            side = (
                "above every score: every sample is predicted negative at every threshold"
                if arr.min() > hi
                else "at or below every score: every sample is predicted positive"
            )
            warnings.warn(
                f"thresholds={few(arr.tolist())} are all {side}; the out-of-fold scores range "
                f"over [{lo:.6g}, {hi:.6g}] ({self.response_method_}). Give thresholds in "
                "that range, an int (that many between the lowest and highest score) or None "
                "(every distinct score).",
                UserWarning,
                stacklevel=user_stacklevel(),
            )
        return arr

    @staticmethod
    def _cube(table: pd.DataFrame) -> xr.Dataset:
        """The per-fold counts as a binary cube over (repeat, fold, class, threshold)."""
        keys = [REPEAT, FOLD, CLASS, _THRESHOLD]
        ds = table.set_index(keys)[list(COUNTS)].to_xarray()
        ds.attrs["task"] = "binary"
        return ds.transpose(REPEAT, FOLD, CLASS, _THRESHOLD)

    def _values(self, ds: xr.Dataset, metric: str | None, how: str | None) -> xr.DataArray:
        """The objective per threshold: pooled (``"tp_fp"``), fold-averaged (``"avg"``) or
        per fold (None); the expected cost per sample with a cost matrix."""
        if metric is None:
            how_: Any = {"tp_fp": "pooled", "avg": "avg"}.get(how or "")  # its names there
            cost = scores.expected_cost(ds, self._cost, how_, (REPEAT, FOLD), zero_division=np.nan)
            return cost.squeeze(CLASS, drop=True)
        sign = 1.0 if metrics.REGISTRY[metric].higher_is_better else -1.0
        flat = ds if how is None else all_folds(ds)
        b = _checks.beta(self.beta)
        out = measure.cube(flat, metric, how, beta=b, zero_division=0.0)  # 0: as scikit-learn
        return sign * (out.squeeze(CLASS, drop=True) if CLASS in out.dims else out)

    def _best(self, values: np.ndarray) -> int:
        """Index of the best candidate (the lowest threshold among ties); -1 if none."""
        v = values if self.cost_matrix is None else -values
        if not np.isfinite(v).any():
            return -1
        return int(np.nanargmax(np.where(np.isnan(v), -np.inf, v)))

    def _choose(self, ds: xr.Dataset, candidates: np.ndarray, metric: str | None) -> None:
        thr = ds[_THRESHOLD].to_numpy()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            pooled = self._values(ds, metric, "tp_fp").to_numpy()
            averaged = self._values(ds, metric, "avg").to_numpy()
            per_fold = self._values(ds, metric, None)
        i = self._best(pooled)
        self.best_threshold_ = float(thr[i])
        self.best_score_ = float(pooled[i])
        j = self._best(averaged)
        self.fold_averaged_threshold_ = float(thr[j]) if j >= 0 else np.nan
        self.fold_averaged_score_ = float(averaged[j]) if j >= 0 else np.nan
        sums = reduce.pooled(ds, (REPEAT, FOLD)).squeeze(CLASS, drop=True)
        self.cv_results_ = pd.DataFrame(
            {
                _THRESHOLD: thr,
                **{k: sums[k].to_numpy().astype(np.int64) for k in COUNTS},
                "pooled": pooled,
                "fold_averaged": averaged,
            }
        )
        self._per_fold(ds, per_fold)

    def _per_fold(self, ds: xr.Dataset, per_fold: xr.DataArray) -> None:
        first = ds.isel({CLASS: 0, _THRESHOLD: 0})
        n_pos, n_neg = first.tp + first.fn, first.fp + first.tn
        real = reduce.read_counts(ds).is_fold.isel({CLASS: 0, _THRESHOLD: 0})
        rows, missing = [], []
        thr = ds[_THRESHOLD].to_numpy()
        for r in ds[REPEAT].to_numpy():
            for f in ds[FOLD].to_numpy():
                at = {REPEAT: r, FOLD: f}
                if not bool(real.sel(at)):
                    continue
                p, n = int(n_pos.sel(at)), int(n_neg.sel(at))
                absent = [name for name, k in (("positive", p), ("negative", n)) if k == 0]
                missing += [{REPEAT: r, FOLD: f, "missing": a} for a in absent]
                k = -1 if absent else self._best(per_fold.sel(at).to_numpy())
                value = float(per_fold.sel(at).to_numpy()[k]) if k >= 0 else np.nan
                t = float(thr[k]) if k >= 0 else np.nan
                rows.append(
                    {REPEAT: r, FOLD: f, _THRESHOLD: t, "score": value, "n_pos": p, "n_neg": n}
                )
        self.thresholds_per_fold_ = pd.DataFrame(rows)
        self.folds_missing_class_ = pd.DataFrame(missing, columns=[REPEAT, FOLD, "missing"])
        t = self.thresholds_per_fold_[_THRESHOLD].dropna()
        self.threshold_spread_ = t.agg(["count", "mean", "std", "min", "max"]).rename(
            {"count": "n"}
        )
        if len(missing):
            where = [f"repeat={m[REPEAT]} fold={m[FOLD]} (no {m['missing']}s)" for m in missing]
            warnings.warn(
                f"{len(missing)} of {len(rows)} test folds lack a class ({few(where)}): their "
                "own threshold is undefined (NaN in thresholds_per_fold_); the pooled choice "
                "uses their samples. Use stratified folds or fewer folds.",
                UserWarning,
                stacklevel=user_stacklevel(),
            )

    def _correct(self, candidates: np.ndarray, metric: str | None) -> None:
        """The winner's curse of the chosen threshold corrected (BBC-CV over the thresholds,
        :func:`cvframe.search.curse.threshold_correction`), its interval, the band of the
        pooled curve and the spread of the threshold over the bootstrap samples."""
        thr = self.cv_results_[_THRESHOLD].to_numpy()
        if metric is None:
            sign = -1.0
        else:
            sign = 1.0 if metrics.REGISTRY[metric].higher_is_better else -1.0
        result, band, chosen = _corrections.threshold_correction(self, thr, metric, sign)
        self._selection = result
        self.selection_corrected_ = result.summary
        self.best_score_corrected_ = result.summary["score"]
        self.best_score_interval_ = (result.summary["low"], result.summary["high"])
        q = np.quantile(chosen, [0.025, 0.5, 0.975]) if chosen.size else [np.nan] * 3
        self.threshold_bootstrap_ = pd.Series(
            {
                "n": int(chosen.size),
                "mean": float(np.mean(chosen)) if chosen.size else np.nan,
                "std": float(np.std(chosen, ddof=1)) if chosen.size > 1 else np.nan,
                "low": float(q[0]),
                "median": float(q[1]),
                "high": float(q[2]),
            }
        )
        curve = self.cv_results_[[_THRESHOLD, "pooled"]].rename(columns={"pooled": "score"})
        self.score_band_ = curve.merge(band, on=_THRESHOLD, how="left")
        from ._stability import selection_stability

        self.selection_stability_ = selection_stability(self)

    def _fit_final(self, X: Any, y: Any) -> None:
        if self.refit:
            self.estimator_ = clone(self.estimator).fit(X, y)
        else:
            check_is_fitted(self.estimator)
            self.estimator_ = self.estimator
        if hasattr(self.estimator_, "n_features_in_"):
            self.n_features_in_ = self.estimator_.n_features_in_
        if hasattr(self.estimator_, "feature_names_in_"):
            self.feature_names_in_ = self.estimator_.feature_names_in_

    # --- predict --------------------------------------------------------------------------
    @property
    def classes_(self) -> np.ndarray:
        """The class labels of the fitted estimator."""
        return self.estimator_.classes_

    def _score(self, X: Any) -> np.ndarray:
        """The positive class's score, as in the cross-validation."""
        check_is_fitted(self, "estimator_")
        classes = [c.item() if hasattr(c, "item") else c for c in self.classes_]
        pos = classes.index(self.pos_label_)
        if self.response_method_ == "predict_proba":
            return np.asarray(self.estimator_.predict_proba(X))[:, pos]
        d = np.asarray(self.estimator_.decision_function(X), dtype=np.float64)
        return d if pos == 1 else -d

    def predict(self, X: Any) -> np.ndarray:
        """The positive class where its score is >= ``best_threshold_``, else the other.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        numpy.ndarray of shape (n_samples,)
        """
        s = self._score(X)
        pos = [c for c in self.classes_ if c == self.pos_label_][0]
        neg = [c for c in self.classes_ if c != self.pos_label_][0]
        return np.where(s >= self.best_threshold_, pos, neg)

    @available_if(_has("predict_proba"))
    def predict_proba(self, X: Any) -> np.ndarray:
        """``estimator_.predict_proba`` (the threshold does not change probabilities)."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict_proba(X)

    @available_if(_has("predict_log_proba"))
    def predict_log_proba(self, X: Any) -> np.ndarray:
        """``estimator_.predict_log_proba``."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict_log_proba(X)

    @available_if(_has("decision_function"))
    def decision_function(self, X: Any) -> np.ndarray:
        """``estimator_.decision_function``."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.decision_function(X)
