"""The compiled counting pass of integer predictions: its paths (interleaved table copies,
short and long steps, absent groups, a range guess that misses, weights summed block by
block) give numpy's counts bit for bit, and the cube keeps its errors on both engines."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import confusion_matrix

import cvframe
from cvframe import CountsError
from cvframe._core import kernel as _kernel
from cvframe.build import _kernel as build_kernel

ENGINES = ["numpy", "numba"]


@pytest.fixture(params=ENGINES)
def engine(request, monkeypatch):
    if request.param == "numba" and build_kernel._pass_compiled() is False:
        pytest.skip("numba is not installed (the fast extra)")
    monkeypatch.setattr(_kernel, "ENGINE", request.param)
    monkeypatch.setattr(_kernel, "NUMBA_MIN_SIZE", 0)
    return request.param


def _data(n: int, c: int, folds: int = 5, repeats: int = 2, seed: int = 0):
    rng = np.random.default_rng(seed)
    rep = np.repeat(np.arange(repeats), -(-n // repeats))[:n]
    fold = rng.integers(0, folds, n)
    y = rng.integers(0, c, n)
    yp = np.where(rng.random(n) < 0.6, y, rng.integers(0, c, n))
    return rep, fold, y, yp


def _both(groups, y, yp, w, monkeypatch):
    got = {}
    for use in ENGINES:
        monkeypatch.setattr(_kernel, "ENGINE", use)
        monkeypatch.setattr(_kernel, "NUMBA_MIN_SIZE", 0)
        got[use] = build_kernel.fast_confusion(groups, y, yp, w, len(y))
    return got["numpy"], got["numba"]


# (n, classes, folds, repeats): 4 interleaved copies (table <= 1024 cells), one table in
# short steps, one table in long steps; row counts around the step lengths
SHAPES = {
    "copies": (10_007, 2, 5, 3),
    "one table, short steps": (20_000, 12, 10, 2),
    "long steps": (40_000, 60, 10, 2),
    "fewer rows than a step": (97, 3, 2, 2),
    "a step and one row": (129, 3, 2, 2),
    "long steps and a tail": ((1 << 14) + 3, 60, 10, 2),
}


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("groups", [0, 1, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_every_path_of_the_pass_counts_what_numpy_counts(shape, groups, weighted, monkeypatch):
    if build_kernel._pass_compiled() is False:
        pytest.skip("numba is not installed (the fast extra)")
    n, c, folds, repeats = SHAPES[shape]
    rep, fold, y, yp = _data(n, c, folds, repeats)
    w = np.random.default_rng(1).random(n) if weighted else None
    a, b = _both([rep, fold][2 - groups :], y, yp, w, monkeypatch)
    (raw0, vals0, t0, p0, lo0), (raw1, vals1, t1, p1, lo1) = a, b
    assert raw0.dtype == raw1.dtype and raw0.shape == raw1.shape
    np.testing.assert_array_equal(raw0, raw1)  # float sums too: the same order
    for u, v in zip([*vals0, t0, p0], [*vals1, t1, p1], strict=True):
        np.testing.assert_array_equal(u, v)
    assert lo0 == lo1
    flat = np.ravel_multi_index(
        [*(g - g.min() for g in [rep, fold][2 - groups :]), y, yp], raw1.shape
    )
    np.testing.assert_allclose(raw1.ravel(), np.bincount(flat, w, raw1.size), rtol=1e-12)


@pytest.mark.parametrize("where", ["first row", "last row", "middle"])
@pytest.mark.parametrize("which", [0, 1, 2, 3])
def test_a_value_the_guess_misses_is_counted_over_the_exact_ranges(where, which, monkeypatch):
    if build_kernel._pass_compiled() is False:
        pytest.skip("numba is not installed (the fast extra)")
    arrays = list(_data(50_000, 4, seed=2))
    at = {"first row": 1, "last row": -1, "middle": 25_001}[where]  # rows no sample sees
    arrays[which][at] = -9 if which % 2 else 40  # outside every sampled row
    raw, bounds = build_kernel.compiled_count(arrays, None, 50_000)
    assert bounds[which] in {(-9, int(arrays[which].max())), (int(arrays[which].min()), 40)}
    lab = (
        min(int(arrays[2].min()), int(arrays[3].min())),
        max(int(arrays[2].max()), int(arrays[3].max())),
    )
    assert bounds[2] == bounds[3] == lab
    assert int(raw.sum()) == 50_000
    a, b = _both(arrays[:2], arrays[2], arrays[3], None, monkeypatch)
    np.testing.assert_array_equal(a[0], b[0])


def test_mixed_dtypes_bool_and_negative_values(monkeypatch):
    if build_kernel._pass_compiled() is False:
        pytest.skip("numba is not installed (the fast extra)")
    rep, fold, y, yp = _data(30_000, 3, seed=3)
    groups = [(rep - 5).astype(np.int8), fold.astype(np.uint32)]
    y, yp = (y > 0).view(np.uint8), (yp - 1).astype(np.int16)
    a, b = _both(groups, y, yp, None, monkeypatch)
    np.testing.assert_array_equal(a[0], b[0])
    assert [v.tolist() for v in b[1]] == [[-5, -4], [0, 1, 2, 3, 4]]


def test_cube_of_integer_labels_matches_sklearn_per_fold(engine):
    rep, fold, y, yp = _data(40_000, 7, folds=4, repeats=2, seed=4)
    ds = cvframe.from_predictions(y, yp, fold, repeat=rep)
    assert cvframe.validate(ds) is ds  # the invariants hold although the build skips the check
    for r in range(2):
        for k in range(4):
            m = (rep == r) & (fold == k)
            cm = confusion_matrix(y[m], yp[m], labels=np.arange(7))
            np.testing.assert_array_equal(ds.confusion.sel(repeat=r, fold=k).values, cm)
            np.testing.assert_array_equal(ds.tp.sel(repeat=r, fold=k).values, np.diag(cm))
    assert ds.confusion.values.flags["C_CONTIGUOUS"]


def test_labels_beyond_the_counted_range_give_zero_rows(engine):
    rep, fold, y, yp = _data(5_000, 3, seed=5)
    ds = cvframe.from_predictions(y, yp, fold, labels=[2, 0, 1, 9])
    assert ds.confusion.sel(true=9).values.sum() == 0
    assert int(ds.confusion.sel(true=2, pred=2).values.sum()) == int(((y == 2) & (yp == 2)).sum())
    assert ds.confusion.values.flags["C_CONTIGUOUS"]


def test_take_labels_returns_the_table_itself_for_the_counted_range():
    raw = np.arange(2 * 3 * 3).reshape(2, 3, 3)
    assert build_kernel.take_labels(raw, [4, 5, 6], 4) is raw
    moved = build_kernel.take_labels(raw, [5, 4, 6], 4)
    np.testing.assert_array_equal(moved, raw[:, [1, 0, 2]][:, :, [1, 0, 2]])


def test_weighted_cube_is_still_validated(engine, monkeypatch):
    from cvframe.build import predictions

    calls = []
    real = predictions.validate
    monkeypatch.setattr(predictions, "validate", lambda ds: calls.append(1) or real(ds))
    rep, fold, y, yp = _data(3_000, 3, seed=6)
    cvframe.from_predictions(y, yp, fold, sample_weight=np.ones(len(y)))
    assert calls == [1]
    cvframe.from_predictions(y, yp, fold)
    assert calls == [1]


BAD = {
    "label outside labels=": (
        lambda y, yp, f: cvframe.from_predictions(y, yp, f, labels=[0, 1]),
        "not among labels",
    ),
    "NaN label": (
        lambda y, yp, f: cvframe.from_predictions(np.where(y == 0, np.nan, y), yp, f),
        "missing",
    ),
    "lengths differ": (
        lambda y, yp, f: cvframe.from_predictions(y, yp[:-1], f),
        "differ in length",
    ),
    "negative weight": (
        lambda y, yp, f: cvframe.from_predictions(y, yp, f, sample_weight=-np.ones(len(y))),
        "negative",
    ),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_inputs_get_the_same_error_on_both_engines(case, monkeypatch):
    if build_kernel._pass_compiled() is False:
        pytest.skip("numba is not installed (the fast extra)")
    _, fold, y, yp = _data(2_000, 3, seed=7)
    call, words = BAD[case]
    messages = []
    for use in ENGINES:
        monkeypatch.setattr(_kernel, "ENGINE", use)
        monkeypatch.setattr(_kernel, "NUMBA_MIN_SIZE", 0)
        with pytest.raises((CountsError, ValueError, TypeError)) as info:
            call(y, yp, fold)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert words in messages[0].lower()


def test_negative_and_float_integral_labels_give_the_same_cube_on_both_engines(monkeypatch):
    if build_kernel._pass_compiled() is False:
        pytest.skip("numba is not installed (the fast extra)")
    _, fold, y, yp = _data(3_000, 3, seed=8)
    cubes = []
    for use in ENGINES:
        monkeypatch.setattr(_kernel, "ENGINE", use)
        monkeypatch.setattr(_kernel, "NUMBA_MIN_SIZE", 0)
        cubes.append(
            (
                cvframe.from_predictions(y - 1, yp - 1, fold),
                cvframe.from_predictions(y.astype(float), yp.astype(float), fold),
            )
        )
    for a, b in zip(*cubes, strict=True):
        assert a.identical(b)
