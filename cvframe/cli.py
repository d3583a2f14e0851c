"""The ``cvframe`` command line: ``main(argv) -> int``; I/O and calls to the public API only.

Exit codes: 0 on success, 2 on a user error (one line on stderr naming the problem, no
traceback).
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import pandas as pd

__all__ = ["main"]


class UserError(Exception):
    """A problem with the user's input: reported in one line, exit code 2."""


def _methods_table(name: str, ds) -> str:
    """The apples-to-apples table of one cube: per-fold counts and the five F methods."""
    from .reduce import f_methods

    per_fold = pd.DataFrame({
        "tp": ds.tp.values.ravel(), "fp": ds.fp.values.ravel(), "fn": ds.fn.values.ravel(),
        "tn": ds.tn.values.ravel(),
        "precision": ds.cv.precision(zero_division=0.0).values.ravel(),
        "recall": ds.cv.recall(zero_division=0.0).values.ravel(),
        "F": ds.cv.f(zero_division=0.0).values.ravel(),
    }, index=pd.Index(ds.fold.values, name="fold"))
    methods = f_methods(ds, zero_division=0.0)
    summary = pd.Series({k: v.item() for k, v in methods.data_vars.items()}, name="F")
    lines = [f"== {name}: {ds.attrs.get('source', '')}", per_fold.round(3).to_string(), "",
             "five aggregations of the same folds (zero_division=0):",
             summary.round(4).to_string()]
    return "\n".join(lines)


def _cmd_demo(args: argparse.Namespace) -> int:
    from . import datasets

    blocks = [_methods_table(n, datasets.load(n)) for n in ("table1", "table2")]
    print("\n\n".join(blocks))
    print("\nRecommended: f_tp_fp (pool TP, FP, FN over folds, then F) — the only one of the"
          "\nfive that is essentially unbiased (Forman & Scholz 2010, §4).")
    return 0


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="cvframe",
        description="Honest, comparable classifier evaluation under cross-validation.",
    )
    parser.add_argument("--version", action="version", version=f"cvframe {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = sub.add_parser("demo", help="the apples-to-apples report on the embedded data")
    demo.add_argument("--out", metavar="DIR", default=None,
                      help="directory for the cube (netCDF), plots (PNG) and HTML report")
    demo.set_defaults(func=_cmd_demo)
    from . import _simulate_cli  # issue 6: `cvframe simulate` (parser and handler live there)

    _simulate_cli.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 2 user error)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except (UserError, FileNotFoundError, KeyError, ValueError, TypeError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"cvframe {args.command}: error: {msg}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
