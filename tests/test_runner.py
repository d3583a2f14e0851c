"""cvframe.cross_validate: scikit-learn as the oracle, splitter mapping, invariants, bad inputs."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import model_selection as ms
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.linear_model import LogisticRegression, RidgeClassifier
from sklearn.metrics import f1_score
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

import cvframe
from cvframe.runner import cross_validate, to_counts
from cvframe.splits import Bootstrap


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    """Tiny fits: BLAS threads only add contention on the shared 2-core machine."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield


@pytest.fixture(scope="module")
def cancer():
    return load_breast_cancer(return_X_y=True)


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


def logreg():
    return make_pipeline(StandardScaler(), LogisticRegression())


# --- scikit-learn as the oracle -----------------------------------------------------------


@pytest.mark.parametrize("cv", [ms.StratifiedKFold(5, shuffle=True, random_state=3), 10])
def test_f_avg_is_cross_val_score_f1_and_f_tp_fp_is_pooled_f1(cancer, cv):
    X, y = cancer
    est = logreg()
    ds = cross_validate(est, X, y, cv=cv).cv.counts()
    per_fold = ms.cross_val_score(est, X, y, cv=cv, scoring="f1")
    pooled = f1_score(y, ms.cross_val_predict(est, X, y, cv=cv))
    assert abs(ds.cv.f_avg().item() - per_fold.mean()) < 1e-12
    assert abs(ds.cv.f_tp_fp().item() - pooled) < 1e-12
    # the per-fold F of the cube is scikit-learn's per-fold F1, fold by fold
    np.testing.assert_allclose(ds.cv.f().values.ravel(), per_fold, rtol=0, atol=1e-12)


def test_predictions_and_scores_equal_cross_val_predict(iris):
    X, y = iris
    est = LogisticRegression(max_iter=1000)
    cv = ms.StratifiedKFold(5, shuffle=True, random_state=0)
    frame = cross_validate(est, X, y, cv=cv).sort_values("sample")
    np.testing.assert_array_equal(frame["y_pred"], ms.cross_val_predict(est, X, y, cv=cv))
    proba = ms.cross_val_predict(est, X, y, cv=cv, method="predict_proba")
    got = frame[["score_0", "score_1", "score_2"]].to_numpy()
    np.testing.assert_allclose(got, proba, rtol=0, atol=1e-12)
    assert frame.attrs["scores"] == "predict_proba"


def test_binary_score_is_positive_class_probability(cancer):
    X, y = cancer
    cv = ms.StratifiedKFold(4, shuffle=True, random_state=1)
    frame = cross_validate(GaussianNB(), X, y, cv=cv).sort_values("sample")
    proba = ms.cross_val_predict(GaussianNB(), X, y, cv=cv, method="predict_proba")[:, 1]
    np.testing.assert_allclose(frame["score"], proba, rtol=0, atol=1e-12)
    assert frame.attrs["pos_label"] == 1


def test_decision_function_when_no_predict_proba(cancer, iris):
    X, y = cancer
    cv = ms.KFold(3, shuffle=True, random_state=0)
    est = make_pipeline(StandardScaler(), RidgeClassifier())
    frame = cross_validate(est, X, y, cv=cv).sort_values("sample")
    dec = ms.cross_val_predict(est, X, y, cv=cv, method="decision_function")
    np.testing.assert_allclose(frame["score"], dec, rtol=0, atol=1e-10)
    assert frame.attrs["scores"] == "decision_function"
    Xi, yi = iris
    frame = cross_validate(est, Xi, yi, cv=cv).sort_values("sample")
    dec = ms.cross_val_predict(est, Xi, yi, cv=cv, method="decision_function")
    np.testing.assert_allclose(frame[["score_0", "score_1", "score_2"]], dec, atol=1e-10)


def test_binary_decision_function_follows_pos_label(cancer):
    X, y = cancer
    labels = np.where(y == 1, "benign", "malignant")
    est = make_pipeline(StandardScaler(), RidgeClassifier())
    cv = ms.KFold(3)
    ben = cross_validate(est, X, labels, cv=cv)
    mal = cross_validate(est, X, labels, cv=cv, pos_label="benign")
    assert ben.attrs["pos_label"] == "malignant"  # the last label in sorted order
    np.testing.assert_allclose(ben["score"], -mal["score"])
    with pytest.raises(ValueError, match="pos_label='x' is not (one of|among) the labels"):
        cross_validate(est, X, labels, cv=cv, pos_label="x")


