"""cvframe.cross_validate with several models and a param grid: paired splits, order, labels.

Oracles: each model (and each candidate of a grid) run alone with the same splitter, the
splitter's own test sets, and scikit-learn's ``ParameterGrid`` for the candidates and their
order.
"""

from __future__ import annotations

import json
import warnings

import joblib
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import model_selection as ms
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import make_classification
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier

import cvframe
from cvframe.runner import NotAClassifierError, cross_validate, param_label, read_params


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    """Tiny fits: BLAS threads only add contention on the shared 2-core machine."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=120, n_features=6, n_informative=3, weights=[0.7], random_state=0
    )
    return X, y


@pytest.fixture(scope="module")
def data3():
    X, y = make_classification(
        n_samples=120, n_features=6, n_informative=4, n_classes=3, random_state=1
    )
    return X, y


class _NoScores(ClassifierMixin, BaseEstimator):
    """A classifier with predict only (no predict_proba, no decision_function)."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.majority_ = pd.Series(y).mode().iloc[0]
        return self

    def predict(self, X):
        return np.full(len(X), self.majority_)


def lr():
    return make_pipeline(StandardScaler(), LogisticRegression())


def models():
    return {
        "tree": DecisionTreeClassifier(max_depth=2, random_state=0),
        "nb": GaussianNB(),
        "lr": lr(),
    }


def _alone(frame, **sel):
    """The rows of one model / candidate, as a run of that model alone would give them."""
    mask = np.ones(len(frame), dtype=bool)
    for col, value in sel.items():
        mask &= (frame[col] == value).to_numpy()
    return frame[mask].drop(columns=list(sel)).reset_index(drop=True)


def _counts(frame):
    dims = [d for d in ("model", "param", "subset") if d in frame.columns]
    return frame.cv.counts(dims=dims)


# --- paired splits and equality with single runs ----------------------------------------------


def test_every_model_is_tested_on_the_same_samples_per_fold(data):
    X, y = data
    splitter = ms.RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=5)
    frame = cross_validate(models(), X, y, cv=splitter)
    expected = [np.sort(te) for _, te in splitter.split(X, y)]
    for name in ["tree", "nb", "lr"]:
        part = frame[frame["model"] == name]
        got = [
            np.sort(g["sample"].to_numpy())
            for _, g in part.groupby(["repeat", "fold"], sort=True, observed=True)
        ]
        assert len(got) == len(expected)
        for a, b in zip(got, expected, strict=True):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("as_list", [False, True])
def test_each_model_equals_its_run_alone(data, as_list):
    X, y = data
    given_models = list(models().items()) if as_list else models()
    frame = cross_validate(given_models, X, y, cv=4, repeats=2, random_state=3)
    assert frame.attrs["scores"] == "predict_proba"
    for name, est in models().items():
        alone = cross_validate(est, X, y, cv=4, repeats=2, random_state=3)
        pd.testing.assert_frame_equal(_alone(frame, model=name), alone)
        for key in ("stratified", "splitter", "task", "test_sets", "pos_label"):
            assert frame.attrs[key] == alone.attrs[key]


def test_splits_are_drawn_once_even_from_an_unseeded_splitter(data):
    X, y = data
    cv = ms.ShuffleSplit(n_splits=3, test_size=0.3)  # a new draw on every split() call
    frame = cross_validate(models(), X, y, cv=cv)
    keys = [
        frame.loc[frame["model"] == m, ["fold", "sample"]].to_numpy() for m in ("tree", "nb", "lr")
    ]
    np.testing.assert_array_equal(keys[1], keys[0])
    np.testing.assert_array_equal(keys[2], keys[0])


def test_each_model_equals_its_run_alone_with_train_rows(data):
    X, y = data
    cv = ms.StratifiedKFold(3, shuffle=True, random_state=0)
    frame = cross_validate(models(), X, y, cv=cv, return_train=True)
    assert list(frame.columns[:2]) == ["model", "subset"]
    for name, est in models().items():
        alone = cross_validate(est, X, y, cv=cv, return_train=True)
        pd.testing.assert_frame_equal(_alone(frame, model=name), alone)
    ds = frame.cv.counts()  # model and subset are frame dims by default
    assert ds.tp.dims[:2] == ("model", "subset")


