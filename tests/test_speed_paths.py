"""The fast paths give the numbers of the plain ones.

Scores that span many binary orders of magnitude leave no room for the repeat bits in the
packed ``repeat | score | label | fold`` key; the keys are then grouped by repeat with a
counting pass and sorted per repeat (one sort in all). Every ranking metric must be the
same, bit for bit, as one sort per repeat, and AUC_avg / AUC_merge must equal
scikit-learn's per (repeat, fold) and on each repeat's pooled folds, on both engines.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from cvframe import scores
from cvframe._core import kernel as _kernel
from cvframe.scores import _keys, _rank

REPS, FOLDS = 5, 10


@pytest.fixture(params=["numpy", "numba"])
def engine(request, monkeypatch):
    """Force one engine, also for small inputs."""
    if request.param == "numba" and _keys.kernel() is False:
        pytest.skip("numba is not installed (the fast extra)")
    monkeypatch.setattr(_kernel, "ENGINE", request.param)
    monkeypatch.setattr(_kernel, "NUMBA_MIN_SIZE", 0)
    return request.param


def _wide(n: int = 4000, seed: int = 0) -> pd.DataFrame:
    """Decision-function-like scores of both signs from 1e-12 to 1e3, with exact ties."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(np.int64)
    s = y + rng.standard_normal(n)
    s[:40] = np.array([1e-12, -1e-12, 1e3, -1e3] * 10)
    s[40:400] = np.round(s[40:400], 1)  # many tied scores, across repeats and folds
    return pd.DataFrame(
        {
            "repeat": rng.integers(0, REPS, n),
            "fold": rng.integers(0, FOLDS, n),
            "y_true": y,
            "score": s,
        }
    )


def _args(df: pd.DataFrame) -> tuple:
    s = df["score"].to_numpy()
    return s, float(s.min()), float(s.max()), df["y_true"].to_numpy()


def test_wide_scores_take_the_grouped_path_without_dense_ranks(engine):
    df = _wide()
    s, lo, hi, y = _args(df)
    rep, fold = df["repeat"].to_numpy(), df["fold"].to_numpy()
    key, _, uniques, sbits, _, lbits, _, bounds = _keys.sorted_keys(
        s, lo, hi, y, rep, REPS, fold, FOLDS
    )
    assert uniques is None  # no np.unique (a second sort)
    assert bounds is not None and (REPS - 1).bit_length() + sbits + 1 + lbits > 64
    np.testing.assert_array_equal(np.diff(bounds), np.bincount(rep, minlength=REPS))
    for r in range(REPS):  # each repeat's part is that repeat's keys, sorted
        part = key[bounds[r] : bounds[r + 1]]
        assert np.all(part[1:] >= part[:-1])


def test_grouped_path_equals_one_sort_per_repeat_bit_for_bit(engine):
    df = _wide()
    s, lo, hi, y = _args(df)
    rep, fold = df["repeat"].to_numpy(), df["fold"].to_numpy()
    counts = np.bincount(rep * FOLDS + fold, minlength=REPS * FOLDS)
    both = _rank.Ranked(s, lo, hi, y, rep, REPS, fold, FOLDS, counts)
    merged = [both.auc()[0], both.average_precision()[0], both.precision_at(np.full(REPS, 7))]
    per_fold = both.by_low()
    folds = [per_fold.auc()[0], per_fold.average_precision()[0]]
    curve = both.curve()
    for r in range(REPS):
        m = rep == r
        one = _rank.Ranked(s[m], lo, hi, y[m], fold[m], FOLDS)
        alone = _rank.Ranked(s[m], lo, hi, y[m], None, 1)
        assert merged[0][r] == alone.auc()[0][0]
        assert merged[1][r] == alone.average_precision()[0][0]
        assert merged[2][r] == alone.precision_at(np.array([7]))[0]
        np.testing.assert_array_equal(folds[0][r * FOLDS : (r + 1) * FOLDS], one.auc()[0])
        np.testing.assert_array_equal(
            folds[1][r * FOLDS : (r + 1) * FOLDS], one.average_precision()[0]
        )
        c = alone.curve()
        sel = curve["group"] == r
        np.testing.assert_array_equal(curve["threshold"][sel], c["threshold"])
        np.testing.assert_array_equal(curve["tp"][sel], c["tp"])
        np.testing.assert_array_equal(curve["fp"][sel], c["fp"])


