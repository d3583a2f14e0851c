"""The report's lead when the cube has a ``model`` dim: which model is better, and is it real.

One rule, whatever the entry point (``ds.cv.report()``, ``cvframe report FILE``):
:func:`decision` ranks the models by the mean per-fold F (F_avg; macro F_avg for multiclass
cubes) and compares every other model with the best by :func:`cvframe.compare.compare` with
``test="auto"``; F_tp,fp is pooled over the folds, and the note says how to test it on the
predictions. The result is plain data (JSON-ready); :func:`decision_lines` and
:func:`decision_html` draw it.
"""

from __future__ import annotations

import html
from typing import Any

import pandas as pd
import xarray as xr

from .. import metrics
from ..comparison import compare
from ..errors import few
from ..schema import CLASS, FOLD, PRED, REPEAT, SUBSET, TRUE
from ..tidy import fold_table
from ._common import binary, plain

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
#: The metric the decision ranks by, per fold (the per-fold table's column of that name).
METRIC = "f"
_POOLED = metrics.REGISTRY[METRIC].pooled

#: What the note says when the test is on per-fold F and F_tp,fp is left untested.
POOLED_NOTE = (
    f"{metrics.display(METRIC, _POOLED)} is pooled over the folds and has no per-fold values; "
    "a paired bootstrap of it needs the per-sample predictions and was not run: "
    f"cvframe.compare(pred, {metrics.spelled(METRIC, _POOLED)!r}, test='bootstrap')."
)


def decision(
    ds: xr.Dataset, per_fold: pd.DataFrame | None = None, *, beta: float, zero_division: Any
) -> dict[str, Any] | None:
    """Which model is better: the best by mean per-fold F and its paired difference to each.

    Parameters
    ----------
    ds : xarray.Dataset
        The report's cube.
    per_fold : pandas.DataFrame, optional
        Its :func:`cvframe.tidy.fold_table` with the same ``beta`` and ``zero_division``, as
        the report has computed it; default: computed here.
    beta, zero_division :
        As the report's.

    Returns
    -------
    dict or None
        None when the cube has no ``model`` dim with two or more models. Keys: ``metric``
        (``"F_avg"``, or ``"macro F_avg"``), ``best``, ``rows`` (one record per model:
        ``model``, the metric, ``difference`` = model - best of that metric, ``low``,
        ``high``, ``p_value``, ``effect_size`` and ``sentence``, one plain sentence a
        reviewer can paste), ``test``, ``reason`` (why ``test="auto"`` chose it),
        ``tested_metric``, ``interval``, ``effect_size`` (what it is), ``level`` and
        ``note``.
    """
    if MODEL not in ds.dims or ds.sizes[MODEL] < 2:
        return None
    if per_fold is None:
        per_fold = fold_table(ds, beta=beta, zero_division=zero_division)
    elif not {MODEL, CLASS, METRIC} <= set(per_fold.columns):
        raise ValueError(
            f"per_fold has the columns {few(per_fold.columns)}; pass the cube's "
            "cvframe.tidy.fold_table (model, class and per-fold f columns), or None."
        )
    if SUBSET in ds.dims:
        ds = ds.sel({SUBSET: "test"}, drop=True)
        per_fold = per_fold[per_fold[SUBSET] == "test"]
    is_binary = binary(ds)
    metric = ("" if is_binary else "macro ") + metrics.display(METRIC, "avg")
    other = [d for d in ds.dims if d not in (MODEL, REPEAT, FOLD, CLASS, TRUE, PRED)]
    out: dict[str, Any] = {
        "metric": metric,
        "test": None,
        "reason": "",
        "tested_metric": None,
        "interval": "",
        "effect_size": "",
        "level": None,
        "note": "",
    }
    if any(ds.sizes[d] > 1 for d in other):
        out.update(best=None, rows=[])
        out["note"] = (
            f"the cube has the dims {other} besides model: compare the models within one "
            f"cell (cvframe.compare on ds.sel(...)), or across data sets with test='friedman'."
        )
        return out
    ds = ds.squeeze(other, drop=True) if other else ds
    # the mean of the per-fold F over repeats and folds, per class, then over classes:
    # the numbers compare(ds, "f") pairs and averages
    # (NaN where a fold's F is undefined, as F_avg under zero_division=nan)
    per_class = per_fold.groupby([MODEL, CLASS], sort=False)[METRIC]
    value = per_class.mean().where(per_class.count() == per_class.size())
    value = value.groupby(MODEL, sort=False).mean(numeric_only=False)
    table = value.reindex(list(ds[MODEL].values)).rename(metric).reset_index()
    n_undefined = int(per_fold[METRIC].isna().sum())
    table[MODEL] = [plain(m) for m in table[MODEL]]
    defined = table[metric].notna()
    best = table.loc[table[metric].idxmax(), MODEL] if defined.all() else None
    for col in (*_TESTED, "effect_size"):
        table[col] = float("nan")
    out["best"] = best
    if n_undefined or best is None:
        out["note"] = (
            f"no best model, no test: per-fold F is undefined (NaN) in {n_undefined} "
            "(model, fold) cells under zero_division=nan, and the paired test needs every "
            "fold: report with zero_division=0 (the paper's) to compare the models."
        )
    else:
        try:
            kw = {"beta": beta, "zero_division": zero_division}
            average = None if is_binary else "macro"
            res = compare(ds, METRIC, baseline=best, test="auto", average=average, **kw)
        except ValueError as err:
            out["note"] = f"no test: {err}"
        else:
            _tested(out, table, res, metric)
    out["rows"] = [{k: plain(v) for k, v in r.items()} for r in table.to_dict("records")]
    return out


def _tested(out: dict[str, Any], table: pd.DataFrame, res: xr.Dataset, metric: str) -> None:
    """Fill the table's differences from ``compare``'s result, and the decision's attrs."""
    res = res.isel({CLASS: 0}, drop=True) if CLASS in res.dims else res
    level = float(res.attrs["level"])
    test = str(res.attrs.get("test"))
    table["sentence"] = None
    for j, m in enumerate(res[MODEL].values):
        i = table.index[table[MODEL] == plain(m)][0]
        vals = [float(res[v].values[j]) for v in ("mean", "low", "high", "p_value", "effect_size")]
        table.loc[i, [*_TESTED, "effect_size"]] = vals
        table.loc[i, "sentence"] = sentence(
            plain(m), out["best"], metric, *vals, test=test, level=level
        )
    out.update(test=test, tested_metric=res.attrs.get("metric"), level=level)
    out.update({k: res.attrs.get(k, "") for k in ("interval", "reason", "effect_size")})
    out["note"] = POOLED_NOTE


#: The columns of a difference that compare fills (besides the effect size).
_TESTED = ("difference", "low", "high", "p_value")


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
    return rows.astype({c: "float64" for c in rows.columns if c != MODEL})


def sentences(d: dict[str, Any] | None) -> list[str]:
    """The decision's pasteable sentences, one per difference (none without a test)."""
    if d is None or d.get("test") is None:
        return []
    return [r["sentence"] for r in d["rows"] if r.get("sentence")]


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
    return (
        head
        + f". Others minus {d['best']} ({d['test']} on {_tested_values(d)}): "
        + "; ".join(parts)
        + "."
    )


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
    return lines


def _tested_values(d: dict[str, Any]) -> str:
    macro = "macro " if d["metric"].startswith("macro ") else ""
    return f"per-fold {macro}{metrics.display(METRIC)}"


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
    return parts
