"""The tests :func:`cvframe.compare` runs (:data:`REGISTRY`) and the rules that pick one
(:func:`choose`) or refuse one that does not fit the metric or the data."""

from __future__ import annotations

from typing import Any

from .. import metrics
from .._core.labels import frame as frame_reader
from ..errors import few
from ..intervals.shared import REFERENCES
from ..schema import FOLD, REPEAT
from . import fold, friedman, pooled, resampling
from ._common import Request, Test, arrays

__all__ = ["REGISTRY", "TESTS", "UNCORRECTED_T", "check_fits", "check_multilabel", "choose"]

_PAIRED_FOLDS = (
    "every model was tested on the same folds (paired); per-fold differences are "
    "approximately normal; their correlation across overlapping training sets is "
    "n_test/(n_test+n_train) (Nadeau-Bengio heuristic); the folds of a repeat partition "
    "the data (n_train = repeat total - n_test)"
)
_FIVE_BY_TWO = "5 repeats of 2-fold CV on the same splits; the differences are normal"
_FIXED = (
    "the fitted models are fixed and the tested samples independent (the test is "
    "conditional on the training sets, as McNemar's and DeLong's are); every model was "
    "tested on the same samples"
)
_JACKKNIFE = (
    "B. Efron and C. Stein, The jackknife estimate of variance, Annals of Statistics 9(3), "
    "1981 (grouped jackknife); F. E. Satterthwaite, An approximate distribution of estimates "
    "of variance components, Biometrics Bulletin 2(6), 1946."
)
_DELTA = (
    "A. W. van der Vaart, Asymptotic Statistics, Cambridge University Press, 1998, ch. 3 "
    "(the delta method); the paired form of the variance of a ratio of pooled counts."
)

#: The tests :func:`compare` runs, by the name ``test=`` takes.
REGISTRY: dict[str, Test] = {
    t.name: t
    for t in (
        Test("corrected_t", "fold", "cube", _PAIRED_FOLDS, REFERENCES["corrected_t"], fold.run),
        Test(
            "bayesian",
            "bayesian",
            "cube",
            "as corrected_t; flat prior on the mean difference; a region of practical "
            "equivalence [-rope, rope] on the metric's scale",
            "A. Benavoli, G. Corani, J. Demsar and M. Zaffalon, Time for a change: a tutorial "
            "for comparing multiple classifiers through Bayesian analysis, JMLR 18(77), 2017; "
            "G. Corani and A. Benavoli, A Bayesian approach for comparing cross-validated "
            "algorithms on multiple data sets, Machine Learning 100, 2015.",
            fold.run_bayes,
        ),
        Test(
            "5x2cv_t",
            "fold",
            "cube",
            _FIVE_BY_TWO,
            "T. G. Dietterich, Approximate statistical tests for comparing supervised "
            "classification learning algorithms, Neural Computation 10(7), 1998.",
            fold.run_5x2cv,
        ),
        Test(
            "5x2cv_f",
            "fold",
            "cube",
            _FIVE_BY_TWO,
            "E. Alpaydin, Combined 5x2 cv F test for comparing supervised classification "
            "learning algorithms, Neural Computation 11(8), 1999.",
            fold.run_5x2cv,
        ),
        Test(
            "t",
            "fold",
            "cube",
            "per-fold differences are independent and normal, which cross-validation breaks "
            "(the type I error is far above 1 - level): refused by compare, listed so the refusal "
            "names it",
            "Student's paired t-test over all folds (no correction for overlapping training sets).",
            fold.run,
        ),
        Test(
            "fold_jackknife",
            "jackknife",
            "cube",
            "every model was tested on the same folds (paired); the folds of a repeat are "
            "independent blocks of samples (the fitted models fixed); the repeats re-partition "
            "the same samples, so their spread is partly the same sampling error: the mean "
            "over repeats keeps the part common to all of them",
            _JACKKNIFE,
            pooled.run,
            pooled=True,
            kinds=("count",),
        ),
        Test(
            "paired_delta",
            "delta-method",
            "frame",
            _FIXED + "; a sample's rows in every repeat go together; the pooled difference "
            "is approximately normal (its linearisation in the per-sample outcomes)",
            _DELTA,
            pooled.run,
            pooled=True,
            kinds=("count",),
            on_cube="fold_jackknife",
        ),
        Test(
            "delong",
            "paired ROC",
            "frame",
            _FIXED + "; the AUCs are approximately jointly normal (U-statistics)",
            "E. R. DeLong, D. M. DeLong and D. L. Clarke-Pearson, Comparing the areas under two "
            "or more correlated receiver operating characteristic curves: a nonparametric "
            "approach, Biometrics 44(3), 1988; X. Robin et al., pROC, BMC Bioinformatics 12, "
            "2011 (roc.test).",
            pooled.run,
            pooled=True,
            kinds=("score",),
        ),
        Test(
            "mcnemar",
            "paired-count",
            "frame",
            "one CV run (each sample tested once) by both models; the discordant pairs are "
            "exchangeable under the null",
            "Q. McNemar, Note on the sampling error of the difference between correlated "
            "proportions or percentages, Psychometrika 12(2), 1947; Dietterich (1998).",
            resampling.run,
            pooled=True,
            kinds=("count",),
            on_cube="fold_jackknife",
        ),
        Test(
            "bootstrap",
            "resampling",
            "frame",
            "samples are independent draws; resampled within strata fold (of the first "
            "repeat) x true class, the same draw for both models and every repeat",
            REFERENCES["bootstrap"] + " T. Berg-Kirkpatrick, D. Burkett and D. Klein, An "
            "empirical investigation of statistical significance in NLP, EMNLP 2012.",
            resampling.run,
            pooled=True,
            kinds=("count", "score"),
            on_cube="fold_jackknife",
        ),
        Test(
            "permutation",
            "resampling",
            "frame",
            "the two models' predictions of a sample are exchangeable under the null; each "
            "sample's pair is swapped with probability 1/2, the same swap in every repeat",
            "E. W. Noreen, Computer-Intensive Methods for Testing Hypotheses, 1989 "
            "(approximate randomization); A. Yeh, More accurate tests for the statistical "
            "significance of result differences, COLING 2000.",
            resampling.run,
            pooled=True,
            kinds=("count", "score"),
            on_cube="fold_jackknife",
        ),
        Test(
            "friedman",
            "ranking over data sets",
            "datasets",
            "data sets are independent; one score per model and data set (mean over "
            "repeats); ranks are exchangeable under the null",
            "J. Demsar, Statistical comparisons of classifiers over multiple data sets, JMLR "
            "7, 2006 (Friedman test, Iman-Davenport F, Nemenyi critical difference, Holm).",
            friedman.run,
            pooled=None,
            kinds=("count", "score", "sample"),
        ),
    )
}
#: The names ``test=`` accepts: ``"auto"`` and every test of :data:`REGISTRY`.
TESTS = ("auto", *REGISTRY)

