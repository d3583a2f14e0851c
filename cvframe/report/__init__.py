"""The apples-to-apples report of a counts cube: text for the terminal, JSON, or one HTML file.

The report composes the public API only: the five F aggregations per class, AUC_avg next to
AUC_merge when a predictions frame with scores is given, the class averages, every fold's
counts, the findings of :func:`cvframe.diagnostics.anomalies` and the ``zero_division``
policy that produced the numbers. :mod:`.content` computes each table once; :mod:`.text`
and :mod:`.html` draw them.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping
from typing import Any

import pandas as pd
import xarray as xr

from .. import _checks
from .._types import ZeroDivision
from ..errors import UndefinedMetricWarning, few, user_stacklevel, warn_undefined
from .content import RECOMMENDATION, content, undefined_cells
from .decision import decision
from .html import figures, to_html
from .text import to_json, to_text

__all__ = ["FORMATS", "RECOMMENDATION", "report"]

#: Output formats of :func:`report`.
FORMATS = ("text", "json", "html")


def _one_warning(
    caught: list[warnings.WarningMessage],
    sections: list[tuple[str, dict[str, Any], Any]],
    zero_division: Any,
) -> None:
    """Emit the UndefinedMetricWarnings the tables raised (``caught``) as one for the report.

    Other warnings pass through unchanged. The combined warning counts the (fold, class)
    cells of every section where precision or recall is undefined.
    """
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


def report(
    ds: xr.Dataset | Mapping[str, xr.Dataset],
    *,
    scores: pd.DataFrame | Mapping[str, pd.DataFrame] | None = None,
    format: str = "text",
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
    format = _checks.choice("format", format, FORMATS)
    _checks.zero_division(zero_division)
    beta = _checks.beta(beta)
    tolerance = _checks.real("tolerance", tolerance, 0.0)
    alpha = _checks.real("alpha", alpha, 0.0, 1.0, low_open=True, high_open=True)
    plots = _checks.flag("plots", plots)
    max_fold_rows = _checks.integer("max_fold_rows", max_fold_rows, low=0)
    score_kwargs: dict[str, Any] = {"y_true": y_true, "fold": fold, "score": score}
    several = isinstance(ds, Mapping) and not isinstance(ds, xr.Dataset)
    if several:
        cubes: dict[str, Any] = dict(ds)  # type: ignore[arg-type]
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
    for frame in frames.values():
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(
                f"scores must be a pandas DataFrame (a predictions frame with "
                f"score columns), got {type(frame).__name__}."
            )
    sections: list[tuple[str, dict[str, Any], list[tuple[str, str]]]] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for name, cube in cubes.items():
            sc = frames.get(name)
            kw = dict(
                score_kwargs, repeat=repeat if sc is not None and repeat in sc.columns else None
            )
            c = content(
                cube,
                sc,
                zero_division=zero_division,
                beta=beta,
                tolerance=tolerance,
                alpha=alpha,
                score_kwargs=kw,
            )
            c["decision"] = decision(cube, sc, beta=beta, zero_division=zero_division)
            figs = figures(cube, sc, zero_division, kw) if plots and format == "html" else []
            sections.append((name, c, figs))
    _one_warning(caught, sections, zero_division)
    if format == "text":
        return "\n\n".join(to_text(c, max_fold_rows) for _, c, _ in sections)
    if format == "json":
        if not several:
            return to_json(sections[0][1])
        return "{\n" + ",\n".join(f"{json.dumps(n)}: {to_json(c)}" for n, c, _ in sections) + "\n}"
    return to_html([(c, f) for _, c, f in sections])
