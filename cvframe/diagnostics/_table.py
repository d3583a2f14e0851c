"""The kinds of finding of :func:`cvframe.diagnostics.anomalies`: code, severity, explanation."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["COLUMNS", "FINDINGS", "SEVERITIES", "Finding"]


class Finding(NamedTuple):
    """One kind of finding: a stable code, a severity and a one-line explanation."""

    code: str  #: stable identifier, ``CV`` and three digits (1xx folds, 2xx classes, ...)
    severity: str  #: ``"error"``, ``"warning"`` or ``"info"``
    explanation: str  #: what the finding means and what to do, in one line


#: Severities from the most to the least serious: the order findings are listed in.
SEVERITIES = ("error", "warning", "info")

#: Every kind of finding, in the order :func:`~cvframe.diagnostics.anomalies` lists them
#: within one severity.
FINDINGS: dict[str, Finding] = {
    "not_better_than_baseline": Finding(
        "CV301",
        "error",
        "the model's paired difference to a dummy baseline has an interval that reaches 0 or "
        "below: the data do not show it beats predicting from the class prior",
    ),
    "class_missing_from_training": Finding(
        "CV202",
        "error",
        "a training set held no sample of a class, so the model could not learn it; use a "
        "stratified splitter (StratifiedKFold, StratifiedGroupKFold) or fewer folds",
    ),
    "missing_combination": Finding(
        "CV304",
        "error",
        "no fold of this combination of the study's dims (a model on a data set) holds a "
        "count: it was not run or its results were lost, and a mean over the other dim "
        "compares the models on different data; run it, or drop it for every model",
    ),
    "class_absent": Finding(
        "CV201",
        "error",
        "the class has no samples in any test fold: its recall and F are undefined",
    ),
    "label_not_stratified": Finding(
        "CV203",
        "warning",
        "the folds are stratified, but not for this class: some test folds hold none of its "
        "positives, so its per-fold recall is undefined there and its fold averages rest on "
        "fewer folds; use fewer folds, or report the pooled F_tp,fp",
    ),
    "train_duplicate": Finding(
        "CV401",
        "warning",
        "test rows equal to a training row leak the answer to the model (twinning): the "
        "fold's numbers are optimistic; deduplicate or split by group",
    ),
    "train_test_gap": Finding(
        "CV302",
        "warning",
        "the model scores much better on its training sets than on its test folds: it "
        "overfits; regularize, simplify or add data",
    ),
    "empty_fold": Finding(
        "CV101",
        "warning",
        "the fold tested no samples and is left out of every average over folds",
    ),
    "undefined_precision": Finding(
        "CV102",
        "warning",
        "no predicted positives in the fold: precision is undefined there and F_avg counts "
        "it as 0; prefer the pooled F_tp,fp",
    ),
    "undefined_recall": Finding(
        "CV103",
        "warning",
        "no positives of the class in the fold: recall is undefined there and F_avg counts "
        "it as 0; use fewer folds or stratify",
    ),
    "outlying_fold": Finding(
        "CV104",
        "warning",
        "the fold's precision or recall is further from the pooled value than binomial "
        "noise explains: look at what differs in that fold",
    ),
    "worse_than_random": Finding(
        "CV105",
        "warning",
        "the fold's AUC is below 0.5: check the sign of the scores and pos_label",
    ),
    "methods_disagree": Finding(
        "CV106",
        "info",
        "the five F aggregations differ by more than the tolerance: say which one is "
        "reported (F_tp,fp is the recommended one)",
    ),
    "baseline_not_checked": Finding(
        "CV303",
        "info",
        "the baselines are in the results but the paired comparison could not run",
    ),
}

#: The columns of the findings table, in order; the cube's other dims (``model``,
#: ``repeat``, ...) come between ``kind`` and ``fold``.
COLUMNS = ("severity", "code", "kind", "fold", "class", "detail", "explanation")
