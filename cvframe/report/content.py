"""What a report says: every table computed once, as a plain dict the renderers draw.

:func:`content` hands the same frames to whatever needs them: the per-fold table
(:func:`cvframe.tidy.fold_table`) feeds the undefined-cell count, the decision and the folds
plot; the five F methods feed their table, the ``methods_disagree`` findings and their plot;
the predictions frame is parsed once (:func:`cvframe.scores.parse`) for the AUC table, the
per-fold AUC of the findings, the AUC_merge interval and the ROC table. Nothing here formats
text: :mod:`.text` and :mod:`.html` draw what :func:`content` returns.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import xarray as xr

from .. import diagnostics, multiclass, reduce, repeats, tidy
from .. import scores as score_metrics
from .._core import checks as _checks
from .._core.labels import frame as labels_frame
from .._core.labels.frame import FrameArgs
from ..reduce import F_METHODS
from ..schema import CLASS, CONFUSION, COUNTS, FOLD, REPEAT, is_lazy
from ..tidy.curves import frame_args
from ._common import binary, plain, pos_label
from .decision import decision
from .headline import SPREAD_NOTE, auc_interval, headline_table

__all__ = [
    "CI",
    "RECOMMENDATION",
    "content",
    "default_title",
    "plain",
    "policy_text",
    "pos_label",
    "undefined_cells",
]

#: Level of the report's intervals (cvframe.interval, and the spread across repeats).
CI = 0.95

#: The one-line recommendation every report ends with.
RECOMMENDATION = (
    "Recommended: F_tp,fp (f_tp_fp: sum TP, FP and FN over the folds, then compute F once) -- "
    "the only one of the five that is essentially unbiased; F_avg and F_pr,re are biased "
    "down/up by folds with undefined or extreme precision/recall, the skip variants upwards "
    "(Forman & Scholz 2010, §4)."
)

#: Cube attrs the report shows.
SHOWN_ATTRS = ("task", "pos_label", "stratified", "splitter", "cvframe_version")


def policy_text(zero_division: Any) -> str:
    """The ``zero_division`` policy in words, as the report states it."""
    value = _checks.zero_division(zero_division)
    if math.isnan(value):
        return (
            "undefined precision/recall (0/0) is NaN; F of a fold with TP = 0 < FP + FN "
            "is 0 as in scikit-learn >= 1.3"
        )
    return (
        f"undefined precision/recall (0/0) counts as {value:g} in F_avg and F_pr,re; "
        "F of a fold with TP = 0 < FP + FN is 0; the ~ (skip) methods drop folds where "
        "either is undefined"
    )


def default_title(ds: xr.Dataset, name: str = "") -> str:
    """The title of a cube's report: its ``source`` or ``title`` attr, else ``name`` and its shape.

    Examples
    --------
    >>> import cvframe
    >>> default_title(cvframe.datasets.table2())
    'Forman & Scholz 2010, Table 2'
    >>> default_title(cvframe.datasets.table2().drop_attrs(), "spam")
    'spam: binary, 4 folds'
    >>> default_title(cvframe.datasets.slides_confusion().drop_attrs())
    'multiclass, 3 classes, 1 folds'
    """
    for key in ("source", "title"):
        if ds.attrs.get(key):
            text = str(ds.attrs[key])
            return text if not name or text.startswith(str(name)) else f"{name}: {text}"
    task = str(ds.attrs.get("task") or ("binary" if ds.sizes.get(CLASS, 1) == 1 else "multiclass"))
    shape = [task]
    if task != "binary":
        shape.append(f"{ds.sizes.get(CLASS, 1)} classes")
    shape.append(f"{ds.sizes.get(FOLD, 1)} folds")
    if REPEAT in ds.dims:
        shape[-1] += f" x {ds.sizes[REPEAT]} repeats"
    if "model" in ds.dims:
        shape.append(f"{ds.sizes['model']} models")
    text = ", ".join(shape)
    return f"{name}: {text}" if name else text


def _class_averages(ds: xr.Dataset, *, beta: float, zero_division: Any) -> pd.DataFrame | None:
    """:func:`cvframe.tidy.class_averages` with ``<name>_ci_low``/``_ci_high`` across repeats.

    With two or more repeats the averages are computed once, per repeat (the repeat read as
    one more user dim), and summarised by :func:`cvframe.repeats.summary`: the value is the
    mean over repeats, as ``class_averages`` gives it.
    """
    n_rep = ds.sizes.get(REPEAT, 0) if REPEAT in ds["tp"].dims else 0
    if n_rep < 2:
        return tidy.class_averages(ds, beta=beta, zero_division=zero_division)
    per_repeat = tidy.class_averages(
        ds.rename({REPEAT: _PER_REPEAT}), beta=beta, zero_division=zero_division
    )
    if per_repeat is None:
        return None
    values = [c for c in per_repeat.columns if pd.api.types.is_float_dtype(per_repeat[c])]
    by = [c for c in per_repeat.columns if c not in values and c != _PER_REPEAT]
    long = per_repeat.rename(columns={_PER_REPEAT: REPEAT}).set_index([REPEAT, *by])[values]
    s = repeats.summary(ds, long.to_xarray(), dim=REPEAT, level=CI)
    # with no key column, drop_duplicates keeps every repeat's row: one row of averages
    keys = (
        per_repeat[by].drop_duplicates().reset_index(drop=True) if by else pd.DataFrame(index=[0])
    )
    out = keys.copy()
    idx = (pd.MultiIndex.from_frame(keys) if len(by) > 1 else pd.Index(keys[by[0]])) if by else None
    for col in values:
        names = (col, f"{col}_ci_low", f"{col}_ci_high")
        for stat, name in zip(("mean", "ci_low", "ci_high"), names, strict=True):
            sel = s[stat].sel({repeats.STACKED: col})
            out[name] = [float(sel)] if idx is None else sel.to_series().reindex(idx).to_numpy()
    return out


#: The name the repeat dim takes while the class averages are computed per repeat.
_PER_REPEAT = "_repeat_of_report"


def _with_kappa_band(frame: pd.DataFrame | None) -> pd.DataFrame | None:
    """The class averages with the strength-of-agreement band right after ``kappa``."""
    if frame is None or "kappa" not in frame.columns:
        return frame
    out = frame.copy()
    band = multiclass.kappa_band(out["kappa"].to_numpy(dtype="float64"))
    out.insert(out.columns.get_loc("kappa") + 1, "kappa_band", band)
    return out


def _multilabel(ds: xr.Dataset, zero_division: Any) -> pd.DataFrame | None:
    """The multilabel metrics of a multilabel cube built from predictions, pooled over the
    folds (``tp_fp``) and averaged over them (``avg``); mean over repeats (F at the beta of
    the cube's per-sample sums)."""
    if ds.attrs.get("task") != "multilabel" or "sample_f_sum" not in ds.data_vars:
        return None
    extra = tidy.extra_dims(ds)
    by = [d for d in extra if d != REPEAT]
    b = float(ds["sample_f_sum"].attrs.get("beta", 1.0))
    rows = []
    for fm in ("tp_fp", "avg"):
        res = reduce.multilabel_metrics(ds, fm, beta=b, zero_division=zero_division)
        dims, names = [d for d in extra if d in res.dims], [str(v) for v in res.data_vars]
        t = res.to_dataframe().reset_index()[dims + names] if dims else None
        t = pd.DataFrame({k: [res[k].item()] for k in names}) if t is None else t
        rows.append(tidy.over_repeats(t, by, names, REPEAT in extra))
        rows[-1]["fold_method"] = fm
    out = pd.concat(rows, ignore_index=True)
    return out[[*by, "fold_method", *[c for c in out.columns if c not in (*by, "fold_method")]]]


def _default_columns(score_kwargs: dict[str, Any]) -> bool:
    """Whether the predictions frame has the default column names (y_true, fold, ...)."""
    args = FrameArgs(**{**score_kwargs, "repeat": score_kwargs.get("repeat") or "repeat"})
    return args == FrameArgs()


def score_args(frame: pd.DataFrame, ds: xr.Dataset, score_kwargs: dict[str, Any]) -> dict:
    """The arguments the report reads the predictions frame with (labels, pos_label, columns)."""
    labels = None if binary(ds) else list(ds.indexes[CLASS])
    return frame_args(frame, dict(score_kwargs, labels=labels, pos_label=pos_label(ds)))


def _score_tables(
    parsed: score_metrics.ParsedFrame, ds: xr.Dataset, kw: dict[str, Any], draw: bool
) -> tuple[pd.DataFrame, pd.DataFrame | None, str, tuple[xr.DataArray, Any], xr.DataArray]:
    """The AUC table (AUC_avg and AUC_merge per class and model, Brier_avg and Brier_merge
    beside them for probabilities), the ROC table of the first repeat (``draw``: the one the
    page draws, which the note names), AUC_merge per repeat with its interval, and the
    per-fold AUC of the findings: all read from ``parsed``, one sort of each class."""
    m = score_metrics.auc_methods(parsed, undefined="nan")
    fold_auc = score_metrics.auc(parsed, "fold", undefined="nan")
    shown = list(m.data_vars)  # AUC_avg and AUC_merge
    try:  # Brier needs probabilities: decision values leave the AUC columns alone
        for method in ("avg", "merge"):
            m[f"brier_{method}"] = score_metrics.brier(parsed, method)
            shown.append(f"brier_{method}")
    except ValueError as err:
        if "outside [0, 1]" not in str(err):
            raise
    rep, note, frame = kw.get("repeat"), "", parsed.frame
    roc = score_metrics.roc(parsed, auc=True) if draw else None
    if roc is not None and rep is not None and rep in frame.columns:  # the page draws repeat 1
        first, n = frame[rep].iloc[0], frame[rep].nunique()
        if n > 1:
            roc = roc[roc[REPEAT] == first].reset_index(drop=True)
            note = f" ({rep} {first} of {n})"
    iv = auc_interval(parsed, kw, level=CI, binary=binary(ds))
    dims = [str(d) for d in m.dims]
    auc = m.to_dataframe().reset_index()[dims + shown]
    if REPEAT in dims:
        by = [d for d in dims if d != REPEAT]
        auc = auc.groupby(by, sort=False)[shown].mean().reset_index()
    return auc, roc, note, (m["auc_merge"], iv), fold_auc


def content(
    ds: xr.Dataset,
    scores: pd.DataFrame | None,
    *,
    zero_division: Any,
    beta: float,
    tolerance: float,
    alpha: float,
    score_kwargs: dict[str, Any],
    title: str | None = None,
    draw: bool = False,
) -> dict[str, Any]:
    """Every table and fact of one cube's report, each computed once.

    Keys, in the order every format shows them: ``title``; the answer first:
    ``decision`` (:func:`.decision.decision`: each difference with its interval, test,
    effect size and sentence), ``summary`` (:func:`.headline.headline_table`: each headline
    number with its interval), ``intervals`` (each interval's method -> its estimand),
    ``spread`` (what the sd across repeats is), ``ci``; then ``findings``
    (:func:`cvframe.diagnostics.group_findings` of the findings: one row per kind and place,
    with its count and folds) and ``findings_all`` (every row of
    :func:`cvframe.diagnostics.anomalies`, whatever columns it returns); ``dims``,
    ``count_dims``, ``attrs``, ``policy``, ``methods`` (the five F methods per class,
    averaged over repeats), ``methods_per_repeat``, ``class_averages`` (multiclass only,
    with their spread across repeats), ``multilabel`` (multilabel cubes built from
    predictions: :func:`cvframe.reduce.multilabel_metrics` pooled and averaged), ``auc``
    (when ``scores`` is given; per label for multilabel frames), ``per_fold``,
    ``tolerance``, ``alpha``, ``recommendation``; and ``plots`` (not data of the report:
    the frames the plots draw, with ``draw``: ``folds`` and its ``lines``, ``methods``,
    ``confusion`` and ``roc``).
    """
    if is_lazy(ds):  # a lazy cube (of a dask frame) is computed once, not once per table
        ds = ds.compute()
    extra = tidy.extra_dims(ds)
    has_repeat = REPEAT in extra
    by = [d for d in extra if d != REPEAT] + [CLASS]
    zb: dict[str, Any] = {"beta": beta, "zero_division": zero_division}  # every table's
    per_fold = tidy.fold_table(ds, **zb)
    methods = tidy.methods_table(ds, **zb)
    auc = roc = None
    roc_note = ""
    merged: tuple[xr.DataArray | None, Any] = (None, None)
    frame = None  # the predictions frame the findings read (baselines, duplicates, AUC < 0.5)
    fold_auc = None  # its per-fold AUC, from the AUC table's sort
    pred = None  # its test rows, which the decision's per-sample paired test reads
    if scores is not None:  # a multilabel frame is scored label by label
        # anomalies reads the frame by the default column names only
        frame = scores if _default_columns(score_kwargs) else None
        rows = pred = labels_frame.test_rows(scores)
        kw = score_args(rows, ds, score_kwargs)
        # the one parse: split by model once, each part parsed once, its classes sorted once
        # (a dask frame: reduced to its score counts in one pass, which the findings read too)
        parsed = score_metrics.parse(rows, **kw)
        if labels_frame.is_dask_frame(scores) and frame is not None:
            frame = parsed.frame
        auc, roc, roc_note, merged, fold_auc = _score_tables(parsed, ds, kw, draw)
    # the findings follow the answer in every format, grouped (one line per kind and place)
    given = {"methods": methods, "frame": frame}
    given["fold_auc"] = fold_auc if frame is not None else None
    findings = diagnostics.anomalies(ds, tolerance=tolerance, alpha=alpha, beta=beta, **given)
    headline, legend = headline_table(
        ds, **zb, level=CI, auc_merge=merged[0], auc_interval=merged[1]
    )
    out = {  # the answer first (the decision, the headline numbers), then the findings
        "title": title if title is not None else default_title(ds),
        "decision": decision(ds, per_fold, **zb, frame=pred, frame_kwargs=score_kwargs),
        "summary": headline,
        "intervals": legend,
        "spread": SPREAD_NOTE,
        "ci": CI,
        "findings": diagnostics.group_findings(findings),
        "findings_all": findings,
        "dims": {str(k): int(v) for k, v in ds.sizes.items()},
        "count_dims": [str(d) for d in ds["tp"].dims],
        "attrs": {
            k: plain(pos_label(ds) if k == "pos_label" else v)
            for k, v in ds.attrs.items()
            if k in SHOWN_ATTRS
        },
        "policy": {
            "zero_division": _checks.zero_division_attr(zero_division),
            "beta": beta,
            "meaning": policy_text(zero_division),
        },
        "methods": tidy.over_repeats(methods, by, list(F_METHODS), has_repeat),
        "methods_per_repeat": methods if has_repeat else None,
        "metrics": tidy.metric_table(ds, **zb),
        "class_averages": _with_kappa_band(_class_averages(ds, **zb)),
        "multilabel": _multilabel(ds, zero_division),
        "auc": auc,
        "per_fold": per_fold,
        "tolerance": tolerance,
        "alpha": alpha,
        "recommendation": RECOMMENDATION,
    }
    if draw:
        has_confusion = (
            CONFUSION in ds.data_vars or binary(ds) or ds.attrs.get("task") == "multilabel"
        )
        out["plots"] = {
            "beta": beta,
            "zero_division": zero_division,
            "folds": per_fold,
            "lines": tidy.fold_aggregates(ds, **zb, methods=methods),
            "methods": methods,
            "confusion": tidy.confusion_table(ds, normalize="true") if has_confusion else None,
            "roc": roc,
            "roc_note": roc_note,
        }
    return out


def undefined_cells(per_fold: pd.DataFrame) -> tuple[int, int, int, list[Any], list[Any]]:
    """Where precision or recall is undefined in a per-fold table.

    Returns (cells with undefined precision, cells with undefined recall, cells with either,
    their folds, their classes); the table's ``tp``, ``fp``, ``fn`` columns are read.
    """
    if not set(COUNTS[:3]) <= set(per_fold.columns):
        return 0, 0, 0, [], []
    pr = (per_fold["tp"] + per_fold["fp"]).to_numpy() == 0
    re = (per_fold["tp"] + per_fold["fn"]).to_numpy() == 0
    either = pr | re
    rows = per_fold[either]
    folds = list(dict.fromkeys(rows[FOLD])) if FOLD in rows else []
    classes = list(dict.fromkeys(rows[CLASS])) if CLASS in rows else []
    return int(pr.sum()), int(re.sum()), int(either.sum()), folds, classes
