"""Benchmark: PooledSearchCV overhead over GridSearchCV for the same fits.

Both searches fit the same candidates on the same splits (no refit): GridSearchCV scores
every test fold with ``scoring="f1"``; PooledSearchCV keeps the out-of-fold predictions,
builds the counts cube with a ``param`` dim and computes the pooled and per-fold F. Prints
the best-of time of each and their ratio (the goal is under 1.2x), for a cheap model (where
the bookkeeping shows most) and a costlier one.

``rows(quick)`` (for benchmarks/run.py) gives one row per case; ``quick=True`` uses 300
samples, one timing and the logistic regression with two C values.

Run: python benchmarks/bench_search.py [--samples N] [--repeats R] [--n-jobs J]
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:  # run as a script from anywhere: the checkout's cvframe
    sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # _timing

from _timing import interleaved  # noqa: E402


def _cases():
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression

    return [
        (
            "LogisticRegression, 8 C values",
            LogisticRegression(max_iter=500),
            {"C": [0.001, 0.01, 0.1, 1, 10, 100, 1000, 10000]},
        ),
        (
            "RandomForest (30 trees), 4 depths",
            RandomForestClassifier(30, random_state=0),
            {"max_depth": [2, 4, 8, None]},
        ),
    ]


def timings(samples: int, repeats: int, n_jobs: int, cases: list) -> list[tuple]:
    """(case, GridSearchCV min seconds, PooledSearchCV min seconds, medians) per case, the
    two searches in the same rounds."""
    from sklearn.datasets import make_classification
    from sklearn.model_selection import GridSearchCV, RepeatedStratifiedKFold

    from cvframe.search import PooledSearchCV

    X, y = make_classification(n_samples=samples, n_features=20, weights=[0.95], random_state=0)
    cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=0)
    out = []
    for name, est, grid in cases:

        def grid_search(est=est, grid=grid):
            GridSearchCV(est, grid, scoring="f1", cv=cv, refit=False, n_jobs=n_jobs).fit(X, y)

        def pooled_search(est=est, grid=grid):
            PooledSearchCV(est, grid, cv=cv, refit=False, n_jobs=n_jobs, zero_division=0.0).fit(
                X, y
            )

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = interleaved({"grid": grid_search, "pooled": pooled_search}, repeats)
        out.append((name, t.min("grid"), t.min("pooled"), t.spread()))
    return out


def rows(quick: bool = False) -> list[dict[str, Any]]:
    """Benchmark rows (see benchmarks/run.py): PooledSearchCV against GridSearchCV."""
    samples, repeats = (300, 1) if quick else (2000, 3)
    cases = _cases()
    if quick:  # one cheap case, two candidates
        cases = [("LogisticRegression, 2 C values", cases[0][1], {"C": [0.1, 1.0]})]
    return [
        {
            "what": f"PooledSearchCV, {name}, {samples} samples, 5x2 folds",
            "cvframe_s": t_pooled,
            "yardstick": "GridSearchCV(scoring='f1'), same fits",
            "yardstick_s": t_grid,
            "ratio": t_pooled / t_grid,
            "goal": "<= 1.2x GridSearchCV",
            "met": t_pooled / t_grid <= 1.2,
            "note": spread,
        }
        for name, t_grid, t_pooled, spread in timings(samples, repeats, 1, cases)
    ]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3, help="timing repeats (best of)")
    parser.add_argument("--n-jobs", type=int, default=1)
    args = parser.parse_args(argv)

    print(
        f"{args.samples} samples, 5 folds x 2 repeats, n_jobs={args.n_jobs}, best of {args.repeats}"
    )
    print(f"{'case':38s} {'GridSearchCV':>13s} {'PooledSearchCV':>15s} {'ratio':>7s}")
    for name, t_grid, t_pooled, _ in timings(args.samples, args.repeats, args.n_jobs, _cases()):
        print(f"{name:38s} {t_grid:12.3f}s {t_pooled:14.3f}s {t_pooled / t_grid:6.2f}x")


if __name__ == "__main__":
    main()
