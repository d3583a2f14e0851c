"""The fold-aggregation kernel: numba and numpy agree bit for bit, and both are the formulas.

The numpy engine is checked against a plain Python loop over the folds that spells out the
documented arithmetic (sums in fold order, ``fill`` where a denominator is 0); the compiled
engine (numba, an optional extra) against the numpy one on the same random cases, through
the kernel and through the user-facing ``reduce`` functions; dask against numpy.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest
import xarray as xr

import cvframe
from cvframe import formulas, reduce
from cvframe._core import kernel as _kernel

METRICS = tuple(_kernel.METRIC_CODES)
FILLS = (0.0, 1.0, np.nan)

needs_numba = pytest.mark.skipif(
    not _kernel.have_numba(), reason="numba is not installed (the optional 'fast' extra)"
)


def _counts(seed: int, floats: bool = False) -> list[np.ndarray]:
    """Random counts over (cells, folds) with empty folds, zero denominators and ties."""
    rng = np.random.default_rng(seed)
    m, k = int(rng.integers(1, 60)), int(rng.integers(1, 12))
    out = [rng.integers(0, 4, (m, k)) * (rng.random((m, k)) < 0.6) for _ in range(4)]
    if floats:
        out = [x * rng.choice([1.0, 0.25], size=x.shape) for x in out]
    return out


def _want(metric: str) -> tuple[str, ...]:
    return _kernel.AGGREGATIONS if metric == "f" else ("tp_fp", "avg", "avg_skip")


def _reference(counts, metric, beta, fill):
    """The documented arithmetic, one cell and one fold at a time, in Python floats."""
    b2 = beta**2

    def num_den(name, a, b, c, d):
        return {
            "f": ((1 + b2) * a, (1 + b2) * a + b2 * c + b),
            "precision": (a, a + b),
            "recall": (a, a + c),
            "specificity": (d, d + b),
            "accuracy": (a + d, a + b + c + d),
            "jaccard": (a, a + b + c),
        }[name]

    def value(name, fold):
        num, den = num_den(name, *fold)
        return num / den if den != 0 else fill

    def bad(a, b, c, d):
        if metric == "f":
            return not (a + b > 0 and a + c > 0)
        return num_den(metric, a, b, c, d)[1] == 0

    def mean(xs):
        total = 0.0
        for x in xs:
            total += x
        return total / len(xs) if xs else fill

    def hm(p, r):
        den = b2 * p + r
        return (1 + b2) * p * r / den if den != 0 else 0.0

    out = {name: [] for name in _want(metric)}
    tp, fp, fn, tn = ([[float(v) for v in row] for row in x] for x in counts)
    for j in range(len(tp)):
        folds = list(zip(tp[j], fp[j], fn[j], tn[j], strict=True))
        sums = [0.0] * 4
        for fold in folds:
            sums = [s + v for s, v in zip(sums, fold, strict=True)]
        real = [c for c in folds if any(v != 0 for v in c)]
        keep = [c for c in real if not bad(*c)]
        out["tp_fp"].append(value(metric, sums))
        out["avg"].append(mean([value(metric, c) for c in real]))
        out["avg_skip"].append(mean([value(metric, c) for c in keep]))
        if metric == "f":
            for name, cells in (("pr_re", real), ("pr_re_skip", keep)):
                p = mean([value("precision", c) for c in cells])
                r = mean([value("recall", c) for c in cells])
                out[name].append(hm(p, r))
    return {k: np.array(v) for k, v in out.items()}


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("metric", METRICS)
def test_numpy_engine_is_the_documented_arithmetic(seed, metric):
    counts = _counts(seed, floats=seed % 2 == 1)
    for fill in FILLS:
        for beta in (1.0, 0.5):
            got, exact = _kernel.fold_aggregates(
                *counts, metric, _want(metric), beta=beta, fill=fill, use="numpy"
            )
            assert exact
            want = _reference(counts, metric, beta, fill)
            for name in _want(metric):
                np.testing.assert_array_equal(got[name], want[name], err_msg=f"{name} {fill}")


@needs_numba
@pytest.mark.parametrize("seed", range(10))
def test_numba_equals_numpy_bit_for_bit(seed):
    counts = _counts(100 + seed, floats=seed % 3 == 0)
    for metric in METRICS:
        for fill in FILLS:
            for beta in (1.0, 2.0):
                kw = {"beta": beta, "fill": fill}
                a, ea = _kernel.fold_aggregates(*counts, metric, _want(metric), use="numpy", **kw)
                b, eb = _kernel.fold_aggregates(*counts, metric, _want(metric), use="numba", **kw)
                assert ea == eb
                for name in _want(metric):
                    np.testing.assert_array_equal(a[name], b[name], err_msg=f"{metric} {name}")


def test_cell_values_are_the_formulas():
    tp, fp, fn, tn = _counts(3)
    for fill in FILLS:
        np.testing.assert_array_equal(
            _kernel.cell_values(tp, fp, fn, tn, "f", 2.0, fill),
            formulas.f_beta(tp, fp, fn, 2.0, fill),
        )
        np.testing.assert_array_equal(
            _kernel.cell_values(tp, fp, fn, tn, "precision", fill=fill),
            formulas.precision(tp, fp, fill),
        )
        np.testing.assert_array_equal(
            _kernel.cell_values(tp, fp, fn, tn, "accuracy", fill=fill),
            formulas.accuracy(tp + tn, tp + fp + fn + tn, fill),
        )


def test_engine_choice(monkeypatch):
    monkeypatch.setattr(_kernel, "ENGINE", "numpy")
    assert _kernel.engine(10**9) == "numpy"
    monkeypatch.setattr(_kernel, "ENGINE", "auto")
    assert _kernel.engine(_kernel.NUMBA_MIN_SIZE - 1) == "numpy"
    monkeypatch.setitem(sys.modules, "numba", None)  # as without numba: import fails
    assert _kernel.engine(10**9) == "numpy"
    monkeypatch.setattr(_kernel, "ENGINE", "numba")
    with pytest.raises(ImportError, match="numba is not installed"):
        _kernel.engine(10)
    monkeypatch.setattr(_kernel, "ENGINE", "fast")
    with pytest.raises(ValueError, match="CVFRAME_KERNEL='fast' must be"):
        _kernel.engine(10)


def test_empty_and_one_fold_inputs():
    z = np.zeros((0, 3), dtype=np.int64)
    out, exact = _kernel.fold_aggregates(z, z, z, z)
    assert exact and all(v.shape == (0,) for v in out.values())
    one = [np.array([[v]]) for v in (3, 1, 2, 10)]
    out, _ = _kernel.fold_aggregates(*one)
    # one fold: all five agree (F of precision and recall up to rounding)
    np.testing.assert_allclose([v[0] for v in out.values()], 2 * 3 / (2 * 3 + 1 + 2), rtol=1e-15)


def test_pooled_sums_beyond_2_53_are_exact():
    """Counts whose pooled sums float64 cannot hold exactly take the exact integer path."""
    big = 2**53 + 1
    ds = xr.Dataset(
        {
            "tp": (("fold", "class"), np.array([[big], [big]])),
            "fp": (("fold", "class"), np.array([[1], [0]])),
            "fn": (("fold", "class"), np.array([[0], [2]])),
            "tn": (("fold", "class"), np.array([[5], [5]])),
        },
        coords={"fold": [0, 1], "class": [1]},
    )
    _, exact = _kernel.fold_aggregates(*(ds[v].values.T for v in ("tp", "fp", "fn", "tn")))
    assert not exact
    want = formulas.f_beta(2 * big, 1, 2)  # from the exact int64 sums, as ``pooled`` gives
    assert ds.cv.f_tp_fp().item() == want
    assert ds.chunk({"fold": 1}).cv.f_tp_fp().compute().item() == want


def _cubes():
    sim = cvframe.simulate(prevalence=0.02, trials=3000, stratified=False, seed=11)
    a = cvframe.datasets.table1()
    padded = xr.concat([a, a.isel(fold=[0, 1])], dim="repeat", join="outer")  # NaN padding
    return {"simulated": sim, "padded": padded}


@pytest.fixture(scope="module")
def cubes():
    return _cubes()


def _user_facing(ds, dim="fold"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = dict(reduce.f_methods(ds, dim, zero_division=0.0).data_vars)
        for m in ("precision", "recall", "accuracy", "specificity"):
            for fm in ("tp_fp", "avg"):
                out[f"{m}_{fm}"] = reduce.aggregate(ds, m, fm, dim, zero_division=np.nan)
        out["macro"] = cvframe.multiclass.macro(ds, "f", "avg", dim=dim, zero_division=1.0)
    return {k: np.asarray(v.values) for k, v in out.items()}


@needs_numba
@pytest.mark.parametrize("name", ["simulated", "padded"])
def test_user_facing_functions_equal_on_both_engines(cubes, monkeypatch, name):
    ds = cubes[name]
    dim = ("repeat", "fold") if name == "padded" else "fold"
    monkeypatch.setattr(_kernel, "ENGINE", "numpy")
    a = _user_facing(ds, dim)
    monkeypatch.setattr(_kernel, "ENGINE", "numba")
    monkeypatch.setattr(_kernel, "NUMBA_MIN_SIZE", 0)
    b = _user_facing(ds, dim)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


@pytest.mark.parametrize("name", ["simulated", "padded"])
def test_dask_equals_numpy(cubes, name):
    pytest.importorskip("dask", reason="dask is not installed")
    ds = cubes[name]
    chunks = {"trial": 700, "fold": 3} if name == "simulated" else {"fold": 1}
    lazy = ds.chunk(chunks)
    got = reduce.f_methods(lazy, zero_division=0.0)
    assert cvframe.schema.is_lazy(got)
    xr.testing.assert_identical(got.compute(), reduce.f_methods(ds, zero_division=0.0))


def test_numpy_blocks_do_not_change_the_numbers(monkeypatch):
    counts = _counts(7)
    whole, _ = _kernel.fold_aggregates(*counts, use="numpy")
    monkeypatch.setattr(_kernel, "_NUMPY_BLOCK", 1)  # one cell per block
    parts, _ = _kernel.fold_aggregates(*counts, use="numpy")
    for name in _kernel.AGGREGATIONS:
        np.testing.assert_array_equal(whole[name], parts[name])


@needs_numba
def test_bias_study_equal_on_both_engines(monkeypatch):
    kw = dict(prevalence=0.02, f=0.8, stratified=False, trials=3000, seed=5, progress=False)
    monkeypatch.setattr(_kernel, "ENGINE", "numpy")
    a = cvframe.bias_study(**kw)
    monkeypatch.setattr(_kernel, "ENGINE", "numba")
    b = cvframe.bias_study(**kw)
    for name in ("rel_bias_mc", "rel_std_mc", "p_undefined_mc"):
        np.testing.assert_array_equal(a[name].values, b[name].values, err_msg=name)
