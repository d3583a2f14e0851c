"""Simulated CV cubes, exact expectations, the bias study and Figure 9's probability.

Oracles: the model's own distributions (binomial, hypergeometric) through scipy, exact
inclusion-exclusion written independently here with fractions, brute-force enumeration of
tiny partitions, and the paper's qualitative findings (Forman & Scholz 2010, Section 4).
"""

from __future__ import annotations

import itertools
import math
import re
import warnings
from fractions import Fraction

import numpy as np
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import cvframe
from cvframe import reduce, simulation
from cvframe.simulation import (
    _model,
    _sampler,
    bias_study,
    exact,
    p_fold_without_positives,
    simulate,
)
from cvframe.simulation import study as sim_study


def _p_empty_bruteforce(n_pos: int, sizes: list[int]) -> Fraction:
    """Enumerate every placement of the positives (tiny n only)."""
    labels = np.repeat(np.arange(len(sizes)), sizes)
    hit = total = 0
    for combo in itertools.combinations(range(len(labels)), n_pos):
        total += 1
        present = set(labels[list(combo)])
        hit += len(present) < len(sizes)
    return Fraction(hit, total)


def _p_empty_equal_folds(n_pos: int, n: int, k: int) -> float:
    """Inclusion-exclusion for k equal folds, written independently of the module."""
    s = n // k
    acc = sum(
        (-1) ** (j + 1) * math.comb(k, j) * Fraction(math.comb(n - j * s, n_pos))
        for j in range(1, k + 1)
    )
    return float(acc / math.comb(n, n_pos))


# --- p_fold_without_positives ---------------------------------------------------------------
@pytest.mark.parametrize(
    "n_pos,n,k",
    [
        (1, 1000, 10),
        (10, 1000, 10),
        (20, 1000, 10),
        (37, 1000, 10),
        (100, 1000, 10),
        (5, 60, 5),
        (12, 120, 4),
    ],
)
def test_p_fold_without_positives_equals_inclusion_exclusion(n_pos, n, k):
    assert p_fold_without_positives(n_pos, n=n, k=k) == pytest.approx(
        _p_empty_equal_folds(n_pos, n, k), rel=1e-12, abs=1e-300
    )


@pytest.mark.parametrize("n_pos,n,k", [(3, 11, 3), (4, 10, 4), (2, 9, 2), (5, 12, 5)])
def test_p_fold_without_positives_unequal_folds_bruteforce(n_pos, n, k):
    sizes = list(n // k + (np.arange(k) < n % k))
    assert p_fold_without_positives(n_pos, n=n, k=k) == pytest.approx(
        float(_p_empty_bruteforce(n_pos, sizes)), rel=1e-12
    )


@pytest.mark.parametrize("trials", [1, 10, 1000, 10**6])
def test_p_fold_without_positives_many_trials(trials):
    pos = np.array([10, 30, 60, 100])
    p1 = np.array([_p_empty_equal_folds(int(x), 1000, 10) for x in pos])
    expected = 1 - (1 - p1) ** trials
    got = p_fold_without_positives(pos, trials=trials)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-15)
    assert got.shape == pos.shape


def test_p_fold_without_positives_edges_and_monotone():
    p = p_fold_without_positives(np.arange(0, 200))
    assert p[0] == 1.0 and np.all(p[:10] == 1.0)  # fewer positives than folds
    assert np.all(np.diff(p[9:]) <= 1e-15) and p[-1] < 1e-6
    assert isinstance(p_fold_without_positives(20), float)
    assert p_fold_without_positives(20, trials=[1, 2]).shape == (2,)


def test_p_fold_without_positives_matches_simulated_frequency():
    ds = simulate(n=1000, prevalence=0.02, f=0.8, trials=20_000, stratified=False, seed=5)
    pos = (ds.tp + ds.fn).isel({"class": 0})
    freq = float((pos == 0).any("fold").mean())
    p = p_fold_without_positives(20)
    se = math.sqrt(p * (1 - p) / 20_000)
    assert abs(freq - p) < 4 * se


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"n_pos": -1}, "n_pos has values"),
        ({"n_pos": 1001}, "outside"),
        ({"n_pos": 2.5}, "n_pos"),
        ({"n_pos": 5, "k": 1}, "k=1"),
        ({"n_pos": 5, "k": 2000}, "k=2000"),
        ({"n_pos": 5, "trials": 0}, "trials"),
    ],
)
def test_p_fold_without_positives_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        p_fold_without_positives(**kwargs)


