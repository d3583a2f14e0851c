"""The fast paths give the numbers of the plain ones.

Scores that span many binary orders of magnitude leave no room for the repeat bits in the
packed ``repeat | score | label | fold`` key; the keys are then grouped by repeat with a
counting pass and sorted per repeat (one sort in all). Every ranking metric must be the
same, bit for bit, as one sort per repeat, and AUC_avg / AUC_merge must equal
scikit-learn's per (repeat, fold) and on each repeat's pooled folds, on both engines.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from cvframe import _kernel, scores
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
        "import sys, cvframe.diagnostics, cvframe.scores._keys, cvframe._kernel\n"
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
        "from cvframe import _kernel\n"
        "_kernel._loop_compiled()\n"
    )
    out = _run(code, NUMBA_CACHE_DIR=str(tmp_path))
    assert int(out) == int(np.array(0.25).view(np.uint64))
    assert list(tmp_path.rglob("*min_bits*.nbi"))  # a fresh process loads, not compiles
