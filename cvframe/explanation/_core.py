"""The matching of one reported number: :func:`explain`, its parser and its tables (what each
aggregation is and which tools report it, from the registry; shared with ``reconcile``)."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from typing import Any, cast

import numpy as np
import pandas as pd
import xarray as xr

from .. import formulas, measure, metrics, multiclass, scores
from .._core import checks as _checks
from .._core.docs import doc
from .._core.labels import frame as labels_frame
from ..build import counts_from_frame
from ..errors import user_stacklevel
from ..schema import CLASS, REPEAT
from ..tidy import all_folds

#: The kinds of metric :func:`explain` and :func:`cvframe.reconcile` read: of the counts
#: cube, or of the scores of a predictions frame.
KINDS = ("count", "score")


def check_metric(metric: Any) -> metrics.Metric:
    """The registry entry of ``metric``, which must be a count or a score metric."""
    return metrics.REGISTRY[metrics.resolve(metric, kinds=KINDS).metric]


#: Class averages as a name says them, and what they are (``{}``: the metric's name).
_AVERAGED = {
    "macro": "the mean over classes of each class's {}",
    "macro_f_of_means": "{} of the class-mean precision and the class-mean recall",
    "micro": "{} of the counts summed over classes",
    "weighted": "the support-weighted mean over classes of each class's {}",
}
_CARET = "as caret's confusionMatrix(fit$pred) on the predictions of all repeats reports"


@dataclass(frozen=True)
class Explanation:
    """What :func:`explain` found: the matching aggregations and a paragraph saying so.

    Attributes
    ----------
    reported : str
        The number as reported (its text).
    value : float
        The reported number as a fraction (a percent divided by 100).
    digits : int
        The decimal digits of ``value`` (after reading a percent as a fraction).
    interval : tuple of float
        ``value ± 0.5·10^-digits``: the numbers that round to the reported one.
    metric : str
    matches : pandas.DataFrame
        The aggregations inside ``interval``: columns ``name``, ``value``, ``distance``
        (aggregation minus reported value) and ``meaning``, nearest first.
    candidates : pandas.DataFrame
        Every aggregation computed, same columns, nearest first.
    reference : str or None
        The recommended pooled aggregation (``F_tp,fp``, ``pooled accuracy``) or, for AUC,
        the other method.
    text : str
        One paragraph a reviewer can paste.
    """

    reported: str
    value: float
    digits: int
    interval: tuple[float, float]
    metric: str
    matches: pd.DataFrame = field(repr=False)
    candidates: pd.DataFrame = field(repr=False)
    reference: str | None
    text: str

    def __str__(self) -> str:
        return self.text


# --- the reported number ---------------------------------------------------------------------


def range_text(bounds: tuple[float, float]) -> str:
    """A metric's range in words that read the same in Python and on the command line
    (brackets would be taken for a list there): "from 0 to 1", "0 or more".

    >>> range_text((-1.0, 1.0)), range_text((0.0, math.inf))
    ('from -1 to 1', '0 or more')
    """
    low, high = bounds
    if math.isinf(high):
        return f"{low:g} or more"
    return f"from {low:g} to {high:g}"


def parse_reported(
    value: Any,
    digits: Any,
    bounds: tuple[float, float] = (0.0, 1.0),
    metric: str = "the metric",
    arg: str = "value",
) -> tuple[str, float, int, bool]:
    """The reported text, the value as a fraction, its digits, and whether it was a percent:
    a value outside ``bounds`` (the range of ``metric``, as the registry gives it) whose
    hundredth is inside, when the range ends at 1; ``arg`` names the argument in errors."""
    percent = False
    if isinstance(value, str):
        text = value.strip()
        if text.endswith("%"):
            percent, text = True, text[:-1].strip()
        try:
            dec = Decimal(text)
        except InvalidOperation:
            raise ValueError(f"{arg}={value!r} is not a number.") from None
        shown = value.strip()
    elif isinstance(value, Decimal):
        dec, shown = value, str(value)
    elif isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        if isinstance(getattr(value, "dtype", None), np.dtype) and np.ndim(value) == 0:
            return parse_reported(np.asarray(value)[()], digits, bounds, metric, arg)  # 0-d
        raise TypeError(
            f"{arg}={value!r} must be a number or its text (e.g. '0.873'), "
            f"not {type(value).__name__}."
        )
    else:
        if isinstance(value, (int, np.integer)):
            shown = str(int(value))
        elif isinstance(value, float) or not np.isfinite(value):
            shown = repr(float(value))
        else:  # the shortest text of the value in its own precision (float32's 0.7 is 0.7)
            shown = np.format_float_positional(value, unique=True, trim="-")
        dec = Decimal(shown)
    if not dec.is_finite():
        raise ValueError(f"{arg}={value!r} must be a finite number.")
    num = float(dec)
    if digits is None:
        exp = dec.as_tuple().exponent
        places = max(0, -int(exp)) if isinstance(exp, int) else 0
    else:
        places = _checks.integer("digits", digits, low=0, high=15)
    low, high = bounds
    inside = low <= num <= high
    share = high == 1.0  # a share (a range ending at 1) may be printed as a percent
    if percent or (not inside and share and low <= num / 100 <= high):
        if not low <= num / 100 <= high:
            raise ValueError(
                f"{arg}={value!r} is a percent, {num:g}%, outside the range of {metric} "
                f"as a percent ({range_text((100 * low, 100 * high))})."
            )
        num, places, percent = num / 100, places + 2, True
    elif not inside and share:
        raise ValueError(
            f"{arg}={value!r} is neither in the range of {metric} ({range_text(bounds)}) nor "
            f"a percent of it ({range_text((100 * low, 100 * high))}); pass the number as "
            "reported, e.g. 0.873 or 87.3."
        )
    elif not inside:
        raise ValueError(
            f"{arg}={value!r} is outside the range of {metric} ({range_text(bounds)})."
        )
    return shown, num, places, percent


# --- the aggregations ----------------------------------------------------------------------


def _rows(base: str, meaning: str, tools: str | None, da: xr.DataArray) -> list[dict[str, Any]]:
    """One row per repeat (plus the mean over repeats) and per cell of the other dims."""
    da = da.squeeze(drop=True) if da.ndim else da
    others = [d for d in da.dims if d != "repeat"]
    per_cell = da.stack(_cell=others) if others else da.expand_dims(_cell=[None])
    out = []
    for i in range(per_cell.sizes["_cell"]):
        one = per_cell.isel(_cell=i)
        suffix = ""
        if others:
            key = per_cell.indexes["_cell"][i]
            key = key if isinstance(key, tuple) else (key,)
            suffix = " [" + ", ".join(f"{d}={k}" for d, k in zip(others, key, strict=True)) + "]"
        if "repeat" in one.dims:
            vals = one.values.astype(float)
            for r, v in zip(one["repeat"].values, vals, strict=True):
                out.append(_row(f"{base}, repeat {r}{suffix}", v, f"{meaning}, repeat {r}", tools))
            mean = float(np.nanmean(vals)) if np.isfinite(vals).any() else math.nan
            where = ", mean over repeats"
            out.append(_row(f"{base}{where}{suffix}", mean, f"{meaning}{where}", tools))
        else:
            out.append(_row(f"{base}{suffix}", float(one.values), meaning, tools))
    return out


def _row(name: str, value: float, meaning: str, tools: str | None) -> dict[str, Any]:
    return {"name": name, "value": value, "meaning": meaning, "tools": tools or ""}


def _meaning(entry: metrics.Metric, variant: str) -> str:
    """What a variant of a metric computes, in words (``"mean of per-fold F"``)."""
    return metrics.MEANINGS[variant].format(entry.display)


def _averages(entry: metrics.Metric, variant: str) -> list[str]:
    """The class averages of a per-class metric of a multiclass cube (F of the class-mean
    precision and recall for a metric that has it per fold: F)."""
    if variant.endswith("_skip"):
        return []
    out = [a for a in entry.averages if a is not None]
    return out[:1] + ["macro_f_of_means"] + out[1:] if "pr_re" in entry.variants else out


def _value(ds: xr.Dataset, metric: str, variant: str, average: Any, beta: float) -> xr.DataArray:
    """A variant of a count metric, class-averaged; undefined cells count as 0."""
    if average == "macro_f_of_means":
        m, fm = cast(Any, metric), cast(Any, variant)
        return multiclass.macro(ds, m, fm, "f_of_means", beta, zero_division=0)
    return measure.cube(ds, metric, variant, average, beta=beta, zero_division=0)


def _tools(entry: metrics.Metric, variant: str, average: str) -> str | None:
    """Which tools report a class average of a pooled or fold-averaged metric."""
    scorer = next(iter(entry.scorers), None)
    if scorer is None or average not in ("macro", "micro", "weighted"):
        return None
    if variant == "tp_fp":
        text = (
            f"as scikit-learn's {scorer}_score(y, cross_val_predict(...), "
            f"average='{average}') reports"
        )
        return text + (" and WEKA Explorer's 'Weighted Avg.'" if average == "weighted" else "")
    if variant == "avg":
        return f"as scikit-learn's cross_val_score(scoring='{scorer}_{average}').mean() reports"
    return None


def _count_rows(ds: xr.Dataset, metric: str, beta: float) -> tuple[list[dict[str, Any]], str]:
    """Every aggregation of a count metric: each variant (each class average of a per-class
    metric of a multiclass cube), per repeat, over repeats, and pooled over all repeats."""
    entry = metrics.REGISTRY[metric]
    multi = ds.attrs.get("task") == "multiclass" and ds.sizes.get(CLASS, 1) > 1
    averaged = multi and entry.scope == "class"
    flat = all_folds(ds) if ds.sizes.get(REPEAT, 1) > 1 else None
    rows: list[dict[str, Any]] = []
    for variant in entry.variants:
        name, means = metrics.display(metric, variant), _meaning(entry, variant)
        for average in _averages(entry, variant) if averaged else [None]:
            label, meaning, tools = name, means, entry.tools.get(variant)
            if average is not None:
                kind = average.replace("_f_of_means", " F-of-means")
                label, tools = f"{kind} {name}", _tools(entry, variant, average)
                meaning = f"{_AVERAGED[average].format(entry.display)}, {means}"
            value = _value(ds, metric, variant, average, beta)
            base = variant.removesuffix("_skip")
            if base != variant and value.equals(_value(ds, metric, base, average, beta)):
                continue  # no undefined fold: the skip variant is the same number
            if flat is not None and variant == entry.pooled:
                every = _value(flat, metric, variant, average, beta)
                over = f"{meaning}, over the folds of all repeats"
                rows += _rows(f"{label}, pooled over repeats", over, _CARET, every)
            rows += _rows(label, meaning, tools, value)
    pooled = metrics.display(metric, entry.pooled)
    return rows, f"macro {pooled}" if averaged else pooled


def _score_rows(df: pd.DataFrame, metric: str, pos_label: Any) -> tuple[list[dict[str, Any]], None]:
    """Every aggregation of a score metric: each variant, per class average of a multiclass
    frame, per repeat and over repeats (one parse of the frame)."""
    entry = metrics.REGISTRY[metric]
    repeat = REPEAT if REPEAT in df.columns else None
    per_class = [c for c in df.columns if str(c).startswith("score_")]
    if "score" not in df.columns and not per_class:
        raise ValueError(
            f"metric={metric!r} needs scores: a score column (binary) or score_<label> "
            f"columns per class; the frame has {list(df.columns)[:12]}."
        )
    binary = df["y_true"].nunique() <= 2 and "score" in df.columns
    rows: list[dict[str, Any]] = []
    averages = [None] if binary else [a for a in entry.averages if a is not None]
    parsed = scores.parse(df, pos_label=pos_label, repeat=repeat)  # one parse, one sort
    for average in averages:
        for variant in entry.variants:
            value = measure.frame(parsed, metric, variant, average=average)
            name = metrics.display(metric, variant)
            name = name if average is None else f"{average} {name}"
            tools = entry.tools.get(variant) if average is None else None
            rows += _rows(name, _meaning(entry, variant), tools, value)
    return rows, None


def scored_frame(data: Any, metric: str) -> pd.DataFrame:
    """``data`` as the predictions frame a score metric reads (a cube has no scores)."""
    if labels_frame.is_dask_frame(data):
        raise TypeError(
            f"data is a dask DataFrame; metric={metric!r} sorts every tested row's score, so "
            "it reads a pandas predictions frame: pass data.compute() (one row per tested "
            "sample fits in memory when the folds' scores do)."
        )
    if not isinstance(data, pd.DataFrame):
        raise ValueError(
            f"metric={metric!r} needs the predictions frame with scores (data=frame), not a "
            f"{type(data).__name__}: the counts cube holds no scores."
        )
    return data


def as_cube(data: Any, pos_label: Any) -> xr.Dataset:
    if isinstance(data, xr.Dataset):
        ds = data
        if pos_label is not None and "class" in ds.dims:
            classes = list(ds["class"].values)
            if pos_label not in classes:
                raise ValueError(
                    f"pos_label={pos_label!r} is not a class of the cube; its classes are "
                    f"{classes}."
                )
            if len(classes) > 1 and ds.attrs.get("task") != "multiclass":
                ds = ds.sel({"class": [pos_label]})
        return ds
    if isinstance(data, pd.DataFrame):
        return data.cv.counts(pos_label=pos_label)  # None: the frame's attrs say it
    if labels_frame.is_dask_frame(data):  # its counts, partition by partition
        return counts_from_frame(data, pos_label=pos_label).compute()
    raise TypeError(
        f"data must be a counts cube (xarray.Dataset) or a predictions frame "
        f"(pandas.DataFrame), not {type(data).__name__}."
    )


# --- the paragraph ---------------------------------------------------------------------------


def num(x: float, digits: int) -> str:
    """``x`` with ``digits`` decimals; "undefined" for NaN."""
    return f"{x:.{digits}f}" if math.isfinite(x) else "undefined"


def signed(x: float, digits: int) -> str:
    """``x`` with its sign and ``digits`` decimals (a true minus sign)."""
    return f"{x:+.{digits}f}".replace("-", "\u2212")


def _one(row: pd.Series, digits: int) -> str:
    return f"{row['name']} ({row['meaning']}, {num(row['value'], max(digits + 1, 3))})"


def _check(entry: metrics.Metric) -> str:
    """What the paragraph asks to check when nothing matches."""
    things = ["the positive class"] if entry.scope == "class" else []
    if entry.kind == "count" and "beta" in formulas.METRIC_SPECS[entry.kernel].numerator:
        things.append("beta")
    things.append("that the number comes from these folds")
    listed = things[0] if len(things) == 1 else ", ".join(things[:-1])
    listed += "" if len(things) == 1 else ("," if len(things) > 2 else "") + " and " + things[-1]
    return f" Check {listed}."


def _text(e: Explanation, percent: bool) -> str:
    value, digits, (lo, hi), reference = e.value, e.digits, e.interval, e.reference
    matches, cands = e.matches, e.candidates
    head = f"{e.reported} (read as {num(value, digits)})" if percent else e.reported
    ref = None
    if reference is not None:
        pick = matches if len(matches) else cands
        suffix = _suffix(pick.iloc[0]["name"]) if len(pick) else ""
        found = cands[cands["name"] == reference]
        if not len(found):
            found = cands[cands["name"] == reference + suffix]
        if not len(found):
            found = cands[cands["name"].str.startswith(reference)]
        ref = found.iloc[0] if len(found) else None

    scored = metrics.REGISTRY[e.metric].kind == "score"

    def ref_text(best: pd.Series | None) -> str:
        if ref is None:
            return ""
        if best is not None and best["name"] == ref["name"]:
            return "" if scored else " This is the recommended pooled aggregation."
        lead = f"The other method, {ref['name']}," if scored else f"The recommended {ref['name']}"
        d = max(digits, 3)
        return f" {lead} is {num(ref['value'], d)} ({signed(ref['value'] - value, d)})."

    if len(matches) == 1:
        best = matches.iloc[0]
        text = f"{head} matches {_one(best, digits)}"
        text += f" \u2014 {best['tools']}." if best["tools"] else "."
        return text + ref_text(best)
    if len(matches) > 1:
        shown_rows = [_one(r, digits) for _, r in matches.head(4).iterrows()]
        more = len(matches) - 4
        listed = ", ".join(shown_rows[:-1]) + " and " + shown_rows[-1]
        if more > 0:
            listed = ", ".join(shown_rows) + f" and {more} more"
        text = (
            f"{head} matches {len(matches)} aggregations within its rounding "
            f"({num(lo, digits + 1)} to {num(hi, digits + 1)}): {listed}; with {digits} "
            f"digit{'' if digits == 1 else 's'} the reported number cannot tell them apart."
        )
        best = matches.iloc[0]
        if best["tools"]:
            text += f" {best['name']}: {best['tools']}."
        return text + ref_text(best if ref is not None and best["name"] == ref["name"] else None)
    finite = cands[np.isfinite(cands["value"].astype(float))]
    text = (
        f"{head} matches none of the {len(cands)} aggregations computed from these folds "
        f"within its rounding ({num(lo, digits + 1)} to {num(hi, digits + 1)})"
    )
    if len(finite):
        near = finite.iloc[0]
        text += (
            f"; the nearest is {_one(near, digits)}, "
            f"{signed(near['value'] - value, max(digits + 1, 3))}."
        )
    else:
        text += "."
    return text + ref_text(None) + _check(metrics.REGISTRY[e.metric])


def _suffix(name: str) -> str:
    """The repeat and cell part of a candidate's name (", mean over repeats [model=a]")."""
    for key in (", repeat ", ", mean over repeats", ", pooled over repeats", " ["):
        if key in name:
            return name[name.index(key) :]
    return ""


