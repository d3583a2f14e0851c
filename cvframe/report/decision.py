"""The report's lead when the cube has a ``model`` dim: which model is better, and is it real.

:func:`decision` ranks the models by the recommended number (F_tp,fp; macro F_tp,fp for
multiclass cubes, mean over repeats) and compares every other model with the best one by
:func:`cvframe.compare.compare`: the paired bootstrap of F_tp,fp when the report has the
predictions frame (with ``y_pred`` and a ``model`` column), else the corrected repeated
k-fold t-test on per-fold F from the cube. The result is plain data (JSON-ready);
:func:`decision_lines` and :func:`decision_html` draw it.
"""

from __future__ import annotations

import html
import math
from typing import Any

import pandas as pd
import xarray as xr

from .. import multiclass, reduce
from ..compare import compare
from ..schema import CLASS, FOLD, PRED, REPEAT, SUBSET, TRUE
from .content import plain, pos_label

__all__ = ["MODEL", "decision", "decision_html", "decision_lines"]

MODEL = "model"
_N_RESAMPLES = 1000


def _f_tp_fp(ds: xr.Dataset, beta: float, zero_division: Any) -> xr.DataArray:
    if ds.attrs.get("task") == "binary" or ds.sizes.get(CLASS, 1) == 1:
        val = reduce.f_tp_fp(ds, beta=beta, zero_division=zero_division)
        val = val.isel({CLASS: 0}, drop=True) if CLASS in val.dims else val
    else:
        val = multiclass.macro(ds, "f", "tp_fp", beta=beta, zero_division=zero_division)
    return val.mean(REPEAT) if REPEAT in val.dims else val


def decision(
    ds: xr.Dataset, scores: pd.DataFrame | None, *, beta: float, zero_division: Any
) -> dict[str, Any] | None:
    """Which model is better: the best by F_tp,fp and its paired difference to each other.

    Returns None when the cube has no ``model`` dim with two or more models. Keys:
    ``metric``, ``best``, ``rows`` (one record per model: ``model``, ``F_tp,fp``,
    ``difference`` = model - best, ``low``, ``high``, ``p_value``), ``test``,
    ``tested_metric``, ``interval`` and ``note``.
    """
    if MODEL not in ds.dims or ds.sizes[MODEL] < 2:
        return None
    if SUBSET in ds.dims:
        ds = ds.sel({SUBSET: "test"}, drop=True)
    binary = ds.attrs.get("task") == "binary" or ds.sizes.get(CLASS, 1) == 1
    metric = "F_tp,fp" if binary else "macro F_tp,fp"
    other = [d for d in ds.dims if d not in (MODEL, REPEAT, FOLD, CLASS, TRUE, PRED)]
    out: dict[str, Any] = {"metric": metric, "test": None, "tested_metric": None, "note": ""}
    if any(ds.sizes[d] > 1 for d in other):
        out.update(best=None, rows=[])
        out["note"] = (
            f"the cube has the dims {other} besides model: compare the models within one "
            f"cell (cvframe.compare on ds.sel(...)), or across data sets with test='friedman'."
        )
        return out
    ds = ds.squeeze([d for d in other], drop=True) if other else ds
    value = _f_tp_fp(ds, beta, zero_division)
    models = [plain(m) for m in value[MODEL].values]
    best_i = int(value.argmax(MODEL))
    best = models[best_i]
    table = pd.DataFrame({MODEL: models, metric: value.values.astype(float)})
    for col in ("difference", "low", "high", "p_value"):
        table[col] = math.nan
    out["best"] = best
    if not binary:
        out["note"] = (
            "no significance test for a class average: compare per class with "
            "cvframe.compare(ds, 'f', baseline=...)."
        )
    else:
        try:
            res = _test(ds, scores, best, beta, zero_division)
        except ValueError as err:
            out["note"] = f"no test: {err}"
        else:
            if CLASS in res.dims:
                res = res.isel({CLASS: 0}, drop=True)
            for j, m in enumerate(res[MODEL].values):
                i = models.index(plain(m))
                table.loc[i, ["difference", "low", "high", "p_value"]] = [
                    float(res[v].values[j]) for v in ("mean", "low", "high", "p_value")
                ]
            out["test"] = res.attrs.get("test")
            out["tested_metric"] = res.attrs.get("metric")
            out["interval"] = res.attrs.get("interval", "")
            if out["tested_metric"] != "f_tp_fp":
                out["note"] = (
                    "tested on per-fold F (corrected for the overlap of training sets); pass "
                    "the predictions frame (scores=) to test F_tp,fp itself by the paired "
                    "bootstrap."
                )
    out["rows"] = [{k: plain(v) for k, v in r.items()} for r in table.to_dict("records")]
    return out


def _test(
    ds: xr.Dataset, scores: pd.DataFrame | None, best: Any, beta: float, zero_division: Any
) -> xr.Dataset:
    frame_ok = (
        scores is not None
        and MODEL in scores.columns
        and "y_pred" in scores.columns
        and "y_true" in scores.columns
    )
    if frame_ok:
        assert scores is not None
        if SUBSET in scores.columns:
            scores = scores[scores[SUBSET] == "test"].drop(columns=SUBSET)
        return compare(
            scores,
            "f_tp_fp",
            baseline=best,
            test="bootstrap",
            n_resamples=_N_RESAMPLES,
            random_state=0,
            beta=beta,
            zero_division=zero_division,
            pos_label=pos_label(ds),
        )
    return compare(ds, "f", baseline=best, beta=beta, zero_division=zero_division)


def _sentence(d: dict[str, Any]) -> str:
    rows = d["rows"]
    best_row = next(r for r in rows if r["model"] == d["best"])
    value = best_row[d["metric"]]
    head = f"Best by {d['metric']}: {d['best']} ({value:.4f})" if value is not None else ""
    if d["test"] is None:
        return head + "."
    parts = []
    for r in rows:
        if r["model"] == d["best"] or r["difference"] is None:
            continue
        p = r["p_value"]
        ci = (
            f" [{r['low']:+.4f}, {r['high']:+.4f}]"
            if r["low"] is not None and r["high"] is not None
            else ""
        )
        ps = f", p={p:.3g}" if p is not None else ""
        parts.append(f"{r['model']} {r['difference']:+.4f}{ci}{ps}")
    return (
        head
        + f". Others minus {d['best']} ({d['test']} on {d['tested_metric']}): "
        + "; ".join(parts)
        + "."
    )


def decision_lines(d: dict[str, Any] | None) -> list[str]:
    """The lead of the text report (empty without a decision); the per-model differences
    are columns of the summary table."""
    if d is None:
        return []
    lines = ["Which model is better:"]
    if d["best"] is None:
        return lines + [f"  {d['note']}", ""]
    lines.append("  " + _sentence(d))
    if d["note"]:
        lines.append(f"  ({d['note']})")
    return lines


def decision_html(d: dict[str, Any] | None) -> list[str]:
    """The lead of the HTML report (empty without a decision); the per-model differences
    are columns of the summary table."""
    if d is None:
        return []
    e = html.escape
    parts = ["<h3>Which model is better</h3>"]
    if d["best"] is None:
        return parts + [f'<p class="meta">{e(d["note"])}</p>']
    parts.append(f'<p class="lead">{e(_sentence(d))}</p>')
    if d["note"]:
        parts.append(f'<p class="meta">{e(d["note"])}</p>')
    return parts
