"""The design findings of ``anomalies``: each fires on a case built to have it and stays silent
on a clean one; codes, severities and columns are the documented ones.

Oracles: ``compare`` (the paired corrected t interval the baseline finding reads), scikit-learn's
``f1_score`` (the train and test F of the gap finding), the splitter's own folds (a class missing
from a training set), duplicated rows of X (the twinning finding).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from sklearn.datasets import load_breast_cancer, load_iris, make_classification
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

import cvframe
from cvframe.comparison import compare
from cvframe.diagnostics import COLUMNS, FINDINGS, SEVERITIES, anomalies

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.fixture(scope="module")
def cancer():
    return load_breast_cancer(return_X_y=True)


def _lr():
    return make_pipeline(StandardScaler(), LogisticRegression())


def _run(X, y, models, **kw):
    kw.setdefault("progress", False)
    return cvframe.cross_validate(models, X, y, **kw)


def _kinds(found):
    return found["kind"].tolist()


# --- the findings table -------------------------------------------------------------------------


def test_every_kind_has_a_code_a_severity_and_one_line():
    codes = [f.code for f in FINDINGS.values()]
    assert len(set(codes)) == len(codes)
    assert all(c.startswith("CV") and len(c) == 5 and c[2:].isdigit() for c in codes)
    assert {f.severity for f in FINDINGS.values()} <= set(SEVERITIES)
    assert all("\n" not in f.explanation and f.explanation for f in FINDINGS.values())
    assert cvframe.diagnostics.KINDS == tuple(FINDINGS)


def test_columns_are_the_documented_ones_even_when_empty(cancer):
    X, y = cancer
    found = anomalies(_run(X, y, _lr(), cv=5, baselines=True).cv.counts())
    assert found.empty
    assert list(found.columns) == ["severity", "code", "kind", "model", "repeat", *COLUMNS[3:]]


# --- not better than the baselines --------------------------------------------------------------


def test_a_good_model_beats_the_baselines(cancer):
    X, y = cancer
    frame = _run(X, y, _lr(), cv=5, baselines=True)
    found = anomalies(frame.cv.counts(), frame=frame)
    assert "not_better_than_baseline" not in _kinds(found)


@pytest.mark.parametrize(
    "model",
    [
        DummyClassifier(strategy="most_frequent"),
        DummyClassifier(strategy="uniform", random_state=3),
    ],
    ids=["majority", "random"],
)
def test_a_model_no_better_than_a_dummy_is_an_error(cancer, model):
    X, y = cancer
    frame = _run(X, y, {"lr": _lr(), "mine": model}, cv=5, baselines=True)
    found = anomalies(frame.cv.counts(), frame=frame)
    rows = found[found.kind == "not_better_than_baseline"]
    assert rows["model"].tolist() == ["mine"]  # lr beats them; the baselines are not judged
    row = rows.iloc[0]
    assert (row.code, row.severity, row.fold, row["class"]) == ("CV301", "error", None, None)
    assert found.index[found.kind == "not_better_than_baseline"][0] == 0  # errors come first
    assert "does not exclude 0" in row.detail


def test_the_baseline_interval_is_compares_corrected_t(cancer):
    """The finding reads compare's interval: flagged exactly when a lower bound is <= 0."""
    X, y = cancer
    weak = make_pipeline(StandardScaler(), LogisticRegression(C=1e-6))
    frame = _run(X, y, {"weak": weak, "lr": _lr()}, cv=5, baselines=True)
    ds = frame.cv.counts()
    lows = [
        float(
            compare(ds, m, baseline=b, test="corrected_t", zero_division=0.0)["low"]
            .sel(contrast=f"weak - {b}")
            .squeeze()
        )
        for m in ("f", "accuracy")
        for b in ("dummy_prior", "dummy_stratified")
    ]
    found = anomalies(ds)
    flagged = "weak" in found.loc[found.kind == "not_better_than_baseline", "model"].tolist()
    assert flagged == (min(lows) <= 0)


