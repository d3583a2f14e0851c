"""The apples-to-apples report of a counts cube: text for the terminal, JSON, or one HTML file.

:func:`report` says what it holds and in which order. :mod:`.content` computes each table
once (:mod:`.headline` the headline intervals, :mod:`.decision` the one decision);
:mod:`.text` and :mod:`.html` draw them; :func:`html_with_figures` returns the page with its
PNGs (each plot drawn once), :func:`render` several formats of one computation.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pandas as pd
import xarray as xr

from .._core import checks as _checks
from .._core.labels.frame import is_dask_frame
from .._core.types import ZeroDivision
from ..errors import UndefinedMetricWarning, few, user_stacklevel, warn_undefined
from ..schema import CLASS
from .content import RECOMMENDATION, content, default_title, undefined_cells
from .html import Figure, draw_all, plot_workers, to_html
from .text import to_json, to_text

__all__ = ["FORMATS", "RECOMMENDATION", "Figure", "html_with_figures", "render", "report"]

#: Output formats of :func:`report`.
FORMATS = ("text", "json", "html")


def _one_warning(
    caught: list[warnings.WarningMessage],
    sections: list[tuple[str, dict[str, Any], Any]],
    zero_division: Any,
) -> None:
    """The UndefinedMetricWarnings the tables raised (``caught``) as one for the report,
    counting the (fold, class) cells where precision or recall is undefined; others as they are."""
    inner = [w for w in caught if issubclass(w.category, UndefinedMetricWarning)]
    for w in caught:
        if not issubclass(w.category, UndefinedMetricWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if not inner:
        return
    n_pr = n_re = n_cells = n_total = 0
    where = []
    for name, c, _ in sections:
        pr, re_, either, folds, classes = undefined_cells(c["per_fold"])
        n_pr, n_re, n_cells = n_pr + pr, n_re + re_, n_cells + either
        n_total += len(c["per_fold"])
        if either:
            where.append(
                (f"{name}: " if name else "") + f"fold={few(folds, 3)}, class={few(classes, 3)}"
            )
    fill = _checks.zero_division(zero_division)
    if n_cells:
        what = (
            f"in this report, precision or recall (precision {n_pr}: no predicted "
            f"positives; recall {n_re}: no positives)"
        )
        action = (
            f"set to {fill:g} in the per-fold table, F_avg, F_pr,re and the class "
            "averages; the ~ methods skip those folds "
            f"({len(inner)} warnings of the tables combined)"
        )
        warn_undefined(what, n_cells, n_total, "; ".join(where), action=action)
    else:  # undefined elsewhere (kappa, weighted averages): the tables' own words, once
        first = str(inner[0].message)
        more = (
            f" ({len(inner) - 1} more warnings of the report's tables combined)"
            if len(inner) > 1
            else ""
        )
        warnings.warn(first + more, UndefinedMetricWarning, stacklevel=user_stacklevel())


#: What ``n_jobs`` of :func:`render` and :func:`html_with_figures` takes.
_N_JOBS_FIX = "Give the processes that draw the plots: 1 (this one), 2, ... or -1 (one per core)."

#: The options :func:`report`, :func:`html_with_figures` and :func:`render` share.
_OPTIONS = (
    "scores title zero_division beta tolerance alpha max_fold_rows y_true fold repeat score"
).split()


def _cubes(ds: Any, scores: Any) -> tuple[bool, dict[str, Any], dict[str, Any]]:
    """Whether there are several cubes; the cubes and their predictions frames by name."""
    several = isinstance(ds, Mapping) and not isinstance(ds, xr.Dataset)
    if several:
        cubes: dict[str, Any] = dict(ds)
        if scores is not None and not isinstance(scores, Mapping):
            raise TypeError(
                "with several cubes, scores must be a mapping of the same names "
                "to predictions frames."
            )
        frames: dict[str, Any] = dict(scores or {})
        unknown = [k for k in frames if k not in cubes]
        if unknown:
            raise ValueError(
                f"scores has names {unknown!r} that are not among the cubes {list(cubes)!r}."
            )
    else:
        cubes, frames = {"": ds}, ({"": scores} if scores is not None else {})
    for name, cube in cubes.items():
        where = f"data[{name!r}]" if several else "ds"
        if isinstance(cube, pd.DataFrame):  # a predictions frame where the cube belongs
            raise TypeError(
                f"{where} is a pandas DataFrame; the report takes the counts cube: pass "
                "frame.cv.counts() (and scores=frame for the AUC and calibration tables)."
            )
        if is_dask_frame(cube):
            raise TypeError(
                f"{where} is a dask DataFrame; the report takes the counts cube: pass "
                "frame.cv.counts() (built lazily, partition by partition) and scores=frame."
            )
    for frame in frames.values():
        if not isinstance(frame, pd.DataFrame) and not is_dask_frame(frame):
            raise TypeError(
                f"scores must be a pandas DataFrame (a predictions frame with "
                f"score columns), got {type(frame).__name__}."
            )
    return several, cubes, frames


def _render(
    fmt: str,
    sections: list[tuple[str, dict[str, Any], list[Figure]]],
    several: bool,
    title: str | None,
    max_fold_rows: int,
) -> str:
    """The computed sections drawn in one format."""
    if fmt == "text":
        return "\n\n".join(to_text(c, max_fold_rows) for _, c, _ in sections)
    if fmt == "json":
        if not several:
            return to_json(sections[0][1])
        body = ",\n".join(f"{json.dumps(n)}: {to_json(c)}" for n, c, _ in sections)
        return "{\n" + body + "\n}"
    pairs = [(c, f) for _, c, f in sections]
    return to_html(pairs, title=title if several else None, max_fold_rows=max_fold_rows)


def report(
    ds: xr.Dataset | Mapping[str, xr.Dataset],
    *,
    scores: pd.DataFrame | Mapping[str, pd.DataFrame] | None = None,
    format: str = "text",
    title: str | None = None,
    zero_division: ZeroDivision = 0.0,
    beta: float = 1.0,
    tolerance: float = 0.05,
    alpha: float = 0.01,
    plots: bool = True,
    max_fold_rows: int = 40,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
) -> str:
    r"""The apples-to-apples report of a counts cube, as text, JSON or a self-contained HTML page.

    In this order, the answer first in every format: a **summary**: when the cube has a
    ``model`` dim with two or more models, which model is
    better -- the best by mean per-fold F (F_avg; macro F_avg for multiclass cubes) and each
    other model's difference of F_avg to it with its interval, p-value, effect size, the test
    ``cvframe.compare(ds, "f", test="auto")`` chose from the design and why, and one plain
    sentence a reviewer can paste ("... the interval includes 0: this data does not show rf
    to be better than lr."); F_tp,fp, pooled over the folds, has no per-fold values, and the
    report says how to test it on the predictions -- then each headline number (F_tp,fp, or
    macro F_tp,fp for multiclass cubes; AUC_merge when ``scores`` is given) with the 95%
    interval of :func:`cvframe.interval`, its method and what it estimates, and, with
    repeats, the sd across repeats, labelled as the spread across partitions (not an
    interval for the metric) -- in HTML the differences and the headline numbers side by
    side under the decision's first sentence, on the first screen; then the **findings** of
    :func:`cvframe.diagnostics.anomalies`, grouped by
    :func:`cvframe.diagnostics.group_findings` (one line per kind and place with its
    ``count`` and ``folds``; every column they have: severity, code, kind, where, detail,
    explanation; the JSON also lists every finding as ``findings_all``); the study's dims
    and the policy; the **five F aggregations** per class
    (:func:`cvframe.reduce.f_methods`; with repeats their mean and the sd of F_tp,fp); the
    **averages over classes** (macro, micro, weighted F, and kappa and accuracy when the cube
    has ``confusion``) of multiclass cubes, with their spread across repeats;
    AUC_avg next to AUC_merge when ``scores`` is given; in HTML the **plots** (every fold,
    the five methods, the confusion matrix, and the ROC curves -- one panel per class --
    when ``scores`` is given); then **every fold's** counts and metrics, the rows named by
    a finding first. The ``zero_division`` policy used is stated; the text ends with one
    line recommending F_tp,fp with the reason. Numbers of a column share their decimals
    (4 for metrics, 3 per fold); JSON keeps full floats.

    Parameters
    ----------
    ds : xarray.Dataset or mapping of str to Dataset
        A counts cube, or several by name (one part each, in one page).
    scores : pandas.DataFrame or mapping of str to DataFrame, optional
        The predictions frame the cube came from, with score columns (``score`` for
        binary, ``score_<label>`` per class): adds the AUC table (and the ROC curves in
        HTML). A ``model`` column is respected (one AUC row per model). With a mapping of
        cubes, a mapping with (some of) the same names.
    format : {"text", "json", "html"}, default "text"
        ``"html"`` is one self-contained page (plots embedded as base64 PNG, no external
        resources) that reads well at 1400 px: the per-fold table collapsed. ``"json"`` is
        machine-readable (NaN as null, full floats).
    title : str, optional
        The report's heading. Default: the cube's ``source`` (or ``title``) attr, else a
        description of its shape; with several cubes, the page heading (each part is titled
        by its name and source).
    zero_division : {"warn", 0.0, 1.0, np.nan}, default 0.0
        Policy for undefined precision/recall (the paper's 0). The report states it.
        ``"warn"`` uses 0 and emits one :class:`~cvframe.UndefinedMetricWarning` for the
        whole report, counting the (fold, class) cells where precision or recall is
        undefined.
    beta : float, default 1
    tolerance : float, default 0.05
        Spread of the five F methods above which ``methods_disagree`` is reported.
    alpha : float, default 0.01
        Family-wise false-alarm rate of the ``outlying_fold`` tests, in (0, 1).
    plots : bool, default True
        Embed the plots in the HTML report.
    max_fold_rows : int, default 40
        At most this many per-fold rows (and findings) are listed in the text and HTML
        reports, the rows named by a finding first ("showing N of M rows"); JSON lists all.
    y_true, fold, repeat, score : str
        Column names of ``scores``.

    Returns
    -------
    str

    See Also
    --------
    html_with_figures : the HTML page and its PNGs, to write both without drawing twice.

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
    given = locals()
    format = _checks.choice("format", format, FORMATS)
    return render(ds, formats=[format], **{k: given[k] for k in (*_OPTIONS, "plots")})[0][format]


def html_with_figures(
    data: xr.Dataset | Mapping[str, xr.Dataset],
    *,
    scores: pd.DataFrame | Mapping[str, pd.DataFrame] | None = None,
    title: str | None = None,
    zero_division: ZeroDivision = 0.0,
    beta: float = 1.0,
    tolerance: float = 0.05,
    alpha: float = 0.01,
    max_fold_rows: int = 40,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
    n_jobs: int = 1,
) -> tuple[str, list[tuple[str, Figure]]]:
    """The HTML report and its plots as PNG bytes, each plot drawn once.

    ``report(..., format="html")`` is the page; this also returns the PNGs it embeds, so
    that a caller (``cvframe demo``) writes them to disk without drawing them again.

    Parameters
    ----------
    data : xarray.Dataset or mapping of str to Dataset
        As ``ds`` of :func:`report`.
    scores, title, zero_division, beta, tolerance, alpha, max_fold_rows, y_true, fold, \
repeat, score :
        As in :func:`report`.
    n_jobs : int, default 1
        As in :func:`render`.

    Returns
    -------
    page : str
        The self-contained HTML page.
    figures : list of (str, Figure)
        The cube's name ("" for a single cube) and a
        :class:`cvframe.report.html.Figure` ``(name, caption, png)`` per plot, in page
        order; ``f"{cube}_{figure.name}.png"`` is a file name.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import cvframe
    >>> from cvframe.report import html_with_figures
    >>> page, figs = html_with_figures({"t2": cvframe.datasets.table2()})
    >>> [f"{cube}_{f.name}.png" for cube, f in figs]
    ['t2_folds.png', 't2_methods.png', 't2_confusion.png']
    >>> page.count("<img"), page.startswith("<!DOCTYPE html>")
    (3, True)
    """
    given = locals()
    pages, figs = render(data, formats=["html"], **{k: given[k] for k in (*_OPTIONS, "n_jobs")})
    return pages["html"], figs


def render(
    data: xr.Dataset | Mapping[str, xr.Dataset],
    *,
    formats: Sequence[str] = ("text", "html"),
    scores: pd.DataFrame | Mapping[str, pd.DataFrame] | None = None,
    title: str | None = None,
    zero_division: ZeroDivision = 0.0,
    beta: float = 1.0,
    tolerance: float = 0.05,
    alpha: float = 0.01,
    plots: bool = True,
    max_fold_rows: int = 40,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
    n_jobs: int = 1,
) -> tuple[dict[str, str], list[tuple[str, Figure]]]:
    """The report computed once and rendered in several formats, with its plots.

    :func:`report` renders one format; this computes every table (and draws every plot)
    once and renders each of ``formats`` from them: the text for the terminal and the
    HTML page for a file, as ``cvframe demo`` writes them.

    Parameters
    ----------
    data : xarray.Dataset or mapping of str to Dataset
        As ``ds`` of :func:`report`.
    formats : sequence of {"text", "json", "html"}, default ("text", "html")
        The formats to render.
    scores, title, zero_division, beta, tolerance, alpha, plots, max_fold_rows, y_true, \
fold, repeat, score :
        As in :func:`report`.
    n_jobs : int, default 1
        Processes that draw the plots (-1: one per core): with more than one, on more than
        one core where the ``fork`` start method exists and matplotlib's backend is Agg,
        each plot is drawn in a forked process (nothing is imported again) and its PNG
        returned; else, or with 1, here. The PNGs are the same either way; the tables are
        computed here, once.

    Returns
    -------
    reports : dict of str to str
        The report in each of ``formats``, by format.
    figures : list of (str, Figure)
        As in :func:`html_with_figures`; empty without ``"html"`` or with ``plots=False``.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import cvframe
    >>> from cvframe.report import render
    >>> out, figs = render(cvframe.datasets.table2())
    >>> out["text"] == cvframe.report.report(cvframe.datasets.table2())
    True
    >>> out["html"].count("<img"), [f.name for _, f in figs]
    (3, ['folds', 'methods', 'confusion'])
    """
    formats = [formats] if isinstance(formats, str) else list(formats)
    if not formats:
        raise ValueError(f"formats is empty: pass some of {list(FORMATS)}.")
    formats = [_checks.choice("formats", f, FORMATS) for f in formats]
    draw_plots = _checks.flag("plots", plots) and "html" in formats
    _checks.zero_division(zero_division)
    beta = _checks.beta(beta)
    tolerance = _checks.real("tolerance", tolerance, 0.0)
    alpha = _checks.real("alpha", alpha, 0.0, 1.0, low_open=True, high_open=True)
    max_fold_rows = _checks.integer("max_fold_rows", max_fold_rows, low=0)
    if title is not None and not isinstance(title, str):
        raise TypeError(
            f"title={title!r} must be a str (the page's heading), or None for the cube's "
            "source or name."
        )
    n_jobs = _checks.integer("n_jobs", n_jobs, low=-1, fix=_N_JOBS_FIX)
    if n_jobs == 0:
        raise ValueError(f"n_jobs=0 draws nothing. {_N_JOBS_FIX}")
    several, cubes, frames = _cubes(data, scores)
    kw = {"y_true": y_true, "fold": fold, "score": score, "repeat": repeat}
    opts: dict[str, Any] = {"zero_division": zero_division, "beta": beta, "tolerance": tolerance}
    opts.update(alpha=alpha, score_kwargs=kw, draw=draw_plots)
    workers = plot_workers(n_jobs, len(cubes)) if draw_plots else 1
    names = list(cubes)
    if workers > 1:  # the cube with the most classes first: its plots take longest
        names.sort(key=lambda n: -int(cubes[n].sizes.get(CLASS, 1)))
    contents: dict[str, dict[str, Any]] = {}

    def computed() -> Iterator[dict[str, Any]]:
        for name in names:
            cube = cubes[name]
            named = title if not several else default_title(cube, name)
            contents[name] = content(cube, frames.get(name), title=named, **opts)
            yield contents[name]

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if draw_plots:  # with processes, one cube's plots are drawn while the next is computed
            drawn = dict(zip(names, draw_all(computed(), workers), strict=True))
        else:
            drawn, _ = {}, list(computed())
    sections = [(n, contents[n], drawn.get(n, [])) for n in cubes]
    _one_warning(caught, sections, zero_division)
    figs = [(name, f) for name, _, fs in sections for f in fs]
    return {fmt: _render(fmt, sections, several, title, max_fold_rows) for fmt in formats}, figs