def test_auc_methods_with_a_repeat_column_equal_scikit_learn(engine):
    df = _wide()
    ds = scores.auc_methods(df)
    for r in range(REPS):
        d = df[df["repeat"] == r]
        avg = np.mean([roc_auc_score(g["y_true"], g["score"]) for _, g in d.groupby("fold")])
        merge = roc_auc_score(d["y_true"], d["score"])
        assert float(ds.auc_avg.sel(repeat=r).item()) == pytest.approx(avg, abs=1e-12)
        assert float(ds.auc_merge.sel(repeat=r).item()) == pytest.approx(merge, abs=1e-12)
        alone = scores.auc_methods(d.drop(columns="repeat"), repeat=None)
        # the fold means differ only in summation order (a mean over one or all repeats)
        assert float(ds.auc_avg.sel(repeat=r).item()) == pytest.approx(
            float(alone.auc_avg.item()), rel=1e-15
        )
        assert float(ds.auc_merge.sel(repeat=r).item()) == float(alone.auc_merge.item())


# --- the compiled kernels' on-disk cache, and imports kept light -------------------------


def test_kernels_compile_in_memory_when_no_cache_location_is_writable():
    calls = []

    class NoCacheNumba:  # numba raises this when no cache locator is usable
        @staticmethod
        def njit(**kw):
            calls.append(kw)
            if kw.get("cache"):
                raise RuntimeError("cannot cache function 'f': no locator available")
            return lambda fn: ("in memory", fn)

    def f():
        return 1

    assert _kernel.jit(NoCacheNumba, f) == ("in memory", f)
    assert [c.get("cache", False) for c in calls] == [True, False]


def _run(code: str, **env: str) -> str:
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[1])
    environ = {**os.environ, "PYTHONPATH": root, **env}
    res = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environ, cwd=root
    )
    assert res.returncode == 0, res.stderr
    return res.stdout


def test_diagnostics_and_the_ranking_keys_import_nothing_heavy():
    out = _run(
        "import sys, cvframe.diagnostics, cvframe.scores._keys, cvframe._core.kernel\n"
        "print(sorted(m for m in ('scipy.stats', 'scipy.special', 'numba', 'dask.array')"
        " if m in sys.modules))"
    )
    assert out.strip() == "[]"  # scipy.special, numba: imported on first use


@pytest.mark.slow(reason="compiles the ranking kernels in a fresh process (~2 s)")
def test_compiled_kernels_are_cached_on_disk(tmp_path):
    if _keys.kernel() is False:
        pytest.skip("numba is not installed (the fast extra)")
    code = (
        "import numpy as np\n"
        "from cvframe.scores import _keys\n"
        "print(_keys.kernel().min_bits(np.array([0.5, -0.25, 0.0])))\n"
        "from cvframe._core import kernel as _kernel\n"
        "_kernel._loop_compiled()\n"
    )
    out = _run(code, NUMBA_CACHE_DIR=str(tmp_path))
    assert int(out) == int(np.array(0.25).view(np.uint64))
    assert list(tmp_path.rglob("*min_bits*.nbi"))  # a fresh process loads, not compiles


# --- the counting pass of the counts cube: one compiled read, numpy's numbers -------------------


