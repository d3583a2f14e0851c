"""Benchmark: the threads of each fit in ``cross_validate`` of several multithreaded models.

A study of logistic regression (BLAS), a random forest and histogram gradient boosting
(OpenMP, whose threads wait for each other at every tree) runs ``cvframe.cross_validate``
with its default (one BLAS/OpenMP thread per fit, ``CVFRAME_THREADS`` unset) and with the
libraries' own threads (``CVFRAME_THREADS=all``: one per core), each in a fresh process, in
turn (``_timing.fresh``), and reports the wall time of each and the threads a fit saw
(threadpoolctl). On a loaded machine the libraries' threads are oversubscribed: each waits
for a core the other processes hold.

``rows(quick)`` (for benchmarks/run.py); ``quick=True`` uses 1,000 samples and 3 folds.

Run: nice -n 10 python benchmarks/bench_threads.py [--samples N] [--folds K] [--rounds R]
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # _timing

from _timing import fresh, load  # noqa: E402

#: The study one process runs: its wall time and the threads a fit saw, printed as JSON.
STUDY = """
import json, sys, time, warnings
sys.path.insert(0, {root!r})
import threadpoolctl
from sklearn.datasets import make_classification
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
import cvframe

class Seen(GaussianNB):
    def fit(self, X, y, sample_weight=None):
        info = threadpoolctl.threadpool_info()
        Seen.threads = sorted({{i["num_threads"] for i in info}})
        return super().fit(X, y, sample_weight=sample_weight)

X, y = make_classification(n_samples={n}, n_features=30, n_informative=10, random_state=0)
models = {{
    "lr": LogisticRegression(max_iter=2000),
    "rf": RandomForestClassifier(n_estimators=100, random_state=0),
    "hgb": HistGradientBoostingClassifier(max_iter=100, random_state=0),
    "seen": Seen(),
}}
t0 = time.perf_counter()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    cvframe.cross_validate(models, X, y, cv={k}, progress=False)
print(json.dumps({{"seconds": time.perf_counter() - t0, "threads": Seen.threads}}))
"""


def timings(samples: int, folds: int, rounds: int) -> dict[str, Any]:
    """Wall time (best of ``rounds``, in turn) and the threads a fit saw, per setting."""
    import json
    import subprocess

    code = STUDY.format(root=ROOT, n=samples, k=folds)
    out: dict[str, Any] = {}
    settings = {"one thread per fit (default)": "", "the libraries' threads": "all"}
    for _ in range(rounds):
        for name, value in settings.items():
            env = dict(os.environ, CVFRAME_THREADS=value)
            env.pop("OMP_NUM_THREADS", None)
            env.pop("OPENBLAS_NUM_THREADS", None)
            fresh([sys.executable, "-c", "pass"], env)()  # the interpreter starts, warm
            res = subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=900
            )
            if res.returncode != 0:
                raise RuntimeError(res.stderr[-800:])
            got = json.loads(res.stdout.strip().splitlines()[-1])
            print(f"  {name}: {got['seconds']:.1f} s", file=sys.stderr, flush=True)  # as it goes
            best = out.get(name)
            if best is None or got["seconds"] < best["seconds"]:
                out[name] = got
    return out


def rows(quick: bool = False) -> list[dict[str, Any]]:
    """Benchmark rows (see benchmarks/run.py): one thread per fit against the libraries'."""
    samples, folds, rounds = (1000, 3, 1) if quick else (4000, 5, 2)
    t = timings(samples, folds, rounds)
    one, many = t["one thread per fit (default)"], t["the libraries' threads"]
    return [
        {
            "what": f"cross_validate LR + RF + HistGB, {samples} samples, {folds} folds, "
            f"one thread per fit (a fit saw {one['threads']})",
            "cvframe_s": one["seconds"],
            "yardstick": f"CVFRAME_THREADS=all (a fit saw {many['threads']})",
            "yardstick_s": many["seconds"],
            "ratio": one["seconds"] / many["seconds"],
            "goal": "<= 1.2x the libraries' threads",
            "met": one["seconds"] <= 1.2 * many["seconds"],
            "note": load(),
        }
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=4000)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    print(load())
    for name, got in timings(args.samples, args.folds, args.rounds).items():
        print(f"{name:32} {got['seconds']:8.1f} s   threads a fit saw: {got['threads']}")


if __name__ == "__main__":
    main()
