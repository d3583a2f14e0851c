"""Construction catalogue: one row per unusual input to from_predictions, counts_from_frame,
from_counts and from_confusion, with the exact counts (against scikit-learn or by hand) or the
error type and the argument its message names."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from sklearn.metrics import multilabel_confusion_matrix

import cvframe
from cvframe import CountsError
from cvframe._core import labels as _labels
from cvframe.io import prepare_for_write

COUNTS = ("tp", "fp", "fn", "tn")


def _oracle(y, yp, fold, labels, w=None):
    """scikit-learn's multilabel_confusion_matrix fold by fold (weighted when w is given)."""
    out = {v: [] for v in COUNTS}
    for f in np.unique(np.asarray(fold)):
        m = np.asarray(fold) == f
        mcm = multilabel_confusion_matrix(
            np.asarray(y)[m],
            np.asarray(yp)[m],
            labels=labels,
            sample_weight=None if w is None else np.asarray(w)[m],
        )
        for v, (i, j) in zip(COUNTS, [(1, 1), (0, 1), (1, 0), (0, 0)], strict=False):
            out[v].append(mcm[:, i, j])
    return {v: np.array(a) for v, a in out.items()}


# --- weights ------------------------------------------------------------------------------------

Y = np.array([0, 1, 2, 2, 1, 0, 2, 1])
YP = np.array([0, 1, 2, 1, 1, 0, 0, 1])
FOLD = np.array([0, 0, 0, 0, 1, 1, 1, 1])


def test_zero_weight_never_deletes_a_class():
    w = np.where(Y == 2, 0.0, 1.0)  # class 2's samples all weigh 0
    ints = cvframe.from_predictions(Y, YP, FOLD, sample_weight=w)
    strs = cvframe.from_predictions(Y.astype(str), YP.astype(str), FOLD, sample_weight=w)
    assert ints["class"].values.tolist() == [0, 1, 2]
    assert strs["class"].values.tolist() == ["0", "1", "2"]
    oracle = _oracle(Y, YP, FOLD, [0, 1, 2], w)
    for v in COUNTS:
        np.testing.assert_allclose(ints[v].values, oracle[v], rtol=0, atol=1e-12)
        np.testing.assert_array_equal(ints[v].values, strs[v].values)


def test_zero_weight_never_deletes_a_fold():
    w = np.where(FOLD == 1, 0.0, 1.0)
    ds = cvframe.from_predictions(Y, YP, FOLD, sample_weight=w)
    assert ds.fold.values.tolist() == [0, 1]
    assert float(ds[["tp", "fp", "fn", "tn"]].sel(fold=1).to_array().sum()) == 0.0


def test_all_zero_weights_are_an_error_naming_sample_weight():
    with pytest.raises(CountsError, match="sample_weight is 0 for every sample"):
        cvframe.from_predictions(Y, YP, FOLD, sample_weight=np.zeros(len(Y)))


@pytest.mark.parametrize("seed", range(8))
def test_float_weights_zero_stays_exactly_zero(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 60))
    y = rng.integers(0, 2, n)
    yp = np.where(rng.random(n) < 0.8, y, 1 - y)
    yp[y == 0] = 1  # no true negatives: tn is exactly 0
    w = rng.random(n) * 10.0 ** rng.integers(-3, 3)
    fold = rng.integers(0, 3, n)
    ds = cvframe.from_predictions(y, yp, fold, sample_weight=w)  # validates
    assert ds.attrs["weighted"] == "yes" and ds.tn.dtype == np.float64
    assert (ds.tn.values == 0.0).all() and not np.signbit(ds.tn.values).any()
    for v in COUNTS:
        assert (ds[v].values >= 0).all()
    oracle = _oracle(y, yp, fold, [0, 1], w)  # scikit-learn's tn can be -8.9e-16 here
    for v in COUNTS:
        np.testing.assert_allclose(ds[v].values, oracle[v][..., 1:], rtol=1e-12, atol=1e-9)


