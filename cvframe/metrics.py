r"""The metric vocabulary: every metric cvframe computes, named once, in :data:`REGISTRY`.

An entry (:class:`Metric`) says what a metric is called (its name, display name, other
spellings and the scikit-learn scorer names it stands for), how it is computed (its
``kind`` and ``kernel``: a count formula of :data:`cvframe.formulas.METRIC_SPECS`, a score
function of :mod:`cvframe.scores` or a multilabel metric of :mod:`cvframe.reduce.multilabel`),
how folds are aggregated (its ``variants``: pooled ``tp_fp``, fold mean ``avg``, ``merge``
for scores, ...), whether higher is better, its range, whether classes are averaged, and
which interval (:func:`cvframe.interval`) and which paired test (:func:`cvframe.compare`)
fit each variant. Every function that takes a metric name resolves it here
(:func:`resolve`); the tables of names other modules show (scorer aliases, the five F
methods, the docs tables) derive from this one.

Adding a metric is one entry here and its kernel (a row of ``METRIC_SPECS`` for a metric of
counts); ``tests/test_metric_registry.py`` fails for an entry whose kernel is missing.

>>> resolve("f1")
Resolved(metric='f', variant='tp_fp', sign=1, average=None)
>>> resolve("f_avg").spelled, resolve("roc_auc").spelled, resolve("neg_brier_score").sign
('f_avg', 'auc_merge', -1)
>>> display("f", "tp_fp"), display("auc", "avg"), display("recall", "tp_fp")
('F_tp,fp', 'AUC_avg', 'pooled recall')
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, NamedTuple

from .errors import few

__all__ = [
    "AVERAGES",
    "MULTILABEL_SCORER_ALIASES",
    "REGISTRY",
    "MEANINGS",
    "SCORER_ALIASES",
    "VARIANTS",
    "Metric",
    "Resolved",
    "by_kind",
    "display",
    "get",
    "names",
    "resolve",
    "scorer_metric",
    "scoring_name",
    "spelled",
]

#: Fold aggregations by name: how a sentence says each one (``{}`` is the metric's name).
VARIANTS: dict[str, str] = {
    "tp_fp": "pooled {}",  # counts summed over the folds, then the metric
    "avg": "fold-averaged {}",  # the metric per fold, then the mean over the folds
    "avg_skip": "fold-averaged {} (undefined folds skipped)",
    "pr_re": "{} of the fold means of precision and recall",
    "pr_re_skip": "{} of the fold means of precision and recall (undefined folds skipped)",
    "merge": "{} of the merged folds",  # scores of all folds ranked or averaged together
}
#: What each fold aggregation computes, in a sentence (``{}`` is the metric's name).
MEANINGS: dict[str, str] = {
    "tp_fp": "counts summed over the folds, then {}",
    "avg": "mean of per-fold {}",
    "avg_skip": "mean of per-fold {} over the folds where it is defined",
    "pr_re": "{} of the fold-mean precision and the fold-mean recall",
    "pr_re_skip": "{} of the mean precision and recall over the folds where both are defined",
    "merge": "{} of all folds' scores merged",
}
#: Other spellings of a variant in a metric name (``"accuracy_pooled"``).
_SUFFIXES = {"tp_fp": "tp_fp", "pooled": "tp_fp", "merge": "merge", "merged": "merge"}
_SUFFIXES.update({v: v for v in VARIANTS})
#: Class averages of per-class metrics (None keeps the classes).
AVERAGES = (None, "macro", "micro", "weighted")

_FORMAN = (
    "G. Forman and M. Scholz, Apples-to-Apples in Cross-Validation Studies: Pitfalls in "
    "Classifier Performance Measurement, ACM SIGKDD Explorations 12(1), 2010."
)
_SCORES = _FORMAN + " (scores: AUC_avg and AUC_merge, §2.4 and §3.2)"
_SAMPLES = (
    "G. Tsoumakas, I. Katakis and I. Vlahavas, Mining multi-label data, Data Mining and "
    "Knowledge Discovery Handbook, 2010 (example-based measures)."
)


@dataclass(frozen=True)
class Metric:
    """One metric of :data:`REGISTRY`.

    Attributes
    ----------
    name : str
        The name in ``metric=`` arguments (``"f"``, ``"auc"``).
    display : str
        How a sentence or a table header names it (``"F"``, ``"AUC"``).
    kind : {"count", "score", "sample"}
        What it is computed from: the counts cube (a row of
        :data:`cvframe.formulas.METRIC_SPECS`), the scores of a predictions frame (a
        function of :mod:`cvframe.scores`), or the per-sample outcomes of a multilabel
        cube (:mod:`cvframe.reduce.multilabel`).
    kernel : str
        The name of its computation in that table or module.
    variants : tuple of str
        The fold aggregations it has (keys of :data:`VARIANTS`); the first is the default.
    scope : {"class", "all"}
        ``"class"``: one value per class, averaged over classes by ``average=``;
        ``"all"``: one value over every class of single-label data (accuracy, MCC).
    higher_is_better : bool
    bounds : tuple of float
        Its range.
    aliases : tuple of str
        Other names of the metric itself (``"f1"``, ``"ap"``).
    scorers : dict
        scikit-learn scorer names it stands for under cross-validation, by the variant that
        pools it (``{"f1": "tp_fp"}``; ``neg_`` names negate a lower-is-better metric).
    multilabel_scorers : tuple of str
        Scorer names that mean this metric on a multilabel ``y`` (``"accuracy"`` is the
        subset accuracy there).
    intervals : dict
        The method of :func:`cvframe.interval` that fits each variant.
    tests : dict
        The paired test of :func:`cvframe.compare` that fits each variant.
    probabilities : bool
        Its scores must be probabilities (``predict_proba``); with no class average its
        value on multiclass data is that of the whole probability vector.
    tools : dict
        Which tools report each variant, as a clause (``"as WEKA Explorer's ... reports"``):
        what :func:`cvframe.explain` says of a reported number that matches it.
    components : tuple of str
        The metrics it combines (F: precision and recall, the metrics of its ``pr_re``
        variant and of the precision-recall plane).
    per_sample : bool
        It is the mean over samples of a per-sample loss (or score): nested
        cross-validation (``cross_validate(nested=...)``) estimates it.
    baseline : bool
        :func:`cvframe.diagnostics.anomalies` checks that every model beats its baselines
        (the ``dummy_`` models) on it.
    reference : str
    """

    name: str
    display: str
    kind: str
    kernel: str
    variants: tuple[str, ...]
    scope: str = "class"
    higher_is_better: bool = True
    bounds: tuple[float, float] = (0.0, 1.0)
    aliases: tuple[str, ...] = ()
    scorers: Mapping[str, str] = field(default_factory=dict)
    multilabel_scorers: tuple[str, ...] = ()
    intervals: Mapping[str, str] = field(default_factory=dict)
    tests: Mapping[str, str] = field(default_factory=dict)
    probabilities: bool = False
    tools: Mapping[str, str] = field(default_factory=dict)
    components: tuple[str, ...] = ()
    per_sample: bool = False
    baseline: bool = False
    reference: str = _FORMAN

    @property
    def averages(self) -> tuple[Any, ...]:
        """The class averages it takes (``(None,)``: one value over every class)."""
        if self.scope == "all" or self.kind == "sample":
            return (None,)
        return AVERAGES if self.kind == "count" else (None, "macro", "weighted")

    @property
    def one_value(self) -> bool:
        """Whether it is one number whatever the classes when no class average is asked:
        a metric over every class, a sample-based metric, or one of the probability vector."""
        return self.scope == "all" or self.kind == "sample" or self.probabilities

    @property
    def pooled(self) -> str:
        """Its pooled variant: ``"tp_fp"`` for counts, ``"merge"`` for scores."""
        return "merge" if self.kind == "score" else "tp_fp"


#: What an entry of each kind has unless it says otherwise.
_DEFAULTS: dict[str, dict[str, Any]] = {
    "count": {
        "variants": ("tp_fp", "avg", "avg_skip"),
        "intervals": {"tp_fp": "posterior", "avg": "corrected_t"},
        "tests": {"tp_fp": "paired_delta", "avg": "corrected_t"},
    },
    "score": {
        "variants": ("merge", "avg"),
        "intervals": {"avg": "corrected_t"},
        "tests": {"merge": "bootstrap", "avg": "friedman"},
        "reference": _SCORES,
    },
    "sample": {
        "variants": ("tp_fp", "avg"),
        "intervals": {"avg": "corrected_t"},
        "tests": {"avg": "corrected_t"},
        "reference": _SAMPLES,
    },
}


def _entry(kind: str, name: str, display: str, **kw: Any) -> Metric:
    """An entry of ``kind``: the kind's defaults for what ``kw`` does not say."""
    return Metric(name, display, kind, kw.pop("kernel", name), **{**_DEFAULTS[kind], **kw})