def test_multiclass_models_with_different_score_methods(data3):
    X, y = data3
    pair = {"svc": make_pipeline(StandardScaler(), LinearSVC()), "nb": GaussianNB()}
    frame = cross_validate(pair, X, y, cv=3)
    assert frame.attrs["scores"] == "mixed"
    assert json.loads(frame.attrs["score_methods"]) == {
        "svc": "decision_function",
        "nb": "predict_proba",
    }
    assert frame.attrs["labels"] == [0, 1, 2]
    for name, est in pair.items():
        pd.testing.assert_frame_equal(_alone(frame, model=name), cross_validate(est, X, y, cv=3))


# --- order of models ----------------------------------------------------------------------------


def test_model_order_is_kept_in_frame_cube_and_scores(data):
    X, y = data
    names = ["zeta", "alpha", "mid"]
    ests = [DecisionTreeClassifier(max_depth=1, random_state=0), GaussianNB(), lr()]
    frame = cross_validate(list(zip(names, ests, strict=True)), X, y, cv=3)
    assert isinstance(frame["model"].dtype, pd.CategoricalDtype)
    assert list(frame["model"].cat.categories) == names
    assert pd.unique(frame["model"]).tolist() == names  # rows come model by model
    ds = frame.cv.counts()
    assert ds.model.values.tolist() == names
    auc = frame.cv.auc(method="merge")
    assert auc.model.values.tolist() == names
    for name in names:
        part = frame[frame["model"] == name]
        want = roc_auc_score(part["y_true"], part["score"])
        assert auc.sel(model=name).item() == pytest.approx(want)
    f = ds.cv.f_tp_fp()
    assert f.model.values.tolist() == names


def test_scores_auto_per_model_and_a_model_without_scores_warns(data):
    X, y = data
    trio = {"nb": GaussianNB(), "svc": LinearSVC(), "plain": _NoScores()}
    with pytest.warns(UserWarning, match=r"estimator models \['plain'\]"):
        frame = cross_validate(trio, X, y, cv=3)
    assert json.loads(frame.attrs["score_methods"]) == {
        "nb": "predict_proba",
        "svc": "decision_function",
        "plain": "none",
    }
    assert list(frame.columns)[-2:] == ["score", "train_duplicate"]
    assert frame.loc[frame["model"] == "plain", "score"].isna().all()
    assert frame.loc[frame["model"] != "plain", "score"].notna().all()
    alone = cross_validate(_NoScores(), X, y, cv=3)
    pd.testing.assert_frame_equal(_alone(frame, model="plain").drop(columns="score"), alone)


def test_scores_false_gives_no_score_column(data):
    X, y = data
    frame = cross_validate(models(), X, y, cv=3, scores=False)
    assert "score" not in frame.columns
    assert frame.attrs["scores"] == "none"


# --- param grid ---------------------------------------------------------------------------------


def test_param_label_is_readable():
    assert param_label({"penalty": "l2", "C": 0.1}) == "C=0.1, penalty='l2'"
    assert param_label({"C": np.float64(1.0), "fit_intercept": np.bool_(False)}) == (
        "C=1.0, fit_intercept=False"
    )
    assert param_label({"clf": LogisticRegression(C=2.0)}) == "clf=LogisticRegression(C=2.0)"
    assert param_label({"f": np.log}) == "f=log"
    assert param_label({}) == "(as given)"
    with pytest.raises(TypeError, match="params"):
        param_label([("C", 1)])


@pytest.mark.parametrize(
    "grid",
    [
        {"logisticregression__C": [1.0, 0.1], "logisticregression__fit_intercept": [True, False]},
        [{"logisticregression__C": [0.1]}, {"standardscaler__with_mean": [False]}],
    ],
)
def test_grid_candidates_in_grid_order_each_equal_to_its_run_alone(data, grid):
    X, y = data
    cv = ms.StratifiedKFold(3, shuffle=True, random_state=1)
    frame = cross_validate(lr(), X, y, cv=cv, param_grid=grid)
    candidates = list(ms.ParameterGrid(grid))
    labels = [param_label(p) for p in candidates]
    assert list(frame.columns[:1]) == ["param"]
    assert "model" not in frame.columns
    assert list(frame["param"].cat.categories) == labels
    assert read_params(frame) == dict(zip(labels, candidates, strict=True))
    for label, params in zip(labels, candidates, strict=True):
        alone = cross_validate(clone(lr()).set_params(**params), X, y, cv=cv)
        pd.testing.assert_frame_equal(_alone(frame, param=label), alone)
    ds = frame.cv.counts(dims=["param"])
    assert ds.param.values.tolist() == labels