def test_float_weights_multiclass_counts_equal_fsum():
    rng = np.random.default_rng(11)
    y, yp = rng.integers(0, 4, 300), rng.integers(0, 4, 300)
    fold = rng.integers(0, 5, 300)
    w = rng.random(300) / 7
    ds = cvframe.from_predictions(y, yp, fold, labels=[0, 1, 2, 3, 9], sample_weight=w)
    for f in range(5):
        for c in (0, 1, 2, 3, 9):
            m = fold == f
            tn = math.fsum(w[m & (y != c) & (yp != c)])
            assert ds.tn.sel(fold=f, **{"class": c}).item() == pytest.approx(tn, rel=1e-13)
    assert (ds.tp.sel({"class": 9}).values == 0).all()


# --- dask gets the same checks --------------------------------------------------------------------


def _dask(a, chunks=3):
    da = pytest.importorskip("dask.array")
    return da.from_array(np.asarray(a), chunks=chunks)


@pytest.mark.parametrize("bad", [-1.0, np.nan, np.inf])
def test_dask_bad_weights_raise_at_compute(bad):
    w = np.ones(len(Y))
    w[4] = bad
    ds = cvframe.from_predictions(_dask(Y), _dask(YP), _dask(FOLD), sample_weight=_dask(w))
    with pytest.raises(CountsError, match="sample_weight has 1 NaN, infinite or negative"):
        ds.tn.compute()


def test_dask_weighted_equals_numpy():
    w = np.linspace(0, 1, len(Y))
    lazy = cvframe.from_predictions(_dask(Y), _dask(YP), _dask(FOLD), sample_weight=_dask(w))
    eager = cvframe.from_predictions(Y, YP, FOLD, sample_weight=w)
    for v in COUNTS:
        np.testing.assert_allclose(lazy[v].values, eager[v].values, rtol=1e-14)
        assert (lazy[v].values >= 0).all()


def test_dask_non_indicator_multilabel_raises_at_compute():
    y = np.array([[0, 1], [1, 2], [1, 0]])
    ds = cvframe.from_predictions(_dask(y, 1), _dask(y, 1), _dask([0, 0, 1], 1))
    with pytest.raises(CountsError, match=r"multilabel y_true has non-indicator values \[2\]"):
        ds.tp.compute()


def test_dask_label_outside_labels_raises_at_build():
    with pytest.raises(CountsError, match=r"y_true has labels \[1\] that are not among"):
        cvframe.from_predictions(_dask(Y), _dask(YP), _dask(FOLD), labels=[0, 2])
    with pytest.raises(CountsError, match=r"y_pred has labels \[3\] that are not among"):
        cvframe.from_predictions(
            _dask(Y), _dask(np.where(YP == 1, 3, YP)), _dask(FOLD), labels=[0, 1, 2]
        )


# --- categoricals ---------------------------------------------------------------------------------


def test_categorical_fold_unused_category_is_not_a_fold():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    yp = np.where(rng.random(400) < 0.8, y, 1 - y)
    fold = rng.integers(0, 4, 400)
    cat = pd.Categorical(fold, categories=[0, 1, 2, 3, 4, 5])
    a = cvframe.from_predictions(y, yp, fold)
    b = cvframe.from_predictions(y, yp, cat)
    assert b.fold.values.tolist() == [0, 1, 2, 3]
    assert b.cv.f_avg().item() == a.cv.f_avg().item()


def test_categorical_fold_keeps_category_order_of_used_folds():
    cat = pd.Categorical(["b", "a", "b", "a"], categories=["z", "b", "a"])
    ds = cvframe.from_predictions([0, 1, 1, 0], [0, 1, 0, 0], cat)
    assert ds.fold.values.tolist() == ["b", "a"]


def test_categorical_labels_keep_all_categories():
    y = pd.Categorical(["a", "b", "a"], categories=["c", "a", "b"])
    ds = cvframe.from_predictions(
        y, pd.Categorical(["a", "a", "b"], categories=["c", "a", "b"]), [0, 0, 0]
    )
    assert ds["class"].values.tolist() == ["c", "a", "b"]
    assert ds.tp.values.tolist() == [[0, 1, 0]]


# --- shapes and ids -------------------------------------------------------------------------------


