"""Both fold aggregations from one sort: the stable counting pass by fold and its engines.

The per-fold order made by :meth:`Ranked.by_low` from the one (repeat, score) sort must be
exactly the order a fresh sort by (repeat, fold, score) gives; the numba and numpy passes
must give the same array; and every ranking metric computed through that path must equal
scikit-learn per fold and on the pooled folds of every repeat (ties counting one half).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, roc_auc_score

from cvframe import scores
from cvframe._core import kernel as _kernel
from cvframe._core.labels.frame import FrameArgs
from cvframe.scores import _keys, _rank
from cvframe.scores._driver import run
from cvframe.scores.ranking import AP, AUC, R_PRECISION


def run_metric(df, metric, methods, undefined, average):
    """The one driver (the default columns), one result per method."""
    out = run(df, metric, methods, undefined, average, FrameArgs())
    return [next(iter(r.values())) for r in out]


ENGINES = [
    "numpy",
    pytest.param(
        "numba",
        marks=pytest.mark.skipif(
            _keys.kernel() is False, reason="numba is not installed (the fast extra)"
        ),
    ),
]


@pytest.fixture(params=ENGINES)
def engine(request, monkeypatch):
    """Force one engine of the counting pass, also for tiny inputs."""
    monkeypatch.setattr(_kernel, "ENGINE", request.param)
    monkeypatch.setattr(_kernel, "NUMBA_MIN_SIZE", 0)
    return request.param


def _random(seed, n, reps, folds, classes=2, step=0.5):
    """Scores rounded to ``step`` (many ties), folds of unequal size, some repeats."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"repeat": rng.integers(0, reps, n), "fold": rng.integers(0, folds, n)})
    if classes == 2:
        y = rng.integers(0, 2, n)
        df["y_true"] = y
        df["score"] = np.round((y + rng.normal(0, 1, n)) / step) * step
    else:
        y = rng.integers(0, classes, n)
        df["y_true"] = y
        for c in range(classes):
            df[f"score_{c}"] = np.round(((y == c) + rng.normal(0, 1, n)) / step) * step
    return df


rows = st.lists(
    st.tuples(st.integers(0, 2), st.integers(0, 3), st.integers(-3, 3), st.booleans()),
    min_size=1,
    max_size=60,
)


@settings(max_examples=25, deadline=None)
@given(rows, st.sampled_from(["numpy", "numba"]))
def test_by_low_equals_a_fresh_sort_by_fold(rows, eng):
    if eng == "numba" and _keys.kernel() is False:
        eng = "numpy"
    rep, fold, s, y = (np.array(c) for c in zip(*rows, strict=True))
    s = s.astype(np.float64) / 2
    g = rep * 4 + fold
    counts = np.bincount(g, minlength=12)
    old = _kernel.ENGINE, _kernel.NUMBA_MIN_SIZE
    _kernel.ENGINE, _kernel.NUMBA_MIN_SIZE = eng, 0
    try:
        both = _rank.Ranked(s, float(s.min()), float(s.max()), y, rep, 3, fold, 4, counts)
    finally:
        _kernel.ENGINE, _kernel.NUMBA_MIN_SIZE = old
    merged_fresh = _rank.Ranked(s, float(s.min()), float(s.max()), y, rep, 3)
    np.testing.assert_array_equal(both.key, merged_fresh.key)
    np.testing.assert_array_equal(both.bounds, merged_fresh.bounds)
    np.testing.assert_array_equal(both.auc()[0], merged_fresh.auc()[0])
    per_fold = both.by_low()
    fold_fresh = _rank.Ranked(s, float(s.min()), float(s.max()), y, g, 12)
    np.testing.assert_array_equal(per_fold.key, fold_fresh.key)
    np.testing.assert_array_equal(per_fold.bounds, fold_fresh.bounds)
    np.testing.assert_array_equal(per_fold.auc()[0], fold_fresh.auc()[0])
    np.testing.assert_array_equal(
        per_fold.average_precision()[0], fold_fresh.average_precision()[0]
    )