def test_grid_labels_are_exact_and_values_read_back(data):
    X, y = data
    grid = {"C": [0.1, 1.0], "solver": ["lbfgs"]}
    frame = cross_validate(LogisticRegression(), X, y, cv=3, param_grid=grid)
    labels = ["C=0.1, solver='lbfgs'", "C=1.0, solver='lbfgs'"]
    assert list(frame["param"].cat.categories) == labels
    assert read_params(frame)[labels[0]] == {"C": 0.1, "solver": "lbfgs"}
    json.loads(frame.attrs["params"])  # a plain JSON string: netCDF-safe
    assert isinstance(frame.attrs["params"], str)


def test_grid_over_pipeline_steps_stores_estimators_as_text(data):
    X, y = data
    pipe = Pipeline([("scale", StandardScaler()), ("clf", GaussianNB())])
    grid = {"clf": [GaussianNB(), LogisticRegression(C=0.5)]}
    frame = cross_validate(pipe, X, y, cv=3, param_grid=grid)
    labels = ["clf=GaussianNB()", "clf=LogisticRegression(C=0.5)"]
    assert list(frame["param"].cat.categories) == labels
    assert read_params(frame) == {
        labels[0]: {"clf": "GaussianNB()"},
        labels[1]: {"clf": labels[1][4:]},
    }
    alone = cross_validate(make_pipeline(StandardScaler(), LogisticRegression(C=0.5)), X, y, cv=3)
    pd.testing.assert_frame_equal(_alone(frame, param=labels[1]), alone)


def test_several_models_with_a_grid_each(data):
    X, y = data
    cv = ms.StratifiedKFold(3, shuffle=True, random_state=2)
    grids = {"lr": {"logisticregression__C": [0.1, 1.0]}, "tree": {"max_depth": [1, 3]}}
    frame = cross_validate(models(), X, y, cv=cv, param_grid=grids)
    assert list(frame.columns[:2]) == ["model", "param"]
    assert list(frame["model"].cat.categories) == ["tree", "nb", "lr"]
    labels = [
        "max_depth=1",
        "max_depth=3",
        "(as given)",
        "logisticregression__C=0.1",
        "logisticregression__C=1.0",
    ]
    assert list(frame["param"].cat.categories) == labels
    assert json.loads(frame.attrs["model_params"]) == {
        "tree": labels[:2],
        "nb": ["(as given)"],
        "lr": labels[3:],
    }
    assert read_params(frame)["(as given)"] == {}
    assert read_params(frame)["max_depth=3"] == {"max_depth": 3}
    run = frame.groupby(["model", "param"], observed=True).size()
    assert len(run) == 5 and (run == len(y)).all()
    alone = cross_validate(DecisionTreeClassifier(max_depth=3, random_state=0), X, y, cv=cv)
    pd.testing.assert_frame_equal(_alone(frame, model="tree", param="max_depth=3"), alone)
    ds = frame.cv.counts(dims=["model", "param"])
    assert ds.tp.dims[:2] == ("model", "param")
    assert ds.model.values.tolist() == ["tree", "nb", "lr"]
    assert ds.param.values.tolist() == labels
    never_run = ds.sel(model="nb", param="max_depth=1")
    assert int(never_run[["tp", "fp", "fn", "tn"]].to_array().sum()) == 0  # an empty cell


def test_errors_name_the_model_and_candidate_that_failed(data):
    X, y = data
    with pytest.raises(ValueError) as info:
        cross_validate(
            {"lr": LogisticRegression()}, X, y, cv=3, param_grid={"lr": {"C": [1.0, -1.0]}}
        )
    notes = " ".join(getattr(info.value, "__notes__", []))
    assert "estimator['lr']" in notes and "C=-1.0" in notes


# --- the cube and netCDF -----------------------------------------------------------------------