def test_column_vector_labels_are_1d():
    col = cvframe.from_predictions(Y[:, None], YP[:, None], FOLD)
    flat = cvframe.from_predictions(Y, YP, FOLD)
    xr.testing.assert_identical(col, flat)
    df_col = cvframe.from_predictions(pd.DataFrame({"y": Y}), pd.DataFrame({"p": YP}), FOLD)
    xr.testing.assert_identical(df_col, flat)


def test_multilabel_dataframes_keep_column_names_and_align_by_name():
    yt = pd.DataFrame({"cat": [1, 0, 1, 1], "dog": [0, 1, 1, 0]})
    yp = pd.DataFrame({"dog": [0, 1, 0, 0], "cat": [1, 1, 1, 0]})
    ds = cvframe.from_predictions(yt, yp, [0, 0, 1, 1])
    assert ds["class"].values.tolist() == ["cat", "dog"]
    oracle = _oracle(yt.to_numpy(), yp[["cat", "dog"]].to_numpy(), [0, 0, 1, 1], None)
    for v in COUNTS:
        np.testing.assert_array_equal(ds[v].values, oracle[v])


def test_fold_ids_of_any_integer_width():
    big = np.array([2**63 + 7, 2**63 + 7, 2**64 - 1, 2**64 - 1], dtype=np.uint64)
    ds = cvframe.from_predictions([0, 1, 1, 0], [0, 1, 0, 0], big)
    assert ds.fold.values.tolist() == [2**63 + 7, 2**64 - 1] and ds.fold.dtype == np.uint64
    hashed = np.array([-(2**62), 2**62, 2**62 + 3, -(2**62)], dtype=np.int64)
    ds = cvframe.from_predictions([0, 1, 1, 0], [0, 1, 0, 0], hashed)
    assert ds.fold.values.tolist() == [-(2**62), 2**62, 2**62 + 3]
    assert ds.tp.values.ravel().tolist() == [0, 1, 0]
    near = np.array([2**62 - 1, 2**62 - 2, 2**62 - 1, 2**62 - 2], dtype=np.int64)  # small range
    ds = cvframe.from_predictions([0, 1, 1, 0], [0, 1, 0, 0], near)
    assert ds.fold.values.tolist() == [2**62 - 2, 2**62 - 1]
    assert ds.tp.values.ravel().tolist() == [1, 0]


# --- counts_from_frame ----------------------------------------------------------------------------


def _frame():
    return pd.DataFrame(
        {
            "fold": [0, 0, 1, 1] * 2,
            "model": ["a"] * 4 + ["b"] * 4,
            "data": ["x", "y"] * 4,
            "y_true": [0, 1, 1, 0] * 2,
            "y_pred": [0, 1, 0, 0, 1, 1, 1, 0],
        }
    )


def test_counts_dims_default_explicit_and_none():
    df = _frame()
    assert df.cv.counts().tp.dims == ("model", "fold", "class")
    ds = cvframe.build.counts_from_frame(df, dims=["model", "data"])
    assert ds.tp.dims == ("model", "data", "fold", "class")
    assert int(ds.tp.sum()) == 3
    assert cvframe.build.counts_from_frame(df, dims=[]).tp.dims == ("fold", "class")


def test_counts_attrs_pos_label_resolved_against_labels():
    df = pd.DataFrame(
        {
            "fold": [0, 0, 1, 1],
            "y_true": [True, False, True, True],
            "y_pred": [True, True, False, True],
        }
    )
    df.attrs = {"task": "binary", "pos_label": "True"}  # as read back from a file
    ds = df.cv.counts()
    assert ds["class"].values.tolist() == [True] and ds.tp.values.ravel().tolist() == [1, 1]
    s = pd.DataFrame(
        {
            "fold": [0, 0, 1, 1],
            "y_true": ["no", "yes", "yes", "no"],
            "y_pred": ["no", "yes", "no", "yes"],
        }
    )
    s.attrs = {"task": "binary", "pos_label": "no"}  # as cross_validate writes it
    ds = s.cv.counts()
    assert ds["class"].values.tolist() == ["no"] and ds.tp.values.ravel().tolist() == [1, 0]


