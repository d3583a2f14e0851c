"""The report as text for the terminal, and as JSON: renderers of :func:`.content.content`."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

from ..schema import CLASS, FOLD, REPEAT
from ..tidy import METHOD_LABELS
from .content import plain
from .decision import decision_lines

__all__ = ["fmt_frame", "to_json", "to_text"]


def fmt_frame(frame: pd.DataFrame, digits: int) -> pd.DataFrame:
    """Floats rounded to ``digits`` and the F methods under the paper's names."""
    out = frame.copy()
    for col in out.columns:
        if pd.api.types.is_float_dtype(out[col]):
            out[col] = out[col].round(digits)
    return out.rename(columns=METHOD_LABELS)


def _finding_line(row: dict[str, Any]) -> str:
    where = ", ".join(
        f"{k}={v}" for k, v in row.items() if k not in ("kind", "detail") and v is not None
    )
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


def to_text(c: dict[str, Any], max_fold_rows: int) -> str:
    """One cube's report as text (ends with the recommendation line)."""
    lines = [
        f"cvframe report: {c['title']}",
        "dims: "
        + ", ".join(f"{k}={v}" for k, v in c["dims"].items())
        + (
            "; " + ", ".join(f"{k}={v}" for k, v in c["attrs"].items() if k != "cvframe_version")
            if c["attrs"]
            else ""
        ),
        f"policy: zero_division={c['policy']['zero_division']}, "
        f"beta={c['policy']['beta']:g} ({c['policy']['meaning']})",
        "",
    ]
    lines += decision_lines(c.get("decision"))
    rep = c["methods_per_repeat"] is not None
    lines.append(
        "Five aggregations of the same folds, per class"
        + (
            f" (mean over {c['dims'][REPEAT]} repeats; F_tp,fp_sd = sd across repeats)"
            if rep
            else ""
        )
        + ":"
    )
    lines.append(fmt_frame(c["methods"], 4).to_string(index=False))
    if c["class_averages"] is not None:
        lines += [
            "",
            "Averages over classes (fold_method tp_fp unless named; "
            "macro_f_avg_folds averages per-fold values)"
            + (" (mean over repeats)" if rep else "")
            + ":",
            fmt_frame(c["class_averages"], 4).to_string(index=False),
        ]
    if c["auc"] is not None:
        lines += [
            "",
            "AUC_avg (mean of per-fold AUC) vs AUC_merge (one ROC over all folds' "
            "pooled scores)" + (" (mean over repeats)" if rep else "") + ":",
            "AUC_merge mixes calibration into ranking; the Brier score (lower is better) "
            "measures calibration itself.",
            fmt_frame(c["auc"], 4).to_string(index=False),
        ]
    pf = c["per_fold"]
    findings = c["findings"]
    lines.append("")
    if len(pf) <= max_fold_rows:
        lines += [
            "Per fold (undefined precision/recall shown as the policy value; "
            "valid = both defined):",
            fmt_frame(pf, 3).to_string(index=False),
        ]
    else:
        flagged = _flagged_rows(pf, findings)
        lines.append(
            f"Per fold: {len(pf)} rows (fold x class"
            + "".join(f" x {d}" for d in c["count_dims"] if d not in (FOLD, CLASS))
            + (
                f"); showing the {len(flagged)} rows with a finding"
                if len(flagged)
                else "); none has a finding"
            )
            + " (--format html or json lists all)"
            + (":" if len(flagged) else ".")
        )
        if len(flagged):
            lines.append(fmt_frame(flagged.head(max_fold_rows), 3).to_string(index=False))
            if len(flagged) > max_fold_rows:
                lines.append(f"... and {len(flagged) - max_fold_rows} more")
    lines.append("")
    if len(findings):
        counts = findings["kind"].value_counts()
        lines.append(
            f"Findings ({len(findings)}: "
            + ", ".join(f"{n} {k}" for k, n in counts.items())
            + f"; outlying = exact binomial test vs pooled rates, Bonferroni "
            f"alpha={c['alpha']:g}; methods_disagree = spread > {c['tolerance']:g}):"
        )
        shown = findings.head(max_fold_rows)
        lines += [_finding_line(row) for row in shown.to_dict("records")]
        if len(findings) > len(shown):
            lines.append(f"... and {len(findings) - len(shown)} more findings")
    else:
        lines.append(
            "Findings: none (no undefined metrics, empty folds, absent classes, "
            "outlying folds or disagreeing methods)."
        )
    lines += ["", c["recommendation"]]
    return "\n".join(lines) + "\n"


def _records(frame: pd.DataFrame | None) -> list[dict[str, Any]] | None:
    if frame is None:
        return None
    return [
        {str(k): plain(v) for k, v in row.items()}
        for row in frame.astype(object).to_dict("records")
    ]


def to_json(c: dict[str, Any]) -> str:
    """One cube's report as strict JSON (NaN as null)."""
    out = {}
    for k, v in c.items():
        out[k] = (
            _records(v)
            if isinstance(v, pd.DataFrame)
            or v is None
            and k in ("class_averages", "auc", "methods_per_repeat")
            else v
        )
    return json.dumps(out, indent=1, allow_nan=False, default=plain)