def test_counts_picks_up_param_by_default(data):
    X, y = data
    frame = cross_validate(GaussianNB(), X, y, cv=3, param_grid={"var_smoothing": [1e-9, 1e-3]})
    ds = frame.cv.counts()
    assert ds.param.values.tolist() == ["var_smoothing=1e-09", "var_smoothing=0.001"]


def test_counts_copies_the_grid_attrs(data):
    X, y = data
    frame = cross_validate(models(), X, y, cv=3, param_grid={"nb": {"var_smoothing": [1e-9]}})
    ds = _counts(frame)
    assert read_params(ds) == read_params(frame)


def test_scores_are_per_candidate(data):
    X, y = data
    grid = {"var_smoothing": [1e-9, 10.0]}
    frame = cross_validate(GaussianNB(), X, y, cv=3, param_grid=grid)
    auc = frame.cv.auc(method="merge")
    for label in frame["param"].cat.categories:
        part = frame[frame["param"] == label]
        want = roc_auc_score(part["y_true"], part["score"])
        assert auc.sel(param=label).item() == pytest.approx(want)


def test_scores_keep_model_order_beside_a_second_frame_dim(data):
    X, y = data
    frame = cross_validate({"nb": GaussianNB(), "lr": lr()}, X, y, cv=3, return_train=True)
    auc = frame.cv.auc()
    assert set(auc.model.values.tolist()) == {"nb", "lr"}
    assert auc.model.values.tolist() == ["nb", "lr"]
    assert auc.subset.values.tolist() == ["test", "train"]


@pytest.mark.parametrize("engine", ["netcdf4", "h5netcdf"])
def test_cube_with_model_and_param_round_trips_through_netcdf(tmp_path, data, engine):
    pytest.importorskip(engine if engine != "netcdf4" else "netCDF4")
    X, y = data
    grids = {"lr": {"logisticregression__C": [1.0, 0.1]}}
    frame = cross_validate({"nb": GaussianNB(), "lr": lr()}, X, y, cv=3, param_grid=grids)
    ds = _counts(frame)
    for key in ("params", "model_params", "estimators", "score_methods"):
        ds.attrs.setdefault(key, frame.attrs[key])
    path = tmp_path / "cube.nc"
    ds.to_netcdf(path, engine=engine)
    back = cvframe.open_dataset(path)
    assert back.model.values.tolist() == ["nb", "lr"]
    assert back.param.values.tolist() == [
        "(as given)",
        "logisticregression__C=1.0",
        "logisticregression__C=0.1",
    ]
    assert read_params(back) == read_params(frame)
    assert json.loads(back.attrs["model_params"]) == json.loads(frame.attrs["model_params"])
    np.testing.assert_array_equal(back.tp.values, ds.tp.values)
    np.testing.assert_allclose(
        back.cv.f_tp_fp(zero_division=np.nan).values, ds.cv.f_tp_fp(zero_division=np.nan).values
    )


# --- parallelism and progress ------------------------------------------------------------------


def test_n_jobs_does_not_change_the_frame(data):
    X, y = data
    grids = {"lr": {"logisticregression__C": [0.1, 1.0]}}
    one = cross_validate(models(), X, y, cv=3, param_grid=grids, n_jobs=1)
    with joblib.parallel_config(backend="threading"):  # no process start-up on 2 cores
        two = cross_validate(models(), X, y, cv=3, param_grid=grids, n_jobs=2)
    pd.testing.assert_frame_equal(one, two)
    assert one.attrs == two.attrs


def test_progress_bar_counts_every_fit(data, capsys):
    X, y = data
    cross_validate(
        {"nb": GaussianNB(), "lr": LogisticRegression()},
        X,
        y,
        cv=3,
        param_grid={"lr": {"C": [0.1, 1.0]}},
        progress=True,
    )
    err = capsys.readouterr().err
    assert "9/9" in err  # 3 splits x (1 + 2) candidates


