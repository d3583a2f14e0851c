"""The report as text for the terminal, and as JSON: renderers of :func:`.content.content`."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

from .. import metrics
from ..schema import CLASS, FOLD, REPEAT
from ._common import plain
from .decision import decision_frame, decision_lines

__all__ = [
    "finding_kind",
    "finding_line",
    "findings_counts",
    "findings_lines",
    "n_findings",
    "fmt_frame",
    "fold_rows",
    "kept_columns",
    "numeric_columns",
    "averages_frame",
    "column_label",
    "summary_frame",
    "to_json",
    "to_text",
]

#: The heading of the table of every count metric (:func:`cvframe.tidy.metric_table`).
METRICS_TITLE = (
    "Every metric of the counts, pooled over the folds and averaged over them (macro over "
    "the classes of a multiclass cube)"
)
#: What the AUC table's note says of AUC_merge and the Brier score.
AUC_NOTE = "AUC_merge mixes calibration into ranking; the Brier score (lower is better) measures "
AUC_NOTE += "calibration itself"

#: Suffixes of the interval columns drawn next to their value: ``x [x_ci_low, x_ci_high]``.
LOW, HIGH = "_ci_low", "_ci_high"


def _cell(v: Any, digits: int, na: str) -> str:
    if _missing(v):
        return na
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.{digits}f}"
    return str(v)


def numeric_columns(frame: pd.DataFrame) -> set[str]:
    """The columns drawn as numbers (right-aligned): ints, floats and their intervals."""
    return {
        str(c)
        for c in frame.columns
        if pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
    }


def kept_columns(frame: pd.DataFrame) -> list[str]:
    """The columns :func:`fmt_frame` keeps (interval columns join their value's cell)."""
    cols = [str(c) for c in frame.columns]
    return [c for c in cols if not (c.endswith((LOW, HIGH)) and c.rsplit("_ci_", 1)[0] in cols)]


def fmt_frame(frame: pd.DataFrame, digits: int, na: str = "") -> pd.DataFrame:
    """The frame as text cells: every float of a column with ``digits`` decimals.

    ``0.7000`` next to ``0.5273``, never ``0.7``. A column ``x`` with ``x_ci_low`` and
    ``x_ci_high`` becomes one cell ``x [low, high]`` (just ``x`` where the interval is
    undefined). The F methods are renamed to the paper's names; NaN becomes ``na``.

    Examples
    --------
    >>> import pandas as pd
    >>> f = pd.DataFrame({"class": [1, 2], "f_tp_fp": [0.7, 0.52734],
    ...                   "f_tp_fp_ci_low": [0.6, None], "f_tp_fp_ci_high": [0.8, None]})
    >>> fmt_frame(f, 4).to_dict("list")
    {'class': ['1', '2'], 'F_tp,fp': ['0.7000 [0.6000, 0.8000]', '0.5273']}
    """
    out = pd.DataFrame(index=frame.index)
    cols = [str(c) for c in frame.columns]
    frame = frame.set_axis(cols, axis=1)
    for col in kept_columns(frame):
        cells = [_cell(v, digits, na) for v in frame[col].tolist()]
        if col + LOW in cols and col + HIGH in cols:
            lows = frame[col + LOW].tolist()
            highs = frame[col + HIGH].tolist()
            cells = [
                c
                if _cell(lo, digits, "") == "" or _cell(hi, digits, "") == ""
                else f"{c} [{_cell(lo, digits, '')}, {_cell(hi, digits, '')}]"
                for c, lo, hi in zip(cells, lows, highs, strict=True)
            ]
        out[col] = cells
    return out.rename(columns=column_label)


def column_label(column: str) -> str:
    """How a table heads a column: a metric spelled with its variant by its display name
    (:func:`cvframe.metrics.display`, the paper's tilde for a skip variant), its ``_sd``
    across repeats as ``<name> sd``; other columns as they are.

    >>> column_label("f_avg_skip"), column_label("f_tp_fp_sd"), column_label("auc_merge")
    ('~F_avg', 'F_tp,fp sd', 'AUC_merge')
    >>> column_label("f"), column_label("class")
    ('f', 'class')
    """
    base, sd = (column[:-3], " sd") if column.endswith("_sd") else (column, "")
    try:
        r = metrics.resolve(base)
    except ValueError:
        return column
    if r.variant is None or base != metrics.spelled(r.metric, r.variant):
        return column
    return metrics.display(r.metric, r.variant, tilde=True) + sd


def averages_frame(frame: pd.DataFrame, digits: int) -> pd.DataFrame:
    """The class averages as text, one row per average and one column per model (or other
    user-dim cell): narrow enough for intervals in every cell."""
    cells = fmt_frame(frame, digits)
    values = [c for c in kept_columns(frame) if pd.api.types.is_numeric_dtype(frame[c])]
    by = [c for c in kept_columns(frame) if c not in values and c != "kappa_band"]
    if "kappa_band" in cells.columns and "kappa" in cells.columns:
        cells["kappa"] = [
            f"{k} ({b})" for k, b in zip(cells["kappa"], cells["kappa_band"], strict=True)
        ]
        cells = cells.drop(columns="kappa_band")
    names = (
        [", ".join(str(v) for v in row) for row in frame[by].itertuples(index=False)]
        if by
        else ["value"]
    )
    out = pd.DataFrame({"average": values})
    for i, name in enumerate(names):
        out[name] = [cells[v].iloc[i] for v in values]
    return out


#: Columns of a findings table that say what was found (the others say where).
KIND = ("kind", "code")
TEXT = ("detail", "explanation", "fix", "message")
SEVERITY = "severity"
#: Columns of a grouped findings table: how many findings a line stands for, in which folds.
COUNT, FOLDS = "count", "folds"


def finding_kind(findings: pd.DataFrame) -> str | None:
    """The column naming each finding's kind (``code`` or ``kind``), if any."""
    return next((c for c in KIND if c in findings.columns), None)


def _missing(v: Any) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and not np.isfinite(v))