def test_baselines_by_name_when_the_cube_does_not_list_them(cancer):
    X, y = cancer
    frame = _run(X, y, {"mine": DummyClassifier(), "dummy_prior": DummyClassifier()}, cv=5)
    ds = frame.cv.counts()
    assert "baselines" not in ds.attrs
    assert _kinds(anomalies(ds))[:1] == ["not_better_than_baseline"]
    ds.attrs["baselines"] = '["dummy_prior"]'  # a netCDF-safe JSON attr
    assert _kinds(anomalies(ds))[:1] == ["not_better_than_baseline"]
    ds.attrs["baselines"] = []  # no baselines: nothing to beat
    assert "not_better_than_baseline" not in _kinds(anomalies(ds))


def test_with_a_grid_every_candidate_is_judged_and_never_run_cells_are_silent(cancer):
    X, y = cancer
    mine = DummyClassifier(random_state=0)
    grid = {"mine": {"strategy": ["most_frequent", "uniform"]}}
    models = {"lr": _lr(), "mine": mine}
    frame = _run(X, y, models, cv=3, baselines=True, param_grid=grid)
    found = anomalies(frame.cv.counts(), frame=frame)
    rows = found[found.kind == "not_better_than_baseline"]
    assert rows[["model", "param"]].values.tolist() == [
        ["mine", "strategy='most_frequent'"],
        ["mine", "strategy='uniform'"],
    ]
    assert "vs dummy_prior (" in rows.detail.iloc[0]
    assert "class_absent" not in _kinds(found)  # (lr, strategy=...) was never run: padding


def test_a_design_the_paired_test_cannot_use_is_said_once():
    y = np.array([0, 1] * 10)
    cubes = [cvframe.from_predictions(y, y, np.zeros(20, int)) for _ in range(2)]
    ds = xr.concat(cubes, dim=pd.Index(["mine", "dummy_prior"], name="model"))
    found = anomalies(ds)
    assert _kinds(found) == ["baseline_not_checked"]
    assert found.severity.tolist() == ["info"]


# --- train-test gap -----------------------------------------------------------------------------


def test_an_overfit_tree_has_a_train_test_gap():
    X, y = make_classification(n_samples=300, flip_y=0.3, random_state=0)
    frame = _run(X, y, DecisionTreeClassifier(random_state=0), cv=5, return_train=True)
    found = anomalies(frame.cv.counts())
    rows = found[found.kind == "train_test_gap"]
    assert len(rows) == 1 and rows.iloc[0].severity == "warning"
    test = frame[frame.subset == "test"]
    train = frame[frame.subset == "train"]
    f_test, f_train = (f1_score(d.y_true, d.y_pred) for d in (test, train))
    assert f"F_tp,fp {f_train:.3f} on the training sets vs {f_test:.3f}" in rows.iloc[0].detail


def test_a_regularized_model_has_no_gap(cancer):
    X, y = cancer
    frame = _run(X, y, _lr(), cv=5, return_train=True)
    found = anomalies(frame.cv.counts())
    assert "train_test_gap" not in _kinds(found)
    assert "subset" not in found.columns  # the fold findings read the test cells only
    assert _kinds(anomalies(frame.cv.counts(), gap=0.0)) == ["train_test_gap"]


# --- class missing from a training set ----------------------------------------------------------


@pytest.mark.parametrize("return_train", [False, True], ids=["partition", "train-rows"])
def test_unshuffled_kfold_on_sorted_iris_misses_a_class(return_train):
    X, y = load_iris(return_X_y=True)
    lr = LogisticRegression(max_iter=500)
    frame = _run(X, y, lr, cv=KFold(3), return_train=return_train)
    found = anomalies(frame.cv.counts())
    rows = found[found.kind == "class_missing_from_training"]
    # KFold(3) on iris (sorted by class): fold i tests all 50 samples of class i
    assert list(zip(rows["fold"], rows["class"], strict=True)) == [(0, 0), (1, 1), (2, 2)]
    assert set(rows.severity) == {"error"} and set(rows.code) == {"CV202"}


