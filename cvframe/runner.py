"""Run real cross-validation: any scikit-learn classifier under any scikit-learn splitter.

:func:`cross_validate` fits clones of an estimator on every split (in parallel with joblib,
as scikit-learn does) and returns the **predictions frame**: one row per tested sample with
its repeat, fold, sample index, true label, predicted label and scores. Nothing is reduced:
``frame.cv.counts()`` (or :func:`to_counts`) turns it into the counts cube, from which every
aggregation of Forman & Scholz (2010) is computed by name.

Several models (a dict or list of named estimators) and the candidates of a parameter grid
(``param_grid=``) are fit on one set of splits, drawn once, so their results are paired; the
frame labels them with ``model`` and ``param`` columns (Categoricals in the order given), and
:func:`param_label` / :func:`read_params` give the candidates' labels and values.

This is an outer layer: it imports scikit-learn and joblib, and the core never imports it.

(Over 400 lines: the one entry point carries the checks that keep a run honest — a
classifier, labels through :mod:`cvframe._labels`, stratification a splitter can meet,
predictions inside ``y``, scores aligned to classes by name — each with its own message.)
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from . import _checks, _labels
from ._docs import doc
from .build import counts_from_frame
from .errors import few, user_stacklevel
from .schema import FOLD, REPEAT, SUBSET

__all__ = ["cross_validate", "param_label", "read_params", "to_counts"]

SAMPLE = "sample"
TEST, TRAIN = "test", "train"
_SCORE_METHODS = ("auto", "predict_proba", "decision_function", False, None)
_STRATIFIED_SPLITTERS = (
    "StratifiedKFold",
    "RepeatedStratifiedKFold",
    "StratifiedShuffleSplit",
    "StratifiedGroupKFold",
)
_UNSTRATIFIED_SPLITTERS = (
    "KFold",
    "RepeatedKFold",
    "ShuffleSplit",
    "GroupKFold",
    "GroupShuffleSplit",
    "LeaveOneOut",
    "LeavePOut",
    "LeaveOneGroupOut",
    "LeavePGroupsOut",
    "PredefinedSplit",
    "TimeSeriesSplit",
)


@doc
def cross_validate(
    estimator: Any,
    X: Any,
    y: Any,
    cv: Any = 10,
    repeats: int = 1,
    stratified: bool = True,
    groups: Any = None,
    scores: Any = "auto",
    return_train: bool = False,
    n_jobs: int | None = None,
    random_state: Any = None,
    *,
    param_grid: Any = None,
    pos_label: Hashable | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Cross-validate one or several classifiers and keep every tested sample's outcome.

    Fits a clone of ``estimator`` on every training set of ``cv`` (in parallel with joblib
    when ``n_jobs`` asks for it, as scikit-learn does) and predicts its test set. Returns the
    predictions frame, from which ``frame.cv.counts()`` builds the counts cube. Several
    models, and the candidates of a parameter grid, are all fit on the **same** splits
    (computed once), so their results are paired: fold ``f`` of repeat ``r`` tests the same
    samples for every model and candidate.

    Parameters
    ----------
    estimator : scikit-learn classifier, dict or list of (name, classifier) pairs
        Any object with ``fit(X, y)`` and ``predict(X)`` (a Pipeline is fine); it is cloned
        for every split and never fitted in place. A dict ``{name: classifier}`` or a list of
        ``(name, classifier)`` pairs runs every model on the same splits and adds a ``model``
        column; names are non-empty, distinct strings, kept in the order given.
    X : array-like of shape (n_samples, ...)
        numpy array, pandas DataFrame, sparse matrix or list; indexed by position.
    y : array-like of shape (n_samples,) or (n_samples, n_labels)
        Class labels (binary or multiclass; str, int, bool or pandas Categorical, whose
        categories are the label universe), or a 2-D 0/1 indicator array / DataFrame for a
        multilabel task. Missing labels (None, NaN, pd.NA) raise.
    cv : int, scikit-learn splitter or list of (train, test) pairs, default 10
        An int ``k`` means k-fold: ``StratifiedKFold(k)`` when ``stratified`` (else
        ``KFold(k)``), shuffled with ``random_state`` when one is given (unshuffled otherwise,
        exactly as scikit-learn's ``cv=k``); with ``repeats > 1``,
        ``RepeatedStratifiedKFold(n_splits=k, n_repeats=repeats, random_state=random_state)``
        (or ``RepeatedKFold``): a seeded reshuffle per repeat. Otherwise any object with
        ``split(X, y, groups)``: KFold, StratifiedKFold, Repeated*, ShuffleSplit and
        StratifiedShuffleSplit for (repeated) holdout, LeaveOneOut, LeavePOut, GroupKFold,
        :class:`cvframe.splits.Bootstrap`, ...
    repeats : int, default 1
        Number of repeats of an int ``cv``. With a splitter object use a Repeated* splitter.
    stratified : bool, default True
        For an int ``cv``: stratified folds (every fold keeps the class proportions).
        With a splitter object the splitter decides and the frame records what it is;
        ``stratified=False`` together with a stratified splitter raises.
    groups : array-like of shape (n_samples,), optional
        Group labels for group splitters (GroupKFold, LeaveOneGroupOut, ...).
    scores : {"auto", "predict_proba", "decision_function", False, None}, default "auto"
        Where the score columns come from: ``"auto"`` uses ``predict_proba`` when the
        estimator has it, else ``decision_function``, else none. ``False``/``None`` skip them.
        With several models ``"auto"`` picks per model and ``attrs["score_methods"]`` records
        which; the score columns are shared, so a model's scores are compared only with its
        own (ranking metrics are computed per model); a model with neither method gets NaN
        scores, with a warning. A named method must exist on every model.
    return_train : bool, default False
        Also predict every training set (resubstitution) and record those rows with
        ``subset == "train"`` (test rows have ``"test"``). For the bootstrap the training
        set is the sample as drawn: a sample drawn twice is a row twice. Needed by
        :func:`cvframe.bootstrap.bootstrap_632`.
    n_jobs : int or None, default None
        Parallel fits with joblib (``None`` = 1 unless in a ``joblib.parallel_backend``
        context, ``-1`` = all cores). Results do not depend on it.
    random_state : int, numpy RandomState or None
        Seed of the shuffle of an int ``cv``. With a splitter object, set its own
        ``random_state``; passing one here then raises.
    param_grid : dict, list of dicts, or dict of model name to grid, optional
        Candidates as for scikit-learn's ``ParameterGrid`` (``{"C": [0.1, 1.0]}``, or a list
        of such dicts; names as in ``get_params()``, e.g. ``"logisticregression__C"`` in a
        pipeline): every candidate (set with ``set_params`` on a clone) is fit on every split,
        and a ``param`` column labels the rows. With several models a grid belongs to one
        model: ``param_grid`` maps model names to grids, and a model without one runs as given
        (``param`` label ``"(as given)"``); models with different grids leave (model, param)
        combinations that were never run, which are empty cells of the cube (zero folds).
    pos_label : label, optional
        Binary tasks: the class whose score goes in the ``score`` column and which the cube
        and the scores of the frame treat as positive. It must be one of the two classes;
        it is an error for a multiclass or multilabel ``y``. Default: 1 (or True) for labels
        {0, 1} ({False, True}), else the last label in class order (sorted, or the category
        order). Recorded in ``frame.attrs["pos_label"]``, which ``frame.cv.counts()``,
        ``frame.cv.auc()`` and the other score functions read.
    progress : bool or None, default None
        Show a tqdm progress bar over the fits (splits × models × candidates). ``None``: shown
        when stderr is a terminal,
        unless the environment variable ``CVFRAME_PROGRESS`` is ``0``/``false``/``no``.

    Returns
    -------
    pandas.DataFrame
        One row per (model, candidate, split, tested sample), columns in this order:

        - ``model`` (several models only): pandas Categorical of the names, categories in the
          order given, so ``counts()`` and the score functions give a ``model`` coordinate in
          that order;
        - ``param`` (with ``param_grid`` only): pandas Categorical of readable labels
          (:func:`param_label`, e.g. ``"C=0.1, penalty='l2'"``), categories in grid order
          (models in the order given, then each model's grid);
        - ``subset`` (only with ``return_train=True``): ``"test"`` or ``"train"``;
        - ``repeat``, ``fold`` (int64): for Repeated* splitters (anything with an
          ``n_repeats`` attribute) split ``i`` is ``repeat = i // n_splits``,
          ``fold = i % n_splits``; every other splitter has ``repeat`` 0 and ``fold`` = split
          index. Splitters whose test sets overlap (ShuffleSplit, LeavePOut, Bootstrap)
          thus give every split its own fold: nothing is merged or double-counted silently;
          ``attrs["test_sets"]`` says ``"partition"`` (every sample tested exactly once per
          repeat), ``"disjoint"`` (at most once) or ``"overlapping"``;
        - ``sample`` (int64): position of the sample in ``X``;
        - ``y_true``, ``y_pred``: labels, with the dtype of ``y`` (a Categorical stays one);
        - scores: binary ``score`` (of ``pos_label``); multiclass ``score_<label>`` per
          class in class order (a class missing from a training set has probability 0;
          its decision_function score is NaN, with a warning);
        - multilabel instead: ``y_true_<label>``, ``y_pred_<label>`` (0/1) and
          ``score_<label>`` per label (label = column name of a y DataFrame, else 0..L-1);
          ``frame.cv.counts()`` (= :func:`to_counts`) builds its cube.

        ``frame.attrs``: ``stratified`` ("yes", "no" or "unknown"), ``splitter`` (repr of
        the splitter), ``task``, ``test_sets``, ``scores`` (the method used or "none"),
        ``pos_label`` (binary) and ``labels`` (multiclass and multilabel: the class
        universe, so a class never predicted nor tested in a fold is still a class).
        With several models ``scores`` is the common method or ``"mixed"``, and JSON strings
        (netCDF-safe) ``estimators`` (name -> one-line repr) and ``score_methods`` (name ->
        method or "none"); with ``param_grid``, ``params`` (JSON: label -> parameter values;
        read it back with :func:`read_params`) and, with several models, ``model_params``
        (JSON: name -> its labels in grid order).

    Raises
    ------
    TypeError
        ``estimator`` is a class, not an instance; ``cv`` is neither an int nor has
        ``split``; ``stratified`` or ``return_train`` is not a bool; a list ``estimator``
        holds something other than (name, estimator) pairs, or a model name is not a
        non-empty string; ``param_grid`` is not a dict or list of dicts.
    NotAClassifierError
        (a TypeError and a ValueError) ``estimator`` (or a model ``estimator[name]``) is a
        regressor or lacks ``fit``/``predict``.
    ValueError
        ``X``, ``y`` or ``groups`` of different lengths; missing or mixed-type labels; a
        continuous ``y``; ``pos_label`` not a class of ``y``, or given for a multiclass or
        multilabel ``y``; predictions that are not labels of ``y``; a group splitter without
        ``groups``; a class with fewer samples than stratified folds; an invalid ``cv``,
        ``repeats``, ``scores``; an empty ``estimator`` dict/list or a model name given twice;
        a ``param_grid`` naming parameters the estimator lacks, giving no or duplicate
        candidates, or (several models) not keyed by model names.

    See Also
    --------
    sklearn.model_selection.cross_val_score : keeps one number per fold (for F1, the
        per-fold F that averages into F_avg).
    sklearn.model_selection.cross_val_predict : the pooled predictions (F_tp,fp), but only
        for partitions and without fold labels.
    to_counts : the counts cube of a frame, including ``subset`` and multilabel frames.

    Notes
    -----
    With the same splitter, ``frame.cv.counts().cv.f_avg()`` equals
    ``cross_val_score(estimator, X, y, cv=splitter, scoring="f1").mean()`` and
    ``f_tp_fp()`` equals ``f1_score(y, cross_val_predict(estimator, X, y, cv=splitter))``;
    Forman & Scholz (2010) show F_tp,fp is the unbiased choice.

    References
    ----------
    Forman, G. & Scholz, M. (2010). Apples-to-Apples in Cross-Validation Studies: Pitfalls
    in Classifier Performance Measurement. SIGKDD Explorations 12(1), 49-57.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.naive_bayes import GaussianNB
    >>> import cvframe
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> frame = cvframe.cross_validate(GaussianNB(), X, y, cv=5)
    >>> list(frame.columns)
    ['repeat', 'fold', 'sample', 'y_true', 'y_pred', 'score']
    >>> len(frame) == len(y), frame.attrs["stratified"], frame.attrs["test_sets"]
    (True, 'yes', 'partition')
    >>> frame.attrs["splitter"]
    'StratifiedKFold(n_splits=5, random_state=None, shuffle=False)'
    >>> rep = cvframe.cross_validate(GaussianNB(), X, y, cv=5, repeats=3, random_state=0)
    >>> rep.groupby("repeat")["sample"].nunique().tolist()
    [569, 569, 569]

    Several models on the same splits, in the order given; a grid for one of them:

    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> models = {"nb": GaussianNB(), "lr": make_pipeline(StandardScaler(), LogisticRegression())}
    >>> both = cvframe.cross_validate(models, X, y, cv=5, random_state=0,
    ...                               param_grid={"lr": {"logisticregression__C": [0.1, 1.0]}})
    >>> list(both.columns[:2]), list(both["model"].cat.categories)
    (['model', 'param'], ['nb', 'lr'])
    >>> list(both["param"].cat.categories)
    ['(as given)', 'logisticregression__C=0.1', 'logisticregression__C=1.0']
    >>> ds = both.cv.counts(dims=["model", "param"])
    >>> lr = ds.sel(model="lr", param=["logisticregression__C=0.1", "logisticregression__C=1.0"])
    >>> (lr.cv.f_tp_fp() > 0.95).values.ravel().tolist()
    [True, True]
    """
    models = _models(estimator)
    grids = _grids(param_grid, models, isinstance(estimator, (Mapping, list, tuple)))
    stratified = _checks.flag("stratified", stratified)
    return_train = _checks.flag("return_train", return_train)
    if progress is not None:
        progress = _checks.flag("progress", progress)
    n = _n_samples(X)
    target = _Target(y, n, pos_label)
    if groups is not None:
        groups = _check_groups(groups, n)
    splitter, strat = _make_splitter(cv, repeats, stratified, random_state, target)
    methods = [_score_method(est, scores, _where(name, est)) for name, est in models]
    splits = _splits(splitter, X, target, groups)  # once: every model is fit on these splits
    n_rep = _n_repeats(splitter, len(splits))

    tasks = [
        (est, params, _where(name, est, label))
        for (name, est), grid in zip(models, grids, strict=True)
        for label, params in grid
    ]
    task_methods = [m for m, grid in zip(methods, grids, strict=True) for _ in grid]
    results = _run(tasks, task_methods, X, target.fit_y, splits, return_train, n_jobs, progress)
    blocks, n_absent = [], 0
    for (_, _, where), method, res in zip(tasks, task_methods, results, strict=True):
        block, absent = _assemble(res, splits, n_rep, target, method, return_train, where)
        blocks.append(block)
        n_absent += absent
    if n_absent:
        warnings.warn(
            f"{n_absent} (split, class) pairs had the class missing from the training set; "
            "decision_function gives no score for it, so those score_<label> entries are NaN.",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
    frame = _stack(blocks, models, grids)
    silent = [name for (name, _), m in zip(models, methods, strict=True) if m is None]
    if scores == "auto" and silent and len(silent) < len(models):
        warnings.warn(
            f"estimator models {few(silent)} have neither predict_proba nor "
            "decision_function, so their score entries are NaN; score metrics (auc, ...) "
            "need their rows dropped, e.g. frame[frame.model != name].",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
    frame.attrs.update(
        {
            "stratified": strat,
            "splitter": _splitter_repr(splitter),
            "task": target.task,
            "test_sets": _test_sets(splits, n_rep, n),
            "scores": _scores_attr(methods),
        }
    )
    if target.task == "binary":
        frame.attrs["pos_label"] = target.pos_label
    if target.task in ("multiclass", "multilabel"):
        frame.attrs["labels"] = list(target.labels)
    frame.attrs.update(_grid_attrs(models, grids, methods))
    return frame


# --- input checks -------------------------------------------------------------------------


class NotAClassifierError(TypeError, ValueError):
    """The estimator given to :func:`cross_validate` is not a classifier (a regressor, or an
    object without ``fit``/``predict``); a TypeError and a ValueError."""


def _check_estimator(estimator: Any, arg: str = "estimator") -> None:
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
    if _is_regressor(estimator):
        raise NotAClassifierError(
            f"{arg}={name} is a regressor, not a classifier; cross_validate evaluates "
            "classifiers (their predictions are class labels). Pass a classifier, e.g. "
            "LogisticRegression instead of LinearRegression."
        )


def _is_regressor(estimator: Any) -> bool:
    """scikit-learn's own answer (tags or ``_estimator_type``), never an error."""
    if getattr(estimator, "_estimator_type", None) == "regressor":
        return True
    try:
        from sklearn.base import is_regressor

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return bool(is_regressor(estimator))
    except Exception:  # noqa: BLE001 - objects outside scikit-learn have no tags
        return False


def _n_samples(X: Any) -> int:
    from sklearn.utils.validation import _num_samples

    try:
        return int(_num_samples(X))
    except TypeError as err:
        raise TypeError(
            f"X must be array-like (numpy array, pandas DataFrame, sparse matrix or list) of "
            f"shape (n_samples, ...); got {type(X).__name__}: {err}"
        ) from None


def _check_groups(groups: Any, n: int) -> np.ndarray:
    g = np.asarray(groups)
    if g.ndim != 1 or len(g) != n:
        raise ValueError(
            f"groups has shape {g.shape} but X has {n} samples; pass one group label per sample."
        )
    return g


class _Target:
    """The validated target: task, label universe, what the estimator is fitted on.

    The class universe, its order and the positive class follow :mod:`cvframe._labels`
    (the policy :func:`cvframe.from_predictions` and the score functions use), so the frame's
    ``attrs["pos_label"]`` is the class every later step treats as positive.
    """

    def __init__(self, y: Any, n: int, pos_label: Hashable | None) -> None:
        if y is None:
            raise ValueError("y is None; cross_validate needs the class label of every sample.")
        self.series: pd.Series | None = None
        if hasattr(y, "toarray"):  # sparse indicator matrix
            y = y.toarray()
        if isinstance(y, pd.DataFrame) and y.shape[1] > 1:
            self._init_multilabel(y.to_numpy(), list(y.columns), n, pos_label)
            return
        original = y.iloc[:, 0] if isinstance(y, pd.DataFrame) else y
        values = _labels.as_labels(y, "y", allow_2d=True)
        if getattr(values, "ndim", 1) == 2:
            self._init_multilabel(np.asarray(values), list(range(values.shape[1])), n, pos_label)
            return
        if len(values) != n:
            raise ValueError(
                f"X has {n} samples but y has {len(values)}; they must have the same length "
                "(one label per row of X)."
            )
        miss = np.asarray(pd.isna(values), dtype=bool)
        if miss.any():
            raise ValueError(
                f"y has {int(miss.sum())} missing labels (None/NaN/NA) at positions "
                f"{few(np.flatnonzero(miss))}; drop those samples or give them a label."
            )
        if (
            isinstance(values, np.ndarray)
            and values.dtype.kind == "f"
            and not np.all(values == np.round(values))
        ):
            bad = values[values != np.round(values)]
            raise ValueError(
                f"y looks continuous (values {few(bad)}); cross_validate evaluates "
                "classifiers: pass class labels."
            )
        if isinstance(values, pd.Categorical):  # its categories are the class universe
            labels, from_data = [_labels.plain(c) for c in values.categories], False
        else:
            labels, from_data = _labels.merge([_labels.observed(values, "y")], "y"), True
        if isinstance(values, pd.Categorical):  # unused categories are no samples
            used = np.bincount(values.codes, minlength=len(labels)) > 0
            present = [c for c, u in zip(labels, used, strict=True) if u]
        else:
            present = labels
        if len(present) < 2:
            raise ValueError(
                f"y has a single class {few(present)}; a classifier needs at least two."
            )
        self.labels = list(labels)
        self.task = "binary" if len(labels) == 2 else "multiclass"
        if (
            isinstance(original, pd.Series)
            and len(original) == n
            and not isinstance(values, pd.Categorical)
        ):
            self.series = original.reset_index(drop=True)
        else:
            self.series = pd.Series(values)
        if isinstance(values, pd.Categorical) or not isinstance(values, np.ndarray):
            self.fit_y = np.asarray(values, dtype=object)
        else:
            self.fit_y = values
        self.split_y = self.fit_y
        self.pos_label = None
        if pos_label is not None:
            self.pos_label = _labels.binary_pos(self.labels, from_data, pos_label)
        elif self.task == "binary":
            self.pos_label = _default_pos(self.labels)

    def _init_multilabel(
        self, arr: np.ndarray, names: list[Any], n: int, pos_label: Hashable | None
    ) -> None:
        _labels.binary_pos([], False, pos_label, multilabel=True)  # pos_label refused
        if arr.shape[0] != n:
            raise ValueError(
                f"X has {n} samples but y has {arr.shape[0]}; they must have the same length "
                "(one label row per row of X)."
            )
        if pd.isna(arr).any():
            raise ValueError(
                f"y has {int(pd.isna(arr).sum())} missing entries; a multilabel indicator "
                "must be 0/1 everywhere."
            )
        vals = np.unique(arr)
        if not set(vals.tolist()) <= {0, 1}:
            raise ValueError(
                f"2-D y must be a 0/1 indicator array for multilabel data; it holds "
                f"{few(v for v in vals if v not in (0, 1))}."
            )
        self.task = "multilabel"
        self.labels = [_labels.plain(c) for c in names]
        self.fit_y = arr.astype(np.int64)
        self.split_y = self.fit_y
        self.series = None
        self.pos_label = None


def _default_pos(labels: list[Hashable]) -> Hashable:
    """The class whose score fills the ``score`` column when no ``pos_label`` is given.

    {0, 1} and {False, True} give 1 / True (the policy of :func:`cvframe._labels.binary_pos`);
    any other pair gives the last label in class order (sorted, or the category order), and
    the frame records it in ``attrs["pos_label"]``, which the cube and the scores then use.
    """
    try:
        pos = _labels.binary_pos(labels, True, None)
    except ValueError:
        return labels[-1]
    return labels[-1] if pos is None else pos


# --- several models and a param grid ---------------------------------------------------

#: The ``param`` label of a model run with its parameters as given (no grid, or ``{}``).
AS_GIVEN = "(as given)"


def _models(estimator: Any) -> list[tuple[str | None, Any]]:
    """``[(name, estimator)]``: one ``(None, estimator)`` or the named models, checked."""
    if isinstance(estimator, Mapping):
        pairs = list(estimator.items())
        kind = "dict"
    elif isinstance(estimator, (list, tuple)):
        pairs = []
        for i, item in enumerate(estimator):
            if not (isinstance(item, tuple) and len(item) == 2):
                raise TypeError(
                    f"estimator[{i}] is {type(item).__name__}; a list estimator must hold "
                    "(name, estimator) pairs, e.g. [('lr', LogisticRegression()), "
                    "('nb', GaussianNB())], or pass a dict {name: estimator}."
                )
            pairs.append(item)
        kind = "list"
    else:
        _check_estimator(estimator)
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
        _check_estimator(est, f"estimator[{name!r}]")
    return pairs


def _where(name: str | None, est: Any, label: str | None = None) -> str:
    """How messages name one model (and candidate) of the call."""
    out = (
        f"estimator={type(est).__name__}"
        if name is None
        else f"estimator[{name!r}] ({type(est).__name__})"
    )
    return out if label is None else f"{out} with {label}"


def _grids(
    param_grid: Any, models: list[tuple[str | None, Any]], several: bool
) -> list[list[tuple[str | None, dict[str, Any]]]]:
    """Per model, its candidates ``[(label, params)]`` in grid order (``[(None, {})]``: none)."""
    if param_grid is None:
        return [[(None, {})] for _ in models]
    if not several:
        return [_candidates(param_grid, models[0][1], "param_grid")]
    names = [name for name, _ in models]
    if not isinstance(param_grid, Mapping) or not set(param_grid) <= set(names):
        keys = list(param_grid) if isinstance(param_grid, Mapping) else param_grid
        raise ValueError(
            f"param_grid={keys!r} does not name the models; with several models param_grid "
            f"maps model names {few(names)} to grids, e.g. param_grid={{{names[0]!r}: "
            "{'C': [0.1, 1.0]}} (a model without a grid runs as given)."
        )
    return [
        _candidates(param_grid[name], est, f"param_grid[{name!r}]")
        if name in param_grid
        else [(AS_GIVEN, {})]
        for name, est in models
    ]


def _candidates(grid: Any, estimator: Any, arg: str) -> list[tuple[str | None, dict[str, Any]]]:
    from sklearn.model_selection import ParameterGrid

    if isinstance(grid, (str, bytes)) or not isinstance(grid, (Mapping, list, tuple)):
        raise TypeError(
            f"{arg}={grid!r} must be a dict of parameter lists or a list of such dicts, as for "
            "scikit-learn's ParameterGrid, e.g. {'C': [0.1, 1.0]}."
        )
    try:
        candidates = list(ParameterGrid(grid))
    except (TypeError, ValueError) as err:
        raise type(err)(f"{arg}: {err}") from None
    if not candidates:
        raise ValueError(f"{arg}={grid!r} holds no candidate; give at least one.")
    valid = set(estimator.get_params(deep=True)) if hasattr(estimator, "get_params") else set()
    unknown = sorted({k for c in candidates for k in c} - valid)
    if unknown:
        raise ValueError(
            f"{arg} names parameter(s) {few(unknown)} that {type(estimator).__name__} does not "
            f"have; its parameters are {few(sorted(valid), 12)}."
        )
    out: list[tuple[str | None, dict[str, Any]]] = []
    seen: dict[str, dict[str, Any]] = {}
    for params in candidates:
        label = param_label(params)
        if label in seen:
            raise ValueError(
                f"{arg} gives the candidate {label!r} twice; each candidate must appear once "
                "(and parameter values must have distinct reprs)."
            )
        seen[label] = params
        out.append((label, params))
    return out


def _value_text(v: Any) -> str:
    v = _labels.plain(v)
    if isinstance(v, (type, type(len))) or (callable(v) and hasattr(v, "__qualname__")):
        return getattr(v, "__qualname__", repr(v))
    return " ".join(repr(v).split())


def param_label(params: Mapping[str, Any]) -> str:
    """The readable label of one candidate: ``name=repr(value)``, names sorted, comma-joined.

    Numpy scalars are shown as the Python values they hold, estimators as their one-line
    repr, functions and classes by name. A candidate without parameters (the estimator as
    given) is ``"(as given)"``. These labels are the ``param`` coordinates of
    :func:`cross_validate` with ``param_grid=``.

    Parameters
    ----------
    params : mapping of str to object
        One candidate of a parameter grid, e.g. an element of scikit-learn's ``ParameterGrid``.

    Returns
    -------
    str

    Examples
    --------
    >>> import numpy as np
    >>> param_label({"penalty": "l2", "C": np.float64(0.1)})
    "C=0.1, penalty='l2'"
    >>> param_label({})
    '(as given)'
    """
    if not isinstance(params, Mapping):
        raise TypeError(f"params={params!r} must be a mapping of parameter names to values.")
    if not params:
        return AS_GIVEN
    return ", ".join(f"{k}={_value_text(params[k])}" for k in sorted(params))


def _jsonable(v: Any) -> Any:
    v = _labels.plain(v)
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, Mapping) and all(isinstance(k, str) for k in v):
        return {k: _jsonable(x) for k, x in v.items()}
    if isinstance(v, np.ndarray):
        return [_jsonable(x) for x in v.tolist()]
    return _value_text(v)


def read_params(obj: Any) -> dict[str, dict[str, Any]]:
    """The parameter values behind the ``param`` labels: ``{label: {name: value}}``.

    :func:`cross_validate` with ``param_grid=`` stores them as a JSON string in
    ``attrs["params"]`` (netCDF-safe, so it survives a cube written to disk); this reads
    them back from a predictions frame, a counts cube or a result carrying those attrs.
    Values that are not JSON (estimators, functions) come back as their label text, and
    tuples as lists.

    Parameters
    ----------
    obj : pandas.DataFrame, xarray.Dataset or xarray.DataArray
        Anything with ``attrs["params"]`` written by :func:`cross_validate`.

    Returns
    -------
    dict
        Label -> parameters, in grid order.

    Raises
    ------
    ValueError
        ``obj`` has no ``attrs["params"]``.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.naive_bayes import GaussianNB
    >>> import cvframe
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> frame = cvframe.cross_validate(GaussianNB(), X, y, cv=3,
    ...                                param_grid={"var_smoothing": [1e-9, 1e-6]})
    >>> list(frame["param"].cat.categories)
    ['var_smoothing=1e-09', 'var_smoothing=1e-06']
    >>> read_params(frame)["var_smoothing=1e-06"]
    {'var_smoothing': 1e-06}
    """
    attrs = getattr(obj, "attrs", None)
    if not isinstance(attrs, Mapping) or "params" not in attrs:
        raise ValueError(
            f"obj ({type(obj).__name__}) has no attrs['params']; it is written by "
            "cvframe.cross_validate(..., param_grid=...)."
        )
    return dict(json.loads(str(attrs["params"])))


def _stack(
    blocks: list[pd.DataFrame],
    models: list[tuple[str | None, Any]],
    grids: list[list[tuple[str | None, dict[str, Any]]]],
) -> pd.DataFrame:
    """One frame of all (model, param) blocks with ``model``/``param`` Categorical columns."""
    has_model = models[0][0] is not None
    has_param = grids[0][0][0] is not None
    if not (has_model or has_param):
        return blocks[0]
    if len(blocks) == 1:
        frame = blocks[0]
    else:
        columns = list(dict.fromkeys(c for b in blocks for c in b.columns))
        if any(list(b.columns) != columns for b in blocks):  # a model without scores
            columns = [c for c in columns if not str(c).startswith("score")] + [
                c for c in columns if str(c).startswith("score")
            ]
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


def _scores_attr(methods: list[str | None]) -> str:
    found = {m or "none" for m in methods}
    return found.pop() if len(found) == 1 else "mixed"


def _grid_attrs(
    models: list[tuple[str | None, Any]],
    grids: list[list[tuple[str | None, dict[str, Any]]]],
    methods: list[str | None],
) -> dict[str, str]:
    """The netCDF-safe (JSON string) attrs of a run with several models or a grid."""
    out: dict[str, str] = {}
    if models[0][0] is not None:
        out["estimators"] = json.dumps(
            {str(name): " ".join(repr(est).split()) for name, est in models}
        )
        out["score_methods"] = json.dumps(
            {str(name): m or "none" for (name, _), m in zip(models, methods, strict=True)}
        )
    if grids[0][0][0] is not None:
        params: dict[str, Any] = {}
        for grid in grids:
            for label, p in grid:
                params.setdefault(str(label), {k: _jsonable(p[k]) for k in sorted(p)})
        out["params"] = json.dumps(params)
        if models[0][0] is not None:
            out["model_params"] = json.dumps(
                {
                    str(name): [str(lb) for lb, _ in grid]
                    for (name, _), grid in zip(models, grids, strict=True)
                }
            )
    return out


# --- the splitter -----------------------------------------------------------------------


def _make_splitter(
    cv: Any, repeats: Any, stratified: bool, random_state: Any, target: _Target
) -> tuple[Any, str]:
    from sklearn import model_selection as ms

    if isinstance(repeats, bool) or not isinstance(repeats, (int, np.integer)) or repeats < 1:
        raise ValueError(f"repeats={repeats!r} is not valid; pass a positive integer.")
    if isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
        if cv < 2:
            raise ValueError(
                f"cv={cv!r} is not valid; k-fold needs at least 2 folds (cv=10 is usual)."
            )
        if stratified and target.task == "multilabel":
            raise ValueError(
                "stratified=True is not defined for multilabel y (scikit-learn's stratified "
                "splitters need one class per sample); pass stratified=False for KFold, or a "
                "multilabel-stratified splitter as cv."
            )
        if repeats > 1:
            cls = ms.RepeatedStratifiedKFold if stratified else ms.RepeatedKFold
            splitter = cls(n_splits=int(cv), n_repeats=int(repeats), random_state=random_state)
        else:
            cls = ms.StratifiedKFold if stratified else ms.KFold
            splitter = (
                cls(n_splits=int(cv))
                if random_state is None
                else cls(n_splits=int(cv), shuffle=True, random_state=random_state)
            )
        strat = "yes" if stratified else "no"
    elif isinstance(cv, (list, tuple)):
        _reject_extras(cv, repeats, random_state)
        splitter = _PairsSplitter(cv)
        strat = "unknown"
    elif not isinstance(cv, str) and callable(getattr(cv, "split", None)):
        _reject_extras(cv, repeats, random_state)
        splitter = cv
        strat = _stratified_of(cv)
        if strat == "yes" and not stratified:
            raise ValueError(
                f"stratified=False contradicts cv={_splitter_repr(cv)}, a stratified "
                "splitter; pass its unstratified counterpart (e.g. KFold) instead."
            )
    else:
        raise TypeError(
            f"cv={cv!r} is neither an int nor a splitter: it has no split(X, y, groups) "
            "method. Pass an int (number of folds), a scikit-learn splitter such as "
            "StratifiedKFold(10), or a list of (train, test) index pairs."
        )
    _check_stratifiable(splitter, target)
    return splitter, strat


def _reject_extras(cv: Any, repeats: Any, random_state: Any) -> None:
    if repeats != 1:
        raise ValueError(
            f"repeats={repeats} applies to an int cv only; with cv={_splitter_repr(cv)} use a "
            "repeated splitter, e.g. RepeatedStratifiedKFold(n_splits=10, n_repeats="
            f"{repeats})."
        )
    if random_state is not None:
        raise ValueError(
            f"random_state={random_state!r} applies to an int cv only; set the splitter's own "
            "random_state instead."
        )


def _stratified_of(cv: Any) -> str:
    from .splits import Bootstrap

    if isinstance(cv, Bootstrap):
        return "no"
    names = {c.__name__ for c in type(cv).__mro__}
    if names & set(_STRATIFIED_SPLITTERS):
        return "yes"
    if names & set(_UNSTRATIFIED_SPLITTERS):
        return "no"
    return "unknown"


def _check_stratifiable(splitter: Any, target: _Target) -> None:
    """A class with fewer samples than stratified folds cannot be in every test fold."""
    from sklearn import model_selection as ms

    if target.task == "multilabel":
        return
    if isinstance(splitter, ms.StratifiedKFold):
        k = splitter.n_splits
    elif isinstance(splitter, ms.RepeatedStratifiedKFold):
        k = splitter.cvargs.get("n_splits", 5)
    else:
        return
    assert target.series is not None
    counts = target.series.value_counts()
    counts = counts[counts > 0]  # unused categories are no samples to stratify
    small = counts[counts < k]
    if len(small):
        raise ValueError(
            f"class(es) {few(small.index.tolist())} have only {few(small.tolist())} samples, "
            f"fewer than the {k} stratified folds, so stratification cannot put them in "
            f"every test fold. Use fewer folds (cv={max(2, int(counts.min()))}), or the "
            "unstratified splitter (stratified=False, or cv=KFold(...)) and let cvframe count "
            "the folds without that class under its zero_division policy."
        )


class _PairsSplitter:
    """A list of (train, test) index pairs as a splitter."""

    def __init__(self, pairs: Sequence[Any]) -> None:
        self.pairs = list(pairs)

    def split(self, X: Any, y: Any = None, groups: Any = None) -> Any:
        for i, pair in enumerate(self.pairs):
            if not (isinstance(pair, (list, tuple)) and len(pair) == 2):
                raise ValueError(
                    f"cv[{i}] is {type(pair).__name__}; a list cv must hold (train, test) "
                    "index pairs."
                )
            yield np.asarray(pair[0]), np.asarray(pair[1])

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        return len(self.pairs)

    def __repr__(self) -> str:
        return f"list of {len(self.pairs)} (train, test) pairs"


def _splitter_repr(cv: Any) -> str:
    if isinstance(cv, (list, tuple)):
        return repr(_PairsSplitter(cv))
    return " ".join(repr(cv).split())


def _splits(
    splitter: Any, X: Any, target: _Target, groups: Any
) -> list[tuple[np.ndarray, np.ndarray]]:
    from sklearn.model_selection._split import GroupsConsumerMixin

    name = _splitter_repr(splitter)
    if groups is None and isinstance(splitter, GroupsConsumerMixin):
        raise ValueError(
            f"cv={name} splits by group and needs groups=: pass one group label per sample "
            "(e.g. the patient or subject id), or use a splitter without groups."
        )
    try:
        splits = [
            (np.asarray(tr), np.asarray(te)) for tr, te in splitter.split(X, target.split_y, groups)
        ]
    except ValueError as err:
        msg = str(err)
        hint = ""
        if "class" in msg or "member" in msg:
            hint = (
                " A class is too small for this stratified splitter: use fewer splits or "
                "an unstratified splitter (stratified=False, KFold, ShuffleSplit)."
            )
        elif "groups" in msg:
            hint = " Pass groups= (one group label per sample)."
        elif "multilabel" in msg or "target types" in msg:
            hint = " Use an unstratified splitter (e.g. KFold) for multilabel y."
        raise ValueError(f"cv={name} could not split the data: {msg}{hint}") from err
    if not splits:
        raise ValueError(f"cv={name} produced no splits; nothing to cross-validate.")
    n = len(target.fit_y)
    for i, (tr, te) in enumerate(splits):
        for what, idx in (("train", tr), ("test", te)):
            if idx.dtype.kind == "b":
                raise ValueError(
                    f"split {i} of cv={name} gives a boolean {what} mask; splits must be "
                    "integer index arrays."
                )
            if idx.size and (idx.dtype.kind not in "iu" or idx.min() < 0 or idx.max() >= n):
                bad = idx[(idx < 0) | (idx >= n)] if idx.dtype.kind in "iu" else idx[:3]
                raise ValueError(
                    f"split {i} of cv={name} has {what} indices {few(bad)} outside "
                    f"0..{n - 1}; splits must index the rows of X."
                )
        if tr.size == 0:
            raise ValueError(f"split {i} of cv={name} has an empty training set.")
    return splits


def _n_repeats(splitter: Any, n_splits: int) -> int:
    r = getattr(splitter, "n_repeats", None)
    if isinstance(r, (int, np.integer)) and r >= 1 and n_splits % r == 0:
        return int(r)
    return 1


def _test_sets(splits: list[tuple[np.ndarray, np.ndarray]], n_rep: int, n: int) -> str:
    per = len(splits) // n_rep
    times = np.zeros((n_rep, n), dtype=np.int64)
    for i, (_, te) in enumerate(splits):
        np.add.at(times[i // per], te, 1)
    if (times == 1).all():
        return "partition"
    if (times <= 1).all():
        return "disjoint"
    return "overlapping"


# --- fitting ------------------------------------------------------------------------------


def _score_method(estimator: Any, scores: Any, where: str = "") -> str | None:
    for valid in _SCORE_METHODS:
        if scores is valid or (isinstance(scores, str) and scores == valid):
            break
    else:
        raise ValueError(
            f"scores={scores!r} is not valid; expected one of {list(_SCORE_METHODS)!r}."
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


def _show_progress(progress: bool | None) -> bool:
    if progress is not None:
        return bool(progress)
    env = os.environ.get("CVFRAME_PROGRESS", "").strip().lower()
    if env in ("0", "false", "no", "off"):
        return False
    if env in ("1", "true", "yes", "on"):
        return True
    return bool(getattr(sys.stderr, "isatty", lambda: False)())


def _run(
    tasks: list[tuple[Any, dict[str, Any], str]],
    methods: list[str | None],
    X: Any,
    y: np.ndarray,
    splits: list[Any],
    return_train: bool,
    n_jobs: int | None,
    progress: bool | None,
) -> list[list[Any]]:
    """Fit every (model, param) task on every split: one joblib pool over all fits.

    Returns, per task, its results in split order (the pool's order does not matter).
    """
    from sklearn.utils.parallel import Parallel, delayed
    from tqdm.auto import tqdm

    n_splits = len(splits)
    jobs = (
        delayed(_fit_predict)(est, params, X, y, tr, te, method, return_train, i, where)
        for (est, params, where), method in zip(tasks, methods, strict=True)
        for i, (tr, te) in enumerate(splits)
    )
    parallel = Parallel(n_jobs=n_jobs, return_as="generator")
    total = len(tasks) * n_splits
    with tqdm(
        total=total, desc="cross_validate", unit="fit", disable=not _show_progress(progress)
    ) as bar:
        flat = []
        for res in parallel(jobs):
            flat.append(res)
            bar.update(1)
    return [flat[t * n_splits : (t + 1) * n_splits] for t in range(len(tasks))]


def _fit_predict(
    estimator: Any,
    params: dict[str, Any],
    X: Any,
    y: np.ndarray,
    train: np.ndarray,
    test: np.ndarray,
    method: str | None,
    return_train: bool,
    split: int,
    where: str,
) -> dict[str, Any]:
    from sklearn.base import clone
    from sklearn.utils import _safe_indexing

    est = clone(estimator, safe=False)
    if params:
        est.set_params(**params)
    try:
        est.fit(_safe_indexing(X, train), y[train])
    except Exception as err:  # noqa: BLE001 - re-raised with the split that failed
        err.add_note(f"cvframe.cross_validate: while fitting split {split} of {where}.")
        raise
    out: dict[str, Any] = {"classes": getattr(est, "classes_", None)}
    subsets = [(TEST, test)] + ([(TRAIN, train)] if return_train else [])
    for name, idx in subsets:
        if idx.size == 0:
            out[name] = (None, None)
            continue
        Xs = _safe_indexing(X, idx)
        pred = est.predict(Xs)
        score = getattr(est, method)(Xs) if method else None
        out[name] = (pred, score)
    return out


# --- the frame ----------------------------------------------------------------------------


def _assemble(
    results: list[dict[str, Any]],
    splits: list[Any],
    n_rep: int,
    target: _Target,
    method: str | None,
    return_train: bool,
    estimator_name: str,
) -> tuple[pd.DataFrame, int]:
    per = len(splits) // n_rep
    subsets = [TEST, TRAIN] if return_train else [TEST]
    parts: dict[str, list[Any]] = {k: [] for k in (SUBSET, REPEAT, FOLD, SAMPLE)}
    preds: list[np.ndarray] = []
    score_parts: list[np.ndarray] = []
    n_absent = 0
    for sub in subsets:
        for i, ((tr, te), res) in enumerate(zip(splits, results, strict=True)):
            idx = te if sub == TEST else tr
            parts[SUBSET].append(np.full(idx.size, sub, dtype=object))
            parts[REPEAT].append(np.full(idx.size, i // per, dtype=np.int64))
            parts[FOLD].append(np.full(idx.size, i % per, dtype=np.int64))
            parts[SAMPLE].append(idx.astype(np.int64))
            pred, score = res[sub]
            if idx.size == 0:
                continue
            pred = np.asarray(pred.toarray() if hasattr(pred, "toarray") else pred)
            _check_predictions(pred, target, estimator_name, i)
            preds.append(pred)
            if method:
                s, absent = _align_scores(score, res["classes"], target, method)
                n_absent += absent
                score_parts.append(s)
    sample = np.concatenate(parts[SAMPLE])
    cols: dict[str, Any] = {}
    if return_train:
        cols[SUBSET] = np.concatenate(parts[SUBSET])
    cols[REPEAT] = np.concatenate(parts[REPEAT])
    cols[FOLD] = np.concatenate(parts[FOLD])
    cols[SAMPLE] = sample
    labels = target.labels
    n_rows = sample.size
    if target.task == "multilabel":
        y_pred = np.concatenate(preds) if preds else np.zeros((0, len(labels)))
        for j, c in enumerate(labels):
            cols[f"y_true_{c}"] = target.fit_y[sample, j]
        for j, c in enumerate(labels):
            cols[f"y_pred_{c}"] = y_pred[:, j].astype(np.int64)
    else:
        assert target.series is not None
        y_true = target.series.iloc[sample].reset_index(drop=True)
        y_pred = np.concatenate(preds) if preds else np.empty(0, dtype=target.fit_y.dtype)
        if isinstance(target.series.dtype, pd.CategoricalDtype):
            y_pred = pd.Categorical(y_pred, dtype=target.series.dtype)
        cols["y_true"] = y_true
        cols["y_pred"] = y_pred
    if method:
        S = np.concatenate(score_parts) if score_parts else np.zeros((0, len(labels)))
        if target.task == "binary":
            cols["score"] = S[:, labels.index(target.pos_label)]
        else:
            for j, c in enumerate(labels):
                cols[f"score_{c}"] = S[:, j]
    frame = pd.DataFrame(cols, index=pd.RangeIndex(n_rows))
    return frame, n_absent


def _check_predictions(pred: np.ndarray, target: _Target, name: str, split: int) -> None:
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
    if unknown:
        raise ValueError(
            f"{name} predicted labels {few(unknown)} in split {split} that are not "
            f"classes of y {few(target.labels)}; cross_validate needs predictions that are "
            "labels of y (a classifier fitted on y as given, not on transformed labels)."
        )


def _align_scores(score: Any, classes: Any, target: _Target, method: str) -> tuple[np.ndarray, int]:
    """Scores of one split as an (m, n_labels) array in the order of target.labels."""
    labels = target.labels
    fill = 0.0 if method == "predict_proba" else np.nan
    if target.task == "multilabel":
        if isinstance(score, list):  # one (m, k_j) array per label (e.g. RandomForest)
            m = score[0].shape[0]
            out = np.full((m, len(labels)), fill)
            for j, s in enumerate(score):
                cl = list(np.asarray(classes[j]).tolist()) if isinstance(classes, list) else [0, 1]
                s = np.asarray(s)
                if 1 in cl:
                    out[:, j] = s[:, cl.index(1)]
            return out, 0
        return np.asarray(score, dtype=float), 0
    score = np.asarray(score, dtype=float)
    cl = [_labels.plain(c) for c in np.asarray(classes).tolist()]
    if score.ndim == 1:  # binary decision_function: the score of classes_[1]
        if len(cl) != 2:
            raise ValueError(
                f"{method} returned one column but the fitted estimator has classes {few(cl)}."
            )
        score = np.column_stack([-score, score])
    pos = {c: i for i, c in enumerate(cl)}
    out = np.full((score.shape[0], len(labels)), fill)
    absent = 0
    for j, c in enumerate(labels):
        if c in pos:
            out[:, j] = score[:, pos[c]]
        elif method != "predict_proba":
            absent += 1
    return out, absent


# --- the cube -----------------------------------------------------------------------------

#: The counts cube of a :func:`cross_validate` frame (binary, multiclass, multilabel, with a
#: ``subset`` dim for ``return_train=True``): the same function as ``frame.cv.counts()``.
to_counts = counts_from_frame
