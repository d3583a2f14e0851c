r"""The ``GROUP BY`` queries whose small results hold every number cvframe computes.

A counts cube is ``COUNT(*)`` per (model, repeat, fold, y_true, y_pred); AUC_merge, the PR
curve, calibration and DeLong's variance are exact from ``COUNT(*)`` per (model, repeat,
fold, class, score, y_true). Where the predictions live in an engine, the engine runs the
query and only its result comes back:

- :func:`counts` and :func:`score_counts` write the SQL, for a named table and columns, in
  the subset of SQL that DuckDB and Spark SQL both run (bare identifiers, ``UNION ALL``,
  ``ROUND``, ``COUNT(*)``);
- :func:`polars_counts`, :func:`polars_score_counts` give the same groups as polars
  expressions (eager or lazy frames), :func:`dask_counts`, :func:`dask_score_counts` as a
  dask computation (one pass over the partitions, a tree sum of partial counts), and
  :func:`pandas_counts`, :func:`pandas_score_counts` on a pandas frame.

:func:`cvframe.from_grouped` reads the counts (any of these results) into the cube;
:func:`cvframe.scores.parse` (``count="count"``) reads the score counts for every score
metric and :func:`cvframe.interval`.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._core import checks as _checks
from ._core import labels as _labels
from .schema import CLASS

__all__ = [
    "counts",
    "dask_counts",
    "dask_score_counts",
    "pandas_counts",
    "pandas_score_counts",
    "polars_counts",
    "polars_score_counts",
    "score_counts",
]

_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_RESERVED = {"select", "from", "where", "group", "by", "order", "union", "all", "as", "and"}


def _name(value: Any, arg: str) -> str:
    """A column name as a bare SQL identifier (the identifiers DuckDB and Spark share)."""
    if not isinstance(value, str) or not _BARE.match(value) or value.lower() in _RESERVED:
        raise ValueError(
            f"{arg}={value!r} is not a plain identifier (letters, digits, _; not a keyword): "
            "DuckDB quotes other names with double quotes and Spark SQL with backticks, so no "
            "one query serves both. Rename the column in a view first, e.g. CREATE VIEW p AS "
            'SELECT "my score" AS score, ... FROM t.'
        )
    return value


def _literal(label: Any) -> str:
    """A class label as an SQL literal: a number as it is, a string quoted ('' for ')."""
    label = _labels.plain(label)
    if isinstance(label, bool):
        return "TRUE" if label else "FALSE"
    if isinstance(label, (int, float)):
        return repr(label)
    if isinstance(label, str):
        return "'" + label.replace("'", "''") + "'"
    raise TypeError(f"class label {label!r} is not a number or a string; SQL cannot name it.")


def _keys(dims: Sequence[str], repeat: str | None, fold: str) -> list[str]:
    dims = [dims] if isinstance(dims, str) else list(dims)
    out = [_name(d, "dims") for d in dims]
    if repeat is not None:
        out.append(_name(repeat, "repeat"))
    out.append(_name(fold, "fold"))
    if len(set(out)) != len(out):
        raise ValueError(f"the key columns {out} name a column twice; name each once.")
    return out


def _digits(digits: Any) -> int | None:
    if digits is None:
        return None
    return _checks.integer(
        "digits", digits, low=0, high=15, fix="digits rounds the scores to that many decimals."
    )


def counts(
    table: str = "predictions",
    *,
    y_true: str = "y_true",
    y_pred: str = "y_pred",
    fold: str = "fold",
    repeat: str | None = None,
    dims: Sequence[str] = (),
    count: str = "count",
) -> str:
    """The ``GROUP BY`` of a counts cube, as SQL that DuckDB and Spark SQL both run.

    Parameters
    ----------
    table : str, default "predictions"
        The table (or view) of predictions, one row per tested sample.
    y_true, y_pred, fold : str
        Its columns.
    repeat : str, optional
        The repeat column, when the table has one.
    dims : sequence of str
        Further key columns (``model``, ...), in the order the cube's dims take.
    count : str, default "count"
        The name of the count column of the result.

    Returns
    -------
    str
        ``SELECT <keys>, y_true, y_pred, COUNT(*) AS count FROM table GROUP BY ...``; its
        result has at most models x repeats x folds x classes² rows. Read it with
        :func:`cvframe.from_grouped`.

    Raises
    ------
    ValueError
        A name that is not a plain identifier (letters, digits and ``_``, not a keyword):
        the two engines quote other names differently.

    Examples
    --------
    >>> from cvframe import sql
    >>> print(sql.counts("preds", repeat="repeat", dims=["model"]))
    SELECT model, repeat, fold, y_true, y_pred, COUNT(*) AS count
    FROM preds
    GROUP BY model, repeat, fold, y_true, y_pred
    """
    keys = _keys(dims, repeat, fold) + [_name(y_true, "y_true"), _name(y_pred, "y_pred")]
    cols = ", ".join(keys)
    return (
        f"SELECT {cols}, COUNT(*) AS {_name(count, 'count')}\n"
        f"FROM {_name(table, 'table')}\nGROUP BY {cols}"
    )


def score_counts(
    table: str = "predictions",
    classes: Sequence[Hashable] | None = None,
    *,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = None,
    score: str = "score",
    dims: Sequence[str] = (),
    count: str = "count",
    digits: int | None = None,
) -> str:
    r"""The ``GROUP BY`` of the score metrics: samples per (keys, class, score, y_true).

    One ``SELECT`` per scored class, stacked with ``UNION ALL``: class ``c`` groups its
    score column ``<score>_<c>`` (one-vs-all, the columns of a predictions frame); a binary
    table (``classes=None``) groups ``score``, the positive class's score, without a class
    column. Read the result with ``cvframe.scores.parse(result, count="count")``: AUC_avg,
    AUC_merge, AP, the curves, calibration, Brier and DeLong's interval then equal those of
    the rows.

    Parameters
    ----------
    table : str, default "predictions"
    classes : sequence of labels, optional
        The classes of a multiclass (or one-vs-all) table, whose scores are in columns
        ``<score>_<label>``; None for a binary table.
    y_true, fold, score : str
        Column names (``score`` is the prefix of the per-class columns).
    repeat : str, optional
    dims : sequence of str
    count : str, default "count"
    digits : int, optional
        Round the scores to that many decimals first (``ROUND(score, digits)``): fewer
        distinct scores, a smaller result, and AUCs within
        :func:`cvframe.scores.auc_tie_bound` of the unrounded ones (rounding keeps the order
        of scores; only pairs it ties can change). Brier, log-loss and calibration then read
        the rounded scores.

    Returns
    -------
    str

    Notes
    -----
    The result has one row per distinct (keys, class, score, y_true): at most about
    2 x distinct scores per fold and class. Continuous scores of a large study are mostly
    distinct, and then the result is nearly as large as the predictions: round them
    (``digits=``), which bounds the AUC error, rather than bin them as Spark does (its
    ``BinaryClassificationEvaluator`` cuts the sorted distinct scores into 1,000 chunks of
    equal counts, whatever the error; ``docs/scaling_out.md`` compares the two).

    Examples
    --------
    >>> from cvframe import sql
    >>> print(sql.score_counts("preds", ["a", "b"], digits=3))
    SELECT fold, 'a' AS class, ROUND(score_a, 3) AS score, y_true, COUNT(*) AS count
    FROM preds
    GROUP BY fold, ROUND(score_a, 3), y_true
    UNION ALL
    SELECT fold, 'b' AS class, ROUND(score_b, 3) AS score, y_true, COUNT(*) AS count
    FROM preds
    GROUP BY fold, ROUND(score_b, 3), y_true
    """
    keys = _keys(dims, repeat, fold)
    yt, n, src = _name(y_true, "y_true"), _name(count, "count"), _name(table, "table")
    d = _digits(digits)
    _name(score, "score")
    parts = []
    for c in [None] if classes is None else _labels.check_labels_arg(classes, "classes"):
        col = score if c is None else _name(f"{score}_{_labels.plain(c)}", "score column")
        s = col if d is None else f"ROUND({col}, {d})"
        head = ", ".join(keys) + ("" if c is None else f", {_literal(c)} AS {CLASS}")
        parts.append(
            f"SELECT {head}, {s} AS {score}, {yt}, COUNT(*) AS {n}\n"
            f"FROM {src}\nGROUP BY {', '.join([*keys, s, yt])}"
        )
    return "\nUNION ALL\n".join(parts)


# --- polars -------------------------------------------------------------------------------------


def polars_counts(
    frame: Any,
    *,
    y_true: str = "y_true",
    y_pred: str = "y_pred",
    fold: str = "fold",
    repeat: str | None = None,
    dims: Sequence[str] = (),
    count: str = "count",
) -> Any:
    """:func:`counts` as a polars ``group_by`` of a polars DataFrame or LazyFrame (lazy in,
    lazy out: ``.collect()`` runs it).

    Examples
    --------
    >>> import polars as pl
    >>> from cvframe import sql
    >>> lf = pl.LazyFrame({"fold": [0, 0, 1], "y_true": [1, 0, 1], "y_pred": [1, 1, 1]})
    >>> sql.polars_counts(lf).collect().sort("fold", "y_true").rows()
    [(0, 0, 1, 1), (0, 1, 1, 1), (1, 1, 1, 1)]
    """
    keys = _keys(dims, repeat, fold) + [y_true, y_pred]
    return frame.group_by(keys).len(name=count)


def polars_score_counts(
    frame: Any,
    classes: Sequence[Hashable] | None = None,
    *,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = None,
    score: str = "score",
    dims: Sequence[str] = (),
    count: str = "count",
    digits: int | None = None,
) -> Any:
    """:func:`score_counts` as polars expressions: one ``group_by`` per class, stacked."""
    import polars as pl

    keys = _keys(dims, repeat, fold)
    d = _digits(digits)
    parts = []
    for c in [None] if classes is None else _labels.check_labels_arg(classes, "classes"):
        col = pl.col(score if c is None else f"{score}_{_labels.plain(c)}").cast(pl.Float64)
        s = (col if d is None else col.round(d)).alias(score)
        part = frame.group_by([*keys, s, y_true]).len(name=count)
        if c is not None:
            part = part.with_columns(pl.lit(_labels.plain(c)).alias(CLASS))
        parts.append(
            part.select([*keys, *([CLASS] if c is not None else []), score, y_true, count])
        )
    return pl.concat(parts, how="vertical_relaxed")


# --- dask ---------------------------------------------------------------------------------------


def _empty(ddf: Any, columns: list[str]) -> pd.DataFrame:
    """An empty pandas frame with the dtypes of ``columns`` of a dask frame (dask's meta)."""
    return pd.DataFrame({c: pd.Series(dtype=ddf.dtypes[c]) for c in columns})


def _partition_counts(part: pd.DataFrame, keys: list[str], count: str) -> pd.DataFrame:
    out = part.groupby(keys, sort=False, observed=True, dropna=False).size()
    return out.rename(count).reset_index()


def pandas_counts(
    frame: pd.DataFrame,
    *,
    y_true: str = "y_true",
    y_pred: str = "y_pred",
    fold: str = "fold",
    repeat: str | None = None,
    dims: Sequence[str] = (),
    count: str = "count",
) -> pd.DataFrame:
    """:func:`counts` on a pandas frame (one ``groupby``), the table every engine returns."""
    keys = _keys(dims, repeat, fold) + [y_true, y_pred]
    return _partition_counts(frame, keys, count)


def dask_counts(
    ddf: Any,
    *,
    y_true: str = "y_true",
    y_pred: str = "y_pred",
    fold: str = "fold",
    repeat: str | None = None,
    dims: Sequence[str] = (),
    count: str = "count",
) -> Any:
    """:func:`counts` on a dask DataFrame: a lazy dask DataFrame of the grouped counts (each
    partition counted where it lives, the partial counts summed in a tree).

    ``cvframe.from_grouped(sql.dask_counts(ddf))`` computes it; ``ddf.cv.counts()`` builds
    the same cube lazily by one ``bincount`` per partition.
    """
    keys = _keys(dims, repeat, fold) + [y_true, y_pred]
    for k in keys:
        _checks.column(ddf, k, "key", "predictions frame")
    meta = _partition_counts(_empty(ddf, keys), keys, count)
    partial = ddf.map_partitions(_partition_counts, keys, count, meta=meta)
    return partial.groupby(keys, sort=False, observed=True, dropna=False)[count].sum().reset_index()


def _partition_score_counts(
    part: pd.DataFrame,
    keys: list[str],
    columns: list[tuple[Any, str]],
    y_true: str,
    score: str,
    count: str,
    digits: int | None,
) -> pd.DataFrame:
    """Samples per (keys, class, score, y_true) of one partition, every class stacked."""
    frames = []
    for c, col in columns:
        s = part[col].astype(np.float64)
        s = s if digits is None else s.round(digits)
        sub = pd.DataFrame(
            {**{k: part[k] for k in keys}, score: s.to_numpy(), y_true: part[y_true]}
        )
        grouped = sub.groupby([*keys, score, y_true], sort=False, observed=True, dropna=False)
        out = grouped.size().rename(count).reset_index()
        if c is not None:
            kind = object if isinstance(c, str) else None  # strings as object, as labels
            out.insert(len(keys), CLASS, np.full(len(out), c, dtype=kind))
        frames.append(out)
    return pd.concat(frames, ignore_index=True)


def pandas_score_counts(
    frame: pd.DataFrame,
    classes: Sequence[Hashable] | None = None,
    *,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = None,
    score: str = "score",
    dims: Sequence[str] = (),
    count: str = "count",
    digits: int | None = None,
) -> pd.DataFrame:
    """:func:`score_counts` on a pandas frame: one ``groupby`` per class, stacked."""
    keys = _keys(dims, repeat, fold)
    labels = None if classes is None else _labels.check_labels_arg(classes, "classes")
    columns = [(None, score)] if labels is None else [(c, f"{score}_{c}") for c in labels]
    for k in [*keys, y_true, *(col for _, col in columns)]:
        _checks.column(frame, k, "column", "predictions frame")
    return _partition_score_counts(frame, keys, columns, y_true, score, count, _digits(digits))


def dask_score_counts(
    ddf: Any,
    classes: Sequence[Hashable] | None = None,
    *,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = None,
    score: str = "score",
    dims: Sequence[str] = (),
    count: str = "count",
    digits: int | None = None,
) -> Any:
    """:func:`score_counts` on a dask DataFrame: a lazy dask DataFrame of the score counts,
    one pass over the partitions for every class (each partition's counts of every class,
    summed in a tree); ``.compute()`` gives the table ``cvframe.scores.parse(...,
    count=count)`` reads."""
    keys = _keys(dims, repeat, fold)
    d = _digits(digits)
    labels = None if classes is None else _labels.check_labels_arg(classes, "classes")
    columns = [(None, score)] if labels is None else [(c, f"{score}_{c}") for c in labels]
    for k in [*keys, y_true]:
        _checks.column(ddf, k, "key", "predictions frame")
    for _, col in columns:
        _checks.column(ddf, col, "score", "predictions frame")
    args = (keys, columns, y_true, score, count, d)
    empty = _empty(ddf, list(dict.fromkeys([*keys, y_true, *(col for _, col in columns)])))
    meta = _partition_score_counts(empty, *args)
    partial = ddf.map_partitions(_partition_score_counts, *args, meta=meta)
    by = [*keys, *([CLASS] if labels is not None else []), score, y_true]
    return partial.groupby(by, sort=False, observed=True, dropna=False)[count].sum().reset_index()