# --- attrs and booleans round trip ----------------------------------------------------------------


def test_bool_pos_label_round_trips_as_bool(tmp_path):
    ds = cvframe.from_predictions(
        np.array([True, False, True]), np.array([True, True, False]), [0, 0, 1]
    )
    ds.to_netcdf(tmp_path / "b.nc")
    back = cvframe.open_dataset(tmp_path / "b.nc")
    pos = _labels.from_attr(back.attrs["pos_label"], back["class"].values)
    assert pos is True
    assert back["class"].dtype == bool


def test_bool_coordinates_round_trip_as_bool(tmp_path):
    st = xr.Dataset(
        {"rel_bias": (("stratified", "f"), [[0.1, 0.2], [0.3, 0.4]])},
        coords={"stratified": [True, False], "f": [0.5, 0.8]},
    )
    st["exact"] = ("stratified", [True, False])
    prepare_for_write(st).to_netcdf(tmp_path / "s.nc")
    back = cvframe.open_dataset(tmp_path / "s.nc")
    assert back.stratified.dtype == bool and back.stratified.values.tolist() == [True, False]
    assert back.exact.dtype == bool
    xr.testing.assert_identical(back, st)
    legacy = st.assign_coords(stratified=["yes", "no"])  # files of earlier releases
    legacy["exact"] = ("stratified", np.array(["yes", "no"], dtype=object))
    legacy.to_netcdf(tmp_path / "old.nc")
    old = cvframe.open_dataset(tmp_path / "old.nc")
    assert old.stratified.values.tolist() == [True, False] and old.exact.dtype == bool


# --- the catalogue of errors ----------------------------------------------------------------------

