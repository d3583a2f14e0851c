"""Benchmark: building the counts cube from a predictions table (``from_predictions``,
``df.cv.counts()``).

10^7 rows, C = 2, 10, 100 classes, integer labels:

- without a model column: 10 repeats x 10 folds, the rows sorted by repeat and fold;
- with a model column as ``cross_validate`` writes it (a pandas Categorical of 3 model
  names), 3 models x 5 repeats x 10 folds, and with integer model ids;
- in random order: the same model, repeat and fold columns shuffled row by row (a random
  model, repeat and fold per row, as a shuffled file has);

each against the read floor: one plain read of the same input arrays (a sum over each; a
Categorical's codes), timed in the same rounds (benchmarks/_timing.py: A, B, A, B, ...),
warm (numba loaded, as in a session) and in a fresh process (``import cvframe`` before the
timer, the call's own lazy imports and the engine's load after it). Warm, against the way a
scikit-learn user computes the same counts: a loop over (repeat, fold) calling
``sklearn.metrics.multilabel_confusion_matrix``.

Label kinds (int64, pandas Categorical, numpy object strings, pandas ``string``): 5*10^6
rows, 10 classes, 10 folds; time against one ``pandas.factorize`` of the y_true column, and
the extra peak memory of the build in bytes per row, measured with ``/usr/bin/time -v`` on a
fresh interpreter (peak RSS of creating the inputs and building, minus creating the inputs
only).

Usage::

    python benchmarks/bench_build.py                  # the table of rows(), warm
    python benchmarks/bench_build.py --fresh --warm   # both ways
    python benchmarks/bench_build.py --quick          # small sizes, no subprocess
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

from _timing import Case, interleaved, load_average, measure  # noqa: E402

KINDS = ("int", "Categorical", "object str", "pandas string")
NAMES = [f"class_{i}" for i in range(10)]

#: The inputs of one counts-cube row: ``layout`` "sorted" (10 repeats x 10 folds, no model),
#: "model" (3 models x 5 repeats x 10 folds, sorted), "shuffled" (the same, rows in random
#: order); ``model`` "Categorical" or "int".
_DATA = """
import numpy as np, pandas as pd
n, c, layout, model = {n}, {c}, {layout!r}, {model!r}
rng = np.random.default_rng(0)
y = rng.integers(0, c, n)
yp = np.where(rng.random(n) < 0.7, y, rng.integers(0, c, n))
cols = {{}}
if layout == "sorted":
    cols["repeat"] = np.repeat(np.arange(10), n // 10)
    cols["fold"] = np.tile(np.repeat(np.arange(10), n // 100), 10)
else:
    ids = np.repeat(np.arange(150), n // 150 + 1)[:n]  # (model, repeat, fold) blocks
    if layout == "shuffled":
        ids = rng.permutation(ids)
    codes = (ids // 50).astype(np.int8)
    cols["model"] = (
        pd.Categorical.from_codes(codes, ["lr", "nb", "rf"]) if model == "Categorical"
        else codes.astype(np.int64)
    )
    cols["repeat"], cols["fold"] = (ids // 10) % 5, ids % 10
cols["y_true"], cols["y_pred"] = y, yp
df = pd.DataFrame(cols)
arrays = [df[k].cat.codes.to_numpy() if isinstance(df[k].dtype, pd.CategoricalDtype)
          else df[k].to_numpy() for k in df.columns]
del y, yp, cols
import cvframe
"""

_BUILD = "ds = df.cv.counts()"
_READ = "total = sum(int(a.sum()) for a in arrays)"
LAYOUTS = {
    "sorted": "10 repeats x 10 folds, sorted",
    "model": "3 models x 5 repeats x 10 folds",
    "shuffled": "3 models x 5 repeats x 10 folds, rows in random order",
}


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


def cube_row(n: int, c: int, layout: str, model: str, mode: str, rounds: int) -> dict[str, Any]:
    """The counts cube of one layout against reading its input arrays once."""
    case = Case(
        _DATA.format(n=n, c=c, layout=layout, model=model), {"build": _BUILD, "read": _READ}
    )
    t, ns = measure(case, mode, rounds)
    ratio = t.ratio("build", "read")
    col = "" if layout == "sorted" else f", {model} model column"
    note = f"{t.spread()}"
    if mode == "warm":
        note = f"{_count_share(ns, t)}; {note}"
    else:
        note += f"; loaded by the call: {t.loaded('build')}"
    warm_goal = mode == "warm"
    return {
        "what": f"counts cube, {n:.0e} int rows, {c} classes, {LAYOUTS[layout]}{col}",
        "mode": mode,
        "engine": t.engine("build"),
        "cvframe_s": t.min("build"),
        "yardstick": "reading the same input arrays once",
        "yardstick_s": t.min("read"),
        "ratio": ratio,
        "goal": "<= 2x the read floor" if warm_goal else "informational (the goal is warm)",
        "met": ratio <= 2.0 if warm_goal else None,
        "note": note,
        "load": load_average(),
    }


def _count_share(ns: dict[str, Any], t: Any) -> str:
    """The counting pass's share of a warm build: the pass alone, timed in its own rounds."""
    from cvframe.build import _kernel as build_kernel

    df, arrays = ns["df"], ns["arrays"]
    n = len(df)
    count = interleaved({"count": lambda: build_kernel.count_table(arrays, None, n)}, 3)
    share = count.min("count") / t.min("build")
    return (
        f"the counting pass (range check and counts) {share:.0%} of the build "
        f"({count.min('count') * 1e3:.1f} ms, {count.min('count') / t.min('read'):.2f}x the "
        "floor), coding and labelling the cube the rest"
    )


def sklearn_row(n: int, c: int) -> dict[str, Any]:
    """Warm: the build against a scikit-learn loop over (repeat, fold), in one round."""
    import cvframe

    y, yp, fold, repeat = int_data(n, c)
    cvframe.from_predictions(y, yp, fold, repeat=repeat)
    t = interleaved(
        {
            "build": lambda: cvframe.from_predictions(y, yp, fold, repeat=repeat),
            "sklearn": lambda: sklearn_loop(y, yp, fold, repeat, c),
        },
        1,
        warmup=False,
    )
    t_cv, t_sk = t.min("build"), t.min("sklearn")
    return {
        "what": f"counts cube, {n:.0e} int rows, {c} classes, 10 repeats x 10 folds",
        "mode": "warm",
        "engine": "numba" if "numba" in sys.modules else "numpy",
        "cvframe_s": t_cv,
        "yardstick": "sklearn multilabel_confusion_matrix loop over folds",
        "yardstick_s": t_sk,
        "ratio": t_cv / t_sk,
        "goal": "<= 1/50 (>= 50x faster)",
        "met": t_sk / t_cv >= 50,
        "note": f"{t_sk / t_cv:.0f}x faster",
        "load": load_average(),
    }


def int_rows(
    n: int, classes: tuple[int, ...], rounds: int, sklearn: bool, modes: tuple[str, ...]
) -> list[dict]:
    out = []
    for c in classes:
        for layout, model in (
            ("sorted", "int"),
            ("model", "Categorical"),
            ("model", "int"),
            ("shuffled", "Categorical"),
        ):
            for mode in modes:
                out.append(cube_row(n, c, layout, model, mode, rounds))
        if sklearn and "warm" in modes:
            out.append(sklearn_row(n, c))
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
                "mode": "warm",
                "engine": "numba" if "numba" in sys.modules else "numpy",
                "load": load_average(),
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


def rows(quick: bool = False, modes: tuple[str, ...] = ("warm",)) -> list[dict]:
    """Rows of the benchmark table (see the module docstring)."""
    if quick:
        return int_rows(100_000, (10,), 1, False, modes) + kind_rows(100_000, 2, memory=False)
    out = int_rows(10_000_000, (2, 10, 100), 3, True, modes)
    if "warm" in modes:
        out += kind_rows(5_000_000, 2, memory=True)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--warm", action="store_true", help="rows measured in this process")
    parser.add_argument("--fresh", action="store_true", help="rows of fresh interpreters")
    args = parser.parse_args(argv)
    modes = tuple(m for m in ("warm", "fresh") if getattr(args, m)) or ("warm",)
    for row in rows(quick=args.quick, modes=modes):
        print(
            f"{row['what']:<48} [{row.get('mode')}, {row.get('engine')}] "
            f"{row['cvframe_s']:>8.3f}s  vs {row['yardstick']:<52} "
            f"{row['yardstick_s']:>8.3f}s  ratio {row['ratio']:>7.3f}  goal {row['goal']:<40} "
            f"met={row['met']}  {row.get('note', '')}"
        )


if __name__ == "__main__":
    main()
