"""Plan a cross-validation study before fitting: :func:`plan`, what a design will do to the
numbers of every class. Nothing is re-derived here: every number comes from the simulation
package (:func:`~cvframe.simulation.exact.fold_risks`, :func:`bias_study`) or the scores
(:func:`cvframe.scores.auc_methods` of a binormal simulation of known AUC).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from scipy.special import ndtri

from .. import metrics, scores
from ..errors import few
from . import _plan_text
from . import pilot as _pilot
from ._model import (
    Model,
    as_seed,
    check_flag,
    check_int,
    check_real,
    check_trials,
    hyper,
)
from ._sampler import Sampler
from .exact import fold_risks, p_fold_without_positives, risks_tractable, tractable
from .power import check_power_args, plan_power
from .study import ESTIMATORS, bias_study

__all__ = ["AUC_ESTIMATORS", "AUC_TRIALS", "BIAS", "MIN_POSITIVES", "RISK", "Plan", "plan"]

#: A chance of an undefined fold above this (1%) makes the plan advise against F_avg.
RISK = 0.01
#: Estimators whose relative biases differ by more than this (1%) do not agree.
BIAS = 0.01
#: Fewer expected positives per fold than this make per-fold AUC noisy: fewer folds.
MIN_POSITIVES = 5
#: The two AUC aggregations the plan simulates.
AUC_ESTIMATORS = tuple(metrics.spelled("auc", v) for v in ("avg", "merge"))
#: Most trials and score rows (trials x cases) of the AUC simulation: well under a second.
AUC_TRIALS = 200
_AUC_ROWS = 400_000
#: How the plan names each estimator (:func:`cvframe.metrics.display`).
_NAMES = {e: metrics.display(*metrics.resolve(e)[:2]) for e in (*ESTIMATORS, *AUC_ESTIMATORS)}
#: The metrics the plan simulates: those of its estimators.
_PLANNED = list(dict.fromkeys(metrics.resolve(e).metric for e in (*ESTIMATORS, *AUC_ESTIMATORS)))
#: The columns of :attr:`Plan.estimators`.
_COLUMNS = ("class", "estimator", "rel_bias", "rel_std", "rel_bias_se", "exact")


@dataclass(frozen=True)
class Plan:
    """What :func:`plan` found: per class risks, estimator biases and a recommendation.

    Attributes
    ----------
    design : dict
        The design and the assumed classifier (``k``, ``repeats``, ``stratified``, ``f``,
        ``precision``, ``recall``, ``auc``, ``metric``, ``trials``).
    risks : pandas.DataFrame
        One row per class: ``n``, ``positives``, ``prevalence``, ``p_fold_no_pos`` (a fold
        has no positives), ``p_some_no_pos`` (some fold of some repeat has none),
        ``p_fold_no_pred``, ``p_some_no_pred`` (the same for predicted positives),
        ``p_some_undefined`` (some fold of some repeat has undefined precision or recall) and
        ``exact`` (whether the F risks and biases are exact).
    estimators : pandas.DataFrame
        One row per (class, estimator): ``rel_bias``, ``rel_std``, ``rel_bias_se`` (0 when
        exact) and ``exact``; the five F estimators and AUC_avg, AUC_merge.
    recommendation : pandas.DataFrame
        One row per class: ``k``, ``repeats``, ``stratified``, ``report`` (the estimator to
        report, or ``"any"``) and ``reason`` (one sentence).
    overall : dict
        The recommendation for the whole study: that of the class at most risk.
    studies : dict
        The :func:`bias_study` Dataset of each class.
    skipped : dict
        Classes not planned, and why (no positives; an assumed classifier the class's
        prevalence cannot support, e.g. F = 0.8 for a majority class).
    assumed : str
        The classifier's source: ``"pilot"``, ``"given"`` or ``"default"`` (F = 0.8).
    sensitivity : pandas.DataFrame
        With the default: the risk and advice for recall 0.3 ... 0.9
        (:func:`.pilot.sensitivity`).
    pilot : dict
        With a pilot: its rates, AUC and undefined folds beside the plan's
        (:func:`.pilot.read_pilot`, :func:`.pilot.reproduce_check`).
    power : dict or None
        With ``delta``: :func:`cvframe.simulation.power.plan_power` at this design.
    """

    design: dict[str, Any]
    risks: pd.DataFrame = field(repr=False)
    estimators: pd.DataFrame = field(repr=False)
    recommendation: pd.DataFrame = field(repr=False)
    overall: dict[str, Any] = field(repr=False)
    studies: dict[Any, xr.Dataset] = field(repr=False)
    skipped: dict[Any, str] = field(default_factory=dict, repr=False)
    assumed: str = "given"
    sensitivity: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    pilot: dict[str, Any] = field(default_factory=dict, repr=False)
    power: dict[str, Any] | None = field(default=None, repr=False)

    def to_frame(self) -> pd.DataFrame:
        """One row per class: the risks, each estimator's relative bias and std, the advice."""
        wide = self.estimators.pivot(index="class", columns="estimator")
        order = [e for e in (*ESTIMATORS, *AUC_ESTIMATORS) if e in wide.columns.levels[1]]
        cols = [(v, e) for v in ("rel_bias", "rel_std") for e in order]
        wide = wide[cols]
        wide.columns = [f"{v}_{e}" for v, e in cols]
        rec = self.recommendation.rename(columns=lambda c: f"advice_{c}")
        return self.risks.join(wide).join(rec)

    def __str__(self) -> str:
        return _plan_text.text(self, _NAMES, (*ESTIMATORS, *AUC_ESTIMATORS))

    __repr__ = __str__