_count, _score, _sample = (partial(_entry, kind) for kind in ("count", "score", "sample"))

#: Every metric cvframe computes, by name.
REGISTRY: dict[str, Metric] = {
    m.name: m
    for m in (
        _count(
            "f",
            "F",
            variants=("tp_fp", "avg", "pr_re", "avg_skip", "pr_re_skip"),
            aliases=("f1", "f_measure"),
            scorers={"f1": "tp_fp"},
            components=("precision", "recall"),
            baseline=True,
            tools={
                "tp_fp": "as WEKA Explorer's F-Measure and scikit-learn's "
                "f1_score(y, cross_val_predict(...)) report",
                "avg": "the mean over folds of per-fold F1, as scikit-learn's "
                "cross_val_score(scoring='f1').mean(), caret's resample mean and tidymodels' "
                "collect_metrics() report",
                "pr_re": "what one gets by computing F from a reported mean precision and "
                "mean recall",
                "avg_skip": "what a mean that drops undefined folds (R's mean(x, na.rm = TRUE)) "
                "reports",
                "pr_re_skip": "what F of NaN-skipping means of precision and recall gives",
            },
        ),
        _count("precision", "precision", scorers={"precision": "tp_fp"}),
        _count("recall", "recall", scorers={"recall": "tp_fp"}),
        _count("specificity", "specificity"),
        _count("jaccard", "Jaccard", scorers={"jaccard": "tp_fp"}),
        _count(
            "accuracy",
            "accuracy",
            variants=("tp_fp", "avg"),
            scope="all",
            aliases=("acc",),
            scorers={"accuracy": "tp_fp"},
            per_sample=True,
            baseline=True,
            tests={"tp_fp": "mcnemar", "avg": "corrected_t"},
            tools={
                "tp_fp": "as WEKA Explorer's 'Correctly Classified Instances', caret's "
                "confusionMatrix on the pooled predictions and accuracy_score(y, "
                "cross_val_predict(...)) report",
                "avg": "the resample mean, as caret's train() Accuracy, scikit-learn's "
                "cross_val_score().mean(), tidymodels' collect_metrics() and WEKA "
                "Experimenter's Percent_correct report",
            },
        ),
        _count(
            "error",
            "error",
            variants=("tp_fp", "avg"),
            scope="all",
            higher_is_better=False,
            aliases=("mmce", "error_rate", "zero_one_loss"),
            per_sample=True,
            tests={"tp_fp": "mcnemar", "avg": "corrected_t"},
            tools={
                "tp_fp": "as WEKA Explorer's 'Incorrectly Classified Instances' and "
                "scikit-learn's zero_one_loss(y, cross_val_predict(...)) report",
                "avg": "as mlr's mmce and mlr3's classif.ce (the mean over the resampling "
                "iterations) report",
            },
        ),
        _count(
            "mcc",
            "MCC",
            scope="all",
            bounds=(-1.0, 1.0),
            aliases=("matthews_corrcoef", "phi"),
            scorers={"matthews_corrcoef": "tp_fp"},
            reference="B. W. Matthews, Comparison of the predicted and observed secondary "
            "structure of T4 phage lysozyme, Biochim. Biophys. Acta 405(2), 1975; J. Gorodkin, "
            "Comparing two K-category assignments by a K-category correlation coefficient, "
            "Comput. Biol. Chem. 28(5), 2004 (the multiclass R_K scikit-learn computes).",
        ),
        _count(
            "balanced_accuracy",
            "balanced accuracy",
            scope="all",
            scorers={"balanced_accuracy": "tp_fp"},
            reference="K. H. Brodersen, C. S. Ong, K. E. Stephan and J. M. Buhmann, The balanced "
            "accuracy and its posterior distribution, ICPR 2010 (the mean recall over the "
            "classes present, as scikit-learn's balanced_accuracy_score).",
        ),
        _sample("f_samples", "F (samples)", scorers={"f1_samples": "tp_fp"}),
        _sample("jaccard_samples", "Jaccard (samples)", scorers={"jaccard_samples": "tp_fp"}),
        _sample(
            "subset_accuracy",
            "subset accuracy",
            scorers={"subset_accuracy": "tp_fp"},
            multilabel_scorers=("accuracy",),
        ),
        _sample(
            "hamming_loss",
            "Hamming loss",
            higher_is_better=False,
            scorers={"neg_hamming_loss": "tp_fp"},
        ),
        _score(
            "auc",
            "AUC",
            aliases=("roc_auc",),
            scorers={"roc_auc": "merge"},
            intervals={"merge": "delong", "avg": "corrected_t"},
            tests={"merge": "delong", "avg": "friedman"},
            tools={
                "avg": "as scikit-learn's cross_val_score(scoring='roc_auc').mean(), caret's "
                "ROC (twoClassSummary) and tidymodels' collect_metrics() report",
                "merge": "as WEKA Explorer's ROC Area and roc_auc_score(y, cross_val_predict("
                "..., method='predict_proba')[:, 1]) report",
            },
        ),
        _score("average_precision", "AP", aliases=("ap",), scorers={"average_precision": "merge"}),
        _score(
            "brier",
            "Brier",
            higher_is_better=False,
            scorers={"neg_brier_score": "merge"},
            probabilities=True,
            per_sample=True,
        ),
        _score(
            "log_loss",
            "log-loss",
            higher_is_better=False,
            bounds=(0.0, math.inf),
            scorers={"neg_log_loss": "merge"},
            intervals={},
            probabilities=True,
            per_sample=True,
        ),
    )
}