def test_numba_and_numpy_passes_give_the_same_array(monkeypatch):
    if _keys.kernel() is False:
        pytest.skip("numba is not installed (the fast extra)")
    rng = np.random.default_rng(3)
    n, n_low, n_high, lbits, shift = 5000, 10, 3, 4, 20
    high = rng.integers(0, n_high, n).astype(np.uint64)
    low = rng.integers(0, n_low, n).astype(np.uint64)
    value = rng.integers(0, 1 << shift, n).astype(np.uint64)
    key = np.sort((high << np.uint64(shift + lbits)) | (value << np.uint64(lbits)) | low)
    counts = np.bincount((high * n_low + low).astype(np.int64), minlength=n_low * n_high)
    monkeypatch.setattr(_kernel, "NUMBA_MIN_SIZE", 0)
    out = {}
    for eng in ("numpy", "numba"):
        monkeypatch.setattr(_kernel, "ENGINE", eng)
        out[eng] = _keys.partition(key, counts, n_low, lbits, shift, n_high)
    np.testing.assert_array_equal(out["numba"], out["numpy"])
    assert np.all(out["numpy"][1:] >= out["numpy"][:-1])  # grouped, ascending in a group


def test_unknown_engine_names_the_variable(monkeypatch):
    monkeypatch.setattr(_kernel, "ENGINE", "gpu")
    with pytest.raises(ValueError, match="CVFRAME_KERNEL='gpu' must be"):
        _keys.partition(np.zeros(3, np.uint64), np.array([3, 0]), 2, 1, 2, 1)


@pytest.mark.parametrize("seed", range(4))
def test_auc_methods_equal_sklearn_per_fold_and_merged(engine, seed):
    df = _random(seed, 1500, reps=1 + seed % 3, folds=3 + seed, step=0.25 * (1 + seed % 2))
    ds = scores.auc_methods(df)
    for r, part in df.groupby("repeat"):
        merged = roc_auc_score(part.y_true, part.score)
        per_fold = [roc_auc_score(f.y_true, f.score) for _, f in part.groupby("fold")]
        assert ds.auc_merge.sel(repeat=r, **{"class": 1}).item() == pytest.approx(merged, abs=1e-12)
        assert ds.auc_avg.sel(repeat=r, **{"class": 1}).item() == pytest.approx(
            np.mean(per_fold), abs=1e-12
        )


def test_multiclass_auc_methods_equal_sklearn_one_vs_rest(engine):
    df = _random(7, 2000, reps=2, folds=5, classes=4)
    ds = scores.auc_methods(df)
    for (r, c), want in (
        ((r, c), roc_auc_score(part.y_true == c, part[f"score_{c}"]))
        for r, part in df.groupby("repeat")
        for c in range(4)
    ):
        assert ds.auc_merge.sel(repeat=r, **{"class": c}).item() == pytest.approx(want, abs=1e-12)
    for r, part in df.groupby("repeat"):
        for c in range(4):
            per = [roc_auc_score(f.y_true == c, f[f"score_{c}"]) for _, f in part.groupby("fold")]
            got = ds.auc_avg.sel(repeat=r, **{"class": c}).item()
            assert got == pytest.approx(np.mean(per), abs=1e-12)


@pytest.mark.parametrize("metric", [AUC, AP, R_PRECISION], ids=lambda m: m.name)
def test_both_methods_from_one_sort_equal_one_method_at_a_time(engine, metric):
    df = _random(11, 1200, reps=3, folds=4, step=0.5)
    avg, merge = run_metric(df, metric, ("avg", "merge"), "nan", None)
    (avg_only,) = run_metric(df, metric, ("avg",), "nan", None)
    (merge_only,) = run_metric(df, metric, ("merge",), "nan", None)
    np.testing.assert_array_equal(avg.values, avg_only.values)
    np.testing.assert_array_equal(merge.values, merge_only.values)
    parsed = scores.parse(df).parts[0]  # one sort a class kept on the parse: the same values
    for method, want in (("merge", merge), ("avg", avg), ("fold", None)):
        (kept,) = run_metric(parsed, metric, (method,), "nan", None)
        if want is not None:
            np.testing.assert_array_equal(kept.values, want.values)
    assert len(parsed.sorts) == 1
    if metric is AP:
        for r, part in df.groupby("repeat"):
            want = average_precision_score(part.y_true, part.score)
            assert merge.sel(repeat=r).item() == pytest.approx(want, abs=1e-12)
            per = [average_precision_score(f.y_true, f.score) for _, f in part.groupby("fold")]
            assert avg.sel(repeat=r).item() == pytest.approx(np.mean(per), abs=1e-12)


