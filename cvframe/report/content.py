"""What a report says: every table computed once, as a plain dict the renderers draw.

The tables are the tidy long frames of :mod:`cvframe.tidy` (every fold's counts and
metrics, the five F methods, the class averages, means over repeats), AUC_avg next to
AUC_merge from :func:`cvframe.scores.auc_methods` (and the Brier score of probability
scores, :func:`cvframe.scores.brier`) and the findings of
:func:`cvframe.diagnostics.anomalies`. Nothing here formats text; :mod:`.text` and :mod:`.html`
only draw what :func:`content` returns.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .. import _checks, _labels, diagnostics, multiclass, reduce, repeats, tidy
from ..reduce import F_METHODS
from ..schema import CLASS, COUNTS, FOLD, REPEAT, SUBSET

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

#: Confidence level of the report's intervals across repeats (Student t).
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


def plain(v: Any) -> Any:
    """A table cell as a JSON value: numpy scalars as Python ones, NaN/inf/NA as None."""
    v = _labels.plain(v)
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if v is pd.NA or v is pd.NaT:
        return None
    return v


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


def pos_label(ds: xr.Dataset) -> Any:
    """The cube's positive class as its class coordinate holds it (a bool stays a bool)."""
    if "pos_label" not in ds.attrs:
        return None
    return _labels.from_attr(ds.attrs["pos_label"], ds[CLASS].values)


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


def _binary(ds: xr.Dataset) -> bool:
    return ds.attrs.get("task") == "binary" or ds.sizes.get(CLASS, 1) == 1


def _interval(result: xr.DataArray | xr.Dataset, ds: xr.Dataset) -> xr.Dataset:
    """Mean over repeats with its Student-t interval (:func:`cvframe.repeats.summary`).

    Without a ``repeat`` dim of two or more, the value itself with NaN spread (n = 1).
    """
    n_rep = int(result.sizes.get(REPEAT, 0)) if REPEAT in result.dims else 0
    if n_rep >= 2:
        return repeats.summary(ds, result, dim=REPEAT, ci=CI)
    if isinstance(result, xr.Dataset):
        kept = result.to_array(dim=repeats.STACKED).assign_coords(
            {repeats.STACKED: np.asarray(list(result.data_vars), dtype=object)}
        )
    else:
        kept = result
    kept = kept.isel({REPEAT: 0}, drop=True) if REPEAT in kept.dims else kept
    nan = xr.full_like(kept, np.nan, dtype="float64")
    return xr.Dataset(
        {
            "mean": kept.astype("float64"),
            "std": nan,
            "sem": nan,
            "ci_low": nan,
            "ci_high": nan,
            "n": xr.full_like(kept, 1, dtype="int64"),
        }
    )


def summary_table(ds: xr.Dataset, *, beta: float, zero_division: Any) -> pd.DataFrame:
    """The recommended number per model (and other user dims) with its interval over repeats.

    Binary cubes: F_tp,fp of the positive class; multiclass cubes: macro F_tp,fp. Columns:
    the user dims other than ``repeat``, ``metric``, ``value`` (mean over repeats),
    ``ci_low``, ``ci_high`` (Student t, level :data:`CI`; NaN with one repeat), ``sd`` and
    ``repeats``.
    """
    if SUBSET in ds.dims:
        ds = ds.sel({SUBSET: "test"}, drop=True)
    if _binary(ds):
        val = reduce.f_tp_fp(ds, beta=beta, zero_division=zero_division)
        val = val.isel({CLASS: 0}, drop=True) if CLASS in val.dims else val
        metric = "F_tp,fp"
    else:
        val = multiclass.macro(ds, "f", "tp_fp", beta=beta, zero_division=zero_division)
        metric = "macro F_tp,fp"
    s = _interval(val, ds)
    by = [str(d) for d in s["mean"].dims]
    frame = (
        s[["mean", "ci_low", "ci_high", "std", "n"]].to_dataframe().reset_index()
        if by
        else pd.DataFrame({k: [s[k].item()] for k in ("mean", "ci_low", "ci_high", "std", "n")})
    )
    frame = frame[[*by, "mean", "ci_low", "ci_high", "std", "n"]].rename(
        columns={"mean": "value", "std": "sd", "n": "repeats"}
    )
    frame.insert(len(by), "metric", metric)
    return frame.reset_index(drop=True)


