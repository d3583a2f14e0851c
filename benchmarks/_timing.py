"""Fair timing for the benchmarks: cvframe and its yardstick in the same rounds.

A benchmark that times cvframe first and its yardstick afterwards compares two moments of a
machine whose load changes (on a shared 2-core machine four verdicts flipped that way).
:func:`interleaved` runs the candidates in turn, A, B, A, B, ..., so every round sees the
same load, and keeps the minimum (the least disturbed run) and the median of each.

A user meets a function either in a fresh process (a script, a command: the first call pays
for the imports and for loading the compiled passes) or warm (a session that has run it, or
something like it, before). :class:`Case` writes a measurement as code, and :func:`measure`
runs it either way: ``"warm"`` in this process, after one untimed call of each statement,
with numba loaded when it is installed (a session's steady state); ``"fresh"`` each run in a
new interpreter that makes the inputs, then times the one statement (its imports and the
engine's load included; the inputs' making excluded). Every run also says which engine ran
(numba loaded by the end of the statement or not) and the heavy modules it loaded.

Not a benchmark itself (``run.py`` collects only ``bench_*.py``).
"""

from __future__ import annotations

import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "MODES",
    "Case",
    "Timing",
    "children_cpu",
    "fresh",
    "interleaved",
    "load",
    "load_average",
    "measure",
    "python",
    "speedup_note",
]

#: How a row is run: in this process after a warm-up, or every run in a fresh interpreter.
MODES = ("warm", "fresh")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: Modules whose import a fresh run reports (what the statement loaded).
HEAVY = ("numba", "dask", "distributed", "scipy", "sklearn", "matplotlib", "xarray", "pyarrow")


class Timing(dict):
    """``{name: {"min": s, "median": s, "runs": [s, ...]}}`` of :func:`interleaved`."""

    def min(self, name: str) -> float:
        return float(self[name]["min"])

    def median(self, name: str) -> float:
        return float(self[name]["median"])

    def ratio(self, a: str, b: str) -> float:
        """min(a) / min(b): the least disturbed run of each."""
        return self.min(a) / self.min(b)

    def spread(self) -> str:
        """The medians, for a note: how much the load stretched the runs."""
        return ", ".join(f"{k} median {_s(v['median'])}" for k, v in self.items())

    def engine(self, name: str) -> str:
        """Which engine ``name``'s runs used: "numba" when numba was loaded by the end of
        every run, "numpy" when by none, else "mixed"."""
        used = {bool(i.get("numba")) for i in self[name].get("info", [])}
        return "numba" if used == {True} else "numpy" if used == {False} else "mixed"

    def loaded(self, name: str) -> str:
        """The heavy modules the fresh runs of ``name`` loaded (those of its first run)."""
        info = self[name].get("info", [])
        mods = info[0].get("loaded", []) if info else []
        return ", ".join(mods) or "none"


def _s(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms" if seconds < 0.1 else f"{seconds:.3g} s"


def interleaved(
    candidates: Mapping[str, Callable[[], Any]], rounds: int, warmup: bool = True
) -> Timing:
    """Time each candidate once per round, in turn (A, B, A, B, ...); min and median of each.

    ``warmup``: one untimed call of each first (imports, compilation, first allocations).
    """
    if warmup:
        for fn in candidates.values():
            fn()
    runs: dict[str, list[float]] = {name: [] for name in candidates}
    for _ in range(max(1, rounds)):
        for name, fn in candidates.items():
            gc.collect()
            t0 = time.perf_counter()
            fn()
            runs[name].append(time.perf_counter() - t0)
    return Timing(
        {
            name: {"min": min(ts), "median": statistics.median(ts), "runs": ts}
            for name, ts in runs.items()
        }
    )


def fresh(argv: Sequence[str], env: Mapping[str, str] | None = None) -> Callable[[], float]:
    """A candidate that runs ``argv`` as a fresh process (an error raises, with its stderr)."""

    def run() -> float:
        t0 = time.perf_counter()
        res = subprocess.run(
            list(argv), capture_output=True, text=True, env=dict(env or os.environ), timeout=900
        )
        if res.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)}: {res.stderr.strip()[-800:]}")
        return time.perf_counter() - t0

    return run


