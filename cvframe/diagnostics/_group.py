"""The findings as a reader takes them in: one line per kind of finding and place (model,
class, ...), with how many folds it hit and which (:func:`group_findings`)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import pandas as pd

from .._core.labels import plain
from ..schema import FOLD, REPEAT

__all__ = ["GROUPED_COLUMNS", "fold_ranges", "group_findings"]

#: Columns a grouped findings table adds: the number of findings in the group and where.
GROUPED_COLUMNS = ("count", "folds")

#: Columns that say where a finding is and that a group lists instead of keying on.
_LISTED = (REPEAT, FOLD)
#: Columns whose text differs from finding to finding of one group (its counts).
_DETAIL = "detail"


def fold_ranges(values: Sequence[Any]) -> str:
    """Fold ids as short text: runs of consecutive integers as ``a-b``.

    >>> fold_ranges([0, 1, 2, 3, 5, 7, 8])
    '0-3, 5, 7-8'
    >>> fold_ranges(["a", "b"])
    'a, b'
    """
    items = [plain(v) for v in values]  # a fold column with None in it is float: 2.0 is 2
    items = list(
        dict.fromkeys(int(v) if isinstance(v, float) and v.is_integer() else v for v in items)
    )
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in items):
        return ", ".join(str(v) for v in items)
    out: list[str] = []
    ints = sorted(items)
    start = prev = ints[0] if ints else 0
    for v in ints[1:] + [None]:
        if v is not None and v == prev + 1:
            prev = v
            continue
        out.append(str(start) if start == prev else f"{start}-{prev}")
        if v is not None:
            start = prev = v
    return ", ".join(out) if ints else ""


def _where(rows: pd.DataFrame) -> str | None:
    """The folds of a group's rows (per repeat when the rows have several)."""
    if FOLD not in rows.columns or rows[FOLD].isna().all():
        return None
    has = rows[rows[FOLD].notna()]
    if REPEAT in has.columns and has[REPEAT].notna().any() and has[REPEAT].nunique() > 1:
        parts = [
            f"{fold_ranges(part[FOLD].tolist())} (repeat {plain(r)})"
            for r, part in has.groupby(REPEAT, sort=False)
        ]
        return "; ".join(parts)
    return fold_ranges(has[FOLD].tolist())


def _detail(part: pd.DataFrame, first: Any, folds: str | None) -> Any:
    """A group's detail: the first finding's, after how many there are (folds, or repeats
    for findings about no single fold)."""
    n = len(part)
    if n == 1:
        return first
    if folds is not None:
        return f"{n} folds; the first: {first}"
    if REPEAT in part.columns and part[REPEAT].nunique() > 1:
        return f"{n} repeats ({fold_ranges(part[REPEAT].tolist())}); the first: {first}"
    return f"{n} findings; the first: {first}"


def group_findings(findings: pd.DataFrame) -> pd.DataFrame:
    """The findings grouped: one row per kind of finding and place, with its count and folds.

    Rows of :func:`cvframe.diagnostics.anomalies` that differ only in ``fold`` (and
    ``repeat``) and in their ``detail`` become one row: ``count`` is how many there were,
    ``folds`` which (``"0-9"``; with repeats ``"1, 3 (repeat 0); 2 (repeat 1)"``; None for
    findings about no single fold), ``detail`` the first one's, prefixed with the number of
    folds when there are several. Ten "no predicted positives" rows of one model and class
    become one line. The order is that of the first row of each group (by severity, as
    :func:`anomalies` sorts them).

    Parameters
    ----------
    findings : pandas.DataFrame
        A findings table (:func:`anomalies`; any columns: those not named ``fold``,
        ``repeat`` or ``detail`` key the groups).

    Returns
    -------
    pandas.DataFrame
        The columns of ``findings`` without ``fold`` and ``repeat``, ``count`` and ``folds``
        before ``detail``; object dtype where the input was.

    Examples
    --------
    >>> import cvframe
    >>> from cvframe.diagnostics import group_findings
    >>> rows = cvframe.datasets.table2().cv.anomalies()
    >>> group_findings(rows)[["kind", "count", "folds"]]
                      kind  count folds
    0  undefined_precision      1     1
    1     methods_disagree      1  None
    """
    cols = [str(c) for c in findings.columns]
    keys = [c for c in cols if c not in (*_LISTED, _DETAIL)]
    before = [c for c in keys if c != "explanation"]
    out_cols = [*before, *GROUPED_COLUMNS, *([_DETAIL] if _DETAIL in cols else [])]
    out_cols += ["explanation"] if "explanation" in cols else []
    if not len(findings):
        return pd.DataFrame({c: pd.Series([], dtype=object) for c in out_cols})
    frame = findings.set_axis(cols, axis=1)
    marker = frame[keys].astype(str).agg("\x1f".join, axis=1) if keys else pd.Series(0, frame.index)
    groups: dict[Hashable, list[int]] = {}
    for i, m in enumerate(marker.tolist()):
        groups.setdefault(m, []).append(i)
    rows = []
    for idx in groups.values():
        part = frame.iloc[idx]
        first = part.iloc[0]
        row: dict[str, Any] = {c: first[c] for c in before}
        row["count"] = len(idx)
        row["folds"] = _where(part)
        if _DETAIL in cols:
            row[_DETAIL] = _detail(part, first[_DETAIL], row["folds"])
        if "explanation" in cols:
            row["explanation"] = first["explanation"]
        rows.append(row)
    return pd.DataFrame(
        {
            c: pd.Series([r[c] for r in rows], dtype="int64" if c == "count" else object)
            for c in out_cols
        }
    )
