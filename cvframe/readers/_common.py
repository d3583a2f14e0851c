"""What every reader shares: reading a tool's table, and saying precisely what is missing.

:func:`read_table` reads a CSV or parquet file (or takes a DataFrame) with one wording for
every failure (an Excel workbook or content that is no table: export CSV); :func:`require`
is the one check of a format's columns. The per-sample readers share one finish, from
:func:`refuse_other` (another tool's table) to :func:`predictions` (the frame, its score
columns and its ``attrs``).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._core import labels as _labels
from ..errors import few, user_stacklevel

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


#: Byte-order marks of UTF-16 text (Excel's "Unicode text", PowerShell's default output).
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
#: A UTF-8 byte-order mark as a column name starts with it: decoded, or decoded as Latin-1.
BOM_PREFIXES = ("\ufeff", "\u00ef\u00bb\u00bf")


def encoding_of(path: str | os.PathLike[str]) -> str:
    r"""The encoding a tool's text file is read with: UTF-16 by its byte-order mark, else UTF-8
    with an optional byte-order mark (``utf-8-sig``: Windows tools write one), else, when
    the bytes are not UTF-8 (a Windows code page), Latin-1, which reads any byte.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "a.csv")
    >>> with open(path, "wb") as fh:
    ...     _ = fh.write(b"\xef\xbb\xbfKey_Dataset,Key_Run\n")
    >>> encoding_of(path)
    'utf-8-sig'
    """
    with open(path, "rb") as fh:
        head = fh.read(1 << 16)
    if head.startswith(UTF16_BOMS):
        return "utf-16"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not a character cut by the end of the sample
            return "latin-1"
    return "utf-8-sig"


def read_text(path: str | os.PathLike[str]) -> str:
    """The text of a tool's output file, decoded as :func:`encoding_of` says (no BOM)."""
    with open(path, encoding=encoding_of(path), errors="replace") as fh:
        return fh.read().removeprefix("\ufeff")


