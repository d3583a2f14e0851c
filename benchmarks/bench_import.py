"""Benchmark: what ``import cvframe`` costs beyond ``import xarray``.

- ``import cvframe`` against ``import xarray``, each in a fresh interpreter, best of 5 (goal:
  at most xarray + 0.05 s). Bytecode is cached the way an installed package has it: the
  subprocesses run without ``PYTHONDONTWRITEBYTECODE`` and with ``PYTHONPYCACHEPREFIX`` set
  to a folder under the temporary directory, warmed by one untimed run (a checkout run with
  ``PYTHONDONTWRITEBYTECODE=1`` compiles every module on every import; that time is in
  the note).
- The first cube on numpy input (import, ``from_predictions``, ``ds.cv.f_tp_fp()``) with
  dask installed against the same with dask hidden: xarray imports ``dask.array`` on the
  first Variable it makes from a numpy array when dask is installed, whoever asks.

The note also says which heavy modules (scipy, matplotlib, scikit-learn, dask, cvframe's
plotting and command line, ...) ``import cvframe`` loaded; the expected answer is none
(tests/test_imports.py asserts it).

Run: python benchmarks/bench_import.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

HEAVY = (
    "scipy",
    "matplotlib",
    "seaborn",
    "sklearn",
    "dask",
    "tqdm",
    "numba",
    "statsmodels",
    "cvframe.plot",
    "cvframe.cli",
    "cvframe.runner",
    "cvframe.search",
    "cvframe.simulation",
)

_CHECK = (
    "import sys, json; print(json.dumps(sorted({m for m in sys.modules "
    f"for h in {HEAVY!r} if m == h or m.startswith(h + '.')}})))"
)

# Hides dask from the interpreter: the yardstick of the first-cube row.
_NO_DASK = "import sys\nsys.modules['dask'] = sys.modules['distributed'] = None\n"

_FIRST_CUBE = (
    "import numpy as np, cvframe\n"
    "rng = np.random.default_rng(0)\n"
    "y = rng.integers(0, 2, 1000)\n"
    "ds = cvframe.from_predictions(y, rng.integers(0, 2, 1000), np.arange(1000) % 5)\n"
    "ds.cv.f_tp_fp()\n"
)


def _env(pycache: str | None) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if pycache is None:  # compile every module from source, every time
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = pycache
    return env


def _run(code: str, env: dict[str, str]) -> tuple[float, float, str]:
    """Wall time, CPU time (user + system) and stdout of ``python -c code``."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    res = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    took = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0:
        raise RuntimeError(f"python -c {code!r}: {res.stderr.strip()[-500:]}")
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return took, cpu, res.stdout


def best_of(code: str, env: dict[str, str], repeats: int) -> tuple[float, float]:
    """Best wall and best CPU time of ``python -c code`` in fresh interpreters (after a warm-up).

    CPU time stretches less than wall time on a busy machine; on an idle one they agree.
    """
    _run(code, env)  # warm-up: bytecode cache, OS file cache
    runs = [_run(code, env)[:2] for _ in range(repeats)]
    return min(w for w, _ in runs), min(c for _, c in runs)


def _row(cvframe_s: float, xarray_s: float, heavy: list[str], note: str) -> dict[str, Any]:
    return {
        "what": "import cvframe (fresh interpreter)",
        "cvframe_s": cvframe_s,
        "yardstick": "import xarray",
        "yardstick_s": xarray_s,
        "ratio": cvframe_s / xarray_s,
        "goal": "<= xarray + 0.05 s",
        "met": cvframe_s <= xarray_s + 0.05 and not heavy,
        "note": note,
    }


def rows(quick: bool = False) -> list[dict[str, Any]]:
    """Benchmark rows (see benchmarks/run.py): import time, and the first cube (not quick)."""
    repeats = 1 if quick else 5
    pycache = os.path.join(tempfile.gettempdir(), "cvframe-bench-pycache")  # kept: warm next run
    env = _env(pycache)
    xarray_s, xarray_cpu = best_of("import xarray", env, repeats)
    cvframe_s, cvframe_cpu = best_of("import cvframe", env, repeats)
    heavy = json.loads(_run("import cvframe\n" + _CHECK, env)[2])
    note = (
        f"heavy modules loaded: {', '.join(heavy) if heavy else 'none'}; CPU time "
        f"{cvframe_cpu:.3f} s vs {xarray_cpu:.3f} s"
    )
    if quick:
        return [_row(cvframe_s, xarray_s, heavy, note)]
    note += f"; interpreter start alone {best_of('pass', env, repeats)[0]:.3f} s"
    uncached = best_of("import cvframe", _env(None), 3)[0]
    note += f"; without cached bytecode (PYTHONDONTWRITEBYTECODE=1) {uncached:.3f} s"
    out = [_row(cvframe_s, xarray_s, heavy, note)]
    with_dask, with_dask_cpu = best_of(_FIRST_CUBE, env, repeats)
    without, without_cpu = best_of(_NO_DASK + _FIRST_CUBE, env, repeats)
    out.append(
        {
            "what": "import + first cube + f_tp_fp, numpy input",
            "cvframe_s": with_dask,
            "yardstick": "the same with dask hidden",
            "yardstick_s": without,
            "ratio": with_dask / without,
            "goal": "<= dask hidden + 0.05 s",
            "met": with_dask <= without + 0.05,
            "note": f"CPU time {with_dask_cpu:.3f} s vs {without_cpu:.3f} s; xarray's "
            "as_compatible_data checks isinstance(data, dask.array.Array) on every Variable "
            "made from a numpy array, importing dask.array when dask is installed; cvframe "
            "cannot avoid it without patching xarray",
        }
    )
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="best of 1 instead of 5")
    args = parser.parse_args(argv)
    for row in rows(args.quick):
        print(
            f"{row['what']:<46} {row['cvframe_s']:7.3f} s  vs {row['yardstick']} "
            f"{row['yardstick_s']:.3f} s  ({row['goal']}: {'met' if row['met'] else 'NOT met'})"
            f"\n    {row['note']}"
        )


if __name__ == "__main__":
    main()
