"""The compiled radix sort of the packed keys, and the one sort in both engines.

The radix sort (:mod:`cvframe.scores._radix`) must give exactly ``np.sort``'s array, its
carry exactly the stable ``np.argsort`` order, its grouped form exactly the ``(group, key)``
lexicographic order: on random keys, all-equal keys (every pass skipped), keys that differ
only in their high or only in their low bits (most passes skipped) and 0, 1, 2 keys.
:func:`sorted_keys` must return the same arrays in the numpy engine (``ndarray.sort``) and
the compiled one (the radix sort), on every path (plain, carried weights, per-repeat
segments, dense ranks), and the AUCs built on it must equal scikit-learn's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from cvframe import scores
from cvframe._core import kernel as _kernel
from cvframe.scores import _keys, _radix

needs_numba = pytest.mark.skipif(
    _radix.kernel() is False, reason="numba is not installed (the fast extra)"
)

ENGINES = ["numpy", pytest.param("numba", marks=needs_numba)]

U64 = np.iinfo(np.uint64).max
_SEGMENTS = _keys._segments


@pytest.fixture(params=ENGINES)
def engine(request, monkeypatch):
    """Force one engine, also for tiny inputs."""
    monkeypatch.setattr(_kernel, "ENGINE", request.param)
    monkeypatch.setattr(_kernel, "NUMBA_MIN_SIZE", 0)
    return request.param


def _keysets(rng, n):
    """Keys whose digits vary everywhere, nowhere, only high or only low, and with ties."""
    base = np.uint64(0xA5A5_0000_0000_5A5A)
    return {
        "random": rng.integers(0, U64, n, dtype=np.uint64, endpoint=True),
        "equal": np.full(n, base, dtype=np.uint64),
        "high": base | (rng.integers(0, 1 << 12, n, dtype=np.uint64) << np.uint64(52)),
        "low": base | rng.integers(0, 1 << 10, n, dtype=np.uint64),
        "ties": rng.integers(0, 5, n, dtype=np.uint64) << np.uint64(61),
        "extremes": rng.choice(np.array([0, 1, U64 - 1, U64], dtype=np.uint64), n),
    }


SIZES = [0, 1, 2, 3, 255, 256, 257, 5000]


@needs_numba
@pytest.mark.parametrize("n", SIZES)
def test_radix_sort_is_np_sort(n):
    rng = np.random.default_rng(n)
    for name, key in _keysets(rng, n).items():
        got = key.copy()
        assert _radix.sort(got) is None
        np.testing.assert_array_equal(got, np.sort(key), err_msg=name)


@needs_numba
@pytest.mark.parametrize("n", SIZES)
def test_radix_carry_is_the_stable_argsort_order(n):
    rng = np.random.default_rng(n + 1)
    for name, key in _keysets(rng, n).items():
        w = rng.random(n)
        w_before = w.copy()
        got = key.copy()
        carried = _radix.sort(got, w)
        order = np.argsort(key, kind="stable")
        np.testing.assert_array_equal(got, key[order], err_msg=name)
        np.testing.assert_array_equal(carried, w[order], err_msg=name)
        np.testing.assert_array_equal(w, w_before)  # the caller's carry is left alone


@needs_numba
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("n_groups", [1, 3, 40])
def test_radix_segments_are_the_group_then_key_order(n, n_groups):
    rng = np.random.default_rng(n + n_groups)
    for name, key in _keysets(rng, n).items():
        g = rng.integers(0, n_groups, n)
        bounds = np.zeros(n_groups + 1, dtype=np.int64)
        np.cumsum(np.bincount(g, minlength=n_groups), out=bounds[1:])
        w = rng.random(n)
        order = np.lexsort((key, g))  # stable: ties keep their input order
        got, carried = _radix.sort_segments(key.copy(), g, bounds, w)
        np.testing.assert_array_equal(got, key[order], err_msg=name)
        np.testing.assert_array_equal(carried, w[order], err_msg=name)
        got, none = _radix.sort_segments(key.copy(), g, bounds)
        np.testing.assert_array_equal(got, key[order], err_msg=name)
        assert none is None


def _scores(rng, kind, n):
    if kind == "signed":  # decision-function-like: packed keys use almost all 64 bits
        return rng.standard_normal(n)
    if kind == "proba":  # common high bits: passes skipped
        return 1.0 / (1.0 + np.exp(-rng.standard_normal(n)))
    if kind == "ties":
        return rng.integers(0, 4, n) / 3.0
    if kind == "zeros":
        s = rng.random(n)
        s[rng.random(n) < 0.3] = 0.0
        return s
    if kind == "equal":  # one score: the keys differ in their label and fold bits only
        return np.full(n, 0.25)
    return rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, n)  # "wide": dense ranks


@pytest.mark.parametrize("kind", ["signed", "proba", "ties", "zeros", "equal", "wide"])
@pytest.mark.parametrize("n_groups", [1, 5, 5000])
@pytest.mark.parametrize("n", [1, 2, 3000])
def test_sorted_keys_same_in_both_engines(monkeypatch, kind, n_groups, n):
    """The numpy engine's ``ndarray.sort`` and the compiled radix sort: the same arrays on
    every path (plain, weights carried, segments per repeat, dense ranks)."""
    if _radix.kernel() is False:
        pytest.skip("numba is not installed (the fast extra)")
    rng = np.random.default_rng(7)
    s = _scores(rng, kind, n)
    y = (rng.random(n) < 0.4).astype(np.int64)
    g = rng.integers(0, n_groups, n) if n_groups > 1 else None
    low = rng.integers(0, 10, n)
    monkeypatch.setattr(_kernel, "NUMBA_MIN_SIZE", 0)
    for carry in (None, rng.random(n)):
        got = {}
        for use in ("numpy", "numba"):
            monkeypatch.setattr(_kernel, "ENGINE", use)
            got[use] = _keys.sorted_keys(
                s, float(s.min()), float(s.max()), y, g, n_groups, low, 10, carry=carry
            )
        a, b = got["numpy"], got["numba"]
        assert (a[1].M, a[1].L, a[1].span) == (b[1].M, b[1].L, b[1].span)
        for i in (0, 2, 5, 6, 7):  # keys, uniques, lbits, carry, bounds
            if isinstance(a[i], np.ndarray):
                np.testing.assert_array_equal(a[i], b[i])
                assert a[i].dtype == b[i].dtype
            else:
                assert a[i] == b[i]
        key, bounds = b[0], b[7]  # ascending (within each group when bounds are given)
        edges = [0, n] if bounds is None else bounds.tolist()
        for start, end in zip(edges[:-1], edges[1:], strict=True):
            assert np.all(key[start + 1 : end] >= key[start : end - 1])


def _frame(rng, n, reps, kind):
    df = pd.DataFrame({"repeat": np.repeat(np.arange(reps), -(-n // reps))[:n]})
    df["fold"] = rng.integers(0, 4, n)
    y = rng.integers(0, 3, n)
    df["y_true"] = y
    for c in range(3):
        signal = (y == c) + rng.standard_normal(n)
        if kind == "ties":
            signal = np.round(signal * 4) / 4
        elif kind == "wide":  # 80 binades: the repeat bits no longer fit beside the score
            signal *= 2.0 ** rng.integers(-40, 40, n)
        df[f"score_{c}"] = signal
    return df


@pytest.mark.parametrize(("kind", "segments"), [("signed", 0), ("ties", 0), ("wide", 3)])
def test_auc_methods_with_repeats_equal_sklearn(engine, monkeypatch, kind, segments):
    """The segment path (repeat bits beside wide scores) and the plain one, in each engine."""
    rng = np.random.default_rng(3)
    df = _frame(rng, 1800, 3, kind)
    calls = []

    def spy(*args):
        calls.append(args[-1])  # compiled or not
        return _SEGMENTS(*args)

    monkeypatch.setattr(_keys, "_segments", spy)
    ds = scores.auc_methods(df)
    assert calls == [engine == "numba"] * segments  # one per class on the segment path
    for r, part in df.groupby("repeat"):
        y = part["y_true"].to_numpy()
        for c in range(3):
            s = part[f"score_{c}"].to_numpy()
            merge = roc_auc_score(y == c, s)
            folds = [g for _, g in part.groupby("fold")]
            avg = np.mean([roc_auc_score(f["y_true"] == c, f[f"score_{c}"]) for f in folds])
            got = ds.sel(repeat=r).isel({"class": c})
            assert abs(float(got.auc_merge) - merge) < 1e-12
            assert abs(float(got.auc_avg) - avg) < 1e-12


def test_weighted_auc_equals_sklearn(engine):
    """Weights ride along the sort (the carry): the weighted AUC of scikit-learn."""
    rng = np.random.default_rng(5)
    s = np.round(rng.standard_normal((3, 800)) * 3) / 3
    y = rng.integers(0, 2, (3, 800))
    w = rng.random((3, 800))
    got = scores.auc_arrays(s, y, weights=w)
    want = [roc_auc_score(y[i], s[i], sample_weight=w[i]) for i in range(3)]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
