"""The apples-to-apples report of a counts cube: text for the terminal, JSON, or one HTML file.

The report composes the public API only: the five F aggregations per class
(:func:`cvframe.reduce.f_methods`), AUC_avg next to AUC_merge when a predictions frame with
scores is given (:func:`cvframe.scores.auc_methods`), the class averages
(:mod:`cvframe.multiclass`), every fold's counts (:func:`cvframe.diagnostics.fold_table`),
the findings (:func:`cvframe.diagnostics.anomalies`) and the ``zero_division`` policy
that produced the numbers.
"""
from __future__ import annotations

import base64
import html
import io
import json
import math
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from . import diagnostics
from ._types import ZeroDivision
from .errors import check_choice
from .reduce import F_METHODS, _fill, _zd_attr
from .schema import CLASS, CONFUSION, FOLD, REPEAT

__all__ = ["FORMATS", "RECOMMENDATION", "report"]

#: Output formats of :func:`report`.
FORMATS = ("text", "json", "html")

#: The one-line recommendation every report ends with.
RECOMMENDATION = (
    "Recommended: F_tp,fp (f_tp_fp: sum TP, FP and FN over the folds, then compute F once) -- "
    "the only one of the five that is essentially unbiased; F_avg and F_pr,re are biased "
    "down/up by folds with undefined or extreme precision/recall, the skip variants upwards "
    "(Forman & Scholz 2010, §4)."
)

_METHOD_LABELS = {"f_tp_fp": "F_tp,fp", "f_avg": "F_avg", "f_pr_re": "F_pr,re",
                  "f_avg_skip": "~F_avg", "f_pr_re_skip": "~F_pr,re"}


def _extra(ds: xr.Dataset) -> list[Hashable]:
    return [d for d in ds["tp"].dims if d not in (FOLD, CLASS)]


def _over_repeats(frame: pd.DataFrame, by: list[Hashable], values: list[str],
                  has_repeat: bool) -> pd.DataFrame:
    """Mean over repeats (with the sd of the first value column) when there are repeats."""
    if not has_repeat:
        return frame[by + values].reset_index(drop=True)
    grouped = frame.groupby(by, sort=False, dropna=False)
    out = grouped[values].mean()
    if len(values):
        out[f"{values[0]}_sd"] = grouped[values[0]].std(ddof=1)
    return out.reset_index()


def _class_averages(ds: xr.Dataset, extra: list[Hashable], zd: Any, beta: float
                    ) -> pd.DataFrame | None:
    """Macro/micro/weighted F (and kappa, pooled accuracy) over classes, when multiclass."""
    if ds.sizes[CLASS] < 2:
        return None
    from . import multiclass

    out = {
        "macro_f": multiclass.macro(ds, "f", "tp_fp", beta=beta, zero_division=zd),
        "macro_f_avg_folds": multiclass.macro(ds, "f", "avg", beta=beta, zero_division=zd),
        "macro_f_of_means": multiclass.macro(ds, "f", "tp_fp", definition="f_of_means",
                                             beta=beta, zero_division=zd),
        "micro_f": multiclass.micro(ds, "f", "tp_fp", beta=beta, zero_division=zd),
        "weighted_f": multiclass.weighted(ds, "f", "tp_fp", beta=beta, zero_division=zd),
    }
    if CONFUSION in ds.data_vars:
        out["kappa"] = multiclass.kappa(ds, "tp_fp", zero_division=zd)
        from .reduce import accuracy
        out["accuracy"] = accuracy(ds, how="pooled", zero_division=zd)
    res = xr.Dataset({k: v.drop_attrs() if hasattr(v, "drop_attrs") else v
                      for k, v in out.items()})
    if extra:
        frame = res.transpose(*extra).to_dataframe().reset_index()
        frame = frame[[*extra, *out]]
    else:
        frame = pd.DataFrame({k: [float(v.values)] for k, v in res.data_vars.items()})
    by = [d for d in extra if d != REPEAT]
    if REPEAT in extra:
        return frame.groupby(by, sort=False)[list(out)].mean().reset_index() if by else \
            frame[list(out)].mean().to_frame().T
    return frame


