"""``cvframe explain FILE --reported 0.873``: which aggregation a reported number is."""

from __future__ import annotations

import argparse
import os
from typing import Any

from .. import metrics
from ..readers import FORMATS as READER_FORMATS
from ._common import UserError, integer, label, number

__all__ = ["FORMATS_IN", "OPTIONS", "add_arguments", "add_parser", "read_arguments", "run"]

#: Library argument names and the options that set them (``explain``'s and ``reconcile``'s).
SHARED = {
    "metric": "--metric",
    "pos_label": "--pos-label",
    "digits": "--digits",
    "beta": "--beta",
    "format": "--format-in",
}
OPTIONS = {"value": "--reported", **SHARED}

#: The metrics ``--metric`` takes: the count and score metrics of the registry (any other
#: name of one, a scikit-learn scorer name among them, is accepted too).
METRICS = metrics.names(("count", "score"))

#: The formats ``--format-in`` can force.
FORMATS_IN = list(READER_FORMATS)


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``explain`` to ``sub`` (an argparse subparsers object)."""
    p = sub.add_parser(
        "explain",
        help="which fold aggregation a reported number matches",
        description="Compute every fold aggregation of a metric (F_tp,fp, F_avg, F_pr,re, "
        "the skip variants, macro/micro/weighted; pooled and fold-averaged accuracy; "
        "AUC_avg/AUC_merge) from a tool's fold outputs, and say which ones the reported "
        "number matches within the rounding of its digits.",
    )
    reported = {"required": True, "help": "the reported number, e.g. 0.873 or 87.3"}
    add_arguments(p, reported, "", "reported decimal digits (default: those of --reported)")
    p.set_defaults(func=run, options=OPTIONS)
    return p


def add_arguments(
    p: argparse.ArgumentParser, reported: dict[str, Any], metric: str, digits: str
) -> None:
    """The arguments of ``explain`` and ``reconcile``: FILE, ``--reported`` (``reported``:
    its keywords), ``--metric`` (``metric``: more of its help), ``--format-in``,
    ``--pos-label``, ``--digits`` (``digits``: its help) and ``--beta``."""
    p.add_argument(
        "file",
        metavar="FILE",
        help="a tool's fold outputs (caret, WEKA, mlr3, tidymodels, scikit-learn CSV), a "
        "cvframe predictions file (.csv/.parquet) or a counts cube (.nc)",
    )
    p.add_argument("--reported", metavar="X", **reported)
    p.add_argument(
        "--metric",
        default="f",
        metavar="M",
        help=f"the metric: {', '.join(METRICS)}{metric}, or another name of one (a "
        "scikit-learn scorer name: f1, roc_auc...)",
    )
    p.add_argument(
        "--format-in",
        default=None,
        choices=FORMATS_IN,
        help="the tool that wrote FILE (default: detected from its columns)",
    )
    p.add_argument(
        "--pos-label", default=None, metavar="LABEL", help="positive class of a binary task"
    )
    p.add_argument("--digits", default=None, metavar="D", help=digits)
    p.add_argument("--beta", default="1", metavar="B", help="beta of F-beta")


def read_arguments(args: argparse.Namespace) -> tuple[Any, dict[str, Any]]:
    """FILE read, and the keyword arguments of ``explain`` and ``reconcile`` from the options
    (``digits``, ``beta``, ``pos_label``), checked first."""
    beta = number(args.beta, "--beta", 0.0)
    digits = None if args.digits is None else integer(args.digits, "--digits", 0)
    data = read_data(args.file, args.format_in)
    return data, {"digits": digits, "beta": beta, "pos_label": pos_label_of(args.pos_label, data)}


def read_data(path: str, format_in: str | None) -> Any:
    """FILE as a cube (.nc) or what :func:`cvframe.readers.read` makes of it."""
    if not os.path.exists(path):
        raise UserError(f"FILE {path!r} does not exist.")
    if os.path.splitext(path)[1].lower() in (".nc", ".netcdf", ".nc4"):
        if format_in not in (None, "cvframe"):
            raise UserError(f"--format-in {format_in} reads a CSV file, not the cube {path!r}.")
        from ..io import open_dataset

        return open_dataset(path).load()
    from .. import readers

    return readers.read(path, format=format_in)


def pos_label_of(value: str | None, data: Any) -> Any:
    if value is None:
        return None
    import pandas as pd

    if isinstance(data, pd.DataFrame) and "y_true" in data.columns:
        return label(value, data["y_true"])
    if "class" in getattr(data, "coords", {}):
        return next((c for c in data["class"].values.tolist() if str(c) == value), value)
    return value


def run(args: argparse.Namespace) -> int:
    """Handler of ``cvframe explain``."""
    from ..explanation import explain

    data, kwargs = read_arguments(args)
    # explain resolves scikit-learn's names (f1, roc_auc, ...)
    print(explain(args.reported, data, args.metric, **kwargs).text)
    return 0