def finding_line(row: dict[str, Any]) -> str:
    """One finding as a text line: ``[where] severity kind: detail`` from whatever columns
    the findings table has; a grouped row (``count``, ``folds``) says how many folds it
    stands for: ``[model=b, class=1, folds 0-9] warning CV102 undefined_precision (10
    folds): ...``."""
    said = [k for k in (*KIND, SEVERITY, *TEXT, COUNT, FOLDS) if k in row]
    shown = [k for k, v in row.items() if k not in said and not _missing(v)]
    n = int(row[COUNT]) if COUNT in row and not _missing(row[COUNT]) else 1
    if FOLDS in row and not _missing(row[FOLDS]):  # where the fold column was: before class
        at = shown.index(CLASS) if CLASS in shown else len(shown)
        shown.insert(at, FOLDS)
    places = [
        (f"folds {row[k]}" if n > 1 else f"fold={row[k]}") if k == FOLDS else f"{k}={row[k]}"
        for k in shown
    ]
    where = ", ".join(places)
    kind = " ".join(str(row[k]) for k in KIND[::-1] if k in row and not _missing(row[k]))
    kind = (kind or "finding") + (f" ({n} folds)" if n > 1 and FOLDS in row else "")
    sev = f"{row[SEVERITY]} " if SEVERITY in row and not _missing(row[SEVERITY]) else ""
    text = "; ".join(str(row[k]) for k in TEXT if k in row and not _missing(row[k]))
    return f"  [{where}] {sev}{kind}: {text}" if where else f"  {sev}{kind}: {text}"


def findings_counts(findings: pd.DataFrame) -> str:
    """``2 undefined_precision, 1 methods_disagree`` (by kind, or by severity; a grouped
    table's rows count as many findings as their ``count``)."""
    col = finding_kind(findings) or (SEVERITY if SEVERITY in findings.columns else None)
    n_rows = n_findings(findings)
    if col is None:
        return f"{n_rows} findings"
    weight = findings[COUNT] if COUNT in findings.columns else pd.Series(1, findings.index)
    counts = weight.groupby(findings[col], sort=False).sum().sort_values(ascending=False)
    return ", ".join(f"{int(n)} {k}" for k, n in counts.items())