# --- the target -------------------------------------------------------------------------------


def _counts(y: Any, counts: Any) -> tuple[int, dict[Any, int], bool]:
    """(n, positives per class, multilabel) of labels, an indicator matrix or class counts."""
    if isinstance(y, dict):
        as_counts = True
    elif isinstance(y, pd.Series):
        as_counts = counts if counts is not None else not isinstance(y.index, pd.RangeIndex)
    else:
        as_counts = bool(counts)
    if isinstance(y, pd.DataFrame) or (not as_counts and np.ndim(y) == 2):
        frame = pd.DataFrame(y)
        values = frame.to_numpy()
        if not np.isin(values, (0, 1, True, False)).all():
            raise ValueError(
                "y is 2-D but not a 0/1 indicator matrix (one column per label); "
                f"found the values {few(np.unique(values[~np.isin(values, (0, 1))]))}."
            )
        pos = {c: int(frame[c].astype(int).sum()) for c in frame.columns}
        return len(frame), pos, True
    if as_counts:
        items = dict(y) if isinstance(y, (dict, pd.Series)) else dict(enumerate(np.ravel(y)))
        pos = {label: check_int(f"count of class {label!r}", v, 0) for label, v in items.items()}
        n = sum(pos.values())
        if n < 2 or sum(v > 0 for v in pos.values()) < 2:
            raise ValueError(
                f"class counts {few(list(pos.items()))} need at least two classes with cases."
            )
        return n, pos, False
    labels = pd.Series(np.ravel(np.asarray(y, dtype=object)) if np.ndim(y) else [y])
    if labels.isna().any():
        raise ValueError(f"y has {int(labels.isna().sum())} missing labels; drop or fill them.")
    vc = labels.value_counts(sort=False)
    if len(vc) < 2:
        raise ValueError(
            f"y holds one class ({few(list(vc.index))}); a plan needs positives and negatives."
        )
    keys = sorted(vc.index, key=lambda v: (str(type(v)), v))
    return len(labels), {k: int(vc[k]) for k in keys}, False


def _positive_classes(
    positives: dict[Any, int], multilabel: bool, pos_label: Any
) -> dict[Any, int]:
    """The classes to plan: every class, or the positive one of a binary target."""
    if pos_label is not None:
        if pos_label not in positives:
            raise ValueError(
                f"pos_label={pos_label!r} is not a class of y; its classes are "
                f"{few(list(positives))}."
            )
        return {pos_label: positives[pos_label]}
    if multilabel or len(positives) != 2:
        return positives
    rare = min(positives, key=lambda c: positives[c])
    return {rare: positives[rare]}


def _risks(model: Model, trials: int, seed: Any) -> dict[str, float]:
    """:func:`fold_risks`, exact where tractable; else the predicted-positive risks by Monte
    Carlo (the sampler of :func:`simulate`) and the positive risks exact."""
    if risks_tractable(model):
        return fold_risks(model)
    tp, fp, pos, _ = Sampler(model, as_seed(seed)).counts(0, min(trials, 20_000))
    no_pred = (tp == 0) & (fp == 0)
    no_pos = float(np.mean([hyper(0, model.n, model.pos, s) for s in model.sizes]))
    return {
        "p_fold_no_pos": no_pos,
        "p_some_no_pos": p_fold_without_positives(model.pos, model.n, model.k),
        "p_fold_no_pred": float(no_pred.mean()),
        "p_some_no_pred": float(no_pred.any(axis=1).mean()),
    }


