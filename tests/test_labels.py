"""The label policy (cvframe._core.labels): shapes, universe, binary default, codes, attrs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cvframe import CountsError
from cvframe._core import labels as _labels

# --- shapes -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "x",
    [
        [[1], [0], [1]],
        np.array([[1], [0], [1]]),
        pd.DataFrame({"y": [1, 0, 1]}),
        pd.Series([1, 0, 1]),
        pd.array([1, 0, 1], dtype="Int64"),
    ],
)
def test_column_vectors_and_pandas_are_1d(x):
    out = _labels.as_labels(x, "y_true")
    assert np.asarray(out).tolist() == [1, 0, 1]
    assert np.asarray(out).ndim == 1


def test_categorical_kept():
    s = pd.Series(["a", "b"], dtype=pd.CategoricalDtype(["b", "a", "z"]))
    out = _labels.as_labels(s, "y_true")
    assert isinstance(out, pd.Categorical)
    assert list(out.categories) == ["b", "a", "z"]


@pytest.mark.parametrize(
    "x, exc",
    [
        (3, TypeError),
        ("abc", TypeError),
        (None, TypeError),
        (np.zeros((3, 2)), ValueError),
        (np.zeros((2, 2, 2)), ValueError),
        (pd.DataFrame({"a": [1], "b": [2]}), ValueError),
    ],
)
def test_bad_shapes_name_the_argument(x, exc):
    with pytest.raises(exc, match="y_pred"):
        _labels.as_labels(x, "y_pred")


def test_2d_allowed_when_asked():
    assert _labels.as_labels(np.zeros((3, 2)), "y", allow_2d=True).shape == (3, 2)


def test_nullable_with_missing_is_an_error():
    with pytest.raises(CountsError, match=r"y_true has missing labels .*1 samples"):
        _labels.as_labels(pd.array([1, pd.NA, 2], dtype="Int64"), "y_true")


# --- universe ------------------------------------------------------------------------------------


def test_universe_orders():
    assert _labels.universe(np.array([3, 1]), np.array([2, 1])) == ([1, 2, 3], True)
    assert _labels.universe(np.array(["b"]), np.array(["a"])) == (["a", "b"], True)
    cat = pd.Categorical(["a"], categories=["z", "a", "m"])
    assert _labels.universe(cat, np.array(["a"])) == (["z", "a", "m"], False)
    assert _labels.universe([0, 1], labels=np.array([1, 0])) == ([1, 0], False)
    assert _labels.universe(np.array([True, False])) == ([False, True], True)


@pytest.mark.parametrize(
    "labels, exc, match",
    [
        (3, TypeError, "labels=3"),
        ("ab", TypeError, "labels='ab'"),
        ([], ValueError, "labels is empty"),
        ([1, 1, 2], ValueError, r"labels has duplicated entries \[1\]"),
        ([1, None], ValueError, "labels has missing entries"),
    ],
)
def test_bad_labels_argument(labels, exc, match):
    with pytest.raises(exc, match=match):
        _labels.universe(np.array([1, 2]), labels=labels)


@pytest.mark.parametrize(
    "y, match",
    [
        (np.array(["a", 1], dtype=object), "y_true mixes string labels"),
        (np.array([1.0, np.nan]), r"y_true has missing labels \[nan\]"),
        (np.array(["a", None], dtype=object), "y_true has missing labels"),
        (np.array([1.0, np.inf]), "y_true has infinite labels"),
    ],
)
def test_bad_label_values(y, match):
    with pytest.raises(CountsError, match=match):
        _labels.universe(y)


# --- the binary default -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "uni, expect",
    [
        ([0, 1], 1),
        ([0.0, 1.0], 1.0),
        ([False, True], True),
        ([0], 1),
        ([1], 1),
        ([True], True),
        ([0, 1, 2], None),
    ],
)
def test_binary_default(uni, expect):
    got = _labels.binary_pos(uni, True, None)
    assert got == expect and type(got) is type(expect)


def test_binary_pos_label_checks():
    assert _labels.binary_pos(["a", "b"], True, "a") == "a"
    assert _labels.binary_pos([0, 1], False, np.int64(1)) == 1
    assert type(_labels.binary_pos([0, 1], True, 1.0)) is int
    assert _labels.binary_pos(["a", "b"], False, None) is None  # declared: one-vs-all
    with pytest.raises(ValueError, match="pass pos_label="):
        _labels.binary_pos(["a", "b"], True, None)
    with pytest.raises(ValueError, match=r"pos_label='c' is not among the labels"):
        _labels.binary_pos(["a", "b"], True, "c")
    with pytest.raises(ValueError, match=r"pos_label='1' is not among"):
        _labels.binary_pos([0, 1], True, "1")
    with pytest.raises(ValueError, match="pos_label=1 is for binary tasks"):
        _labels.binary_pos([0, 1, 2], True, 1)
    with pytest.raises(ValueError, match="pos_label"):
        _labels.binary_pos([0, 1], True, 1, multilabel=True)


# --- codes ----------------------------------------------------------------------------------------


def test_codes_are_small_and_exact():
    c = _labels.codes(np.array(["b", "a", "c", "b"], dtype=object), ["c", "b", "a"], "y_true")
    assert c.tolist() == [1, 2, 0, 1] and c.dtype == np.int8
    cat = pd.Categorical(["x", "y"], categories=["y", "x"])
    assert _labels.codes(cat, ["x", "y", "z"], "y").tolist() == [0, 1]
    assert _labels.codes(np.array([True, False]), [False, True], "y").tolist() == [1, 0]


def test_codes_outside_universe_are_an_error_never_dropped():
    with pytest.raises(CountsError, match=r"y_pred has labels \[5\] that are not among"):
        _labels.codes(np.array([0, 5]), [0, 1], "y_pred")
    cat = pd.Categorical(["x"], categories=["x", "q"])  # unused category q is fine
    assert _labels.codes(cat, ["x"], "y").tolist() == [0]


def test_codes_dask_equal_numpy():
    da = pytest.importorskip("dask.array")
    v = np.array(["b", "a", "c", "b"] * 10, dtype=object)
    c = _labels.codes(da.from_array(v, chunks=7), ["a", "b", "c"], "y")
    assert c.compute().tolist() == _labels.codes(v, ["a", "b", "c"], "y").tolist()
    with pytest.raises(CountsError, match="y has labels"):
        _labels.codes(da.from_array(v, chunks=7), ["a", "b"], "y")


def test_group_codes_drop_unused_categories_and_keep_any_int_width():
    cat = pd.Categorical([3, 1, 3], categories=[3, 2, 1])
    c, uni = _labels.group_codes(cat, "fold")
    assert uni == [3, 1] and c.tolist() == [0, 1, 0]
    big = np.array([2**63 + 5, 7, 2**64 - 1], dtype=np.uint64)
    c, uni = _labels.group_codes(big, "fold")
    assert uni == [7, 2**63 + 5, 2**64 - 1] and c.tolist() == [1, 0, 2]
    c, uni = _labels.group_codes(np.array([-5, 2**40, -5]), "fold")
    assert uni == [-5, 2**40] and c.tolist() == [0, 1, 0]


# --- attrs ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "label, classes",
    [
        (True, [True]),
        (False, [False, True]),
        (1, [1]),
        ("a", ["a", "b"]),
        (2.5, [2.5]),
        ("True", ["True", "x"]),
    ],
)
def test_attr_round_trip_keeps_type(label, classes):
    stored = _labels.to_attr(label)
    assert isinstance(stored, (str, int, float))
    back = _labels.from_attr(stored, np.asarray(classes, dtype=object))
    assert back == label and type(back) is type(label)


def test_coord_dtypes():
    assert _labels.coord(["a", "b"]).dtype == object
    assert _labels.coord([1, 2]).dtype == np.int64
    assert _labels.coord([True]).dtype == bool


def test_blocked_factorization_equals_one_pass(monkeypatch):
    monkeypatch.setattr(_labels.coding, "_FACTOR_BLOCK", 4)
    rng = np.random.default_rng(1)
    v = np.array(["d", "b", "a", "c"], dtype=object)[rng.integers(0, 4, 37)]
    c = _labels.codes(v, ["a", "b", "c", "d"], "y")
    assert c.tolist() == pd.Index(["a", "b", "c", "d"]).get_indexer(v).tolist()
    s = pd.Series(v, dtype="string")
    assert _labels.codes(s.array, ["a", "b", "c", "d"], "y").tolist() == c.tolist()
    big = rng.integers(0, 2**62, 37)
    codes, uni = _labels.group_codes(big, "fold")
    assert np.asarray(uni)[codes].tolist() == big.tolist() and uni == sorted(uni)
    v[20] = None
    with pytest.raises(CountsError, match=r"y has missing labels .*\(1 samples\)"):
        _labels.codes(v, ["a", "b", "c", "d"], "y")