@settings(max_examples=20, deadline=None)
@given(
    k=st.integers(2, 4),
    repeats=st.integers(1, 3),
    seed=st.integers(0, 10_000),
    n_models=st.integers(1, 3),
)
def test_paired_folds_property(k, repeats, seed, n_models):
    X, y = make_classification(
        n_samples=40, n_features=3, n_informative=2, n_redundant=0, random_state=seed % 7
    )
    strategies = ["most_frequent", "stratified", "uniform"][:n_models]
    ests = {s: DummyClassifier(strategy=s, random_state=0) for s in strategies}
    frame = cross_validate(ests, X, y, cv=k, repeats=repeats, random_state=seed)
    keys = [
        frame.loc[frame["model"] == s, ["repeat", "fold", "sample"]].to_numpy() for s in strategies
    ]
    for other in keys[1:]:
        np.testing.assert_array_equal(other, keys[0])
    assert len(keys[0]) == repeats * len(y)
    assert list(frame["model"].cat.categories) == strategies


# --- bad inputs -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("estimator", "error", "match"),
    [
        ({}, ValueError, r"estimator is an empty dict"),
        ([], ValueError, r"estimator is an empty list"),
        ([("a", GaussianNB()), ("a", lr())], ValueError, r"estimator names the model 'a' twice"),
        ([GaussianNB(), lr()], TypeError, r"estimator\[0\]"),
        ({1: GaussianNB()}, TypeError, r"estimator has the model name 1"),
        ({"": GaussianNB()}, TypeError, r"estimator has the model name ''"),
        (
            {"nb": GaussianNB(), "reg": LinearRegression()},
            NotAClassifierError,
            r"estimator\['reg'\]",
        ),
        ({"nb": GaussianNB, "lr": lr()}, TypeError, r"estimator\['nb'\]=GaussianNB is a class"),
        ({"nb": GaussianNB(), "x": object()}, NotAClassifierError, r"estimator\['x'\]"),
    ],
)
def test_bad_models_name_estimator(data, estimator, error, match):
    X, y = data
    with pytest.raises(error, match=match):
        cross_validate(estimator, X, y, cv=3)


@pytest.mark.parametrize(
    ("estimator", "grid", "error", "match"),
    [
        (GaussianNB(), {"C": [1.0]}, ValueError, r"param_grid names parameter\(s\) \['C'\]"),
        (GaussianNB(), "var_smoothing", TypeError, r"param_grid="),
        (GaussianNB(), {"var_smoothing": 1e-9}, TypeError, r"param_grid"),
        (GaussianNB(), {"var_smoothing": []}, ValueError, r"param_grid"),
        (GaussianNB(), [], ValueError, r"param_grid=\[\] holds no candidate"),
        (
            GaussianNB(),
            [{"var_smoothing": [1e-9]}, {"var_smoothing": [1e-9]}],
            ValueError,
            r"param_grid gives the candidate 'var_smoothing=1e-09' twice",
        ),
        ({"nb": GaussianNB()}, {"var_smoothing": [1e-9]}, ValueError, r"param_grid=.*model names"),
        ({"nb": GaussianNB()}, {"lr": {"C": [1.0]}}, ValueError, r"param_grid=\['lr'\]"),
        ({"nb": GaussianNB()}, {"nb": {"C": [1.0]}}, ValueError, r"param_grid\['nb'\] names"),
    ],
)
def test_bad_param_grid_names_param_grid(data, estimator, grid, error, match):
    X, y = data
    with pytest.raises(error, match=match):
        cross_validate(estimator, X, y, cv=3, param_grid=grid)


def test_named_score_method_missing_on_one_model(data):
    X, y = data
    with pytest.raises(ValueError, match=r"scores='predict_proba' but estimator\['svc'\]"):
        cross_validate({"nb": GaussianNB(), "svc": LinearSVC()}, X, y, scores="predict_proba")


def test_read_params_without_grid_names_obj(data):
    X, y = data
    frame = cross_validate(models(), X, y, cv=3)
    assert "params" not in frame.attrs
    with pytest.raises(ValueError, match=r"obj \(DataFrame\) has no attrs\['params'\]"):
        read_params(frame)


def test_single_estimator_frame_is_unchanged(data):
    X, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = cross_validate(GaussianNB(), X, y, cv=3)
    assert list(frame.columns) == [
        "repeat",
        "fold",
        "sample",
        "y_true",
        "y_pred",
        "score",
        "train_duplicate",
    ]
    assert not {"estimators", "score_methods", "params", "model_params"} & set(frame.attrs)
