"""Benchmark: AUC_avg and AUC_merge of a large predictions frame (``scores.auc_methods``).

10 folds, 10 classes (one-vs-rest score columns), 10^5, 10^6 and 10^7 rows, without a
repeat column and (up to 10^6 rows) with 5 repeats, as ``cross_validate`` writes them. Both
aggregations come from one sort per class; they are compared with

- the sort floor: ``np.argsort`` of each class's score column (ranking needs at least one
  sort per class), with ``np.sort`` of the same columns (values only, no order) in the note,
  timed in the same rounds (benchmarks/_timing.py);
- a loop of ``sklearn.metrics.roc_auc_score`` over (fold, class) plus one call per class on
  the pooled folds -- what one writes by hand for the same two numbers.

Results are checked against the scikit-learn loop (to 1e-12) on every run. The note says how
much of cvframe's time is the sort itself (the compiled engine's radix sort, timed inside one
more run) and what is left (packing the keys, the counting pass, reading the frame).

Usage::

    python benchmarks/bench_auc.py                 # all sizes, the table of rows()
    python benchmarks/bench_auc.py --quick         # 10^5 rows only
    python benchmarks/bench_auc.py --rows 2000000  # one size
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository's cvframe
sys.path.insert(0, str(Path(__file__).resolve().parent))  # _timing

from _timing import interleaved  # noqa: E402

FOLDS = 10
CLASSES = 10
SIZES = (10**5, 10**6, 10**7)


def make_frame(
    rows: int,
    folds: int = FOLDS,
    classes: int = CLASSES,
    seed: int = 0,
    kind: str = "signed",
    repeats: int = 0,
) -> pd.DataFrame:
    """Scores: "signed" = decision-function-like (label + normal noise), "proba" = their
    logistic transform (probability-like, all positive). ``repeats`` > 0: a repeat column
    (as ``cross_validate`` and the demo write it), the folds within each repeat."""
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
    lead = {"repeat": np.repeat(np.arange(repeats), -(-rows // repeats))[:rows]} if repeats else {}
    return pd.DataFrame({**lead, "fold": fold, "y_true": y, **cols})


def _columns(classes: int) -> tuple[list[Any], list[str]]:
    if classes == 2:
        return [1], ["score"]
    return list(range(classes)), [f"score_{c}" for c in range(classes)]


def sklearn_loop(df: pd.DataFrame, classes: int) -> tuple[np.ndarray, np.ndarray]:
    """AUC_avg and AUC_merge per class (per repeat and class with a repeat column) with
    scikit-learn: one call per (repeat, fold, class), plus one per (repeat, class) on the
    pooled folds."""
    from sklearn.metrics import roc_auc_score

    labels, cols = _columns(classes)
    parts = [g for _, g in df.groupby("repeat")] if "repeat" in df else [df]
    avg, merge = np.empty((len(parts), len(cols))), np.empty((len(parts), len(cols)))
    for r, part in enumerate(parts):
        fold = part["fold"].to_numpy()
        y = part["y_true"].to_numpy()
        index = [np.flatnonzero(fold == f) for f in np.unique(fold)]
        for j, (c, col) in enumerate(zip(labels, cols, strict=True)):
            s = part[col].to_numpy()
            avg[r, j] = np.mean([roc_auc_score(y[i] == c, s[i]) for i in index])
            merge[r, j] = roc_auc_score(y == c, s)
    return (avg[0], merge[0]) if "repeat" not in df else (avg, merge)


def sort_share(df: pd.DataFrame) -> tuple[float, float] | None:
    """Seconds of one ``auc_methods`` run spent in the compiled radix sort, and the run's
    seconds; None on the numpy engine (``ndarray.sort`` cannot be timed from outside)."""
    from cvframe import scores
    from cvframe._core.kernel import engine
    from cvframe.scores import _radix

    if engine(len(df)) != "numba":
        return None
    spent = [0.0]
    originals = _radix.sort, _radix.sort_segments

    def timed(fn: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[0] += time.perf_counter() - t0

        return run

    _radix.sort, _radix.sort_segments = timed(originals[0]), timed(originals[1])
    try:
        t0 = time.perf_counter()
        scores.auc_methods(df)
        total = time.perf_counter() - t0
    finally:
        _radix.sort, _radix.sort_segments = originals
    return spent[0], total


def _where(m: dict[str, Any]) -> str:
    """Where cvframe's time goes, from :func:`sort_share`."""
    if m["share"] is None:
        return "numpy engine: the time is ndarray.sort of the packed keys and the numpy passes"
    sort_s, total = m["share"]
    return (
        f"of one run ({total:.3f} s) the radix sort of the packed keys took {sort_s:.3f} s "
        f"({sort_s / total:.0%}), packing, counting and reading the frame the rest"
    )


