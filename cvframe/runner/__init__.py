"""Run real cross-validation: any scikit-learn classifier under any scikit-learn splitter.

:func:`cross_validate` fits clones of an estimator on every split (in parallel with joblib) and
returns the **predictions frame**, one row per tested sample; nothing is reduced. Several models
and the candidates of a ``param_grid`` are fit on one set of splits, drawn once, so their
results are paired. An outer layer: it imports scikit-learn and joblib; the core never imports
it. Wings: :mod:`~cvframe.runner.params` (grids, labels), ``_splitter`` (the target and the
splits) and ``_fit`` (one joblib pool, the rows).
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from .._core import checks as _checks
from .._core import labels as _labels
from .._core.docs import doc
from ..build import counts_from_frame
from ..errors import few, user_stacklevel
from ..schema import DUPLICATE
from ..splits import n_samples
from . import _fit, _splitter
from . import baselines as _baselines
from . import nested as _nested
from ._fit import (
    LONG_SECONDS,
    NotAClassifierError,
    align_scores,
    fit_pool,
    fit_predict,
    progress_bar,
    progress_from_env,
    wants_progress,
)
from ._splitter import Target, n_repeats
from .params import AS_GIVEN, chosen_attrs, grid_attrs, grids_of, param_label, read_params

__all__ = [
    "AS_GIVEN",
    "LONG_SECONDS",
    "NotAClassifierError",
    "align_scores",
    "cross_validate",
    "fit_pool",
    "fit_predict",
    "n_repeats",
    "param_label",
    "progress_bar",
    "progress_from_env",
    "read_params",
    "to_counts",
    "wants_progress",
]

#: The counts cube of a :func:`cross_validate` frame (binary, multiclass, multilabel, with a
#: ``subset`` dim for ``return_train=True``): the same function as ``frame.cv.counts()``.
to_counts = counts_from_frame


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
    return_train_score: bool | None = None,
    baselines: bool = False,
    nested: int | None = None,
    nested_metric: str = "error",
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
        ``KFold(k)``; for a multilabel ``y``, iterative stratification of every label,
        :func:`cvframe.splits.multilabel_kfold`), shuffled with ``random_state`` when one
        is given (unshuffled otherwise, exactly as scikit-learn's ``cv=k``); with
        ``repeats > 1``,
        ``RepeatedStratifiedKFold(n_splits=k, n_repeats=repeats, random_state=random_state)``
        (or ``RepeatedKFold``): a seeded reshuffle per repeat. Otherwise any object with
        ``split(X, y, groups)``: KFold, StratifiedKFold, Repeated*, ShuffleSplit and
        StratifiedShuffleSplit for (repeated) holdout, LeaveOneOut, LeavePOut, GroupKFold,
        :class:`cvframe.splits.Bootstrap`, ...
    repeats : int, default 1
        Number of repeats of an int ``cv``. With a splitter object use a Repeated* splitter.
    stratified : bool, default True
        For an int ``cv``: stratified folds (every fold keeps the class proportions; for
        multilabel ``y`` every label's proportion, as far as the counts allow).
        With a splitter object the splitter decides and the frame records what it is;
        ``stratified=False`` together with a stratified splitter raises.
    groups : array-like of shape (n_samples,), optional
        Group labels for group splitters (GroupKFold, LeaveOneGroupOut, ...). Refused with
        a splitter that ignores them (an int ``cv``, KFold, ...): its folds would mix groups.
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
        context, ``-1`` = all cores). Results do not depend on it. With more than one worker
        every fit runs with one BLAS/OpenMP thread (threadpoolctl), so n workers use n
        threads, not n times the cores.
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
        A ``tqdm.auto`` progress bar over the fits (splits × models × candidates): a widget in
        Jupyter, text on stderr elsewhere. ``True`` shows it, ``False`` hides it; ``None``
        follows ``CVFRAME_PROGRESS`` (``0``/``1``) when set, else shows it in a terminal or a
        Jupyter kernel once the fits have run ``cvframe.runner.LONG_SECONDS`` (2 s), so a
        quick call prints nothing (:func:`wants_progress`).
    return_train_score : bool or None, default None
        scikit-learn's name for ``return_train``: the same flag, the same rows (``subset``
        ``"train"``), so ``frame.cv.counts()`` has a ``subset`` dim and every metric gives
        the train-test gap (``f_avg()`` on it equals the mean of scikit-learn's
        ``train_score`` and ``test_score``). A train score is computed from the train
        rows as every cvframe number is from rows; passing ``return_train=True`` with
        ``return_train_score=False`` raises.
    baselines : bool, default False
        Also fit scikit-learn's ``DummyClassifier(strategy="prior")`` and
        ``DummyClassifier(strategy="stratified", random_state=random_state or 0)`` on the
        same splits, as models ``"dummy_prior"`` and ``"dummy_stratified"`` after the
        user's models (:data:`cvframe.runner.baselines.BASELINES`). The frame then has a
        ``model`` column even for a single estimator, which is named by its class in lower
        case (``"logisticregression"``, as ``make_pipeline`` names steps; a
        ``param_grid`` then belongs to it); ``attrs["baselines"]`` lists the baseline
        names and ``frame.cv.counts()`` keeps it. A user's model with one of these names
        raises. The baselines give ``predict_proba`` scores whatever ``scores`` names.
    nested : int or None, default None
        Also run nested cross-validation with this many repetitions (Bates, Hastie &
        Tibshirani 2024, Algorithm 1): for every repetition a new partition into the run's
        ``k`` folds (``RepeatedStratifiedKFold(n_splits=k, n_repeats=nested,
        random_state=...)``, ``RepeatedKFold`` when unstratified, the multilabel one for
        multilabel ``y``; seeded by ``random_state`` or the splitter's own), and for every
        outer fold the outer fit and an inner (k-1)-fold CV on its training set. The fit
        without folds ``k`` and ``k'`` tests both, so a repetition costs ``k + k(k-1)/2``
        fits per model, on top of the ordinary run, which is kept as it is. The result
        is ``attrs["nested_cv"]`` (see Returns); it needs k-fold splits with ``k >= 3``
        and refuses ``param_grid`` (tune inside the estimator, e.g. ``GridSearchCV``) and
        ``groups``. The bar of ``progress`` covers these fits too.
    nested_metric : {"error", "accuracy", "brier", "log_loss"}, default "error"
        The per-sample loss nested CV estimates: 0/1 error (multilabel: subset error),
        accuracy (its complement), or from ``predict_proba`` the Brier score (sum over
        classes, halved for two classes, as scikit-learn) and the log-loss. F and AUC are
        not means over samples and have no nested estimate.

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
          ``frame.cv.counts()`` (= :func:`to_counts`) builds its cube;
        - ``train_duplicate`` (bool, last): True for a test row whose feature vector equals
          a training row of the same split, exactly or up to a relative 1e-6 in every
          numeric feature (the row was seen in training: the "twinning" leak), False
          otherwise and on train rows. Rows of ``X`` are hashed once
          (``pandas.util.hash_pandas_object``) and near-equal rows found by one sorted
          random projection (:mod:`cvframe.runner.twins`); O(n) per split; not made for a
          sparse ``X`` (``attrs["train_duplicate"]`` says why).

        ``frame.attrs``: ``stratified`` ("yes", "no" or "unknown"; "partial" when a
        stratified splitter left some test folds without a class's positives, e.g. a
        multilabel label with fewer positives than folds, and then ``unstratified_labels``
        lists those classes: ``anomalies`` reports each as ``label_not_stratified``; "no"
        when that befell every class), ``splitter`` (repr of the splitter), ``task``,
        ``test_sets``, ``scores`` (the method used or "none"), ``pos_label`` (binary) and
        ``labels`` (multiclass and multilabel: the class universe, so a class never
        predicted nor tested in a fold is still a class).
        With several models ``scores`` is the common method or ``"mixed"``, and JSON strings
        (netCDF-safe) ``estimators`` (name -> one-line repr) and ``score_methods`` (name ->
        method or "none"); with ``param_grid``, ``params`` (JSON: label -> parameter values;
        read it back with :func:`read_params`) and, with several models, ``model_params``
        (JSON: name -> its labels in grid order). ``train_duplicate``: ``"computed"`` or
        ``"skipped: ..."`` with the reason. With ``baselines=True``, ``baselines``: the list
        ``["dummy_prior", "dummy_stratified"]``. With ``nested``, ``nested_cv``: a dict
        ``{model name: {"metric", "estimate", "se", "bias", "cv_estimate", "mse",
        "n_train", "repeats", "k", "fits"}}`` (a single estimator without a ``model``
        column is its one entry, under its lower-case class name): ``estimate`` is the
        nested CV point estimate (mean of the inner losses), ``bias`` the estimated bias
        of it for a model trained on all ``n_train`` samples, ``se`` its standard error, so
        the interval is ``estimate - bias ± z * se``; ``cv_estimate`` the mean of the outer
        losses, ``mse`` the estimated mean squared error of the CV estimate before
        rescaling, ``fits`` the number of fits of that model.

    Raises
    ------
    TypeError
        ``estimator`` is a class, not an instance; ``cv`` is neither an int nor has
        ``split``; ``stratified``, ``return_train``, ``return_train_score`` or ``baselines``
        is not a bool; a list ``estimator``
        holds something other than (name, estimator) pairs, or a model name is not a
        non-empty string; ``param_grid`` is not a dict or list of dicts.
    NotAClassifierError
        (a TypeError and a ValueError) ``estimator`` (or a model ``estimator[name]``) is a
        regressor or lacks ``fit``/``predict``.
    ValueError
        ``X``, ``y`` or ``groups`` of different lengths; missing or mixed-type labels; a
        continuous ``y``; ``pos_label`` not a class of ``y``, or given for a multiclass or
        multilabel ``y``; predictions that are not labels of ``y``; a group splitter without
        ``groups``, or ``groups`` (or missing group labels) for a splitter that ignores them;
        a class with fewer samples than stratified folds; an invalid ``cv``, ``repeats``,
        ``scores``, ``n_jobs`` or ``random_state`` (a numpy Generator included); an empty
        ``estimator`` dict/list or a model name given twice; a ``param_grid`` naming
        parameters the estimator lacks, giving no or duplicate candidates, or (several
        models) not keyed by model names; a model named ``dummy_prior`` or
        ``dummy_stratified`` with ``baselines=True``; ``return_train=True`` with
        ``return_train_score=False``; an invalid ``nested`` or ``nested_metric``, or
        ``nested`` with ``param_grid``, ``groups``, test sets that are not a partition,
        fewer than 3 folds, or (Brier, log-loss) a model without ``predict_proba``.

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
    <<reference>>

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.naive_bayes import GaussianNB
    >>> import cvframe
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> frame = cvframe.cross_validate(GaussianNB(), X, y, cv=5)
    >>> list(frame.columns)
    ['repeat', 'fold', 'sample', 'y_true', 'y_pred', 'score', 'train_duplicate']
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
    return_train = _train_flag(return_train, return_train_score)
    if _checks.flag("baselines", baselines):
        estimator, param_grid = _baselines.with_baselines(estimator, param_grid, random_state)
    models = _fit.models_of(estimator)
    grids = grids_of(param_grid, models, isinstance(estimator, (Mapping, list, tuple)))
    stratified = _checks.flag("stratified", stratified)
    if progress is not None:
        progress = _checks.flag("progress", progress)
    n = n_samples(X)
    target = Target(y, n, pos_label)
    _splitter.check_multilabel_models(models, target)
    groups = _splitter.check_groups(groups, n)
    n_nested, nested_metric = _nested.check(
        nested, nested_metric, param_grid=param_grid, groups=groups, task=target.task
    )
    splitter, strat = _splitter.make_splitter(cv, repeats, stratified, random_state, target)
    methods = [
        _fit.score_method(est, _baselines.baseline_scores(name, scores), _fit.where_of(name, est))
        for name, est in models
    ]
    splits = _splitter.splits(splitter, X, target, groups)  # once: every model fits on these
    lacking = _splitter.unstratified(splits, target) if strat == "yes" else []
    if lacking:  # stratified as far as the counts allowed: not for these labels
        strat = "partial" if len(lacking) < len(target.labels) else "no"
    n_rep = n_repeats(splitter, len(splits))
    test_sets = _splitter.partition_kind(splits, n_rep, n)
    if n_nested:
        cv_text = _splitter.splitter_repr(splitter)
        named = [(name or _baselines.model_name(est), est) for name, est in models]
        _nested.check_design(named, nested_metric, len(splits) // n_rep, test_sets, cv_text)
    tasks = [
        (est, params, _fit.where_of(name, est, label))
        for (name, est), grid in zip(models, grids, strict=True)
        for label, params in grid
    ]
    task_methods = [m for m, grid in zip(methods, grids, strict=True) for _ in grid]
    results = _fit.run(tasks, task_methods, X, target.fit_y, splits, return_train, n_jobs, progress)
    blocks, n_absent = [], 0
    for (_, _, where), method, res in zip(tasks, task_methods, results, strict=True):
        block, absent = _fit.assemble(res, splits, n_rep, target, method, return_train, where)
        blocks.append(block)
        n_absent += absent
    if n_absent:
        warnings.warn(
            f"{n_absent} (split, class) pairs had the class missing from the training set; "
            "decision_function gives no score for it, so those score_<label> entries are NaN.",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
    frame = _fit.stack(blocks, models, grids)
    twins, twins_how = _baselines.train_duplicates(X, splits, return_train)
    if twins is not None:
        frame[DUPLICATE] = np.tile(twins, len(tasks))
    silent = [name for (name, _), m in zip(models, methods, strict=True) if m is None]
    if scores == "auto" and silent and len(silent) < len(models):
        warnings.warn(
            f"estimator models {few(silent)} have neither predict_proba nor "
            "decision_function, so their score entries are NaN; score metrics (auc, ...) "
            "need their rows dropped, e.g. frame[frame.model != name].",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
    found = {m or "none" for m in methods}
    if lacking:
        frame.attrs["unstratified_labels"] = [_labels.plain(c) for c in lacking]
    frame.attrs.update(
        stratified=strat,
        splitter=_splitter.splitter_repr(splitter),
        task=target.task,
        test_sets=test_sets,
        scores=found.pop() if len(found) == 1 else "mixed",
        train_duplicate=twins_how,
    )
    if target.task == "binary":
        _labels.write_pos_label(frame, target.pos_label)
    else:
        frame.attrs["labels"] = list(target.labels)
    frame.attrs.update(grid_attrs(models, grids, methods))
    frame.attrs.update(chosen_attrs(models, grids, results, len(splits) // n_rep))
    if baselines:
        frame.attrs["baselines"] = list(_baselines.BASELINES)
    if n_nested:
        # the run's seed (an int cv) or the splitter's own (random_state= is refused with one)
        seed = getattr(splitter, "random_state", None) if random_state is None else random_state
        frame.attrs["nested_cv"] = _nested.run(
            named,
            X,
            target,
            len(splits) // n_rep,
            n_nested,
            nested_metric,
            strat == "yes",
            seed,
            n_jobs,
            progress,
        )
    return frame


def _train_flag(return_train: Any, return_train_score: Any) -> bool:
    """``return_train`` and scikit-learn's name for it, ``return_train_score``: one flag."""
    return_train = _checks.flag("return_train", return_train)
    if return_train_score is None:
        return return_train
    return_train_score = _checks.flag("return_train_score", return_train_score)
    if return_train and not return_train_score:
        raise ValueError(
            "return_train=True and return_train_score=False contradict each other; they are "
            "one flag (return_train_score is scikit-learn's name for it): pass one of them."
        )
    return return_train or return_train_score