class Resolved(NamedTuple):
    """A metric name resolved: the metric, the variant it names (None: the caller's
    default), ``sign`` -1 for a negated (``neg_``) name, and the class average a scorer
    name's suffix gives (``"f1_macro"``)."""

    metric: str
    variant: str | None
    sign: int = 1
    average: str | None = None

    @property
    def entry(self) -> Metric:
        return REGISTRY[self.metric]

    @property
    def spelled(self) -> str:
        """The metric with its variant, as one name (``"f_tp_fp"``, ``"auc_merge"``)."""
        return spelled(self.metric, self.variant or REGISTRY[self.metric].variants[0])


def spelled(metric: str, variant: str | None) -> str:
    """``metric`` and ``variant`` as one name: ``spelled("f", "avg") == "f_avg"``."""
    return metric if variant is None else f"{metric}_{variant}"


def _table() -> dict[str, Resolved]:
    """Every accepted spelling -> what it resolves to: metric names (with their variants)
    first, then scikit-learn scorer names (the pooled variant), then other spellings."""
    out: dict[str, Resolved] = {}

    def named(m: Metric, name: str) -> None:
        out.setdefault(name, Resolved(m.name, None))
        for suffix, variant in _SUFFIXES.items():
            if variant in m.variants:
                out.setdefault(f"{name}_{suffix}", Resolved(m.name, variant))

    for m in REGISTRY.values():
        named(m, m.name)
    for m in REGISTRY.values():
        for scorer, variant in m.scorers.items():
            sign = -1 if scorer.startswith("neg_") else 1
            out.setdefault(scorer, Resolved(m.name, variant, sign))
            for avg in m.averages[1:]:
                key = f"{scorer}_ovr_{avg}" if m.name == "auc" else f"{scorer}_{avg}"
                out.setdefault(key, Resolved(m.name, variant, sign, avg))
    for m in REGISTRY.values():  # the negated pooled name: "neg_brier_merge"
        if not m.higher_is_better:
            out.setdefault(scoring_name(m.name), Resolved(m.name, m.pooled, -1))
    for m in REGISTRY.values():
        for alias in m.aliases:
            named(m, alias)
    return out