def python(code: str, env: Mapping[str, str] | None = None) -> Callable[[], float]:
    """A candidate that runs ``python -c code`` in a fresh interpreter."""
    return fresh([sys.executable, "-c", code], env)


def children_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def load() -> str:
    """The 1-minute load average and the cores, for a note."""
    return f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


def load_average() -> float:
    """The 1-minute load average now (a row's ``load``)."""
    return round(os.getloadavg()[0], 2)


@dataclass
class Case:
    """A measurement as code. ``setup`` makes the inputs (numpy, pandas: not timed);
    ``timed`` names the statements timed in turn (the candidate first, then its yardsticks);
    ``warm`` runs once before warm timing (default: import numba when installed, a session
    that has loaded the compiled passes); ``env``: environment variables of the fresh runs
    (``CVFRAME_KERNEL``, ...)."""

    setup: str
    timed: dict[str, str]
    warm: str = "import importlib.util\nif importlib.util.find_spec('numba'):\n    import numba\n"
    env: dict[str, str] = field(default_factory=dict)


def measure(case: Case, mode: str, rounds: int) -> tuple[Timing, dict[str, Any]]:
    """Time every statement of ``case`` in the same rounds (A, B, A, B, ...), ``mode``
    ``"warm"`` (this process, after one untimed call of each) or ``"fresh"`` (each run in a
    new interpreter). Returns the :class:`Timing` (with each run's engine and loaded
    modules under ``"info"``) and, warm, the namespace the statements ran in."""
    if mode == "warm":
        ns: dict[str, Any] = {"__name__": "__bench__"}
        exec(textwrap.dedent(case.setup), ns)  # noqa: S102 - the benchmark's own code
        exec(textwrap.dedent(case.warm), ns)  # noqa: S102
        code = {k: compile(textwrap.dedent(v), f"<{k}>", "exec") for k, v in case.timed.items()}
        t = interleaved({k: (lambda c=c: exec(c, ns)) for k, c in code.items()}, rounds)
        for k in t:
            t[k]["info"] = [{"numba": "numba" in sys.modules}]
        return t, ns
    if mode != "fresh":
        raise ValueError(f"mode={mode!r} must be one of {MODES}")
    env = dict(os.environ, PYTHONPATH=ROOT, MPLBACKEND="Agg", CVFRAME_PROGRESS="0")
    env.update(case.env)
    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in case.timed}
    for _ in range(max(1, rounds)):
        for name, stmt in case.timed.items():
            runs[name].append(_fresh_run(case.setup, stmt, env))
    t = Timing(
        {
            name: {
                "min": min(r["s"] for r in rs),
                "median": statistics.median(r["s"] for r in rs),
                "runs": [r["s"] for r in rs],
                "info": rs,
            }
            for name, rs in runs.items()
        }
    )
    return t, {}


_PROGRAM = """\
import sys, time, json
sys.path.insert(0, {root!r})
{setup}
_before = set(sys.modules)
_t0, _c0 = time.perf_counter(), time.process_time()
{stmt}
_s, _c = time.perf_counter() - _t0, time.process_time() - _c0
_had = {{m.split('.')[0] for m in _before}}
_new = sorted({{m.split('.')[0] for m in sys.modules}} - _had & set({heavy!r}))
print('\\n@@' + json.dumps({{'s': _s, 'cpu': _c, 'numba': 'numba' in sys.modules, 'loaded': _new}}))
"""


def _fresh_run(setup: str, stmt: str, env: Mapping[str, str]) -> dict[str, Any]:
    """One run of ``stmt`` in a new interpreter after ``setup``: its seconds, CPU seconds,
    whether numba was loaded by its end and the heavy modules it loaded."""
    program = _PROGRAM.format(
        root=ROOT, setup=textwrap.dedent(setup), stmt=textwrap.dedent(stmt), heavy=HEAVY
    )
    res = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, env=dict(env), timeout=1800
    )
    if res.returncode != 0:
        raise RuntimeError(f"a fresh run failed: {res.stderr.strip()[-800:]}")
    line = next(ln for ln in reversed(res.stdout.splitlines()) if ln.startswith("@@"))
    return json.loads(line[2:])


def speedup_note(fast: float, slow: float, what: str) -> str:
    """``"23.4x faster than what"``: a measured note."""
    return f"{slow / fast:.1f}x faster than {what}"
