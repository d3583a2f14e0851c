"""What every reader shares: reading a tool's table, and saying precisely what is missing.

:func:`read_table` reads a CSV or parquet file (or takes a DataFrame) with one wording for
every failure (an Excel workbook or content that is no table: export CSV); :func:`require`
is the one check of a format's columns. The per-sample readers share one finish, from
:func:`refuse_other` (another tool's table) to :func:`predictions` (the frame, its score
columns and its ``attrs``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._core import labels as _labels
from ..errors import few

#: Extensions of Excel workbooks: never guessed at, always "export CSV".
EXCEL = (".xlsx", ".xls", ".xlsm", ".xlsb", ".ods")
#: Extensions read as parquet; everything else is read as CSV.
PARQUET = (".parquet", ".pq")

#: The first bytes of an Excel workbook (zip container of .xlsx, OLE2 of .xls).
EXCEL_MAGIC = (b"PK\x03\x04", b"\xd0\xcf\x11\xe0")
#: The first bytes of a parquet file.
PARQUET_MAGIC = b"PAR1"
#: The first column write.csv writes for the row names (``row.names = TRUE``, its default).
ROWNAMES = ("", "Unnamed: 0")
#: The columns by which each tool's table is known, so that a wrong file is named:
#: (tool, its name in messages, columns), checked in order.
SIGNATURES = (
    ("caret", "caret (fit$pred)", ("pred", "obs")),
    ("weka", "WEKA (Experimenter results)", ("Key_Run", "Key_Fold")),
    ("weka", "WEKA (predictions)", ("inst#", "actual", "predicted")),
    ("mlr3", "mlr3 (predictions)", ("row_ids", "truth", "response")),
    ("tidymodels", "tidymodels (collect_predictions)", (".row", ".pred_class")),
    ("sklearn", "scikit-learn (cross_validate results)", ("fit_time", "score_time")),
    ("cvframe", "cvframe / scikit-learn (predictions frame)", ("fold", "y_true", "y_pred")),
)


class ReaderError(ValueError):
    """A tool's output that a reader cannot read: the message names the column and the fix."""

    __module__ = "cvframe.readers"  # its public home


def _export_hint(what: str) -> str:
    return f"export {what} as CSV (e.g. write.csv(x, 'file.csv') in R, or File > Save As > CSV)"


def file_kind(path: str | os.PathLike[str]) -> str:
    """What a file holds by its first bytes, whatever its name: ``"excel"`` (an .xlsx zip or an
    .xls OLE2 workbook), ``"parquet"``, or ``"text"``.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "data.csv")
    >>> with open(path, "wb") as fh:
    ...     _ = fh.write(b"PK\x03\x04 an xlsx renamed .csv")
    >>> file_kind(path)
    'excel'
    """
    with open(path, "rb") as fh:
        head = fh.read(8)
    if head.startswith(EXCEL_MAGIC):
        return "excel"
    return "parquet" if head.startswith(PARQUET_MAGIC) else "text"


def read_table(source: Any, what: str = "the table", **csv: Any) -> pd.DataFrame:
    """A tool's output as a DataFrame: a CSV (any extension but parquet's) or parquet file, or
    a frame as it is (not copied). ``what`` names the table in messages; ``csv`` goes to
    :func:`pandas.read_csv`. An Excel workbook (by extension or content), content that is no
    table, or a table without rows is a :class:`ReaderError` saying to export CSV.

    >>> read_table("results.xlsx", "WEKA's result file")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    cvframe.readers.ReaderError: cannot read ... 'results.xlsx': an Excel workbook; export ...
    """
    if isinstance(source, pd.DataFrame):
        return source
    if hasattr(source, "read"):  # an open text buffer
        try:
            return pd.read_csv(source, **csv)
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
    kind = file_kind(path)
    if kind == "excel":
        raise ReaderError(
            f"cannot read {what} {path!r}: an Excel workbook (whatever its extension); "
            f"{_export_hint(what)}."
        )
    if kind == "parquet":
        ext = ".parquet"  # a parquet file named .csv or .txt: read by its content
    try:
        frame = pd.read_parquet(path) if ext in PARQUET else pd.read_csv(path, **csv)
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
    if ext not in PARQUET:  # the CSV reader renamed a repeated name (pred, pred.1): refuse it
        clean_columns(pd.DataFrame(columns=written_columns(path, **csv)), f"{what} {path!r}")
    return frame


def written_columns(path: str, **csv: Any) -> list[str]:
    """The column names of a CSV file as written (pandas renames a repeated one ``a.1``), the
    empty ones (padding, read as ``Unnamed: k``) left out."""
    first = pd.read_csv(path, header=None, nrows=1, dtype=str, keep_default_na=False, **csv)
    return [c for c in first.iloc[0].str.strip() if c]


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
    text = f"{tool} has no {names} {noun}" + (f": {hint}" if hint else "")
    raise ReaderError(f"{text} (its columns are {columns_text(df)})")