def _auc_table(scores: pd.DataFrame, ds: xr.Dataset, score_kwargs: dict[str, Any]
               ) -> pd.DataFrame:
    """AUC_avg and AUC_merge per class (and per model/dataset column of the frame).

    The scores functions keep the frame's ``model``/``dataset`` columns as dims; training-set
    rows (``subset="train"``) are left out: the report is about the test folds.
    """
    from . import scores as sc

    if "subset" in scores.columns:
        scores = scores[scores["subset"] == "test"].drop(columns="subset")
    labels = list(ds.indexes[CLASS]) if ds.attrs.get("task") != "binary" else None
    m = sc.auc_methods(scores, labels=labels, pos_label=ds.attrs.get("pos_label"),
                       undefined="nan", **score_kwargs)
    dims = [str(d) for d in m.dims]
    frame = m.to_dataframe().reset_index()[dims + ["auc_avg", "auc_merge"]]
    if REPEAT in dims:
        by = [d for d in dims if d != REPEAT]
        frame = frame.groupby(by, sort=False)[["auc_avg", "auc_merge"]].mean().reset_index()
    return frame


def _plain(v: Any) -> Any:
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if v is pd.NA or v is pd.NaT:
        return None
    return v


def _records(frame: pd.DataFrame | None) -> list[dict[str, Any]] | None:
    if frame is None:
        return None
    return [{str(k): _plain(v) for k, v in row.items()}
            for row in frame.astype(object).to_dict("records")]


def _content(ds: xr.Dataset, scores: pd.DataFrame | None, zero_division: Any, beta: float,
             tolerance: float, alpha: float, score_kwargs: dict[str, Any]) -> dict[str, Any]:
    extra = _extra(ds)
    has_repeat = REPEAT in extra
    by = [d for d in extra if d != REPEAT] + [CLASS]
    methods = diagnostics.methods_table(ds, beta=beta, zero_division=zero_division)
    content: dict[str, Any] = {
        "title": str(ds.attrs.get("source") or ds.attrs.get("title") or "counts cube"),
        "dims": {str(k): int(v) for k, v in ds.sizes.items()},
        "count_dims": [str(d) for d in ds["tp"].dims],
        "attrs": {k: _plain(v) for k, v in ds.attrs.items()
                  if k in ("task", "pos_label", "stratified", "splitter", "cvframe_version")},
        "policy": {"zero_division": _zd_attr(zero_division), "beta": beta,
                   "meaning": _policy_text(zero_division)},
        "methods": _over_repeats(methods, by, list(F_METHODS), has_repeat),
        "methods_per_repeat": methods if has_repeat else None,
        "class_averages": _class_averages(ds, extra, zero_division, beta),
        "auc": (_auc_table(scores, ds, score_kwargs) if scores is not None else None),
        "per_fold": diagnostics.fold_table(ds, beta=beta, zero_division=zero_division),
        "findings": diagnostics.anomalies(ds, tolerance=tolerance, alpha=alpha, beta=beta),
        "tolerance": tolerance,
        "alpha": alpha,
        "recommendation": RECOMMENDATION,
    }
    return content


def _policy_text(zero_division: Any) -> str:
    value = _fill(zero_division)
    if math.isnan(value):
        return ("undefined precision/recall (0/0) is NaN; F of a fold with TP = 0 < FP + FN "
                "is 0 as in scikit-learn >= 1.3")
    return (f"undefined precision/recall (0/0) counts as {value:g} in F_avg and F_pr,re; "
            "F of a fold with TP = 0 < FP + FN is 0; the ~ (skip) methods drop folds where "
            "either is undefined")


# --- rendering -------------------------------------------------------------------------------

def _fmt_frame(frame: pd.DataFrame, digits: int) -> pd.DataFrame:
    out = frame.copy()
    for col in out.columns:
        if pd.api.types.is_float_dtype(out[col]):
            out[col] = out[col].round(digits)
    return out.rename(columns=_METHOD_LABELS)


