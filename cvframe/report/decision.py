"""The report's lead when the cube has a ``model`` dim: which model is better, and is it real.

One rule, whatever the entry point (``ds.cv.report()``, ``ds.cv.report(scores=pred)``,
``cvframe report FILE``): :func:`decision` ranks the models by the number the report
recommends -- the pooled F (F_tp,fp of the positive class; macro F_tp,fp over the classes
of a multiclass cube and over the labels of a multilabel one, as the headline table shows
it) -- and compares every other model with the best by :func:`cvframe.compare` with
``test="auto"``: with the predictions frame, the per-sample paired test (``"paired_delta"``),
without it the cube's ``"fold_jackknife"``; ``ds.cv.compare()`` and ``compare(pred)`` with
their defaults give the same test and p-value. F_avg with the corrected t stays as a second,
labelled line. On multilabel data it says when the sample-wise metrics pick another winner.
The result is plain data (JSON-ready); :func:`decision_lines` and :func:`decision_html` draw
it.
"""

from __future__ import annotations

import html
import warnings
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .. import measure, metrics
from .._core.labels import frame as labels_frame
from ..comparison import compare
from ..errors import UndefinedMetricWarning, few
from ..schema import CLASS, FOLD, PRED, REPEAT, SUBSET, TRUE
from ..tidy import fold_table
from ._common import binary, plain, pos_label

__all__ = [
    "MODEL",
    "decision",
    "decision_frame",
    "decision_html",
    "decision_lines",
    "sentence",
    "sentences",
]

MODEL = "model"
#: The metric the decision ranks by: its pooled variant first, its fold mean second.
METRIC = "f"
_POOLED = metrics.REGISTRY[METRIC].pooled
#: The per-fold table's column of the second line's metric.
_PER_FOLD = METRIC
#: The columns of a difference that compare fills (besides the effect size).
_TESTED = ("difference", "low", "high", "p_value")
#: Multilabel metrics that judge samples (or every label decision at once) rather than
#: labels one by one: the decision says when they pick another winner.
_SAMPLE_WISE = tuple(metrics.by_kind("sample"))


def _empty(metric: str) -> dict[str, Any]:
    return {
        "metric": metric,
        "test": None,
        "reason": "",
        "tested_metric": None,
        "interval": "",
        "effect_size": "",
        "level": None,
        "data": "",
        "note": "",
        "best": None,
        "rows": [],
    }


def _name(ds: xr.Dataset, variant: str) -> str:
    """How the decision names the metric: ``F_tp,fp`` or ``macro F_tp,fp`` (``F_avg``)."""
    return ("" if binary(ds) else "macro ") + metrics.display(METRIC, variant)


