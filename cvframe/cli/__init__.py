"""The ``cvframe`` command line: ``main(argv) -> int``; I/O and calls to the public API only.

Subcommands (one module each):

- ``cvframe demo [--out DIR]``: repeated stratified 10-fold CV of three scikit-learn
  classifiers (fitted in parallel) on a binary and a multiclass data set shipped with
  scikit-learn; prints the apples-to-apples report and writes the cubes (netCDF), the plots
  (PNG) and ``report.html``.
- ``cvframe report PREDICTIONS.csv|.parquet [--fold-col ...] [--labels a,b] [--model-col M]
  [--title T] [--out DIR] [--format ...]``: the report of a predictions frame written by any
  tool.
- ``cvframe simulate ...``: the bias study of :func:`cvframe.bias_study`.
- ``cvframe explain FILE --reported 0.873 [--metric f|accuracy|auc] [--format-in ...]``:
  which fold aggregation a reported number matches (:func:`cvframe.explain.explain`).
- ``cvframe reconcile FILE --reported A --reported B [--metric ...]``: why two reported
  numbers of the same folds disagree (:func:`cvframe.explain.reconcile`).
- ``cvframe plan --counts 20,980 | --y FILE [--column C] [--k K] [--repeats R] ...``: plan a
  study before fitting (:func:`cvframe.simulation.plan`).

Exit codes: 0 on success, 2 on a user error: one line on stderr, in the command line's words
(``--pos-label``, never ``pos_label=``), no traceback. Warnings are printed as one line each.
Set ``CVFRAME_DEBUG=1`` to see the traceback of an error. Progress bars (tqdm, on stderr)
show on long steps when stderr is a terminal; ``--no-progress`` or ``CVFRAME_PROGRESS=0``
hides them, ``CVFRAME_PROGRESS=1`` forces them. Every ``--help`` shows the defaults.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence

from . import demo, explain, plan, reconcile, report, simulate
from ._common import Parser, UserError, first_line, translate
from .demo import DEMO_FOLDS, DEMO_REPEATS

__all__ = ["DEMO_FOLDS", "DEMO_REPEATS", "UserError", "build_parser", "main"]

#: The errors a user's input or files can cause: one line, exit code 2. ArithmeticError
#: covers overflow of ids that do not fit the library's integers; LookupError a missing key.
USER_ERRORS = (UserError, OSError, LookupError, ValueError, TypeError, ArithmeticError)


def build_parser() -> Parser:
    """The argument parser of ``cvframe`` with its subcommands."""
    return _build()[0]


def _build() -> tuple[Parser, dict[str, Parser]]:
    """The parser and each subcommand's parser by name."""
    from .._version import __version__

    parser = Parser(
        prog="cvframe",
        description="Honest, comparable classifier evaluation under cross-validation: every "
        "fold kept, every aggregation named (Forman & Scholz 2010).",
    )
    parser.add_argument("--version", action="version", version=f"cvframe {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    mods = (demo, report, simulate, explain, reconcile, plan)
    return parser, {m.__name__.rsplit(".", 1)[1]: m.add_parser(sub) for m in mods}


def _columns_of(args: argparse.Namespace) -> dict[str, str] | None:
    """The columns the user named, for the subcommands that read a file."""
    return args.columns(args) if getattr(args, "columns", None) else None


def _one_role(args: argparse.Namespace, sub: Parser | None) -> None:
    """Refuse a column named for two roles (``--fold-col r --repeat-col r``): it would label
    every aggregation wrongly (a per-fold mean over one fold per repeat is no F_avg)."""
    roles: dict[str, list[str]] = {}
    for name, col in (_columns_of(args) or {}).items():
        opt = args.options.get(name, name)
        default = sub.get_default(f"{name}_col") if sub is not None else None
        roles.setdefault(col, []).append(opt + (" (its default)" if col == default else ""))
    if getattr(args, "model_col", None) is not None:
        roles.setdefault(args.model_col, []).append("--model-col")
    for dim in dict.fromkeys(x.strip() for x in (getattr(args, "dims", None) or "").split(",")):
        if dim:
            roles.setdefault(dim, []).append("--dims")
    for col, opts in roles.items():
        if len(opts) > 1:
            raise UserError(
                f"column {col!r} is given {len(opts)} roles ({', '.join(opts)}); a column has "
                "one role: name a different column for each of fold, repeat, true and "
                "predicted label, score, model and dims."
            )


def _say(command: str, kind: str, message: str) -> None:
    print(f"cvframe {command}: {kind}: {message}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 2 user error)."""
    parser, subs = _build()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:  # said by the subcommand, so that its --help is the one suggested
            subs.get(getattr(args, "command", None) or "", parser).error(
                f"unrecognized arguments: {' '.join(extra)}"
            )
    except SystemExit as exc:
        return int(exc.code or 0)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2

    caught: list[warnings.WarningMessage] | None = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            _one_role(args, subs.get(args.command))
            code = int(args.func(args))
    except UserError as exc:  # already in the command line's words; no list syntax left
        _say(args.command, "error", translate(first_line(exc), {}))
        return 2
    except Exception as exc:  # noqa: BLE001 - no traceback on a user's file, even on a bug
        if os.environ.get("CVFRAME_DEBUG"):
            raise
        message = translate(first_line(exc), args.options, _columns_of(args))
        if not isinstance(exc, USER_ERRORS):
            message = (
                f"unexpected {type(exc).__name__}: {message} (CVFRAME_DEBUG=1 shows "
                "the traceback; please report it)"
            )
        _say(args.command, "error", message)
        return 2
    finally:
        for text in dict.fromkeys(first_line(w.message) for w in caught or []):
            _say(args.command, "warning", translate(text, args.options, _columns_of(args)))
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