# --- the simulated cube follows the model ---------------------------------------------------
@pytest.mark.parametrize("stratified", [True, False])
def test_cube_structure_and_invariants(stratified):
    ds = simulate(n=1003, prevalence=0.05, f=0.7, k=7, trials=3000, stratified=stratified, seed=1)
    cvframe.validate(ds)
    assert dict(ds.sizes) == {"trial": 3000, "fold": 7, "class": 1}
    assert all(ds[v].dtype == np.int64 for v in ("tp", "fp", "fn", "tn"))
    assert ds.attrs["task"] == "binary" and ds.attrs["pos_label"] == 1
    assert ds.attrs["stratified"] == ("yes" if stratified else "no")
    assert ds["class"].values.tolist() == [1]
    size = (ds.tp + ds.fp + ds.fn + ds.tn).isel({"class": 0})
    sizes = 1003 // 7 + (np.arange(7) < 1003 % 7)
    assert (size.values == sizes).all()  # fold totals fixed
    pos = (ds.tp + ds.fn).isel({"class": 0})
    assert (pos.sum("fold") == 50).all()  # positives per trial fixed (round(50.15))
    if stratified:
        assert int(pos.max()) - int(pos.min()) <= 1
        neg = size - pos
        assert int(neg.max()) - int(neg.min()) <= 1
    else:
        assert int(pos.max()) - int(pos.min()) > 1


@pytest.mark.parametrize("stratified", [True, False])
def test_cube_rates_within_monte_carlo_error(stratified):
    n, prev, f, trials = 1000, 0.05, 0.8, 20_000
    ds = simulate(n=n, prevalence=prev, f=f, trials=trials, stratified=stratified, seed=2)
    P = 50
    tp = int(ds.tp.sum())
    se_tp = math.sqrt(trials * P * f * (1 - f))
    assert abs(tp - trials * P * f) < 4 * se_tp  # TPR = f
    fp = int(ds.fp.sum())
    q = P * (1 - f) / (n - P)
    se_fp = math.sqrt(trials * (n - P) * q * (1 - q))
    assert abs(fp - trials * P * (1 - f)) < 4 * se_fp  # E[FP] = P(1 - f)
    # the whole distribution of one fold's FP and TP: chi-square against the binomial
    fold0_pos = int((ds.tp + ds.fn).isel(fold=0, trial=0).item())
    if stratified:
        obs = np.bincount(ds.tp.isel(fold=0).values.ravel(), minlength=fold0_pos + 1)
        exp = stats.binom.pmf(np.arange(fold0_pos + 1), fold0_pos, f) * trials
        keep = exp > 5
        chi = ((obs[keep] - exp[keep]) ** 2 / exp[keep]).sum()
        assert chi < stats.chi2.ppf(0.9999, keep.sum() - 1)
    else:
        pos0 = (ds.tp + ds.fn).isel(fold=0).values.ravel()
        obs = np.bincount(pos0, minlength=40)[:40]
        exp = stats.hypergeom.pmf(np.arange(40), n, P, 100) * trials
        keep = exp > 5
        chi = ((obs[keep] - exp[keep]) ** 2 / exp[keep]).sum()
        assert chi < stats.chi2.ppf(0.9999, keep.sum() - 1)


def test_f_one_means_perfect_classifier():
    ds = simulate(prevalence=0.1, f=1.0, trials=50, seed=3)
    assert int(ds.fp.sum()) == 0 and int(ds.fn.sum()) == 0


