"""The text of a study plan (:class:`cvframe.simulation.plan.Plan`): the design, the risks
of undefined folds, each estimator's bias and spread, the advice, and what was assumed."""

from __future__ import annotations

import math
from typing import Any

from . import pilot as _pilot
from ._model import REFERENCE
from .power import power_text

__all__ = ["text"]


def _advised(rec: Any, names: dict[str, str]) -> str:
    """A recommendation (a row of :attr:`Plan.recommendation`, or ``overall``) in words."""
    report = "any aggregation" if rec["report"] == "any" else names[rec["report"]]
    strat = "stratified" if rec["stratified"] else "unstratified"
    return f"k={rec['k']}, repeats={rec['repeats']}, {strat}, report {report}"


def text(p: Any, names: dict[str, str], order: tuple[str, ...]) -> str:
    """The plan ``p`` in words: its design, risks, biases, advice, and what it assumed
    (``names``: each estimator's display name, ``order``: the estimators' columns)."""
    d = p.design
    clf = (
        f"precision = recall = {d['f']:.3g}"
        if math.isclose(d["precision"], d["recall"])
        else f"precision {d['precision']:.3g}, recall {d['recall']:.3g}"
    )
    head = (
        f"Plan: {'stratified ' if d['stratified'] else ''}{d['k']}-fold CV x {d['repeats']} "
        f"repeat{'s' if d['repeats'] > 1 else ''} of n={d['n']}; classifier F={d['f']:.3g} "
        f"({clf}), AUC={d['auc']:.3g}; metric {d['metric']}"
    )
    r = p.risks.copy()
    for c in [c for c in r.columns if c.startswith("p_") or c == "prevalence"]:
        r[c] = r[c].map(lambda x: f"{x:.3g}")
    r = r.drop(columns="n").rename(
        columns={
            "p_fold_no_pos": "P(fold: no pos)",
            "p_some_no_pos": "P(some fold: no pos)",
            "p_fold_no_pred": "P(fold: no pred)",
            "p_some_no_pred": "P(some fold: no pred)",
            "p_some_undefined": "P(some fold undefined)",
        }
    )
    e = p.estimators.copy()
    e["cell"] = [
        f"{100 * b:+.2f}" + ("" if x else f"±{200 * se:.2f}")
        for b, se, x in zip(e["rel_bias"], e["rel_bias_se"], e["exact"], strict=True)
    ]
    bias = e.pivot(index="class", columns="estimator", values="cell")
    bias = bias[[c for c in order if c in bias.columns]]
    std = e.pivot(index="class", columns="estimator", values="rel_std")[bias.columns] * 100
    lines = [
        head,
        "",
        "Risks (over all repeats):",
        r.to_string(),
        "",
        "Relative bias in % (±: 2 Monte-Carlo standard errors; none: exact):",
        bias.rename(columns=names).to_string(),
        "",
        "Relative standard deviation in % (one repeat):",
        std.rename(columns=names).round(2).to_string(),
        "",
        "Recommendation:",
    ]
    recs = p.recommendation.iterrows()
    lines += [f"  {cls}: {_advised(rec, names)} - {rec['reason']}" for cls, rec in recs]
    overall = _advised(p.overall, names)
    lines.append(f"Overall (class {p.overall['class']!r}, the rarest): {overall}.")
    for cls, why in p.skipped.items():
        lines.append(f"  {cls}: not planned ({why}).")
    lines += _pilot.describe(p.assumed, p.sensitivity, p.pilot)
    lines += power_text(p.power) if p.power else []
    lines.append(f"Model: {REFERENCE}")
    return "\n".join(lines)