def decision(
    ds: xr.Dataset,
    per_fold: pd.DataFrame | None = None,
    *,
    beta: float,
    zero_division: Any,
    frame: pd.DataFrame | None = None,
    frame_kwargs: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """Which model is better: the best by the pooled F and its paired difference to each.

    Parameters
    ----------
    ds : xarray.Dataset
        The report's cube.
    per_fold : pandas.DataFrame, optional
        Its :func:`cvframe.tidy.fold_table` with the same ``beta`` and ``zero_division``, as
        the report has computed it (the second line's per-fold F); default: computed here.
    beta, zero_division :
        As the report's.
    frame : pandas.DataFrame, optional
        The predictions frame the cube came from (test rows, a ``model`` column): the
        per-sample paired test then replaces the cube's fold jackknife.
    frame_kwargs : dict, optional
        Its column names (``y_true``, ``fold``, ``repeat``), as the report reads it.

    Returns
    -------
    dict or None
        None when the cube has no ``model`` dim with two or more models. Keys: ``metric``
        (``"F_tp,fp"``, or ``"macro F_tp,fp"``), ``best``, ``rows`` (one record per model:
        ``model``, the metric, ``difference`` = model - best of that metric, ``low``,
        ``high``, ``p_value``, ``effect_size`` and ``sentence``, one plain sentence a
        reviewer can paste), ``test``, ``reason`` (why ``test="auto"`` chose it), ``data``
        (what it read: ``"predictions"`` or ``"counts cube"``), ``tested_metric``,
        ``interval``, ``effect_size`` (what it is), ``level``, ``note``; ``second``: the
        same for F_avg with the corrected t (``"macro F_avg"``); ``disagreement``: on
        multilabel data, the sample-wise metrics that pick another winner ("" when none).
    """
    if MODEL not in ds.dims or ds.sizes[MODEL] < 2:
        return None
    if per_fold is not None and not {MODEL, CLASS, _PER_FOLD} <= set(per_fold.columns):
        raise ValueError(
            f"per_fold has the columns {few(per_fold.columns)}; pass the cube's "
            "cvframe.tidy.fold_table (model, class and per-fold f columns), or None."
        )
    if SUBSET in ds.dims:
        ds = ds.sel({SUBSET: "test"}, drop=True)
        if per_fold is not None:
            per_fold = per_fold[per_fold[SUBSET] == "test"]
    out = _empty(_name(ds, _POOLED))
    other = [d for d in ds.dims if d not in (MODEL, REPEAT, FOLD, CLASS, TRUE, PRED)]
    if any(ds.sizes[d] > 1 for d in other):
        out["note"] = (
            f"the cube has the dims {other} besides model: compare the models within one "
            f"cell (cvframe.compare on ds.sel(...)), or across data sets with test='friedman'."
        )
        out["second"], out["disagreement"] = None, ""
        return out
    ds = ds.squeeze(other, drop=True) if other else ds
    kw = {"beta": beta, "zero_division": zero_division}
    _pooled(out, ds, frame, frame_kwargs or {}, kw)
    if per_fold is None:
        per_fold = fold_table(ds, **kw)
    out["second"] = _fold_mean(ds, per_fold, kw)
    out["disagreement"] = _disagreement(ds, out["best"], kw)
    return out


def _values(ds: xr.Dataset, variant: str, kw: dict[str, Any]) -> pd.Series:
    """The metric of every model (mean over repeats), as the headline table shows it."""
    average = None if binary(ds) else "macro"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        val = measure.cube(ds, METRIC, variant, average, **kw)
    val = val.isel({CLASS: 0}, drop=True) if CLASS in val.dims else val
    val = val.mean(REPEAT) if REPEAT in val.dims else val
    return pd.Series(
        np.asarray(val.transpose(MODEL).values, dtype=float), index=list(ds[MODEL].values)
    )


def _table(values: pd.Series, metric: str) -> pd.DataFrame:
    table = values.rename(metric).rename_axis(MODEL).reset_index()
    table[MODEL] = [plain(m) for m in table[MODEL]]
    for col in (*_TESTED, "effect_size"):
        table[col] = float("nan")
    return table


def _pooled(
    out: dict[str, Any], ds: xr.Dataset, frame: Any, cols: dict[str, Any], kw: dict[str, Any]
) -> None:
    """The first line: the pooled F of every model and the paired test of its difference,
    on the predictions when they pair the samples, else on the cube."""
    metric = out["metric"]
    table = _table(_values(ds, _POOLED, kw), metric)
    defined = table[metric].notna()
    best = table.loc[table[metric].idxmax(), MODEL] if defined.all() and len(table) else None
    out["best"] = best
    if best is None:
        out["note"] = f"no best model, no test: {metric} is undefined for some model."
        out["rows"] = _records(table)
        return
    average = None if binary(ds) else "macro"
    spelled = metrics.spelled(METRIC, _POOLED)
    args = {"baseline": best, "average": average, **kw}
    res, note = None, ""
    if frame is not None:
        try:
            res = _on_frame(frame, ds, cols, spelled, args, table.set_index(MODEL)[metric])
        except ValueError as err:
            note = f"the per-sample paired test could not read the predictions ({err}); "
    if res is None:
        try:
            res = compare(ds, spelled, **args)
        except ValueError as err:
            out["note"] = note + f"no test: {err}"
            out["rows"] = _records(table)
            return
    _tested(out, table, res, metric)
    out["data"] = "predictions" if res.attrs.get("test") != "fold_jackknife" else "counts cube"
    if note:
        out["note"] = note + "the counts cube's fold jackknife was used."
    elif out["data"] == "counts cube" and frame is None:
        out["note"] = (
            f"tested on the counts cube (folds as the paired units); with the predictions "
            f"(report(scores=pred), or cvframe.compare(pred, {spelled!r})) the per-sample "
            "paired test pairs every sample and is more powerful."
        )
    out["rows"] = _records(table)


def _on_frame(
    frame: pd.DataFrame,
    ds: xr.Dataset,
    cols: dict[str, Any],
    spelled: str,
    args: dict,
    pooled: pd.Series,
) -> xr.Dataset | None:
    """compare on the predictions frame, when it holds the cube's models and pairs the
    same numbers (its differences equal those of the cube's pooled values, ``pooled`` by
    model); else None."""
    names = {k: cols[k] for k in ("y_true", "fold", "repeat") if cols.get(k) is not None}
    multilabel = labels_frame.multilabel_names(frame, names.get("y_true", "y_true")) is not None
    if MODEL not in frame.columns or not ("y_pred" in frame.columns or multilabel):
        return None
    pos = pos_label(ds) if binary(ds) and ds.attrs.get("task") != "multilabel" else None
    res = compare(frame, spelled, pos_label=pos, **names, **args)
    base = float(pooled[args["baseline"]])
    want = {plain(m): float(v) - base for m, v in pooled.items() if m != args["baseline"]}
    got = dict(zip(map(plain, res[MODEL].values), res["mean"].values.ravel(), strict=True))
    same = want.keys() == got.keys() and all(abs(got[c] - want[c]) < 1e-9 for c in want)
    return res if same else None


def _records(table: pd.DataFrame) -> list[dict[str, Any]]:
    return [{k: plain(v) for k, v in r.items()} for r in table.to_dict("records")]


def _tested(out: dict[str, Any], table: pd.DataFrame, res: xr.Dataset, metric: str) -> None:
    """Fill the table's differences from ``compare``'s result, and the decision's attrs."""
    res = res.isel({CLASS: 0}, drop=True) if CLASS in res.dims else res
    level = float(res.attrs["level"])
    test = str(res.attrs.get("test"))
    per_fold = test in ("corrected_t", "5x2cv_t", "5x2cv_f", "bayesian")
    table["sentence"] = None
    for j, m in enumerate(res[MODEL].values):
        i = table.index[table[MODEL] == plain(m)][0]
        vals = [float(res[v].values[j]) for v in ("mean", "low", "high", "p_value", "effect_size")]
        table.loc[i, [*_TESTED, "effect_size"]] = vals
        shown = vals if per_fold else [*vals[:4], float("nan")]  # d_z only of per-fold values
        table.loc[i, "sentence"] = sentence(
            plain(m), out["best"], metric, *shown, test=test, level=level
        )
    out.update(test=test, tested_metric=res.attrs.get("metric"), level=level)
    out.update({k: res.attrs.get(k, "") for k in ("interval", "reason", "effect_size")})


def _fold_mean(ds: xr.Dataset, per_fold: pd.DataFrame, kw: dict[str, Any]) -> dict[str, Any]:
    """The second line: mean per-fold F (F_avg; macro F_avg) with the corrected t."""
    out = _empty(_name(ds, "avg"))
    metric = out["metric"]
    # the mean of the per-fold F over repeats and folds, per class, then over classes: the
    # numbers compare(ds, "f") pairs and averages (NaN where a fold's F is undefined)
    per_class = per_fold.groupby([MODEL, CLASS], sort=False)[_PER_FOLD]
    value = per_class.mean().where(per_class.count() == per_class.size())
    value = value.groupby(MODEL, sort=False).mean(numeric_only=False)
    table = _table(value.reindex(list(ds[MODEL].values)), metric)
    n_undefined = int(per_fold[_PER_FOLD].isna().sum())
    defined = table[metric].notna()
    best = table.loc[table[metric].idxmax(), MODEL] if defined.all() else None
    out["best"] = best
    if n_undefined or best is None:
        out["note"] = (
            f"no best model, no test: per-fold F is undefined (NaN) in {n_undefined} "
            "(model, fold) cells under zero_division=nan, and the paired test needs every "
            "fold: report with zero_division=0 (the paper's) to compare the models."
        )
    else:
        try:
            average = None if binary(ds) else "macro"
            res = compare(ds, METRIC, baseline=best, test="auto", average=average, **kw)
        except ValueError as err:
            out["note"] = f"no test: {err}"
        else:
            _tested(out, table, res, metric)
            out["data"] = "counts cube"
    out["rows"] = _records(table)
    return out


def _disagreement(ds: xr.Dataset, best: Any, kw: dict[str, Any]) -> str:
    """On a multilabel cube with per-sample sums: the sample-wise metrics (and micro F)
    whose best model is not the decision's, in one sentence ("" when they all agree)."""
    if ds.attrs.get("task") != "multilabel" or best is None:
        return ""
    picks: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        micro = measure.cube(ds, METRIC, _POOLED, "micro", **kw)
        picks["micro " + metrics.display(METRIC, _POOLED)] = _winner(micro, True)
        for name in _SAMPLE_WISE:
            entry = metrics.REGISTRY[name]
            try:
                val = measure.cube(ds, name, "tp_fp", zero_division=kw["zero_division"])
            except (KeyError, ValueError):  # a cube without per-sample sums
                continue
            picks[entry.display] = _winner(val, entry.higher_is_better)
    other = {k: v for k, v in picks.items() if v is not None and v != best}
    if not other:
        return ""
    said = "; ".join(f"{k}: {v}" for k, v in other.items())
    return (
        f"the label-wise and sample-wise metrics disagree about the winner: macro "
        f"{metrics.display(METRIC, _POOLED)} (label-wise, the headline) picks {best}, but "
        f"{said}. Macro F weighs every label equally, rare ones too; the sample-wise metrics "
        "weigh every sample (or label decision) equally: say which question the study asks."
    )


def _winner(val: xr.DataArray, higher: bool) -> Any:
    val = val.isel({CLASS: 0}, drop=True) if CLASS in val.dims else val
    val = val.mean(REPEAT) if REPEAT in val.dims else val
    s = pd.Series(np.asarray(val.transpose(MODEL).values, dtype=float), index=val[MODEL].values)
    if s.isna().any():
        return None
    return plain(s.idxmax() if higher else s.idxmin())


def sentence(
    model: Any,
    best: Any,
    metric: str,
    difference: float,
    low: float,
    high: float,
    p_value: float,
    effect_size: float,
    *,
    test: str,
    level: float = 0.95,
) -> str:
    """One plain sentence a reviewer can paste about ``model - best``.

    >>> s = sentence("lr", "rf", "F_avg", -0.02, -0.05, 0.01, 0.2, -0.4, test="corrected_t")
    >>> print(s[:61])
    lr - rf in F_avg: -0.0200, 95% interval [-0.0500, +0.0100] (c
    >>> print(s[s.index(";") + 2 :])
    the interval includes 0: this data does not show rf to be better than lr.
    """
    nums = f"{difference:+.4f}"
    if low == low and high == high:  # not NaN
        nums += f", {level:.0%} interval [{low:+.4f}, {high:+.4f}]"
    how = f"{test}, p={p_value:.3g}" + (
        f", effect size d_z={effect_size:+.2f}" if effect_size == effect_size else ""
    )
    head = f"{model} - {best} in {metric}: {nums} ({how}); "
    if not (low == low and high == high):
        return head + "no interval: judge by the p-value alone."
    if low <= 0 <= high:
        return (
            head + f"the interval includes 0: this data does not show {best} to be better "
            f"than {model}."
        )
    better, worse = (model, best) if low > 0 else (best, model)
    return (
        head + f"the interval excludes 0: this data shows {better} to be better than {worse} "
        f"by {min(abs(low), abs(high)):.4f} to {max(abs(low), abs(high)):.4f}."
    )


def decision_frame(d: dict[str, Any]) -> pd.DataFrame:
    """The decision's table: model, the metric, ``minus <best>`` with its interval, p-value.

    Interval columns are named ``minus <best>_ci_low``/``_ci_high``, as the renderers join
    them into the value's cell.
    """
    rows = pd.DataFrame(d["rows"]).drop(columns="sentence", errors="ignore")
    name = f"minus {d['best']}"
    rows = rows.rename(
        columns={"difference": name, "low": f"{name}_ci_low", "high": f"{name}_ci_high"}
    )
    if d["test"] is None:
        rows = rows[[MODEL, d["metric"]]]
    elif "standardise" in str(d.get("effect_size")):  # a pooled test's is the difference
        rows = rows.drop(columns="effect_size", errors="ignore")
    return rows.astype({c: "float64" for c in rows.columns if c != MODEL})


def sentences(d: dict[str, Any] | None) -> list[str]:
    """The decision's pasteable sentences, one per difference (none without a test)."""
    if d is None or d.get("test") is None:
        return []
    return [r["sentence"] for r in d["rows"] if r.get("sentence")]


#: How a sentence names what each test read.
_READ = {
    "paired_delta": "the per-sample predictions",
    "fold_jackknife": "the folds' counts",
    "mcnemar": "the per-sample predictions",
    "bootstrap": "the per-sample predictions",
}


def _sentence(d: dict[str, Any]) -> str:
    rows = d["rows"]
    best_row = next(r for r in rows if r[MODEL] == d["best"])
    value = best_row[d["metric"]]
    head = f"Best by {d['metric']}: {d['best']}" + (f" ({value:.4f})" if value is not None else "")
    if d["test"] is None:
        return head + "."
    parts = []
    for r in rows:
        if r[MODEL] == d["best"] or r["difference"] is None:
            continue
        ci = (
            f" [{r['low']:+.4f}, {r['high']:+.4f}]"
            if r["low"] is not None and r["high"] is not None
            else ""
        )
        p = f", p={r['p_value']:.3g}" if r["p_value"] is not None else ""
        parts.append(f"{r[MODEL]} {r['difference']:+.4f}{ci}{p}")
    read = _READ.get(d["test"], f"per-fold {d['metric'].removesuffix('_avg')}")
    return head + f". Others minus {d['best']} ({d['test']} on {read}): " + "; ".join(parts) + "."


def _second(d: dict[str, Any]) -> str:
    """The labelled second line (F_avg with the corrected t), one sentence."""
    s = d.get("second")
    if not s:
        return ""
    label = f"Second line, {s['metric']} (the mean of per-fold F, biased by undefined folds):"
    if s["best"] is None or s["test"] is None:
        return f"{label} {s['note']}"
    return f"{label} {_sentence(s)}"


def decision_lines(d: dict[str, Any] | None) -> list[str]:
    """The lead of the text report (empty without a decision)."""
    if d is None:
        return []
    lines = ["Which model is better:"]
    if d["best"] is None:
        return lines + [f"  {d['note']}", ""]
    lines.append("  " + _sentence(d))
    lines += [f"  - {text}" for text in sentences(d)]
    if d.get("reason"):
        lines.append(f"  (test chosen: {d['test']}, because {d['reason']}; {_effect_words(d)})")
    if d["note"]:
        lines.append(f"  ({d['note']})")
    if d.get("disagreement"):
        lines.append(f"  Note: {d['disagreement']}")
    if _second(d):
        lines.append("  " + _second(d))
    return lines


def _effect_words(d: dict[str, Any]) -> str:
    return f"effect size: {d['effect_size']}" if d.get("effect_size") else "no effect size"


def decision_html(d: dict[str, Any] | None) -> list[str]:
    """The lead of the HTML report (empty without a decision)."""
    if d is None:
        return []
    e = html.escape
    parts = ["<h3>Which model is better</h3>"]
    if d["best"] is None:
        return parts + [f'<p class="meta">{e(d["note"])}</p>']
    parts.append(f'<p class="lead">{e(_sentence(d))}</p>')
    said = sentences(d)
    if said:
        parts.append('<ul class="sentences">' + "".join(f"<li>{e(t)}</li>" for t in said) + "</ul>")
    if d.get("reason"):
        parts.append(
            f'<p class="meta">test chosen: {e(str(d["test"]))}, because {e(d["reason"])}; '
            f"{e(_effect_words(d))}</p>"
        )
    if d["note"]:
        parts.append(f'<p class="meta">{e(d["note"])}</p>')
    if d.get("disagreement"):
        parts.append(f'<p class="meta">Note: {e(d["disagreement"])}</p>')
    if _second(d):
        parts.append(f'<p class="meta">{e(_second(d))}</p>')
    return parts