def test_stratified_folds_miss_no_class():
    X, y = load_iris(return_X_y=True)
    frame = _run(X, y, LogisticRegression(max_iter=500), cv=StratifiedKFold(3))
    assert "class_missing_from_training" not in _kinds(anomalies(frame.cv.counts()))


def test_the_negative_class_of_a_binary_cube_is_checked_too():
    y = np.array([0] * 4 + [1] * 16)
    fold = np.repeat(np.arange(4), 5)  # fold 0 tests every negative
    ds = cvframe.from_predictions(y, y, fold)
    rows = anomalies(ds).query("kind == 'class_missing_from_training'")
    assert rows[["fold", "class"]].values.tolist() == [[0, 0]]


def test_overlapping_test_sets_are_not_read_as_a_partition():
    y = np.array([0] * 4 + [1] * 16)
    ds = cvframe.from_predictions(y, y, np.repeat(np.arange(4), 5))
    frame = pd.DataFrame({"fold": [0], "y_true": [0], "y_pred": [0]})
    frame.attrs["test_sets"] = "overlapping"
    assert "class_missing_from_training" not in _kinds(anomalies(ds, frame=frame))


# --- test rows that duplicate training rows -----------------------------------------------------


def test_duplicated_rows_are_found_per_fold(cancer):
    X, y = cancer
    X2, y2 = np.vstack([X, X[:60]]), np.concatenate([y, y[:60]])
    frame = _run(X2, y2, _lr(), cv=StratifiedKFold(5, shuffle=True, random_state=0))
    found = anomalies(frame.cv.counts(), frame=frame)
    rows = found[found.kind == "train_duplicate"]
    per_fold = frame.groupby("fold")["train_duplicate"].agg(["sum", "size"])
    expected = per_fold.index[per_fold["sum"] > 0].tolist()
    assert rows["fold"].tolist() == expected and expected
    k, n = per_fold.loc[expected[0]]
    assert rows.iloc[0].detail.startswith(f"{k} of {n} test rows")
    assert set(rows.severity) == {"warning"}


def test_no_duplicates_no_finding(cancer):
    X, y = cancer
    frame = _run(X, y, _lr(), cv=5)
    assert not frame["train_duplicate"].any()
    assert "train_duplicate" not in _kinds(anomalies(frame.cv.counts(), frame=frame))


# --- order and arguments ------------------------------------------------------------------------


def test_findings_are_sorted_by_severity():
    X, y = load_iris(return_X_y=True)
    frame = _run(X, y, {"lr": LogisticRegression(max_iter=500)}, cv=KFold(3), baselines=True)
    found = anomalies(frame.cv.counts(), frame=frame)
    ranks = [SEVERITIES.index(s) for s in found.severity]
    assert ranks == sorted(ranks) and found.severity.iloc[0] == "error"


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"gap": -0.1}, "gap=-0.1"),
        ({"level": 1.0}, "level=1.0"),
        ({"scores": pd.DataFrame({"a": [1]}), "frame": pd.DataFrame({"b": [1]})}, "frame="),
    ],
)
def test_bad_arguments_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        anomalies(cvframe.datasets.table1(), **kwargs)


def test_a_dask_backed_cube_gives_the_same_findings(cancer):
    X, y = cancer
    models = {"lr": _lr(), "mine": DummyClassifier()}
    frame = _run(X, y, models, cv=5, baselines=True, return_train=True)
    ds = frame.cv.counts()
    eager = anomalies(ds, frame=frame)
    assert "not_better_than_baseline" in _kinds(eager)
    pd.testing.assert_frame_equal(anomalies(ds.chunk({"fold": 2}), frame=frame), eager)
