"""What every subcommand shares: one-line errors in the command line's own words, file I/O.

The library names its arguments (``pos_label=``, ``labels=[...]``, ``y_true``); a user of the
command line knows options (``--pos-label``, ``--labels a,b``, ``--y-true-col``). Each
subcommand declares one mapping from argument names to its options, and :func:`translate`
rewrites a library message with it, in this one place.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

import pandas as pd

__all__ = [
    "Parser",
    "UserError",
    "first_line",
    "label",
    "labels",
    "number",
    "out_dir",
    "read_frame",
    "save_figure",
    "translate",
    "zero_division",
]


class UserError(Exception):
    """A problem with the user's input: reported in one line, exit code 2."""


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit code 2, no usage dump)."""

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
_CODE = re.compile(r"\w\.\w+\(|\w\[['\"]|\bds\.cv\b|\bdf\.cv\b|(?<![-\w'\"])[A-Za-z_]\w*=(?!=)")
_NOT_AFTER = r"(?<![-\w.'\"])"  # an argument name, not part of a word, option or quoted value


def _commas(items: str) -> str:
    """``'a', 'b'`` (a Python list's inside) as ``a,b``."""
    return ",".join(x.strip().strip("'\"") for x in items.split(",") if x.strip())


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


def _literal(text: str) -> Callable[[re.Match[str]], str]:
    """A replacement that inserts ``text`` as it is (no backslash escapes)."""

    def replace(_: re.Match[str]) -> str:
        return text

    return replace


def _as_list(option: str) -> Callable[[re.Match[str]], str]:
    """A replacement of a Python list's inside by ``--option=a,b``."""

    def replace(m: re.Match[str]) -> str:
        return f"{option}={_commas(m.group(1))}"

    return replace


def translate(
    message: str, options: Mapping[str, str], columns: Mapping[str, str] | None = None
) -> str:
    """A library message in command-line words.

    ``options`` maps argument names to options (``{"pos_label": "--pos-label"}``);
    ``columns`` maps the arguments that name a column to the column the user gave
    (``{"y_true": "label"}``): such an argument is only rewritten where it names the column
    (``fold='split'``), never where the dimension names a place (``fold=[1, 3]``).

    >>> translate("pos_label='eggs' is not a label; pass pos_label= (one of them) "
    ...           "or labels=['ham', 'spam'] (e.g. y.astype(str)).",
    ...           {"pos_label": "--pos-label", "labels": "--labels"})
    "--pos-label='eggs' is not a label; pass --pos-label (one of them) or --labels=ham,spam."
    >>> translate("y_true has missing labels [nan]", {"y_true": "--y-true-col"},
    ...           {"y_true": "label"})
    "--y-true-col 'label' has missing labels [nan]"
    """
    columns = columns or {}
    for name in sorted(options, key=len, reverse=True):
        opt, n = options[name], re.escape(name)
        # name=[a, b] -> --opt=a,b
        if name not in columns:
            message = re.sub(
                rf"{_NOT_AFTER}{n}=\[([^\]]*)\]",
                _as_list(opt),
                message,
            )
        # name= (nothing, or "...") -> --opt
        message = re.sub(rf"{_NOT_AFTER}{n}=(\.\.\.)?(?=[\s).,;]|$)", opt, message)
        # name=value -> --opt=value (a column argument only with a quoted value)
        value = "['\"]" if name in columns else r"[^\s\[]"
        message = re.sub(rf"{_NOT_AFTER}{n}=(?={value})", f"{opt}=", message)
        if name in columns:  # "score column 'score'" -> "--score-col 'score'"
            message = re.sub(rf"{_NOT_AFTER}{n} column (?=['\"])", f"{opt} ", message)
        # a bare identifier (has an underscore, so it is no English word) -> --opt ['column']
        bare = f"{opt} {columns[name]!r}" if name in columns else opt
        if "_" in name:
            message = re.sub(rf"{_NOT_AFTER}{n}(?![\w'\"=])", _literal(bare), message)
        elif name in columns:  # a column argument opening the message: "fold has ..."
            message = re.sub(rf"^{n}(?= (?!column))", _literal(bare), message)
    return _strip_code(message)


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
        raise UserError(f"--zero-division={value!r} is not valid; expected one of warn, 0, 1, nan.")
    return num


def number(value: str, name: str, low: float, high: float | None = None) -> float:
    """A finite number option in ``[low, high)``."""
    try:
        num = float(value)
    except ValueError:
        raise UserError(f"{name}={value!r} is not a number.") from None
    if not math.isfinite(num) or num < low or (high is not None and num >= high):
        rng = f">= {low:g}" if high is None else f"in [{low:g}, {high:g})"
        raise UserError(f"{name}={value!r} must be a finite number {rng}.")
    return num


def label(value: str | None, column: pd.Series) -> Any:
    """A label given on the command line, in the dtype of the label column."""
    if value is None:
        return None
    if pd.api.types.is_bool_dtype(column):
        if value.lower() in ("true", "1"):
            return True
        if value.lower() in ("false", "0"):
            return False
    elif pd.api.types.is_integer_dtype(column):
        try:
            return int(value)
        except ValueError:
            pass
    elif pd.api.types.is_float_dtype(column):
        try:
            return float(value)
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
            f"{option}={value!r} must be a comma-separated list of labels, e.g. {option} cat,dog."
        )
    return [label(x, column) for x in items]


# --- files --------------------------------------------------------------------------------------

READERS = {".csv": pd.read_csv, ".parquet": pd.read_parquet, ".pq": pd.read_parquet}


def read_frame(path: str, what: str = "PREDICTIONS") -> pd.DataFrame:
    """A .csv or .parquet file as a frame; every failure is a :class:`UserError`."""
    if not os.path.exists(path):
        raise UserError(f"{what} file {path!r} does not exist.")
    if os.path.isdir(path):
        raise UserError(f"{what} {path!r} is a directory; give a .csv or .parquet file.")
    ext = os.path.splitext(path)[1].lower()
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
    if frame.columns.duplicated().any():
        dup = list(dict.fromkeys(frame.columns[frame.columns.duplicated()]))
        raise UserError(f"{what} {path!r} has duplicated columns {dup}; name each column once.")
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
