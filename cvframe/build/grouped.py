"""Counts cubes from a ``GROUP BY`` that an engine ran: :func:`from_grouped`.

Every count of the cube is a sum, so an engine that holds the predictions (DuckDB, Spark,
polars, dask) can count them where they live::

    SELECT model, repeat, fold, y_true, y_pred, COUNT(*) AS count
    FROM predictions GROUP BY model, repeat, fold, y_true, y_pred

and only that small table, at most models x repeats x folds x classes² rows, comes back.
:func:`from_grouped` reads it (from pandas, polars, pyarrow, a DuckDB relation, a Spark or
dask frame: :func:`as_pandas`) and builds the cube with the one builder of predictions,
:func:`cvframe.build.counts_from_frame`, each row standing for ``count`` samples: the cube is
the one the rows give, count for count (:mod:`cvframe.sql` writes the query).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .._core import checks as _checks
from .._core import labels as _labels
from .._core.labels import frame as frame_reader
from ..errors import ColumnError, CountsError, few
from ..schema import CLASS, CONFUSION, COUNTS, FOLD, FRAME_DIMS, PRED, REPEAT, TRUE
from .predictions import FRAME_ATTRS, build
from .tables import as_counts

__all__ = ["as_pandas", "check_count", "check_unique_keys", "from_grouped"]

#: Names engines give a count column left unnamed (polars' len(), DuckDB's and Spark's
#: COUNT(*), pandas' size()): named in the error, never taken silently.
_COUNT_NAMES = ("len", "size", "n", "0", "count_star()", "count(1)", "count(*)", "counts")

#: Largest total a float64 weight sum holds exactly (every count is an integer below it).
_EXACT = 2**53


def as_pandas(table: Any, name: str = "table") -> pd.DataFrame:
    """A small result table of any dataframe library as a pandas DataFrame.

    pandas as it is; a dask frame computed; polars (eager or lazy), pyarrow, a DuckDB
    relation, a Spark DataFrame and every other library narwhals reads, collected through
    narwhals (the ``engines`` extra). Only results of a ``GROUP BY`` should come here: the
    table is brought into this process whole.
    """
    if isinstance(table, pd.DataFrame):
        return table
    if frame_reader.is_dask_frame(table):
        return table.compute()
    try:
        import narwhals.stable.v2 as nw
    except ImportError:  # without narwhals: the libraries' own conversions
        for method in ("to_pandas", "toPandas", "df"):
            if callable(getattr(table, method, None)):
                out = getattr(table, method)()
                if isinstance(out, pd.DataFrame):
                    return out
        raise TypeError(
            f"{name} is a {type(table).__name__}; install narwhals (python -m pip install "
            '"cvframe[engines]") to read it, or pass a pandas DataFrame.'
        ) from None
    frame = nw.from_native(table, pass_through=True)
    if frame is table and hasattr(table, "__arrow_c_stream__"):
        import pyarrow as pa  # a stream of record batches (DuckDB's .arrow() reader, ...)

        frame = nw.from_native(pa.table(table))
    if frame is table:
        raise TypeError(
            f"{name} must be a table (pandas, polars, pyarrow, a DuckDB relation, a Spark or "
            f"dask DataFrame), got {type(table).__name__}."
        )
    if isinstance(frame, nw.LazyFrame):
        frame = frame.collect()
    if isinstance(frame, nw.Series):
        raise TypeError(f"{name} is a Series; pass the whole grouped table (a DataFrame).")
    return frame.to_pandas()


def check_count(df: pd.DataFrame, count: str, what: str) -> np.ndarray:
    """The ``count`` column of a grouped table as int64: present, whole, finite and >= 0
    (a CountsError naming the column otherwise), with a total that int64 and float64 hold
    exactly."""
    if not isinstance(count, str) or count not in df.columns:
        named = [c for c in df.columns if str(c).lower() in _COUNT_NAMES]
        hint = f" (pass count={named[0]!r}?)" if named else ""
        raise ColumnError(
            f"count={count!r} is not a column of the {what} (columns: {few(df.columns, 10)}); "
            f"name the column that holds COUNT(*) of every group with count={hint}."
        )
    col = df[count]
    if col.isna().any():
        rows = few(df.index[col.isna().to_numpy()])
        raise CountsError(
            f"count column {count!r} has {int(col.isna().sum())} missing values at rows "
            f"{rows}; every group needs its count (COUNT(*) is never NULL)."
        )
    if col.dtype.kind == "b" or not pd.api.types.is_numeric_dtype(col.dtype):
        raise CountsError(
            f"count column {count!r} has dtype {col.dtype}; it must hold integer counts "
            "(COUNT(*) of every group)."
        )
    plain = isinstance(col.dtype, np.dtype) and col.dtype.kind in "iu"
    values = as_counts(
        col.to_numpy() if plain else col.to_numpy(dtype=np.float64), f"count column {count!r}"
    )
    if int(values.sum(dtype=np.float64)) >= _EXACT:
        raise CountsError(
            f"count column {count!r} sums to {int(values.sum())} samples, more than 2**53: "
            "the counts would not be exact. Split the table (by model, say)."
        )
    return values


def check_unique_keys(df: pd.DataFrame, keys: Sequence[Hashable], what: str) -> None:
    """A CountsError naming the key columns when two rows of a grouped table share a key."""
    keys = list(dict.fromkeys(keys))
    dup = df.duplicated(keys, keep=False)
    if dup.any():
        shown = few(df.loc[dup, keys].drop_duplicates().itertuples(index=False, name=None), 3)
        raise CountsError(
            f"the {what} has {int(dup.sum())} rows that share their key in columns "
            f"{[str(k) for k in keys]}, e.g. {shown}; a GROUP BY gives every key one row. "
            "Sum those rows first (GROUP BY the same columns), or drop the duplicates."
        )


def _dims(df: pd.DataFrame, dims: Any) -> list[str]:
    """The ``dims=`` columns of a grouped table: columns, each once, none a dim of the cube."""
    out = [dims] if isinstance(dims, str) else list(dims)
    for d in out:
        _checks.column(df, d, "dims", "grouped table")
    if len(set(out)) != len(out) or any(d in (FOLD, CLASS, TRUE, PRED) for d in out):
        raise ValueError(
            f"dims={out!r} must name other columns than the cube's own dims, each once."
        )
    return out


def from_grouped(
    table: Any,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    *,
    count: str = "count",
    y_true: str = "y_true",
    y_pred: str = "y_pred",
    fold: str = "fold",
    repeat: str | None = "repeat",
    dims: Sequence[str] | None = None,
) -> xr.Dataset:
    """The counts cube of a grouped predictions table: one row per key, with its count.

    The table is what ``GROUP BY [model,] [repeat,] fold, y_true, y_pred`` with
    ``COUNT(*) AS count`` returns (:func:`cvframe.sql.counts` writes it for DuckDB and
    Spark SQL, polars and dask): each row stands for ``count`` samples. The cube is the one
    :func:`counts_from_frame` gives on the rows the table counts, exactly (int64 counts,
    the same classes, folds, coordinates and attrs): the same builder reads the table, each
    row weighted by its count.

    Parameters
    ----------
    table : DataFrame of pandas, polars or pyarrow, a DuckDB relation, a Spark or dask frame
        The grouped table. Other libraries than pandas are read through narwhals (the
        ``engines`` extra); a Spark DataFrame can also be passed as ``sdf.toPandas()`` (the
        result is small).
    labels, pos_label : see :func:`from_predictions`.
    count : str, default "count"
        The column of the counts: whole numbers >= 0 (a row of count 0 counts nothing: a
        fold or a label only such rows have is not in the cube, as for rows).
    y_true, y_pred, fold : str
        Key columns.
    repeat : str or None, default "repeat"
        The repeat's key column, used when the table has it (as in
        :func:`counts_from_frame`).
    dims : sequence of str, optional
        Further key columns that become dims (default: those of ``model``, ``param``,
        ``dataset``, ``subset`` the table has).

    Returns
    -------
    xarray.Dataset
        The counts cube, int64, as :func:`counts_from_frame` builds it from the rows.

    Raises
    ------
    ColumnError
        A missing column (the count column, a key column).
    CountsError
        Counts that are negative, fractional, missing or not numbers (the message names the
        column and a few values); two rows with the same key (a table that is not the result
        of one GROUP BY); no samples at all; and every error of :func:`counts_from_frame`.

    Notes
    -----
    Coordinates follow the rules of the rows: plain labels and group values sorted, a
    categorical column's categories in their order. An engine may return a categorical
    column with its categories in another order than the frame it read (DuckDB's and
    Spark's dictionaries are theirs), so give such columns as plain values, or ``labels=``
    for the classes, when the order matters.

    See Also
    --------
    cvframe.sql.counts : the GROUP BY for DuckDB, Spark SQL, polars and dask.
    cvframe.scores.parse : the score metrics from per-score counts (``count=``).

    Examples
    --------
    >>> import pandas as pd, cvframe
    >>> grouped = pd.DataFrame({"fold": [0, 0, 1, 1], "y_true": [1, 0, 1, 0],
    ...                         "y_pred": [1, 0, 0, 0], "count": [3, 5, 1, 4]})
    >>> ds = cvframe.from_grouped(grouped)
    >>> ds.tp.values.ravel().tolist(), ds.fn.values.ravel().tolist()
    ([3, 0], [0, 1])
    """
    df = as_pandas(table, "table")
    if isinstance(df.columns, pd.MultiIndex):
        raise ValueError("the grouped table has MultiIndex columns; flatten them first.")
    if any(name is not None for name in df.index.names):
        df = df.reset_index()
    what = "grouped table"
    counts = check_count(df, count, what)
    for arg, name in (("y_true", y_true), ("y_pred", y_pred), ("fold", fold)):
        _checks.column(df, name, arg, what)
    extra = [d for d in FRAME_DIMS if d in df.columns] if dims is None else _dims(df, dims)
    with_repeat = frame_reader.has_repeat(df, repeat) and repeat not in extra
    named = [(str(d), d) for d in extra] + [(REPEAT, repeat)] * with_repeat + [(FOLD, fold)]
    keys: list[Hashable] = [*(column for _, column in named), y_true, y_pred]
    check_unique_keys(df, [k for k in keys if k in df.columns], what)
    keep = counts > 0
    if not keep.any():
        raise CountsError(
            f"every count of column {count!r} is 0; the grouped table counts no samples."
        )
    rows = df.loc[keep]
    fattrs: dict[str, Any] = dict(df.attrs)
    pos_from_attr = pos_label is None and _labels.attrs_pos(fattrs, labels) is not None
    if pos_from_attr:
        pos_label = _labels.attrs_pos(fattrs, labels)
    groups = [(dim, rows[column]) for dim, column in named]
    attrs = {
        k: [str(v) for v in fattrs[k]] if isinstance(fattrs[k], list) else str(fattrs[k])
        for k in FRAME_ATTRS
        if k in fattrs
    }
    labels = _labels.attrs_labels(fattrs, labels)
    cube = build(
        rows[y_true], rows[y_pred], groups, labels, pos_label, counts[keep], attrs,
        pos_from_attr=pos_from_attr,
    )  # fmt: skip
    # whole sums of whole counts below 2**53 are exact: the int64 cube of the rows
    cube = cube.assign({v: cube[v].astype(np.int64) for v in (*COUNTS, CONFUSION)})
    cube.attrs.pop("weighted", None)
    return cube
