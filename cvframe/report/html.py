"""The report as one self-contained HTML page: tables and plots embedded, no external resource.

The page reads top to bottom at 1400 px, in the order of :func:`cvframe.report.report`, the
per-fold table collapsed. :func:`figures` draws each plot once, as PNG bytes that the page
embeds and a caller can write to disk; :func:`draw_all` draws the plots of several reports
in forked processes, one per core.
"""

from __future__ import annotations

import base64
import contextlib
import html
import io
import itertools
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import xarray as xr

from .. import metrics
from ..schema import CLASS
from ._common import fork_workers, forked
from .content import content
from .decision import decision_frame, decision_html
from .headline import HEADLINE
from .text import (
    AUC_NOTE,
    METRICS_TITLE,
    averages_frame,
    findings_counts,
    fmt_frame,
    fold_rows,
    kept_columns,
    n_findings,
    numeric_columns,
    summary_frame,
)

__all__ = [
    "DPI",
    "MAX_WIDTH_PX",
    "Figure",
    "draw",
    "draw_all",
    "figures",
    "plot_workers",
    "to_html",
]

#: Resolution of the report's PNGs: 10 pt text is 14 px on screen at their natural size.
DPI = 100
#: Widest PNG the page shows at its natural size (the page's content width at 1400 px).
MAX_WIDTH_PX = 1200
#: Smallest resolution a too-wide figure is saved at (10 pt text stays >= 11 px).
_MIN_DPI = 80

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:1.5em auto;
max-width:1240px;color:#222;line-height:1.4;padding:0 20px;font-size:15px}
h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.2em;margin-top:1.4em;
border-bottom:1px solid #ddd}h3{font-size:1.05em;margin:.6em 0 .3em}
table{border-collapse:collapse;font-size:.9em;margin:.4em 0;font-variant-numeric:tabular-nums}
th,td{border:1px solid #ccc;padding:.15em .5em;text-align:left}
th{background:#f3f3f3;white-space:nowrap}td.num,th.num{text-align:right;white-space:nowrap}
tr.hit td{background:#fff3cd}
.summary{background:#f4f8fc;border:1px solid #c9d9ea;border-radius:4px;padding:.2em 1em .6em}
.summary h2{border:none;margin-top:.4em}
.lead{font-size:1.05em;font-weight:600}
.tables{display:flex;flex-wrap:wrap;gap:.2em 2em;align-items:flex-start}
.tables .meta{margin:.2em 0}
.rec{background:#eef6ee;border-left:4px solid #4a4;padding:.4em 1em;font-size:.9em}
.findings{background:#fffbe6;border:1px solid #f0d58a;border-radius:4px;padding:.2em 1em .6em}
.findings h2{border:none;margin-top:.4em}
.meta{color:#555;font-size:.9em}
img{max-width:100%;height:auto;border:1px solid #eee;display:block}
.figures{display:flex;flex-wrap:wrap;gap:1em 1.5em;align-items:flex-start}
figure{margin:0;display:table;max-width:100%}figcaption{display:table-caption;caption-side:bottom;
color:#555;font-size:.9em}
details>summary{cursor:pointer;color:#245;font-weight:600;margin:.4em 0}
"""


class Figure(NamedTuple):
    """One plot of the report: ``name`` (for a file name), ``caption`` and the PNG bytes."""

    name: str
    caption: str
    png: bytes

    @property
    def size(self) -> tuple[int, int]:
        """Width and height of the PNG in pixels (read from its header)."""
        return int.from_bytes(self.png[16:20], "big"), int.from_bytes(self.png[20:24], "big")


def _fit(obj: Any, k: float) -> Any:
    """The figure of ``obj`` narrower by ``k`` < 1 and laid out again (fonts keep their
    size); as it is for ``k >= 1``."""
    fig = getattr(obj, "figure", obj)
    fig = getattr(fig, "figure", fig)
    if k < 1:
        w, h = fig.get_size_inches()
        fig.set_size_inches(w * k, h * max(k, 0.75))
        layout = getattr(obj, "tight_layout", None)  # FacetGrid re-lays its legend out
        try:
            (layout or fig.tight_layout)()
        except (ValueError, RuntimeError):  # pragma: no cover - matplotlib gave up
            pass
    return fig


def _tight(fig: Any, dpi: float) -> tuple[Any, int]:
    """The area ``savefig(bbox_inches="tight")`` saves of ``fig`` at ``dpi`` (inches, padded)
    and its width in pixels, from a layout pass alone (nothing rasterised, no PNG encoded)."""
    import matplotlib as mpl

    old = fig.dpi
    fig.dpi = dpi  # as savefig sets it: text extents depend on the resolution
    try:
        fig.draw_without_rendering()
        pad = mpl.rcParams["savefig.pad_inches"]
        box = fig.get_tightbbox().padded(pad, pad)
    finally:
        fig.dpi = old
    return box, int(box.width * dpi)


def _png(obj: Any, max_px: int = MAX_WIDTH_PX) -> bytes:
    """The figure of ``obj`` (Axes, Figure or FacetGrid) as PNG no wider than ``max_px``.

    A wider figure is saved at a lower resolution, never below :data:`_MIN_DPI`; only one
    too wide even then is laid out narrower (a shrunk layout could put cell numbers and tick
    labels on top of one another). The resolution is found from layout passes alone (the
    area ``bbox_inches="tight"`` would save); the figure is rasterised and encoded once."""
    import matplotlib.pyplot as plt

    fig = _fit(obj, 1.0)
    dpi: float = DPI
    box, width = _tight(fig, dpi)
    for _ in range(4):
        if width <= max_px:
            break
        dpi *= 0.995 * max_px / width  # text extents are not quite linear in the resolution
        if dpi < _MIN_DPI:
            fig = _fit(obj, 0.98 * dpi / _MIN_DPI)
            dpi = _MIN_DPI
        box, width = _tight(fig, dpi)
    rc = plt.rcParams
    if not (rc["figure.autolayout"] or rc["figure.constrained_layout.use"]):
        fig.set_layout_engine(None)  # laid out at this dpi by _tight: savefig need not redo it
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches=box)  # the area "tight" saves
    plt.close(fig)
    return _small(buf.getvalue())


def _small(png: bytes) -> bytes:
    """The PNG with a 256-colour palette (a third of the bytes; plots have few colours)."""
    from PIL import Image  # a dependency of matplotlib

    img = Image.open(io.BytesIO(png)).convert("RGB")
    out = io.BytesIO()
    img.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
        out, format="png", optimize=True
    )
    return out.getvalue() if out.tell() < len(png) else png


class _Plot(NamedTuple):
    """One plot to draw: its :class:`Figure` name (that of the :mod:`cvframe.plot` function
    drawing it) and caption, and the call's arguments (frames, picklable for another process)."""

    name: str
    caption: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


def _plots(c: dict[str, Any]) -> list[_Plot]:
    """The plots of one cube's report, in page order, from the frames ``c["plots"]``."""
    frames = c["plots"]
    kw = {"methods": frames["lines"], **{k: frames[k] for k in ("beta", "zero_division")}}
    folds = "Every fold's precision, recall and F per class (points) with the fold "
    out = [
        _Plot("folds", folds + "aggregations (marked lines)", (frames["folds"],), kw),
        _Plot("methods", "The five F aggregations side by side", (frames["methods"],), {}),
    ]
    if frames["confusion"] is not None:
        what = "Confusion matrix summed over folds (and repeats), normalised by true class"
        out.append(_Plot("confusion", what, (frames["confusion"],), {"normalize": "true"}))
    roc = frames["roc"]
    if roc is not None:
        k = c["dims"].get(CLASS, 1)
        several = c["attrs"].get("task") != "binary" and k > 1
        # three panels a row: each has its legend beside it
        size: dict[str, Any] = (
            {"col_wrap": min(k, 3), "height": 2.8} if several else {"height": 3.5}
        )
        what = "Per-fold ROC curves and the merged one" + (
            ", one panel per class" if several else ""
        )
        out.append(_Plot("roc", what + frames["roc_note"], (roc,), size))
    return out


def _drawn(p: _Plot) -> Figure:
    from .. import plot

    return Figure(p.name, p.caption, _png(getattr(plot, p.name)(*p.args, **p.kwargs)))


def draw(c: dict[str, Any]) -> list[Figure]:
    """The plots of one cube's report (those :func:`figures` lists), drawn from the frames
    :func:`.content.content` computed (``c["plots"]``, ``content(..., draw=True)``)."""
    return [_drawn(p) for p in _plots(c)]


def plot_workers(n_jobs: int, cubes: int) -> int:
    """How many processes :func:`draw_all` should draw the plots of ``cubes`` reports in, for
    ``n_jobs`` (:func:`._common.fork_workers`): 1 unless matplotlib's backend is Agg (a file
    backend: no window to share with a child)."""
    import matplotlib

    workers = fork_workers(n_jobs, 4 * cubes)  # at most four plots a cube
    return workers if workers > 1 and matplotlib.get_backend().lower() == "agg" else 1


def draw_all(contents: Iterable[dict[str, Any]], workers: int = 1) -> list[list[Figure]]:
    """The plots of several cubes' reports (:func:`draw` of each), drawn in parallel.

    With ``workers`` > 1 (:func:`plot_workers`), each plot is drawn in one of ``workers``
    forked processes (:func:`._common.forked`), in the order of ``contents``: give the cube
    with the most classes first (its plots take longest). ``contents`` may be an iterator
    that computes them: the plots of one cube are drawn while the next is computed. With 1,
    or if a process dies, the plots are drawn here. The PNGs are the same either way.
    """
    plots: list[list[_Plot]] = []

    def each() -> Iterator[_Plot]:
        for c in contents:
            plots.append(_plots(c))
            yield from plots[-1]

    todo = each()
    done = None
    if workers > 1:
        import matplotlib.pyplot  # noqa: F401  what drawing imports, once, before the fork
        from PIL import Image  # noqa: F401

        from .. import plot  # noqa: F401

        with contextlib.suppress(ImportError):  # the plots say what to install
            import seaborn  # noqa: F401
        done = forked(_drawn, todo, workers)
    if done is None:  # here: as each content comes (all of them, if a process died)
        handed_on = [p for ps in plots for p in ps]
        done = [_drawn(p) for p in itertools.chain(handed_on, todo)]
    out, start = [], 0
    for ps in plots:
        out.append(done[start : start + len(ps)])
        start += len(ps)
    return out


def figures(
    ds: xr.Dataset,
    scores: pd.DataFrame | None = None,
    *,
    zero_division: Any = 0.0,
    beta: float = 1.0,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
) -> list[Figure]:
    """The plots of one cube's report, each drawn once, as PNG bytes with their captions.

    The plots of :mod:`cvframe.plot`: every fold (``folds``), the five methods
    (``methods``), the confusion matrix (``confusion``, when the cube has one) and, when
    ``scores`` (the predictions frame with score columns) is given, the ROC curves (``roc``:
    per-fold curves and the merged one, one panel per class, of the first repeat). They draw
    the tables of :func:`cvframe.report.content.content`. PNGs are drawn at :data:`DPI` and
    no wider than :data:`MAX_WIDTH_PX`, so that the report shows them at their natural size
    with legible text. ``cvframe demo`` writes the same PNGs to disk.

    Parameters
    ----------
    ds : xarray.Dataset
        A counts cube.
    scores : pandas.DataFrame, optional
        Its predictions frame with score columns.
    zero_division, beta :
        As in :func:`cvframe.report.report`.
    y_true, fold, repeat, score : str
        Column names of ``scores``.

    Returns
    -------
    list of Figure
        ``(name, caption, png)`` named tuples; ``name`` is one of ``folds``, ``methods``,
        ``confusion``, ``roc``.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import cvframe
    >>> from cvframe.report.html import figures
    >>> figs = figures(cvframe.datasets.table2())
    >>> [f.name for f in figs], figs[0].png[:4] == b"\\x89PNG", figs[0].size[0] <= MAX_WIDTH_PX
    (['folds', 'methods', 'confusion'], True, True)
    """
    kw = {"y_true": y_true, "fold": fold, "score": score, "repeat": repeat}
    opts: dict[str, Any] = {"tolerance": 0.05, "alpha": 0.01, "score_kwargs": kw, "draw": True}
    return draw(content(ds, scores, zero_division=zero_division, beta=beta, **opts))


def _table(frame: pd.DataFrame | None, digits: int, cls: str, hit: np.ndarray | None = None) -> str:
    """A table with fixed decimals per column, numbers right-aligned, ``hit`` rows marked."""
    if frame is None:
        return ""
    shown = fmt_frame(frame, digits)
    num = numeric_columns(frame)
    return _cells(shown, ["num" if c in num else "" for c in kept_columns(frame)], cls, hit)


def _cells(shown: pd.DataFrame, aligned: list[str], cls: str, hit: np.ndarray | None = None) -> str:
    """A table of text cells; ``aligned`` gives each column's class ("num": right)."""
    e = html.escape
    head = "".join(
        f'<th class="{a}">{e(str(lab))}</th>' if a else f"<th>{e(str(lab))}</th>"
        for lab, a in zip(shown.columns, aligned, strict=True)
    )
    rows = []
    for i, values in enumerate(shown.itertuples(index=False)):
        cells = "".join(
            f'<td class="{a}">{e(str(v))}</td>' if a else f"<td>{e(str(v))}</td>"
            for v, a in zip(values, aligned, strict=True)
        )
        mark = ' class="hit"' if hit is not None and hit[i] else ""
        rows.append(f"<tr{mark}>{cells}</tr>")
    return (
        f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>'
        + "\n".join(rows)
        + "</tbody></table>"
    )


def _averages(frame: pd.DataFrame) -> str:
    shown = averages_frame(frame, 4)
    return _cells(shown, [""] + ["num"] * (shown.shape[1] - 1), "class-averages")


def _img(f: Figure) -> str:
    e = html.escape
    w, h = f.size
    data = base64.b64encode(f.png).decode("ascii")
    return (
        f'<figure><img alt="{e(f.caption)}" width="{w}" height="{h}" '
        f'src="data:image/png;base64,{data}"><figcaption>{e(f.caption)}</figcaption></figure>'
    )


def to_html(
    sections: list[tuple[dict[str, Any], list[Figure]]],
    *,
    title: str | None = None,
    max_fold_rows: int = 40,
) -> str:
    """One page with a part per (content, figures) pair; ``title`` heads a page of several."""
    e = html.escape
    if title is None:
        title = "; ".join(c["title"] for c, _ in sections)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>cvframe report: {e(title)}</title>",
        f"<style>{_CSS}</style></head><body>",
    ]
    several = len(sections) > 1
    if several:
        parts.append(
            f"<h1>cvframe report: {e(title)}</h1><p>{len(sections)} cubes: "
            + ", ".join(f'<a href="#s{i}">{e(c["title"])}</a>' for i, (c, _) in enumerate(sections))
            + "</p>"
        )
    for i, (c, figs) in enumerate(sections):
        parts.append(f'<article id="s{i}">')
        parts += _part(c, figs, max_fold_rows, level=2 if several else 1)
        parts.append("</article>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _summary(c: dict[str, Any]) -> list[str]:
    e = html.escape
    s = c["summary"]
    n = int(s["repeats"].max()) if len(s) else 1
    metric = str(s["metric"].iloc[0]) if len(s) else metrics.display(HEADLINE, "tp_fp")
    d = c.get("decision")
    legend = "".join(
        f"<li><b>{e(method)}</b>: estimates {e(what)}</li>"
        for method, what in c.get("intervals", {}).items()
    )
    said = decision_html(d)
    # the numbers right under the decision's one-line lead, side by side: the differences
    # and the headline numbers with their intervals stay on the first screen; the decision's
    # sentences, the test's reason and the intervals' estimands follow
    cut = next((i + 1 for i, x in enumerate(said) if x.startswith('<p class="lead">')), 0)
    tables = [
        '<div class="tables">',
        '<div class="decision-numbers">'
        + f'<p class="meta">Each model against the best, with the {c["ci"]:.0%} interval of '
        "the difference:</p>" + _table(decision_frame(d), 4, "decision-table") + "</div>"
        if d and d["rows"]
        else "",
        '<div class="headline">'
        + f'<p class="meta">The recommended number, {e(metric)}'
        + (" per model" if "model" in s.columns else "")
        + f", with its {c['ci']:.0%} interval and the interval's method:</p>"
        + _table(summary_frame(c), 4, "summary-table")
        + "</div>",
        "</div>",
    ]
    return [
        '<section class="summary" id="summary">',
        "<h2>Summary</h2>",
        *said[:cut],
        *tables,
        *said[cut:],
        f'<ul class="meta intervals">{legend}</ul>' if legend else "",
        f'<p class="meta">{e(c["spread"])} ({n} repeats).</p>' if n >= 2 else "",
        f'<p class="rec">{e(c["recommendation"])}</p>',
        "</section>",
    ]


def _findings(c: dict[str, Any], max_rows: int) -> list[str]:
    findings = c["findings"]
    n = n_findings(findings)
    lines = f" in {len(findings)} lines" if n > len(findings) else ""
    parts = ['<section class="findings" id="findings">', f"<h2>Findings ({n}{lines})</h2>"]
    if not len(findings):
        return parts + [
            "<p>None: no undefined metrics, empty folds, absent classes, outlying folds or "
            "disagreeing methods.</p>",
            "</section>",
        ]
    parts.append(f"<p>{html.escape(findings_counts(findings))}</p>")
    parts.append(
        f'<p class="meta">outlying_fold: exact binomial test of the fold\'s TP '
        f"against the pooled precision/recall, Bonferroni alpha={c['alpha']:g}; "
        f"methods_disagree: spread of the five F methods &gt; "
        f"{c['tolerance']:g}.</p>"
    )
    first = findings.head(max(1, min(max_rows, 10)))
    parts.append(_table(first, 3, "findings-table"))
    if len(findings) > len(first):
        parts += [
            f"<details><summary>all {len(findings)} findings (showing "
            f"{len(first)} above)</summary>",
            _table(findings.head(max(max_rows, len(first))), 3, "findings-table"),
            (
                f'<p class="meta">showing {min(max_rows, len(findings))} of '
                f"{len(findings)} findings (max_fold_rows); the JSON report lists all.</p>"
                if len(findings) > max_rows
                else ""
            ),
            "</details>",
        ]
    parts.append("</section>")
    return parts


def _section(cls: str, title: str, meta: str, body: str) -> list[str]:
    """One section of a cube's part: its heading, a note (none when empty), its body."""
    note = f'<p class="meta">{meta}</p>' if meta else ""
    return [f'<section class="{cls}">', f"<h2>{html.escape(title)}</h2>", note, body, "</section>"]


def _part(c: dict[str, Any], figs: list[Figure], max_fold_rows: int, level: int) -> list[str]:
    e = html.escape
    rep = c["methods_per_repeat"] is not None
    n_rep = c["dims"].get("repeat", 1)
    h = f"h{level}"
    parts = [  # the answer first: the decision and the headline numbers, then the findings
        f"<{h}>cvframe report: {e(c['title'])}</{h}>",
        *_summary(c),
        *_findings(c, max_fold_rows),
        '<p class="meta">dims: '
        + e(", ".join(f"{k}={v}" for k, v in c["dims"].items()))
        + (" &mdash; " + e(", ".join(f"{k}={v}" for k, v in c["attrs"].items())))
        + f"<br>policy: zero_division={e(c['policy']['zero_division'])}, "
        f"beta={c['policy']['beta']:g} &mdash; {e(c['policy']['meaning'])}</p>",
        *_section(
            "methods",
            "Five aggregations of the same folds",
            f"Mean over {n_rep} repeats; F_tp,fp sd: sd of F_tp,fp across repeats." if rep else "",
            _table(c["methods"], 4, "methods"),
        ),
    ]
    over = f"; mean over {n_rep} repeats" if rep else ""
    if c.get("metrics") is not None:
        meta = f"mean over {n_rep} repeats; pooled_sd: sd across repeats" if rep else ""
        parts += _section("metrics", METRICS_TITLE, meta, _table(c["metrics"], 4, "metrics"))
    if c["class_averages"] is not None:
        spread = (
            f"; mean over {n_rep} repeats [{c['ci']:.0%} spread across the repeats' "
            "partitions, not an interval for the metric]"
            if rep and n_rep >= 2
            else ""
        )
        meta = (
            f"fold method tp_fp unless named; macro_f_avg_folds averages per-fold values{spread}."
        )
        parts += _section(
            "class-averages", "Averages over classes", meta, _averages(c["class_averages"])
        )
    if c.get("multilabel") is not None:
        meta = (
            "scikit-learn's f1/jaccard average='samples', 'macro', 'micro', subset accuracy "
            "(accuracy_score), hamming_loss; tp_fp: pooled over all tested samples, avg: mean "
            f"of per-fold values{over}."
        )
        parts += _section(
            "multilabel", "Multilabel metrics", meta, _table(c["multilabel"], 4, "multilabel")
        )
    if c["auc"] is not None:
        parts += _section(
            "auc", "AUC_avg vs AUC_merge", AUC_NOTE + over + ".", _table(c["auc"], 4, "auc")
        )
    if figs:
        parts += ['<section class="plots">', "<h2>Plots</h2>"]
        parts += ['<div class="figures">', *(_img(f) for f in figs), "</div>"]
        parts.append("</section>")
    pf = c["per_fold"]
    shown, hit = fold_rows(pf, c["findings_all"], max_fold_rows)
    n_hit = int(hit.sum())
    note = f"showing {len(shown)} of {len(pf)} rows" if len(shown) < len(pf) else f"{len(pf)} rows"
    if n_hit:
        note += f"; the {n_hit} with a finding first, highlighted"
    parts += [
        '<section class="per-fold">',
        f"<h2>Per fold ({e(note)})</h2>",
        "<details><summary>every fold's counts and metrics"
        + (
            " (max_fold_rows caps the table; the JSON report lists all)"
            if len(shown) < len(pf)
            else ""
        )
        + "</summary>",
        _table(shown, 3, "per-fold", hit),
        "</details>",
        "</section>",
    ]
    return parts