def measure(rows: int, repeat: int = 3, classes: int = CLASSES, repeats: int = 0) -> dict[str, Any]:
    """Min and median over ``repeat`` rounds, cvframe and the sort floors in the same rounds
    (A, B, C, A, B, C, ...: a busy machine slows floor and candidate alike); the
    scikit-learn loop once, beside one more cvframe run."""
    from cvframe import scores
    from cvframe._core import kernel as _kernel

    df = make_frame(rows, classes=classes, repeats=repeats)
    _, cols = _columns(classes)
    arrays = [df[c].to_numpy() for c in cols]
    if rows >= _kernel.NUMBA_MIN_SIZE and _kernel.have_numba():
        import numba  # noqa: F401  - the steady state: numba loaded (see the note)
    t = interleaved(
        {
            "cvframe": lambda: scores.auc_methods(df),
            "argsort": lambda: [np.argsort(a) for a in arrays],
            "sort": lambda: [np.sort(a) for a in arrays],
        },
        repeat,
    )
    ds = scores.auc_methods(df)
    t0 = time.perf_counter()  # one more round: cvframe, then the scikit-learn loop
    scores.auc_methods(df)
    t_beside = time.perf_counter() - t0
    t0 = time.perf_counter()
    avg, merge = sklearn_loop(df, classes)
    t_sklearn = time.perf_counter() - t0
    err = max(
        float(np.max(np.abs(ds.auc_avg.values - avg))),
        float(np.max(np.abs(ds.auc_merge.values - merge))),
    )
    if err > 1e-12:
        raise AssertionError(f"auc_methods differs from scikit-learn by {err:g} at {rows} rows")
    share = sort_share(df)
    return {
        "rows": rows,
        "classes": classes,
        "repeats": repeats,
        "cvframe": t.min("cvframe"),
        "argsort": t.min("argsort"),
        "sort": t.min("sort"),
        "sklearn": t_sklearn,
        "cvframe_beside_sklearn": min(t_beside, t.min("cvframe")),
        "spread": t.spread(),
        "err": err,
        "share": share,
    }


def _engine(rows: int) -> str:
    from cvframe._core.kernel import engine

    if engine(rows) == "numba":
        return (
            "compiled (numba, LSD radix sort of the keys; loaded: a fresh process below "
            "NUMBA_LOAD_SIZE values uses numpy and ndarray.sort)"
        )
    return "numpy"


def rows(quick: bool = False) -> list[dict[str, Any]]:
    """The benchmark rows (see benchmarks/run.py): per size, without and with a repeat
    column, vs the sort floor and vs sklearn."""
    out = []
    for n in SIZES[:1] if quick else SIZES:
        for repeats in (0, 5):
            if repeats and n > 10**6 and not quick:
                continue  # the sklearn loop over 50 (repeat, fold) pairs x 10 classes: minutes
            m = measure(n, repeat=1 if quick else (5 if n < 10**7 else 3), repeats=repeats)
            with_rep = f", {repeats} repeats" if repeats else ", no repeat column"
            what = f"auc_methods (avg + merge), {n:.0e} rows, {CLASSES} classes{with_rep}"
            note = (
                f"{m['cvframe'] / m['sort']:.2f}x np.sort of the columns (values only, "
                f"{m['sort']:.3f} s); engine: {_engine(n)}; {_where(m)}; {m['spread']}; "
                f"equal to sklearn to {m['err']:.0e}"
            )
            out.append(
                {
                    "what": what,
                    "cvframe_s": m["cvframe"],
                    "yardstick": "np.argsort of each class's score column (one sort per class)",
                    "yardstick_s": m["argsort"],
                    "ratio": m["cvframe"] / m["argsort"],
                    "goal": "<= 1.3x one argsort per class",
                    "met": m["cvframe"] <= 1.3 * m["argsort"],
                    "note": note,
                }
            )
            fast = m["cvframe_beside_sklearn"]
            out.append(
                {
                    "what": what,
                    "cvframe_s": fast,
                    "yardstick": "sklearn roc_auc_score loop over (repeat, fold, class) + pooled",
                    "yardstick_s": m["sklearn"],
                    "ratio": fast / m["sklearn"],
                    "goal": ">= 20x faster than sklearn (ratio <= 0.05)",
                    "met": fast <= 0.05 * m["sklearn"],
                    "note": (
                        f"{m['sklearn'] / fast:.1f}x faster (the two timed in one round); "
                        + _where(m)
                    ),
                }
            )
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="10^5 rows only")
    p.add_argument("--rows", type=int, default=None, help="one size instead of 10^5..10^7")
    p.add_argument("--classes", type=int, default=CLASSES)
    p.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    p.add_argument("--repeats", type=int, default=0, help="a repeat column with this many")
    a = p.parse_args(argv)
    if a.rows is None and a.classes == CLASSES:
        for r in rows(quick=a.quick):
            print(
                f"{r['what']}: {r['cvframe_s']:.3f} s vs {r['yardstick']} "
                f"{r['yardstick_s']:.3f} s = {r['ratio']:.2f} ({r['goal']}: "
                f"{'met' if r['met'] else 'NOT met'}); {r['note']}"
            )
        return 0
    m = measure(a.rows or 10**6, a.repeat, a.classes, a.repeats)
    print(
        f"rows={m['rows']:,} classes={m['classes']}: auc_methods {m['cvframe']:.3f} s; "
        f"argsort {m['argsort']:.3f} s ({m['cvframe'] / m['argsort']:.2f}x); np.sort "
        f"{m['sort']:.3f} s ({m['cvframe'] / m['sort']:.2f}x); sklearn loop {m['sklearn']:.3f} s "
        f"({m['sklearn'] / m['cvframe']:.1f}x faster); max |diff| {m['err']:.1e}; {_where(m)}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