def names(kind: str | Iterable[str] | None = None) -> list[str]:
    """Every metric name of ``kind`` (``"count"``, ``"score"``, ``"sample"``; None: all)."""
    kinds = None if kind is None else {kind} if isinstance(kind, str) else set(kind)
    return [m.name for m in REGISTRY.values() if kinds is None or m.kind in kinds]


def by_kind(kind: str) -> dict[str, Metric]:
    """The entries of ``kind``, by name."""
    return {m.name: m for m in REGISTRY.values() if m.kind == kind}


def get(name: str) -> Metric:
    """The entry of a metric name (any spelling :func:`resolve` takes)."""
    return REGISTRY[resolve(name).metric]


def resolve(
    name: Any,
    *,
    kinds: Iterable[str] | None = None,
    variants: Iterable[str] | None = None,
    multilabel: bool = False,
    argument: str = "metric",
) -> Resolved:
    """What a metric name means: the metric, the variant it spells, its sign and average.

    Parameters
    ----------
    name : str
        A metric name (``"f"``), a spelled variant (``"f_avg"``, ``"accuracy_pooled"``,
        ``"auc_merge"``), another spelling (``"f1"``, ``"ap"``) or a scikit-learn scorer name
        (``"roc_auc"``, ``"f1_macro"``, ``"neg_log_loss"``).
    kinds : iterable of str, optional
        The kinds of metric the caller computes; others are refused.
    variants : iterable of str, optional
        The variants the caller computes; a spelled variant outside them is refused.
    multilabel : bool, default False
        The name scores a multilabel ``y``: ``"accuracy"`` is the subset accuracy.
    argument : str, default "metric"
        The argument's name in the error message.

    Raises
    ------
    ValueError
        An unknown name (the message lists the accepted ones) or a kind or variant the caller
        does not compute.
    """
    table = _spellings()
    hit = table.get(name) if isinstance(name, str) else None
    if multilabel and isinstance(name, str):
        for m in REGISTRY.values():
            if name in m.multilabel_scorers:
                hit = Resolved(m.name, "tp_fp")
    allowed = None if kinds is None else set(kinds)
    accepted = [m for m in REGISTRY.values() if allowed is None or m.kind in allowed]
    if hit is None:
        raise ValueError(
            f"{argument}={name!r} is not a metric cvframe knows; pass one of "
            f"{few([m.name for m in accepted], 20)}, optionally with its aggregation "
            f"({', '.join('_' + v for v in VARIANTS)}), or a scikit-learn scorer name "
            f"({few([s for m in accepted for s in m.scorers], 20)}: the pooled metric)."
        )
    entry = REGISTRY[hit.metric]
    if allowed is not None and entry.kind not in allowed:
        raise ValueError(
            f"{argument}={name!r} is a {entry.kind} metric; this function computes "
            f"{' and '.join(sorted(allowed))} metrics: {few([m.name for m in accepted], 20)}."
        )
    if variants is not None and hit.variant is not None and hit.variant not in set(variants):
        offered = [display(hit.metric, v) for v in entry.variants if v in set(variants)]
        raise ValueError(
            f"{argument}={name!r} asks for {display(hit.metric, hit.variant)}; this function "
            f"computes {', '.join(offered) or 'no aggregation'} of {entry.display}."
        )
    return hit


