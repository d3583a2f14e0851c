"""Benchmark: what a user of the command line waits for.

- ``cvframe demo``: wall time of ``python -m cvframe demo`` in a fresh process (goal: under
  15 s on 2 idle cores).
- ``cvframe report`` on a 10^6-row predictions CSV (2 and 10 classes, with score columns):
  the command run in process (imports already paid), against ``pandas.read_csv`` of the same
  file with pandas' default engine (goal: at most 1.5x). The fresh-process time, imports
  included, is in the note.

Run: python benchmarks/bench_demo.py [--quick]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

import numpy as np
import pandas as pd

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, ROOT)
ENV = dict(os.environ, MPLBACKEND="Agg", CVFRAME_PROGRESS="0", PYTHONPATH=ROOT)


def _best(fn: Any, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def predictions_csv(path: str, rows: int, classes: int, seed: int = 0) -> str:
    """A predictions CSV: 5 repeats x 10 folds, labels 0..classes-1, score columns."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, rows)
    noise = rng.normal(0, 1.0, (rows, classes))
    noise[np.arange(rows), y] += 1.5
    pred = noise.argmax(axis=1)
    cols: dict[str, Any] = {
        "repeat": np.arange(rows) % 5,
        "fold": (np.arange(rows) // 5) % 10,
        "y_true": y,
        "y_pred": pred,
    }
    if classes == 2:
        cols["score"] = np.round(noise[:, 1] - noise[:, 0], 5)
    else:
        for c in range(classes):
            cols[f"score_{c}"] = np.round(noise[:, c], 4)
    pd.DataFrame(cols).to_csv(path, index=False)
    return path


def _report_in_process(path: str) -> None:
    from cvframe import cli

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = cli.main(["report", path, "--format", "json", "--no-progress"])
    if code != 0:
        raise RuntimeError(f"cvframe report {path} exited {code}")


def _fresh(*argv: str) -> float:
    t0 = time.perf_counter()
    res = subprocess.run(
        [sys.executable, "-m", "cvframe", *argv],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=900,
    )
    took = time.perf_counter() - t0
    if res.returncode != 0:
        raise RuntimeError(f"cvframe {' '.join(argv)}: {res.stderr.strip()[-500:]}")
    return took


def rows(quick: bool = False) -> list[dict[str, Any]]:
    """Benchmark rows (see benchmarks/run.py): the demo, and the report vs read_csv."""
    out: list[dict[str, Any]] = []
    n = 10_000 if quick else 1_000_000
    repeats = 1 if quick else 3
    with tempfile.TemporaryDirectory() as tmp:
        for classes in (2, 10):
            path = predictions_csv(os.path.join(tmp, f"preds{classes}.csv"), n, classes)
            _report_in_process(path)  # warm: imports and first-call costs
            ours = _best(lambda path=path: _report_in_process(path), repeats)
            floor = _best(lambda path=path: pd.read_csv(path), repeats)
            note = ""
            if not quick:
                fresh = _fresh("report", path, "--format", "json")
                note = f"fresh process, imports included: {fresh:.2f} s"
            out.append(
                {
                    "what": f"cvframe report, {n:,}-row CSV, {classes} classes",
                    "cvframe_s": ours,
                    "yardstick": "pandas.read_csv (default engine)",
                    "yardstick_s": floor,
                    "ratio": ours / floor,
                    "goal": "<= 1.5x read_csv",
                    "met": ours / floor <= 1.5,
                    "note": note,
                }
            )
        if quick:
            out.append(
                {
                    "what": "cvframe demo (wall time, fresh process)",
                    "cvframe_s": float("nan"),
                    "yardstick": "15 s on 2 idle cores",
                    "yardstick_s": 15.0,
                    "ratio": float("nan"),
                    "goal": "< 15 s",
                    "met": False,
                    "note": "not run with quick=True (it takes seconds to minutes)",
                }
            )
        else:
            took = _fresh("demo", "--out", os.path.join(tmp, "demo"), "--no-progress")
            out.append(
                {
                    "what": "cvframe demo (wall time, fresh process)",
                    "cvframe_s": took,
                    "yardstick": "15 s on 2 idle cores",
                    "yardstick_s": 15.0,
                    "ratio": took / 15.0,
                    "goal": "< 15 s",
                    "met": took < 15.0,
                    "note": f"os.cpu_count()={os.cpu_count()}, load before "
                    f"{os.getloadavg()[0]:.1f}",
                }
            )
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small file, no demo")
    args = parser.parse_args(argv)
    for row in rows(args.quick):
        print(
            f"{row['what']:<48} {row['cvframe_s']:8.2f} s  vs {row['yardstick']} "
            f"{row['yardstick_s']:.2f} s  ratio {row['ratio']:.2f} ({row['goal']}: "
            f"{'met' if row['met'] else 'NOT met'}) {row.get('note', '')}"
        )


if __name__ == "__main__":
    main()