def _class_averages(ds: xr.Dataset, *, beta: float, zero_division: Any) -> pd.DataFrame | None:
    """:func:`cvframe.tidy.class_averages` with ``<name>_ci_low``/``_ci_high`` across repeats."""
    mean = tidy.class_averages(ds, beta=beta, zero_division=zero_division)
    if mean is None or REPEAT not in ds.dims or ds.sizes[REPEAT] < 2:
        return mean
    values = [c for c in mean.columns if pd.api.types.is_float_dtype(mean[c])]
    by = [c for c in mean.columns if c not in values]
    per_repeat = []
    for r in ds[REPEAT].values:
        one = tidy.class_averages(ds.sel({REPEAT: [r]}), beta=beta, zero_division=zero_division)
        assert one is not None
        per_repeat.append(one.assign(**{REPEAT: r}))
    long = pd.concat(per_repeat, ignore_index=True).set_index([REPEAT, *by])[values]
    s = repeats.summary(ds, long.to_xarray(), dim=REPEAT, ci=CI)
    out = mean.copy()
    for col in values:
        for bound in ("ci_low", "ci_high"):
            sel = s[bound].sel({repeats.STACKED: col})
            if by:
                idx = pd.MultiIndex.from_frame(mean[by]) if len(by) > 1 else pd.Index(mean[by[0]])
                cell = sel.to_series().reindex(idx).to_numpy()
            else:
                cell = np.full(len(mean), float(sel))
            out.insert(
                out.columns.get_loc(col) + (1 if bound == "ci_low" else 2), f"{col}_{bound}", cell
            )
    return out


def _with_kappa_band(frame: pd.DataFrame | None) -> pd.DataFrame | None:
    """The class averages with the strength-of-agreement band right after ``kappa``."""
    if frame is None or "kappa" not in frame.columns:
        return frame
    out = frame.copy()
    band = multiclass.kappa_band(out["kappa"].to_numpy(dtype="float64"))
    out.insert(out.columns.get_loc("kappa") + 1, "kappa_band", band)
    return out


def _auc_table(scores: pd.DataFrame, ds: xr.Dataset, score_kwargs: dict[str, Any]) -> pd.DataFrame:
    """AUC_avg and AUC_merge per class (and per model/dataset column of the frame), with
    Brier_avg and Brier_merge beside them when the scores are probabilities.

    The scores functions keep the frame's ``model``/``dataset`` columns as dims; training-set
    rows (``subset="train"``) are left out: the report is about the test folds.
    """
    from .. import scores as sc

    if "subset" in scores.columns:
        scores = scores[scores["subset"] == "test"].drop(columns="subset")
    labels = list(ds.indexes[CLASS]) if ds.attrs.get("task") != "binary" else None
    m = sc.auc_methods(
        scores, labels=labels, pos_label=pos_label(ds), undefined="nan", **score_kwargs
    )
    shown = ["auc_avg", "auc_merge"]
    try:  # Brier needs probabilities: decision values leave the AUC columns alone
        for method in ("avg", "merge"):
            m[f"brier_{method}"] = sc.brier(
                scores, method, labels=labels, pos_label=pos_label(ds), **score_kwargs
            )
            shown.append(f"brier_{method}")
    except ValueError as err:
        if "outside [0, 1]" not in str(err):
            raise
    dims = [str(d) for d in m.dims]
    frame = m.to_dataframe().reset_index()[dims + shown]
    if REPEAT in dims:
        by = [d for d in dims if d != REPEAT]
        frame = frame.groupby(by, sort=False)[shown].mean().reset_index()
    return frame


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
) -> dict[str, Any]:
    """Every table and fact of one cube's report, each computed once.

    Keys: ``title``, ``summary`` (:func:`summary_table`), ``ci``, ``dims``, ``count_dims``,
    ``attrs``, ``policy``, ``methods`` (the five F methods per class, averaged over repeats),
    ``methods_per_repeat``, ``class_averages`` (multiclass only, with their intervals across
    repeats), ``auc`` (when ``scores`` is given), ``per_fold``, ``findings``,
    ``tolerance``, ``alpha`` and ``recommendation``.
    """
    extra = tidy.extra_dims(ds)
    has_repeat = REPEAT in extra
    by = [d for d in extra if d != REPEAT] + [CLASS]
    methods = tidy.methods_table(ds, beta=beta, zero_division=zero_division)
    return {
        "title": title if title is not None else default_title(ds),
        "summary": summary_table(ds, beta=beta, zero_division=zero_division),
        "ci": CI,
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
        "class_averages": _with_kappa_band(
            _class_averages(ds, beta=beta, zero_division=zero_division)
        ),
        "auc": (_auc_table(scores, ds, score_kwargs) if scores is not None else None),
        "per_fold": tidy.fold_table(ds, beta=beta, zero_division=zero_division),
        "findings": diagnostics.anomalies(ds, tolerance=tolerance, alpha=alpha, beta=beta),
        "tolerance": tolerance,
        "alpha": alpha,
        "recommendation": RECOMMENDATION,
    }


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
