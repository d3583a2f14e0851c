"""Benchmark: the ``train_duplicate`` column (twins, exact and up to a relative 1e-6) at 10^6
rows, against the exact-copies-only check it replaced (hash every row, mark per split).

10^6 rows x 20 float features, 10 folds, 1 % of the rows near copies of others (every
feature multiplied by 1 +- 5e-7); timed in the same rounds (benchmarks/_timing.py). The goal
is bounded time: at most 3x the exact-only check, which is O(n) per split. The recall of the
near copies is checked against the rows planted (every planted twin whose source lies in
the training set of its split must be found).

Usage::

    python benchmarks/bench_twins.py            # 10^6 rows
    python benchmarks/bench_twins.py --quick    # 10^5 rows
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the repository's cvframe
sys.path.insert(0, str(Path(__file__).resolve().parent))  # _timing

from _timing import interleaved, load  # noqa: E402

from cvframe.runner import twins  # noqa: E402


def data(n: int, d: int = 20, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    k = n // 100
    src = rng.choice(n, k, replace=False)
    dst = rng.choice(np.setdiff1d(np.arange(n), src), k, replace=False)
    X[dst] = X[src] * (1 + rng.uniform(-5e-7, 5e-7, size=(k, d)))
    fold = rng.integers(0, 10, n)
    splits = [(np.flatnonzero(fold != f), np.flatnonzero(fold == f)) for f in range(10)]
    return X, splits, src, dst, fold


def exact_only(X: np.ndarray, splits) -> np.ndarray:
    """The check before near duplicates: one hash per row, one lookup per test row."""
    codes, uniques = pd.factorize(pd.util.hash_pandas_object(pd.DataFrame(X), index=False))
    seen = np.zeros(len(uniques), dtype=bool)
    parts = []
    for tr, te in splits:
        seen[:] = False
        seen[codes[tr]] = True
        parts.append(seen[codes[te]])
    return np.concatenate(parts)


def rows(quick: bool = False) -> list[dict]:
    """Rows of the benchmark table (see the module docstring)."""
    n = 100_000 if quick else 1_000_000
    X, splits, src, dst, fold = data(n)
    col, how = twins.train_duplicates(X, splits, False)
    tested = np.concatenate([te for _, te in splits])
    found = pd.Series(col, index=tested)
    planted = dst[fold[src] != fold[dst]]  # the source lies in the twin's training set
    recall = float(found[planted].mean())
    t = interleaved(
        {
            "near": lambda: twins.train_duplicates(X, splits, False),
            "exact": lambda: exact_only(X, splits),
        },
        rounds=2 if quick else 3,
    )
    ratio = t.ratio("near", "exact")
    return [
        {
            "what": f"train_duplicate, near twins (rtol 1e-6), {n:.0e} rows x 20, 10 folds",
            "cvframe_s": t.min("near"),
            "yardstick": "exact copies only",
            "yardstick_s": t.min("exact"),
            "ratio": ratio,
            "goal": "<= 3x exact-only, recall 1",
            "met": bool(ratio <= 3 and recall == 1.0 and how == "computed"),
            "note": f"recall of planted twins {recall:.3f}; {t.spread()}; {load()}",
        }
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    for row in rows(quick=args.quick):
        print(
            f"{row['what']:<64} {row['cvframe_s']:>7.3f}s  vs {row['yardstick']} "
            f"{row['yardstick_s']:>7.3f}s  ratio {row['ratio']:.2f}  goal {row['goal']}  "
            f"met={row['met']}  {row['note']}"
        )


if __name__ == "__main__":
    main()
