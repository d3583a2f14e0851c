"""Benchmark: building the counts cube from a predictions table.

10^7 rows (10 repeats x 10 folds), C = 2, 10, 100 classes. Prints the time of
cvframe.from_predictions and its ratio against

(a) the way a scikit-learn user computes the same counts today: a loop over (repeat, fold)
    calling sklearn.metrics.multilabel_confusion_matrix, and
(b) the memory floor: one plain read of the input arrays (a sum over each of them),
(c) one np.bincount over a precomputed combined index (the counting step alone).

Run: python benchmarks/bench_build.py [--rows N] [--repeats R]
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def best_of(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main(argv=None):
    import cvframe
    from sklearn.metrics import multilabel_confusion_matrix

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeats", type=int, default=3, help="timing repeats (best of)")
    parser.add_argument("--classes", type=int, nargs="+", default=[2, 10, 100])
    parser.add_argument("--skip-sklearn", action="store_true")
    args = parser.parse_args(argv)
    n = args.rows
    rng = np.random.default_rng(0)
    repeat = np.repeat(np.arange(10), n // 10)
    fold = np.tile(np.repeat(np.arange(10), n // 100), 10)
    n = len(repeat)
    print(f"rows={n:,} (10 repeats x 10 folds)")
    print(
        f"{'C':>4} {'cvframe s':>10} {'sklearn loop s':>15} {'x faster':>9} "
        f"{'read floor s':>13} {'x floor':>8} {'bincount s':>11} {'x bincount':>11}"
    )
    for c in args.classes:
        y = rng.integers(0, c, n)
        yp = np.where(rng.random(n) < 0.7, y, rng.integers(0, c, n))

        def build():
            return cvframe.from_predictions(y, yp, fold, repeat=repeat)

        def read():
            return int(y.sum()) + int(yp.sum()) + int(fold.sum()) + int(repeat.sum())

        idx = ((repeat * 10 + fold) * c + y) * c + yp

        def bincount():
            return np.bincount(idx, minlength=100 * c * c)

        def sklearn_loop():
            out = []
            bounds = np.flatnonzero(np.diff(repeat * 10 + fold)) + 1
            starts = np.r_[0, bounds]
            ends = np.r_[bounds, n]
            for s, e in zip(starts, ends):
                out.append(multilabel_confusion_matrix(y[s:e], yp[s:e], labels=np.arange(c)))
            return out

        build()  # warm up
        t_cv = best_of(build, args.repeats)
        t_read = best_of(read, args.repeats)
        t_bin = best_of(bincount, args.repeats)
        t_sk = float("nan") if args.skip_sklearn else best_of(sklearn_loop, 1)
        print(
            f"{c:>4} {t_cv:>10.3f} {t_sk:>15.3f} {t_sk / t_cv:>9.1f} {t_read:>13.3f} "
            f"{t_cv / t_read:>8.1f} {t_bin:>11.3f} {t_cv / t_bin:>11.2f}"
        )


if __name__ == "__main__":
    main()