#: Why ``test="t"`` is refused.
UNCORRECTED_T = (
    "test='t' (the uncorrected paired t-test over the folds of one data set) is refused: the "
    "folds share training data, so the per-fold differences are correlated and its type I "
    "error is far above 1 - level (Dietterich 1998; Nadeau & Bengio 2003). Use "
    "test='corrected_t' (or test='auto')."
)


def check_multilabel(req: Request) -> None:
    """A multilabel frame is tested per fold, or pooled by the delta method; not resampled."""
    names = frame_reader.multilabel_names(req.data, req.cols["y_true"]) if req.is_frame else None
    if names is not None and REGISTRY[req.test].data == "frame" and req.test != "paired_delta":
        raise ValueError(
            f"metric={req.metric!r} with test={req.test!r} reads single-label predictions "
            "(y_true, y_pred), but this "
            f"frame is multilabel ({req.cols['y_true']}_<label> columns {few(names)}). Compare "
            "a pooled label average with test='paired_delta' (or 'auto'), or per-fold values "
            "with test='corrected_t': a multilabel metric "
            f"({', '.join(map(repr, metrics.by_kind('sample')))}) or a "
            "label-averaged one (metric='f', average='macro'), on the frame or on "
            "frame.cv.counts()."
        )


def _fits(asked: Test, own: Test, entry: metrics.Metric) -> bool:
    """Whether the asked test can test the variant whose own test is ``own``: the same
    family (pooled or per-fold; Friedman either), a metric of its kinds; McNemar only the
    pooled accuracy (and error) it is for, DeLong only AUC_merge."""
    if asked.pooled is None:
        return True
    if asked.pooled != own.pooled or entry.kind not in asked.kinds:
        return False
    return asked.name not in ("mcnemar", "delong") or own.name == asked.name


def _variants_on(name: str, data: str, test: str = "") -> list[str]:
    """The names of the metric's variants a test of ``data`` ("cube" or "frame") takes (for
    a given ``test``, the variants it fits)."""
    entry = metrics.REGISTRY[name]
    out = []
    for v, t in entry.tests.items():
        own = REGISTRY[t]
        cands = [REGISTRY[test]] if test else [own, REGISTRY.get(own.on_cube, own)]
        if any(c.data == data and _fits(c, own, entry) for c in cands):
            if data != "frame" or entry.kind == "count" or arrays(name):
                out.append(metrics.spelled(name, v))
    return out


def check_fits(req: Request) -> None:
    """The asked test fits the metric's variant: a fold test per-fold values, a pooled test
    a pooled metric of its kind (McNemar only accuracy), Friedman any higher-is-better one."""
    entry, asked = req.entry, REGISTRY[req.test]
    own = REGISTRY[entry.tests[req.variant]]
    if asked.data == "datasets":
        if not entry.higher_is_better:
            raise ValueError(
                f"test='friedman' ranks higher scores first, and {req.shown} is "
                "lower-is-better; rank a higher-is-better metric, or compare it with "
                "test='corrected_t' on each data set."
            )
        return
    if _fits(asked, own, entry):
        return
    other = _variants_on(req.name, asked.data, req.test)
    use = own.name if req.is_frame or not own.on_cube else own.on_cube
    raise ValueError(
        f"metric={req.metric!r} is {_DATA[own.pooled]} ({req.shown}): test={req.test!r} does "
        f"not fit it; use test={use!r} (or 'auto')"
        + (f", or metric={other[0]!r} with test={req.test!r}." if other else ".")
    )