def _text(c: dict[str, Any], max_fold_rows: int) -> str:
    lines = [f"cvframe report: {c['title']}",
             "dims: " + ", ".join(f"{k}={v}" for k, v in c["dims"].items())
             + ("; " + ", ".join(f"{k}={v}" for k, v in c["attrs"].items()
                                 if k != "cvframe_version") if c["attrs"] else ""),
             f"policy: zero_division={c['policy']['zero_division']}, "
             f"beta={c['policy']['beta']:g} ({c['policy']['meaning']})", ""]
    rep = c["methods_per_repeat"] is not None
    lines.append("Five aggregations of the same folds, per class"
                 + (f" (mean over {c['dims'][REPEAT]} repeats; F_tp,fp_sd = sd across "
                    "repeats)" if rep else "") + ":")
    lines.append(_fmt_frame(c["methods"], 4).to_string(index=False))
    if c["class_averages"] is not None:
        lines += ["", "Averages over classes (fold_method tp_fp unless named; "
                  "macro_f_avg_folds averages per-fold values)"
                  + (" (mean over repeats)" if rep else "") + ":",
                  _fmt_frame(c["class_averages"], 4).to_string(index=False)]
    if c["auc"] is not None:
        lines += ["", "AUC_avg (mean of per-fold AUC) vs AUC_merge (one ROC over all folds' "
                  "pooled scores)" + (" (mean over repeats)" if rep else "") + ":",
                  _fmt_frame(c["auc"], 4).to_string(index=False)]
    pf = c["per_fold"]
    findings = c["findings"]
    lines.append("")
    if len(pf) <= max_fold_rows:
        lines += ["Per fold (undefined precision/recall shown as the policy value; "
                  "valid = both defined):", _fmt_frame(pf, 3).to_string(index=False)]
    else:
        flagged = _flagged_rows(pf, findings)
        lines.append(f"Per fold: {len(pf)} rows (fold x class"
                     + "".join(f" x {d}" for d in c["count_dims"] if d not in (FOLD, CLASS))
                     + (f"); showing the {len(flagged)} rows with a finding"
                        if len(flagged) else "); none has a finding")
                     + " (--format html or json lists all)" + (":" if len(flagged) else "."))
        if len(flagged):
            lines.append(_fmt_frame(flagged.head(max_fold_rows), 3).to_string(index=False))
            if len(flagged) > max_fold_rows:
                lines.append(f"... and {len(flagged) - max_fold_rows} more")
    lines.append("")
    if len(findings):
        counts = findings["kind"].value_counts()
        lines.append(f"Findings ({len(findings)}: "
                     + ", ".join(f"{n} {k}" for k, n in counts.items())
                     + f"; outlying = exact binomial test vs pooled rates, Bonferroni "
                     f"alpha={c['alpha']:g}; methods_disagree = spread > {c['tolerance']:g}):")
        shown = findings.head(max_fold_rows)
        lines += [_finding_line(row) for row in shown.to_dict("records")]
        if len(findings) > len(shown):
            lines.append(f"... and {len(findings) - len(shown)} more findings")
    else:
        lines.append("Findings: none (no undefined metrics, empty folds, absent classes, "
                     "outlying folds or disagreeing methods).")
    lines += ["", c["recommendation"]]
    return "\n".join(lines) + "\n"


def _finding_line(row: dict[str, Any]) -> str:
    where = ", ".join(f"{k}={v}" for k, v in row.items()
                      if k not in ("kind", "detail") and v is not None)
    return f"  [{where}] {row['kind']}: {row['detail']}"


def _flagged_rows(pf: pd.DataFrame, findings: pd.DataFrame) -> pd.DataFrame:
    """Per-fold rows named by a finding (fold-level findings of every class of the fold)."""
    if not len(findings):
        return pf.iloc[:0]
    fold_level = findings[findings[FOLD].notna()]
    keys = [c for c in findings.columns if c not in ("kind", "detail", CLASS)]
    mask = np.zeros(len(pf), dtype=bool)
    for _, row in fold_level.iterrows():
        hit = np.ones(len(pf), dtype=bool)
        for k in keys:
            hit &= (pf[k] == row[k]).to_numpy()
        if row[CLASS] is not None:
            hit &= (pf[CLASS] == row[CLASS]).to_numpy()
        mask |= hit
    return pf[mask]