def test_precision_at_k_through_both_methods(engine):
    df = _random(5, 900, reps=2, folds=3, step=1.0)
    metric = scores.ranking._precision_at_k(7)
    avg, merge = run_metric(df, metric, ("avg", "merge"), "nan", None)
    for r, part in df.groupby("repeat"):
        top = part.sort_values("score", ascending=False, kind="stable")
        cut = top.score.iloc[6]  # ties at the cut shared: expected value
        above = top[top.score > cut]
        tied = top[top.score == cut]
        want = (above.y_true.sum() + tied.y_true.mean() * (7 - len(above))) / 7
        assert merge.sel(repeat=r).item() == pytest.approx(want, abs=1e-12)


settings_perm = settings(max_examples=15, deadline=None)


@settings_perm
@given(st.integers(0, 2**32 - 1), st.integers(1, 3), st.integers(2, 5))
def test_row_order_does_not_change_either_aggregation(seed, reps, folds):
    df = _random(seed % 1000, 120, reps=reps, folds=folds, step=0.5)
    shuffled = df.sample(frac=1.0, random_state=seed % 1000)
    a = scores.auc_methods(df, undefined="nan")
    b = scores.auc_methods(shuffled, undefined="nan")
    np.testing.assert_array_equal(a.auc_avg.values, b.auc_avg.values)
    np.testing.assert_array_equal(a.auc_merge.values, b.auc_merge.values)


def test_one_fold_per_repeat_gives_merge_equal_avg(engine):
    df = _random(2, 400, reps=2, folds=1)
    ds = scores.auc_methods(df)
    np.testing.assert_allclose(ds.auc_avg.values, ds.auc_merge.values, rtol=0, atol=1e-15)