def display(metric: str, variant: str | None = None, *, tilde: bool = False) -> str:
    """How a sentence names a metric and its variant: ``F_tp,fp``, ``F_avg``, ``AUC_merge``,
    ``Brier_avg``, ``pooled precision``; F and the score metrics carry their subscripts as
    the paper writes F's and AUC's.

    ``tilde``: a skip variant as the paper's figures mark it, ``~F_avg`` for ``F_avg,skip``
    (short enough for a legend).

    >>> display("f", "pr_re_skip"), display("f", "pr_re_skip", tilde=True)
    ('F_pr,re,skip', '~F_pr,re')
    """
    entry = REGISTRY[metric]
    if variant is None:
        return entry.display
    if metric == "f" or entry.kind == "score":
        base = variant.removesuffix("_skip") if tilde else variant
        text = f"{entry.display}_{base.replace('_', ',')}"
        return "~" + text if tilde and base != variant else text
    return VARIANTS[variant].format(entry.display)


def scoring_name(metric: str) -> str:
    """The pooled ``metric`` as a search's ``scoring_`` names it (``neg_``: negated, so that
    higher is better, as scikit-learn's scorers).

    >>> scoring_name("f"), scoring_name("brier"), scoring_name("hamming_loss")
    ('f_tp_fp', 'neg_brier_merge', 'neg_hamming_loss')
    """
    m = REGISTRY[metric]
    sign = "" if m.higher_is_better else "neg_"
    if m.kind == "sample" or m.name == "accuracy":  # accuracy: every sample counted once
        return sign + m.name
    return sign + spelled(m.name, m.pooled)