def _count_case(case: str, n: int = 5000, seed: int = 0):
    """(groups, y_true, y_pred, weights) of one kind of integer input."""
    from cvframe.build import _kernel as build_kernel

    rng = np.random.default_rng(seed)
    rep = np.repeat(np.arange(3), -(-n // 3))[:n]  # sorted, as cross_validate writes it
    fold = rng.integers(0, 5, n)
    y = rng.integers(0, 4, n)
    yp = np.where(rng.random(n) < 0.6, y, rng.integers(0, 4, n))
    w = None
    if case == "negative":
        y, yp, fold = y - 7, yp - 7, fold - 2
    elif case == "rare":  # values no sample of rows sees: the pass finds them and recounts
        y[n // 2 + 1], fold[n // 3 + 1] = 50, 9
    elif case == "small dtypes":
        y, yp, fold = y.astype(np.int8), yp.astype(np.uint8), fold.astype(np.int16)
    elif case == "bool":
        y, yp = (y > 1).view(np.uint8), (yp > 1).view(np.uint8)
    elif case == "weights":
        w = rng.random(n).round(2)
        w[::7] = 0.0  # rows that count for nothing still name their group and labels
    groups = {"one group": [fold], "three groups": [rep, fold, fold % 2]}.get(case, [rep, fold])
    assert build_kernel.BLOCK > 0
    return groups, y, yp, w


CASES = ["plain", "negative", "rare", "small dtypes", "bool", "weights", "one group"]


@pytest.mark.parametrize("case", [*CASES, "three groups"])
def test_counting_pass_gives_numpys_counts_bit_for_bit(case, monkeypatch):
    from cvframe.build import _kernel as build_kernel

    if build_kernel._pass_compiled() is False:
        pytest.skip("numba is not installed (the fast extra)")
    groups, y, yp, w = _count_case(case)
    got = {}
    for use in ("numpy", "numba"):
        monkeypatch.setattr(_kernel, "ENGINE", use)
        monkeypatch.setattr(_kernel, "NUMBA_MIN_SIZE", 0)
        got[use] = build_kernel.fast_confusion(groups, y, yp, w, len(y))
    (raw0, vals0, t0, p0, lo0), (raw1, vals1, t1, p1, lo1) = got["numpy"], got["numba"]
    assert raw0.dtype == raw1.dtype and raw0.shape == raw1.shape
    np.testing.assert_array_equal(raw0, raw1)
    for a, b in zip([*vals0, t0, p0], [*vals1, t1, p1], strict=True):
        np.testing.assert_array_equal(a, b)
    assert lo0 == lo1
    if w is None:
        assert int(raw1.sum()) == len(y)


@pytest.mark.parametrize("case", CASES)
def test_compiled_pass_counts_what_bincount_counts(case):
    from cvframe.build import _kernel as build_kernel

    if build_kernel._pass_compiled() is False:
        pytest.skip("numba is not installed (the fast extra)")
    groups, y, yp, w = _count_case(case, seed=1)
    arrays = [*groups, y, yp]
    raw, bounds = build_kernel.compiled_count(arrays, w, len(y))
    assert bounds[:-2] == [(int(a.min()), int(a.max())) for a in groups]
    lo = min(int(y.min()), int(yp.min()))
    assert bounds[-1] == bounds[-2] == (lo, max(int(y.max()), int(yp.max())))
    flat = np.ravel_multi_index(
        [np.asarray(a, dtype=np.int64) - b[0] for a, b in zip(arrays, bounds, strict=True)],
        raw.shape,
    )
    expected = np.bincount(flat, weights=w, minlength=raw.size).reshape(raw.shape)
    np.testing.assert_array_equal(raw, expected)


def test_cube_from_predictions_is_the_same_on_both_engines(monkeypatch):
    import cvframe

    groups, y, yp, _ = _count_case("rare", n=20_000)
    cubes = []
    for use in ("numpy", "numba"):
        if use == "numba" and not _kernel.have_numba():
            pytest.skip("numba is not installed (the fast extra)")
        monkeypatch.setattr(_kernel, "ENGINE", use)
        monkeypatch.setattr(_kernel, "NUMBA_MIN_SIZE", 0)
        cubes.append(cvframe.from_predictions(y, yp, groups[1], repeat=groups[0]))
    assert cubes[0].identical(cubes[1])


def test_auto_engine_loads_numba_only_for_inputs_that_pay_for_it(monkeypatch):
    monkeypatch.setattr(_kernel, "ENGINE", "auto")
    if not _kernel.have_numba():
        assert _kernel.engine(10**9) == "numpy"
        return
    monkeypatch.delitem(sys.modules, "numba", raising=False)  # as in a fresh process
    size = _kernel.NUMBA_LOAD_SIZE - 1
    assert _kernel.engine(size) == "numpy" and "numba" not in sys.modules
    assert _kernel.engine(_kernel.NUMBA_LOAD_SIZE) == "numba"
    monkeypatch.setitem(sys.modules, "numba", object())  # loaded: used from NUMBA_MIN_SIZE
    assert _kernel.engine(_kernel.NUMBA_MIN_SIZE) == "numba"
    assert _kernel.engine(_kernel.NUMBA_MIN_SIZE - 1) == "numpy"


# --- a fresh process: what it imports, and the compiled kernels it loads from disk ------------


@pytest.mark.slow(reason="a fresh process imports cvframe and writes a report (~3 s)")
def test_first_cube_and_a_small_report_import_neither_numba_nor_scipy_stats():
    out = _run(
        "import sys, numpy as np, pandas as pd, cvframe\n"
        "from cvframe.report import report\n"
        "rng = np.random.default_rng(0)\n"
        "n = 100_000\n"
        "y = rng.integers(0, 2, n)\n"
        "df = pd.DataFrame({'repeat': np.arange(n) % 2, 'fold': np.arange(n) % 5, 'y_true': y,"
        " 'y_pred': rng.integers(0, 2, n), 'score': y + rng.normal(0, 1, n)})\n"
        "report(df.cv.counts(), scores=df, format='json')\n"
        "print(sorted(m for m in ('numba', 'scipy.stats') if m in sys.modules))"
    )
    # scipy.stats (0.3 s, with scipy.sparse and scipy.optimize): a normal quantile is
    # scipy.special.ndtri, a t quantile scipy.special.stdtrit, ranks come from the one sort.
    # dask.array (with parts of scipy) is xarray's to import when dask is installed: it asks
    # whether the first array it wraps is a dask array (docs/performance.md)
    assert out.strip().splitlines()[-1] == "[]", "a fresh report loaded a heavy module"


@pytest.mark.slow(reason="two fresh processes load the counting kernel (~3 s)")
def test_counting_kernel_is_loaded_from_the_disk_cache_in_a_fresh_process(tmp_path):
    if not _kernel.have_numba():
        pytest.skip("numba is not installed (the fast extra)")
    code = (
        "import numpy as np\n"
        "from cvframe.build import _kernel\n"
        "a = np.arange(1000) % 7\n"
        "raw, _ = _kernel.compiled_count([a, a % 3, a % 2, a % 2], None, 1000)\n"
        "s = _kernel._pass_compiled()[4].stats\n"
        "print(int(raw.sum()), s.cache_hits and sum(s.cache_hits.values()),"
        " sum(s.cache_misses.values()))"
    )
    first = _run(code, NUMBA_CACHE_DIR=str(tmp_path)).split()
    second = _run(code, NUMBA_CACHE_DIR=str(tmp_path)).split()
    assert first[0] == second[0] == "1000"
    assert first[2] == "1"  # compiled, and written to the cache
    assert second[1] == "1" and second[2] == "0"  # loaded, not compiled


# --- the demo: the two data sets fit side by side give the frames of one process -------------


def test_demo_fits_in_parallel_processes_give_the_sequential_frames(monkeypatch):
    from cvframe.cli import demo

    monkeypatch.setattr(demo, "DEMO_FOLDS", 2)
    monkeypatch.setitem(demo.DATA, "digits", ("load_digits", {"n_class": 3}, "digits 0-2"))
    monkeypatch.setattr(demo.os, "cpu_count", lambda: 2)
    parallel = demo._frames(1, -1, False)
    sequential = demo._frames(1, 1, False)
    assert list(parallel) == list(sequential) == list(demo.DATA)
    for name in demo.DATA:
        pd.testing.assert_frame_equal(parallel[name][0], sequential[name][0])
        assert parallel[name][0].attrs == sequential[name][0].attrs