def test_scores_off_and_methods(iris):
    X, y = iris
    frame = cross_validate(GaussianNB(), X, y, cv=3, scores=False)
    assert list(frame.columns) == [
        "repeat",
        "fold",
        "sample",
        "y_true",
        "y_pred",
        "train_duplicate",
    ]
    assert frame.attrs["scores"] == "none"
    frame = cross_validate(KNeighborsClassifier(3), X, y, cv=3, scores=None)
    assert "score_0" not in frame
    with pytest.raises(ValueError, match="scores='decision_function' but estimator=GaussianNB"):
        cross_validate(GaussianNB(), X, y, cv=3, scores="decision_function")
    with pytest.raises(ValueError, match="scores='proba' is not valid"):
        cross_validate(GaussianNB(), X, y, cv=3, scores="proba")


def test_counts_carry_stratified_and_splitter(cancer):
    X, y = cancer
    frame = cross_validate(GaussianNB(), X, y, cv=ms.KFold(4))
    ds = frame.cv.counts()
    assert ds.attrs["stratified"] == "no"
    assert ds.attrs["splitter"] == "KFold(n_splits=4, random_state=None, shuffle=False)"
    assert cross_validate(GaussianNB(), X, y, cv=4).cv.counts().attrs["stratified"] == "yes"
    pairs = list(ms.KFold(3).split(X))
    frame = cross_validate(GaussianNB(), X, y, cv=pairs)
    assert frame.attrs["stratified"] == "unknown"
    assert frame.attrs["splitter"] == "list of 3 (train, test) pairs"


# --- splitters: repeat/fold mapping, nothing merged ---------------------------------------


def test_repeated_cv_every_sample_once_per_repeat_and_supports(iris):
    X, y = iris
    frame = cross_validate(GaussianNB(), X, y, cv=5, repeats=3, random_state=0)
    per = frame.groupby("repeat")["sample"]
    assert (per.size() == len(y)).all()
    assert per.apply(lambda s: sorted(s) == list(range(len(y)))).all()
    assert frame.attrs["test_sets"] == "partition"
    assert frame.attrs["splitter"].startswith("RepeatedStratifiedKFold(")
    ds = frame.cv.counts()
    assert dict(ds["tp"].sizes) == {"repeat": 3, "fold": 5, "class": 3}
    support = (ds.tp + ds.fn).sum("fold")  # per repeat and class
    expected = np.bincount(y)
    np.testing.assert_array_equal(support.values, np.tile(expected, (3, 1)))
    n = (ds.tp + ds.fp + ds.fn + ds.tn).isel({"class": 0}).sum("fold")
    assert (n == len(y)).all()
    # stratified: every fold holds 10 of each class
    assert ((ds.tp + ds.fn) == 10).all()


def test_seeds_reproduce_and_differ(iris):
    X, y = iris
    a = cross_validate(GaussianNB(), X, y, cv=5, repeats=2, random_state=7)
    b = cross_validate(GaussianNB(), X, y, cv=5, repeats=2, random_state=7)
    c = cross_validate(GaussianNB(), X, y, cv=5, repeats=2, random_state=8)
    pd.testing.assert_frame_equal(a, b)
    assert not a["sample"].equals(c["sample"])
    d = cross_validate(GaussianNB(), X, y, cv=5, random_state=7)  # seeded shuffle, 1 repeat
    assert d.attrs["splitter"] == "StratifiedKFold(n_splits=5, random_state=7, shuffle=True)"