def n_findings(findings: pd.DataFrame) -> int:
    """How many findings a (grouped) findings table stands for."""
    return int(findings[COUNT].sum()) if COUNT in findings.columns else len(findings)


def _flagged(pf: pd.DataFrame, findings: pd.DataFrame) -> np.ndarray:
    """Mask of the per-fold rows named by a finding (a fold-level finding without a class
    flags every class of the fold)."""
    mask = np.zeros(len(pf), dtype=bool)
    if not len(findings) or FOLD not in findings.columns:
        return mask
    fold_level = findings[findings[FOLD].notna()]
    said = (*KIND, SEVERITY, *TEXT, CLASS)
    keys = [c for c in findings.columns if c not in said and c in pf]
    for _, row in fold_level.iterrows():
        hit = np.ones(len(pf), dtype=bool)
        for k in keys:
            hit &= (pf[k] == row[k]).to_numpy()
        if CLASS in row and row[CLASS] is not None:
            hit &= (pf[CLASS] == row[CLASS]).to_numpy()
        mask |= hit
    return mask


def fold_rows(
    pf: pd.DataFrame, findings: pd.DataFrame, max_rows: int
) -> tuple[pd.DataFrame, np.ndarray]:
    """The per-fold rows a report shows: those named by a finding first, then the others in
    order, at most ``max_rows``; and the mask of the shown rows that have a finding."""
    flagged = _flagged(pf, findings)
    order = np.r_[np.flatnonzero(flagged), np.flatnonzero(~flagged)][:max_rows]
    return pf.iloc[order], flagged[order]


def _shown(n: int, total: int, n_flagged: int) -> str:
    """``showing N of M rows`` (with the number of rows with a finding, shown first)."""
    head = f"showing {n} of {total} rows" if n < total else f"all {total} rows"
    if n_flagged:
        head += "; the row" if n_flagged == 1 else f"; the {n_flagged} rows"
        head += " with a finding first"
    return head


def _summary_lines(c: dict[str, Any]) -> list[str]:
    s = c["summary"]
    table = summary_frame(c)
    lines = [
        "Summary: the recommended number"
        + (" per model" if "model" in s.columns else "")
        + f" (value [{c['ci']:.0%} interval], the interval's method):",
        *("  " + line for line in fmt_frame(table, 4).to_string(index=False).splitlines()),
    ]
    lines += [f"  {method}: estimates {what}" for method, what in c.get("intervals", {}).items()]
    if "sd across repeats" in table.columns:
        lines.append(f"  ({c['spread']})")
    return lines


def summary_frame(c: dict[str, Any]) -> pd.DataFrame:
    """The headline table as shown: the interval joins the value's cell; the sd across
    repeats (named for what it is) only with two or more repeats."""
    s = c["summary"].rename(columns={"sd_repeats": "sd across repeats"})
    if s["repeats"].max() < 2:
        s = s.drop(columns=["sd across repeats"])
    return s.drop(columns=["repeats"])


def findings_lines(c: dict[str, Any], max_rows: int) -> list[str]:
    """The findings, right after the answer, grouped (one line per kind and place, with its
    count and folds): every column the findings table has."""
    findings = c["findings"]
    if not len(findings):
        return [
            "Findings: none (no undefined metrics, empty folds, absent classes, "
            "outlying folds or disagreeing methods)."
        ]
    n = n_findings(findings)
    lines_of = f" in {len(findings)} lines" if n > len(findings) else ""
    lines = [
        f"Findings ({n}{lines_of}: {findings_counts(findings)}; outlying = exact binomial "
        f"test vs pooled rates, Bonferroni alpha={c['alpha']:g}; methods_disagree = spread > "
        f"{c['tolerance']:g}):"
    ]
    shown = findings.head(max_rows)
    lines += [finding_line(row) for row in shown.to_dict("records")]
    if len(findings) > len(shown):
        lines.append(f"... and {len(findings) - len(shown)} more findings")
    return lines


