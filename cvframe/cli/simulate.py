"""``cvframe simulate``: the bias study of :func:`cvframe.bias_study` from the command line."""

from __future__ import annotations

import argparse
import os
from typing import Any

from ._common import UserError, out_dir, progress

__all__ = ["OPTIONS", "add_parser", "run", "table"]

#: Library argument names and the options that set them.
OPTIONS = {
    "prevalence": "--prevalence",
    "f": "--f",
    "precision": "--precision",
    "recall": "--recall",
    "trials": "--trials",
    "n": "--n",
    "k": "--k",
    "seed": "--seed",
    "scheduler": "--scheduler",
    "exact": "--no-exact",
}


def _floats(text: str) -> list[float]:
    """A list option's numbers (``0.1,0.2`` or ``"0.1 0.2"``); an empty item is an error."""
    items = [x.strip() for x in text.split(",")]
    try:
        if not all(items):
            raise ValueError(text)
        return [float(x) for item in items for x in item.split()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected numbers separated by commas (e.g. 0.01,0.1), got {text!r}"
        ) from None


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``simulate`` to ``sub`` (an argparse subparsers object)."""
    p = sub.add_parser(
        "simulate",
        help="bias and spread of the five F-measure estimators under simulated CV",
        description="Simulate repeated k-fold CV of a classifier with known F (precision = "
        "recall = F unless --precision/--recall say otherwise) and report each F "
        "aggregation's relative bias and relative standard deviation (Forman & Scholz "
        "2010, Section 4).",
    )
    p.add_argument(
        "--prevalence",
        type=_floats,
        action="extend",
        metavar="P[,P...]",
        help="share(s) of positives, comma-separated or repeated (default: "
        "0.01,0.02,0.05,0.1,0.25)",
    )
    p.add_argument(
        "--f",
        type=_floats,
        action="extend",
        metavar="F[,F...]",
        help="ground-truth F value(s), comma-separated or repeated (default: 0.8)",
    )
    for flag, text in (
        ("--precision", "ground-truth precision (with --recall or --f; default: = recall = F)"),
        ("--recall", "ground-truth recall (with --precision or --f; default: = precision = F)"),
    ):
        p.add_argument(flag, type=float, metavar="R", help=text)
    p.add_argument("--trials", type=int, default=100_000, metavar="T", help="trials per point")
    p.add_argument("--n", type=int, default=1000, metavar="N", help="cases in the data set")
    p.add_argument("--k", type=int, default=10, metavar="K", help="folds")
    for flag, text in (
        ("--unstratified", "random folds instead of stratified ones"),
        ("--both", "stratified and unstratified"),
        ("--no-exact", "Monte Carlo only (skip the exact values)"),
    ):
        p.add_argument(flag, action="store_true", help=text)
    for flag, meta, text in (
        ("--scheduler", "ADDRESS", "dask.distributed scheduler address (default: local threads)"),
        ("--seed", "S", "root seed of a reproducible study (default: fresh entropy)"),
        ("--out", "DIR", "write the study to DIR/bias_study.nc (default: print only)"),
    ):
        p.add_argument(flag, metavar=meta, help=text, type=int if flag == "--seed" else None)
    p.add_argument(
        "--no-progress",
        "--quiet",
        dest="no_progress",
        action="store_true",
        help="no progress bar (shown on a terminal)",
    )
    p.set_defaults(func=run, options=OPTIONS)
    return p


def table(study: Any) -> str:
    """The study as text: relative bias (and std) in percent, one row per grid point."""
    import pandas as pd

    bias = study.rel_bias.to_series().unstack("estimator") * 100
    se = study.rel_bias_se.to_series().unstack("estimator") * 100
    std = study.rel_std.to_series().unstack("estimator") * 100
    und = study.p_undefined.to_series() * 100
    exact = study.exact.to_series().unstack("estimator")
    cols = list(study.estimator.values)
    fmt = pd.DataFrame(index=bias.index)
    for c in cols:
        fmt[c] = [
            f"{b:+.3f}" + ("" if e else f"±{2 * s:.3f}")
            for b, s, e in zip(bias[c], se[c], exact[c], strict=True)
        ]
    fmt["P(undef fold) %"] = und.reindex(bias.index).map(lambda x: f"{x:.3g}")
    lines = [
        f"Relative bias (mean F - f)/f in %, {study.attrs['k']}-fold CV of "
        f"n={study.attrs['n']}, {study.attrs['trials']} trials per point, "
        f"zero_division=0 (±: 2 Monte-Carlo standard errors; none: exact)",
        fmt.to_string(),
        "",
        "Relative standard deviation sd(F)/f in %",
        std.round(3).to_string(),
    ]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Handler of ``cvframe simulate``."""
    from ..simulation import bias_study, study_for_netcdf

    if args.unstratified and args.both:
        raise UserError(
            "--unstratified and --both exclude each other; --both runs "
            "stratified and unstratified folds."
        )
    if args.seed is not None and args.seed < 0:
        raise UserError(f"--seed {args.seed} must be a non-negative integer.")
    if args.out and os.path.exists(args.out) and not os.path.isdir(args.out):
        out_dir(args.out)  # the error, before a long simulation
    strat: Any = (True, False) if args.both else (not args.unstratified)
    study = bias_study(
        prevalence=args.prevalence or (0.01, 0.02, 0.05, 0.1, 0.25),
        f=args.f or 0.8,
        precision=args.precision,
        recall=args.recall,
        stratified=strat,
        n=args.n,
        k=args.k,
        trials=args.trials,
        exact=not args.no_exact,
        seed=args.seed,
        scheduler=args.scheduler,
        progress=progress(args),
    )
    print(table(study))
    if args.out:
        path = os.path.join(out_dir(args.out), "bias_study.nc")
        study_for_netcdf(study).to_netcdf(path)
        print(f"\nwrote {path}")
    return 0
