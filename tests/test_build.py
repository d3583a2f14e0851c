"""Building cubes: scikit-learn oracle fold by fold, label handling, the bad-input catalogue."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from sklearn.metrics import multilabel_confusion_matrix

import cvframe
from cvframe import CountsError


def _mcm_cube(y, yp, fold, labels):
    """The oracle: sklearn's multilabel_confusion_matrix, one fold at a time."""
    out = {"tp": [], "fp": [], "fn": [], "tn": []}
    for f in np.unique(fold):
        m = fold == f
        mcm = multilabel_confusion_matrix(y[m], yp[m], labels=labels)
        out["tn"].append(mcm[:, 0, 0])
        out["fp"].append(mcm[:, 0, 1])
        out["fn"].append(mcm[:, 1, 0])
        out["tp"].append(mcm[:, 1, 1])
    return {k: np.array(v) for k, v in out.items()}


@pytest.mark.parametrize("seed", range(12))
def test_multiclass_cube_equals_sklearn_fold_by_fold(seed):
    rng = np.random.default_rng(seed)
    c = int(rng.integers(3, 7))
    n = int(rng.integers(10, 500))
    labels = np.arange(c) * 3 + 1  # non-contiguous integer labels
    y = rng.choice(labels, n)
    yp = np.where(rng.random(n) < 0.6, y, rng.choice(labels, n))
    fold = rng.integers(0, int(rng.integers(1, 8)), n)
    ds = cvframe.from_predictions(y, yp, fold, labels=labels)
    oracle = _mcm_cube(y, yp, fold, labels)
    for v in ("tp", "fp", "fn", "tn"):
        np.testing.assert_array_equal(ds[v].values, oracle[v])
        assert ds[v].dtype == np.int64
    assert ds.attrs["task"] == "multiclass"
    # summing over folds = counts of the pooled predictions
    pooled = multilabel_confusion_matrix(y, yp, labels=labels)
    np.testing.assert_array_equal(ds.tp.sum("fold").values, pooled[:, 1, 1])
    assert int(ds.confusion.sum()) == n


@pytest.mark.parametrize("seed", range(6))
def test_multilabel_cube_equals_sklearn(seed):
    rng = np.random.default_rng(seed)
    n, c = int(rng.integers(5, 300)), int(rng.integers(2, 6))
    y = (rng.random((n, c)) < 0.3).astype(int)
    yp = np.where(rng.random((n, c)) < 0.8, y, 1 - y)
    fold = rng.integers(0, 4, n)
    ds = cvframe.from_predictions(y, yp, fold, labels=[f"l{i}" for i in range(c)])
    oracle = _mcm_cube(y, yp, fold, None)
    for v in ("tp", "fp", "fn", "tn"):
        np.testing.assert_array_equal(ds[v].values, oracle[v])
    assert ds.attrs["task"] == "multilabel"
    assert "confusion" not in ds


def test_binary_holds_only_the_positive_class():
    ds = cvframe.from_predictions([0, 1, 1, 0], [0, 1, 0, 0], fold=[0, 0, 1, 1])
    assert ds["class"].values.tolist() == [1]
    assert ds.attrs["task"] == "binary" and ds.attrs["pos_label"] == 1
    assert isinstance(ds.cv.f_tp_fp().item(), float)
    bools = cvframe.from_predictions(np.array([True, False]), np.array([True, True]), [0, 0])
    assert bools["class"].values.tolist() == [True]


def test_string_labels_same_as_numeric():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 200)
    yp = rng.integers(0, 3, 200)
    fold = rng.integers(0, 5, 200)
    names = np.array(["ant", "bee", "cat"])
    a = cvframe.from_predictions(y, yp, fold)
    b = cvframe.from_predictions(names[y], names[yp], fold)
    for v in ("tp", "fp", "fn", "tn"):
        np.testing.assert_array_equal(a[v].values, b[v].values)
    assert b["class"].values.tolist() == ["ant", "bee", "cat"]


def test_categorical_with_unused_category_keeps_order():
    cat = pd.CategoricalDtype(["z", "a", "m"])
    y = pd.Series(["a", "z", "a", "z"], dtype=cat)
    yp = pd.Series(["a", "a", "z", "z"], dtype=cat)
    ds = cvframe.from_predictions(y, yp, fold=[0, 0, 1, 1])
    assert ds["class"].values.tolist() == ["z", "a", "m"]
    assert ds.tp.sel({"class": "m"}).sum().item() == 0  # absent class kept with zeros


