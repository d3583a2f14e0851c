"""The matching of one reported number: :func:`explain`, its parser and its tables.

Computes every fold aggregation of a metric and keeps those within the rounding of the
reported number's digits; the tables say what each aggregation is and which tools report it
(shared with :func:`cvframe.explain.reconcile`).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from typing import Any, Literal

import numpy as np
import pandas as pd
import xarray as xr

from .. import formulas, multiclass, reduce, scores
from .._core import checks as _checks
from ..errors import user_stacklevel

__all__ = [
    "ACCURACY",
    "AUC_TABLE",
    "F_BINARY",
    "Explanation",
    "as_cube",
    "base_metric",
    "explain",
    "parse_reported",
]

#: The metrics :func:`explain` knows (all in [0, 1]).
METRICS = ("f", "accuracy", "auc")
_ALIASES = {"f1": "f", "f_measure": "f", "acc": "accuracy", "roc_auc": "auc"}


def base_metric(metric: Any, known: Any) -> Any:
    """The metric a name stands for: a scikit-learn scorer name (``"f1"``, ``"roc_auc"``,
    ``"balanced_accuracy"``: :data:`cvframe.formulas.SCORER_ALIASES`) or a pooled name
    (``"f_tp_fp"``, ``"auc_merge"``) gives its metric (``"f"``, ``"auc"``); a name in
    ``known`` is kept. Anything else is returned as is, for the caller's check.

    >>> base_metric("f1", ["f"]), base_metric("roc_auc", ["auc"]), base_metric("f", ["f"])
    ('f', 'auc', 'f')
    """
    if not isinstance(metric, str) or metric in known:
        return metric
    name = _ALIASES.get(metric, metric)
    pooled = formulas.SCORER_ALIASES.get(name, name)
    for suffix in ("_tp_fp", "_merge"):
        if pooled.endswith(suffix) and pooled[: -len(suffix)] in known:
            return pooled[: -len(suffix)]
    return pooled if pooled in known else name


_FOLD: dict[Any, tuple[str, str]] = {
    "tp_fp": ("tp,fp", "counts pooled over folds"),
    "avg": ("avg", "per fold, then the mean over folds"),
    "pr_re": ("pr,re", "from the fold means of precision and recall"),
}

#: What each binary aggregation is, and which tools report it.
F_BINARY = {
    "f_tp_fp": (
        "F_tp,fp",
        "pooled F: TP, FP, FN summed over folds, then F",
        "as WEKA Explorer's F-Measure and scikit-learn's "
        "f1_score(y, cross_val_predict(...)) report",
    ),
    "f_avg": (
        "F_avg",
        "mean of per-fold F",
        "the mean over folds of per-fold F1, as scikit-learn's "
        "cross_val_score(scoring='f1').mean(), caret's resample mean and tidymodels' "
        "collect_metrics() report",
    ),
    "f_pr_re": (
        "F_pr,re",
        "F of the fold-mean precision and the fold-mean recall",
        "what one gets by computing F from a reported mean precision and mean recall",
    ),
    "f_avg_skip": (
        "F_avg,skip",
        "mean of per-fold F over the folds where precision and recall are defined",
        "what a mean that drops undefined folds (R's mean(x, na.rm = TRUE)) reports",
    ),
    "f_pr_re_skip": (
        "F_pr,re,skip",
        "F of the mean precision and recall over the folds where both are defined",
        "what F of NaN-skipping means of precision and recall gives",
    ),
}

#: A pooled number over every repeat's folds, and who reports it.
_ALL_REPEATS = "{}, over the folds of all repeats"
_CARET = "as caret's confusionMatrix(fit$pred) on the predictions of all repeats reports"

ACCURACY: dict[Any, tuple[str, str, str]] = {
    "pooled": (
        "accuracy pooled",
        "correct predictions over all test samples of all folds",
        "as WEKA Explorer's 'Correctly Classified Instances', caret's confusionMatrix on the "
        "pooled predictions and accuracy_score(y, cross_val_predict(...)) report",
    ),
    "avg": (
        "accuracy avg",
        "mean of per-fold accuracy",
        "the resample mean, as caret's train() Accuracy, scikit-learn's "
        "cross_val_score().mean(), tidymodels' collect_metrics() and WEKA Experimenter's "
        "Percent_correct report",
    ),
}

AUC_TABLE = {
    "auc_avg": (
        "AUC_avg",
        "mean of per-fold AUC",
        "as scikit-learn's cross_val_score(scoring='roc_auc').mean(), caret's ROC "
        "(twoClassSummary) and tidymodels' collect_metrics() report",
    ),
    "auc_merge": (
        "AUC_merge",
        "AUC of all folds' scores ranked together",
        "as WEKA Explorer's ROC Area and roc_auc_score(y, cross_val_predict(..., "
        "method='predict_proba')[:, 1]) report",
    ),
}

_MULTI = {
    "macro": ("macro", "the mean over classes of each class's F", "average='macro'"),
    "macro_f_of_means": (
        "macro F-of-means",
        "F of the class-mean precision and the class-mean recall",
        None,
    ),
    "micro": (
        "micro",
        "F of the counts summed over classes (accuracy for single-label data)",
        "average='micro'",
    ),
    "weighted": (
        "weighted",
        "the support-weighted mean over classes of each class's F",
        "average='weighted'",
    ),
}


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
        The recommended pooled aggregation (``F_tp,fp``, ``accuracy pooled``) or, for AUC,
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


def parse_reported(value: Any, digits: Any) -> tuple[str, float, int, bool]:
    """The reported text, the value as a fraction, its digits, and whether it was a percent."""
    percent = False
    if isinstance(value, str):
        text = value.strip()
        if text.endswith("%"):
            percent, text = True, text[:-1].strip()
        try:
            dec = Decimal(text)
        except InvalidOperation:
            raise ValueError(f"value={value!r} is not a number.") from None
        shown = value.strip()
    elif isinstance(value, Decimal):
        dec, shown = value, str(value)
    elif isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        if isinstance(getattr(value, "dtype", None), np.dtype) and np.ndim(value) == 0:
            return parse_reported(np.asarray(value)[()], digits)  # a 0-d array: its scalar
        raise TypeError(
            f"value={value!r} must be a number or its text (e.g. '0.873'), "
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
        raise ValueError(f"value={value!r} must be a finite number.")
    num = float(dec)
    if digits is None:
        exp = dec.as_tuple().exponent
        places = max(0, -int(exp)) if isinstance(exp, int) else 0
    else:
        places = _checks.integer("digits", digits, low=0, high=15)
    if percent or num > 1:
        if num > 100 or num < 0:
            raise ValueError(f"value={value!r} is neither in [0, 1] nor a percent in [0, 100].")
        num, places, percent = num / 100, places + 2, True
    if num < 0:
        raise ValueError(f"value={value!r} is negative; the metrics are in [0, 1].")
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


def _class_average(ds: xr.Dataset, kind: str, fm: Any, beta: float, **dim: Any) -> xr.DataArray:
    """F averaged over the classes the ``kind`` way (a key of ``_MULTI``), folds the ``fm``
    way."""
    if kind in ("macro", "macro_f_of_means"):
        how: Literal["mean", "f_of_means"] = "mean" if kind == "macro" else "f_of_means"
        return multiclass.macro(ds, "f", fm, how, beta, zero_division=0, **dim)
    average = multiclass.micro if kind == "micro" else multiclass.weighted
    return average(ds, "f", fm, beta, zero_division=0, **dim)


def _f_rows(ds: xr.Dataset, beta: float) -> tuple[list[dict[str, Any]], str]:
    if ds.attrs.get("task") == "multiclass" and ds.sizes.get("class", 1) > 1:
        rows: list[dict[str, Any]] = []
        for fm, (short, how) in _FOLD.items():
            for kind, (label, meaning, avg) in _MULTI.items():
                da = _class_average(ds, kind, fm, beta)
                tools = None
                if avg and fm == "tp_fp":
                    tools = f"as scikit-learn's f1_score(y, cross_val_predict(...), {avg}) reports"
                    if kind == "weighted":
                        tools += " and WEKA Explorer's 'Weighted Avg.' F-Measure"
                elif avg and fm == "avg":
                    tools = (
                        f"as scikit-learn's cross_val_score(scoring='f1_{avg[9:-1]}').mean() "
                        "reports"
                    )
                rows += _rows(f"{label} F_{short}", f"{meaning}, {how}", tools, da)
                if fm == "tp_fp" and _repeated(ds):
                    da = _class_average(ds, kind, fm, beta, dim=("repeat", "fold"))
                    rows += _rows(
                        f"{label} F_{short}, pooled over repeats",
                        f"{meaning}, counts pooled over the folds of all repeats",
                        None,
                        da,
                    )
        return rows, "macro F_tp,fp"
    res = reduce.f_methods(ds, beta=beta, zero_division=0)
    rows = []
    if _repeated(ds):
        da = reduce.f_tp_fp(ds, dim=("repeat", "fold"), beta=beta, zero_division=0)
        label, meaning, _ = F_BINARY["f_tp_fp"]
        rows += _rows(f"{label}, pooled over repeats", _ALL_REPEATS.format(meaning), _CARET, da)
    for var, (label, meaning, tools) in F_BINARY.items():
        base = var.replace("_skip", "")
        if var != base and res[var].equals(res[base]):
            continue  # no undefined fold: the skip variant is the same number
        rows += _rows(label, meaning, tools, res[var])
    return rows, "F_tp,fp"


def _accuracy_rows(ds: xr.Dataset) -> tuple[list[dict[str, Any]], str]:
    rows = []
    for how, (label, meaning, tools) in ACCURACY.items():
        rows += _rows(label, meaning, tools, reduce.accuracy(ds, how=how, zero_division=0))
    if _repeated(ds):
        label, meaning, _ = ACCURACY["pooled"]
        da = reduce.accuracy(ds, how="pooled", dim=("repeat", "fold"), zero_division=0)
        rows += _rows(f"{label} over repeats", _ALL_REPEATS.format(meaning), _CARET, da)
    return rows, "accuracy pooled"


def _auc_rows(df: pd.DataFrame, pos_label: Any) -> tuple[list[dict[str, Any]], None]:
    repeat = "repeat" if "repeat" in df.columns else None
    per_class = [c for c in df.columns if str(c).startswith("score_")]
    if "score" not in df.columns and not per_class:
        raise ValueError(
            "metric='auc' needs scores: a score column (binary) or score_<label> columns "
            f"per class; the frame has {list(df.columns)[:12]}."
        )
    binary = df["y_true"].nunique() <= 2 and "score" in df.columns
    rows: list[dict[str, Any]] = []
    averages = [None] if binary else ["macro", "weighted"]
    for average in averages:
        res = scores.auc_methods(df, average=average, pos_label=pos_label, repeat=repeat)
        for var, (label, meaning, tools) in AUC_TABLE.items():
            name = label if average is None else f"{average} {label}"
            rows += _rows(name, meaning, tools if average is None else None, res[var])
    return rows, None


def _repeated(ds: xr.Dataset) -> bool:
    return "repeat" in ds.dims and ds.sizes["repeat"] > 1


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
    raise TypeError(
        f"data must be a counts cube (xarray.Dataset) or a predictions frame "
        f"(pandas.DataFrame), not {type(data).__name__}."
    )


# --- the paragraph ---------------------------------------------------------------------------


def _num(x: float, digits: int) -> str:
    return f"{x:.{digits}f}" if math.isfinite(x) else "undefined"


def _signed(x: float, digits: int) -> str:
    return f"{x:+.{digits}f}".replace("-", "\u2212")


def _one(row: pd.Series, digits: int) -> str:
    return f"{row['name']} ({row['meaning']}, {_num(row['value'], max(digits + 1, 3))})"


#: How the paragraph names the reference, and what it asks to check when nothing matches.
_LEAD = {
    "f": "The recommended pooled {name}",
    "accuracy": "The recommended {name}",
    "auc": "The other method, {name},",
}
_CHECK = {
    "f": " Check the positive class, beta, and that the number comes from these folds.",
    "accuracy": " Check that the number comes from these folds.",
    "auc": " Check the positive class and that the number comes from these folds.",
}


def _text(e: Explanation, percent: bool) -> str:
    value, digits, (lo, hi), reference = e.value, e.digits, e.interval, e.reference
    matches, cands = e.matches, e.candidates
    head = f"{e.reported} (read as {_num(value, digits)})" if percent else e.reported
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

    def ref_text(best: pd.Series | None) -> str:
        if ref is None:
            return ""
        if best is not None and best["name"] == ref["name"]:
            return "" if e.metric == "auc" else " This is the recommended pooled aggregation."
        lead = _LEAD[e.metric].format(name=ref["name"])
        d = max(digits, 3)
        return f" {lead} is {_num(ref['value'], d)} ({_signed(ref['value'] - value, d)})."

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
            f"({_num(lo, digits + 1)} to {_num(hi, digits + 1)}): {listed}; with {digits} "
            f"digit{'' if digits == 1 else 's'} the reported number cannot tell them apart."
        )
        best = matches.iloc[0]
        if best["tools"]:
            text += f" {best['name']}: {best['tools']}."
        return text + ref_text(best if ref is not None and best["name"] == ref["name"] else None)
    finite = cands[np.isfinite(cands["value"].astype(float))]
    text = (
        f"{head} matches none of the {len(cands)} aggregations computed from these folds "
        f"within its rounding ({_num(lo, digits + 1)} to {_num(hi, digits + 1)})"
    )
    if len(finite):
        near = finite.iloc[0]
        text += (
            f"; the nearest is {_one(near, digits)}, "
            f"{_signed(near['value'] - value, max(digits + 1, 3))}."
        )
    else:
        text += "."
    return text + ref_text(None) + _CHECK[e.metric]


def _suffix(name: str) -> str:
    """The repeat and cell part of a candidate's name (", mean over repeats [model=a]")."""
    for key in (", repeat ", ", mean over repeats", ", pooled over repeats", " ["):
        if key in name:
            return name[name.index(key) :]
    return ""


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

    with :math:`d` the reported digits. For F: :math:`F_{tp,fp}` (pooled counts),
    :math:`F_{avg}` (mean of per-fold F), :math:`F_{pr,re}` (F of the mean precision and
    recall) and the two variants that skip undefined folds; for multiclass cubes, macro (mean
    of class F, and F of the class means), micro and weighted, each pooled, averaged and
    ``pr_re``. For accuracy: pooled and averaged. For AUC: AUC_avg and AUC_merge. Each per
    repeat and as the mean over repeats, and per value of the other dims (``model``, ...).

    Parameters
    ----------
    value : float or str
        The reported number. Text (``"0.870"``) keeps its trailing zeros, so its digits are
        known; a float's digits are those of its shortest repr. A value above 1 (or text
        ending in ``%``) is a percent: ``87.3`` is read as 0.873 with 3 digits.
    data : xarray.Dataset or pandas.DataFrame
        The counts cube, or a predictions frame (``fold``, ``y_true``, ``y_pred``, optional
        ``repeat``, ``score``/``score_<label>``: what :func:`cvframe.readers.read` returns).
        ``metric="auc"`` needs the frame.
    metric : {"f", "accuracy", "auc"}, default "f"
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
    G. Forman and M. Scholz (2010). Apples-to-Apples in Cross-Validation Studies: Pitfalls in
    Classifier Performance Measurement. ACM SIGKDD Explorations 12(1), 49-57.

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
    The recommended pooled F_tp,fp is 0.769 (+0.102).
    """
    metric = _checks.choice("metric", base_metric(metric, METRICS), list(METRICS))
    b = _checks.beta(beta)
    shown, num, places, percent = parse_reported(value, digits)
    half = 0.5 * 10.0**-places
    slack = 1e-9 * max(1.0, abs(num))
    lo, hi = num - half, num + half
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if metric == "auc":
            if not isinstance(data, pd.DataFrame):
                raise ValueError(
                    "metric='auc' needs the predictions frame with scores (data=frame), "
                    f"not a {type(data).__name__}: the counts cube holds no scores."
                )
            rows, reference = _auc_rows(data, pos_label)
        else:
            ds = as_cube(data, pos_label)
            rows, reference = _f_rows(ds, b) if metric == "f" else _accuracy_rows(ds)
    for category, message in dict.fromkeys((w.category, str(w.message)) for w in caught):
        warnings.warn(message, category, stacklevel=user_stacklevel())  # once each
    cands = pd.DataFrame(rows, columns=["name", "value", "meaning", "tools"])
    cands["value"] = cands["value"].astype(float)
    cands["distance"] = cands["value"] - num
    cands = cands.assign(_abs=cands["distance"].abs().fillna(np.inf))
    cands = cands.sort_values("_abs", kind="stable").drop(columns="_abs").reset_index(drop=True)
    inside = (cands["value"] >= lo - slack) & (cands["value"] <= hi + slack)
    matches = cands[inside].reset_index(drop=True)
    if reference is None and metric == "auc":
        pick = matches if len(matches) else cands
        best = str(pick.iloc[0]["name"]) if len(pick) else "AUC_avg"
        pair = ("AUC_avg", "AUC_merge") if "AUC_avg" in best else ("AUC_merge", "AUC_avg")
        reference = best.replace(*pair)
    cols = ["name", "value", "distance", "meaning", "tools"]
    e = Explanation(shown, num, places, (lo, hi), metric, matches[cols], cands[cols], reference, "")
    return replace(e, text=_text(e, percent))
