"""``cvframe reconcile FILE --reported A --reported B``: why two reported numbers disagree."""

from __future__ import annotations

import argparse
from typing import Any

from ._common import UserError
from .explain import SHARED, add_arguments, read_arguments

__all__ = ["OPTIONS", "add_parser", "run"]

#: Library argument names and the options that set them.
OPTIONS = {"a": "--reported", "b": "--reported", **SHARED}


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
    reported = {
        "action": "append",
        "required": True,
        "help": "a reported number; give it twice (e.g. --reported 0.0397 --reported 0.04)",
    }
    digits = "reported decimal digits of both numbers (default: those of each --reported)"
    add_arguments(p, reported, " (error: mlr's mmce)", digits)
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
    data, kwargs = read_arguments(args)
    result = reconcile(args.reported[0], args.reported[1], data, args.metric, **kwargs)
    print(result.text)
    print()
    print(result.parts.to_string(index=False, float_format=lambda x: f"{x:+.6f}"))
    return 0
