"""Benchmark: when the compiled passes pay for loading numba (``cvframe._core.kernel``).

Under ``CVFRAME_KERNEL=auto`` a call loads numba when the work of the whole call saves more
than the load costs (``kernel.plan``): ``NUMBA_LOAD_SECONDS`` against ``SAVED_PER_VALUE``
of each kind of pass, two constants measured on the reference machine. This benchmark
measures both on the machine it runs on, and checks the decision where it matters:

1. the load: ``import numba`` and the first call of one cached pass, in fresh interpreters
   (CPU seconds: what the decision weighs), against ``NUMBA_LOAD_SECONDS``;
2. the saving per value of each kind of pass (``"count"``: the counting pass of a counts
   cube, per row; ``"rank"``: ``auc_methods``, per score; ``"fold"``: ``reduce.f_methods``,
   per cell and fold), numpy against the compiled pass in the same rounds, numba loaded,
   against ``SAVED_PER_VALUE``;
3. the decision: three calls near the break-even (AUC at 10^6 rows x 10 classes, one
   bias-study point of 10^6 trials, a counts cube of 10^7 rows) in fresh interpreters with
   the engine forced each way and left to ``auto``, in the same rounds: ``auto`` should be
   no slower than the better of the two, give or take the noise.

Usage::

    python benchmarks/bench_kernel.py            # the table of rows()
    python benchmarks/bench_kernel.py --quick    # small sizes
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the repository's cvframe
sys.path.insert(0, str(HERE))  # _timing

from _timing import Case, load_average, measure  # noqa: E402

_LOAD = """
import numpy as np
from cvframe.build import _kernel
a = np.arange(1000) % 7
"""
_LOAD_STMT = "import numba\nraw, _ = _kernel.compiled_count([a, a % 3, a % 2, a % 2], None, 1000)"


def load_row(rounds: int) -> dict[str, Any]:
    """What loading numba and one cached pass costs a fresh interpreter."""
    from cvframe._core import kernel

    _, _ = measure(Case(_LOAD, {"load": _LOAD_STMT}), "fresh", 1)  # compiles into the cache
    t, _ = measure(Case(_LOAD, {"load": _LOAD_STMT}), "fresh", rounds)
    cpu = min(r["cpu"] for r in t["load"]["info"])
    return {
        "what": "loading numba and one cached compiled pass (fresh process, CPU seconds)",
        "mode": "fresh",
        "engine": "numba",
        "cvframe_s": cpu,
        "yardstick": "kernel.NUMBA_LOAD_SECONDS",
        "yardstick_s": kernel.NUMBA_LOAD_SECONDS,
        "ratio": cpu / kernel.NUMBA_LOAD_SECONDS,
        "goal": "the constant within 1.5x of the measurement",
        "met": 1 / 1.5 <= cpu / kernel.NUMBA_LOAD_SECONDS <= 1.5,
        "note": f"wall {t.min('load'):.3f} s (median {t.median('load'):.3f} s)",
        "load": load_average(),
    }


def _cpu_pair(numpy_call: Any, numba_call: Any, rounds: int) -> tuple[float, float]:
    """Least CPU seconds of each call, the two in the same rounds."""
    best = {"numpy": np.inf, "numba": np.inf}
    for _ in range(rounds):
        for name, call in (("numpy", numpy_call), ("numba", numba_call)):
            c0 = time.process_time()
            call()
            best[name] = min(best[name], time.process_time() - c0)
    return best["numpy"], best["numba"]


def saving_rows(quick: bool, rounds: int) -> list[dict[str, Any]]:
    """The CPU time the compiled pass saves per value, per kind of pass."""
    import numba  # noqa: F401  - both engines at hand
    from bench_auc import make_frame

    import cvframe
    from cvframe import reduce, scores
    from cvframe._core import kernel
    from cvframe.build import _kernel as build_kernel

    rng = np.random.default_rng(0)
    n = 10**5 if quick else 10**7
    y = rng.integers(0, 10, n)
    arrays = [rng.integers(0, 3, n), rng.integers(0, 5, n), rng.integers(0, 10, n), y, y[::-1]]
    df = make_frame(10**4 if quick else 10**6, repeats=5)
    sim = cvframe.simulate(trials=10**4 if quick else 10**6, seed=1)
    calls = {
        "count": (lambda: build_kernel.count_table(arrays, None, n), n),
        "rank": (lambda: scores.auc_methods(df), len(df) * 10),
        "fold": (lambda: reduce.f_methods(sim, zero_division=0.0), sim.sizes["trial"] * 10),
    }
    out = []
    old = kernel.ENGINE
    try:
        for kind, (call, values) in calls.items():

            def run(engine: str, call: Any = call) -> None:
                kernel.ENGINE = engine
                call()

            run("numpy"), run("numba")  # warm-up
            t_np, t_nb = _cpu_pair(lambda: run("numpy"), lambda: run("numba"), rounds)
            saved = (t_np - t_nb) / values
            const = kernel.SAVED_PER_VALUE[kind]
            out.append(
                {
                    "what": f"seconds the compiled pass saves per value: {kind!r} "
                    f"({values:.0e} values)",
                    "mode": "warm",
                    "engine": "numpy vs numba",
                    "cvframe_s": saved,
                    "yardstick": "kernel.SAVED_PER_VALUE",
                    "yardstick_s": const,
                    "ratio": saved / const,
                    "goal": "the constant within 1.5x of the measurement",
                    "met": 1 / 1.5 <= saved / const <= 1.5,
                    "note": f"CPU: numpy {t_np:.3f} s, numba {t_nb:.3f} s; break-even "
                    f"{kernel.NUMBA_LOAD_SECONDS / saved:.2g} values with the load constant",
                    "load": load_average(),
                }
            )
    finally:
        kernel.ENGINE = old
    return out


_DECISIONS = {
    "auc_methods, 10^6 rows x 10 classes, 5 repeats": (
        "import sys\nsys.path.insert(0, {here!r})\nfrom bench_auc import make_frame\n"
        "df = make_frame({rows}, repeats=5)\nfrom cvframe import scores\n",
        "scores.auc_methods(df)",
        10**6,
    ),
    "bias_study, one point of 10^6 trials": (
        "import cvframe\n",
        "cvframe.bias_study(prevalence=0.05, f=0.8, stratified=True, trials={rows}, seed=1, "
        "progress=False)",
        10**6,
    ),
    "counts cube, 10^7 rows, 10 classes, 3 models": (
        "import numpy as np, pandas as pd\nrng = np.random.default_rng(0)\nn = {rows}\n"
        "y = rng.integers(0, 10, n)\ndf = pd.DataFrame({{'model': pd.Categorical.from_codes("
        "rng.integers(0, 3, n).astype(np.int8), ['a', 'b', 'c']), 'repeat': rng.integers(0, "
        "5, n), 'fold': rng.integers(0, 10, n), 'y_true': y, 'y_pred': y[::-1]}})\n"
        "import cvframe\n",
        "df.cv.counts()",
        10**7,
    ),
}


ENGINES = ("numpy", "numba", "auto")


def decision_rows(quick: bool, rounds: int) -> list[dict[str, Any]]:
    """Calls near the break-even in fresh interpreters: numpy, numba and auto."""
    out = []
    for what, (setup, stmt, rows) in _DECISIONS.items():
        size = max(rows // 100, 10_000) if quick else rows
        setup_code = setup.format(here=str(HERE), rows=size)
        stmt_code = stmt.format(rows=size)
        runs: dict[str, list[float]] = {e: [] for e in ENGINES}
        chose = set()
        for _ in range(rounds):  # the three in the same rounds
            for engine in ENGINES:
                case = Case(setup_code, {engine: stmt_code}, env={"CVFRAME_KERNEL": engine})
                t = measure(case, "fresh", 1)[0]
                runs[engine].append(t.min(engine))
                if engine == "auto":
                    chose.add(t.engine("auto"))
        best = min(("numpy", "numba"), key=lambda e: min(runs[e]))
        auto, fastest = min(runs["auto"]), min(runs[best])
        ratio = auto / fastest
        med = {e: float(np.median(runs[e])) for e in ENGINES}
        out.append(
            {
                "what": f"engine decision: {what} (fresh process)",
                "mode": "fresh",
                "engine": f"auto chose {'/'.join(sorted(chose))}",
                "cvframe_s": auto,
                "yardstick": f"the faster engine forced ({best})",
                "yardstick_s": fastest,
                "ratio": ratio,
                "goal": "auto no slower than the faster engine (<= 1.1x)",
                "met": ratio <= 1.1,
                "note": f"numpy {min(runs['numpy']):.3f} s, numba {min(runs['numba']):.3f} s, "
                f"auto {auto:.3f} s (medians {med['numpy']:.3f}, {med['numba']:.3f}, "
                f"{med['auto']:.3f})",
                "load": load_average(),
            }
        )
    return out


def rows(quick: bool = False, modes: tuple[str, ...] = ("warm",)) -> list[dict[str, Any]]:
    """Benchmark rows (see benchmarks/run.py); the load and the decisions are fresh by
    nature, the savings warm."""
    rounds = 1 if quick else 3
    out = [load_row(rounds)] + saving_rows(quick, rounds)
    if "fresh" in modes or not quick:
        out += decision_rows(quick, rounds)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    for r in rows(args.quick, ("warm", "fresh")):
        print(
            f"{r['what']}: {r['cvframe_s']:.3g} vs {r['yardstick']} {r['yardstick_s']:.3g} "
            f"ratio {r['ratio']:.2f} ({r['goal']}: {r['met']}); {r['note']}"
        )


if __name__ == "__main__":
    main()
