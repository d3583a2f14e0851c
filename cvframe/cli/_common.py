"""What every subcommand shares: one-line errors in the command line's own words, file I/O.

The library names its arguments (``pos_label=``, ``labels=[...]``, ``y_true``); a user of the
command line knows options (``--pos-label``, ``--labels a,b``, ``--y-true-col``). Each
subcommand declares one mapping from argument names to its options, and :func:`translate`
rewrites a library message with it, in this one place.
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import re
import sys
from collections.abc import Mapping
from typing import Any, NoReturn

import pandas as pd


class UserError(Exception):
    """A problem with the user's input: reported in one line, exit code 2."""


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` with every default shown, but for ``None`` defaults and on/off flags."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if action.default is None or action.nargs == 0 or "%(default)" in text:
            return text
        return super()._get_help_string(action)


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit code 2, no usage dump) and defaults in ``--help``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)


def first_line(exc: BaseException | str) -> str:
    """The first line of an exception's message (a KeyError without its quotes)."""
    text = str(exc.args[0] if isinstance(exc, KeyError) and exc.args else exc).strip()
    return text.splitlines()[0].strip() if text else type(exc).__name__


# --- library words -> command-line words --------------------------------------------------------

#: Python code in a hint (``y.astype(str)``, ``df['score']``, ``sample_weight=...``): a hint
#: the command line cannot follow, so it is left out.
_CODE = re.compile(
    r"\w\.\w+\(|\w\[['\"]|\bds\.cv\b|\bdf\.cv\b|\bcvframe\.\w|(?<![-\w'\"])[A-Za-z_]\w*=(?!=)"
)
_NOT_AFTER = r"(?<![-\w.'\"])"  # an argument name, not part of a word, option or quoted value


def _as_list(option: str, m: re.Match[str]) -> str:
    """A Python list's inside (``m``'s group 1: ``'a', 'b'``) as ``--option a,b``."""
    items = (x.strip().strip("'\"") for x in m.group(1).split(",") if x.strip())
    return f"{option} {','.join(items)}"


def _strip_code(message: str) -> str:
    """Drop parenthetical hints and trailing sentences written as Python code."""
    out, depth, start, keep = [], 0, 0, []
    for i, ch in enumerate(message):  # top-level parentheses
        if ch == "(":
            if depth == 0:
                start = i
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
            if depth == 0:
                keep.append((start, i + 1))
    last = 0
    for a, b in keep:
        if _CODE.search(message[a:b]):
            out.append(message[last:a].rstrip())
            last = b
    text = "".join(out) + message[last:]
    parts = re.split(r"(?<=[.;])\s+", text)
    kept = [parts[0]] + [p for p in parts[1:] if not _CODE.search(p)]
    text = " ".join(kept).strip()
    if text.endswith(";"):
        text = text[:-1] + "."
    return text


#: ``[a, b]`` or ``(a, b)`` after a keyword (``fold=[1, 3]``, ``dims=('a', 'b')``).
_KEYWORD_LIST = re.compile(r"(?<![-\w.'\"])([A-Za-z_]\w*)=[\[(]([^\])]*)[\])]")
#: ``name=value`` left over: a place in the cube (``fold=3``, ``class='cat'``).
_KEYWORD = re.compile(r"(?<![-\w.'\"])([A-Za-z_]\w*)=(?!=)")
#: A Python list literal: ``['a', 'b']``, ``[nan]``, ``[]``.
_LIST = re.compile(r"\[([^\[\]]*)\]")


def _words(message: str) -> str:
    """Python syntax left in a message, in words: ``fold=[1, 3]`` -> ``fold 1, 3``."""
    message = _KEYWORD_LIST.sub(lambda m: f"{m.group(1)} {m.group(2).strip()}", message)
    message = _KEYWORD.sub(lambda m: f"{m.group(1)} ", message)

    def items(m: re.Match[str]) -> str:
        inside = m.group(1).strip()
        return f"({inside})" if inside else "(none)"

    return _LIST.sub(items, message)


def translate(
    message: str, options: Mapping[str, str], columns: Mapping[str, str] | None = None
) -> str:
    """A library message in command-line words.

    ``options`` maps argument names to options (``{"pos_label": "--pos-label"}``);
    ``columns`` maps the arguments that name a column to the column the user gave
    (``{"y_true": "label"}``): such an argument is only rewritten where it names the column
    (``fold='split'``), never where the dimension names a place (``fold=[1, 3]``, which
    becomes ``fold 1, 3``). Hints written as Python code are left out; no keyword syntax
    (``name=value``) is left, and a list (``[a, b]``) becomes ``(a, b)``.

    >>> translate("pos_label='eggs' is not a label; pass pos_label= (one of them) "
    ...           "or labels=['ham', 'spam'] (e.g. y.astype(str)).",
    ...           {"pos_label": "--pos-label", "labels": "--labels"})
    "--pos-label 'eggs' is not a label; pass --pos-label (one of them) or --labels ham,spam."
    >>> translate("y_true has missing labels [nan] at fold=[1, 3]", {"y_true": "--y-true-col"},
    ...           {"y_true": "label"})
    "--y-true-col 'label' has missing labels (nan) at fold 1, 3"
    """
    columns = columns or {}
    for name in sorted(options, key=len, reverse=True):
        opt, n = options[name], re.escape(name)
        # name=[a, b] -> --opt a,b
        if name not in columns:
            as_list = functools.partial(_as_list, opt)
            message = re.sub(rf"{_NOT_AFTER}{n}=[\[(]([^\])]*)[\])]", as_list, message)
        # name= (nothing, or "...") -> --opt
        message = re.sub(rf"{_NOT_AFTER}{n}=(\.\.\.)?(?=[\s).,;]|$)", opt, message)
        # name=value -> --opt value (a column argument only with a quoted value)
        value = "['\"]" if name in columns else r"[^\s\[]"
        message = re.sub(rf"{_NOT_AFTER}{n}=(?={value})", f"{opt} ", message)
        if name in columns:  # "score column 'score'" -> "--score-col 'score'"
            message = re.sub(rf"{_NOT_AFTER}{n} column (?=['\"])", f"{opt} ", message)
        # a bare identifier (has an underscore, so it is no English word) -> --opt ['column']
        bare = f"{opt} {columns[name]!r}" if name in columns else opt
        bare = bare.replace("\\", r"\\")  # inserted as it is, no backslash escapes
        if "_" in name:
            message = re.sub(rf"{_NOT_AFTER}{n}(?![\w'\"=])", bare, message)
        else:  # an argument opening the message: "fold has ...", "labels has ..."
            message = re.sub(rf"^{n}(?= (?!column))", bare, message)
    return _words(_strip_code(message))


def listing(items: Any, limit: int = 12) -> str:
    """Items as ``'a', 'b', ...`` (at most ``limit`` of them), for a one-line message."""
    items = list(items)
    text = ", ".join(repr(x) if isinstance(x, str) else str(x) for x in items[:limit])
    return text + (f", ... ({len(items)} in all)" if len(items) > limit else "")


# --- progress ------------------------------------------------------------------------------------


def progress(args: argparse.Namespace) -> bool | None:
    """Whether to show progress bars: ``False`` with ``--no-progress``, else what
    ``CVFRAME_PROGRESS`` says (:func:`cvframe.runner.progress_from_env`)."""
    if getattr(args, "no_progress", False):
        return False
    if not os.environ.get("CVFRAME_PROGRESS", "").strip():
        return None  # unset: the default rule (what progress_from_env says, without its import)
    from ..runner import progress_from_env

    return progress_from_env()


def _hidden(show: bool | None) -> bool:
    """Whether tqdm would hide the bar anyway (then it is not imported): ``show`` is None and
    stderr says it is no terminal (tqdm's rule for ``disable=None``), outside IPython (where
    ``tqdm.auto`` may draw a widget instead: it decides there)."""
    if show is not None or "IPython" in sys.modules:
        return show is False
    try:
        return hasattr(sys.stderr, "isatty") and not sys.stderr.isatty()
    except ValueError:  # a closed stream
        return True


class Steps:
    """A progress bar over a command's named steps (tqdm, on stderr; ``show``: :func:`progress`)."""

    def __init__(self, total: int, desc: str, show: bool | None) -> None:
        self._bar: Any = None
        self._started = False
        if _hidden(show):
            return
        from tqdm.auto import tqdm

        disable = None if show is None else False
        self._bar = tqdm(total=total, desc=desc, unit="step", disable=disable, leave=False)

    def step(self, what: str) -> None:
        """Start step ``what`` (the previous one is done)."""
        if self._bar is not None:
            if self._started:
                self._bar.update(1)
            self._started = True
            self._bar.set_postfix_str(what, refresh=True)

    def close(self) -> None:
        """The last step is done; the bar is removed (closing twice is fine)."""
        if self._bar is not None:
            if self._started:
                self._bar.update(1)
            self._bar.close()
            self._bar = None


# --- option values ------------------------------------------------------------------------------


def zero_division(value: str) -> Any:
    """``--zero-division`` as the library's value."""
    if value == "warn":
        return "warn"
    try:
        num = float(value)
    except ValueError:
        num = math.inf
    if not (num in (0.0, 1.0) or math.isnan(num)):
        raise UserError(f"--zero-division {value!r} is not valid; expected one of warn, 0, 1, nan.")
    return num


def number(
    value: str, name: str, low: float, high: float | None = None, low_open: bool = False
) -> float:
    """A finite number option ``>= low`` (``> low`` when ``low_open``) and ``< high``."""
    try:
        num = float(value)
    except ValueError:
        raise UserError(f"{name} {value!r} is not a number.") from None
    too_low = num <= low if low_open else num < low
    if not math.isfinite(num) or too_low or (high is not None and num >= high):
        rng = f"{'>' if low_open else '>='} {low:g}"
        if high is not None:
            rng += f" and < {high:g}"
        raise UserError(f"{name} {value!r} must be a finite number {rng}.")
    return num


def integer(value: str, name: str, low: int) -> int:
    """An integer option ``>= low``."""
    try:
        num = int(value)
    except ValueError:
        raise UserError(f"{name} {value!r} is not an integer.") from None
    if num < low:
        raise UserError(f"{name} {value!r} must be an integer >= {low}.")
    return num


def label(value: str | None, column: pd.Series) -> Any:
    """A label given on the command line, in the dtype of the label column."""
    if value is None:
        return None
    types = pd.api.types
    if types.is_bool_dtype(column) and value.lower() in ("true", "1", "false", "0"):
        return value.lower() in ("true", "1")
    for kind, is_kind in ((int, types.is_integer_dtype), (float, types.is_float_dtype)):
        if is_kind(column):
            try:
                return kind(value)
            except ValueError:
                pass
    return value


def labels(value: str | None, column: pd.Series, option: str = "--labels") -> list[Any] | None:
    """A comma list of labels (``--labels a,b``), each in the dtype of the label column."""
    if value is None:
        return None
    items = [x.strip() for x in value.split(",")]
    if not any(items) or not all(items):
        raise UserError(
            f"{option} {value!r} must be a comma-separated list of labels, e.g. {option} cat,dog."
        )
    return [label(x, column) for x in items]


# --- files --------------------------------------------------------------------------------------


def csv_engine() -> str:
    """The faster CSV engine here: pyarrow's multithreaded parser on 4 cores or more (when
    installed), else pandas' ``"c"``. On 2 cores pyarrow reads a 10^6-row file no faster than
    the C engine and its import adds about 0.1 s to a fresh process."""
    if (os.cpu_count() or 1) < 4:
        return "c"
    try:
        import pyarrow.csv  # noqa: F401
    except ImportError:
        return "c"
    return "pyarrow"


def read_csv(path: str, engine: str | None = None) -> pd.DataFrame:
    """A CSV file read with ``engine`` (default :func:`csv_engine`); pyarrow's failures are
    retried with pandas' C engine, whose messages users know."""
    engine = engine or csv_engine()
    if engine == "pyarrow":
        try:
            frame = pd.read_csv(path, engine="pyarrow")
        except PermissionError:
            raise
        except Exception:  # noqa: BLE001 - the C engine says what is wrong, or reads it
            pass
        else:
            if _as_c_engine_reads(frame):
                return frame
    return pd.read_csv(path, engine="c", low_memory=False)


def _as_c_engine_reads(frame: pd.DataFrame) -> bool:
    """Whether pyarrow read ``frame`` as pandas' C engine does (no parsed dates, no integers
    beyond int64 read as float64)."""
    import numpy as np

    for name in frame.columns:
        col = frame[name]
        if col.dtype == object and len(col) and not isinstance(col.iloc[0], str):
            return False  # datetime.date, time, ... objects
        if pd.api.types.is_datetime64_any_dtype(col) or pd.api.types.is_timedelta64_dtype(col):
            return False
        if col.dtype == np.float64:
            values = col.to_numpy()
            big = values[np.isfinite(values) & (np.abs(values) >= 2.0**53)]
            if big.size and np.all(np.floor(big) == big):
                return False
    return True


READERS = {".csv": read_csv, ".parquet": pd.read_parquet, ".pq": pd.read_parquet}


def read_frame(path: str, what: str = "PREDICTIONS") -> pd.DataFrame:
    """A .csv or .parquet file as a frame; every failure is a :class:`UserError`."""
    if not os.path.exists(path):
        raise UserError(f"{what} file {path!r} does not exist.")
    if os.path.isdir(path):
        raise UserError(f"{what} {path!r} is a directory; give a .csv or .parquet file.")
    ext = os.path.splitext(path)[1].lower()
    from .. import readers

    kind = readers.file_kind(path) if os.access(path, os.R_OK) else "text"
    if kind == "excel":
        raise UserError(
            f"{what} {path!r} is an Excel workbook (whatever its extension); export it as CSV "
            "(File > Save As > CSV) and give that file."
        )
    if kind == "parquet":
        ext = ".parquet"  # a parquet file under another name is read as what it is
    if ext not in READERS:
        raise UserError(
            f"{what} {path!r} has unknown format {ext or '(no extension)'!r};"
            " expected one of .csv, .parquet."
        )
    try:
        frame = READERS[ext](path)
    except PermissionError:
        raise UserError(f"cannot read {what} {path!r}: permission denied.") from None
    except Exception as exc:  # noqa: BLE001 - any reader failure is the user's file
        raise UserError(
            f"cannot read {path!r} as {ext[1:]}: {type(exc).__name__}: {first_line(exc)}"
        ) from None
    if frame.empty:
        raise UserError(f"{what} {path!r} has no rows.")
    names = pd.Index(readers.written_columns(path) if ext == ".csv" else frame.columns)
    if names.duplicated().any():  # a CSV reader renames them (fold, fold.1): its header tells
        dup = list(dict.fromkeys(names[names.duplicated()]))
        raise UserError(
            f"{what} {path!r} has duplicated columns {listing(dup)}; name each column once."
        )
    return frame


def out_dir(path: str) -> str:
    """``--out DIR``, created if needed."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise UserError(f"--out {path!r} exists and is not a directory.")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create --out directory {path!r}: {exc.strerror}.") from None
    return path


def save_figure(obj: Any, path: str) -> str:
    """Write an Axes, Figure or FacetGrid to ``path`` and close it."""
    fig = getattr(obj, "figure", obj)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return path