def test_seeds_reproduce_and_differ():
    a = simulate(trials=500, seed=11, stratified=False)
    b = simulate(trials=500, seed=11, stratified=False)
    c = simulate(trials=500, seed=12, stratified=False)
    xr.testing.assert_identical(a, b)
    assert not a.tp.equals(c.tp)
    # seed=None records its entropy, so the cube can be regenerated
    d = simulate(trials=50, seed=None)
    assert d.attrs["seed"].startswith("SeedSequence(entropy=")
    entropy = int(d.attrs["seed"].split("=")[1].rstrip(")"))
    xr.testing.assert_identical(simulate(trials=50, seed=np.random.SeedSequence(entropy)), d)


@pytest.mark.parametrize("stratified", [True, False])
def test_dask_chunks_equal_numpy(stratified):
    eager = simulate(trials=1000, seed=4, stratified=stratified)
    lazy = simulate(trials=1000, seed=4, stratified=stratified, chunks=137)
    assert lazy.tp.chunks is not None and lazy.tp.chunks[0][0] == 137
    for v in ("tp", "fp", "fn", "tn"):
        assert lazy[v].dtype == np.int64
        np.testing.assert_array_equal(lazy[v].values, eager[v].values)
    # the first trials do not depend on how many follow
    np.testing.assert_array_equal(
        simulate(trials=10, seed=4, stratified=stratified).tp, eager.tp.isel(trial=slice(0, 10))
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m_lazy = reduce.f_methods(lazy, zero_division=0.0).compute()
    xr.testing.assert_allclose(m_lazy, reduce.f_methods(eager, zero_division=0.0))


def test_numpy_fallback_for_large_folds(monkeypatch):
    monkeypatch.setattr(_sampler, "TABLE_LIMIT", 10)
    _sampler.tables.cache_clear()
    try:
        for stratified in (True, False):
            ds = simulate(trials=4000, seed=9, stratified=stratified, prevalence=0.05)
            cvframe.validate(ds)
            assert (((ds.tp + ds.fn).sum("fold")) == 50).all()
            tpr = float(ds.tp.sum() / (ds.tp + ds.fn).sum())
            assert abs(tpr - 0.8) < 4 * math.sqrt(0.16 / (4000 * 50))
            xr.testing.assert_identical(
                ds, simulate(trials=4000, seed=9, stratified=stratified, prevalence=0.05)
            )
    finally:
        _sampler.tables.cache_clear()


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(2, 400),
    k=st.integers(2, 12),
    prev=st.floats(0.01, 0.99),
    f=st.floats(0.05, 1.0),
    strat=st.booleans(),
    seed=st.integers(0, 2**32),
)
def test_invariants_hypothesis(n, k, prev, f, strat, seed):
    k = min(k, n)
    try:
        ds = simulate(n=n, prevalence=prev, f=f, k=k, trials=20, stratified=strat, seed=seed)
    except ValueError as err:  # only the documented infeasible combinations
        assert "prevalence" in str(err) or "f=" in str(err)
        return
    cvframe.validate(ds)
    P = int(math.floor(n * prev + 0.5))
    assert ((ds.tp + ds.fn).sum("fold") == P).all()
    assert ((ds.tp + ds.fp + ds.fn + ds.tn).sum("fold") == n).all()


# --- bad arguments --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"prevalence": 0.0}, "prevalence=0.0"),
        ({"prevalence": 1.0}, "prevalence=1.0"),
        ({"prevalence": -0.1}, "prevalence"),
        ({"prevalence": float("nan")}, "prevalence"),
        ({"f": 0.0}, "f=0.0"),
        ({"f": 1.01}, "f=1.01"),
        ({"k": 1}, "k=1"),
        ({"k": 1001}, "k=1001"),
        ({"trials": 0}, "trials=0"),
        ({"trials": 2.5}, "trials"),
        ({"n": 1000, "prevalence": 0.0004}, "0 positives"),
        ({"n": 1}, "n=1"),
        ({"prevalence": 0.9, "f": 0.5}, "f=0.5 is too low"),
        ({"seed": -3}, "seed"),
        ({"stratified": "yes"}, "stratified"),
        ({"chunks": 0}, "chunks"),
    ],
)
def test_simulate_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        simulate(**{"trials": 10, **kwargs})


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"prevalence": [0.05, 1.5]}, "prevalence=1.5.*grid point"),
        ({"f": []}, "f is empty"),
        ({"stratified": ["yes"]}, "stratified"),
        ({"trials": 0}, "trials"),
        ({"exact": "yes"}, "exact"),
        ({"k": 1}, "k=1"),
    ],
)
def test_bias_study_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        bias_study(**{"trials": 10, "progress": False, **kwargs})


