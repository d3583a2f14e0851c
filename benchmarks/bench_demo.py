"""Benchmark: what a user of the command line waits for.

- ``cvframe demo``: wall time of ``python -m cvframe demo`` in a fresh process, the fastest
  of 3 runs (goal: under 15 s on 2 idle cores); the note has the median, the demo's own time
  per stage, the CPU time of all its processes and the load.
- ``cvframe report`` on a 10^6-row predictions CSV (2, 10 and 100 classes, 5 repeats x 10
  folds, score columns; 2 and 10 classes also with a model column of 3 models) as a fresh
  process, against a fresh process that only reads the CSV with ``pandas.read_csv``
  (default engine), the two in the same rounds (goal: at most 3x; 4x at 100 classes). The
  note has both in process (imports paid), and the heavy modules the report process loaded.
- the report's peak memory: the peak resident memory of the report process minus that of
  the process that only reads the CSV (``/usr/bin/time -v``), over the frame's size in
  memory (``DataFrame.memory_usage(deep=True)``); goal: at most 2x.

Run: python benchmarks/bench_demo.py [--quick]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import shutil
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
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # _timing
ENV = dict(os.environ, MPLBACKEND="Agg", CVFRAME_PROGRESS="0", PYTHONPATH=ROOT)

from _timing import children_cpu, fresh, interleaved, load, load_average, python  # noqa: E402


def predictions_csv(path: str, rows: int, classes: int, seed: int = 0, models: int = 0) -> str:
    """A predictions CSV: 5 repeats x 10 folds (per model: ``models`` > 0 adds a model
    column, model names ``m0``, ``m1``, ...), labels 0..classes-1, score columns."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, rows)
    noise = rng.normal(0, 1.0, (rows, classes))
    noise[np.arange(rows), y] += 1.5
    pred = noise.argmax(axis=1)
    cols: dict[str, Any] = {}
    if models:
        cols["model"] = np.array([f"m{i}" for i in range(models)])[np.arange(rows) % models]
    per = max(models, 1)
    cols.update(
        {
            "repeat": (np.arange(rows) // per) % 5,
            "fold": (np.arange(rows) // (5 * per)) % 10,
            "y_true": y,
            "y_pred": pred,
        }
    )
    if classes == 2:
        cols["score"] = np.round(noise[:, 1] - noise[:, 0], 5)
    else:
        for c in range(classes):
            cols[f"score_{c}"] = np.round(noise[:, c], 4 if classes <= 10 else 3)
    pd.DataFrame(cols).to_csv(path, index=False)
    return path


def _report_in_process(path: str) -> None:
    from cvframe import cli

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = cli.main(["report", path, "--format", "json", "--no-progress"])
    if code != 0:
        raise RuntimeError(f"cvframe report {path} exited {code}")


_HEAVY = (
    "import sys\n"
    "print(','.join(m for m in ('scipy.special', 'scipy.stats', 'dask', 'dask.array', 'numba',"
    " 'matplotlib', 'sklearn') if m in sys.modules) or 'none')"
)


def _heavy_modules(path: str) -> str:
    """The heavy modules a ``cvframe report`` process ends up with."""
    code = (
        "import contextlib, io\nfrom cvframe import cli\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    cli.main(['report', {path!r}, '--format', 'json', '--no-progress'])\n" + _HEAVY
    )
    res = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=ENV, timeout=900
    )
    return res.stdout.strip().splitlines()[-1] if res.returncode == 0 else "?"


#: (classes, models) of the report rows, and each one's goal against reading the CSV.
REPORTS = ((2, 0, 3.0), (2, 3, 3.0), (10, 0, 3.0), (10, 3, 3.0), (100, 0, 4.0))


def report_rows(n: int, rounds: int, fresh_too: bool, plan=REPORTS) -> list[dict[str, Any]]:
    """``cvframe report FILE`` as a fresh process against a fresh process that only reads
    the CSV with pandas (the same rounds); the report in process in the note; the report's
    peak memory over the reading process's."""
    out: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for classes, models, goal in plan:
            name = f"preds{classes}_{models}.csv"
            path = predictions_csv(os.path.join(tmp, name), n, classes, models=models)
            model = f", {models}-model column" if models else ""
            what = f"cvframe report, {n:,}-row CSV with scores, {classes} classes{model}"
            report = fresh(
                [sys.executable, "-m", "cvframe", "report", path, "--format", "json"], ENV
            )
            read = python(f"import pandas as pd\npd.read_csv({path!r})", ENV)
            try:
                t = interleaved({"report": report, "read": read}, rounds)
            except RuntimeError as exc:  # this file fails: a failed row, the others still run
                out.append(_failed(what, exc))
                continue
            _report_in_process(path)  # warm: imports and first-call costs
            inproc = interleaved(
                {
                    "report": lambda path=path: _report_in_process(path),
                    "read": lambda path=path: pd.read_csv(path),
                },
                max(1, rounds - 1),
                warmup=False,
            )
            ratio = t.ratio("report", "read")
            note = (
                f"in process (imports paid): report {inproc.min('report'):.2f} s, read_csv "
                f"{inproc.min('read'):.2f} s; so imports, start-up and first calls "
                f"{t.min('report') - inproc.min('report'):.2f} s of the fresh report"
            )
            heavy = _heavy_modules(path) if fresh_too else "?"
            if fresh_too:
                note += f"; heavy modules the report process loaded: {heavy}"
            out.append(
                {
                    "what": f"{what} (fresh process)",
                    "mode": "fresh",
                    "engine": "numba" if "numba" in heavy.split(",") else "numpy",
                    "cvframe_s": t.min("report"),
                    "yardstick": "a fresh process reading the CSV with pandas.read_csv",
                    "yardstick_s": t.min("read"),
                    "ratio": ratio,
                    "goal": f"<= {goal:g}x the pandas process",
                    "met": ratio <= goal,
                    "note": note + f"; {t.spread()}; {load()}",
                    "load": load_average(),
                }
            )
            if fresh_too:
                out.append(memory_row(path, what))
    return out


def memory_row(path: str, what: str) -> dict[str, Any]:
    """Peak resident memory of the report process beyond the reading process's, against
    the frame's size in memory."""
    frame_mb = pd.read_csv(path).memory_usage(deep=True).sum() / 2**20
    read = _peak_mb([sys.executable, "-c", f"import pandas as pd\npd.read_csv({path!r})"])
    rep = _peak_mb([sys.executable, "-m", "cvframe", "report", path, "--format", "json"])
    extra = (rep - read) if rep is not None and read is not None else float("nan")
    return {
        "what": f"{what}: peak memory beyond read_csv's",
        "mode": "fresh",
        "engine": "—",
        "unit": "MiB",
        "cvframe_s": extra,
        "yardstick": "the frame in memory",
        "yardstick_s": frame_mb,
        "ratio": extra / frame_mb,
        "goal": "<= 2x the frame",
        "met": bool(extra <= 2 * frame_mb),
        "note": f"peak RSS: report {rep:.0f} MiB, read_csv alone {read:.0f} MiB (/usr/bin/time -v)",
        "load": load_average(),
    }


def _peak_mb(argv: list[str]) -> float | None:
    """Peak resident memory (MiB) of ``argv`` under ``/usr/bin/time -v``, or None."""
    timer = shutil.which("time") or "/usr/bin/time"
    if not os.path.exists(timer):
        return None
    res = subprocess.run(
        [timer, "-v", *argv], capture_output=True, text=True, env=ENV, timeout=1800
    )
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", res.stderr)
    return int(m.group(1)) / 1024 if m and res.returncode == 0 else None


def _failed(what: str, exc: Exception) -> dict[str, Any]:
    return {
        "what": f"{what}: FAILED",
        "cvframe_s": float("nan"),
        "yardstick": "",
        "yardstick_s": float("nan"),
        "ratio": float("nan"),
        "goal": "",
        "met": False,
        "note": str(exc)[-300:],
    }


def _stages(stdout: str) -> str:
    """The demo's own last line: its time per stage."""
    found = re.search(r"Done in .*", stdout)
    return found.group(0) if found else "no stage times printed"


def rows(quick: bool = False, modes: tuple[str, ...] = ("fresh",)) -> list[dict[str, Any]]:
    """Benchmark rows (see benchmarks/run.py): the report vs reading the CSV, its memory,
    and the demo; all fresh processes (a command is one), whatever ``modes`` asks."""
    n = 10_000 if quick else 1_000_000
    plan = REPORTS[:2] if quick else REPORTS
    out = report_rows(n, 1 if quick else 3, fresh_too=not quick, plan=plan)
    if quick:
        out.append(
            {
                "what": "cvframe demo (wall time, fresh process)",
                "mode": "fresh",
                "cvframe_s": float("nan"),
                "yardstick": "15 s on 2 idle cores",
                "yardstick_s": 15.0,
                "ratio": float("nan"),
                "goal": "< 15 s",
                "met": None,
                "note": "not run with quick=True (it takes seconds to minutes)",
            }
        )
        return out
    out.append(demo_row(3))
    return out


def demo_row(rounds: int) -> dict[str, Any]:
    """``python -m cvframe demo`` as a fresh process, ``rounds`` times: the fastest run (the
    least disturbed by other load), with its own time per stage, its CPU time (every process
    it started) and the load around it; the median in the note."""
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(max(1, rounds)):
            before = load()
            t0, cpu0 = time.perf_counter(), children_cpu()
            res = subprocess.run(
                [sys.executable, "-m", "cvframe", "demo", "--out", os.path.join(tmp, f"demo{i}")]
                + ["--no-progress"],
                capture_output=True,
                text=True,
                env=ENV,
                timeout=900,
            )
            took, cpu = time.perf_counter() - t0, children_cpu() - cpu0
            if res.returncode != 0:
                raise RuntimeError(f"cvframe demo: {res.stderr.strip()[-800:]}")
            runs.append((took, cpu, _stages(res.stdout), before, load()))
    took, cpu, stages, before, after = min(runs)
    median = sorted(r[0] for r in runs)[len(runs) // 2]
    return {
        "what": "cvframe demo (wall time, fresh process)",
        "mode": "fresh",
        "load": load_average(),
        "cvframe_s": took,
        "yardstick": "15 s on 2 idle cores",
        "yardstick_s": 15.0,
        "ratio": took / 15.0,
        "goal": "< 15 s",
        "met": took < 15.0,
        "note": f"fastest of {len(runs)} runs (median {median:.1f} s): {stages} CPU time "
        f"{cpu:.1f} s (all processes); {before} before, {after} after; on a loaded machine "
        "the wall time is the CPU time shared, not the demo's",
    }


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