def test_repeated_splitter_maps_split_to_repeat_and_fold(iris):
    X, y = iris
    cv = ms.RepeatedKFold(n_splits=4, n_repeats=3, random_state=0)
    frame = cross_validate(GaussianNB(), X, y, cv=cv, scores=False)
    for i, (_, test) in enumerate(cv.split(X, y)):
        rows = frame[(frame["repeat"] == i // 4) & (frame["fold"] == i % 4)]
        np.testing.assert_array_equal(rows["sample"], test)
    assert frame.attrs["stratified"] == "no"


@pytest.mark.parametrize(
    "cv, n_folds, test_sets",
    [
        (ms.ShuffleSplit(4, test_size=0.5, random_state=0), 4, "overlapping"),
        (ms.StratifiedShuffleSplit(3, test_size=0.3, random_state=0), 3, "overlapping"),
        (ms.ShuffleSplit(1, test_size=0.25, random_state=0), 1, "disjoint"),
        (ms.LeaveOneOut(), 150, "partition"),
        (Bootstrap(6, random_state=0), 6, "overlapping"),
    ],
)
def test_each_split_is_its_own_fold(iris, cv, n_folds, test_sets):
    X, y = iris
    frame = cross_validate(GaussianNB(), X, y, cv=cv, scores=False)
    assert (frame["repeat"] == 0).all()
    assert sorted(frame["fold"].unique()) == list(range(n_folds))
    for i, (_, test) in enumerate(cv.split(X, y)):
        np.testing.assert_array_equal(frame.loc[frame["fold"] == i, "sample"], test)
    assert frame.attrs["test_sets"] == test_sets


def test_leave_p_out_counts_each_pair(iris):
    X, y = iris
    idx = np.r_[0:4, 50:54]  # 8 samples, two classes
    frame = cross_validate(GaussianNB(), X[idx], y[idx], cv=ms.LeavePOut(2))
    assert frame["fold"].nunique() == 28 and len(frame) == 56
    ds = frame.cv.counts()
    # each sample is tested in 7 of the 28 pairs; pooled counts say so
    assert int((ds.tp + ds.fn).sum()) == 4 * 7
    assert frame.attrs["test_sets"] == "overlapping"


def test_group_kfold(iris):
    X, y = iris
    groups = np.arange(len(y)) % 10
    frame = cross_validate(GaussianNB(), X, y, cv=ms.GroupKFold(5), groups=groups)
    for _, part in frame.groupby("fold"):
        held = set(groups[part["sample"]])
        rest = set(groups[np.setdiff1d(np.arange(len(y)), part["sample"])])
        assert not held & rest
    assert frame.attrs["stratified"] == "no"


def test_return_train_records_resubstitution(iris):
    X, y = iris
    cv = ms.KFold(3, shuffle=True, random_state=0)
    frame = cross_validate(GaussianNB(), X, y, cv=cv, return_train=True)
    assert list(frame.columns[:4]) == ["subset", "repeat", "fold", "sample"]
    for i, (train, _test) in enumerate(cv.split(X)):
        rows = frame[(frame["fold"] == i) & (frame["subset"] == "train")]
        np.testing.assert_array_equal(rows["sample"], train)
        est = GaussianNB().fit(X[train], y[train])
        np.testing.assert_array_equal(rows["y_pred"], est.predict(X[train]))
    ds = frame.cv.counts()
    assert [str(s) for s in ds["subset"].values] == ["test", "train"]
    assert int((ds.tp + ds.fn).sel(subset="train").sum()) == 2 * len(y)


def test_return_train_bootstrap_keeps_duplicates(iris):
    X, y = iris
    bs = Bootstrap(3, random_state=1)
    frame = cross_validate(
        DecisionTreeClassifier(random_state=0), X, y, cv=bs, return_train=True, scores=False
    )
    for i, (train, _test) in enumerate(bs.split(X)):
        rows = frame[(frame["fold"] == i) & (frame["subset"] == "train")]
        assert len(rows) == len(y)
        np.testing.assert_array_equal(rows["sample"], train)
        assert rows["sample"].duplicated().any()


# --- data types -----------------------------------------------------------------------------


def test_pandas_inputs_match_numpy(cancer):
    X, y = cancer
    idx = pd.Index(np.arange(len(y)) * 3 + 100)  # a non-default index must not matter
    Xdf = pd.DataFrame(X, index=idx, columns=[f"f{i}" for i in range(X.shape[1])])
    ys = pd.Series(y, index=idx)
    cv = ms.StratifiedKFold(3, shuffle=True, random_state=0)
    a = cross_validate(GaussianNB(), X, y, cv=cv)
    b = cross_validate(GaussianNB(), Xdf, ys, cv=cv)
    pd.testing.assert_frame_equal(a, b)


def test_string_and_categorical_labels(iris):
    X, y = iris
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    frame = cross_validate(GaussianNB(), X, names, cv=3)
    assert [c for c in frame.columns if c.startswith("score_")] == [
        "score_setosa",
        "score_versicolor",
        "score_virginica",
    ]
    assert set(frame["y_pred"]) <= set(names)
    cat = pd.Categorical(names, categories=["virginica", "setosa", "versicolor", "unused"])
    frame = cross_validate(GaussianNB(), X, pd.Series(cat), cv=3)
    assert isinstance(frame["y_true"].dtype, pd.CategoricalDtype)
    assert isinstance(frame["y_pred"].dtype, pd.CategoricalDtype)
    assert list(frame["y_pred"].cat.categories) == list(cat.categories)
    # the category order is the class order; a class never seen has probability 0
    assert [c for c in frame.columns if c.startswith("score_")] == [
        "score_virginica",
        "score_setosa",
        "score_versicolor",
        "score_unused",
    ]
    assert (frame["score_unused"] == 0).all()
    ds = frame.cv.counts()
    assert list(ds["class"].values) == list(cat.categories)


def test_multilabel(iris):
    X, _ = iris
    rng = np.random.default_rng(0)
    Y = (X[:, :3] > np.median(X[:, :3], axis=0)).astype(int)
    Y[rng.random(Y.shape) < 0.1] ^= 1
    Ydf = pd.DataFrame(Y, columns=["a", "b", "c"])
    cv = ms.KFold(3, shuffle=True, random_state=0)
    est = DecisionTreeClassifier(max_depth=3, random_state=0)
    frame = cross_validate(est, X, Ydf, cv=cv, stratified=False, return_train=True)
    assert [c for c in frame.columns if c.startswith("y_")] == [
        "y_true_a",
        "y_true_b",
        "y_true_c",
        "y_pred_a",
        "y_pred_b",
        "y_pred_c",
    ]
    assert {"score_a", "score_b", "score_c"} <= set(frame.columns)
    assert frame.attrs["task"] == "multilabel"
    pred = ms.cross_val_predict(est, X, Y, cv=cv)
    test = frame[frame["subset"] == "test"].sort_values("sample")
    np.testing.assert_array_equal(test[["y_pred_a", "y_pred_b", "y_pred_c"]], pred)
    ds = to_counts(frame)
    assert ds.attrs["task"] == "multilabel" and ds.attrs["stratified"] == "no"
    assert list(ds["class"].values) == ["a", "b", "c"]
    f = ds.sel(subset="test").cv.f_tp_fp().squeeze("repeat").values
    np.testing.assert_allclose(f, f1_score(Y, pred, average=None), atol=1e-12)
    # numpy indicator: labels 0..L-1
    frame = cross_validate(est, X, Y, cv=cv, stratified=False)
    assert list(to_counts(frame)["class"].values) == [0, 1, 2]
    # stratified=True (the default) on multilabel y: iterative stratification of the labels
    strat = cross_validate(est, X, Y, cv=3)
    assert strat.attrs["stratified"] == "yes"
    assert "MultilabelStratifiedKFold" in strat.attrs["splitter"]


def test_to_counts_single_label_equals_accessor(iris):
    X, y = iris
    frame = cross_validate(GaussianNB(), X, y, cv=3, return_train=True)
    a, b = to_counts(frame), frame.cv.counts()
    assert a.identical(b)


# --- parallel and progress ------------------------------------------------------------------


def test_n_jobs_two_equals_one(cancer):
    X, y = cancer
    cv = ms.StratifiedKFold(4, shuffle=True, random_state=0)
    a = cross_validate(GaussianNB(), X, y, cv=cv, n_jobs=1, return_train=True)
    b = cross_validate(GaussianNB(), X, y, cv=cv, n_jobs=2, return_train=True)
    pd.testing.assert_frame_equal(a, b)
    assert a.attrs == b.attrs


def test_progress_bar_switch(iris, capsys, monkeypatch):
    X, y = iris
    cross_validate(GaussianNB(), X, y, cv=3, progress=True)
    assert "cross_validate" in capsys.readouterr().err
    cross_validate(GaussianNB(), X, y, cv=3)  # stderr is not a terminal under pytest
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("CVFRAME_PROGRESS", "1")
    cross_validate(GaussianNB(), X, y, cv=3)
    assert "cross_validate" in capsys.readouterr().err
    monkeypatch.setenv("CVFRAME_PROGRESS", "0")
    cross_validate(GaussianNB(), X, y, cv=3)
    assert capsys.readouterr().err == ""


def test_explicit_run_is_silent(iris):
    X, y = iris
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cross_validate(
            GaussianNB(), X, y, cv=5, repeats=2, random_state=0, return_train=True
        ).cv.counts()


# --- bad inputs -----------------------------------------------------------------------------


def test_length_mismatch(iris):
    X, y = iris
    with pytest.raises(ValueError, match="X has 150 samples but y has 149"):
        cross_validate(GaussianNB(), X, y[:-1])
    with pytest.raises(ValueError, match=r"groups has shape \(3,\) but X has 150 samples"):
        cross_validate(GaussianNB(), X, y, cv=ms.GroupKFold(3), groups=[1, 2, 3])


def test_cv_without_split(iris):
    X, y = iris
    with pytest.raises(
        TypeError,
        match=r"cv='abc' is neither an int nor a splitter: it has "
        r"no split\(X, y, groups\)",
    ):
        cross_validate(GaussianNB(), X, y, cv="abc")
    with pytest.raises(TypeError, match="no split"):
        cross_validate(GaussianNB(), X, y, cv=object())
    with pytest.raises(ValueError, match="cv=1 is not valid; k-fold needs at least 2 folds"):
        cross_validate(GaussianNB(), X, y, cv=1)


def test_estimator_without_fit_or_predict(iris):
    X, y = iris

    class OnlyFit:
        def fit(self, X, y):
            return self

    with pytest.raises(TypeError, match="estimator=OnlyFit has no predict method"):
        cross_validate(OnlyFit(), X, y)
    with pytest.raises(TypeError, match="estimator=StandardScaler has no predict"):
        cross_validate(StandardScaler(), X, y)
    with pytest.raises(
        TypeError,
        match=r"estimator=GaussianNB is a class; pass an instance, "
        r"e.g. GaussianNB\(\)",
    ):
        cross_validate(GaussianNB, X, y)


def test_groups_required(iris):
    X, y = iris
    with pytest.raises(
        ValueError,
        match=r"cv=GroupKFold\(.*\) splits by group and needs "
        "groups=",
    ):
        cross_validate(GaussianNB(), X, y, cv=ms.GroupKFold(3))
    with pytest.raises(ValueError, match="needs groups="):
        cross_validate(GaussianNB(), X, y, cv=ms.LeaveOneGroupOut())


def test_class_too_small_for_stratification(iris):
    X, y = iris
    keep = np.r_[0:50, 50:100, 100:103]  # class 2 has 3 samples
    with pytest.raises(
        ValueError,
        match=r"class\(es\) \[2\] have only \[3\] samples, fewer "
        r"than the 5 stratified folds.*stratified=False",
    ):
        cross_validate(GaussianNB(), X[keep], y[keep], cv=5)
    with pytest.raises(ValueError, match="fewer than the 10 stratified folds"):
        cross_validate(
            GaussianNB(), X[keep], y[keep], cv=ms.RepeatedStratifiedKFold(n_splits=10, n_repeats=2)
        )
    keep = np.r_[0:50, 50:100, 100:101]  # one member: StratifiedShuffleSplit refuses
    with pytest.raises(
        ValueError,
        match=r"could not split the data: .*too few.*"
        "unstratified splitter",
    ):
        cross_validate(
            GaussianNB(),
            X[keep],
            y[keep],
            cv=ms.StratifiedShuffleSplit(2, test_size=0.3, random_state=0),
        )
    # the suggested way out works: unstratified folds, some without class 2
    frame = cross_validate(GaussianNB(), X[keep], y[keep], cv=5, stratified=False)
    assert frame.attrs["stratified"] == "no"


def test_argument_conflicts(iris):
    X, y = iris
    with pytest.raises(ValueError, match="repeats=3 applies to an int cv only"):
        cross_validate(GaussianNB(), X, y, cv=ms.KFold(3), repeats=3)
    with pytest.raises(ValueError, match="random_state=0 applies to an int cv only"):
        cross_validate(GaussianNB(), X, y, cv=ms.KFold(3), random_state=0)
    with pytest.raises(ValueError, match="stratified=False contradicts cv=StratifiedKFold"):
        cross_validate(GaussianNB(), X, y, cv=ms.StratifiedKFold(3), stratified=False)
    with pytest.raises(ValueError, match="repeats=0 is not valid"):
        cross_validate(GaussianNB(), X, y, repeats=0)


def test_bad_labels(iris):
    X, y = iris
    obj = y.astype(object)
    obj[[3, 7]] = None
    with pytest.raises(
        ValueError,
        match=r"y has 2 missing labels \(None/NaN/NA\) at "
        r"positions \[3, 7\]",
    ):
        cross_validate(GaussianNB(), X, obj)
    mixed = np.array(["a"] * 75 + [1] * 75, dtype=object)
    with pytest.raises(ValueError, match="y mixes string labels"):
        cross_validate(GaussianNB(), X, mixed)
    with pytest.raises(ValueError, match="y looks continuous"):
        cross_validate(GaussianNB(), X, X[:, 0])
    with pytest.raises(ValueError, match="y has a single class"):
        cross_validate(GaussianNB(), X, np.zeros(150))
    with pytest.raises(ValueError, match="0/1 indicator"):
        cross_validate(GaussianNB(), X, np.column_stack([y, y]), stratified=False)


def test_bad_split_indices(iris):
    X, y = iris
    with pytest.raises(
        ValueError,
        match=r"split 0 of cv=list of 1 .* test indices \[150\] "
        "outside 0..149",
    ):
        cross_validate(GaussianNB(), X, y, cv=[(np.arange(100), np.array([149, 150]))])


def test_fit_error_names_the_split(iris):
    X, y = iris
    with pytest.raises(ValueError) as info:
        cross_validate(LogisticRegression(C=-1), X, y, cv=3)
    assert any("while fitting split 0" in n for n in getattr(info.value, "__notes__", []))


def test_top_level_name():
    assert cvframe.cross_validate is cross_validate
    assert cvframe.splits.Bootstrap is Bootstrap


def test_binary_string_labels_to_counts(cancer):
    X, y = cancer
    labels = np.where(y == 1, "benign", "malignant")
    frame = cross_validate(GaussianNB(), X.tolist(), list(labels), cv=3, pos_label="malignant")
    ds = to_counts(frame)
    xr.testing.assert_identical(frame.cv.counts(), ds)  # the frame's pos_label is used
    assert list(ds["class"].values) == ["malignant"]
    expected = cross_validate(GaussianNB(), X, (y == 0).astype(int), cv=3).cv.counts()
    np.testing.assert_array_equal(ds.tp.values, expected.tp.values)
    np.testing.assert_array_equal(ds.fp.values, expected.fp.values)


@settings(max_examples=15, deadline=None)
@given(
    n=st.integers(12, 40),
    k=st.integers(2, 4),
    repeats=st.integers(1, 3),
    n_classes=st.integers(2, 3),
    seed=st.integers(0, 2**31 - 1),
)
def test_repeated_kfold_invariants(n, k, repeats, n_classes, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.r_[np.arange(n_classes), rng.integers(0, n_classes, n - n_classes)]
    frame = cross_validate(
        GaussianNB(), X, y, cv=k, repeats=repeats, stratified=False, random_state=seed, scores=False
    )
    assert frame.attrs["test_sets"] == "partition"
    for _, part in frame.groupby("repeat"):
        assert sorted(part["sample"]) == list(range(n))  # every sample once per repeat
        assert part["fold"].nunique() == k
    ds = frame.cv.counts()
    support = (ds.tp + ds.fn).sum("fold")
    counts = np.bincount(y, minlength=n_classes)
    if n_classes == 2:
        counts = counts[1:]  # binary cube: positive class only
    np.testing.assert_array_equal(support.values, np.tile(counts, (repeats, 1)))
    n_tested = (ds.tp + ds.fp + ds.fn + ds.tn).sum("fold")
    assert (n_tested == n).all()


def test_class_missing_from_a_training_set(iris):
    X, y = iris
    # split 0 trains on classes 0 and 1 only; split 1 sees all three
    pairs = [
        (np.arange(0, 100), np.arange(100, 150)),
        (np.r_[0:40, 50:90, 100:140], np.r_[40:50, 90:100, 140:150]),
    ]
    frame = cross_validate(GaussianNB(), X, y, cv=pairs)
    assert (frame.loc[frame["fold"] == 0, "score_2"] == 0).all()  # probability 0
    est = RidgeClassifier()
    with pytest.warns(UserWarning, match="1 \\(split, class\\) pairs had the class missing"):
        frame = cross_validate(est, X, y, cv=pairs)
    assert frame.loc[frame["fold"] == 0, "score_2"].isna().all()
    assert frame.loc[frame["fold"] == 1, "score_2"].notna().all()
