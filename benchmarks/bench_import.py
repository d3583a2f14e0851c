"""Benchmark: what ``import cvframe`` costs beyond ``import xarray``.

- ``import cvframe`` against ``import xarray``, each in a fresh interpreter, in the same
  rounds (A, B, A, B: benchmarks/_timing.py), the minimum of 7 (goal: at most xarray +
  0.05 s). Bytecode is cached the way an installed package has it: the subprocesses run
  without ``PYTHONDONTWRITEBYTECODE`` and with ``PYTHONPYCACHEPREFIX`` set to a folder under
  the temporary directory, warmed by one untimed run (a checkout run with
  ``PYTHONDONTWRITEBYTECODE=1`` compiles every module on every import; that time is in
  the note).
- The first cube on numpy input (import, ``from_predictions``, ``ds.cv.f_tp_fp()``) with
  dask installed against the same with dask hidden (what installing dask costs it): xarray
  imports ``dask.array`` on the first Variable it makes from a numpy array, and ``dask``
  (with jinja2) on the first index, when dask is installed; cvframe leaves xarray's checks
  alone. The note says what was loaded.

The note also says which heavy modules (scipy, matplotlib, scikit-learn, dask, cvframe's
plotting and command line, the report, diagnostics, scores and comparisons that the
accessor methods load when called, ...) ``import cvframe`` loaded; the expected answer is
none (tests/test_imports.py and tests/test_import_cost.py assert it).

Run: python benchmarks/bench_import.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # _timing

from _timing import children_cpu, interleaved, python  # noqa: E402

HEAVY = (
    "scipy",
    "matplotlib",
    "seaborn",
    "sklearn",
    "dask",
    "jinja2",
    "tqdm",
    "numba",
    "statsmodels",
    "cvframe.plot",
    "cvframe.cli",
    "cvframe.runner",
    "cvframe.search",
    "cvframe.simulation",
    # loaded by the accessor methods that need them, when called (tests/test_import_cost.py)
    "cvframe.report",
    "cvframe.diagnostics",
    "cvframe.bootstrap",
    "cvframe.scores",
    "cvframe.tidy",
    "cvframe.compare",
    "cvframe.explain",
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


def _run(code: str, env: dict[str, str]) -> str:
    """The stdout of ``python -c code``."""
    res = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    if res.returncode != 0:
        raise RuntimeError(f"python -c {code!r}: {res.stderr.strip()[-500:]}")
    return res.stdout


def _row(t: Any, heavy: list[str], note: str) -> dict[str, Any]:
    cvframe_s, xarray_s = t.min("cvframe"), t.min("xarray")
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


_LOADED = (
    "import sys\n"
    "print(','.join(m for m in ('dask', 'dask.array', 'jinja2', 'numba', 'scipy.sparse')"
    " if m in sys.modules) or 'none')"
)


def _cpu_too(run: Any, spent: list[float]) -> Any:
    """``run``, also noting the CPU time (user + system) of its fresh process in ``spent``:
    on a loaded machine the wall time waits for the cores, the CPU time much less."""

    def call() -> None:
        before = children_cpu()
        run()
        spent.append(children_cpu() - before)

    return call


def _cpu_note(spent: dict[str, list[float]]) -> str:
    """The least CPU time of each candidate (the warm-up run left out)."""
    parts = [f"{name} {min(s[1:] or s):.3f} s" for name, s in spent.items()]
    return "CPU time min: " + ", ".join(parts)


def rows(quick: bool = False) -> list[dict[str, Any]]:
    """Benchmark rows (see benchmarks/run.py): import time, and the first cube (not quick);
    each candidate and its yardstick in the same rounds (fresh interpreters, A, B, A, B)."""
    rounds = 1 if quick else 7
    pycache = os.path.join(tempfile.gettempdir(), "cvframe-bench-pycache")  # kept: warm next run
    env = _env(pycache)
    spent: dict[str, list[float]] = {"cvframe": [], "xarray": []}
    t = interleaved(
        {
            name: _cpu_too(python(f"import {name}", env), spent[name])
            for name in ("cvframe", "xarray")
        },
        rounds,
    )
    heavy = json.loads(_run("import cvframe\n" + _CHECK, env))
    note = (
        f"heavy modules loaded: {', '.join(heavy) if heavy else 'none'}; {t.spread()}; "
        f"{_cpu_note(spent)}"
    )
    if quick:
        return [_row(t, heavy, note)]
    start = interleaved({"pass": python("pass", env)}, rounds).min("pass")
    uncached = interleaved({"cvframe": python("import cvframe", _env(None))}, 3).min("cvframe")
    note += (
        f"; interpreter start alone {start:.3f} s; without cached bytecode "
        f"(PYTHONDONTWRITEBYTECODE=1) {uncached:.3f} s"
    )
    out = [_row(t, heavy, note)]
    spent = {"with": [], "hidden": []}
    cube = interleaved(
        {
            "with": _cpu_too(python(_FIRST_CUBE, env), spent["with"]),
            "hidden": _cpu_too(python(_NO_DASK + _FIRST_CUBE, env), spent["hidden"]),
        },
        rounds,
    )
    loaded = _run(_FIRST_CUBE + _LOADED, env).strip().splitlines()[-1]
    extra = cube.min("with") - cube.min("hidden")
    out.append(
        {
            "what": "import + first cube + f_tp_fp, numpy input",
            "cvframe_s": cube.min("with"),
            "yardstick": "the same with dask hidden",
            "yardstick_s": cube.min("hidden"),
            "ratio": cube.ratio("with", "hidden"),
            "goal": "xarray's dask checks, left alone: informational",
            "met": True,
            "note": f"+{extra:.3f} s; loaded after the first cube: {loaded} (xarray's "
            "checks, with dask installed); "
            f"{cube.spread()}; {_cpu_note(spent)}",
        }
    )
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one round instead of 7")
    args = parser.parse_args(argv)
    for row in rows(args.quick):
        print(
            f"{row['what']:<46} {row['cvframe_s']:7.3f} s  vs {row['yardstick']} "
            f"{row['yardstick_s']:.3f} s  ({row['goal']}: {'met' if row['met'] else 'NOT met'})"
            f"\n    {row['note']}"
        )


if __name__ == "__main__":
    main()