def to_text(c: dict[str, Any], max_fold_rows: int) -> str:
    """One cube's report as text: the answer first (the decision, the headline numbers with
    their intervals), then the findings (grouped), the study's shape and policy, methods,
    class averages, AUC, folds; ending with the recommendation line."""
    lines = [f"cvframe report: {c['title']}", ""]
    d = c.get("decision")
    lead = decision_lines(d)
    if d and d["rows"]:
        table = fmt_frame(decision_frame(d), 4).to_string(index=False)
        lead += ["  " + line for line in table.splitlines()]
    lines += lead + ([""] if lead and lead[-1] else [])
    lines += [*_summary_lines(c), ""]
    lines += [*findings_lines(c, max_fold_rows), ""]
    lines += [
        "dims: "
        + ", ".join(f"{k}={v}" for k, v in c["dims"].items())
        + (
            "; " + ", ".join(f"{k}={v}" for k, v in c["attrs"].items() if k != "cvframe_version")
            if c["attrs"]
            else ""
        ),
        f"policy: zero_division={c['policy']['zero_division']}, "
        f"beta={c['policy']['beta']:g} ({c['policy']['meaning']})",
    ]
    findings = c["findings_all"]
    rep = c["methods_per_repeat"] is not None
    n_rep = c["dims"].get(REPEAT, 1)
    ci = (
        f"; [{c['ci']:.0%} spread across repeats' partitions, not an interval for the metric]"
        if rep and n_rep >= 2
        else ""
    )
    over = " (mean over repeats)" if rep else ""
    sd = f" (mean over {n_rep} repeats; F_tp,fp sd = sd of F_tp,fp across repeats)" if rep else ""
    lines += _block("Five aggregations of the same folds, per class" + sd, c["methods"])
    if c.get("metrics") is not None:
        lines += _block(METRICS_TITLE + over, c["metrics"])
    if c["class_averages"] is not None:
        title = "Averages over classes (fold_method tp_fp unless named; macro_f_avg_folds "
        title += "averages per-fold values)" + (f" (mean over repeats{ci})" if rep else "")
        lines += ["", title + ":", averages_frame(c["class_averages"], 4).to_string(index=False)]
    if c.get("multilabel") is not None:
        title = (
            "Multilabel metrics (scikit-learn's f1/jaccard average='samples', 'macro', "
            "'micro', accuracy_score = subset accuracy, hamming_loss; tp_fp = pooled over all "
            "tested samples, avg = mean of per-fold values)"
        )
        lines += _block(title + over, c["multilabel"])
    if c["auc"] is not None:
        title = "AUC_avg (mean of per-fold AUC) vs AUC_merge (one ROC over all folds' pooled "
        lines += _block(title + "scores)" + over, c["auc"], AUC_NOTE + ".")
    pf = c["per_fold"]
    shown, hit = fold_rows(pf, findings, max_fold_rows)
    lines += [
        "",
        f"Per fold ({_shown(len(shown), len(pf), int(hit.sum()))}; fold x class"
        + "".join(f" x {d}" for d in c["count_dims"] if d not in (FOLD, CLASS))
        + "; undefined precision/recall shown as the policy value; valid = both defined"
        + ("; the JSON report lists all" if len(shown) < len(pf) else "")
        + "):",
    ]
    if len(shown):
        lines.append(fmt_frame(shown, 3).to_string(index=False))
    lines += ["", c["recommendation"]]
    return "\n".join(lines) + "\n"


def _block(title: str, frame: pd.DataFrame, *note: str) -> list[str]:
    """A section of the text report: a blank line, its title, its notes, its table."""
    return ["", title + ":", *note, fmt_frame(frame, 4).to_string(index=False)]


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [
        {str(k): plain(v) for k, v in row.items()}
        for row in frame.astype(object).to_dict("records")
    ]


def to_json(c: dict[str, Any]) -> str:
    """One cube's report as strict JSON (NaN as null), in the order of the other formats:
    the title, the decision and the headline numbers with their intervals, then the findings
    grouped (``findings``: with ``count`` and ``folds``) and every finding
    (``findings_all``), then the tables."""
    out = {
        k: _records(v) if isinstance(v, pd.DataFrame) else v for k, v in c.items() if k != "plots"
    }
    return json.dumps(out, indent=1, allow_nan=False, default=plain)