def test_too_wide_keys_fall_back_to_dense_ranks_in_both(engine):
    rng = np.random.default_rng(0)
    n = 600
    s = np.sign(rng.normal(size=n)) * 10.0 ** rng.uniform(-300, 300, n)
    df = pd.DataFrame(
        {
            "repeat": rng.integers(0, 2, n),
            "fold": rng.integers(0, 5, n),
            "y_true": rng.integers(0, 2, n),
            "score": s,
        }
    )
    ds = scores.auc_methods(df)
    for r, part in df.groupby("repeat"):
        want = roc_auc_score(part.y_true, part.score)
        assert ds.auc_merge.sel(repeat=r).item() == pytest.approx(want, abs=1e-12)
        per = [roc_auc_score(f.y_true, f.score) for _, f in part.groupby("fold")]
        assert ds.auc_avg.sel(repeat=r).item() == pytest.approx(np.mean(per), abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(rows)
def test_fused_auc_equals_the_counting_pass_exactly(rows):
    if _keys.kernel() is False:
        return  # the fused pass needs numba; nothing to compare
    rep, fold, s, y = (np.array(c) for c in zip(*rows, strict=True))
    s = s.astype(np.float64) / 2
    counts = np.bincount(rep * 4 + fold, minlength=12)
    args = (s, float(s.min()), float(s.max()), y, rep, 3, fold, 4, counts)
    old = _kernel.ENGINE, _kernel.NUMBA_MIN_SIZE
    _kernel.ENGINE, _kernel.NUMBA_MIN_SIZE = "numba", 0
    try:
        fused = _rank.auc_both(*args)
    finally:
        _kernel.ENGINE, _kernel.NUMBA_MIN_SIZE = old
    assert fused is not None
    both = _rank.Ranked(*args)  # numpy engine: packing, counting pass, rank sums
    merged = both.auc()
    per_fold = both.by_low().auc()
    np.testing.assert_array_equal(fused[0][0], merged[0])
    np.testing.assert_array_equal(fused[0][1], merged[1])
    np.testing.assert_array_equal(fused[1][0], per_fold[0])
    np.testing.assert_array_equal(fused[1][1], per_fold[1])


def test_fused_auc_steps_aside_for_numpy_and_wide_keys(monkeypatch):
    rng = np.random.default_rng(1)
    s = np.sign(rng.normal(size=50)) * 10.0 ** rng.uniform(-300, 300, 50)
    y, fold = rng.integers(0, 2, 50), rng.integers(0, 3, 50)
    args = (s, float(s.min()), float(s.max()), y, None, 1, fold, 3, np.bincount(fold))
    monkeypatch.setattr(_kernel, "ENGINE", "numpy")
    assert _rank.auc_both(*args) is None
    if _keys.kernel() is not False:
        monkeypatch.setattr(_kernel, "ENGINE", "numba")
        monkeypatch.setattr(_kernel, "NUMBA_MIN_SIZE", 0)
        assert _rank.auc_both(*args) is None  # dense ranks: the Ranked path


@pytest.mark.parametrize("reps", [1, 3])
def test_fused_auc_without_ties_equals_the_counting_pass(reps):
    if _keys.kernel() is False:
        pytest.skip("numba is not installed (the fast extra)")
    rng = np.random.default_rng(reps)
    n, folds = 3000, 7
    s = rng.normal(size=n) + np.arange(n) * 1e-9  # all distinct
    y, fold = rng.integers(0, 2, n), rng.integers(0, folds, n)
    rep = rng.integers(0, reps, n) if reps > 1 else None
    g = fold if rep is None else rep * folds + fold
    counts = np.bincount(g, minlength=reps * folds)
    args = (s, float(s.min()), float(s.max()), y, rep, reps, fold, folds, counts)
    old = _kernel.ENGINE, _kernel.NUMBA_MIN_SIZE
    _kernel.ENGINE, _kernel.NUMBA_MIN_SIZE = "numba", 0
    try:
        fused = _rank.auc_both(*args)
    finally:
        _kernel.ENGINE, _kernel.NUMBA_MIN_SIZE = old
    assert fused is not None
    both = _rank.Ranked(*args)
    np.testing.assert_array_equal(fused[0][0], both.auc()[0])
    np.testing.assert_array_equal(fused[1][0], both.by_low().auc()[0])
    want = [roc_auc_score(y[g == k], s[g == k]) for k in range(reps * folds)]
    np.testing.assert_allclose(fused[1][0], want, rtol=0, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.floats(allow_nan=False, allow_infinity=False, width=64, min_value=-1e6, max_value=1e6),
        min_size=1,
        max_size=40,
    ),
    st.sampled_from([(0, 1), (1, 0), (-1, 0), (0, -1)]),
)
def test_compiled_keys_equal_the_numpy_packing(values, signs):
    if _keys.kernel() is False:
        return  # nothing to compare without numba
    s = np.asarray(values, dtype=np.float64)
    if signs[0]:  # one-signed scores (probabilities, all-negative decision values), zeros kept
        s = np.abs(s) * signs[0]
    y = (np.arange(len(s)) % 3 == 0).astype(np.int64)
    fold = np.arange(len(s)) % 3
    args = (s, float(s.min()), float(s.max()), y, None, 1, fold, 3)
    old = _kernel.ENGINE, _kernel.NUMBA_MIN_SIZE
    try:
        _kernel.ENGINE, _kernel.NUMBA_MIN_SIZE = "numba", 0
        fast = _keys.sorted_keys(*args)
        _kernel.ENGINE = "numpy"
        slow = _keys.sorted_keys(*args)
    finally:
        _kernel.ENGINE, _kernel.NUMBA_MIN_SIZE = old
    np.testing.assert_array_equal(fast[0], slow[0])
    assert (fast[1].M, fast[1].L, fast[1].span) == (slow[1].M, slow[1].L, slow[1].span)
