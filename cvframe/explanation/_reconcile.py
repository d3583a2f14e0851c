"""Why do two reported numbers disagree? :func:`reconcile` names both and splits the gap into
additive parts, one choice of the recipe at a time (its docstring says how)."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from .. import metrics
from .._core import checks as _checks
from .._core.docs import doc
from ..schema import CLASS, FOLD, REPEAT
from ._core import KINDS, as_cube, check_metric, num, parse_reported, scored_frame, signed
from ._recipes import Counts, Recipe, Scores, evaluate

#: The metrics :func:`reconcile` knows: every count and score metric of the registry (a view
#: of :data:`cvframe.metrics.REGISTRY`; ``"error"`` is 1 - accuracy, mlr's ``mmce``).
METRICS = tuple(metrics.names(KINDS))
#: The order in which the path from one recipe to the other changes its choices.
ORDER = ("repeats", "undefined", "weighting", "aggregation")


@dataclass(frozen=True)
class Reconciliation:
    """What :func:`reconcile` found.

    Attributes
    ----------
    reported : tuple of str
        The two numbers as given.
    values : tuple of float
        The two numbers as fractions.
    metric : str
    recipes : tuple of Recipe
        The recipe chosen for each number (the simplest of those that reproduce it).
    names : tuple of str
        Their names (``"F_avg"``, ``"pooled error"``...).
    computed : tuple of float
        Each recipe's value on the data.
    matched : tuple of bool
        Whether each number is reproduced within its rounding.
    matches : tuple of pandas.DataFrame
        Every recipe that reproduces each number (``name``, ``value``, ``distance``).
    candidates : pandas.DataFrame
        Every recipe computed.
    parts : pandas.DataFrame
        The decomposition: ``part``, ``from``, ``to``, ``value``; the values add up to
        ``gap``.
    gap : float
        The second reported number minus the first.
    text : str
        A paragraph a reviewer can paste.
    """

    reported: tuple[str, str]
    values: tuple[float, float]
    metric: str
    recipes: tuple[Recipe, Recipe]
    names: tuple[str, str]
    computed: tuple[float, float]
    matched: tuple[bool, bool]
    matches: tuple[pd.DataFrame, pd.DataFrame] = field(repr=False)
    candidates: pd.DataFrame = field(repr=False)
    parts: pd.DataFrame = field(repr=False)
    gap: float = 0.0
    text: str = ""

    def __str__(self) -> str:
        return self.text


# --- candidates ---------------------------------------------------------------------------


def _recipes(metric: str, repeats: list[Any], sizes_differ: bool, undefined: bool) -> list[Recipe]:
    """Every recipe worth computing, simplest first."""
    entry = metrics.REGISTRY[metric]
    scored = entry.kind == "score"
    aggs = ["merge", "avg"] if scored else ["pooled", "avg"]
    if "pr_re" in entry.variants:
        aggs.append("pr_re")
    weights = ["equal", "size"] if sizes_differ else ["equal"]
    if scored:
        policies = ["skip"]
    elif undefined:
        policies = ["zero", "skip", "one"]
    else:
        policies = ["zero"]
    out = []
    for rep in repeats:
        for agg in aggs:
            if agg in ("pooled", "merge"):
                out.append(Recipe(agg, repeats=rep))
                continue
            for w in weights:
                out.extend(Recipe(agg, w, u, rep) for u in policies)
    return out


def _cost(r: Recipe) -> tuple[int, int]:
    """How unusual a recipe is (fewer unusual choices first)."""
    odd = (r.weighting == "size") + (r.undefined not in (None, "zero", "skip"))
    odd += (r.undefined == "skip") + (r.aggregation == "pr_re")
    odd += r.repeats not in (None, "mean")
    return odd, 0


# --- the path -------------------------------------------------------------------------------


def _path(
    a: Recipe, b: Recipe, metric: str, differ: bool, undefined: bool
) -> list[tuple[str, Recipe]]:
    """The recipes from ``a`` (a fold mean, or both pooled) to ``b``, one choice at a time."""
    entry = metrics.REGISTRY[metric]
    scored = entry.kind == "score"
    # merging weighs the folds by their samples (a mean of per-sample losses: Brier,
    # log-loss) or, for a ranking metric (AUC), by their positive-negative pairs
    merged = "size" if entry.probabilities else "pairs"
    mid = replace(a, repeats=b.repeats)
    steps = [("repeats", mid)]
    if a.folded:
        und = b.undefined if b.folded else ("skip" if undefined else a.undefined)
        mid = replace(mid, undefined="skip" if scored else und)
        steps.append(("undefined", mid))
        weight = b.weighting if b.folded else ("size" if differ else "equal")
        weight = merged if scored and not b.folded else weight
        mid = replace(mid, weighting=weight)
        steps.append(("weighting", mid))
    steps.append(("aggregation", b))
    return steps


_PART = {
    "repeats": "repeat handling",
    "undefined": "undefined folds",
    "weighting": "fold-size weighting",
    "aggregation": "the rest",
}


def _part_name(kind: str, before: Recipe, after: Recipe, metric: str) -> str:
    if kind == "weighting" and "pairs" in (before.weighting, after.weighting):
        return "fold weighting (by positive-negative pairs, as merging does)"
    if kind != "aggregation":
        return _PART[kind]
    if metrics.REGISTRY[metric].kind == "score" and before.aggregation != after.aggregation:
        merged, averaged = (metrics.display(metric, v) for v in ("merge", "avg"))
        return f"fold-to-fold calibration shift ({merged} vs {averaged})"
    if "pr_re" in (before.aggregation, after.aggregation) and "pooled" not in (
        before.aggregation,
        after.aggregation,
    ):
        return "the rest (F of the mean precision and recall vs the mean F)"
    return "the rest (pooling the counts vs averaging per-fold values)"


# --- the function ----------------------------------------------------------------------------


@doc
def reconcile(
    a: Any,
    b: Any,
    data: Any,
    metric: str = "f",
    *,
    digits: Any = None,
    beta: float = 1.0,
    pos_label: Any = None,
) -> Reconciliation:
    r"""Why two reported numbers of the same folds disagree: both recipes and the gap in parts.

    Each number is matched within its rounding, :math:`v \pm \tfrac12 10^{-d}` (read as
    :func:`explain` reads it), to the simplest recipe that reproduces it: aggregation
    (pooled, fold mean, F of mean precision and recall; AUC_merge, AUC_avg), fold weighting
    (equal or by fold size), undefined folds (0, skipped, 1) and repeats (one, the mean, all
    folds together). The gap :math:`b - a` is then walked from the fold-averaged number to
    the other, one choice at a time in the order of :data:`ORDER` — repeat handling,
    undefined folds, fold weighting (to fold size, or to positive-negative pairs on the way
    to AUC_merge), the aggregation (for AUC: the fold-to-fold calibration shift) — and each
    step's change is one part. With the rounding of the reported numbers,

    .. math:: b - a = \sum_{\text{steps}} \Delta_s + (b - \hat b) - (a - \hat a),

    exactly (the parts telescope).

    Parameters
    ----------
    a, b : float or str
        The two reported numbers (text keeps trailing zeros: ``"0.0400"`` has 4 digits).
    data : xarray.Dataset or pandas.DataFrame
        The counts cube, or the predictions frame (``metric="auc"`` needs its scores).
    metric : str, default "f"
        A count or score metric of :data:`cvframe.metrics.REGISTRY` by any of its names
        (:data:`METRICS`): ``"f"``, ``"accuracy"``, ``"error"`` (mlr's ``mmce``),
        ``"precision"``, ``"auc"``..., or a scikit-learn scorer name (``"f1"``,
        ``"roc_auc"``...). A per-class metric of a multiclass cube needs ``pos_label``; a
        metric over every class (accuracy, error) reads the whole cube.
    digits : int or pair of int, optional
        The reported decimal digits, when the text does not tell them.
    beta : float, default 1.0
    pos_label : optional
        The positive class of a binary frame.

    Returns
    -------
    Reconciliation
        ``.names``, ``.recipes``, ``.parts`` (adding up to ``.gap``), ``.text``.

    Raises
    ------
    ValueError
        An unknown metric, a value that is not a number in [0, 1] (or a percent), AUC
        without a scored predictions frame, data with several models left.

    See Also
    --------
    explain : which aggregation one number is.

    References
    ----------
    <<reference>>

    Examples
    --------
    >>> import cvframe
    >>> ds = cvframe.datasets.table2()
    >>> r = cvframe.reconcile("0.667", "0.769", ds)
    >>> r.names
    ('F_avg', 'F_tp,fp')
    >>> for part, value in zip(r.parts["part"], r.parts["value"]):
    ...     print(f"{part[:22]:22} {value:+.4f}")
    undefined folds        +0.2222
    the rest (pooling the  -0.1197
    rounding of the report -0.0006
    >>> round(float(r.parts["value"].sum()), 10) == round(r.gap, 10)
    True
    """
    entry = check_metric(metric)
    metric = entry.name
    b_ = _checks.beta(beta)
    d_a, d_b = digits if isinstance(digits, (tuple, list)) else (digits, digits)
    (sa, va, pa, _), (sb, vb, pb, _) = (
        parse_reported(a, d_a, entry.bounds, entry.display, "a"),
        parse_reported(b, d_b, entry.bounds, entry.display, "b"),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined folds are a recipe's choice here
        source, reps, differ, undefined = _source(data, metric, b_, pos_label)
        has_rep = reps != [None]
        table = [
            (r, evaluate(source, r, has_rep)) for r in _recipes(metric, reps, differ, undefined)
        ]
        cands = pd.DataFrame(
            {
                "name": [r.name(metric) for r, _ in table],
                "value": [v for _, v in table],
                "recipe": [r for r, _ in table],
                "cost": [_cost(r)[0] for r, _ in table],
            }
        )
        picks = [_pick(cands, v, p) for v, p in ((va, pa), (vb, pb))]
        (ra, ca, ma, mta), (rb, cb, mb, mtb) = picks
        if ra == rb and va != vb and len(mtb) > 1:  # two numbers, one recipe: b's next
            rb = next(r for r in mtb["recipe"] if r != ra)
            cb = float(cands.loc[cands["recipe"] == rb, "value"].iloc[0])
        parts = _parts(source, ra, rb, ca, cb, va, vb, metric, has_rep, (ma, mb))
    gap = vb - va
    rec = Reconciliation(
        (sa, sb), (va, vb), metric, (ra, rb), (ra.name(metric), rb.name(metric)), (ca, cb),
        (ma, mb), (mta, mtb), cands.drop(columns=["recipe", "cost"]), parts, gap,
    )  # fmt: skip
    return replace(rec, text=_text(rec, max(pa, pb), source.sizes))


def _source(
    data: Any, metric: str, beta: float, pos_label: Any
) -> tuple[Any, list[Any], bool, bool]:
    """The values' source, the repeat options, whether fold sizes differ, whether some fold is
    undefined."""
    if metrics.REGISTRY[metric].kind == "score":
        src: Any = Scores(scored_frame(data, metric), metric, pos_label)
        undefined = bool(src.fold.isnull().where(src.real, False).any())
        rep_values = list(src.fold[REPEAT].values) if REPEAT in src.fold.dims else []
    else:
        ds = as_cube(data, pos_label)
        extra = [d for d in ds["tp"].dims if d not in (FOLD, CLASS, REPEAT)]
        if extra:
            raise ValueError(
                f"the data have the dims {extra}; reconcile compares two numbers of one set "
                "of folds: select one first (e.g. data.sel(model=...))."
            )
        src = Counts(ds, metric, beta)
        ok = src.cells(metric, 0.0)[1]
        undefined = not bool(ok.where(src.real, True).all())
        rep_values = list(ds[REPEAT].values) if REPEAT in ds.dims else []
    sizes = src.size.where(src.real).values
    differ = bool(np.nanmax(sizes) != np.nanmin(sizes)) if np.isfinite(sizes).any() else False
    reps = ["mean", "all", *rep_values] if len(rep_values) > 1 else [None]
    src.differ, src.undefined = differ, undefined
    src.sizes = (int(np.nanmin(sizes)), int(np.nanmax(sizes))) if differ else None
    return src, reps, differ, undefined


def _pick(
    cands: pd.DataFrame, value: float, places: int
) -> tuple[Recipe, float, bool, pd.DataFrame]:
    """The simplest recipe within the rounding of ``value`` (else the nearest)."""
    half = 0.5 * 10.0**-places + 1e-9 * max(1.0, abs(value))
    cands = cands.assign(distance=cands["value"] - value)
    dist = cands["distance"].abs()
    inside = cands[dist <= half].sort_values(["cost"], kind="stable")
    cols = ["name", "value", "distance", "recipe"]
    found = len(inside) > 0
    best = inside.iloc[0] if found else cands.iloc[int(dist.fillna(np.inf).argmin())]
    return best["recipe"], float(best["value"]), found, inside[cols]


def _parts(
    source: Any,
    ra: Recipe,
    rb: Recipe,
    ca: float,
    cb: float,
    va: float,
    vb: float,
    metric: str,
    has_rep: bool,
    matched: tuple[bool, bool],
) -> pd.DataFrame:
    """The sequential decomposition of ``vb - va``: one row per changed choice, plus rounding."""
    flip = not ra.folded and rb.folded  # walk from the fold-averaged end
    start, end, c0 = (rb, ra, cb) if flip else (ra, rb, ca)
    rows: list[dict[str, Any]] = []
    before, prev = start, c0
    for kind, after in _path(start, end, metric, source.differ, source.undefined):
        now = evaluate(source, after, has_rep) if after != end else (ca if flip else cb)
        delta = (now - prev) * (-1 if flip else 1)
        if after != before or kind == "aggregation":
            names = (before.name(metric), after.name(metric))
            rows.append(
                {
                    "part": _part_name(kind, before, after, metric),
                    "from": names[1] if flip else names[0],
                    "to": names[0] if flip else names[1],
                    "value": delta,
                }
            )
        before, prev = after, now
    rows = rows[::-1] if flip else rows
    gap = vb - va
    label = (
        "rounding of the reported numbers"
        if all(matched)
        else "unexplained (no recipe reproduces a number)"
    )
    rest = gap - math.fsum(float(r["value"]) for r in rows)
    rows.append({"part": label, "from": "computed", "to": "reported", "value": rest})
    return pd.DataFrame(rows, columns=["part", "from", "to", "value"])


# --- the paragraph -------------------------------------------------------------------------------


def _tools(r: Recipe, metric: str) -> str:
    """Which tools report this recipe, from the registry (what :func:`explain` says)."""
    plain = r.weighting in (None, "equal") and r.undefined in (None, "zero", "skip")
    if not plain or r.repeats not in (None, "mean"):
        return ""
    return metrics.REGISTRY[metric].tools.get(r.variant(metric), "")


#: Why a part is not zero, by the start of its name.
_WHY = {
    "repeat": "One number takes the repeats another way (their mean, all their folds "
    "together, or one repeat) than the other.",
    "undefined": "Some folds have an undefined value (no positives or no predicted positives): "
    "one number counts them as {fill}, the other skips them or pools their counts.",
    "fold weighting": "Merging weighs each fold by its positive-negative pairs, the fold mean "
    "weighs the folds equally.",
    "fold-to-fold": "AUC_merge ranks the scores of different folds against each other, so fold "
    "models whose scores are shifted (not calibrated with each other) lower it; AUC_avg "
    "ranks each fold's scores only among themselves.",
    "the rest (pooling": "Pooling the counts weighs each fold by its cases of each kind, which "
    "a mean of per-fold values does not.",
    "the rest (F of": "F of the mean precision and recall smooths over a fold's low precision "
    "or recall, which the mean F counts in full.",
}


def _text(rec: Reconciliation, places: int, sizes: tuple[int, int] | None) -> str:
    d = max(places + 1, 4)
    sentences = []
    for s, r, name, c, ok in zip(
        rec.reported, rec.recipes, rec.names, rec.computed, rec.matched, strict=True
    ):
        tools = _tools(r, rec.metric)
        if ok:
            sentences.append(f"{s} is {name} ({num(c, d)})" + (f", {tools}" if tools else ""))
        else:
            sentences.append(
                f"{s} matches no recipe within its rounding; the nearest is {name} ({num(c, d)})"
            )
    parts = rec.parts[rec.parts["value"].abs() >= 0.5 * 10.0**-d]
    listed = ", ".join(f"{p['part']} {signed(p['value'], d)}" for _, p in parts.iterrows())
    order = "repeat handling, undefined folds, fold weighting, then the aggregation"
    text = (
        "; ".join(sentences) + f". The gap {signed(rec.gap, d)} splits into "
        f"{listed or 'nothing: the numbers agree'} (changing one choice at a time from the "
        f"fold-averaged number: {order}; the parts add up to the gap)."
    )
    fill = "1" if "one" in (rec.recipes[0].undefined, rec.recipes[1].undefined) else "0"
    for part in parts["part"]:
        if part == "fold-size weighting" and sizes is not None:
            text += (
                f" The folds hold {sizes[0]} to {sizes[1]} cases: a mean that weighs every "
                "fold the same counts each case of a small fold more than the pooled number "
                "does."
            )
        why = next((w for key, w in _WHY.items() if part.startswith(key)), None)
        if why is not None:
            text += " " + why.format(fill=fill)
    if rec.recipes[0] == rec.recipes[1] and all(rec.matched):
        text += " Both numbers are the same recipe: they agree within their rounding."
    elif all(rec.matched):
        text += " Neither number is wrong: they aggregate the same folds differently."
    return text