# --- exact expectations versus Monte Carlo --------------------------------------------------
@pytest.fixture(scope="module")
def study():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # zero_division=0.0 is explicit: no warnings
        return bias_study(
            prevalence=(0.01, 0.05),
            f=(0.6, 0.8),
            stratified=(True, False),
            trials=60_000,
            seed=2010,
            progress=False,
        )


def test_study_layout(study):
    assert study.rel_bias.dims == ("stratified", "prevalence", "f", "estimator")
    assert study.estimator.values.tolist() == list(simulation.ESTIMATORS)
    assert study.stratified.dtype == bool
    assert study.p_undefined.dims == ("stratified", "prevalence", "f")
    assert study.exact.sel(estimator=["f_tp_fp", "f_avg"]).all()
    assert not study.exact.sel(estimator=["f_pr_re", "f_avg_skip", "f_pr_re_skip"]).any()
    for v in ("rel_bias_mc", "rel_std_mc", "rel_bias_se", "rel_std_se"):
        assert np.isfinite(study[v]).all()
    np.testing.assert_array_equal(study.positives, [10, 50])


def test_exact_agrees_with_monte_carlo(study):
    sel = study.sel(estimator=["f_tp_fp", "f_avg"])
    z_bias = (sel.rel_bias_mc - sel.rel_bias) / sel.rel_bias_se
    z_std = (sel.rel_std_mc - sel.rel_std) / sel.rel_std_se
    assert float(abs(z_bias).max()) < 4.5
    assert float(abs(z_std).max()) < 4.5
    z_p = (study.p_undefined_mc - study.p_undefined) / study.p_undefined_se.where(
        study.p_undefined_se > 0, 1.0
    )
    assert float(abs(z_p).max()) < 4.5


def test_exact_tp_fp_by_direct_double_sum():
    """E[F_tp,fp] summed independently with scipy over TP ~ Bin(P, f), FP ~ Bin(N, q)."""
    P, N, f = 20, 980, 0.7
    q = P * (1 - f) / N
    t = np.arange(P + 1)[:, None]
    x = np.arange(N + 1)[None, :]
    F = np.where(t > 0, 2 * t / (t + P + x), 0.0)
    w = stats.binom.pmf(t, P, f) * stats.binom.pmf(x, N, q)
    mean = (w * F).sum()
    got = exact.moments(_model.Model.make(1000, 0.02, 0.7, 10, False))
    assert got["f_tp_fp_mean"] == pytest.approx(mean, rel=1e-12)
    assert got["f_tp_fp_std"] == pytest.approx(math.sqrt((w * F * F).sum() - mean**2), rel=1e-9)