_BUILT: dict[tuple[tuple[str, int], ...], dict[str, Resolved]] = {}


def _spellings() -> dict[str, Resolved]:
    """:func:`_table` of the registry as it is now (an entry added at run time is known at
    once; the table is built once per state of the registry)."""
    key = tuple((name, id(m)) for name, m in REGISTRY.items())
    if key not in _BUILT:
        _BUILT.clear()
        _BUILT[key] = _table()
    return _BUILT[key]


#: scikit-learn scorer names -> the pooled metric that stands for them under
#: cross-validation (derived from :data:`REGISTRY`).
SCORER_ALIASES: dict[str, str] = {
    scorer: scoring_name(m.name)
    for m in REGISTRY.values()
    if m.kind != "sample"
    for scorer in m.scorers
}
#: The same for a multilabel ``y`` (sample-based scorers; ``"accuracy"`` is the subset
#: accuracy), looked up before :data:`SCORER_ALIASES`.
MULTILABEL_SCORER_ALIASES: dict[str, str] = {
    scorer: scoring_name(m.name)
    for m in REGISTRY.values()
    if m.kind == "sample"
    for scorer in (*m.scorers, *m.multilabel_scorers)
}


def scorer_metric(name: str, multilabel: bool = False) -> str:
    """The pooled metric of a scikit-learn scorer name (or of a pooled name itself).

    Parameters
    ----------
    name : str
        A key of :data:`SCORER_ALIASES` (``"f1"``, ``"roc_auc"``...) or one of its values
        (``"f_tp_fp"``, ``"auc_merge"``...), which is returned as is.
    multilabel : bool, default False
        The name scores a multilabel ``y``: :data:`MULTILABEL_SCORER_ALIASES` first
        (``"f1_samples"`` -> ``"f_samples"``, ``"accuracy"`` -> ``"subset_accuracy"``).

    Returns
    -------
    str
        The pooled metric name, a value of :data:`SCORER_ALIASES`.

    Raises
    ------
    ValueError
        For any other name: the message lists the accepted names.

    Examples
    --------
    >>> scorer_metric("f1"), scorer_metric("roc_auc"), scorer_metric("f_tp_fp")
    ('f_tp_fp', 'auc_merge', 'f_tp_fp')
    >>> scorer_metric("f1_samples", multilabel=True), scorer_metric("accuracy", multilabel=True)
    ('f_samples', 'subset_accuracy')
    """
    if isinstance(name, str):
        if multilabel and name in MULTILABEL_SCORER_ALIASES:
            return MULTILABEL_SCORER_ALIASES[name]
        if name in SCORER_ALIASES:
            return SCORER_ALIASES[name]
        if name in SCORER_ALIASES.values():
            return name
    accepted = [*SCORER_ALIASES, *dict.fromkeys(SCORER_ALIASES.values())]
    if isinstance(name, str) and name in MULTILABEL_SCORER_ALIASES:
        raise ValueError(
            f"scoring={name!r} scores a multilabel y (a 0/1 indicator matrix, one column per "
            "label); for 1-D class labels pass one of "
            f"{', '.join(map(repr, accepted))}."
        )
    if multilabel:
        accepted = [*MULTILABEL_SCORER_ALIASES, *accepted]
    raise ValueError(
        f"scoring={name!r} is not a scorer cvframe pools; pass one of "
        f"{', '.join(map(repr, accepted))} (a scikit-learn name maps to its pooled metric)."
    )