def _positional(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` itself, or with rows numbered 0..n-1 when its index repeats a label: tables
    stacked with ``pd.concat`` (without ``ignore_index=True``) are read row by row, never
    by a label two rows share."""
    return df if df.index.is_unique else df.reset_index(drop=True)


def strip_bom(df: pd.DataFrame) -> pd.DataFrame:
    r"""``df`` without a byte-order mark before its first column name (a copy only then): a
    file written with one and read without ``encoding="utf-8-sig"`` names its first column
    ``"\ufeffKey_Dataset"`` (or ``"ï»¿Key_Dataset"`` read as Latin-1)."""
    if not len(df.columns) or not isinstance(df.columns[0], str):
        return df
    first = df.columns[0]
    for bom in BOM_PREFIXES:
        if first.startswith(bom):
            out = df.copy(deep=False)
            out.columns = [first[len(bom) :], *df.columns[1:]]
            return out
    return df


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
        return strip_bom(_positional(source))
    if hasattr(source, "read"):  # an open text buffer
        try:
            return strip_bom(pd.read_csv(source, **csv))
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
    if ext not in PARQUET:
        csv = csv_options(path, csv)
    try:
        frame = pd.read_parquet(path) if ext in PARQUET else pd.read_csv(path, **csv)
        frame = strip_bom(frame)
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


def csv_options(path: str, csv: dict[str, Any]) -> dict[str, Any]:
    r"""``csv`` completed from the file itself where the caller left it out: the encoding
    (:func:`encoding_of`), the separator of R's ``write.csv2`` and European spreadsheets
    (``;`` with decimal commas) or of tab-separated files when the header has no comma, and
    ``skipinitialspace`` when the names follow their commas after a space (``a, b``).

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "a.csv")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("truth;response;prob.a\na;a;0,9\n")
    >>> sorted(csv_options(path, {}).items())
    [('decimal', ','), ('encoding', 'utf-8-sig'), ('sep', ';')]
    """
    out = dict(csv)
    out.setdefault("encoding", encoding_of(path))
    if "sep" in out or "delimiter" in out:
        return out
    with open(path, encoding=out["encoding"], errors="replace") as fh:
        header = fh.readline()
    quote = out.get("quotechar", '"')
    bare = "".join(part for k, part in enumerate(header.split(quote)) if k % 2 == 0)
    if "," not in bare and ";" in bare:
        out.update(sep=";", decimal=out.get("decimal", ","))
    elif "," not in bare and "\t" in bare:
        out["sep"] = "\t"
    elif ", " in bare and "skipinitialspace" not in out:
        out["skipinitialspace"] = True
    return out


def written_columns(path: str, **csv: Any) -> list[str]:
    """The column names of a CSV file as written (pandas renames a repeated one ``a.1``), the
    empty ones (padding, read as ``Unnamed: k``) left out."""
    csv = csv_options(path, csv)
    first = pd.read_csv(path, header=None, nrows=1, dtype=str, keep_default_na=False, **csv)
    names = [c for c in first.iloc[0].str.strip() if c]
    return list(strip_bom(pd.DataFrame(columns=names)).columns)


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
    df = strip_bom(df)
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
    if isinstance(source, pd.DataFrame):
        df = source.reset_index(drop=True)  # a copy, its rows numbered 0..n-1
    else:
        df = read_table(source, what)
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


def classes_only(df: pd.DataFrame, columns: Iterable[str], tool: str, fix: str) -> None:
    """Raise when a label column holds continuous numbers (a regression's predictions, the
    tool's output for a numeric outcome), naming the column, a few values and ``fix``."""
    for c in columns:
        col = df[c]
        if not pd.api.types.is_numeric_dtype(col.dtype) or pd.api.types.is_bool_dtype(col.dtype):
            continue
        try:
            _labels.check_classes(col.to_numpy(dtype=np.float64, na_value=np.nan), c)
        except ValueError:
            values = pd.unique(col.dropna())
            raise ReaderError(
                f"{_owns(tool)} `{c}` column holds continuous numbers ({len(values)} distinct, "
                f"e.g. {few(values[:5])}): a continuous target, the output of a regression, "
                f"not class labels; cvframe reads classification predictions. {fix}."
            ) from None


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
    """``{class: float64 probabilities}`` of the probability ``columns`` (``{column: class}``).

    A cell that is no finite number, or a number outside [0, 1], is an error naming the
    column and the value; rows of two or more columns that do not sum to one are flagged
    (:func:`check_rows_sum_to_one`).
    """
    out = {}
    for c, level in columns.items():
        p = pd.to_numeric(df[c], errors="coerce").to_numpy(np.float64)
        bad = ~np.isfinite(p)
        if bad.any():
            raise ReaderError(
                f"{_owns(tool)} `{c}` column holds {_labels.plain(df[c].to_numpy()[bad][0])!r}, "
                f"not a number; it should hold the probability of class {level!r}."
            )
        outside = (p < 0) | (p > 1)
        if outside.any():
            raise ReaderError(
                f"{_owns(tool)} `{c}` column holds {int(outside.sum())} values outside [0, 1] "
                f"(first {_labels.plain(p[outside][0])!r} at row "
                f"{int(np.flatnonzero(outside)[0])}); it should hold the probability of class "
                f"{level!r}. Were scores or log-probabilities written instead?"
            )
        out[level] = p
    if len(out) >= 2:
        check_rows_sum_to_one(np.column_stack(list(out.values())), list(columns), tool)
    return out


#: How far a row of class probabilities may sum from 1 (rounding of the written values: a
#: tool printing 3 decimals is off by up to 0.0005 per class).
SUM_TOLERANCE = 0.01


def check_rows_sum_to_one(probs: np.ndarray, columns: Sequence[str], tool: str) -> None:
    """Flag, with one :class:`UserWarning`, rows of class probabilities (rows x classes, every
    class a column) that do not sum to one within :data:`SUM_TOLERANCE`.

    Such rows are not one distribution over the classes: a class column left out or
    misnamed, columns shifted, or scores that are not probabilities. The scores are kept
    (ranking metrics read each class's column as it is); calibration and Brier scores assume
    probabilities.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     check_rows_sum_to_one(np.array([[0.5, 0.5], [0.5, 0.3]]), ["p.a", "p.b"], "mlr3")
    >>> print(w[0].message)  # doctest: +ELLIPSIS
    mlr3's probability columns ['p.a', 'p.b'] do not sum to 1 in 1 of 2 rows (row 1 sums to 0.8...
    """
    sums = probs.sum(axis=1)
    off = np.abs(sums - 1.0) > SUM_TOLERANCE
    if not off.any():
        return
    first = int(np.flatnonzero(off)[0])
    warnings.warn(
        f"{_owns(tool)} probability columns {few(columns)} do not sum to 1 in "
        f"{int(off.sum())} of {len(sums)} rows (row {first} sums to {sums[first]:.6g}; sums "
        f"range from {sums.min():.6g} to {sums.max():.6g}): they are not one probability "
        "distribution per row. Is a class's column missing or misnamed, or were scores "
        "written instead of probabilities? The scores are kept as they are: ranking metrics "
        "(AUC) read each column alone, but calibration and Brier scores assume probabilities.",
        UserWarning,
        stacklevel=user_stacklevel(),
    )


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