#: What a metric's variant is, by whether its test is of a pooled metric.
_DATA = {False: "per-fold", True: "pooled over the folds", None: "tested across data sets only"}


def _levels(req: Request, dim: str, column: Any, default: int) -> int:
    """How many entries the data has along ``dim`` (a frame: the distinct values of its
    ``column``), or ``default`` without it."""
    if not req.is_frame:
        return int(req.data.sizes.get(dim, default))
    return int(req.data[column].nunique()) if column in req.data.columns else default


def _pooled_choice(req: Request, test: str) -> tuple[str, str]:
    """The test of a pooled metric: on the frame the per-sample one (McNemar for the pooled
    accuracy of one run), on the cube (or a frame that cannot pair its samples across
    repeats) the fold jackknife."""
    own = REGISTRY[test]
    n_rep = _levels(req, REPEAT, req.cols["repeat"], 1)
    sample = req.cols["sample"]
    unpaired = req.is_frame and n_rep > 1 and (sample is None or sample not in req.data.columns)
    if not req.is_frame or unpaired:
        if not own.on_cube or req.entry.kind not in REGISTRY[own.on_cube].kinds:
            raise ValueError(
                f"test='auto' cannot test metric={req.metric!r} on the counts cube: "
                f"{req.shown} reads the scores of every sample; pass the predictions frame "
                f"with its scores (test={test!r})"
                + ("." if req.is_frame else f", or compare {_fold_hint(req)}.")
            )
        why = (
            f"the frame has {n_rep} repeats and no {sample!r} column to pair a sample's rows "
            "across them, so "
            if unpaired
            else ""
        )
        return own.on_cube, (
            f"{why}{req.shown} is pooled over the folds and the counts cube has no per-sample "
            "pairing: the fold jackknife of the pooled difference (folds as the paired units, "
            "the variance averaged over repeats)"
        )
    if test == "mcnemar" and n_rep == 1:
        return "mcnemar", (
            f"{req.shown} of one CV run (each sample tested once by both models): "
            "McNemar's exact test of the discordant pairs"
        )
    if test == "delong":
        return "delong", (
            f"{req.shown} of the merged scores of the same samples: DeLong's paired test of "
            "correlated ROC areas (samples as the paired units)"
        )
    if test in ("mcnemar", "paired_delta"):
        return "paired_delta", (
            f"{req.shown} is pooled over the folds and the frame pairs every sample's "
            "outcomes: the paired delta-method test (samples as the paired units, the "
            "variance stratified by true class)"
        )
    return test, (
        f"{req.shown} is pooled over the folds (no per-fold values): the paired {test} "
        "of the tested samples, the same draw for both models"
    )


def _fold_hint(req: Request) -> str:
    per_fold = _variants_on(req.name, "cube")
    return f"per-fold values with metric={per_fold[0]!r}" if per_fold else "another metric"


def choose(req: Request) -> tuple[str, str]:
    """The test ``test="auto"`` runs for this metric and design, and why (one sentence), by
    the rules of :func:`cvframe.compare` ("Which test for which data"); a metric tested
    across data sets only (AUC_avg) is refused on one data set."""
    metric, n_sets = req.metric, _levels(req, "dataset", "dataset", 0)
    if n_sets >= 2:
        return "friedman", (
            f"the data hold {n_sets} data sets: the models are ranked per data set and "
            "compared by Friedman's test with Nemenyi/Holm post-hoc (Demsar 2006); data sets "
            "are independent blocks, the folds of one data set are not"
        )
    test = req.entry.tests[req.variant]
    spec = REGISTRY[test]
    if spec.pooled:
        return _pooled_choice(req, test)
    if spec.data == "datasets":
        pooled_names = _variants_on(req.name, "frame")
        raise ValueError(
            f"test='auto' tests metric={metric!r} across data sets only (test='friedman', a "
            "'dataset' dim with two or more data sets)"
            + (
                f"; on one data set compare metric={pooled_names[0]!r} on the predictions "
                "frame (test='auto')."
                if pooled_names
                else "."
            )
        )
    n_rep = _levels(req, REPEAT, req.cols["repeat"], 1)
    n_fold = _levels(req, FOLD, req.cols["fold"], 0)
    if n_rep == 5 and n_fold == 2:
        return "5x2cv_t", (
            "per-fold metric on 5 repeats x 2 folds: Dietterich's 5x2cv paired t-test"
        )
    return test, (
        f"per-fold metric on {n_rep} repeat(s) x {n_fold} folds of one data set: the "
        "corrected repeated k-fold t-test (Nadeau & Bengio 2003), whose variance accounts "
        "for the training sets the folds share"
    )