# --- AUC: a binormal simulation ----------------------------------------------------------------


def _auc_study(
    model: Model, auc: float, shift: float, trials: int, rng: np.random.Generator
) -> dict[str, tuple[float, float, float]]:
    """(rel_bias, rel_std, rel_bias_se) of AUC_avg and AUC_merge on binormal scores.

    Negatives score N(0, 1), positives N(d, 1) with ``d = sqrt(2) Phi^-1(auc)`` (so the
    ground-truth AUC is ``auc``); each fold's scores move by N(0, shift^2), the fold-to-fold
    calibration shift that AUC_merge penalises. Folds as in the F simulation.
    """
    n, k, pos = model.n, model.k, model.pos
    t = max(2, min(trials, AUC_TRIALS, _AUC_ROWS // n))
    y = np.zeros(n, dtype=np.int8)
    y[:pos] = 1
    if model.stratified:
        negatives = model.sizes - model.strat_pos  # the positives first, as in y
        fold = np.concatenate([np.repeat(np.arange(k), c) for c in (model.strat_pos, negatives)])
        folds = np.broadcast_to(fold, (t, n))
    else:
        folds = rng.permuted(np.broadcast_to(np.repeat(np.arange(k), model.sizes), (t, n)), axis=1)
    d = math.sqrt(2.0) * float(ndtri(auc))
    s = rng.standard_normal((t, n)) + d * y
    if shift > 0:
        s += shift * np.take_along_axis(rng.standard_normal((t, k)), folds, axis=1)
    frame = pd.DataFrame(
        {
            "repeat": np.repeat(np.arange(t), n),
            "fold": folds.ravel(),
            "y_true": np.tile(y, t),
            "score": s.ravel(),
        }
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # folds without positives: skipped, counted by the risks
        res = scores.auc_methods(frame, repeat="repeat")
    out = {}
    for name in AUC_ESTIMATORS:
        v = np.asarray(res[name].values, dtype=float).ravel()
        v = v[np.isfinite(v)]
        if v.size < 2:
            out[name] = (math.nan, math.nan, math.nan)
            continue
        sd = float(v.std(ddof=1))
        out[name] = ((float(v.mean()) - auc) / auc, sd / auc, sd / math.sqrt(v.size) / auc)
    return out


# --- the advice ------------------------------------------------------------------------------


def _advice(
    cls: Any, row: dict[str, Any], est: dict[str, tuple[float, float]], design: dict[str, Any]
) -> dict[str, Any]:
    """k, repeats, stratification, what to report and why, for one class."""
    k, repeats, strat, metric = (design[x] for x in ("k", "repeats", "stratified", "metric"))
    pos = row["positives"]
    name = f"class {cls!r}"
    auc = metrics.REGISTRY[metric].kind == "score"
    pooled = metrics.spelled(metric, metrics.REGISTRY[metric].pooled)
    some = row["p_some_no_pos"]
    if pos < k:
        k2 = max(2, min(k, pos))
        why = (
            f"{name} has {pos} positive{'s' if pos != 1 else ''} for {k} folds, so some fold "
            f"has none in every split; use {k2} stratified folds and report "
            f"{_NAMES[pooled]}, which pools the folds instead of averaging undefined ones."
        )
        return dict(k=k2, repeats=repeats, stratified=True, report=pooled, reason=why)
    if not strat and some > RISK:
        why = (
            f"unstratified {k}-fold CV leaves some fold of {name} without positives with "
            f"probability {some:.2g}; stratify (every fold then holds at least "
            f"{pos // k}) and report {_NAMES[pooled]}."
        )
        return dict(k=k, repeats=repeats, stratified=True, report=pooled, reason=why)
    if auc:
        return _auc_advice(name, row, est, design)
    gap = max(abs(est[e][0] - est[pooled][0]) for e in ESTIMATORS if e in est)
    und = row["p_some_undefined"]
    if und > RISK or gap > BIAS:
        worst = max((e for e in ESTIMATORS if e in est), key=lambda e: abs(est[e][0]))
        why = (
            f"with {pos} positives of {name} a fold is undefined (no positives or no "
            f"predicted positives) with probability {und:.2g} per study and "
            f"{_NAMES[worst]} is biased by {100 * est[worst][0]:+.1f}%; report "
            f"{_NAMES[pooled]} ({100 * est[pooled][0]:+.2f}%), the least biased."
        )
        return dict(k=k, repeats=repeats, stratified=strat, report=pooled, reason=why)
    why = (
        f"the five F estimators of {name} agree within {100 * gap:.2f}% and an undefined "
        f"fold has probability {und:.2g}: any aggregation will do (F_tp,fp for comparability)."
    )
    return dict(k=k, repeats=repeats, stratified=strat, report="any", reason=why)


def _auc_advice(
    name: str, row: dict[str, Any], est: dict[str, tuple[float, float]], design: dict[str, Any]
) -> dict[str, Any]:
    k, repeats, strat = design["k"], design["repeats"], design["stratified"]
    pos = row["positives"]
    per_fold = pos / k
    if per_fold < MIN_POSITIVES and k > 2:
        k2 = max(2, min(k, pos // MIN_POSITIVES))
        why = (
            f"{name} has about {per_fold:.1f} positives per fold, so each fold's AUC is "
            f"noisy; use {k2} folds (about {pos / k2:.0f} each) or report AUC_merge if the "
            "fold models' scores are calibrated with each other."
        )
        return dict(k=k2, repeats=repeats, stratified=strat, report="auc_avg", reason=why)
    gap = abs(est["auc_avg"][0] - est["auc_merge"][0])
    if gap > BIAS:
        why = (
            f"fold-to-fold score shifts make AUC_merge differ from AUC_avg by {100 * gap:.1f}% "
            f"for {name}; report AUC_avg, which ranks each fold's scores only among themselves."
        )
        return dict(k=k, repeats=repeats, stratified=strat, report="auc_avg", reason=why)
    why = (
        f"AUC_avg and AUC_merge of {name} agree within {100 * gap:.2f}% and every fold holds "
        "positives: either will do (AUC_avg does not assume calibrated folds)."
    )
    return dict(k=k, repeats=repeats, stratified=strat, report="any", reason=why)


# --- the function ------------------------------------------------------------------------------


def _metric(metric: Any) -> str:
    """The registry metric of ``metric``, one the plan simulates."""
    try:
        name = metrics.resolve(metric.lower()).metric if isinstance(metric, str) else None
    except ValueError:
        name = None
    if name not in _PLANNED:
        raise ValueError(
            f"metric={metric!r} must be one of {', '.join(map(repr, _PLANNED))} (or another "
            "name of one: 'f1', 'roc_auc')."
        )
    return str(name)


def plan(
    y_or_counts: Any = None,
    *,
    k: int | None = None,
    repeats: int = 1,
    stratified: bool = True,
    f: float | None = None,
    precision: float | None = None,
    recall: float | None = None,
    metric: str = "f",
    auc: float | None = None,
    auc_shift: float = 0.0,
    trials: int = 20_000,
    random_state: int | None = 0,
    counts: bool | None = None,
    pos_label: Any = None,
    pilot: Any = None,
    delta: float | None = None,
    power: float = 0.8,
) -> Plan:
    r"""Plan a cross-validation study before fitting: undefined folds, biases, advice.

    For every class (one-vs-rest; every label of a multilabel target) it reports:

    - the probability that a fold has no positives and that some fold of some repeat has
      none: exact, :func:`p_fold_without_positives` for unstratified folds (with ``trials``
      = ``repeats``), certain or impossible for stratified ones (``positives < k``);
    - the probability that a fold has no predicted positives and that some fold does, exact
      under the simulated classifier (:func:`cvframe.simulation.exact.fold_risks`);
    - the relative bias :math:`(\bar F - F)/F` and spread :math:`sd(F)/F` of the five F
      estimators, from :func:`bias_study` at this design (exact where tractable, else
      ``trials`` Monte-Carlo trials), and the same for AUC_avg and AUC_merge on binormal
      scores of ground-truth AUC ``auc`` (:math:`d = \sqrt2\,\Phi^{-1}(AUC)`) whose folds
      shift by :math:`N(0, \text{auc\_shift}^2)`;
    - a recommendation (``k``, ``repeats``, stratification, what to report) with its reason.

    With ``repeats`` > 1 the "some fold" probabilities are over all repeats,
    :math:`1 - (1 - p)^{R}`; biases are those of one repeat (a mean over repeats has the same
    expectation).

    Parameters
    ----------
    y_or_counts : array-like, pandas.Series or DataFrame, or dict
        Class labels (one per case), a 0/1 indicator matrix (one column per label:
        multilabel), or class counts: a dict ``{label: count}``, a Series indexed by label
        (not a ``RangeIndex``), or an array with ``counts=True``.
    k, repeats : int
        Folds (``2 <= k <= n``; default 10, or the pilot's) and repetitions of the split.
    stratified : bool
        Stratified folds (per label for multilabel targets: iterative stratification only
        approaches this; pass False for the worst case).
    f, precision, recall : float
        The assumed classifier, as in :func:`simulate`. None of them (and no pilot): the
        default F = 0.8, precision = recall, which the plan says, with how its advice
        changes for recall 0.3 ... 0.9; it never advises any aggregation when one of
        those leaves some fold undefined with probability above 5 %.
    metric : {"f", "auc"}
        What the recommendation is about (scikit-learn's ``"f1"``, ``"roc_auc"`` too).
    auc, auc_shift : float
        Ground-truth AUC of the binormal scores (default 0.85, or the pilot's merged AUC),
        and the standard deviation of each fold's score shift (0: calibrated folds).
    trials : int
        Monte-Carlo trials of each class's simulation.
    random_state : int or None
        Seed of every simulation.
    counts : bool, optional
        Read a 1-d array (or a Series with a ``RangeIndex``) as class counts.
    pos_label : optional
        The positive class of a binary target (default: the rarer class). Multiclass and
        multilabel targets plan every class (label) one-vs-rest.
    pilot : pandas.DataFrame, optional
        A pilot predictions frame (``y_true``, ``y_pred``, scores, ``fold``): its pooled
        precision and recall per class, merged AUC and folds replace the assumptions, and
        its labels the target when ``y_or_counts`` is None; its share of undefined folds
        is shown beside the plan's probability for the same design.
    delta : float, optional
        A difference in pooled F (or AUC) between two models, in (0, 1): the plan adds the
        power of the paired pooled test to find it at this design and the n that reaches
        ``power`` (:func:`cvframe.simulation.power.plan_power`, simulated by
        :func:`cvframe.power_study` at the rarest planned class).
    power : float, default 0.8
        The power the sample size is planned for, in (0, 1).

    Returns
    -------
    Plan
        ``.risks``, ``.estimators``, ``.recommendation``, ``.overall``; ``to_frame()`` is one
        row per class; ``print(plan)`` shows them as text.

    Raises
    ------
    ValueError
        Naming the argument (or the class) for invalid values, a target with one class, a
        classifier a class's prevalence cannot support, more than
        :data:`~cvframe.simulation.pilot.MAX_CASES` cases, a pilot without scores or with
        one class.

    See Also
    --------
    bias_study, p_fold_without_positives, simulate

    References
    ----------
    .. [1] G. Forman and M. Scholz, "Apples-to-Apples in Cross-Validation Studies: Pitfalls in
       Classifier Performance Measurement", ACM SIGKDD Explorations 12(1), 2010, Sections 4-5.

    Examples
    --------
    >>> import cvframe
    >>> p = cvframe.plan({"common": 980, "rare": 20}, k=10, stratified=False, trials=2000)
    >>> round(float(p.risks.loc["rare", "p_some_no_pos"]), 4)  # p_fold_without_positives(20)
    0.7772
    >>> p.overall["report"], p.overall["stratified"]
    ('f_tp_fp', True)
    """
    metric = _metric(metric)
    _, power = check_power_args(0.5 if delta is None else delta, power)
    repeats = check_int("repeats", repeats, 1)
    stratified = check_flag("stratified", stratified)
    trials = check_trials(trials)
    y_or_counts, pos_label, seen, assumed, f, k, auc = _pilot.resolve(
        y_or_counts, pilot, pos_label, f, precision, recall, k, auc
    )
    auc = check_real("auc", auc, 0.0, 1.0, high_open=True)
    if not 0 <= float(auc_shift) < math.inf:
        raise ValueError(f"auc_shift={auc_shift!r} must be a finite number >= 0.")
    n, positives, multilabel = _counts(y_or_counts, counts)
    _pilot.check_size(n, positives)
    positives = _positive_classes(positives, multilabel, pos_label)
    k = check_int("k", k, 2, n, fix=f"Use between 2 and n={n} folds.")
    design = dict(
        n=n, k=k, repeats=repeats, stratified=stratified, metric=metric, auc=auc,
        auc_shift=float(auc_shift), trials=trials, multilabel=multilabel,
    )  # fmt: skip
    rng = np.random.default_rng(random_state)
    risks, rows, recs, studies, skipped = {}, [], {}, {}, {}
    for cls, pos in positives.items():
        if pos == 0 or pos == n:
            skipped[cls] = f"{'no' if pos == 0 else 'only'} positives: F is not defined"
            continue
        if cls in seen.get("rates", {}):  # the pilot's own precision and recall
            precision, recall = seen["rates"][cls]
        try:
            model = Model.make(n, pos / n, f, k, stratified, precision, recall)
        except ValueError as err:
            if len(positives) == 1:
                raise ValueError(f"class {cls!r} ({pos} of {n}): {err}") from None
            skipped[cls] = str(err).split(";")[0]
            continue
        design.update(f=model.f, precision=model.precision, recall=model.recall)
        exact = tractable(model)
        st = bias_study(
            prevalence=pos / n, f=f, stratified=stratified, n=n, k=k, trials=trials,
            exact=exact, seed=random_state, progress=False, precision=precision, recall=recall,
        )  # fmt: skip
        studies[cls] = st
        one = st.isel(stratified=0, prevalence=0, f=0)
        rk = _risks(model, trials, random_state)
        if not stratified:  # the one computation of Figure 9, with the repeats
            rk["p_some_no_pos"] = p_fold_without_positives(pos, n, k, trials=repeats)
        else:
            rk["p_some_no_pos"] = 1 - (1 - rk["p_some_no_pos"]) ** repeats
        rk["p_some_no_pred"] = 1 - (1 - rk["p_some_no_pred"]) ** repeats
        und = float(one.p_undefined)
        row = dict(n=n, positives=pos, prevalence=pos / n, **rk)
        row["p_some_undefined"] = 1 - (1 - und) ** repeats
        row["exact"] = exact and risks_tractable(model)
        risks[cls] = row
        found: dict[str, tuple[float, float, float, bool]] = {}
        for e in ESTIMATORS:
            sel = one.sel(estimator=e)
            ex = bool(sel.exact)
            b, s, se = float(sel.rel_bias), float(sel.rel_std), float(sel.rel_bias_se)
            found[e] = (b, s, 0.0 if ex else se, ex)
        auc_est = _auc_study(model, auc, float(auc_shift), trials, rng)
        found.update({e: (b, s, se, False) for e, (b, s, se) in auc_est.items()})
        rows += [dict(zip(_COLUMNS, (cls, e, *v), strict=True)) for e, v in found.items()]
        recs[cls] = _advice(cls, row, {e: v[:2] for e, v in found.items()}, design)
        if cls in seen.get("undefined", {}):
            seen.setdefault("reproduced", {})[cls] = _pilot.reproduce_check(
                model, seen["undefined"][cls]
            )
    if not risks:
        raise ValueError(
            f"no class can be planned: {few([f'{c}: {why}' for c, why in skipped.items()])}."
        )
    risk_df, rec_df = (pd.DataFrame.from_dict(d, orient="index") for d in (risks, recs))
    risk_df.index.name = rec_df.index.name = "class"
    table = pd.DataFrame()
    if assumed == "default":
        planned = {c: risks[c]["positives"] for c in risks}
        table = _pilot.sensitivity(n, planned, k, repeats, stratified, trials, random_state)
        rec_df = _pilot.guard_any(rec_df, table)
        recs = rec_df.to_dict(orient="index")
    est_df = pd.DataFrame(rows, columns=list(_COLUMNS))
    worst = min(risks, key=lambda c: (risks[c]["positives"], str(c)))
    overall = {"class": worst, **recs[worst]}
    overall["k"] = int(rec_df["k"].min())
    overall["stratified"] = bool(rec_df["stratified"].any())
    design["assumed"] = assumed
    info = {k_: v for k_, v in seen.items() if k_ != "labels"}
    pw = None
    if delta is not None:  # the power of the pooled test at the rarest class
        n_cls = 2 if multilabel or len(positives) <= 2 else len(positives)
        clf: dict[str, Any] = design  # the planned classifier's F, precision and recall
        pw = plan_power(
            delta=float(delta), power=power, metric=metric, n=n, classes=n_cls, k=k,
            prevalence=risks[worst]["positives"] / n, repeats=repeats, stratified=stratified,
            f=clf["f"], balance=clf["precision"] / clf["recall"], auc=auc,
            random_state=random_state,
        )  # fmt: skip
    return Plan(
        design, risk_df, est_df, rec_df, overall, studies, skipped, assumed, table, info, pw
    )


# --- the text --------------------------------------------------------------------------------
