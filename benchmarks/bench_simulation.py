"""Benchmark of cvframe.simulation: one (prevalence, F) point at 10^6 trials, and the grid.

Run:  .venv/bin/python benchmarks/bench_simulation.py [--trials 1000000] [--grid-trials N]

Reports (wall-clock seconds on this machine):

1. ``simulate``: generating the 10^6 x 10-fold cube (int64 counts);
2. ``bias_study`` of one point: generation + all five estimators through the cube methods
   (``reduce.f_methods(zero_division=0.0)``), chunked over dask threads, plus exact values;
3. the floor: ``numpy.random.Generator.binomial`` drawing the same 2 x 10^7 binomials;
4. a plain per-trial Python loop (binomial draws per fold and the five formulas in Python),
   timed on a few thousand trials and extrapolated to 10^6 (said so in the output);
5. the paper's Section 4 grid (Figures 4-8: prevalence 1-5% at F=0.8, and prevalence 1%, 5%,
   25% x F 0.60-0.95, stratified and unstratified: 54 distinct points) at ``--grid-trials`` per point,
   extrapolated to 10^6 trials when fewer are run.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import cvframe
from cvframe import reduce, simulation


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
        for tp, fp, a in zip(tps, fps, pos):
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
        acc[3] += sum(x for x, v in zip(fs, vs) if v) / nv if nv else 0.0
        pv = sum(x for x, v in zip(ps, vs) if v) / nv if nv else 0.0
        rv = sum(x for x, v in zip(rs, vs) if v) / nv if nv else 0.0
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
        simulation._tables.cache_clear()
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
