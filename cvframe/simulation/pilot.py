"""What :func:`cvframe.plan` assumes about the classifier, and the sizes it can plan.

- :func:`read_pilot`: a pilot predictions frame (a small cross-validation already run) as the
  classifier to plan for: each class's pooled precision and recall, the merged AUC, and the
  share of the pilot's folds that were undefined (no positives or no predicted positives),
  which the plan's simulation of the same design reproduces.
- :func:`sensitivity`: when the plan falls back on its default classifier (F = 0.8, precision
  = recall), how the risk of an undefined fold and the advice change for recall between 0.3
  and 0.9 (precision kept): the advice is never "any aggregation" when one of these
  plausible classifiers leaves some fold undefined with probability above
  :data:`PLAUSIBLE_RISK`.
- :func:`check_size`: the largest design the exact sums and the AUC simulation handle in a
  few seconds (:data:`MAX_CASES`); a larger one is refused, naming the limit and the
  counts of a subsample to plan instead.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from .. import measure, metrics
from ..errors import few
from ._model import DEFAULT_F, Model, as_seed, hyper
from ._sampler import Sampler
from .exact import moments, tractable

__all__ = [
    "MAX_CASES",
    "PLAUSIBLE_RECALLS",
    "PLAUSIBLE_RISK",
    "check_size",
    "describe",
    "guard_any",
    "read_pilot",
    "reproduce_check",
    "resolve",
    "sensitivity",
]

#: The most cases a plan takes: the exact sums of F's moments grow with the square root of
#: the counts and the AUC simulation with n; at this size a plan takes a few seconds.
MAX_CASES = 1_000_000
#: The recalls of the plausible classifiers a default plan is checked against.
PLAUSIBLE_RECALLS = (0.3, 0.45, 0.6, 0.75, 0.9)
#: A plausible classifier that leaves some fold undefined with a probability above this (5 %)
#: rules out "any aggregation".
PLAUSIBLE_RISK = 0.05


def check_size(n: int, positives: dict[Any, int]) -> None:
    """Refuse a design above :data:`MAX_CASES` cases, with the counts of a subsample."""
    if n <= MAX_CASES:
        return
    scale = MAX_CASES / n
    sub = {c: max(1, int(round(v * scale))) for c, v in positives.items()}
    raise ValueError(
        f"y_or_counts has n={n:,} cases, above plan's limit of MAX_CASES={MAX_CASES:,} (its "
        "exact sums and AUC simulation grow with n and would not finish or fit in memory). "
        f"Plan a subsample with the same class shares instead, e.g. {few(list(sub.items()))}: "
        "it is the worse case, since the chance of an undefined fold and the estimators' "
        "biases only shrink as n grows (same k, same classifier)."
    )


def resolve(
    y_or_counts: Any,
    pilot: Any,
    pos_label: Any,
    f: Any,
    precision: Any,
    recall: Any,
    k: Any,
    auc: Any,
) -> tuple[Any, Any, dict[str, Any], str, Any, Any, Any]:
    """The target, positive class, pilot, source of the classifier and the f, k and auc a
    plan uses: the given ones, else the pilot's, else the defaults."""
    seen: dict[str, Any] = {}
    if pilot is not None:
        seen = read_pilot(pilot, pos_label)
        if y_or_counts is None:
            y_or_counts = seen["labels"]
        pos_label = pos_label if pos_label is not None else seen["pos_label"]
    if y_or_counts is None:
        raise ValueError(
            "y_or_counts is None and no pilot is given; pass the labels or class counts "
            "(e.g. {'rare': 20, 'common': 980}), or a pilot predictions frame (pilot=)."
        )
    assumed = "pilot" if seen else "given"
    if not seen and f is None and precision is None and recall is None:
        assumed = "default"
    f = DEFAULT_F if f is None else f
    k = (seen.get("k") or 10) if k is None else k
    auc = (seen.get("auc") or 0.85) if auc is None else auc
    return y_or_counts, pos_label, seen, assumed, f, k, auc


def _column(frame: pd.DataFrame, name: str, why: str) -> pd.Series:
    if name not in frame.columns:
        raise ValueError(
            f"pilot has no {name!r} column ({why}); its columns are "
            f"{few(list(frame.columns), 10)}. Pass the predictions frame of a pilot "
            "cross-validation: cvframe.cross_validate(model, X, y, scores='predict_proba')."
        )
    return frame[name]