M2 = np.array([[5, 1], [2, 7]])
M3 = np.array([[5, 1, 0], [2, 7, 1], [0, 1, 3]])
ROWS = [
    (
        "pos_label not a class, from_confusion",
        lambda: cvframe.from_confusion(M2, ["a", "b"], pos_label="c"),
        ValueError,
        r"pos_label='c' is not among the labels",
    ),
    (
        "pos_label for a multiclass matrix",
        lambda: cvframe.from_confusion(M3, pos_label=1),
        ValueError,
        "pos_label=1 is for binary tasks",
    ),
    (
        "pos_label for multiclass counts",
        lambda: cvframe.from_counts(
            {"tp": [[1, 2]], "fp": [[0, 0]], "fn": [[0, 0]], "tn": [[5, 4]]}, pos_label=1
        ),
        ValueError,
        "pos_label=1 is for binary cubes",
    ),
    (
        "pos_label not the binary class, from_counts",
        lambda: cvframe.from_counts({"tp": [1], "fp": [0], "fn": [0], "tn": [5]}, pos_label=3),
        ValueError,
        r"pos_label=3 is not among the labels \[1\]",
    ),
    (
        "task binary with two classes",
        lambda: cvframe.from_counts(
            {"tp": [[1, 2]], "fp": [[0, 0]], "fn": [[0, 0]], "tn": [[5, 4]]}, task="binary"
        ),
        ValueError,
        "task='binary'",
    ),
    (
        "unknown task",
        lambda: cvframe.from_counts({"tp": [1], "fp": [0], "fn": [0], "tn": [5]}, task="ova"),
        ValueError,
        "task='ova'",
    ),
    (
        "labels=3, from_predictions",
        lambda: cvframe.from_predictions(Y, YP, FOLD, labels=3),
        TypeError,
        "labels=3",
    ),
    ("labels=3, from_confusion", lambda: cvframe.from_confusion(M2, 3), TypeError, "labels=3"),
    (
        "duplicated labels",
        lambda: cvframe.from_predictions(Y, YP, FOLD, labels=[0, 1, 1, 2]),
        ValueError,
        r"labels has duplicated entries \[1\]",
    ),
    (
        "labels length != matrix size",
        lambda: cvframe.from_confusion(M3, ["a", "b"]),
        ValueError,
        "labels has 2 entries",
    ),
    (
        "ragged confusion",
        lambda: cvframe.from_confusion([[1, 2], [3]]),
        ValueError,
        "matrices is ragged",
    ),
    (
        "ragged confusion stack",
        lambda: cvframe.from_confusion([M2, M3]),
        ValueError,
        "matrices is ragged",
    ),
    (
        "non-square confusion",
        lambda: cvframe.from_confusion(np.ones((2, 3), int)),
        CountsError,
        r"matrices must be square .*\(2, 3\)",
    ),
    (
        "non-square DataArray",
        lambda: cvframe.from_confusion(xr.DataArray(np.ones((2, 3), int), dims=("true", "pred"))),
        CountsError,
        "matrices must be square",
    ),
    (
        "negative confusion",
        lambda: cvframe.from_confusion(-M2),
        CountsError,
        "matrices has negative values",
    ),
    (
        "dims unknown column",
        lambda: cvframe.build.counts_from_frame(_frame(), dims=["modle"]),
        ValueError,
        r"dims=\['modle'\]: column\(s\) \['modle'\] not in the frame",
    ),
    (
        "dims unknown column is a KeyError too",
        lambda: cvframe.build.counts_from_frame(_frame(), dims=["modle"]),
        KeyError,
        "dims=",
    ),
    (
        "dims naming fold",
        lambda: cvframe.build.counts_from_frame(_frame(), dims=["fold"]),
        ValueError,
        r"dims=\['fold'\] names \['fold'\]",
    ),
    (
        "dims not a list",
        lambda: cvframe.build.counts_from_frame(_frame(), dims=3),
        TypeError,
        "dims=3",
    ),
    (
        "duplicated y_true column",
        lambda: pd.DataFrame(
            [[0, 1, 1, 0]], columns=["fold", "y_true", "y_true", "y_pred"]
        ).cv.counts(),
        ValueError,
        "y_true='y_true' names 2 columns",
    ),
    (
        "MultiIndex columns",
        lambda: cvframe.build.counts_from_frame(
            pd.DataFrame(
                [[0, 1, 1]],
                columns=pd.MultiIndex.from_tuples(
                    [("a", "fold"), ("a", "y_true"), ("a", "y_pred")]
                ),
            )
        ),
        ValueError,
        "MultiIndex columns",
    ),
    (
        "scalar y_true",
        lambda: cvframe.from_predictions(1, [1], [0]),
        TypeError,
        "y_true must be an array of labels",
    ),
    (
        "2-D y_true, 1-D y_pred",
        lambda: cvframe.from_predictions(np.zeros((3, 2), int), np.zeros(3, int), [0, 0, 0]),
        CountsError,
        r"multilabel y_true has shape \(3, 2\) but y_pred has \(3,\)",
    ),
    (
        "3-D labels",
        lambda: cvframe.from_predictions(np.zeros((2, 2, 2)), np.zeros((2, 2, 2)), [0, 0]),
        ValueError,
        "y_true has shape",
    ),
    (
        "2-D fold",
        lambda: cvframe.from_predictions(Y, YP, np.zeros((len(Y), 2))),
        ValueError,
        "fold has shape",
    ),
    ("fold is None", lambda: cvframe.from_predictions(Y, YP, None), TypeError, "fold is None"),
    (
        "NaN fold",
        lambda: cvframe.from_predictions([0, 1], [0, 1], [0.0, np.nan]),
        CountsError,
        r"fold has missing labels",
    ),
    (
        "multilabel pos_label",
        lambda: cvframe.from_predictions(
            np.eye(3, dtype=int), np.eye(3, dtype=int), [0, 0, 0], pos_label=1
        ),
        ValueError,
        "pos_label=1 is for binary",
    ),
    (
        "multilabel labels length",
        lambda: cvframe.from_predictions(
            np.eye(3, dtype=int), np.eye(3, dtype=int), [0, 0, 0], labels=["a", "b"]
        ),
        ValueError,
        "labels has 2 entries",
    ),
    (
        "multilabel DataFrames with other names",
        lambda: cvframe.from_predictions(
            pd.DataFrame({"a": [1, 0], "b": [0, 1]}),
            pd.DataFrame({"a": [1, 0], "c": [0, 1]}),
            [0, 0],
        ),
        CountsError,
        "multilabel y_pred has columns",
    ),
    (
        "non-indicator multilabel",
        lambda: cvframe.from_predictions(np.array([[0, 2], [1, 0]]), np.eye(2, dtype=int), [0, 0]),
        CountsError,
        r"multilabel y_true has non-indicator values \[2\]",
    ),
    (
        "NaN weight",
        lambda: cvframe.from_predictions(Y, YP, FOLD, sample_weight=[np.nan] * 8),
        CountsError,
        "sample_weight has 8 NaN",
    ),
    (
        "weights 2-D",
        lambda: cvframe.from_predictions(Y, YP, FOLD, sample_weight=np.ones((8, 2))),
        CountsError,
        r"sample_weight has shape \(8, 2\)",
    ),
    (
        "string weights",
        lambda: cvframe.from_predictions(Y, YP, FOLD, sample_weight=["a"] * 8),
        CountsError,
        "sample_weight must be numbers",
    ),
    (
        "bool pos_label against int labels",
        lambda: cvframe.from_predictions(["a", "b"], ["a", "b"], [0, 0], pos_label="c"),
        ValueError,
        r"pos_label='c' is not among the labels \['a', 'b'\]",
    ),
    (
        "pos_label for three classes",
        lambda: cvframe.from_predictions(Y, YP, FOLD, pos_label=1),
        ValueError,
        "pos_label=1 is for binary tasks, but there are 3 labels",
    ),
]


