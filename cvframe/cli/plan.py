"""``cvframe plan --counts 20,980 --k 10``: plan a CV study before fitting (:func:`plan`)."""

from __future__ import annotations

import argparse
from typing import Any

from ._common import UserError, integer, number, read_frame

__all__ = ["OPTIONS", "add_parser", "counts", "run"]

#: Library argument names and the options that set them.
OPTIONS = {
    "y_or_counts": "--counts",
    "k": "--k",
    "repeats": "--repeats",
    "stratified": "--unstratified",
    "f": "--f",
    "precision": "--precision",
    "recall": "--recall",
    "metric": "--metric",
    "auc": "--auc",
    "trials": "--trials",
    "random_state": "--seed",
    "pos_label": "--pos-label",
    "pilot": "--pilot",
}


def counts(text: str) -> dict[Any, int]:
    """``20,980`` (classes 0, 1, ...) or ``rare:20,common:980`` as {class: count}."""
    out: dict[Any, int] = {}
    for i, item in enumerate(x.strip() for x in text.split(",")):
        label, _, value = item.rpartition(":")
        key: Any = label.strip() if label else i
        out[key] = integer(value.strip(), "--counts", 0)
    return out


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``plan`` to ``sub`` (an argparse subparsers object)."""
    p = sub.add_parser(
        "plan",
        help="before fitting: undefined folds, estimator biases and a recommendation",
        description="For each class of a target (class counts, or a label column of a file), "
        "the chance of a fold without positives or without predicted positives, the bias "
        "and spread of the five F estimators and of AUC_avg and AUC_merge under simulated "
        "CV, and a recommendation (k, repeats, what to report) with its reason.",
    )
    src = p.add_mutually_exclusive_group(required=False)
    src.add_argument("--counts", metavar="N[,N...]", help="class counts, e.g. 20,980 or a:20,b:980")
    src.add_argument("--y", metavar="FILE", help="a CSV or parquet file with the labels")
    p.add_argument(
        "--pilot",
        metavar="FILE",
        help="a pilot predictions frame (CSV or parquet: y_true, y_pred, score, fold): plan "
        "for its precision, recall and AUC (and its labels, without --counts/--y)",
    )
    p.add_argument("--column", metavar="C", help="the label column(s) of --y, comma-separated "
                   "for a multilabel indicator (default: the only column)")  # fmt: skip
    p.add_argument("--k", default=None, metavar="K", help="folds (default 10, or the pilot's)")
    p.add_argument("--repeats", default="1", metavar="R", help="repetitions of the split")
    p.add_argument("--unstratified", action="store_true", help="random folds, not stratified")
    p.add_argument(
        "--f", default=None, metavar="F", help="assumed ground-truth F (default 0.8, said so)"
    )
    p.add_argument("--precision", default=None, metavar="P", help="assumed precision")
    p.add_argument("--recall", default=None, metavar="R", help="assumed recall")
    p.add_argument(
        "--metric",
        default="f",
        help="what the recommendation is about: f (F_tp,fp) or auc, by any name of the "
        "metric registry (f1, roc_auc, ...)",
    )
    p.add_argument(
        "--auc", default=None, metavar="A", help="assumed AUC of the scores (default 0.85)"
    )
    p.add_argument("--trials", default="20000", metavar="T", help="Monte-Carlo trials")
    p.add_argument("--seed", default="0", metavar="S", help="seed of the simulations")
    p.add_argument("--pos-label", default=None, metavar="LABEL", help="positive class (binary)")
    p.set_defaults(func=run, options=OPTIONS)
    return p


def _target(args: argparse.Namespace) -> Any:
    if args.counts is None and args.y is None:
        if args.pilot is None:
            raise UserError("give the target: --counts N,N..., --y FILE or --pilot FILE.")
        return None
    if args.counts is not None:
        if args.column is not None:
            raise UserError("--column names a column of --y FILE; --counts takes no column.")
        return counts(args.counts)
    frame = read_frame(args.y, "--y FILE")
    cols = [c.strip() for c in args.column.split(",")] if args.column else list(frame.columns)
    missing = [c for c in cols if c not in frame.columns]
    if missing:
        raise UserError(
            f"--column {','.join(missing)} is not a column of {args.y}; its columns are "
            f"{', '.join(map(str, list(frame.columns)[:12]))}."
        )
    if len(cols) == 1:
        return frame[cols[0]].to_numpy()
    return frame[cols]


def _rate(value: str | None, option: str) -> float | None:
    return None if value is None else number(value, option, 0.0)


def run(args: argparse.Namespace) -> int:
    """Handler of ``cvframe plan``."""
    from ..simulation import plan

    y = _target(args)
    pilot = None if args.pilot is None else read_frame(args.pilot, "--pilot FILE")
    pos_label = args.pos_label
    if pos_label is not None and isinstance(y, dict):
        pos_label = next((c for c in y if str(c) == pos_label), pos_label)
    result = plan(
        y,
        k=None if args.k is None else integer(args.k, "--k", 2),
        repeats=integer(args.repeats, "--repeats", 1),
        stratified=not args.unstratified,
        f=None if args.f is None else number(args.f, "--f", 0.0),
        precision=_rate(args.precision, "--precision"),
        recall=_rate(args.recall, "--recall"),
        metric=args.metric,
        auc=None if args.auc is None else number(args.auc, "--auc", 0.0),
        trials=integer(args.trials, "--trials", 1),
        random_state=integer(args.seed, "--seed", 0),
        pos_label=pos_label,
        pilot=pilot,
    )
    print(result)
    return 0