def columns_text(df: pd.DataFrame) -> str:
    """The first 15 column names of ``df``, as a list's text, for a message."""
    cols = list(map(str, df.columns))
    return str(cols[:15] + (["..."] if len(cols) > 15 else []))


# --- the per-sample readers' one finish -------------------------------------------------------


def text(value: Any) -> str:
    """A cell as R printed it: numbers in their shortest form (``2.0`` is ``"2"``).

    >>> text(2.0), text("a"), text(True)
    ('2', 'a', 'True')
    """
    value = _labels.plain(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def clean_columns(df: pd.DataFrame, what: str) -> pd.DataFrame:
    """``df`` with string column names, without write.csv's row-names column; a name given
    to two columns is an error (which one would be read?)."""
    if len(df.columns) and str(df.columns[0]) in ROWNAMES:
        df = df.drop(columns=df.columns[0])
    df.columns = [str(c) for c in df.columns]
    dup = df.columns[df.columns.duplicated()]
    if len(dup):
        raise ReaderError(
            f"{what} has duplicated columns {few(list(dict.fromkeys(dup)))}; name each column "
            "once (drop or rename the copies)."
        )
    return df


def own_table(source: Any, what: str) -> pd.DataFrame:
    """A reader's own copy of the tool's table (a frame is copied: the reader renames its
    columns; a file is read), its columns checked by :func:`clean_columns`."""
    df = source.copy() if isinstance(source, pd.DataFrame) else read_table(source, what)
    return clean_columns(df, what)


def _owns(tool: str) -> str:
    """``tool``'s, or ``tool``' after an s."""
    return f"{tool}'" if tool.endswith("s") else f"{tool}'s"


def other_tools(df: pd.DataFrame, tool: str) -> list[str]:
    """The other tools whose columns ``df`` has (:data:`SIGNATURES`).

    >>> other_tools(pd.DataFrame(columns=["pred", "obs", "rowIndex"]), "mlr3")
    ['caret (fit$pred)']
    """
    cols = {str(c) for c in df.columns}
    return [name for t, name, need in SIGNATURES if t != tool and set(need) <= cols]


def refuse_other(df: pd.DataFrame, tool: str, what: str, own: Iterable[str]) -> None:
    """Raise when ``df`` is another tool's table, or mixes one with ``tool``'s (``own``)."""
    found = other_tools(df, tool)
    if not found:
        return
    names = " / ".join(found)
    cols = list(map(str, df.columns))
    if set(own) & set(cols):
        raise ReaderError(
            f"source has {what}'s columns and also those of {names} ({few(cols)}): are outputs "
            f"of different tools mixed in one file? Save {what} in its own file."
        )
    raise ReaderError(
        f"source looks like the output of {names} (columns {few(cols)}), not {what}; read it "
        "with that tool's reader (cvframe.readers.read detects the format)."
    )


def no_missing(df: pd.DataFrame, columns: Iterable[str], tool: str, fix: str) -> None:
    """Raise naming the first of ``columns`` with missing values, how many, and ``fix``."""
    for c in columns:
        bad = df[c].isna().to_numpy()
        if bad.any():
            raise ReaderError(
                f"{_owns(tool)} `{c}` column has {int(bad.sum())} missing values (first at row "
                f"{int(np.flatnonzero(bad)[0])}); {fix}."
            )


def class_levels(
    seen: Sequence[str], prob_levels: Sequence[str], where: str, fix: str
) -> tuple[list[str], str]:
    """The classes (those of the probability columns, else ``seen`` sorted: R's default factor
    order) and the task; every class seen needs its probability column, and two classes."""
    levels = list(prob_levels)
    if levels:
        unknown = [s for s in seen if s not in levels]
        if unknown:
            raise ReaderError(
                f"{where} hold {few(unknown)}, which have no probability column (the "
                f"probability columns {few(levels)} leave out {few(unknown)}); {fix}."
            )
    else:
        levels = sorted(seen)
    if len(levels) < 2:
        raise ReaderError(
            f"{where} hold one class only ({few(levels)}); a classification needs two or more."
        )
    return levels, "binary" if len(levels) == 2 else "multiclass"


def positive_class(
    value: Any, levels: Sequence[str], task: str, where: str, fix: str = "", arg: str = "positive"
) -> str | None:
    """The positive class of a binary task: ``value``, else the first level; None otherwise."""
    if value is None:
        return levels[0] if task == "binary" else None
    if task != "binary":
        raise ReaderError(
            f"{arg}={value!r} applies to a binary task; this one has {len(levels)} classes "
            f"{few(levels)}."
        )
    if text(value) not in levels:
        raise ReaderError(
            f"{arg}={value!r} is not a class of {where} {few(levels)}; pass one of them{fix}."
        )
    return text(value)


def numbers(
    df: pd.DataFrame, column: str, tool: str, meaning: str, integer: bool = False
) -> np.ndarray:
    """A numeric column of the tool's table (whole numbers when ``integer``), or an error
    naming the column, its first bad cell and what it should hold."""
    values = pd.to_numeric(df[column], errors="coerce")
    ok = (values == values.round()) if integer else values.notna()
    if not ok.all():
        kind = "an integer" if integer else "a number"
        raise ReaderError(
            f"{_owns(tool)} `{column}` column holds {_labels.plain(df[column][~ok].iloc[0])!r}, "
            f"not {kind}; it should hold {meaning}."
        )
    return values.to_numpy().astype(np.int64) if integer else values.to_numpy()


def probabilities(df: pd.DataFrame, columns: Mapping[str, str], tool: str) -> dict[str, Any]:
    """``{class: float64 probabilities}`` of the probability ``columns`` (``{column: class}``);
    a cell that is no finite number is an error naming the column and the value."""
    out = {}
    for c, level in columns.items():
        p = pd.to_numeric(df[c], errors="coerce").to_numpy(np.float64)
        bad = ~np.isfinite(p)
        if bad.any():
            raise ReaderError(
                f"{_owns(tool)} `{c}` column holds {_labels.plain(df[c].to_numpy()[bad][0])!r}, "
                f"not a number; it should hold the probability of class {level!r}."
            )
        out[level] = p
    return out


def refuse_duplicates(
    frame: pd.DataFrame, keys: Sequence[str], ids: pd.DataFrame, tool: str, fix: str
) -> None:
    """Raise when a sample has two rows in one resample (``keys``: the columns of ``frame``
    that place a prediction); ``ids`` are the tool's own columns of the rows, for the message."""
    keys = [k for k in keys if k in frame.columns]
    if "sample" not in keys:
        return  # without the sample id a repeated prediction cannot be told
    dup = frame.duplicated(keys, keep=False).to_numpy()
    if not dup.any():
        return
    shown = list(dict.fromkeys(ids[dup].map(text).itertuples(index=False, name=None)))
    cols = ", ".join(map(str, ids.columns))
    raise ReaderError(
        f"{tool} has {int(dup.sum())} rows predicting a sample again in the same resample: "
        f"({cols}) = {few(shown)}; each held-out sample is predicted once per resample. Was "
        f"the table written twice into one file? {fix}."
    )


def check_resamples(
    frame: pd.DataFrame, what: str, fix: str, candidate: str, numbered: bool = False
) -> None:
    """Every resample has rows: each repeat every fold some repeat has, each ``param``
    (``candidate``) every resample some candidate has, and, when the tool numbers them from 1
    (``numbered``), no number is skipped."""
    keys = [k for k in ("repeat", "fold") if k in frame.columns]
    pairs = frame[keys].drop_duplicates()
    if "repeat" in keys:
        per = pairs.groupby("repeat", sort=True)["fold"].agg(set)
        every = set().union(*per)
        for rep, folds in per.items():
            if every - folds:
                raise ReaderError(
                    f"{what}: folds {few(sorted(every - folds))} of repeat {rep!r} have no rows "
                    f"(other repeats have them); {fix}."
                )
    for key in keys if numbered else []:
        have = set(frame[key])
        lost = sorted(set(range(1, max(have) + 1)) - have)
        if lost:
            noun = "repeats" if key == "repeat" else "resamples"
            raise ReaderError(
                f"{what}: {noun} {few(lost)} have no rows (numbers run to {max(have)}); {fix}."
            )
    every_pair = set(pairs.itertuples(index=False, name=None))
    for p, part in frame.groupby("param", sort=False) if "param" in frame.columns else []:
        lost = sorted(every_pair - set(part[keys].itertuples(index=False, name=None)))
        if lost:
            raise ReaderError(
                f"{what}: resamples {few(lost)} of {candidate} {p!r} have no rows (other "
                f"candidates have them); {fix}."
            )


def predictions(
    out: dict[str, Any],
    probs: Mapping[Any, Any],
    levels: Sequence[Any],
    pos: Any,
    rest: Mapping[str, Any] | None = None,
    **attrs: Any,
) -> pd.DataFrame:
    """The predictions frame: ``out``'s columns, the score columns, then ``rest``'s.

    The score columns are ``score`` (binary: the probability of ``pos``, the class written in
    ``attrs["pos_label"]``) or one ``score_<class>`` per class (multiclass, or binary without
    a positive class). ``attrs`` gets ``attrs`` (``source``, ``task``, ...), and
    ``pos_label`` or ``labels``.

    >>> frame = predictions({"y_true": ["a", "b"]}, {"a": [0.9, 0.2], "b": [0.1, 0.8]},
    ...                     ["a", "b"], "a", source="tool", task="binary")
    >>> list(frame.columns), frame.attrs["pos_label"]
    (['y_true', 'score'], 'a')
    """
    cols = dict(out)
    if probs:
        if pos is not None:
            cols["score"] = probs[pos]
        else:
            cols.update({f"score_{c}": probs[c] for c in levels})
    cols.update(rest or {})
    frame = pd.DataFrame(cols)
    frame.attrs.update(attrs)
    if pos is not None:
        _labels.write_pos_label(frame, pos)
    else:
        frame.attrs["labels"] = list(levels)
    return frame
