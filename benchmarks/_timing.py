"""Fair timing for the benchmarks: cvframe and its yardstick in the same rounds.

A benchmark that times cvframe first and its yardstick afterwards compares two moments of a
machine whose load changes (on a shared 2-core machine four verdicts flipped that way).
:func:`interleaved` runs the candidates in turn, A, B, A, B, ..., so every round sees the
same load, and keeps the minimum (the least disturbed run) and the median of each.

Not a benchmark itself (``run.py`` collects only ``bench_*.py``).
"""

from __future__ import annotations

import gc
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["Timing", "children_cpu", "fresh", "interleaved", "load", "python", "speedup_note"]


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


def speedup_note(fast: float, slow: float, what: str) -> str:
    """``"23.4x faster than what"``: a measured note."""
    return f"{slow / fast:.1f}x faster than {what}"