@pytest.mark.parametrize("what, call, exc, match", ROWS, ids=[r[0] for r in ROWS])
def test_catalogue(what, call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# --- accepted unusual inputs with exact values ----------------------------------------------------


def test_float_01_labels_are_binary_with_pos_1():
    ds = cvframe.from_predictions([0.0, 1.0, 1.0], [0.0, 1.0, 0.0], [0, 0, 0])
    assert ds.attrs["task"] == "binary" and ds["class"].values.tolist() == [1.0]
    assert (ds.tp.item(), ds.fn.item(), ds.tn.item()) == (1, 1, 1)


def test_only_positives_present_still_binary():
    ds = cvframe.from_predictions([1, 1], [1, 1], [0, 1])
    assert ds["class"].values.tolist() == [1] and ds.true.values.tolist() == [0, 1]


def test_pos_label_given_as_other_numeric_type():
    ds = cvframe.from_predictions([0, 1, 1], [0, 1, 0], [0, 0, 0], pos_label=np.float64(1.0))
    assert ds["class"].values.tolist() == [1] and ds.attrs["pos_label"] == 1


def test_from_confusion_pos_label_picks_the_class():
    ds = cvframe.from_confusion(M2, ["neg", "pos"], pos_label="neg")
    assert ds["class"].values.tolist() == ["neg"]
    assert (ds.tp.item(), ds.fp.item(), ds.fn.item(), ds.tn.item()) == (5, 2, 1, 7)
    assert ds.attrs["pos_label"] == "neg"


def test_nullable_integer_labels_without_na():
    y = pd.array([0, 1, 2, 1], dtype="Int64")
    ds = cvframe.from_predictions(y, pd.array([0, 1, 1, 1], dtype="Int64"), [0, 0, 1, 1])
    assert ds["class"].values.tolist() == [0, 1, 2]
    assert ds.tp.values.tolist() == [[1, 1, 0], [0, 1, 0]]


@pytest.mark.parametrize(
    "values",
    [["3", "4"], [True, False], np.array([3, "4"], dtype=object)],
    ids=["strings", "bools", "object-mixed"],
)
def test_from_counts_refuses_non_numeric_counts(values):
    frame = pd.DataFrame(
        {"fold": [0, 1], "class": [1, 1], "tp": values, "fp": [1, 0], "fn": [0, 2], "tn": [6, 4]}
    )
    with pytest.raises(cvframe.CountsError, match="tp"):
        cvframe.from_counts(frame)
