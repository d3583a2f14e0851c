"""Benchmark: building the counts cube from a predictions table (``from_predictions``).

Integer labels: 10^7 rows (10 repeats x 10 folds), C = 2, 10, 100 classes, against

- the read floor: one plain read of the four input arrays (a sum over each of them), timed
  in the same rounds as the build (benchmarks/_timing.py: A, B, A, B, ...);
- the way a scikit-learn user computes the same counts: a loop over (repeat, fold) calling
  ``sklearn.metrics.multilabel_confusion_matrix``.

Label kinds (int64, pandas Categorical, numpy object strings, pandas ``string``): 5*10^6
rows, 10 classes, 10 folds; time against one ``pandas.factorize`` of the y_true column, and
the extra peak memory of the build in bytes per row, measured with ``/usr/bin/time -v`` on a
fresh interpreter (peak RSS of creating the inputs and building, minus creating the inputs
only).

Usage::

    python benchmarks/bench_build.py            # the table of rows()
    python benchmarks/bench_build.py --quick    # small sizes, no subprocess
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the repository's cvframe
sys.path.insert(0, str(Path(__file__).resolve().parent))  # _timing

from _timing import interleaved  # noqa: E402

KINDS = ("int", "Categorical", "object str", "pandas string")
NAMES = [f"class_{i}" for i in range(10)]


def int_data(n: int, c: int, seed: int = 0) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    repeat = np.repeat(np.arange(10), n // 10)
    fold = np.tile(np.repeat(np.arange(10), n // 100), 10)
    n = len(repeat)
    y = rng.integers(0, c, n)
    yp = np.where(rng.random(n) < 0.7, y, rng.integers(0, c, n))
    return y, yp, fold, repeat


def sklearn_loop(y: np.ndarray, yp: np.ndarray, fold: np.ndarray, repeat: np.ndarray, c: int):
    from sklearn.metrics import multilabel_confusion_matrix

    key = repeat * 10 + fold
    bounds = np.flatnonzero(np.diff(key)) + 1
    starts, ends = np.r_[0, bounds], np.r_[bounds, len(y)]
    return [
        multilabel_confusion_matrix(y[s:e], yp[s:e], labels=np.arange(c))
        for s, e in zip(starts, ends, strict=True)
    ]


def int_rows(n: int, classes: tuple[int, ...], repeats: int, sklearn: bool) -> list[dict]:
    import cvframe
    from cvframe._core import kernel as _kernel
    from cvframe.build import _kernel as build_kernel

    out = []
    for c in classes:
        y, yp, fold, repeat = int_data(n, c)

        def build(y=y, yp=yp, fold=fold, repeat=repeat):
            return cvframe.from_predictions(y, yp, fold, repeat=repeat)

        def read(y=y, yp=yp, fold=fold, repeat=repeat):
            return int(y.sum()) + int(yp.sum()) + int(fold.sum()) + int(repeat.sum())

        def count(y=y, yp=yp, fold=fold, repeat=repeat):  # the counting pass alone
            return build_kernel.fast_confusion([repeat, fold], y, yp, None, len(y))

        t = interleaved({"build": build, "read": read, "count": count}, repeats)
        t_cv, t_read = t.min("build"), t.min("read")
        engine = _kernel.engine(len(y))
        out.append(
            {
                "what": f"counts cube, {len(y):.0e} int rows, {c} classes",
                "cvframe_s": t_cv,
                "yardstick": "reading the 4 input arrays once",
                "yardstick_s": t_read,
                "ratio": t_cv / t_read,
                "goal": "<= 2x the read floor",
                "met": t_cv / t_read <= 2.0,
                "note": f"engine {engine}; the counting pass (range check and counts) "
                f"{t.min('count') / t_cv:.0%} of the build ({_ms(t.min('count'))}, "
                f"{t.min('count') / t_read:.2f}x the floor), labelling the cube the rest; "
                f"{t.spread()}",
            }
        )
        if sklearn:
            t2 = interleaved(
                {
                    "build": build,
                    "sklearn": lambda y=y, yp=yp, f=fold, r=repeat, c=c: sklearn_loop(
                        y, yp, f, r, c
                    ),
                },
                1,
                warmup=False,
            )
            t_sk = t2.min("sklearn")
            out.append(
                {
                    "what": f"counts cube, {len(y):.0e} int rows, {c} classes",
                    "cvframe_s": t_cv,
                    "yardstick": "sklearn multilabel_confusion_matrix loop over folds",
                    "yardstick_s": t_sk,
                    "ratio": t_cv / t_sk,
                    "goal": "<= 1/50 (>= 50x faster)",
                    "met": t_sk / t_cv >= 50,
                    "note": f"{t_sk / t_cv:.0f}x faster",
                }
            )
    return out


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms"


# --- label kinds: time and memory ---------------------------------------------------------------

_MAKE = """
import sys, numpy as np, pandas as pd
sys.path.insert(0, {root!r})
kind, n = {kind!r}, {n}
names = {names!r}
rng = np.random.default_rng(0)
ct = rng.integers(0, 10, n).astype(np.int8)
cp = rng.integers(0, 10, n).astype(np.int8)
fold = rng.integers(0, 10, n)
def make(c):
    if kind == "int":
        return c.astype(np.int64)
    if kind == "Categorical":
        return pd.Categorical.from_codes(c, categories=names)
    if kind == "object str":
        return np.asarray(names, dtype=object)[c]
    try:
        import pyarrow as pa  # the string array straight from Arrow: no object copy
    except ImportError:
        return pd.array(np.asarray(names, dtype=object)[c], dtype="string")
    return pd.array(pa.array(names).take(pa.array(c)), dtype="string")
