"""The report as one self-contained HTML page: tables and plots embedded, no external resource."""

from __future__ import annotations

import base64
import html
import io
from typing import Any

import pandas as pd
import xarray as xr

from ..schema import CONFUSION
from .content import pos_label
from .decision import decision_html
from .text import fmt_frame

__all__ = ["figures", "to_html"]

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


def _table(frame: pd.DataFrame | None, digits: int, cls: str) -> str:
    if frame is None:
        return ""
    return fmt_frame(frame, digits).to_html(
        index=False, classes=cls, border=0, na_rep="", escape=True
    )


def _png(fig_or_ax: Any) -> str:
    fig = getattr(fig_or_ax, "figure", fig_or_ax)
    fig = getattr(fig, "figure", fig)  # Axes -> Figure; FacetGrid.figure
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def figures(
    ds: xr.Dataset, scores: pd.DataFrame | None, zero_division: Any, score_kwargs: dict[str, Any]
) -> list[tuple[str, str]]:
    """The plots of one cube's section as (caption, base64 PNG) pairs."""
    from .. import plot

    figs = [
        (
            "Every fold's precision, recall and F per class (points) with the fold "
            "aggregations (marked lines)",
            _png(plot.folds(ds, zero_division=zero_division)),
        ),
        (
            "The five F aggregations side by side",
            _png(plot.methods(ds, zero_division=zero_division)),
        ),
    ]
    if CONFUSION in ds.data_vars or ds.attrs.get("task") == "binary":
        figs.append(
            (
                "Confusion matrix summed over folds (and repeats), normalised by true class",
                _png(plot.confusion(ds, normalize="true")),
            )
        )
    if scores is not None and ds.attrs.get("task") == "binary":
        rep = score_kwargs.get("repeat")
        first = scores if rep is None else scores[scores[rep] == scores[rep].iloc[0]]
        note = "" if rep is None else f" ({rep} {scores[rep].iloc[0]} of {scores[rep].nunique()})"
        figs.append(
            (
                f"Per-fold ROC curves and the merged one{note}",
                _png(plot.roc(first, pos_label=pos_label(ds), **score_kwargs)),
            )
        )
    return figs


def to_html(sections: list[tuple[dict[str, Any], list[tuple[str, str]]]]) -> str:
    """One page with a section per (content, figures) pair."""
    e = html.escape
    title = "; ".join(c["title"] for c, _ in sections)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>cvframe report: {e(title)}</title>",
        f"<style>{_CSS}</style></head><body>",
    ]
    if len(sections) > 1:
        parts.append(
            f"<h1>cvframe report</h1><p>{len(sections)} cubes: "
            + ", ".join(f'<a href="#s{i}">{e(c["title"])}</a>' for i, (c, _) in enumerate(sections))
            + "</p>"
        )
    for i, (c, figs) in enumerate(sections):
        parts.append(f'<section id="s{i}">')
        parts += _section(c, figs)
        parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _section(c: dict[str, Any], figs: list[tuple[str, str]]) -> list[str]:
    e = html.escape
    parts = [
        f"<h1>cvframe report: {e(c['title'])}</h1>",
        '<p class="meta">dims: '
        + e(", ".join(f"{k}={v}" for k, v in c["dims"].items()))
        + "<br>"
        + e(", ".join(f"{k}={v}" for k, v in c["attrs"].items()))
        + "</p>",
        f'<p class="meta">policy: zero_division={e(c["policy"]["zero_division"])}, '
        f"beta={c['policy']['beta']:g} &mdash; {e(c['policy']['meaning'])}</p>",
        *decision_html(c.get("decision")),
        f'<p class="rec">{e(c["recommendation"])}</p>',
        "<h2>Five aggregations of the same folds</h2>",
        _table(c["methods"], 4, "methods"),
    ]
    if c["class_averages"] is not None:
        parts += [
            "<h2>Averages over classes</h2>",
            _table(c["class_averages"], 4, "class-averages"),
        ]
    if c["auc"] is not None:
        parts += [
            "<h2>AUC_avg vs AUC_merge</h2>",
            '<p class="meta">AUC_merge mixes calibration into ranking; the Brier score '
            "(lower is better) measures calibration itself.</p>",
            _table(c["auc"], 4, "auc"),
        ]
    findings = c["findings"]
    parts.append(f"<h2>Findings ({len(findings)})</h2>")
    if len(findings):
        parts.append(
            f'<p class="meta">outlying_fold: exact binomial test of the fold\'s TP '
            f"against the pooled precision/recall, Bonferroni alpha={c['alpha']:g}; "
            f"methods_disagree: spread of the five F methods &gt; "
            f"{c['tolerance']:g}.</p>"
        )
        parts.append(_table(findings, 3, "findings"))
    else:
        parts.append("<p>None.</p>")
    if figs:
        parts.append("<h2>Plots</h2>")
        for caption, data in figs:
            parts.append(
                f'<figure><img alt="{e(caption)}" src="data:image/png;base64,{data}">'
                f"<figcaption>{e(caption)}</figcaption></figure>"
            )
    parts += [
        f"<h2>Per fold ({len(c['per_fold'])} rows)</h2>",
        "<details open><summary>every fold's counts and metrics</summary>",
        _table(c["per_fold"], 3, "per-fold"),
        "</details>",
    ]
    return parts