def test_declared_label_absent_from_data_is_kept():
    ds = cvframe.from_predictions([0, 1, 2], [0, 1, 1], [0, 0, 1], labels=[0, 1, 2, 3])
    assert ds.sizes["class"] == 4
    assert ds.tp.sel({"class": 3}).sum().item() == 0


def test_repeat_becomes_a_dim_and_frame_attrs_are_copied():
    df = pd.DataFrame(
        {
            "repeat": [0, 0, 1, 1],
            "fold": [0, 1, 0, 1],
            "y_true": [1, 0, 1, 0],
            "y_pred": [1, 1, 0, 0],
        }
    )
    df.attrs = {"stratified": "yes", "splitter": "StratifiedKFold(n_splits=2)"}
    ds = df.cv.counts()
    assert ds.tp.dims == ("repeat", "fold", "class")
    assert ds.attrs["stratified"] == "yes" and ds.attrs["splitter"].startswith("Stratified")
    assert ds.cv.f_tp_fp().dims == ("repeat", "class")


def test_frame_column_names_are_configurable():
    df = pd.DataFrame({"split": [0, 1], "label": ["x", "y"], "guess": ["x", "x"]})
    ds = df.cv.counts(y_true="label", y_pred="guess", fold="split", pos_label="x")
    assert ds.sizes["fold"] == 2
    df["model"] = ["a", "b"]
    assert "model" in df.cv.counts(y_true="label", y_pred="guess", fold="split", pos_label="x").dims


def test_sample_weight_gives_weighted_counts():
    ds = cvframe.from_predictions([1, 1, 0], [1, 0, 1], [0, 0, 0], sample_weight=[2.0, 1.0, 0.5])
    assert ds.attrs["weighted"] == "yes"
    assert ds.tp.item() == 2.0 and ds.fn.item() == 1.0 and ds.fp.item() == 0.5


def test_dask_inputs_build_a_lazy_cube_equal_to_numpy():
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(5)
    y, yp, fold = rng.integers(0, 4, 1000), rng.integers(0, 4, 1000), rng.integers(0, 5, 1000)
    eager = cvframe.from_predictions(y, yp, fold)
    lazy = cvframe.from_predictions(
        da.from_array(y, chunks=300), da.from_array(yp, chunks=300), da.from_array(fold, chunks=300)
    )
    assert cvframe.schema.is_lazy(lazy)
    f = lazy.cv.f_tp_fp(zero_division=0)
    assert f.chunks is not None
    xr.testing.assert_identical(f.compute(), eager.cv.f_tp_fp(zero_division=0))
    assert lazy.tp.compute().dtype == np.int64


def test_from_counts_tidy_frame_with_extra_dims_and_multiindex():
    rows = [
        dict(model=m, repeat=r, fold=f, **{"class": c}, tp=1, fp=2, fn=3, tn=4)
        for m in ("lr", "nb")
        for r in (0, 1)
        for f in (0, 1, 2)
        for c in ("a", "b")
    ]
    df = pd.DataFrame(rows)
    ds = cvframe.from_counts(df)
    assert ds.tp.dims == ("repeat", "model", "fold", "class")
    assert ds.attrs["task"] == "multilabel"
    ds2 = cvframe.from_counts(df.set_index(["repeat", "fold"]))
    assert ds2.tp.dims == ds.tp.dims


def test_from_confusion_shapes():
    m = np.array([[5, 1], [2, 7]])
    b = cvframe.from_confusion(m)
    assert b.attrs["task"] == "binary" and b["class"].values.tolist() == [1]
    assert (b.tp.item(), b.fp.item(), b.fn.item(), b.tn.item()) == (7, 1, 2, 5)
    ova = cvframe.from_confusion(m, ["neg", "pos"])
    assert ova.sizes["class"] == 2
    rf = cvframe.from_confusion(np.stack([np.stack([m, m])] * 3))
    assert rf.tp.dims == ("repeat", "fold", "class") and rf.sizes["repeat"] == 3
    arr = xr.DataArray(
        np.stack([m, 2 * m]), dims=("model", "true", "pred"), coords={"model": ["a", "b"]}
    )
    assert cvframe.from_confusion(arr).tp.dims == ("model", "fold", "class")


