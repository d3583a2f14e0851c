"""Diagnostics: the findings a person should look at before trusting an aggregate.

Forman & Scholz (2010) warn that anomalies in individual folds "go undiscovered when they
are buried in aggregated results". :func:`anomalies` lists them, one row per finding
(:data:`FINDINGS`): about single folds (:mod:`._folds`) and about the design of the study
(:mod:`._design`). ``fold_table`` and ``methods_table`` live in :mod:`cvframe.tidy` and are
importable from here too.

Cells that are not folds (all four counts 0 or all NaN: the padding of ``xr.concat`` of
cubes with different folds, or of repeats with different fold ids) are read once, by
:func:`cvframe.schema.read_counts`; they raise no finding about folds and enter no test. A
whole cell of the study's dims without a fold (a model never run on a data set) is one
``missing_combination`` finding.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import xarray as xr

from ..errors import few
from ..schema import CLASS, FOLD, SUBSET
from ..tidy import extra_dims, fold_table, methods_table
from . import _design
from ._folds import Findings, fold_findings, loaded, nonneg
from ._group import group_findings
from ._table import COLUMNS, FINDINGS, SEVERITIES, Finding

# fold_table and methods_table are re-exported: they moved to cvframe.tidy
__all__ = [
    "COLUMNS",
    "FINDINGS",
    "KINDS",
    "SEVERITIES",
    "Finding",
    "anomalies",
    "fold_table",
    "group_findings",
    "methods_table",
]

#: The kinds of finding :func:`anomalies` reports (the keys of :data:`FINDINGS`).
KINDS = tuple(FINDINGS)


def anomalies(
    ds: xr.Dataset,
    *,
    tolerance: float = 0.05,
    alpha: float = 0.01,
    beta: float = 1.0,
    scores: pd.DataFrame | None = None,
    methods: pd.DataFrame | None = None,
    frame: pd.DataFrame | None = None,
    gap: float = 0.1,
    level: float = 0.95,
    fold_auc: xr.DataArray | None = None,
) -> pd.DataFrame:
    r"""Every finding a person should look at before trusting an aggregate, one per row.

    Each row has a ``kind``, its stable ``code`` and ``severity`` (``"error"``: the number
    cannot be trusted as it is; ``"warning"``: look before reporting it; ``"info"``: say how
    it was computed), a ``detail`` with the counts and an ``explanation`` of the kind
    (:data:`FINDINGS`). Rows are sorted by severity, then by the cube's dims, fold, class and
    kind.

    **About the study** (need the ``model`` dim, ``subset`` dim or the frame):

    ``not_better_than_baseline`` (CV301, error)
        A model whose paired difference to a dummy baseline does not exclude 0. The
        baselines are the models of ``attrs["baselines"]`` (as
        ``cross_validate(..., baselines=True)`` records them), else the models whose name
        starts with ``"dummy_"``. For F (per fold; binary: the positive class; multiclass:
        the macro average) and accuracy, and for every baseline, the ``level`` interval of
        the mean per-fold difference model - baseline by the corrected repeated k-fold
        t-test (Nadeau & Bengio 2003; :func:`cvframe.compare.compare` with
        ``test="corrected_t"``):

        .. math:: \bar d \pm t_{1-(1-\text{level})/2,\,n-1}
                  \sqrt{\left(\tfrac1n + \tfrac{n_{test}}{n_{train}}\right)\hat\sigma_d^2}

        over the :math:`n = kr` folds. The model is flagged when a lower bound is
        :math:`\le 0` (on F or on accuracy, against any baseline): the data do not show it
        beats predicting from the class prior (``dummy_prior``) or at random in proportion
        to it (``dummy_stratified``). Identical predictions (a dummy model) give
        :math:`\bar d = 0` and the interval :math:`[0, 0]`. One row per model; ``fold`` and
        ``class`` are None. ``baseline_not_checked`` (CV303, info) says why the test could
        not run (one fold, unpaired folds...).
    ``train_test_gap`` (CV302, warning)
        With training rows (a ``subset`` dim: ``cross_validate(..., return_train=True)``):
        the pooled F_tp,fp of the class on the training sets minus that on the test folds
        (mean over repeats) exceeds ``gap``; the detail gives pooled accuracy too.
    ``class_missing_from_training`` (CV202, error)
        A fold whose training set held no sample of the class (binary: either class). With
        training rows their support is read; else the folds of a repeat are taken to
        partition the data (k-fold, two folds or more; a frame whose ``attrs["test_sets"]``
        says otherwise is not checked) and a fold's training support is the repeat's total
        minus its own test support, so a class whose whole support lies in one fold's test
        set is flagged.
    ``missing_combination`` (CV304, error)
        A cell of the study's dims other than ``repeat`` and ``param`` (a ``model`` on a
        ``dataset``, or a model with no results at all) where no fold holds a count while
        other cells do: the combination was never run or its results were lost. The cube
        cannot tell such a cell from padding, so the folds raise no other finding; a mean
        over ``dataset`` then compares the models on different data. One row per cell;
        ``fold`` and ``class`` are None.
    ``label_not_stratified`` (CV203, warning)
        A cube whose splitter stratified (``attrs["stratified"]`` ``"yes"``, or
        ``"partial"`` as :func:`cvframe.cross_validate` records it with the classes in
        ``attrs["unstratified_labels"]``) has a class that some test folds hold no
        positive of while others hold some: a label with fewer positives than folds cannot
        be in every fold, and iterative stratification of a multilabel ``y`` balances every
        label at once. One row per class (and repeat, model, ...); ``fold`` is None; the
        detail gives how many folds lack it and how many positives it has.
    ``train_duplicate`` (CV401, warning)
        Only with ``frame`` holding a boolean ``train_duplicate`` column (test rows equal to
        a row of their training set, as ``cross_validate`` marks them): the folds with such
        rows, with their count and share.

    **About single folds and classes** (the baseline models are left out):

    ``empty_fold`` (CV101, warning)
        The fold tested no samples (:math:`TP+FP+FN+TN = 0`); one row per fold, ``class``
        is None. The undefined metrics it implies are not listed again.
    ``undefined_precision`` (CV102, warning)
        No predicted positives (:math:`TP + FP = 0`): precision is undefined, F counts 0.
    ``undefined_recall`` (CV103, warning)
        No positives of the class in the fold (:math:`TP + FN = 0`).
    ``outlying_fold`` (CV104, warning)
        The fold's precision or recall lies further from the pooled value than binomial
        noise explains. The rule: with the pooled rates of its (``class``, ``repeat``, ...)
        cell, :math:`\hat R = \sum_i TP^{(i)} / \sum_i (TP^{(i)}+FN^{(i)})` and
        :math:`\hat P = \sum_i TP^{(i)} / \sum_i (TP^{(i)}+FP^{(i)})`, the null hypothesis
        is :math:`TP^{(i)} \sim \mathrm{Binomial}(TP^{(i)}+FN^{(i)}, \hat R)` (recall) and
        :math:`TP^{(i)} \sim \mathrm{Binomial}(TP^{(i)}+FP^{(i)}, \hat P)` (precision). Each
        gets the exact two-sided p-value :math:`2\min(P[X \le TP^{(i)}], P[X \ge TP^{(i)}])`;
        a fold is flagged when a p-value is below ``alpha / m``, where :math:`m` is the
        number of tests run for its model (Bonferroni over the repeats, folds and classes of
        one cell of the other dims: ``model``, ``dataset``, ...), so data that follow the
        binomial model raise a false finding with probability at most ``alpha`` per model,
        and a model's findings do not depend on the other models in the cube. Tests with no
        trials or a pooled rate of 0 or 1 (every fold then agrees exactly) are not run.
    ``worse_than_random`` (CV105, warning)
        Only with scores (``scores`` or a ``frame`` with score columns): the fold's AUC
        :math:`a` for the class is below 0.5. Inverting the scores mirrors every ROC point
        through (0.5, 0.5) (:func:`cvframe.formulas.mirror_roc`) and gives AUC
        :math:`1 - a`; the detail says so. Usually a sign or label mix-up; on a classifier
        near chance level, small folds fall below 0.5 by noise. Folds where AUC is
        undefined raise no finding.
    ``class_absent`` (CV201, error)
        The class has zero support in every fold (``fold`` is None); its per-fold
        ``undefined_recall`` rows are folded into this one.
    ``methods_disagree`` (CV106, info)
        The five F aggregations (:func:`cvframe.reduce.f_methods`, undefined counted as 0)
        span more than ``tolerance`` (max − min) for a (``class``, ``repeat``, ...) cell;
        ``fold`` is None.

    Parameters
    ----------
    ds : xarray.Dataset
        A counts cube; dask-backed cubes are computed. With a ``subset`` dim the findings
        about folds read its ``"test"`` cells, and ``subset`` is not a column.
    tolerance : float, default 0.05
        Largest accepted spread of the five F methods (absolute F units, >= 0).
    alpha : float, default 0.01
        Family-wise false-alarm rate of the ``outlying_fold`` tests, in (0, 1).
    beta : float, default 1
        F-measure weight for ``methods_disagree`` and ``train_test_gap``.
    scores : pandas.DataFrame, optional
        The predictions frame of the same cross-validation (``fold``, ``y_true``, ``score``
        or ``score_<label>``, optional ``repeat``/``model`` columns, as
        :func:`cvframe.scores.auc` reads it); adds the ``worse_than_random`` findings.
        Training-set rows (``subset="train"``) are left out. A binary cube's
        ``attrs["pos_label"]`` is used when the frame records none.
    methods : pandas.DataFrame, optional
        The five F methods of ``ds`` already computed (:func:`cvframe.tidy.methods_table`),
        as the report has them: ``methods_disagree`` reads their spread instead of
        computing them again (with undefined counted as 0).
    frame : pandas.DataFrame, optional
        The predictions frame the cube was built from: as ``scores`` when it has score
        columns, plus the ``train_duplicate`` findings and its ``attrs`` (``baselines``,
        ``test_sets``). Give ``scores`` or ``frame``, not both different frames.
    gap : float, default 0.1
        Largest accepted train - test difference of pooled F (absolute F units, >= 0).
    level : float, default 0.95
        Level of the baseline intervals, in (0, 1).
    fold_auc : xarray.DataArray, optional
        The per-fold AUC of the predictions frame already computed
        (:func:`cvframe.scores.auc` with ``method="fold"``, ``undefined="nan"``), as the
        report has it: ``worse_than_random`` reads it instead of sorting the scores again
        (the rows of the baseline models are left out).

    Returns
    -------
    pandas.DataFrame
        Columns, in this order: ``severity``, ``code``, ``kind``, the cube's other dims
        (``model``, ``repeat``, ...; only those it has), ``fold``, ``class``, ``detail``,
        ``explanation`` (:data:`COLUMNS` around the dims); object dtype, None where a
        finding is about no single fold or class. Empty (with those columns) when nothing
        is found.

    Raises
    ------
    ValueError
        ``tolerance`` or ``gap`` negative or not finite, ``alpha`` or ``level`` outside
        (0, 1), ``scores`` and ``frame`` both given and different.

    References
    ----------
    G. Forman and M. Scholz, "Apples-to-Apples in Cross-Validation Studies: Pitfalls in
    Classifier Performance Measurement", ACM SIGKDD Explorations 12(1), 2010, §3.
    C. Nadeau and Y. Bengio, "Inference for the Generalization Error", Machine Learning
    52(3), 2003.

    Examples
    --------
    >>> import cvframe
    >>> found = cvframe.datasets.table2().cv.anomalies()
    >>> found[["severity", "code", "fold", "kind"]]
      severity   code  fold                 kind
    0  warning  CV102     1  undefined_precision
    1     info  CV106  None     methods_disagree
    >>> print(found.detail[0])
    no predicted positives (TP=0, FP=0, FN=4): precision undefined, F counts as 0
    """
    tol = nonneg("tolerance", tolerance)
    max_gap = nonneg("gap", gap)
    _design.check_level(alpha, "alpha", 0.01)
    level = _design.check_level(level)
    if scores is not None and frame is not None and scores is not frame:
        raise ValueError(
            "scores and frame are both given and differ; pass the predictions frame once, "
            "as frame=."
        )
    data = frame if frame is not None else scores
    with_scores = scores is not None or _has_scores(frame)
    ds = loaded(ds)
    test, train = _design.split_subsets(ds)
    baselines = _design.baseline_names(test, data)
    user = test.drop_sel({_design.MODEL: baselines}) if baselines else test
    train_user = _drop(train, baselines)
    found = Findings(extra_dims(user))
    _design.missing_combination(found, test)
    if methods is not None and SUBSET in methods.columns:
        methods = methods[methods[SUBSET] == "test"].drop(columns=SUBSET)
    if baselines:
        _design.not_better_than_baseline(found, test, baselines, level)
    mine = _without(data, baselines)
    scored = mine if with_scores else None
    given_auc = None if fold_auc is None else _check_fold_auc(fold_auc, user)
    if given_auc is not None and baselines and _design.MODEL in given_auc.dims:
        given_auc = given_auc.sel({_design.MODEL: ~given_auc[_design.MODEL].isin(baselines)})
    fold_findings(found, user, tol, alpha, beta, scored, _without(methods, baselines), given_auc)
    if train_user is not None:
        _design.train_test_gap(found, user, train_user, max_gap, beta)
    test_sets = getattr(data, "attrs", {}).get("test_sets", ds.attrs.get("test_sets"))
    _design.class_missing_from_training(found, user, train_user, test_sets)
    _design.label_not_stratified(found, user)
    if mine is not None:
        _design.train_duplicate(found, user, mine)
    return found.frame()


def _check_fold_auc(fold_auc: Any, cube: xr.Dataset) -> xr.DataArray:
    """``fold_auc`` as :func:`anomalies` reads it: a DataArray over the cube's folds whose
    other dims are the cube's, with a value for every fold of the cube."""
    fix = 'pass scores.auc(frame, "fold", undefined="nan") of the same predictions, or None'
    if not isinstance(fold_auc, xr.DataArray):
        raise TypeError(
            f"fold_auc must be an xarray.DataArray, got {type(fold_auc).__name__}: {fix}."
        )
    if FOLD not in fold_auc.dims:
        raise ValueError(f"fold_auc has no {FOLD!r} dim (dims {list(fold_auc.dims)}): {fix}.")
    extra = [d for d in fold_auc.dims if d not in cube.dims and d != CLASS]
    if extra:
        raise ValueError(f"fold_auc has dims the cube lacks: {few(extra)}: {fix}.")
    if FOLD in cube.coords:
        missing = sorted(set(cube[FOLD].values.tolist()) - set(fold_auc[FOLD].values.tolist()))
        if missing:
            raise ValueError(f"fold_auc has no value for the cube's folds {few(missing)}: {fix}.")
    return fold_auc


def _has_scores(frame: Any) -> bool:
    """Whether a predictions frame has score columns (``score`` or ``score_<label>``)."""
    cols = [str(c) for c in getattr(frame, "columns", ())]
    return any(c == "score" or c.startswith("score_") for c in cols)


def _drop(ds: xr.Dataset | None, baselines: list[Any]) -> xr.Dataset | None:
    """A cube without the baseline models."""
    return ds.drop_sel({_design.MODEL: baselines}) if ds is not None and baselines else ds


def _without(table: Any, baselines: list[Any]) -> Any:
    """A frame (or table) without the rows of the baseline models."""
    if table is None or not baselines or _design.MODEL not in getattr(table, "columns", ()):
        return table
    return table[~table[_design.MODEL].isin(baselines)]
