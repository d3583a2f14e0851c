"""Benchmark of cvframe.simulation: one (prevalence, F) point at 10^6 trials, and the grid.

Run:  python benchmarks/bench_simulation.py [--trials 1000000] [--grid-trials N]
      (``rows()`` is what ``benchmarks/run.py`` calls)

Reports (wall-clock seconds on this machine):

1. ``bias_study`` of one point: generation + all five estimators through the cube methods
   (``reduce.f_methods(zero_division=0.0)``, whose numbers come from one kernel pass,
   compiled with numba when it pays), chunked over threads of the process, plus exact
   values; the yardstick is drawing the 2 x 10^7 uniforms of its 10^6 trials
   (``numpy.random.Generator.random``), warm and in a fresh process (``import cvframe``
   before the timer; the note says what the call imported: no dask scheduler, no
   distributed); warm also against ``simulate`` + the five estimators fused in plain numpy;
2. ``reduce.f_methods`` alone on a 10^6-trial cube, on the numba and on the numpy engine of
   the kernel, against the fused numpy estimators on the same arrays;
3. the floor: ``numpy.random.Generator.binomial`` drawing the same 2 x 10^7 binomials;
4. a plain per-trial Python loop (binomial draws per fold and the five formulas in Python),
   timed on a few thousand trials and extrapolated to 10^6 (said so in the output);
5. the paper's Section 4 grid (Figures 4-8: prevalence 1-5% at F=0.8, and prevalence 1%, 5%,
   25% x F 0.60-0.95, stratified and unstratified: 58 points, 54 distinct) at
   ``--grid-trials`` per point, extrapolated to 10^6 trials when fewer are run.

A fresh process decides whether loading numba pays for the study's work
(``cvframe._core.kernel.plan``); every warm timing here is taken after one warm-up call
with numba loaded, as a long study sees it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from typing import Any

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:  # run as a script from anywhere: the checkout's cvframe
    sys.path.insert(0, ROOT)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # _timing

from _timing import Case, interleaved, load_average, measure  # noqa: E402

import cvframe  # noqa: E402
from cvframe import reduce, simulation  # noqa: E402
from cvframe._core import kernel as _kernel  # noqa: E402
from cvframe.simulation import _sampler  # noqa: E402


def _timed(func, *args, **kwargs):
    t = time.perf_counter()
    out = func(*args, **kwargs)
    return time.perf_counter() - t, out


def python_loop(trials: int, n=1000, prevalence=0.05, f=0.8, k=10, seed=0) -> float:
    """Per-trial, per-fold Python: the obvious implementation, for scale."""
    rng = np.random.default_rng(seed)
    P = round(n * prevalence)
    N = n - P
    q = P * (1 - f) / N
    pos = [P // k + (i < P % k) for i in range(k)]
    neg = [n // k + (i < n % k) - pos[i] for i in range(k)]
    acc = [0.0] * 5
    for _ in range(trials):
        tps = [int(rng.binomial(a, f)) for a in pos]
        fps = [int(rng.binomial(b, q)) for b in neg]
        fs, ps, rs, vs = [], [], [], []
        for tp, fp, a in zip(tps, fps, pos, strict=True):
            fn = a - tp
            v = (tp + fp) > 0 and a > 0
            ps.append(tp / (tp + fp) if tp + fp else 0.0)
            rs.append(tp / a if a else 0.0)
            fs.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
            vs.append(v)
        ttp, tfp = sum(tps), sum(fps)
        acc[0] += 2 * ttp / (ttp + P + tfp)
        acc[1] += sum(fs) / k
        pr, re = sum(ps) / k, sum(rs) / k
        acc[2] += 2 * pr * re / (pr + re) if pr + re else 0.0
        nv = sum(vs)
        acc[3] += sum(x for x, v in zip(fs, vs, strict=True) if v) / nv if nv else 0.0
        pv = sum(x for x, v in zip(ps, vs, strict=True) if v) / nv if nv else 0.0
        rv = sum(x for x, v in zip(rs, vs, strict=True) if v) / nv if nv else 0.0
        acc[4] += 2 * pv * rv / (pv + rv) if pv + rv else 0.0
    return acc[0] / trials


def fused_numpy(ds) -> dict:
    """The five estimators written directly in numpy (a yardstick for reduce.f_methods only;
    the study itself always uses the cube methods)."""
    tp, fp, fn = (ds[v].values[..., 0].astype(float) for v in ("tp", "fp", "fn"))
    with np.errstate(invalid="ignore", divide="ignore"):
        pr = np.where(tp + fp > 0, tp / (tp + fp), 0.0)
        re = np.where(tp + fn > 0, tp / (tp + fn), 0.0)
        f = np.where(tp > 0, 2 * tp / (2 * tp + fp + fn), 0.0)
        v = (tp + fp > 0) & (tp + fn > 0)
        nv = v.sum(1)
        T = tp.sum(1), fp.sum(1), fn.sum(1)
        hm = lambda p, r: np.where(p + r > 0, 2 * p * r / (p + r), 0.0)  # noqa: E731
        return {
            "f_tp_fp": 2 * T[0] / (2 * T[0] + T[1] + T[2]),
            "f_avg": f.mean(1),
            "f_pr_re": hm(pr.mean(1), re.mean(1)),
            "f_avg_skip": (f * v).sum(1) / nv,
            "f_pr_re_skip": hm((pr * v).sum(1) / nv, (re * v).sum(1) / nv),
        }


def paper_grid() -> list[tuple[bool, float, float]]:
    pts = set()
    for s in (True, False):
        for p in (0.01, 0.02, 0.03, 0.04, 0.05):
            pts.add((s, p, 0.8))
        for p in (0.01, 0.05, 0.25):
            for f in (0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95):
                pts.add((s, p, f))
    return sorted(pts)


def run_grid(trials: int, points: int | None = None) -> float:
    """Seconds for the Section 4 grid at ``trials`` per point (one study per prevalence).

    ``points`` keeps the first few points only (a smoke run).
    """
    grid = paper_grid()[:points]
    t0 = time.perf_counter()
    for strat in (True, False):
        pts = [g for g in grid if g[0] == strat]
        for p in sorted({p for _, p, _ in pts}):
            fl = [f for s, pp, f in pts if pp == p]
            simulation.bias_study(
                prevalence=p, f=fl, stratified=strat, trials=trials, seed=2010, progress=False
            )
    return time.perf_counter() - t0


def _f_methods_on(ds, engine: str) -> tuple[float, float]:
    """f_methods on ``engine`` and the fused numpy yardstick, in the same rounds."""
    old = _kernel.ENGINE
    _kernel.ENGINE = engine
    try:
        reduce.f_methods(ds.isel(trial=slice(0, 1 << 16)), zero_division=0.0)  # warm-up
        t = interleaved(
            {
                "f_methods": lambda: reduce.f_methods(ds, zero_division=0.0),
                "fused": lambda: fused_numpy(ds),
            },
            2,
        )
        return t.min("f_methods"), t.min("fused")
    finally:
        _kernel.ENGINE = old


_POINT = """
import numpy as np
import cvframe
"""


def point_rows(trials: int, modes: tuple[str, ...], rounds: int) -> list[dict[str, Any]]:
    """One point of a bias study (10^6 trials) against drawing its 2 x 10^7 uniforms,
    warm and in a fresh process."""
    out = []
    draws = 2 * 10 * trials  # k = 10 folds, a TP and an FP draw per fold and trial
    for strat in (True, False):
        case = Case(
            _POINT,
            {
                "bias_study": "st = cvframe.bias_study(prevalence=0.05, f=0.8, "
                f"stratified={strat}, trials={trials}, seed=1, progress=False)",
                "uniforms": f"u = np.random.default_rng(1).random({draws})",
            },
        )
        kind = "stratified" if strat else "unstratified"
        for mode in modes:
            t, _ = measure(case, mode, rounds)
            ratio = t.ratio("bias_study", "uniforms")
            judged = mode == "fresh"
            note = f"{t.spread()}"
            if mode == "fresh":
                note += f"; loaded by the call: {t.loaded('bias_study')}"
            out.append(
                {
                    "what": f"one simulated point ({kind}), {trials:.0e} trials, 5 estimators",
                    "mode": mode,
                    "engine": t.engine("bias_study"),
                    "cvframe_s": t.min("bias_study"),
                    "yardstick": f"drawing {draws:.0e} uniforms (Generator.random)",
                    "yardstick_s": t.min("uniforms"),
                    "ratio": ratio,
                    "goal": "<= 3x the draws (fresh)",
                    "met": ratio <= 3.0 if judged else None,
                    "note": note,
                    "load": load_average(),
                }
            )
    return out


def rows(quick: bool = False, modes: tuple[str, ...] = ("warm",)) -> list[dict[str, Any]]:
    """Benchmark rows (see benchmarks/run.py): one point against its draws (warm and
    fresh), one point against fused numpy, f_methods alone, the grid (warm)."""
    trials = 20_000 if quick else 1_000_000
    grid_trials = 1_000 if quick else 1_000_000
    repeat = 1 if quick else 3
    out = point_rows(trials, modes, repeat)
    if "warm" not in modes:
        return out
    if _kernel.have_numba():
        import numba  # noqa: F401  - warm: a session that has loaded the compiled passes
    engine = _kernel.engine(trials * 10)
    study = dict(prevalence=0.05, f=0.8, seed=1, progress=False)
    simulation.bias_study(stratified=True, trials=1 << 17, **study)  # warm-up
    for strat in (True, False):
        t_sim, ds = _timed(cvframe.simulate, trials=trials, stratified=strat, seed=1)
        t = interleaved(
            {
                "bias_study": lambda s=strat: simulation.bias_study(
                    stratified=s, trials=trials, **study
                ),
                "fused": lambda d=ds: fused_numpy(d),
            },
            repeat,
        )
        t_study, t_fused = t.min("bias_study"), t.min("fused")
        kind = "stratified" if strat else "unstratified"
        out.append(
            {
                "what": f"one simulated point ({kind}), {trials:.0e} trials, 5 estimators",
                "mode": "warm",
                "engine": engine,
                "cvframe_s": t_study,
                "yardstick": "simulate + the five estimators fused in numpy (one thread)",
                "yardstick_s": t_sim + t_fused,
                "ratio": t_study / (t_sim + t_fused),
                "goal": "<= 0.3 s per point at 1e6 trials",
                "met": t_study * 1_000_000 / trials <= 0.3,
                "note": f"bias_study on threads of the process, kernel engine {engine}; "
                f"simulate alone {t_sim:.3f} s; {t.spread()}",
                "load": load_average(),
            }
        )
        if strat:
            for eng in ("numba", "numpy"):
                if eng == "numba" and not _kernel.have_numba():
                    continue
                t_fm, t_fused_here = _f_methods_on(ds, eng)
                out.append(
                    {
                        "what": f"reduce.f_methods on a {trials:.0e}-trial cube ({eng} kernel)",
                        "mode": "warm",
                        "engine": eng,
                        "cvframe_s": t_fm,
                        "yardstick": "the five estimators fused in numpy on the same arrays",
                        "yardstick_s": t_fused_here,
                        "ratio": t_fm / t_fused_here,
                        "goal": "<= 1x fused numpy" if eng == "numba" else "<= 2x fused numpy",
                        "met": t_fm <= (1.0 if eng == "numba" else 2.0) * t_fused_here,
                        "note": "one thread, one call (xarray wrapper included)",
                        "load": load_average(),
                    }
                )
        del ds
    points = 3 if quick else None
    t_grid = run_grid(grid_trials, points)
    n_points = len(paper_grid()[:points]) if quick else 58
    out.append(
        {
            "what": f"Section 4 grid, {n_points} points x {grid_trials:.0e} trials",
            "mode": "warm",
            "engine": engine,
            "cvframe_s": t_grid,
            "yardstick": "the goal itself (30 s at 1e6 trials per point)",
            "yardstick_s": 30.0,
            "ratio": t_grid / 30.0,
            "goal": "< 30 s at 1e6 trials per point",
            "met": not quick and t_grid < 30.0,
            "note": "smoke run: 3 points, 1e3 trials" if quick else "measured at 1e6 trials",
            "load": load_average(),
        }
    )
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=1_000_000)
    ap.add_argument("--grid-trials", type=int, default=1_000_000)
    ap.add_argument("--loop-trials", type=int, default=3000)
    ap.add_argument("--skip-grid", action="store_true")
    a = ap.parse_args()
    T = a.trials
    warnings.simplefilter("error")
    print(f"== one point: n=1000, 5% positives, F=0.8, 10-fold, {T} trials")
    t_studies = {}
    for strat in (True, False):
        t_sim, ds = _timed(cvframe.simulate, trials=T, stratified=strat, seed=1)
        print(f"simulate(stratified={strat}): {t_sim:.2f} s ({ds.nbytes / 2**20:.0f} MiB cube)")
        sub = ds.isel(trial=slice(0, 1 << 17))
        t_est, _ = _timed(reduce.f_methods, sub, zero_division=0.0)
        print(
            f"  reduce.f_methods on 2^17 trials (one thread): {t_est:.2f} s "
            f"-> {t_est * T / (1 << 17):.2f} s per {T} trials"
        )
        t_fused, _ = _timed(fused_numpy, ds)
        print(
            f"  yardstick: the five estimators fused in plain numpy on the whole cube: "
            f"{t_fused:.2f} s (one thread)"
        )
        del ds, sub
        _sampler.tables.cache_clear()
        t_study, st = _timed(
            simulation.bias_study,
            prevalence=0.05,
            f=0.8,
            stratified=strat,
            trials=T,
            seed=1,
            progress=False,
        )
        print(
            f"  bias_study one point, all five estimators + exact (dask threads): {t_study:.2f} s"
        )
        t_studies[strat] = t_study
    rng = np.random.default_rng(0)
    sizes_pos = np.array([5] * 10)
    sizes_neg = np.array([95] * 10)
    t_floor, _ = _timed(
        lambda: (
            rng.binomial(np.broadcast_to(sizes_pos, (T, 10)), 0.8),
            rng.binomial(np.broadcast_to(sizes_neg, (T, 10)), 50 * 0.2 / 950),
        )
    )
    print(f"floor: Generator.binomial, {2 * 10 * T:.1e} draws: {t_floor:.2f} s")
    t_loop, _ = _timed(python_loop, a.loop_trials)
    loop_est = t_loop * T / a.loop_trials
    print(
        f"plain Python loop: {t_loop:.2f} s for {a.loop_trials} trials -> "
        f"{loop_est:.0f} s extrapolated to {T} (ratio to bias_study stratified: "
        f"{loop_est / t_studies[True]:.0f}x)"
    )
    if a.skip_grid:
        return
    grid = paper_grid()
    print(f"== paper's Section 4 grid: {len(grid)} points x {a.grid_trials} trials")
    t0 = time.perf_counter()
    for strat in (True, False):
        pts = [g for g in grid if g[0] == strat]
        # one study per (prevalence, f) list: a rectangle covering the points
        prevs = sorted({p for _, p, _ in pts})
        for p in prevs:
            fl = [f for s, pp, f in pts if pp == p]
            simulation.bias_study(
                prevalence=p,
                f=fl,
                stratified=strat,
                trials=a.grid_trials,
                seed=2010,
                progress=False,
            )
    t_grid = time.perf_counter() - t0
    scale = 1_000_000 / a.grid_trials
    print(
        f"grid: {t_grid:.1f} s"
        + (
            f" -> about {t_grid * scale:.0f} s at 10^6 trials per point (extrapolated)"
            if scale != 1
            else ""
        )
    )


if __name__ == "__main__":
    main()