# --- the catalogue of bad inputs ---------------------------------------------------------------


def _cube():
    return cvframe.datasets.table1()


BAD_INPUTS = [
    # (description, callable, exception, message pattern naming the argument)
    (
        "lengths differ",
        lambda: cvframe.from_predictions([0, 1], [0, 1, 1], [0, 0]),
        CountsError,
        r"y_true has 2, y_pred has 3, fold has 2",
    ),
    (
        "NaN label",
        lambda: cvframe.from_predictions([0.0, np.nan], [0.0, 1.0], [0, 0]),
        CountsError,
        r"y_true has missing labels \[nan\]",
    ),
    (
        "None label",
        lambda: cvframe.from_predictions(["a", None, "b"], ["a", "b", "b"], [0, 0, 0]),
        CountsError,
        "y_true has missing labels",
    ),
    (
        "pd.NA label",
        lambda: cvframe.from_predictions(
            pd.array([1, pd.NA, 2], dtype="Int64"), [1, 2, 2], [0, 0, 0]
        ),
        CountsError,
        "y_true has missing labels",
    ),
    (
        "mixed str and int",
        lambda: cvframe.from_predictions(
            np.array(["a", 1, "b"], dtype=object), ["a", "b", "b"], [0, 0, 0]
        ),
        CountsError,
        "mixes string labels",
    ),
    (
        "pred outside labels",
        lambda: cvframe.from_predictions([0, 1, 2], [0, 1, 5], [0, 0, 0], labels=[0, 1, 2]),
        CountsError,
        r"y_pred has labels \[5\] that are not among labels",
    ),
    (
        "pos_label not a label",
        lambda: cvframe.from_predictions([0, 1], [0, 1], [0, 0], pos_label=7),
        ValueError,
        r"pos_label=7 is not among the labels",
    ),
    (
        "binary strings without pos_label",
        lambda: cvframe.from_predictions(["spam", "ham"], ["ham", "ham"], [0, 0]),
        ValueError,
        "pass pos_label=",
    ),
    (
        "one class only",
        lambda: cvframe.from_predictions(["a", "a"], ["a", "a"], [0, 1]),
        CountsError,
        "only one class",
    ),
    ("empty input", lambda: cvframe.from_predictions([], [], []), CountsError, "empty"),
    (
        "bad weights",
        lambda: cvframe.from_predictions([0, 1], [0, 1], [0, 0], sample_weight=[1.0, -2.0]),
        CountsError,
        "sample_weight has 1 NaN, infinite or negative",
    ),
    (
        "weights length",
        lambda: cvframe.from_predictions([0, 1], [0, 1], [0, 0], sample_weight=[1.0]),
        CountsError,
        r"sample_weight has shape \(1,\); expected \(2,\)",
    ),
    (
        "missing frame column",
        lambda: pd.DataFrame({"fold": [0], "y_true": [1]}).cv.counts(),
        KeyError,
        r"y_pred='y_pred'",
    ),
    (
        "negative counts",
        lambda: cvframe.from_counts({"tp": [1, -1], "fp": [0, 0], "fn": [0, 0], "tn": [5, 5]}),
        CountsError,
        r"tp has negative values \[-1\]",
    ),
    (
        "fractional counts",
        lambda: cvframe.from_counts({"tp": [1.5], "fp": [0], "fn": [0], "tn": [5]}),
        CountsError,
        r"tp has fractional values \[1.5\]",
    ),
    (
        "NaN counts",
        lambda: cvframe.from_counts({"tp": [np.nan], "fp": [0], "fn": [0], "tn": [5]}),
        CountsError,
        "tp has NaN or infinite",
    ),
    (
        "string counts",
        lambda: cvframe.from_counts({"tp": ["1"], "fp": [0], "fn": [0], "tn": [5]}),
        CountsError,
        "tp has dtype",
    ),
    (
        "missing count column",
        lambda: cvframe.from_counts(
            pd.DataFrame({"fold": [0], "class": [1], "tp": [1], "fp": [0], "fn": [0]})
        ),
        CountsError,
        r"lacks column\(s\) \['tn'\]",
    ),
    (
        "duplicated rows",
        lambda: cvframe.from_counts(
            pd.DataFrame(
                {
                    "fold": [0, 0],
                    "class": [1, 1],
                    "tp": [1, 1],
                    "fp": [0, 0],
                    "fn": [0, 0],
                    "tn": [5, 5],
                }
            )
        ),
        CountsError,
        "duplicated rows",
    ),
    (
        "missing combination",
        lambda: cvframe.from_counts(
            pd.DataFrame(
                {
                    "fold": [0, 1],
                    "class": ["a", "b"],
                    "tp": [1, 1],
                    "fp": [0, 0],
                    "fn": [0, 0],
                    "tn": [5, 5],
                }
            )
        ),
        CountsError,
        "have no row",
    ),
    (
        "inconsistent totals",
        lambda: cvframe.from_counts(
            {"tp": [[1, 2]], "fp": [[0, 0]], "fn": [[0, 0]], "tn": [[5, 9]]}
        ),
        CountsError,
        "differs across classes of one fold at fold=\\[0\\]",
    ),
    (
        "sum fp != sum fn single-label",
        lambda: cvframe.from_counts(
            {"tp": [[1, 2]], "fp": [[1, 0]], "fn": [[0, 0]], "tn": [[5, 5]]}, task="multiclass"
        ),
        CountsError,
        "sum of fp over classes differs from sum of fn",
    ),
    (
        "non-square confusion",
        lambda: cvframe.from_confusion(np.ones((2, 3), int)),
        CountsError,
        "square",
    ),
    (
        "unknown dim",
        lambda: _cube().cv.f_tp_fp(dim="folds"),
        ValueError,
        r"(?i)dimension\(s\) 'folds' do not exist. Expected one of",
    ),
    ("class as dim", lambda: _cube().cv.f_avg(dim="class"), ValueError, "macro"),
    ("negative beta", lambda: _cube().cv.f_tp_fp(beta=-1), ValueError, "beta=-1"),
    ("NaN beta", lambda: _cube().cv.f_avg(beta=float("nan")), ValueError, "beta=nan"),
    ("string beta", lambda: _cube().cv.f(beta="2"), TypeError, "beta='2'"),
    (
        "unknown zero_division",
        lambda: _cube().cv.f_tp_fp(zero_division="skip"),
        ValueError,
        r"zero_division='skip' is not valid; expected one of \['warn', 0.0, 1.0, nan\]",
    ),
    (
        "zero_division 0.5",
        lambda: _cube().cv.precision(zero_division=0.5),
        ValueError,
        "zero_division=0.5",
    ),
    (
        "unknown how",
        lambda: _cube().cv.accuracy(how="mean"),
        ValueError,
        r"how='mean' is not valid; expected one of \[None, 'pooled', 'avg'\]",
    ),
    (
        "skip_undefined not bool",
        lambda: _cube().cv.f_avg(skip_undefined="yes"),
        TypeError,
        "skip_undefined='yes'",
    ),
    (
        "missing count variable",
        lambda: _cube().drop_vars("tn").cv.f_tp_fp(),
        CountsError,
        r"missing count variable\(s\) \['tn'\]",
    ),
    (
        "no fold dim",
        lambda: _cube().rename({"fold": "split"}).cv.f_tp_fp(),
        CountsError,
        "has no 'fold' dimension",
    ),
    ("not a Dataset", lambda: cvframe.validate(_cube().tp), TypeError, "xarray.Dataset"),
]