y, yp = make(ct), make(cp)
del ct, cp
import cvframe
cvframe.from_predictions(y[:1000], yp[:1000], fold[:1000])
"""


def kind_data(kind: str, n: int) -> tuple[Any, Any, np.ndarray]:
    scope: dict[str, Any] = {}
    exec(_MAKE.format(root=str(ROOT), kind=kind, n=n, names=NAMES), scope)  # noqa: S102
    return scope["y"], scope["yp"], scope["fold"]


def peak_rss(code: str) -> int | None:
    """Peak resident set size (bytes) of ``python -c code`` under ``/usr/bin/time -v``."""
    timer = shutil.which("time") or "/usr/bin/time"
    if not os.path.exists(timer):
        return None
    res = subprocess.run(
        [timer, "-v", sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", res.stderr)
    return int(m.group(1)) * 1024 if m else None


def kind_rows(n: int, repeats: int, memory: bool) -> list[dict]:
    import pandas as pd

    import cvframe

    out = []
    for kind in KINDS:
        y, yp, fold = kind_data(kind, n)
        t = interleaved(
            {
                "build": lambda y=y, yp=yp, fold=fold: cvframe.from_predictions(y, yp, fold),
                "factorize": lambda y=y: pd.factorize(y),
            },
            repeats,
        )
        t_cv, t_fz = t.min("build"), t.min("factorize")
        per_row = None
        if memory:
            base = _MAKE.format(root=str(ROOT), kind=kind, n=n, names=NAMES)
            before = peak_rss(base)
            after = peak_rss(base + "cvframe.from_predictions(y, yp, fold)\n")
            if before is not None and after is not None:
                per_row = max(after - before, 0) / n
        ratio = t_cv / t_fz
        met = ratio <= 3.0 and (per_row is None or per_row <= 48)
        out.append(
            {
                "what": f"counts cube, {n:.0e} rows, {kind} labels",
                "cvframe_s": t_cv,
                "yardstick": "one pandas.factorize of y_true",
                "yardstick_s": t_fz,
                "ratio": ratio,
                "goal": "<= 3x one factorize, <= 48 B/row extra",
                "met": met if memory else (ratio <= 3.0),
                "note": (
                    f"extra peak memory {per_row:.1f} B/row (/usr/bin/time -v)"
                    if per_row is not None
                    else "memory not measured (quick mode or no /usr/bin/time)"
                ),
            }
        )
    return out


def rows(quick: bool = False) -> list[dict]:
    """Rows of the benchmark table (see the module docstring)."""
    if quick:
        return int_rows(100_000, (10,), 3, sklearn=False) + kind_rows(100_000, 2, memory=False)
    return int_rows(10_000_000, (2, 10, 100), 3, sklearn=True) + kind_rows(
        5_000_000, 2, memory=True
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    for row in rows(quick=args.quick):
        print(
            f"{row['what']:<48} {row['cvframe_s']:>8.3f}s  vs {row['yardstick']:<52} "
            f"{row['yardstick_s']:>8.3f}s  ratio {row['ratio']:>7.3f}  goal {row['goal']:<40} "
            f"met={row['met']}  {row.get('note', '')}"
        )


if __name__ == "__main__":
    main()