def read_pilot(pilot: Any, pos_label: Hashable | None = None) -> dict[str, Any]:
    """A pilot predictions frame as the classifier to plan for.

    Returns ``labels`` (one per tested sample of the first repeat: the plan's target),
    ``rates`` ({class: (precision, recall)} pooled over every fold and repeat, one-vs-rest),
    ``auc`` (the merged AUC of the scores), ``k`` (folds per repeat), ``stratified`` and
    ``undefined`` ({class: (share of folds undefined, folds)}: no positives, or no predicted
    positives).
    """
    if not isinstance(pilot, pd.DataFrame):
        raise TypeError(
            f"pilot must be a predictions frame (pandas.DataFrame with y_true, y_pred, score "
            f"and fold columns), got {type(pilot).__name__}."
        )
    y_true = _column(pilot, "y_true", "the true classes")
    y_pred = _column(pilot, "y_pred", "the predicted classes")
    score_cols = [c for c in pilot.columns if c == "score" or str(c).startswith("score_")]
    if not score_cols:
        raise ValueError(
            f"pilot has no scores (no 'score' or 'score_<class>' column; columns "
            f"{few(list(pilot.columns), 10)}): plan takes the pilot's AUC from them. Run the "
            "pilot with scores, cvframe.cross_validate(model, X, y, scores='predict_proba'), "
            "or give precision= and recall= (and auc=) instead of a pilot."
        )
    fold = _column(pilot, "fold", "which fold tested each sample")
    classes = pd.unique(y_true.dropna())
    if len(classes) < 2:
        raise ValueError(
            f"pilot's y_true holds one class ({few(list(classes))}): its precision and recall "
            "of the other class are not defined. Use a pilot with positives and negatives."
        )
    repeat = pilot["repeat"] if "repeat" in pilot.columns else pd.Series(0, index=pilot.index)
    first = repeat == repeat.iloc[0]
    labels = y_true[first].to_numpy()
    attrs_pos = pilot.attrs.get("pos_label")
    binary = len(classes) == 2
    if binary:
        pos = pos_label if pos_label is not None else attrs_pos
        if pos is None:
            pos = 1 if 1 in set(classes) else sorted(classes, key=str)[-1]
        planned = [pos]
    else:
        planned = list(classes)
    rates, undefined = {}, {}
    keys = pd.DataFrame({"repeat": repeat.to_numpy(), "fold": fold.to_numpy()})
    for c in planned:
        t = (y_true == c).to_numpy()
        p = (y_pred == c).to_numpy()
        tp, fp, fn = int((t & p).sum()), int((~t & p).sum()), int((t & ~p).sum())
        if tp == 0:
            raise ValueError(
                f"pilot predicts no true positive of class {c!r} (tp=0, fp={fp}, fn={fn}): its "
                "precision and recall are 0 or undefined and no classifier can be simulated "
                "from them. Give precision= and recall= instead."
            )
        rates[c] = (tp / (tp + fp), tp / (tp + fn))
        per = keys.assign(t=t, p=p).groupby(["repeat", "fold"])[["t", "p"]].sum()
        bad = (per["t"] == 0) | (per["p"] == 0)
        undefined[c] = (float(bad.mean()), int(len(per)))
    auc = _auc(pilot, score_cols, planned, binary)
    k = int(keys[first.to_numpy()]["fold"].nunique())
    strat = pilot.attrs.get("stratified")
    return {
        "labels": labels,
        "rates": rates,
        "auc": auc,
        "k": k,
        "stratified": None if strat is None else str(strat) == "yes",
        "undefined": undefined,
        "pos_label": planned[0] if binary else None,
    }


def _auc(pilot: pd.DataFrame, score_cols: list[str], planned: list[Any], binary: bool) -> float:
    """The merged AUC of the pilot's scores (mean over repeats; macro over classes)."""
    kw: dict[str, Any] = {"pos_label": planned[0]} if binary and "score" in score_cols else {}
    if not binary or "score" not in score_cols:
        kw["average"] = "macro"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            value = measure.frame(pilot, "auc", "merge", **kw)
        except (ValueError, TypeError) as err:
            raise ValueError(f"pilot's scores give no AUC: {err}") from None
    auc = float(np.nanmean(np.asarray(value.values, dtype=float)))
    if not 0.0 < auc < 1.0:
        raise ValueError(
            f"pilot's merged AUC is {auc:.4g}; plan's binormal scores need 0 < AUC < 1."
        )
    return auc


def _p_undefined(model: Model, trials: int, seed: Any) -> float:
    """P(some fold has no positives or no predicted positives), exact where tractable."""
    if tractable(model):
        return float(moments(model)["p_undefined"])
    tp, fp, pos, _ = Sampler(model, as_seed(seed)).counts(0, min(trials, 20_000))
    return float((((tp == 0) & (fp == 0)) | (pos == 0)).any(axis=1).mean())