@doc
def explain(
    value: Any,
    data: Any,
    metric: str = "f",
    *,
    digits: int | None = None,
    beta: float = 1.0,
    pos_label: Any = None,
) -> Explanation:
    r"""Which fold aggregation(s) a reported number matches, in one paragraph.

    Computes every aggregation of ``metric`` from the folds of ``data`` and keeps those in the
    interval of numbers that round to the reported one,

    .. math:: [v - \tfrac12 10^{-d},\; v + \tfrac12 10^{-d}]

    with :math:`d` the reported digits. Every variant of the metric in
    :data:`cvframe.metrics.REGISTRY`: for F, :math:`F_{tp,fp}` (pooled counts),
    :math:`F_{avg}` (mean of per-fold F), :math:`F_{pr,re}` (F of the mean precision and
    recall) and the two variants that skip undefined folds; for a per-class metric of a
    multiclass cube, its macro (for F also F of the class means), micro and weighted
    averages of each; for accuracy (one value over every class), error and the other count
    metrics, pooled and averaged; for AUC and the other score metrics, the merged folds
    (AUC_merge) and the fold mean (AUC_avg). Each per repeat, as the mean over repeats and
    pooled over the folds of all repeats, and per value of the other dims (``model``, ...).

    Parameters
    ----------
    value : float or str
        The reported number. Text (``"0.870"``) keeps its trailing zeros, so its digits are
        known; a float's digits are those of its shortest repr. A value above 1 (or text
        ending in ``%``) is a percent: ``87.3`` is read as 0.873 with 3 digits.
    data : xarray.Dataset or pandas.DataFrame
        The counts cube, or a predictions frame (``fold``, ``y_true``, ``y_pred``, optional
        ``repeat``, ``score``/``score_<label>``: what :func:`cvframe.readers.read` returns).
        A score metric (``metric="auc"``) needs the frame.
    metric : str, default "f"
        A count or score metric of :data:`cvframe.metrics.REGISTRY` by any of its names
        (``"f"``, ``"accuracy"``, ``"error"``, ``"precision"``, ``"auc"``; scikit-learn's
        ``"f1"``, ``"roc_auc"``...). A value outside its range (``bounds``: [0, 1] for most)
        is read as a percent where the range is [0, 1].
    digits : int, optional
        The reported decimal digits, when the value's text does not tell them (a float
        ``0.87`` that was printed as ``0.870``).
    beta : float, default 1.0
        F-beta's beta.
    pos_label : optional
        The positive class of a binary frame (default: the frame's ``attrs["pos_label"]``,
        else the label policy's default).

    Returns
    -------
    Explanation
        ``.matches`` (name, value, distance, meaning), ``.candidates`` (every aggregation),
        ``.text`` (the paragraph; also ``str(explanation)``).

    Raises
    ------
    ValueError
        For an unknown ``metric``, a value that is not a number in [0, 1] or a percent,
        ``metric="auc"`` with a cube or without scores.
    TypeError
        For ``data`` that is neither a cube nor a frame.

    References
    ----------
    <<reference>>

    Examples
    --------
    >>> import cvframe
    >>> from cvframe.explanation import explain
    >>> ds = cvframe.datasets.table2()
    >>> e = explain("0.667", ds)
    >>> list(e.matches["name"])
    ['F_avg']
    >>> print(e)  # doctest: +ELLIPSIS
    0.667 matches F_avg (mean of per-fold F, 0.6667) — the mean over folds of per-fold F1, ...
    >>> print(e.text[e.text.index("The recommended"):])
    The recommended F_tp,fp is 0.769 (+0.102).
    """
    entry = check_metric(metric)
    metric = entry.name
    b = _checks.beta(beta)
    shown, num, places, percent = parse_reported(value, digits, entry.bounds, entry.display)
    half = 0.5 * 10.0**-places
    slack = 1e-9 * max(1.0, abs(num))
    lo, hi = num - half, num + half
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if entry.kind == "score":
            rows, reference = _score_rows(scored_frame(data, metric), metric, pos_label)
        else:
            rows, reference = _count_rows(as_cube(data, pos_label), metric, b)
    for category, message in dict.fromkeys((w.category, str(w.message)) for w in caught):
        warnings.warn(message, category, stacklevel=user_stacklevel())  # once each
    cands = pd.DataFrame(rows, columns=["name", "value", "meaning", "tools"])
    cands["value"] = cands["value"].astype(float)
    cands["distance"] = cands["value"] - num
    cands = cands.assign(_abs=cands["distance"].abs().fillna(np.inf))
    cands = cands.sort_values("_abs", kind="stable").drop(columns="_abs").reset_index(drop=True)
    inside = (cands["value"] >= lo - slack) & (cands["value"] <= hi + slack)
    matches = cands[inside].reset_index(drop=True)
    if reference is None:  # scores: the other variant of the best candidate
        pick = matches if len(matches) else cands
        first, second = (metrics.display(metric, v) for v in entry.variants[:2])
        best = str(pick.iloc[0]["name"]) if len(pick) else second
        reference = best.replace(first, second) if first in best else best.replace(second, first)
    cols = ["name", "value", "distance", "meaning", "tools"]
    e = Explanation(shown, num, places, (lo, hi), metric, matches[cols], cands[cols], reference, "")
    return replace(e, text=_text(e, percent))
