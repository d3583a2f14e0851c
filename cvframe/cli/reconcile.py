"""``cvframe reconcile FILE --reported A --reported B``: why two reported numbers disagree."""

from __future__ import annotations

import argparse
from typing import Any

from ._common import UserError, integer, number
from .explain import FORMATS_IN, METRICS, pos_label_of, read_data

__all__ = ["OPTIONS", "add_parser", "run"]

#: Library argument names and the options that set them.
OPTIONS = {
    "a": "--reported",
    "b": "--reported",
    "metric": "--metric",
    "pos_label": "--pos-label",
    "digits": "--digits",
    "beta": "--beta",
    "format": "--format-in",
}


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``reconcile`` to ``sub`` (an argparse subparsers object)."""
    p = sub.add_parser(
        "reconcile",
        help="why two reported numbers of the same folds disagree",
        description="Find the aggregation, fold weighting, undefined-fold policy and repeat "
        "handling that reproduce each of two reported numbers within their rounding, and "
        "split the gap between them into parts (repeats, undefined folds, fold-size "
        "weighting, the aggregation or, for AUC, the fold-to-fold calibration shift) that "
        "add up to the whole gap.",
    )
    p.add_argument(
        "file",
        metavar="FILE",
        help="a tool's fold outputs (caret, WEKA, mlr3, tidymodels, scikit-learn CSV), a "
        "cvframe predictions file (.csv/.parquet) or a counts cube (.nc)",
    )
    p.add_argument(
        "--reported",
        action="append",
        required=True,
        metavar="X",
        help="a reported number; give it twice (e.g. --reported 0.0397 --reported 0.04)",
    )
    p.add_argument(
        "--metric",
        default="f",
        metavar="M",
        help=f"the metric: {', '.join(METRICS)} (error: mlr's mmce), or another name of "
        "one (a scikit-learn scorer name: f1, roc_auc...)",
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
    p.add_argument(
        "--digits",
        default=None,
        metavar="D",
        help="reported decimal digits of both numbers (default: those of each --reported)",
    )
    p.add_argument("--beta", default="1", metavar="B", help="beta of F-beta")
    p.set_defaults(func=run, options=OPTIONS)
    return p


def run(args: argparse.Namespace) -> int:
    """Handler of ``cvframe reconcile``."""
    from ..explanation import reconcile

    if len(args.reported) != 2:
        raise UserError(
            f"--reported is given {len(args.reported)} time(s); give it exactly twice, once "
            "per number (--reported 0.0397 --reported 0.04)."
        )
    beta = number(args.beta, "--beta", 0.0)
    digits = None if args.digits is None else integer(args.digits, "--digits", 0)
    data = read_data(args.file, args.format_in)
    result = reconcile(
        args.reported[0],
        args.reported[1],
        data,
        args.metric,
        digits=digits,
        beta=beta,
        pos_label=pos_label_of(args.pos_label, data),
    )
    print(result.text)
    print()
    print(result.parts.to_string(index=False, float_format=lambda x: f"{x:+.6f}"))
    return 0