def test_exact_unstratified_favg_by_enumeration():
    """Tiny unstratified design: enumerate every partition, every TP and FP."""
    n, P, k, f = 8, 3, 2, 0.6
    q = P * (1 - f) / (n - P)
    model = _model.Model.make(n, P / n, f, k, False)
    got = exact.moments(model)
    e1 = e2 = p_bad = 0.0
    for combo in itertools.combinations(range(n), P):  # positives' slots; fold = slot // 4
        a = [sum(1 for c in combo if c // 4 == i) for i in range(k)]
        b = [4 - ai for ai in a]
        pr = 1 / math.comb(n, P)
        outs = [
            [
                (stats.binom.pmf(t, a[i], f) * stats.binom.pmf(x, b[i], q), t, x)
                for t in range(a[i] + 1)
                for x in range(b[i] + 1)
            ]
            for i in range(k)
        ]
        for (w0, t0, x0), (w1, t1, x1) in itertools.product(*outs):
            F = [
                2 * t / (t + ai + x) if t > 0 else 0.0
                for t, ai, x in ((t0, a[0], x0), (t1, a[1], x1))
            ]
            bad = any(ai == 0 or t + x == 0 for t, ai, x in ((t0, a[0], x0), (t1, a[1], x1)))
            fa = sum(F) / k
            e1 += pr * w0 * w1 * fa
            e2 += pr * w0 * w1 * fa * fa
            p_bad += pr * w0 * w1 * bad
    assert got["f_avg_mean"] == pytest.approx(e1, rel=1e-10)
    assert got["f_avg_std"] == pytest.approx(math.sqrt(e2 - e1 * e1), rel=1e-8)
    assert got["p_undefined"] == pytest.approx(p_bad, rel=1e-10)


def test_monte_carlo_estimators_are_the_cube_methods():
    """The study's Monte-Carlo means equal the cube methods applied to simulate()'s cube."""
    st_ = bias_study(
        prevalence=0.03, f=0.7, stratified=False, trials=3000, exact=False, seed=77, progress=False
    )
    model = _model.Model.make(1000, 0.03, 0.7, 10, False)
    seed = sim_study.point_seed(np.random.SeedSequence(77), model)
    ds = simulate(prevalence=0.03, f=0.7, stratified=False, trials=3000, seed=seed)
    m = ds.cv.f_methods(zero_division=0.0)
    for name in simulation.ESTIMATORS:
        rel = (float(m[name].mean()) - 0.7) / 0.7
        assert st_.rel_bias.sel(estimator=name).item() == pytest.approx(rel, abs=1e-12)
        sd = float(m[name].std(ddof=1)) / 0.7
        assert st_.rel_std.sel(estimator=name).item() == pytest.approx(sd, rel=1e-9)
    assert not st_.exact.any()


def test_study_independent_of_chunks_and_grid():
    a = bias_study(
        prevalence=0.05, f=0.8, stratified=True, trials=5000, seed=3, progress=False, chunks=700
    )
    b = bias_study(
        prevalence=(0.02, 0.05),
        f=(0.8, 0.9),
        stratified=True,
        trials=5000,
        seed=3,
        progress=False,
        chunks=5000,
        scheduler="sync",
    )
    xr.testing.assert_allclose(
        a.rel_bias_mc, b.rel_bias_mc.sel(prevalence=[0.05], f=[0.8]), rtol=1e-10
    )


def test_study_on_distributed_cluster():
    distributed = pytest.importorskip("distributed", reason="dask.distributed not installed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as cluster:
        remote = bias_study(
            prevalence=0.05,
            f=0.8,
            stratified=False,
            trials=4000,
            seed=8,
            progress=False,
            chunks=1000,
            scheduler=cluster.scheduler_address,
        )
    local = bias_study(
        prevalence=0.05, f=0.8, stratified=False, trials=4000, seed=8, progress=False, chunks=1000
    )
    xr.testing.assert_allclose(remote, local, rtol=1e-12)


# --- the paper's qualitative findings (Section 4.3) -----------------------------------------
def test_paper_f_tp_fp_bias_tiny_everywhere(study):
    rb = study.rel_bias.sel(estimator="f_tp_fp")
    assert float(abs(rb).max()) < 0.005
    others = abs(study.rel_bias.sel(estimator=["f_avg", "f_pr_re"])).max("estimator")
    assert (abs(rb) < others).all()


def test_paper_stratified_five_percent(study):
    at = study.sel(stratified=True, prevalence=0.05, f=0.8)
    assert at.rel_bias.sel(estimator="f_pr_re").item() > 0.01  # biased up > 1%
    assert -0.02 < at.rel_bias.sel(estimator="f_avg").item() < 0  # slightly down
    assert at.rel_bias.sel(estimator="f_avg").item() < -3 * abs(
        at.rel_bias.sel(estimator="f_tp_fp").item()
    )


def test_paper_one_percent_zero_substitution_down_skipping_up(study):
    for strat in (True, False):
        at = study.sel(stratified=strat, prevalence=0.01)
        assert (at.rel_bias.sel(estimator=["f_avg", "f_pr_re"]) < -0.03).all()
        assert (at.rel_bias.sel(estimator=["f_avg_skip", "f_pr_re_skip"]) > 0.03).all()


def test_paper_unstratified_one_percent_collapse(study):
    un = study.sel(stratified=False, prevalence=0.01)
    st_ = study.sel(stratified=True, prevalence=0.01)
    zero_sub = un.rel_bias.sel(estimator=["f_avg", "f_pr_re"])
    assert (zero_sub < -0.25).all()
    assert (zero_sub < 3 * st_.rel_bias.sel(estimator=["f_avg", "f_pr_re"])).all()
    assert (un.p_undefined > 0.99).all()


def test_study_netcdf_round_trip(study, tmp_path):
    path = tmp_path / "study.nc"
    simulation.study_for_netcdf(study).to_netcdf(path)
    with xr.open_dataset(path) as back:
        back = back.load()
    assert back.stratified.values.tolist() == ["yes", "no"]
    assert back.exact.values.dtype.kind in "UO"
    for v in ("rel_bias", "rel_std", "p_undefined"):
        np.testing.assert_array_equal(back[v].values, study[v].values)
        assert back[v].dtype == study[v].dtype
    assert back.positives.dtype == np.int64
    assert back.attrs["trials"] == study.attrs["trials"]


# --- command line ---------------------------------------------------------------------------
def test_cli_simulate_writes_netcdf_and_prints_table(tmp_path, capsys):
    from cvframe.cli import main

    rc = main(
        [
            "simulate",
            "--prevalence",
            "0.02,0.05",
            "--f",
            "0.8",
            "--trials",
            "2000",
            "--both",
            "--seed",
            "4",
            "--quiet",
            "--out",
            str(tmp_path),
        ]
    )
    assert rc == 0
    out = capsys.readouterr().out
    assert "f_tp_fp" in out and "f_pr_re_skip" in out and "Relative bias" in out
    with xr.open_dataset(tmp_path / "bias_study.nc") as back:
        assert back.stratified.values.tolist() == ["yes", "no"]
        assert back.rel_bias.dims == ("stratified", "prevalence", "f", "estimator")
        expected = bias_study(prevalence=(0.02, 0.05), f=0.8, trials=2000, seed=4, progress=False)
        np.testing.assert_array_equal(back.rel_bias.values, expected.rel_bias.values)


@pytest.mark.parametrize(
    "argv,match",
    [
        (["--prevalence", "1.5"], "prevalence[= ]1.5"),
        (["--trials", "0"], "trials[= ]0"),
        (["--k", "1"], "k[= ]1"),
        (["--f", "0"], "f[= ]0.0"),
    ],
)
def test_cli_simulate_user_errors_exit_2(argv, match, capsys):
    from cvframe.cli import main

    assert main(["simulate", "--quiet", "--trials", "10", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("cvframe simulate: error:") and "\n" not in err
    assert re.search(match, err)


# --- an independent oracle of the five estimators on simulated cubes ------------------------
def _five_estimators_numpy(ds: xr.Dataset) -> dict[str, np.ndarray]:
    """SPEC section 3 written directly in numpy (zero_division=0; skip drops V = 0 folds)."""
    tp, fp, fn = (ds[v].isel({"class": 0}).values.astype(float) for v in ("tp", "fp", "fn"))
    with np.errstate(invalid="ignore", divide="ignore"):
        pr = np.where(tp + fp > 0, tp / (tp + fp), 0.0)
        re = np.where(tp + fn > 0, tp / (tp + fn), 0.0)
        f = np.where(tp > 0, 2 * tp / (2 * tp + fp + fn), 0.0)
        v = (tp + fp > 0) & (tp + fn > 0)
        nv = v.sum(1)

        def hm(p, r):
            return np.where(p + r > 0, 2 * p * r / (p + r), 0.0)

        T = tp.sum(1), fp.sum(1), fn.sum(1)
        return {
            "f_tp_fp": np.where(T[0] > 0, 2 * T[0] / (2 * T[0] + T[1] + T[2]), 0.0),
            "f_avg": f.mean(1),
            "f_pr_re": hm(pr.mean(1), re.mean(1)),
            "f_avg_skip": np.where(nv > 0, (f * v).sum(1) / nv, 0.0),
            "f_pr_re_skip": hm(
                np.where(nv > 0, (pr * v).sum(1) / nv, 0.0),
                np.where(nv > 0, (re * v).sum(1) / nv, 0.0),
            ),
        }


@pytest.mark.parametrize("prevalence,stratified", [(0.01, False), (0.01, True), (0.2, False)])
def test_cube_methods_equal_numpy_oracle_on_simulated_cubes(prevalence, stratified):
    ds = simulate(prevalence=prevalence, f=0.7, trials=4000, stratified=stratified, seed=6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = ds.cv.f_methods(zero_division=0.0)
    for name, expected in _five_estimators_numpy(ds).items():
        np.testing.assert_allclose(
            got[name].isel({"class": 0}).values, expected, rtol=1e-12, atol=0, err_msg=name
        )


def test_study_p_undefined_matches_cube_valid():
    st_ = bias_study(
        prevalence=0.02, f=0.8, stratified=False, trials=3000, exact=False, seed=21, progress=False
    )
    model = _model.Model.make(1000, 0.02, 0.8, 10, False)
    ds = simulate(
        prevalence=0.02,
        f=0.8,
        stratified=False,
        trials=3000,
        seed=sim_study.point_seed(np.random.SeedSequence(21), model),
    )
    share = float((~ds.cv.valid()).any("fold").mean())
    assert st_.p_undefined_mc.item() == pytest.approx(share, abs=1e-15)
    assert st_.p_undefined.item() == st_.p_undefined_mc.item()  # exact=False: MC value


@settings(max_examples=15, deadline=None)
@given(chunks=st.integers(1, 400), trials=st.integers(1, 400), strat=st.booleans())
def test_chunking_never_changes_the_cube(chunks, trials, strat):
    eager = simulate(prevalence=0.03, f=0.75, trials=trials, stratified=strat, seed=99)
    lazy = simulate(
        prevalence=0.03, f=0.75, trials=trials, stratified=strat, seed=99, chunks=chunks
    )
    np.testing.assert_array_equal(lazy.fp.values, eager.fp.values)
    np.testing.assert_array_equal(lazy.fn.values, eager.fn.values)


def test_progress_bar_on_request(capsys):
    bias_study(
        prevalence=0.05, f=0.8, stratified=True, trials=2000, chunks=500, seed=1, progress=True
    )
    assert "bias_study" in capsys.readouterr().err
    bias_study(
        prevalence=0.05, f=0.8, stratified=True, trials=2000, chunks=500, seed=1, progress=False
    )
    assert capsys.readouterr().err == ""


# --- persistence and laziness ---------------------------------------------------------------
def test_simulated_cube_netcdf_round_trip(tmp_path):
    ds = simulate(trials=300, seed=31, stratified=False)
    path = tmp_path / "sim.nc"
    ds.to_netcdf(path)
    back = cvframe.open_dataset(path).load()
    xr.testing.assert_identical(back, ds)
    for name in ("tp", "fp", "fn", "tn"):
        assert back[name].dtype == np.int64
    for name in ("trial", "fold", "class"):
        assert back[name].dtype == ds[name].dtype
    assert back.attrs == ds.attrs
    m0 = ds.cv.f_methods(zero_division=0.0)
    xr.testing.assert_identical(back.cv.f_methods(zero_division=0.0), m0)


def test_lazy_cube_stays_lazy_until_computed():
    from cvframe.schema import is_lazy

    lazy = simulate(trials=500, seed=5, chunks=100)
    assert is_lazy(lazy)
    m = reduce.f_methods(lazy, zero_division=0.0)
    assert is_lazy(m)
    eager = reduce.f_methods(simulate(trials=500, seed=5), zero_division=0.0)
    computed = m.compute()
    for name in simulation.ESTIMATORS:
        assert computed[name].dtype == eager[name].dtype
    xr.testing.assert_allclose(computed, eager, rtol=1e-14)