@pytest.mark.parametrize("what, call, exc, match", BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_input_raises_clear_error(what, call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_validate_catches_duplicated_labels_and_zero_folds():
    ds = _cube()
    dup = ds.assign_coords(fold=[0, 0, 1, 2])
    with pytest.raises(CountsError, match=r"coordinate 'fold' has duplicated labels \[0\]"):
        cvframe.validate(dup)
    with pytest.raises(CountsError, match="zero 'fold' entries"):
        cvframe.validate(ds.isel(fold=[]))


def test_validate_rejects_mismatched_coordinates_instead_of_inner_join():
    a = cvframe.datasets.slides_confusion()
    b = a.copy()
    b["fp"] = b["fp"].assign_coords({"class": ["A", "B", "D"]})
    with pytest.raises(CountsError):
        cvframe.validate(b)


def test_integral_floats_and_unsigned_counts_are_accepted():
    ds = cvframe.from_counts(
        {
            "tp": np.array([3.0, 4.0]),
            "fp": np.array([0, 1], np.uint8),
            "fn": [0, 0],
            "tn": [373, 371],
        }
    )
    assert ds.tp.dtype == np.int64 and ds.fp.dtype == np.int64


def test_large_int32_counts_do_not_overflow():
    big = np.array([2**31 - 1, 2**31 - 1], dtype=np.int32)
    ds = cvframe.from_counts({"tp": big, "fp": big, "fn": big, "tn": big})
    assert ds.cv.f_tp_fp().item() == pytest.approx(0.5)
    huge = np.array([2**32, 3 * 2**32], dtype=np.int64)
    ds = cvframe.from_counts({"tp": huge, "fp": huge, "fn": huge, "tn": huge})
    assert ds.cv.accuracy(how="pooled").item() == pytest.approx(0.5)


@pytest.mark.parametrize("n_folds, weighted", [(5, False), (5, True), (3000, False)])
def test_fast_blocked_path_equals_general_path_across_blocks(n_folds, weighted):
    """Integer inputs take the blocked fast path; object inputs the factorize path."""
    from cvframe.build._kernel import BLOCK as _BLOCK

    rng = np.random.default_rng(42)
    n = 3 * _BLOCK + 17  # several blocks and a ragged last one
    y = rng.integers(-2, 2, n)  # negative labels: a non-zero offset
    yp = np.where(rng.random(n) < 0.6, y, rng.integers(-2, 2, n))
    fold = rng.integers(0, n_folds, n) + 7  # many folds: the index goes to memory
    w = rng.random(n) if weighted else None
    fast = cvframe.from_predictions(y, yp, fold, sample_weight=w)
    slow = cvframe.from_predictions(
        y.astype(object), yp.astype(object), fold.astype(object), sample_weight=w
    )
    for v in ("tp", "fp", "fn", "tn", "confusion"):
        np.testing.assert_allclose(fast[v].values, slow[v].values)
        assert fast[v].dtype == slow[v].dtype
    assert fast["class"].values.tolist() == [-2, -1, 0, 1]


# --- integer groups are counted, not hashed ------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_integer_folds_with_categorical_labels_equal_the_oracle(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(50, 2000))
    dtype = [np.int8, np.int16, np.int64, np.uint8, np.uint32, np.int32][seed]
    lo = -7 if np.dtype(dtype).kind == "i" else 0
    fold = (rng.choice([0, 3, 4, 9], n) + lo).astype(dtype)  # gaps and negative ids
    y, yp = rng.integers(0, 3, n), rng.integers(0, 3, n)
    names = np.array(["a", "b", "c"], dtype=object)
    cat = cvframe.from_predictions(
        pd.Categorical(names[y], categories=names),
        pd.Categorical(names[yp], categories=names),
        fold,
    )
    oracle = _mcm_cube(y, yp, fold, [0, 1, 2])
    assert cat.fold.values.tolist() == sorted(set(fold.tolist()))
    for v in ("tp", "fp", "fn", "tn"):
        np.testing.assert_array_equal(cat[v].values, oracle[v])


def test_range_codes_match_hashing():
    from cvframe._core import labels as _labels

    rng = np.random.default_rng(0)
    for dtype in (np.int8, np.int64, np.uint16, np.bool_):
        a = rng.integers(0, 2 if dtype is np.bool_ else 100, 5000).astype(dtype)
        if np.dtype(dtype).kind == "i":
            a[::7] = -5
        got = _labels.range_codes(a)
        codes, uni = _labels.group_codes(a, "fold")
        if dtype is np.bool_:  # booleans are labels, not integer ids: hashed
            assert got is None
            continue
        assert got is not None
        np.testing.assert_array_equal(got[1], np.asarray(uni, dtype=got[1].dtype))
        np.testing.assert_array_equal(got[0], codes)
    wide = np.array([0, 10**12], dtype=np.int64)
    assert _labels.range_codes(wide) is None  # a sparse range is hashed instead


# --- bad inputs: per-row columns, dims, confusion axes -----------------------------------------


def _table(**extra):
    df = pd.DataFrame(
        {
            "fold": [0, 0, 1, 1],
            "class": ["a", "b", "a", "b"],
            "tp": [3, 4, 2, 5],
            "fp": [4, 3, 5, 2],
            "fn": [4, 3, 5, 2],
            "tn": [4, 5, 2, 5],
        }
    )
    return df.assign(**extra)


def test_from_counts_names_an_extra_numeric_column():
    df = _table(support=[7, 7, 7, 7])
    with pytest.raises(
        CountsError, match=r"column\(s\) \['support'\].*df.drop\(columns=\['support'\]\)"
    ):
        cvframe.from_counts(df)
    with pytest.raises(CountsError, match=r"dims=\['support'\]"):
        cvframe.from_counts(df)
    # declared, it is a dim; dropped, the cube is the one without it
    assert cvframe.from_counts(df, dims=["support"]).sizes["support"] == 1
    plain = cvframe.from_counts(df.drop(columns="support"))
    assert plain.tp.values.tolist() == [[3, 4], [2, 5]]


def test_from_counts_keeps_label_and_named_dims():
    df = pd.concat([_table(model="m1"), _table(model="m2")])
    assert cvframe.from_counts(df).sizes["model"] == 2
    rep = pd.concat([_table(repeat=0), _table(repeat=1)])
    assert list(cvframe.from_counts(rep).tp.dims) == ["repeat", "fold", "class"]


def test_from_counts_dims_argument_is_checked():
    df = _table(seed=1)
    assert cvframe.from_counts(df, dims="seed").sizes["seed"] == 1
    with pytest.raises(KeyError, match=r"dims='sede' is not a column of the counts table"):
        cvframe.from_counts(df, dims=["sede"])
    with pytest.raises(TypeError, match=r"dims=3 must be a list of column names"):
        cvframe.from_counts(df, dims=3)
    with pytest.raises(ValueError, match=r"other columns than fold, class"):
        cvframe.from_counts(df, dims=["fold"])
    with pytest.raises(CountsError, match=r"\['other'\].*add it to dims=\['seed', 'other'\]"):
        cvframe.from_counts(df.assign(other="x"), dims=["seed"])
    with pytest.raises(TypeError, match=r"a mapping of arrays"):
        cvframe.from_counts({"tp": [1], "fp": [0], "fn": [0], "tn": [1]}, dims=["x"])


def test_from_confusion_aligns_pred_labels_to_true_labels():
    m = np.array([[5, 1], [2, 7]])
    named = xr.DataArray(m, dims=("true", "pred"), coords={"true": ["a", "b"], "pred": ["b", "a"]})
    ds = cvframe.from_confusion(named)
    assert ds.confusion.values[0].tolist() == [[1, 5], [7, 2]]
    assert ds.tp.values[0].tolist() == [1, 2]
    with pytest.raises(CountsError, match=r"true labels \['a', 'b'\] but pred labels"):
        cvframe.from_confusion(named.assign_coords(pred=["a", "c"]))


def test_validate_refuses_a_confusion_broadcast_over_class():
    ds = cvframe.from_predictions([0, 1, 1, 0], [0, 1, 0, 0], [0, 0, 1, 1])
    bad = ds.astype(float).where(ds.tp != 1)  # broadcasts confusion over class
    with pytest.raises(CountsError, match=r"confusion has dims .* including 'class'"):
        cvframe.validate(bad)


def test_lazy_partial_nan_error_says_where_to_look():
    ds = cvframe.from_predictions([0, 1, 1, 0], [0, 1, 0, 0], [0, 0, 1, 1]).astype(float)
    ds["tp"] = ds.tp.where(ds.tp != 1)
    with pytest.raises(CountsError, match=r"at 1 cell\(s\) of one block of the lazy cube"):
        cvframe.validate(ds.chunk()).compute()


def test_frame_columns_named_twice_are_refused_by_name():
    df = pd.DataFrame(
        {"fold": [0, 0, 1, 1], "y_true": [0, 1, 1, 0], "y_pred": [0, 1, 0, 0], "model": "a"}
    )
    with pytest.raises(ValueError, match=r"dims='model' names 2 columns"):
        pd.concat([df, df[["model"]]], axis=1).cv.counts()
    rep = df.assign(repeat=0)
    with pytest.raises(ValueError, match=r"repeat='repeat' names 2 columns"):
        pd.concat([rep, rep[["repeat"]]], axis=1).cv.counts()
    with pytest.raises(KeyError, match=r"repeat='rep' is not a column"):
        df.cv.counts(repeat="rep")
