"""Benchmark: cvframe.compare on 100 models x 10 repeats x 10 folds (the goal: under a second).

Builds a binary counts cube of 100 models tested on the same 10 x 10 folds (counts drawn
directly, 1,000 test samples per repeat), then times

- ``compare(ds, "f", baseline="m0")``: the corrected repeated k-fold t-test, 99 contrasts;
- ``compare(ds, "f")``: all 4,950 pairs;
- ``compare(ds, "f", test="bayesian", baseline="m0")``.

``rows(quick)`` (for benchmarks/run.py) reports each against a 1 s budget; ``quick=True``
uses 10 models x 3 repeats x 5 folds.

Usage::

    python benchmarks/bench_compare.py
    python benchmarks/bench_compare.py --models 200 --repeats 10 --folds 10
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from typing import Any

import numpy as np
import xarray as xr

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:  # run as a script from anywhere: the checkout's cvframe
    sys.path.insert(0, ROOT)

from cvframe.comparison import compare  # noqa: E402


def make_cube(models: int, repeats: int, folds: int, per_fold: int = 100) -> xr.Dataset:
    rng = np.random.default_rng(0)
    shape = (models, repeats, folds, 1)
    pos = np.broadcast_to(rng.binomial(per_fold, 0.3, shape[1:]), shape)  # same folds: paired
    acc = rng.uniform(0.6, 0.9, (models, 1, 1, 1))
    tp = rng.binomial(pos, acc)
    tn = rng.binomial(per_fold - pos, acc)
    dims = ("model", "repeat", "fold", "class")
    coords = {
        "model": [f"m{i}" for i in range(models)],
        "repeat": np.arange(repeats),
        "fold": np.arange(folds),
        "class": [1],
    }
    return xr.Dataset(
        {
            "tp": (dims, tp),
            "fp": (dims, per_fold - pos - tn),
            "fn": (dims, pos - tp),
            "tn": (dims, tn),
        },
        coords=coords,
        attrs={"task": "binary"},
    )


def timed(label: str, func, runs: int = 3) -> float:
    func()  # warm-up (imports, caches)
    best = min(_once(func) for _ in range(runs))
    print(f"{label:<48s} {best:8.3f} s")
    return best


def _once(func) -> float:
    t0 = time.perf_counter()
    func()
    return time.perf_counter() - t0


CASES = (
    ("corrected_t, every model vs m0", {"baseline": "m0"}),
    ("corrected_t, all pairs", {}),
    ("bayesian, every model vs m0", {"test": "bayesian", "baseline": "m0"}),
)


def rows(quick: bool = False) -> list[dict[str, Any]]:
    """Benchmark rows (see benchmarks/run.py): each comparison against a 1 s budget."""
    models, repeats, folds = (10, 3, 5) if quick else (100, 10, 10)
    ds = make_cube(models, repeats, folds)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for label, kwargs in CASES:
            compare(ds, "f", **kwargs)  # warm-up
            took = min(_once(lambda kwargs=kwargs: compare(ds, "f", **kwargs)) for _ in range(3))
            out.append(
                {
                    "what": f"compare {label}, {models} models x {repeats}x{folds} folds",
                    "cvframe_s": took,
                    "yardstick": "budget",
                    "yardstick_s": 1.0,
                    "ratio": took / 1.0,
                    "goal": "< 1 s",
                    "met": took < 1.0,
                }
            )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--folds", type=int, default=10)
    args = ap.parse_args()
    ds = make_cube(args.models, args.repeats, args.folds)
    print(f"cube: {args.models} models x {args.repeats} repeats x {args.folds} folds")
    warnings.simplefilter("ignore")
    for label, kwargs in CASES:
        timed(label, lambda kwargs=kwargs: compare(ds, "f", **kwargs))


if __name__ == "__main__":
    main()
