"""Benchmark: AUC_avg and AUC_merge of a large predictions frame (``scores.auc_methods``).

10 folds, 10 classes (one-vs-rest score columns), 10^5, 10^6 and 10^7 rows. Both
aggregations come from one sort per class; they are compared with

- the sort floor: ``np.argsort`` of each class's score column (ranking needs at least one
  sort per class), with ``np.sort`` of the same columns (values only, no order) in the note;
- a loop of ``sklearn.metrics.roc_auc_score`` over (fold, class) plus one call per class on
  the pooled folds -- what one writes by hand for the same two numbers.

Results are checked against the scikit-learn loop (to 1e-12) on every run.

Usage::

    python benchmarks/bench_auc.py                 # all sizes, the table of rows()
    python benchmarks/bench_auc.py --quick         # 10^5 rows only
    python benchmarks/bench_auc.py --rows 2000000  # one size
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository's cvframe

FOLDS = 10
CLASSES = 10
SIZES = (10**5, 10**6, 10**7)


def make_frame(
    rows: int, folds: int = FOLDS, classes: int = CLASSES, seed: int = 0, kind: str = "signed"
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


def _columns(classes: int) -> tuple[list[Any], list[str]]:
    if classes == 2:
        return [1], ["score"]
    return list(range(classes)), [f"score_{c}" for c in range(classes)]


def sklearn_loop(df: pd.DataFrame, classes: int) -> tuple[np.ndarray, np.ndarray]:
    """AUC_avg and AUC_merge per class with scikit-learn: one call per (fold, class), plus
    one per class on the pooled folds."""
    from sklearn.metrics import roc_auc_score

    fold = df["fold"].to_numpy()
    y = df["y_true"].to_numpy()
    labels, cols = _columns(classes)
    index = [np.flatnonzero(fold == f) for f in np.unique(fold)]
    avg, merge = np.empty(len(cols)), np.empty(len(cols))
    for j, (c, col) in enumerate(zip(labels, cols, strict=True)):
        s = df[col].to_numpy()
        avg[j] = np.mean([roc_auc_score(y[i] == c, s[i]) for i in index])
        merge[j] = roc_auc_score(y == c, s)
    return avg, merge


def _time(fn: Callable[[], Any]) -> tuple[float, Any]:
    gc.collect()
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def measure(rows: int, repeat: int = 3, classes: int = CLASSES) -> dict[str, Any]:
    """Best-of-``repeat`` times (interleaved: a busy machine slows floor and candidate alike)."""
    from cvframe import _kernel, scores

    df = make_frame(rows, classes=classes)
    _, cols = _columns(classes)
    arrays = [df[c].to_numpy() for c in cols]
    scores.auc_methods(df.head(1000))  # imports and first allocations
    if rows >= _kernel.NUMBA_MIN_SIZE:  # the compiled pass (numba installed): compile untimed
        scores.auc_methods(df.head(_kernel.NUMBA_MIN_SIZE))
    t_ours = t_argsort = t_sort = float("inf")
    ds = None
    for _ in range(repeat):
        t_sort = min(t_sort, _time(lambda: [np.sort(a) for a in arrays])[0])
        t_argsort = min(t_argsort, _time(lambda: [np.argsort(a) for a in arrays])[0])
        t, ds = _time(lambda: scores.auc_methods(df))
        t_ours = min(t_ours, t)
    t_sk, (avg, merge) = _time(lambda: sklearn_loop(df, classes))
    assert ds is not None
    err = max(
        float(np.max(np.abs(ds.auc_avg.values - avg))),
        float(np.max(np.abs(ds.auc_merge.values - merge))),
    )
    if err > 1e-12:
        raise AssertionError(f"auc_methods differs from scikit-learn by {err:g} at {rows} rows")
    return {
        "rows": rows,
        "classes": classes,
        "cvframe": t_ours,
        "argsort": t_argsort,
        "sort": t_sort,
        "sklearn": t_sk,
        "err": err,
    }


def _engine(rows: int) -> str:
    from cvframe._kernel import engine

    return "one compiled (numba) pass" if engine(rows) == "numba" else "numpy counting pass"


def rows(quick: bool = False) -> list[dict[str, Any]]:
    """The benchmark rows (see benchmarks/run.py): per size, vs the sort floor and vs sklearn."""
    out = []
    for n in SIZES[:1] if quick else SIZES:
        m = measure(n, repeat=1 if quick else (3 if n < 10**7 else 2))
        what = f"auc_methods (avg + merge), {n:.0e} rows, {CLASSES} classes, {FOLDS} folds"
        engine = _engine(n)
        note = (
            f"{m['cvframe'] / m['sort']:.2f}x np.sort of the columns (values only, "
            f"{m['sort']:.3f} s); per-fold from the one sort: {engine}; equal to sklearn to "
            f"{m['err']:.0e}"
        )
        out.append(
            {
                "what": what,
                "cvframe_s": m["cvframe"],
                "yardstick": "np.argsort of each class's score column (one sort per class)",
                "yardstick_s": m["argsort"],
                "ratio": m["cvframe"] / m["argsort"],
                "goal": "<= 1.3x one sort per class",
                "met": m["cvframe"] <= 1.3 * m["argsort"],
                "note": note,
            }
        )
        out.append(
            {
                "what": what,
                "cvframe_s": m["cvframe"],
                "yardstick": "sklearn roc_auc_score loop over (fold, class) + pooled per class",
                "yardstick_s": m["sklearn"],
                "ratio": m["cvframe"] / m["sklearn"],
                "goal": ">= 10x faster than sklearn (ratio <= 0.1)",
                "met": m["cvframe"] <= 0.1 * m["sklearn"],
                "note": f"{m['sklearn'] / m['cvframe']:.1f}x faster",
            }
        )
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="10^5 rows only")
    p.add_argument("--rows", type=int, default=None, help="one size instead of 10^5..10^7")
    p.add_argument("--classes", type=int, default=CLASSES)
    p.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    a = p.parse_args(argv)
    if a.rows is None and a.classes == CLASSES:
        for r in rows(quick=a.quick):
            print(
                f"{r['what']}: {r['cvframe_s']:.3f} s vs {r['yardstick']} "
                f"{r['yardstick_s']:.3f} s = {r['ratio']:.2f} ({r['goal']}: "
                f"{'met' if r['met'] else 'NOT met'}); {r['note']}"
            )
        return 0
    m = measure(a.rows or 10**6, a.repeat, a.classes)
    print(
        f"rows={m['rows']:,} classes={m['classes']}: auc_methods {m['cvframe']:.3f} s; "
        f"argsort {m['argsort']:.3f} s ({m['cvframe'] / m['argsort']:.2f}x); np.sort "
        f"{m['sort']:.3f} s ({m['cvframe'] / m['sort']:.2f}x); sklearn loop {m['sklearn']:.3f} s "
        f"({m['sklearn'] / m['cvframe']:.1f}x faster); max |diff| {m['err']:.1e}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
