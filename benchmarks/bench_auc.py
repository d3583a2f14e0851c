"""Benchmark: per-fold AUC of a large predictions frame.

Compares ``cvframe.scores.auc`` (method="avg": every fold's AUC, then the mean) with

- a loop of ``sklearn.metrics.roc_auc_score`` over (fold, class) — what one writes by hand;
- ``np.sort`` of the score column(s) — the floor: AUC needs at least one sort of the scores
  (one per class for one-vs-all).

Usage::

    python benchmarks/bench_auc.py                    # quick check: 10^6 rows
    python benchmarks/bench_auc.py --rows 10000000    # the issue's size
    python benchmarks/bench_auc.py --rows 10000000 --classes 2 --no-sklearn

The per-class score columns of the multiclass case are independent random draws with a
signal for the true class; results are checked against scikit-learn on every run where the
loop is timed.
"""

from __future__ import annotations

import argparse
import gc
import time

import numpy as np
import pandas as pd

from cvframe import scores


def make_frame(
    rows: int, folds: int, classes: int, seed: int = 0, kind: str = "signed"
) -> pd.DataFrame:
    """Scores: "signed" = decision-function-like (label + normal noise), "proba" = their
    logistic transform (probability-like, all positive)."""
    rng = np.random.default_rng(seed)
    fold = rng.integers(0, folds, rows)

    def score(signal: np.ndarray) -> np.ndarray:
        s = signal + rng.standard_normal(rows)
        return 1.0 / (1.0 + np.exp(-s)) if kind == "proba" else s

    if classes == 2:
        y = (rng.random(rows) < 0.3).astype(np.int64)
        cols = {"score": score(y)}
    else:
        y = rng.integers(0, classes, rows)
        cols = {f"score_{c}": score(y == c) for c in range(classes)}
    return pd.DataFrame({"fold": fold, "y_true": y, **cols})


def best_of(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def sklearn_loop(df: pd.DataFrame, classes: int) -> np.ndarray:
    from sklearn.metrics import roc_auc_score

    fold = df["fold"].to_numpy()
    y = df["y_true"].to_numpy()
    ks = np.unique(fold)
    cols = ["score"] if classes == 2 else [f"score_{c}" for c in range(classes)]
    labels = [1] if classes == 2 else list(range(classes))
    out = np.empty((len(ks), len(cols)))
    for i, f in enumerate(ks):
        idx = np.flatnonzero(fold == f)
        yf = y[idx]
        for j, (c, col) in enumerate(zip(labels, cols)):
            out[i, j] = roc_auc_score(yf == c, df[col].to_numpy()[idx])
    return out


def run(
    rows: int, folds: int, classes: int, repeat: int, with_sklearn: bool, kind: str = "signed"
) -> None:
    df = make_frame(rows, folds, classes, kind=kind)
    cols = ["score"] if classes == 2 else [f"score_{c}" for c in range(classes)]
    arrays = [df[c].to_numpy() for c in cols]
    scores.auc(df.head(1000))  # warm-up (imports, first allocations)
    # interleaved, best of `repeat`: a busy machine slows floor and candidate alike
    t_sort = t_ours = t_avg = float("inf")
    res = None
    for _ in range(repeat):
        t_sort = min(t_sort, best_of(lambda: [np.sort(a) for a in arrays], 1)[0])
        t, res = best_of(lambda: scores.auc(df, method="fold"), 1)
        t_ours = min(t_ours, t)
        t_avg = min(t_avg, best_of(lambda: scores.auc(df), 1)[0])
    print(f"rows={rows:,} folds={folds} classes={classes} scores={kind}")
    print(f"  np.sort of {len(cols)} score column(s) (floor) {t_sort:8.3f} s")
    print(
        f"  cvframe auc(method='fold')              {t_ours:8.3f} s   "
        f"{t_ours / t_sort:5.2f}x the floor"
    )
    print(
        f"  cvframe auc(method='avg')               {t_avg:8.3f} s   "
        f"{t_avg / t_sort:5.2f}x the floor"
    )
    if with_sklearn:
        t0 = time.perf_counter()
        ref = sklearn_loop(df, classes)
        t_sk = time.perf_counter() - t0
        np.testing.assert_allclose(np.asarray(res.values), ref, rtol=0, atol=1e-12)
        print(
            f"  sklearn roc_auc_score loop ({ref.size} calls)  {t_sk:8.3f} s   "
            f"cvframe is {t_sk / t_ours:5.1f}x faster (results equal to 1e-12)"
        )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--rows",
        type=int,
        default=1_000_000,
        help="scored rows (default 10^6 for a quick check; the issue uses 10^7)",
    )
    p.add_argument(
        "--rows-multiclass",
        type=int,
        default=None,
        help="rows for the multiclass case (default: --rows)",
    )
    p.add_argument("--folds", type=int, default=10)
    p.add_argument("--classes", default="2,10", help="comma-separated, e.g. 2,10")
    p.add_argument("--repeat", type=int, default=5, help="best of this many runs")
    p.add_argument("--no-sklearn", action="store_true", help="skip the scikit-learn loop")
    p.add_argument(
        "--scores",
        choices=["signed", "proba"],
        default="signed",
        help="decision-function-like scores (default) or probabilities",
    )
    a = p.parse_args(argv)
    for c in (int(x) for x in a.classes.split(",")):
        rows = a.rows if c == 2 or a.rows_multiclass is None else a.rows_multiclass
        run(rows, a.folds, c, a.repeat, not a.no_sklearn, a.scores)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
