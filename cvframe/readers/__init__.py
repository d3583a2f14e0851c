"""Readers of other tools' cross-validation outputs: any tool's folds become cvframe's.

One module per tool; each knows its format's columns (``COLUMNS``), recognises them
(``looks_like(df)``) and reads them (``read_<tool>(source, ...)``) into the cvframe
predictions frame (per-sample outputs: ``fold``, ``repeat``, ``y_true``, ``y_pred``, scores)
or the counts cube (per-fold count tables, e.g. WEKA's Experimenter):

==============  ==============================================================
``caret``       R caret's ``train(...)$pred`` (``savePredictions``)
``weka``        WEKA: the Experimenter's CSV result file; per-instance predictions
``mlr3``        mlr3's ``as.data.table(rr$prediction())`` / benchmark predictions
``tidymodels``  tidymodels' ``collect_predictions()``
``sklearn``     scikit-learn's ``cross_validate``/``cross_val_predict`` outputs
``cvframe``     a cvframe predictions frame (``fold``, ``y_true``, ``y_pred``)
==============  ==============================================================

:func:`read` detects the format by its columns (:func:`detect`) or is told it
(``format=``). The tool modules load on first use.

Every reader takes files as tools write them:
a UTF-8 byte-order mark, UTF-16, a Windows code page, R's ``write.csv2`` semicolons with
decimal commas, tabs; tables stacked with ``pd.concat`` (a repeated index) are read by
position. Class probabilities outside [0, 1] are an error, and rows that do not sum to one
are flagged with one ``UserWarning``; a regression's output (a continuous target) is an
error that names it.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import Any

import pandas as pd

from ._common import (
    UTF16_BOMS,
    ReaderError,
    clean_columns,
    columns_text,
    file_kind,
    read_table,
    require,
    written_columns,
)

__all__ = [
    "CVFRAME_COLUMNS",
    "FORMATS",
    "ReaderError",
    "detect",
    "file_kind",
    "formats_of",
    "read",
    "require",
    "sniff",
    "written_columns",
]

#: The tool formats, in the order they are tried; ``"cvframe"`` is the library's own.
TOOLS = ("caret", "weka", "mlr3", "tidymodels", "sklearn")
FORMATS = (*TOOLS, "weka-predictions", "cvframe")
#: The columns of a cvframe predictions frame.
CVFRAME_COLUMNS = ("fold", "y_true", "y_pred")


def _module(name: str) -> ModuleType | None:
    """The reader module of a tool, or None when it is not there (yet)."""
    full = f"{__name__}.{name}"
    try:
        return importlib.import_module(full)
    except ModuleNotFoundError as exc:
        if exc.name == full:
            return None
        raise


def _tool_formats(name: str, module: ModuleType) -> dict[str, tuple[Any, Any]]:
    """A tool module's formats, ``{format: (looks_like, reader)}``: its ``FORMATS`` when it has
    several (WEKA), else ``looks_like`` and ``read_<tool>``."""
    many = getattr(module, "FORMATS", None)
    if isinstance(many, dict):
        return dict(many)
    return {name: (module.looks_like, getattr(module, f"read_{name}"))}


def _known() -> dict[str, tuple[Any, Any]]:
    """Every format available now: ``{format: (looks_like, reader)}``."""
    out: dict[str, tuple[Any, Any]] = {}
    for name in TOOLS:
        module = _module(name)
        if module is not None:
            out.update(_tool_formats(name, module))
    out["cvframe"] = (lambda df: all(c in df.columns for c in CVFRAME_COLUMNS), None)
    return out


def formats_of(df: pd.DataFrame) -> list[str]:
    """Every format whose columns ``df`` has (none, one, or several for mixed tools).

    Examples
    --------
    >>> import pandas as pd
    >>> formats_of(pd.DataFrame({"fold": [0], "y_true": [1], "y_pred": [1]}))
    ['cvframe']
    >>> formats_of(pd.DataFrame({"a": [1]}))
    []
    """
    return [name for name, (looks_like, _) in _known().items() if bool(looks_like(df))]


def detect(df: pd.DataFrame) -> str:
    """The one format whose columns ``df`` has.

    Parameters
    ----------
    df : pandas.DataFrame
        A tool's output as read (see :func:`read`).

    Returns
    -------
    str
        One of ``"caret"``, ``"weka"`` (or a WEKA format's name), ``"mlr3"``,
        ``"tidymodels"``, ``"sklearn"``, ``"cvframe"``.

    Raises
    ------
    ReaderError
        When no format matches (naming the columns and the formats known) or several do
        (mixed tools in one file: naming them).

    Examples
    --------
    >>> import pandas as pd
    >>> detect(pd.DataFrame({"fold": [0], "y_true": [1], "y_pred": [0]}))
    'cvframe'
    >>> detect(pd.DataFrame({"x": [1], "label": [0]}))
    Traceback (most recent call last):
    ...
    cvframe.readers.ReaderError: no known format has the columns ['x', 'label']; ...
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame, not {type(df).__name__}.")
    found = formats_of(df)
    if len(found) == 1:
        return found[0]
    if not found:
        known = list(_known())
        raise ReaderError(
            f"no known format has the columns {columns_text(df)}; the formats known are "
            f"{known} (a cvframe predictions frame needs {list(CVFRAME_COLUMNS)}); pass "
            "format= to say which tool wrote it"
        )
    raise ReaderError(
        f"the columns {columns_text(df)} match several formats {found}: are outputs of "
        "different tools mixed in one file? Save each tool's output in its own file, or pass "
        "format= to say which one it is"
    )


#: Text outputs that are no CSV, known by their first lines: (format, words all present).
_TEXT_FORMATS = (("weka-predictions", ("inst#", "actual", "predicted")),)


def sniff(source: Any, known: dict[str, Any] | None = None) -> str | None:
    """The format of a tool's text output that is no CSV (WEKA's ``-p``), else None.

    Examples
    --------
    >>> sniff("no-such-file.txt") is None
    True
    """
    known = _known() if known is None else known
    if not isinstance(source, (str, os.PathLike)) or not os.path.isfile(source):
        return None
    with open(source, "rb") as fh:
        raw = fh.read(4096)
    head = raw.decode("utf-16" if raw.startswith(UTF16_BOMS) else "utf-8", "replace")
    for fmt, words in _TEXT_FORMATS:
        if fmt in known and all(w in head for w in words):
            return fmt
    return None


def read(source: Any, format: str | None = None, **kwargs: Any) -> Any:  # noqa: A002
    """Read a tool's cross-validation output into a predictions frame or a counts cube.

    Parameters
    ----------
    source : str, os.PathLike or pandas.DataFrame
        A CSV (or parquet) file written by the tool, or the frame already read. An Excel
        workbook is an error: export CSV.
    format : {None, "caret", "weka", "mlr3", "tidymodels", "sklearn", "cvframe"}
        The tool that wrote it; None detects it from the columns (:func:`detect`).
    **kwargs
        Passed to the tool's reader (``read_caret``, ``read_weka``, ...).

    Returns
    -------
    pandas.DataFrame or xarray.Dataset
        The predictions frame (``fold``, ``repeat`` when repeated, ``y_true``, ``y_pred``,
        scores; ``attrs["source"]`` names the tool) or, for per-fold count tables, the counts
        cube. A ``"cvframe"`` frame is returned as it is read.

    Raises
    ------
    ReaderError
        For an unknown format, a frame of no known format or of several, or what the tool's
        reader finds missing.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"fold": [0, 0, 1, 1], "y_true": [0, 1, 0, 1],
    ...                    "y_pred": [0, 1, 1, 1]})
    >>> out = read(df)
    >>> out.attrs["source"], int(out.cv.counts().tp.sum())
    ('cvframe', 2)
    """
    known = _known()
    if format is None:
        format = sniff(source, known)  # noqa: A001
    if format is None:
        df = read_table(source, "the predictions")
        format = detect(df)  # noqa: A001
    else:
        if not isinstance(format, str) or format not in set(FORMATS) | set(known):
            raise ReaderError(
                f"format={format!r} is not a known format; expected one of {list(FORMATS)}."
            )
        if format not in known:
            raise ReaderError(
                f"format={format!r}: the reader cvframe.readers.{format} is not available "
                "in this installation."
            )
        df = source if isinstance(source, pd.DataFrame) else None
    if format == "cvframe":
        if df is None:
            df = read_table(source, "the predictions")
        hint = "name the columns fold, y_true, y_pred, or pass format= the tool that wrote it"
        require(df, CVFRAME_COLUMNS, "a cvframe predictions frame", hint)
        if kwargs:
            raise TypeError(f"format='cvframe' takes no further arguments, got {sorted(kwargs)}.")
        if df.columns.duplicated().any() or df.empty:
            clean_columns(df.copy(), "the predictions frame")
            raise ReaderError("the predictions frame has no rows.")
        out = df.copy()
        out.attrs = {**df.attrs, "source": df.attrs.get("source", "cvframe")}
        return out
    return known[format][1](source if df is None else df, **kwargs)
