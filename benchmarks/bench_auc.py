"""Benchmark: AUC_avg and AUC_merge of a large predictions frame (``scores.auc_methods``).

10 folds, 10 classes (one-vs-rest score columns), 10^5, 10^6 and 10^7 rows, without a
repeat column, with 5 repeats (as ``cross_validate`` writes them) and, at 10^6 rows, with a
model column too (3 models x 5 repeats, a pandas Categorical as ``cross_validate`` writes
it). Both aggregations come from one sort per class (and model); they are compared with

- the sort floor: ``np.argsort`` of each class's score column (ranking needs at least one
  sort per class), with ``np.sort`` of the same columns (values only, no order) in the note,
  timed in the same rounds (benchmarks/_timing.py);
- a loop of ``sklearn.metrics.roc_auc_score`` over (model, repeat, fold, class) plus one
  call per (model, repeat, class) on the pooled folds -- what one writes by hand for the
  same two numbers.

At 10^6 rows every comparison runs warm (numba loaded, as in a session) and in a fresh
process (``from cvframe import scores`` and ``from sklearn.metrics import roc_auc_score``
before the timer: the call's own imports and the engine's load after it), as a script
meets it. Results are checked against the scikit-learn loop (to 1e-12) on every warm run.
The note says how much of cvframe's time is the sort itself (the compiled engine's radix
sort, timed inside one more warm run) and what is left (packing the keys, the counting pass,
reading the frame).

Usage::

    python benchmarks/bench_auc.py                  # all sizes, the table of rows(), warm
    python benchmarks/bench_auc.py --fresh --warm   # both ways
    python benchmarks/bench_auc.py --quick          # 10^5 rows only
    python benchmarks/bench_auc.py --rows 2000000   # one size
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the repository's cvframe
sys.path.insert(0, str(HERE))  # _timing

from _timing import Case, load_average, measure  # noqa: E402

FOLDS = 10
CLASSES = 10
SIZES = (10**5, 10**6, 10**7)
MODEL_NAMES = ["lr", "nb", "rf"]


def make_frame(
    rows: int,
    folds: int = FOLDS,
    classes: int = CLASSES,
    seed: int = 0,
    kind: str = "signed",
    repeats: int = 0,
    models: int = 0,
) -> pd.DataFrame:
    """Scores: "signed" = decision-function-like (label + normal noise), "proba" = their
    logistic transform (probability-like, all positive). ``repeats`` > 0: a repeat column
    (as ``cross_validate`` and the demo write it), the folds within each repeat; ``models``
    > 0: a model column (a Categorical, as ``cross_validate`` writes it) before it, each
    model's rows together."""
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
    lead: dict[str, Any] = {}
    if models:
        codes = np.repeat(np.arange(models), -(-rows // models))[:rows].astype(np.int8)
        lead["model"] = pd.Categorical.from_codes(codes, MODEL_NAMES[:models])
    if repeats:
        per = -(-rows // (repeats * max(models, 1)))
        lead["repeat"] = np.tile(np.repeat(np.arange(repeats), per), max(models, 1))[:rows]
    return pd.DataFrame({**lead, "fold": fold, "y_true": y, **cols})


def _columns(classes: int) -> tuple[list[Any], list[str]]:
    if classes == 2:
        return [1], ["score"]
    return list(range(classes)), [f"score_{c}" for c in range(classes)]


def sklearn_loop(df: pd.DataFrame, classes: int) -> tuple[np.ndarray, np.ndarray]:
    """AUC_avg and AUC_merge per class (per model, repeat and class with those columns) with
    scikit-learn: one call per (model, repeat, fold, class), plus one per (model, repeat,
    class) on the pooled folds."""
    from sklearn.metrics import roc_auc_score

    labels, cols = _columns(classes)
    keys = [k for k in ("model", "repeat") if k in df]
    parts = [g for _, g in df.groupby(keys, observed=True)] if keys else [df]
    avg, merge = np.empty((len(parts), len(cols))), np.empty((len(parts), len(cols)))
    for r, part in enumerate(parts):
        fold = part["fold"].to_numpy()
        y = part["y_true"].to_numpy()
        index = [np.flatnonzero(fold == f) for f in np.unique(fold)]
        for j, (c, col) in enumerate(zip(labels, cols, strict=True)):
            s = part[col].to_numpy()
            avg[r, j] = np.mean([roc_auc_score(y[i] == c, s[i]) for i in index])
            merge[r, j] = roc_auc_score(y == c, s)
    return (avg[0], merge[0]) if not keys else (avg, merge)


def sort_share(df: pd.DataFrame) -> tuple[float, float] | None:
    """Seconds of one ``auc_methods`` run spent in the compiled radix sort, and the run's
    seconds; None on the numpy engine (``ndarray.sort`` cannot be timed from outside)."""
    from cvframe import scores
    from cvframe._core.kernel import engine
    from cvframe.scores import _radix

    if engine(len(df), "rank") != "numba":
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


_SETUP = """
import sys
sys.path.insert(0, {here!r})
import numpy as np
from bench_auc import make_frame, sklearn_loop, _columns
df = make_frame({rows}, classes={classes}, repeats={repeats}, models={models})
arrays = [df[c].to_numpy() for c in _columns({classes})[1]]
{imports}
"""


def _case(rows: int, classes: int, repeats: int, models: int, yard: str) -> Case:
    """cvframe's call and a yardstick ("sorts": argsort and sort per class; "sklearn")."""
    imports = "from cvframe import scores"
    timed = {"cvframe": "res = scores.auc_methods(df)"}
    if yard == "sorts":
        timed["argsort"] = "[np.argsort(a) for a in arrays]"
        timed["sort"] = "[np.sort(a) for a in arrays]"
    else:
        imports += "\nfrom sklearn.metrics import roc_auc_score"
        timed["sklearn"] = f"avg, merge = sklearn_loop(df, {classes})"
    setup = _SETUP.format(
        here=str(HERE), rows=rows, classes=classes, repeats=repeats, models=models, imports=imports
    )
    return Case(setup, timed)


def measure_rows(
    rows: int, rounds: int, classes: int, repeats: int, models: int, mode: str, sk_rounds: int
) -> dict[str, Any]:
    """One size and layout in one mode: cvframe and the sort floors in the same rounds,
    cvframe and the scikit-learn loop in the same rounds (``sk_rounds``, 0: not run)."""
    t, ns = measure(_case(rows, classes, repeats, models, "sorts"), mode, rounds)
    out: dict[str, Any] = {"t": t, "err": None, "share": None, "sk": None}
    if mode == "warm":
        out["share"] = sort_share(ns["df"])
    if sk_rounds:
        tk, nk = measure(_case(rows, classes, repeats, models, "sklearn"), mode, sk_rounds)
        out["sk"] = tk
        if mode == "warm":
            res, avg, merge = nk["res"], nk["avg"], nk["merge"]
            lead = [d for d in ("model", "repeat") if d in res.dims]  # sklearn_loop's order

            def flat(da: Any, like: np.ndarray) -> np.ndarray:
                return np.asarray(da.transpose(*lead, "class").values).reshape(like.shape)

            out["err"] = max(
                float(np.max(np.abs(flat(res.auc_avg, avg) - avg))),
                float(np.max(np.abs(flat(res.auc_merge, merge) - merge))),
            )
            if out["err"] > 1e-12:
                raise AssertionError(f"auc_methods differs from sklearn by {out['err']:g}")
    return out


def _engine(t: Any) -> str:
    return t.engine("cvframe")


def _layout(repeats: int, models: int) -> str:
    if models:
        return f", {models} models x {repeats} repeats (model column)"
    return f", {repeats} repeats" if repeats else ", no repeat column"


def _rows_of(n: int, repeats: int, models: int, mode: str, m: dict[str, Any]) -> list[dict]:
    """The table rows of one measurement: against the sort floor, and against sklearn."""
    t = m["t"]
    what = f"auc_methods (avg + merge), {n:.0e} rows, {CLASSES} classes{_layout(repeats, models)}"
    judged = mode == "fresh" or n != 10**6  # the 10^6 goal is a fresh process's
    where = _where(m) if mode == "warm" else f"loaded by the call: {t.loaded('cvframe')}"
    note = (
        f"{t.min('cvframe') / t.min('sort'):.2f}x np.sort of the columns (values only, "
        f"{t.min('sort'):.3f} s); {where}; {t.spread()}"
    )
    if m["err"] is not None:
        note += f"; equal to sklearn to {m['err']:.0e}"
    ratio = t.ratio("cvframe", "argsort")
    out = [
        {
            "what": what,
            "mode": mode,
            "engine": _engine(t),
            "cvframe_s": t.min("cvframe"),
            "yardstick": "np.argsort of each class's score column (one sort per class)",
            "yardstick_s": t.min("argsort"),
            "ratio": ratio,
            "goal": "<= 1.3x one argsort per class",
            "met": ratio <= 1.3 if judged else None,
            "note": note,
            "load": load_average(),
        }
    ]
    sk = m["sk"]
    if sk is not None:
        fast, slow = sk.min("cvframe"), sk.min("sklearn")
        out.append(
            {
                "what": what,
                "mode": mode,
                "engine": sk.engine("cvframe"),
                "cvframe_s": fast,
                "yardstick": "sklearn roc_auc_score loop over (model, repeat, fold, class) + "
                "pooled",
                "yardstick_s": slow,
                "ratio": fast / slow,
                "goal": ">= 20x faster than sklearn (ratio <= 0.05)",
                "met": fast <= 0.05 * slow if judged else None,
                "note": f"{slow / fast:.1f}x faster (the two timed in the same rounds); "
                + (where if mode == "fresh" else _where(m)),
                "load": load_average(),
            }
        )
    return out


def rows(quick: bool = False, modes: tuple[str, ...] = ("warm",)) -> list[dict[str, Any]]:
    """The benchmark rows (see benchmarks/run.py): per size and layout, against the sort
    floor and against sklearn; 10^6 rows in every mode, the other sizes warm."""
    out = []
    plan = [(SIZES[0], 0, 0), (SIZES[0], 5, 0)] if quick else [
        (10**5, 0, 0), (10**5, 5, 0), (10**6, 0, 0), (10**6, 5, 0), (10**6, 5, 3), (10**7, 0, 0)
    ]  # fmt: skip
    for n, repeats, models in plan:
        for mode in modes:
            if mode == "fresh" and n != 10**6 and not quick:
                continue
            rounds = 1 if quick else 3 if (mode == "fresh" or n >= 10**7) else 5
            sk_rounds = 1 if (quick or mode == "warm") else 2
            m = measure_rows(n, rounds, CLASSES, repeats, models, mode, sk_rounds)
            out += _rows_of(n, repeats, models, mode, m)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="10^5 rows only")
    p.add_argument("--warm", action="store_true", help="rows measured in this process")
    p.add_argument("--fresh", action="store_true", help="rows of fresh interpreters")
    p.add_argument("--rows", type=int, default=None, help="one size instead of 10^5..10^7")
    p.add_argument("--classes", type=int, default=CLASSES)
    p.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    p.add_argument("--repeats", type=int, default=0, help="a repeat column with this many")
    p.add_argument("--models", type=int, default=0, help="a model column with this many")
    a = p.parse_args(argv)
    modes = tuple(m for m in ("warm", "fresh") if getattr(a, m)) or ("warm",)
    if a.rows is None and a.classes == CLASSES:
        for r in rows(quick=a.quick, modes=modes):
            print(
                f"{r['what']} [{r['mode']}, {r['engine']}]: {r['cvframe_s']:.3f} s vs "
                f"{r['yardstick']} {r['yardstick_s']:.3f} s = {r['ratio']:.2f} ({r['goal']}: "
                f"{'met' if r['met'] else 'NOT met'}); {r['note']}"
            )
        return 0
    for mode in modes:
        m = measure_rows(a.rows or 10**6, a.repeat, a.classes, a.repeats, a.models, mode, 1)
        t, sk = m["t"], m["sk"]
        print(
            f"[{mode}, {t.engine('cvframe')}] rows={a.rows or 10**6:,} classes={a.classes}: "
            f"auc_methods {t.min('cvframe'):.3f} s; argsort {t.min('argsort'):.3f} s "
            f"({t.ratio('cvframe', 'argsort'):.2f}x); sklearn loop {sk.min('sklearn'):.3f} s "
            f"({sk.min('sklearn') / sk.min('cvframe'):.1f}x faster)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
