"""Benchmark of cvframe.interval and cvframe.coverage_study.

Rows (``rows(quick)`` is what ``benchmarks/run.py`` calls):

1. ``interval(ds, "f")`` (the posterior of F_tp,fp, exact Beta quantiles) on a 10-model x
   10-repeat x 10-fold binary cube, against computing the number alone
   (``ds.cv.f_tp_fp()``); goal: well under a second;
2. ``interval(ds, "f", average="macro")`` on the same design with 10 classes (the normal
   approximation of the posterior, no draws), against ``ds.cv.macro()``;
3. ``interval(ds, "f_avg")`` (corrected t) on the binary cube, against ``ds.cv.f_avg()``;
4. ``coverage_study`` of one cell (n=1000, k=10, prevalence 5%, F 0.8) at 10^4
   replications, against ``simulate`` of the same 10^4 trials (the floor); goal: seconds;
5. ``interval(ds, "f", average="macro", certify=True)`` (the coverage certificate at the
   cube's design) on 2 models of a single-label cube with 10 and with 100 classes, against
   the interval alone; goal: under 2 s;
6. ``interval(frame, "auc")`` (DeLong, logit scale) on a frame of 10^6 rows x 10 repeats
   (10^7 rows), against ``scores.auc(frame, "merge")``, warm (numba loaded: the goal) and in
   a fresh process (``import cvframe`` before the timer).

Timings interleave cvframe and its yardstick (benchmarks/_timing.py), best of a few rounds.

Usage::

    python benchmarks/bench_interval.py            # the table of rows()
    python benchmarks/bench_interval.py --quick    # small sizes, one round
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the repository's cvframe
sys.path.insert(0, str(Path(__file__).resolve().parent))  # _timing

from _timing import Case, interleaved, load_average, measure  # noqa: E402

import cvframe  # noqa: E402


def cube(models: int = 10, repeats: int = 10, folds: int = 10, classes: int = 1, seed: int = 0):
    """A counts cube (model, repeat, fold, class) of 1000 samples per repeat."""
    rng = np.random.default_rng(seed)
    shape = (models, repeats, folds, classes)
    size = 1000 // folds
    pos = np.full(shape, size // (classes + 1 if classes > 1 else 10))
    tp = rng.binomial(pos, 0.8)
    fp = rng.binomial(size - pos, 0.02)
    dims = ("model", "repeat", "fold", "class")
    data = {k: (dims, v) for k, v in (("tp", tp), ("fp", fp), ("fn", pos - tp))}
    data["tn"] = (dims, size - pos - fp)
    coords = {"model": [f"m{i}" for i in range(models)], "class": np.arange(classes)}
    task = "binary" if classes == 1 else "multilabel"
    return xr.Dataset(data, coords=coords, attrs={"task": task})


def frame(rows: int, repeats: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = (rng.random(rows) < 0.1).astype(np.int64)
    parts = [
        pd.DataFrame(
            {
                "repeat": r,
                "fold": rng.permutation(np.arange(rows) % 10),
                "y_true": y,
                "score": rng.standard_normal(rows) + 1.2 * y,
            }
        )
        for r in range(repeats)
    ]
    return pd.concat(parts, ignore_index=True)


def _row(what: str, t: Any, a: str, b: str, yard: str, goal: str, met: bool, note: str = ""):
    return {
        "what": what,
        "cvframe_s": t.min(a),
        "yardstick": yard,
        "yardstick_s": t.min(b),
        "ratio": t.ratio(a, b),
        "goal": goal,
        "met": met,
        "note": note or t.spread(),
    }


_DELONG = """
import sys
sys.path.insert(0, {here!r})
from bench_interval import frame
df = frame({rows}, 10)
import cvframe
from cvframe import scores
"""


def delong_rows(rows: int, modes: tuple[str, ...], rounds: int) -> list[dict[str, Any]]:
    """The DeLong interval of AUC_merge against the number alone, warm and fresh."""
    case = Case(
        _DELONG.format(here=str(Path(__file__).resolve().parent), rows=rows),
        {"interval": 'iv = cvframe.interval(df, "auc")', "number": 'a = scores.auc(df, "merge")'},
    )
    out = []
    for mode in modes:
        t, _ = measure(case, mode, rounds)
        ratio = t.ratio("interval", "number")
        note = t.spread()
        if mode == "fresh":
            note += f"; loaded by the call: {t.loaded('interval')}"
        out.append(
            {
                "what": f"interval AUC_merge (DeLong), {rows * 10:,} rows, 10 repeats",
                "mode": mode,
                "engine": t.engine("interval"),
                "cvframe_s": t.min("interval"),
                "yardstick": 'scores.auc(df, "merge")',
                "yardstick_s": t.min("number"),
                "ratio": ratio,
                "goal": "<= 3x" if mode == "warm" else "informational (the goal is warm)",
                "met": ratio <= 3 if mode == "warm" else None,
                "note": note,
                "load": load_average(),
            }
        )
    return out


def rows(quick: bool = False, modes: tuple[str, ...] = ("warm",)) -> list[dict[str, Any]]:
    rounds = 1 if quick else 5
    out = []
    n_models = 3 if quick else 10
    ds = cube(models=n_models)
    t = interleaved(
        {"interval": lambda: cvframe.interval(ds, "f"), "number": lambda: ds.cv.f_tp_fp()},
        rounds,
    )
    what = f"interval F_tp,fp, {n_models} models x 10 repeats x 10 folds"
    out.append(
        _row(what, t, "interval", "number", "ds.cv.f_tp_fp()", "< 1 s", t.min("interval") < 1)
    )
    dm = cube(models=n_models, classes=10)
    t = interleaved(
        {
            "interval": lambda: cvframe.interval(dm, "f", average="macro"),
            "number": lambda: dm.cv.macro(),
        },
        rounds,
    )
    what = f"interval macro F_tp,fp, 10 classes, {n_models} models (normal approximation)"
    out.append(_row(what, t, "interval", "number", "ds.cv.macro()", "< 1 s", t.min("interval") < 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = interleaved(
            {"interval": lambda: cvframe.interval(ds, "f_avg"), "number": lambda: ds.cv.f_avg()},
            rounds,
        )
    what = f"interval F_avg (corrected t), {n_models} models x 10 x 10"
    out.append(_row(what, t, "interval", "number", "ds.cv.f_avg()", "< 1 s", t.min("interval") < 1))
    trials = 1000 if quick else 10_000
    t = interleaved(
        {
            "study": lambda: cvframe.coverage_study(prevalence=0.05, f=0.8, trials=trials),
            "simulate": lambda: cvframe.simulate(prevalence=0.05, f=0.8, trials=trials, seed=0),
        },
        rounds,
    )
    what = f"coverage_study, one cell, {trials:,} replications"
    out.append(
        _row(what, t, "study", "simulate", "simulate (same trials)", "< 5 s", t.min("study") < 5)
    )
    for classes in (10, 100):
        dc = confusion_cube(classes)
        t = interleaved(
            {
                "certified": lambda dc=dc: cvframe.interval(dc, "f", average="macro", certify=True),
                "interval": lambda dc=dc: cvframe.interval(dc, "f", average="macro"),
            },
            rounds,
        )
        what = f"certified macro F_tp,fp interval, {classes} classes, 2 models"
        out.append(
            _row(
                what,
                t,
                "certified",
                "interval",
                "the interval alone",
                "< 2 s",
                t.min("certified") < 2,
            )
        )
    return [{"mode": "warm", "load": load_average(), **r} for r in out] + delong_rows(
        10_000 if quick else 1_000_000, modes, 1 if quick else 3
    )


def confusion_cube(classes: int, per_class: int = 100) -> xr.Dataset:
    """Two models' single-label cube (10 folds) of a classifier of accuracy 0.9 whose errors
    go to neighbouring classes (:func:`cvframe.intervals.certify.class_design`)."""
    from cvframe.intervals import certify

    design = certify.class_design(classes, per_class * classes, 0.9, 5.0, "nearby")
    cubes = []
    for m in range(2):
        conf = design.draw(1, np.random.default_rng(m))["confusion"].values[0, 0, 0]
        y = np.repeat(np.arange(classes), conf.sum(1))
        pred = np.concatenate([np.repeat(np.arange(classes), row) for row in conf])
        fold = np.random.default_rng(m).permutation(len(y)) % 10
        cubes.append(cvframe.from_predictions(y, pred, fold, labels=list(range(classes))))
    return xr.concat(cubes, dim="model").assign_coords(model=["a", "b"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--fresh", action="store_true", help="the DeLong row fresh too")
    args = parser.parse_args()
    for r in rows(args.quick, ("warm", "fresh") if args.fresh else ("warm",)):
        print(
            f"{r['what']:<60} {r['cvframe_s']:.4f} s vs {r['yardstick']} "
            f"{r['yardstick_s']:.4f} s  ratio {r['ratio']:.1f}  goal {r['goal']}  met {r['met']}"
        )


if __name__ == "__main__":
    main()