def _json(c: dict[str, Any]) -> str:
    out = {}
    for k, v in c.items():
        out[k] = _records(v) if isinstance(v, pd.DataFrame) or v is None and k in (
            "class_averages", "auc", "methods_per_repeat") else v
    return json.dumps(out, indent=1, allow_nan=False, default=_plain)


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;
max-width:1200px;color:#222;line-height:1.4;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
th,td{border:1px solid #ccc;padding:.2em .5em;text-align:right}
th{background:#f3f3f3}td.left,th.left{text-align:left}
.rec{background:#eef6ee;border-left:4px solid #4a4;padding:.5em 1em}
.meta{color:#555}img{max-width:100%;height:auto;border:1px solid #eee;margin:.5em 0}
figure{margin:1em 0}figcaption{color:#555;font-size:.9em}
"""


def _table_html(frame: pd.DataFrame | None, digits: int, cls: str) -> str:
    if frame is None:
        return ""
    return _fmt_frame(frame, digits).to_html(index=False, classes=cls, border=0,
                                             na_rep="", escape=True)


def _png(fig_or_ax: Any) -> str:
    fig = getattr(fig_or_ax, "figure", fig_or_ax)
    fig = getattr(fig, "figure", fig)  # Axes -> Figure; FacetGrid.figure
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _figures(ds: xr.Dataset, scores: pd.DataFrame | None, zero_division: Any,
             score_kwargs: dict[str, Any]) -> list[tuple[str, str]]:
    from . import plot

    figs = [("Every fold's precision, recall and F per class (points) with the fold "
             "aggregations (marked lines)", _png(plot.folds(ds, zero_division=zero_division))),
            ("The five F aggregations side by side", _png(plot.methods(
                ds, zero_division=zero_division)))]
    if CONFUSION in ds.data_vars or ds.attrs.get("task") == "binary":
        figs.append(("Confusion matrix summed over folds (and repeats), normalised by true "
                     "class", _png(plot.confusion(ds, normalize="true"))))
    if scores is not None and ds.attrs.get("task") == "binary":
        rep = score_kwargs.get("repeat")
        first = scores if rep is None else scores[scores[rep] == scores[rep].iloc[0]]
        note = "" if rep is None else f" ({rep} {scores[rep].iloc[0]} of {scores[rep].nunique()})"
        figs.append((f"Per-fold ROC curves and the merged one{note}",
                     _png(plot.roc(first, pos_label=ds.attrs.get("pos_label"),
                                   **score_kwargs))))
    return figs


def _html(sections: list[tuple[dict[str, Any], list[tuple[str, str]]]]) -> str:
    e = html.escape
    title = "; ".join(c["title"] for c, _ in sections)
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>cvframe report: {e(title)}</title>",
             f"<style>{_CSS}</style></head><body>"]
    if len(sections) > 1:
        parts.append(f"<h1>cvframe report</h1><p>{len(sections)} cubes: "
                     + ", ".join(f'<a href="#s{i}">{e(c["title"])}</a>'
                                 for i, (c, _) in enumerate(sections)) + "</p>")
    for i, (c, figs) in enumerate(sections):
        parts.append(f'<section id="s{i}">')
        parts += _html_section(c, figs)
        parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _html_section(c: dict[str, Any], figs: list[tuple[str, str]]) -> list[str]:
    e = html.escape
    parts = [f"<h1>cvframe report: {e(c['title'])}</h1>",
             '<p class="meta">dims: ' + e(", ".join(f"{k}={v}" for k, v in c["dims"].items()))
             + "<br>" + e(", ".join(f"{k}={v}" for k, v in c["attrs"].items())) + "</p>",
             f'<p class="meta">policy: zero_division={e(c["policy"]["zero_division"])}, '
             f'beta={c["policy"]["beta"]:g} &mdash; {e(c["policy"]["meaning"])}</p>',
             f'<p class="rec">{e(c["recommendation"])}</p>',
             "<h2>Five aggregations of the same folds</h2>",
             _table_html(c["methods"], 4, "methods")]
    if c["class_averages"] is not None:
        parts += ["<h2>Averages over classes</h2>",
                  _table_html(c["class_averages"], 4, "class-averages")]
    if c["auc"] is not None:
        parts += ["<h2>AUC_avg vs AUC_merge</h2>", _table_html(c["auc"], 4, "auc")]
    findings = c["findings"]
    parts.append(f"<h2>Findings ({len(findings)})</h2>")
    if len(findings):
        parts.append(f'<p class="meta">outlying_fold: exact binomial test of the fold\'s TP '
                     f'against the pooled precision/recall, Bonferroni alpha={c["alpha"]:g}; '
                     f'methods_disagree: spread of the five F methods &gt; '
                     f'{c["tolerance"]:g}.</p>')
        parts.append(_table_html(findings, 3, "findings"))
    else:
        parts.append("<p>None.</p>")
    if figs:
        parts.append("<h2>Plots</h2>")
        for caption, data in figs:
            parts.append(f'<figure><img alt="{e(caption)}" src="data:image/png;base64,{data}">'
                         f"<figcaption>{e(caption)}</figcaption></figure>")
    parts += [f"<h2>Per fold ({len(c['per_fold'])} rows)</h2>",
              "<details open><summary>every fold's counts and metrics</summary>",
              _table_html(c["per_fold"], 3, "per-fold"), "</details>"]
    return parts


def report(ds: xr.Dataset | Mapping[str, xr.Dataset], *,
           scores: pd.DataFrame | Mapping[str, pd.DataFrame] | None = None, format: str = "text",
           zero_division: ZeroDivision = 0.0, beta: float = 1.0, tolerance: float = 0.05,
           alpha: float = 0.01, plots: bool = True, max_fold_rows: int = 40,
           y_true: str = "y_true", fold: str = "fold", repeat: str | None = "repeat",
           score: str = "score") -> str:
    r"""The apples-to-apples report of a counts cube, as text, JSON or a self-contained HTML page.

    Contents: the five F aggregations per class (:func:`cvframe.reduce.f_methods`; with
    repeats, their mean over repeats and the sd of F_tp,fp), the averages over classes
    (macro, micro, weighted F, and kappa and accuracy when the cube has ``confusion``) for
    multiclass cubes, AUC_avg next to AUC_merge when ``scores`` is given, every fold's
    counts and metrics, the findings of :func:`cvframe.diagnostics.anomalies`, the
    ``zero_division`` policy used, and one line recommending F_tp,fp with the reason.

    Parameters
    ----------
    ds : xarray.Dataset or mapping of str to Dataset
        A counts cube, or several by name (one section each, in one page).
    scores : pandas.DataFrame or mapping of str to DataFrame, optional
        The predictions frame the cube came from, with score columns (``score`` for
        binary, ``score_<label>`` per class): adds the AUC table (and a ROC plot in HTML).
        A ``model`` column is respected (one AUC row per model). With a mapping of cubes,
        a mapping with (some of) the same names.
    format : {"text", "json", "html"}, default "text"
        ``"html"`` is one self-contained page: plots embedded as base64 PNG, no external
        resources. ``"json"`` is machine-readable (NaN as null).
    zero_division : {"warn", 0.0, 1.0, np.nan}, default 0.0
        Policy for undefined precision/recall (the paper's 0). The report states it.
    beta : float, default 1
    tolerance : float, default 0.05
        Spread of the five F methods above which ``methods_disagree`` is reported.
    alpha : float, default 0.01
        Family-wise false-alarm rate of the ``outlying_fold`` tests.
    plots : bool, default True
        Embed the plots in the HTML report.
    max_fold_rows : int, default 40
        The text report lists every fold when there are at most this many (fold, class, ...)
        rows, else only the rows named by a finding.
    y_true, fold, repeat, score : str
        Column names of ``scores``.

    Returns
    -------
    str

    References
    ----------
    G. Forman and M. Scholz, "Apples-to-Apples in Cross-Validation Studies: Pitfalls in
    Classifier Performance Measurement", ACM SIGKDD Explorations 12(1), 2010.

    Examples
    --------
    >>> import cvframe
    >>> text = cvframe.datasets.table2().cv.report()
    >>> print(text.splitlines()[0])
    cvframe report: Forman & Scholz 2010, Table 2
    >>> "undefined_precision" in text, text.rstrip().splitlines()[-1].startswith("Recommended")
    (True, True)
    """
    format = check_choice("format", format, FORMATS)
    _fill(zero_division)
    if not isinstance(max_fold_rows, int) or isinstance(max_fold_rows, bool) or \
            max_fold_rows < 0:
        raise ValueError(f"max_fold_rows={max_fold_rows!r} must be an int >= 0.")
    score_kwargs: dict[str, Any] = {"y_true": y_true, "fold": fold, "score": score}
    several = isinstance(ds, Mapping) and not isinstance(ds, xr.Dataset)
    if several:
        cubes: dict[str, Any] = dict(ds)  # type: ignore[arg-type]
        if scores is not None and not isinstance(scores, Mapping):
            raise TypeError("with several cubes, scores must be a mapping of the same names "
                            "to predictions frames.")
        frames: dict[str, Any] = dict(scores or {})
        unknown = [k for k in frames if k not in cubes]
        if unknown:
            raise ValueError(f"scores has names {unknown!r} that are not among the cubes "
                             f"{list(cubes)!r}.")
    else:
        cubes, frames = {"": ds}, ({"": scores} if scores is not None else {})
    for frame in frames.values():
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"scores must be a pandas DataFrame (a predictions frame with "
                            f"score columns), got {type(frame).__name__}.")
    sections = []
    for name, cube in cubes.items():
        sc = frames.get(name)
        kw = dict(score_kwargs, repeat=repeat if sc is not None and repeat in sc.columns
                  else None)
        content = _content(cube, sc, zero_division, beta, tolerance, alpha, kw)
        figs = _figures(cube, sc, zero_division, kw) if plots and format == "html" else []
        sections.append((name, content, figs))
    if format == "text":
        return "\n\n".join(_text(c, max_fold_rows) for _, c, _ in sections)
    if format == "json":
        if not several:
            return _json(sections[0][1])
        return "{\n" + ",\n".join(f"{json.dumps(n)}: {_json(c)}" for n, c, _ in sections) \
            + "\n}"
    return _html([(c, f) for _, c, f in sections])
