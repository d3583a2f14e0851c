"""What every reader shares: reading a tool's table, and saying precisely what is missing.

A tool's output reaches cvframe as a CSV file (``write.csv`` in R, ``-classifications``
output of WEKA, ``DataFrame.to_csv`` in Python), a parquet file, or an already-read
:class:`pandas.DataFrame`. :func:`read_table` reads it once, with one wording for every
failure: an Excel workbook or content that is no table is an error naming the path and
saying to export CSV. :func:`require` is the one check of a format's columns.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

import pandas as pd

__all__ = ["EXCEL", "PARQUET", "ReaderError", "read_table", "require"]

#: Extensions of Excel workbooks: never guessed at, always "export CSV".
EXCEL = (".xlsx", ".xls", ".xlsm", ".xlsb", ".ods")
#: Extensions read as parquet; everything else is read as CSV.
PARQUET = (".parquet", ".pq")

#: The first bytes of an Excel workbook (zip container of .xlsx, OLE2 of .xls).
_EXCEL_MAGIC = (b"PK\x03\x04", b"\xd0\xcf\x11\xe0")


class ReaderError(ValueError):
    """A tool's output that a reader cannot read: the message names the column and the fix."""

    __module__ = "cvframe.readers"  # its public home


def _export_hint(what: str) -> str:
    return f"export {what} as CSV (e.g. write.csv(x, 'file.csv') in R, or File > Save As > CSV)"


def read_table(source: Any, what: str = "the table") -> pd.DataFrame:
    """A tool's output as a DataFrame: a path to a CSV or parquet file, or a DataFrame as is.

    Parameters
    ----------
    source : str, os.PathLike or pandas.DataFrame
        A ``.csv`` file (any other extension is read as CSV too), a ``.parquet``/``.pq``
        file, or a frame (returned as it is, not copied).
    what : str
        The table in the tool's words (``"caret's pred"``), used in error messages.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    FileNotFoundError
        When the path does not exist.
    ReaderError
        For an Excel workbook (by extension or content), content pandas cannot read as a
        table, or a table without rows; the message names the path and says to export CSV.

    Examples
    --------
    >>> import io
    >>> read_table(io.StringIO("fold,y_true,y_pred\\n0,1,1\\n")).shape
    (1, 3)
    >>> read_table("results.xlsx", "WEKA's result file")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    cvframe.readers.ReaderError: cannot read ... 'results.xlsx': an Excel workbook; export ...
    """
    if isinstance(source, pd.DataFrame):
        return source
    if hasattr(source, "read"):  # an open text buffer
        try:
            return pd.read_csv(source)
        except Exception as exc:  # noqa: BLE001 - any parser failure is the user's content
            raise ReaderError(
                f"cannot read {what} as CSV: {type(exc).__name__}: {exc}; {_export_hint(what)}."
            ) from None
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(
            f"source must be a path to a CSV file or a pandas DataFrame, "
            f"not {type(source).__name__}."
        )
    path = os.fspath(source)
    ext = os.path.splitext(path)[1].lower()
    if ext in EXCEL:
        raise ReaderError(f"cannot read {what} {path!r}: an Excel workbook; {_export_hint(what)}.")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{what} file {path!r} does not exist.")
    if os.path.isdir(path):
        raise ReaderError(f"{what} {path!r} is a directory; give a .csv or .parquet file.")
    if ext not in PARQUET:
        with open(path, "rb") as fh:
            head = fh.read(8)
        if head.startswith(_EXCEL_MAGIC):
            raise ReaderError(
                f"cannot read {what} {path!r}: an Excel workbook (whatever its extension); "
                f"{_export_hint(what)}."
            )
    try:
        frame = pd.read_parquet(path) if ext in PARQUET else pd.read_csv(path)
    except PermissionError:
        raise
    except Exception as exc:  # noqa: BLE001 - any parser failure is the user's file
        kind = "parquet" if ext in PARQUET else "CSV"
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ReaderError(
            f"cannot read {what} {path!r} as {kind} ({type(exc).__name__}: {first}); "
            f"{_export_hint(what)}."
        ) from None
    if frame.empty:
        raise ReaderError(f"{what} {path!r} has no rows.")
    return frame


def require(df: pd.DataFrame, columns: Iterable[str], tool: str, hint: str = "") -> None:
    """Raise :class:`ReaderError` naming the ``columns`` that ``df`` lacks, the tool and the fix.

    Parameters
    ----------
    df : pandas.DataFrame
    columns : iterable of str
        The columns the format needs.
    tool : str
        The table in the tool's words (``"caret's `pred`"``).
    hint : str
        What to do about it (``"was `savePredictions` set in trainControl?"``).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"pred": ["a"], "obs": ["a"]})
    >>> require(df, ["pred", "obs"], "caret's `pred`")
    >>> require(df, ["pred", "obs", "Resample"], "caret's `pred`",
    ...         "was `savePredictions` set in trainControl?")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    cvframe.readers.ReaderError: caret's `pred` has no `Resample` column: was ... set in ...
    """
    missing = [c for c in columns if c not in df.columns]
    if not missing:
        return
    names = ", ".join(f"`{c}`" for c in missing)
    noun = "column" if len(missing) == 1 else "columns"
    have = list(map(str, df.columns))
    shown = have[:15] + (["..."] if len(have) > 15 else [])
    text = f"{tool} has no {names} {noun}"
    text += f": {hint}" if hint else ""
    raise ReaderError(f"{text} (its columns are {shown})")