def sensitivity(
    n: int,
    positives: dict[Any, Any],
    k: int,
    repeats: int,
    stratified: bool,
    trials: int,
    seed: Any,
) -> pd.DataFrame:
    """For the default classifier's precision (0.8) and each plausible recall: F, and for
    the class at most risk P(some fold of some repeat undefined) and what that advises."""
    rows = []
    for r in PLAUSIBLE_RECALLS:
        worst, worst_cls = -1.0, None
        for cls, pos in positives.items():
            if not 0 < pos < n:
                continue
            try:
                model = Model.make(n, pos / n, DEFAULT_F, k, stratified, DEFAULT_F, r)
            except ValueError:
                continue
            und = 1 - (1 - _p_undefined(model, trials, seed)) ** repeats
            if und > worst:
                worst, worst_cls = und, cls
        if worst_cls is None:
            continue
        report = metrics.spelled("f", "tp_fp") if worst > PLAUSIBLE_RISK else "any"
        f = 2 * DEFAULT_F * r / (DEFAULT_F + r)
        rows.append(
            {
                "recall": r,
                "precision": DEFAULT_F,
                "f": f,
                "class": worst_cls,
                "p_some_undefined": worst,
                "report": report,
            }
        )
    return pd.DataFrame(rows)


def guard_any(recs: pd.DataFrame, table: pd.DataFrame) -> pd.DataFrame:
    """No "any aggregation" when a plausible classifier of ``table`` risks an undefined fold
    above :data:`PLAUSIBLE_RISK`: those classes are advised the pooled F, and why."""
    risky = table[table["p_some_undefined"] > PLAUSIBLE_RISK]
    if risky.empty:
        return recs
    out = recs.copy()
    pooled = metrics.spelled("f", "tp_fp")
    worst = risky.loc[risky["p_some_undefined"].idxmax()]
    for cls in out.index[out["report"] == "any"]:
        out.loc[cls, "report"] = pooled
        out.loc[cls, "reason"] = (
            f"{out.loc[cls, 'reason']} But the classifier was not given (the default F = 0.8 "
            f"was assumed) and a plausible one, recall {worst['recall']:g} with precision "
            f"{worst['precision']:g}, leaves some fold of class {worst['class']!r} undefined "
            f"with probability {worst['p_some_undefined']:.2g} (above "
            f"{PLAUSIBLE_RISK:.0%}): report F_tp,fp, which stays defined."
        )
    return out


def _p_fold_undefined(a: Any, b: Any, recall: float, q: float) -> np.ndarray:
    """P(a fold with ``a`` positives and ``b`` negatives is undefined): it has no positives,
    or the model's TP ~ Bin(a, recall) and FP ~ Bin(b, q) are both 0."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return np.where(a == 0, 1.0, (1.0 - recall) ** a * (1.0 - q) ** b)


def reproduce_check(model: Model, observed: tuple[float, int]) -> dict[str, float]:
    """The pilot's share of undefined folds (no positives, or no predicted positives) beside
    the plan's probability that a fold is undefined under the same design (exact), with the
    binomial standard error of the pilot's share at that probability."""
    share, folds = observed
    r, q = model.recall, model.q
    if model.stratified:
        pos = model.strat_pos
        p_fold = float(np.mean(_p_fold_undefined(pos, model.sizes - pos, r, q)))
    else:
        per = []
        for size in (int(x) for x in model.sizes):
            a = np.arange(min(model.pos, size) + 1)
            per.append(
                float(hyper(a, model.n, model.pos, size) @ _p_fold_undefined(a, size - a, r, q))
            )
        p_fold = float(np.mean(per))
    se = math.sqrt(max(p_fold * (1 - p_fold), 1e-12) / max(folds, 1))
    return {"pilot_share": share, "pilot_folds": folds, "planned": p_fold, "se": se}


def describe(assumed: str, table: pd.DataFrame, seen: dict[str, Any]) -> list[str]:
    """The lines of a plan's text that say where its classifier came from."""
    if assumed == "default":
        lines = [
            "",
            f"Assumed classifier: the DEFAULT, F = {DEFAULT_F} with precision = recall (no "
            "pilot=, f=, precision= or recall= was given). Plausible classifiers differ; "
            f"with precision {DEFAULT_F} and recall from 0.3 to 0.9:",
        ]
        if len(table):
            shown = table.assign(
                f=table["f"].map(lambda x: f"{x:.3g}"),
                p_some_undefined=table["p_some_undefined"].map(lambda x: f"{x:.3g}"),
            ).rename(columns={"p_some_undefined": "P(some fold undefined)"})
            lines += ["  " + row for row in shown.to_string(index=False).splitlines()]
        lines.append(
            "  Pass a pilot predictions frame (pilot=) or precision= and recall= to plan for "
            "your classifier."
        )
        return lines
    if assumed != "pilot":
        return []
    lines = ["", f"Classifier from the pilot frame (merged AUC {seen['auc']:.3g}):"]
    for cls, (prec, rec) in seen["rates"].items():
        line = f"  {cls!r}: precision {prec:.3g}, recall {rec:.3g}"
        rep = seen.get("reproduced", {}).get(cls)
        if rep is not None:
            line += (
                f"; the pilot's folds were undefined in {rep['pilot_share']:.3g} of "
                f"{rep['pilot_folds']} folds, the plan's model gives {rep['planned']:.3g} per "
                f"fold (± {2 * rep['se']:.2g} expected from {rep['pilot_folds']} folds)"
            )
        lines.append(line)
    return lines
