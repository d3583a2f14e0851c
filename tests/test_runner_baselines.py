"""cross_validate(..., baselines=True), return_train_score and the train_duplicate column:
scikit-learn's DummyClassifier and cross_validate as oracles, brute-force duplicates."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import xarray as xr
from sklearn import model_selection as ms
from sklearn.datasets import load_breast_cancer
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB

from cvframe.runner import cross_validate
from cvframe.runner.baselines import BASELINES


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return X[:, :6], y


def test_baselines_on_the_same_folds(cancer):
    X, y = cancer
    frame = cross_validate(GaussianNB(), X, y, cv=5, random_state=0, baselines=True)
    assert list(frame["model"].cat.categories) == ["gaussiannb", *BASELINES]
    assert frame.attrs["baselines"] == ["dummy_prior", "dummy_stratified"]
    keys = {
        name: sorted(zip(g["repeat"], g["fold"], g["sample"], strict=True))
        for name, g in frame.groupby("model", observed=True)
    }
    assert keys["gaussiannb"] == keys["dummy_prior"] == keys["dummy_stratified"]
    # the oracle: scikit-learn's DummyClassifier on the same splits
    cv = ms.StratifiedKFold(5, shuffle=True, random_state=0)
    for name, dummy in [
        ("dummy_prior", DummyClassifier(strategy="prior")),
        ("dummy_stratified", DummyClassifier(strategy="stratified", random_state=0)),
    ]:
        pred = ms.cross_val_predict(dummy, X, y, cv=cv)
        got = frame[frame["model"] == name].sort_values("sample")
        np.testing.assert_array_equal(got["y_pred"].to_numpy(), pred)
    ds = frame.cv.counts()
    assert ds.attrs["baselines"] == ["dummy_prior", "dummy_stratified"]
    assert list(ds["model"].values) == ["gaussiannb", *BASELINES]
    f = ds.cv.f_tp_fp().squeeze().to_series()
    assert f["gaussiannb"] > f["dummy_prior"] and f["gaussiannb"] > f["dummy_stratified"]


def test_baselines_attr_survives_netcdf(cancer, tmp_path):
    X, y = cancer
    ds = cross_validate(GaussianNB(), X, y, cv=3, baselines=True).cv.counts()
    ds.to_netcdf(tmp_path / "c.nc", engine="h5netcdf")
    with xr.open_dataset(tmp_path / "c.nc", engine="h5netcdf") as back:
        assert list(back.attrs["baselines"]) == ["dummy_prior", "dummy_stratified"]


def test_baselines_with_models_and_grid(cancer):
    X, y = cancer
    models = {"nb": GaussianNB(), "lr": LogisticRegression(max_iter=500)}
    frame = cross_validate(models, X, y, cv=3, baselines=True, param_grid={"lr": {"C": [0.1, 1]}})
    assert list(frame["model"].cat.categories) == ["nb", "lr", *BASELINES]
    assert set(frame.loc[frame["model"] == "dummy_prior", "param"]) == {"(as given)"}
    one = cross_validate(
        LogisticRegression(max_iter=500), X, y, cv=3, baselines=True, param_grid={"C": [0.1, 1.0]}
    )
    assert list(one["model"].cat.categories) == ["logisticregression", *BASELINES]
    assert {"C=0.1", "C=1.0"} <= set(one["param"].cat.categories)
    # a named score method the dummies lack: they give probabilities
    dec = cross_validate(
        LogisticRegression(max_iter=500), X, y, cv=3, baselines=True, scores="decision_function"
    )
    assert dec.attrs["scores"] == "mixed"


def test_baseline_name_clash_and_flag(cancer):
    X, y = cancer
    with pytest.raises(ValueError, match="dummy_prior.*baselines=False"):
        cross_validate({"dummy_prior": GaussianNB()}, X, y, cv=3, baselines=True)
    with pytest.raises(TypeError, match="baselines"):
        cross_validate(GaussianNB(), X, y, cv=3, baselines="yes")
    with pytest.raises(TypeError, match="is a class"):
        cross_validate(GaussianNB, X, y, cv=3, baselines=True)
    plain = cross_validate(GaussianNB(), X, y, cv=3)
    assert "model" not in plain.columns and "baselines" not in plain.attrs


def test_return_train_score_is_return_train(cancer):
    X, y = cancer
    est = LogisticRegression(max_iter=500)
    cv = ms.StratifiedKFold(5, shuffle=True, random_state=0)
    a = cross_validate(est, X, y, cv=cv, return_train_score=True)
    b = cross_validate(est, X, y, cv=cv, return_train=True)
    pd.testing.assert_frame_equal(a, b)
    assert set(a["subset"]) == {"train", "test"}
    # the train-test gap, against scikit-learn's own return_train_score
    sk = ms.cross_validate(est, X, y, cv=cv, scoring="f1", return_train_score=True)
    f = a.cv.counts().cv.f_avg().squeeze().to_series()
    assert f["train"] == pytest.approx(sk["train_score"].mean(), abs=1e-12)
    assert f["test"] == pytest.approx(sk["test_score"].mean(), abs=1e-12)
    with pytest.raises(ValueError, match="contradict"):
        cross_validate(est, X, y, cv=3, return_train=True, return_train_score=False)
    with pytest.raises(TypeError, match="return_train_score"):
        cross_validate(est, X, y, cv=3, return_train_score="yes")


def _brute_force(X, splits):
    out = []
    for tr, te in splits:
        seen = {tuple(row) for row in X[tr]}
        out.extend(tuple(row) in seen for row in X[te])
    return np.array(out)


def test_train_duplicate_marks_twins(cancer):
    X, y = cancer
    X = np.vstack([X, X[:40]])  # 40 twins
    y = np.concatenate([y, y[:40]])
    cv = ms.KFold(4, shuffle=True, random_state=0)
    frame = cross_validate(GaussianNB(), X, y, cv=cv, return_train=True)
    test = frame[frame["subset"] == "test"]
    np.testing.assert_array_equal(
        test["train_duplicate"].to_numpy(), _brute_force(X, list(cv.split(X)))
    )
    assert 0 < test["train_duplicate"].sum() <= 80
    assert not frame.loc[frame["subset"] == "train", "train_duplicate"].any()
    assert frame["train_duplicate"].dtype == bool
    assert frame.attrs["train_duplicate"] == "computed"
    # a DataFrame X hashes its rows, not its index
    df = pd.DataFrame(X, index=np.arange(len(X))[::-1])
    again = cross_validate(GaussianNB(), df, y, cv=cv)
    np.testing.assert_array_equal(again["train_duplicate"], test["train_duplicate"])
    # no twins: all False
    clean = cross_validate(GaussianNB(), X[:569], y[:569], cv=3)
    assert not clean["train_duplicate"].any()


def test_train_duplicate_skipped_for_sparse(cancer):
    X, y = cancer
    frame = cross_validate(LogisticRegression(max_iter=500), sp.csr_matrix(X), y, cv=3)
    assert "train_duplicate" not in frame.columns
    assert frame.attrs["train_duplicate"].startswith("skipped: X is a sparse matrix")


def test_train_duplicate_per_model_block(cancer):
    X, y = cancer
    X = np.vstack([X, X[:10]])
    y = np.concatenate([y, y[:10]])
    frame = cross_validate(GaussianNB(), X, y, cv=3, baselines=True)
    per_model = frame.groupby("model", observed=True)["train_duplicate"].apply(
        lambda s: s.to_numpy().tolist()
    )
    assert per_model["gaussiannb"] == per_model["dummy_prior"] == per_model["dummy_stratified"]
