"""The out-of-bag Bootstrap splitter and the .632 / .632+ estimates."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_iris
from sklearn.model_selection import check_cv, cross_val_score
from sklearn.model_selection import cross_validate as sk_cross_validate
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier

import cvframe
from cvframe.bootstrap import bootstrap_632, no_information_rate
from cvframe.errors import CountsError
from cvframe.runner import cross_validate, to_counts
from cvframe.splits import Bootstrap


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield


@pytest.fixture(scope="module")
def noisy():
    """A weak signal under heavy label noise: 1-NN and deep trees overfit it."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(120, 2))
    y = (X[:, 0] + rng.normal(scale=1.5, size=120) > 0).astype(int)
    return X, y


def direct_errors(frame):
    """Per-split error rates straight from the predictions, no cube involved."""
    wrong = frame.assign(e=(frame["y_true"] != frame["y_pred"]).astype(float))
    err = wrong.groupby(["subset", "fold"])["e"].mean()
    return err.loc["test"].to_numpy(), err.loc["train"].to_numpy()


def direct_gamma(frame):
    train = frame[frame["subset"] == "train"]
    labels = np.union1d(train["y_true"], train["y_pred"])
    p = np.array([(train["y_true"] == c).mean() for c in labels])
    q = np.array([(train["y_pred"] == c).mean() for c in labels])
    return float(np.sum(p * (1 - q)))


def direct_632_plus(e_test, e_train, gamma):
    err1, err = e_test.mean(), e_train.mean()
    err1p = min(err1, gamma)
    r = (err1p - err) / (gamma - err) if (err1 > err and gamma > err) else 0.0
    w = 0.632 / (1 - 0.368 * r)
    return (1 - w) * err + w * err1p


# --- the splitter -----------------------------------------------------------------------------


@settings(max_examples=50)
@given(n=st.integers(2, 60), k=st.integers(1, 4), seed=st.integers(0, 2**32 - 1))
def test_bootstrap_split_properties(n, k, seed):
    X = np.zeros((n, 1))
    splits = list(Bootstrap(k, random_state=seed).split(X))
    assert len(splits) == k
    for train, test in splits:
        assert len(train) == n  # n draws, duplicates kept
        assert train.min() >= 0 and train.max() < n
        assert len(test) >= 1
        np.testing.assert_array_equal(test, np.setdiff1d(np.arange(n), train))  # out-of-bag
        assert not np.isin(test, train).any()  # disjoint


def test_out_of_bag_share_is_about_0368():
    n = 1000
    shares = [len(te) / n for _, te in Bootstrap(200, random_state=0).split(np.zeros(n))]
    expected = (1 - 1 / n) ** n  # 0.3677
    assert abs(np.mean(shares) - expected) < 0.005
    assert abs(np.mean(shares) - np.exp(-1)) < 0.005


def test_bootstrap_seeds():
    X = np.zeros((50, 2))
    a = [tr for tr, _ in Bootstrap(3, random_state=1).split(X)]
    b = [tr for tr, _ in Bootstrap(3, random_state=1).split(X)]
    c = [tr for tr, _ in Bootstrap(3, random_state=2).split(X)]
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))
    bs = Bootstrap(2, random_state=None)
    first = next(bs.split(X))[0]
    assert any(not np.array_equal(first, next(bs.split(X))[0]) for _ in range(3))
    for state in (np.random.default_rng(0), np.random.RandomState(0)):
        train, test = next(Bootstrap(1, random_state=state).split(X))
        assert len(train) == 50 and not np.isin(test, train).any()


def test_bootstrap_interface_and_repr():
    bs = Bootstrap(7, random_state=3)
    assert bs.get_n_splits() == 7 and bs.get_n_splits(np.zeros((4, 1))) == 7
    assert repr(bs) == "Bootstrap(n_splits=7, random_state=3)"
    assert check_cv(bs) is bs
    assert Bootstrap().n_splits == 200


def test_bootstrap_works_in_scikit_learn():
    X, y = load_iris(return_X_y=True)
    est = DecisionTreeClassifier(random_state=0)
    bs = Bootstrap(4, random_state=0)
    scores = cross_val_score(est, X, y, cv=bs)
    res = sk_cross_validate(est, X, y, cv=bs, return_train_score=True)
    assert scores.shape == (4,)
    np.testing.assert_allclose(res["test_score"], scores)
    # the same accuracies as cvframe's per-fold test accuracy
    ds = cross_validate(est, X, y, cv=bs, scores=False).cv.counts()
    np.testing.assert_allclose(ds.cv.accuracy().values.ravel(), scores, atol=1e-12)


def test_bootstrap_bad_arguments():
    for bad in (0, -1, 2.5, "10", True):
        with pytest.raises(ValueError, match="Bootstrap needs a positive integer number"):
            Bootstrap(bad).get_n_splits()
    with pytest.raises(ValueError, match="Bootstrap needs at least 2 samples, X has 1"):
        next(Bootstrap(2).split(np.zeros((1, 1))))
    with pytest.raises(ValueError, match="random_state='x' is not valid"):
        next(Bootstrap(2, random_state="x").split(np.zeros((5, 1))))


# --- .632 and .632+ ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def boot_frame(noisy):
    X, y = noisy
    return cross_validate(
        KNeighborsClassifier(1),
        X,
        y,
        cv=Bootstrap(30, random_state=1),
        return_train=True,
        scores=False,
    )


def test_632_equals_direct_computation(boot_frame):
    ds = boot_frame.cv.counts()
    e_test, e_train = direct_errors(boot_frame)
    expected = np.mean(0.632 * e_test + 0.368 * e_train)
    got = bootstrap_632(ds)
    assert got.dims == ("repeat", "class")
    assert abs(got.item() - expected) < 1e-12
    assert abs(bootstrap_632(ds, metric="accuracy").item() - (1 - expected)) < 1e-12
    assert got.attrs == {"method": "bootstrap_632", "metric": "error", "reduced_dims": "fold"}


def test_632_plus_equals_direct_computation_and_exceeds_632_when_overfitting(boot_frame):
    ds = boot_frame.cv.counts()
    e_test, e_train = direct_errors(boot_frame)
    assert e_train.max() == 0  # 1-NN recalls its training set: maximal overfitting
    gamma = direct_gamma(boot_frame)
    assert abs(no_information_rate(ds.sel(subset="train")).item() - gamma) < 1e-12
    plus = bootstrap_632(ds, plus=True).item()
    assert abs(plus - direct_632_plus(e_test, e_train, gamma)) < 1e-12
    assert plus > bootstrap_632(ds).item() + 0.05
    assert plus <= max(e_test.mean(), gamma) + 1e-12


def test_632_plus_deep_tree_multiclass():
    X, y = load_iris(return_X_y=True)
    rng = np.random.default_rng(0)
    y = np.where(rng.random(len(y)) < 0.3, rng.integers(0, 3, len(y)), y)  # label noise
    frame = cross_validate(
        DecisionTreeClassifier(random_state=0),
        X,
        y,
        cv=Bootstrap(20, random_state=0),
        return_train=True,
        scores=False,
    )
    ds = frame.cv.counts()
    e_test, e_train = direct_errors(frame)
    e632 = bootstrap_632(ds)
    assert e632.dims == ("repeat",)  # multiclass: one error rate, class reduced
    assert abs(e632.item() - np.mean(0.632 * e_test + 0.368 * e_train)) < 1e-12
    plus = bootstrap_632(ds, plus=True).item()
    assert abs(plus - direct_632_plus(e_test, e_train, direct_gamma(frame))) < 1e-12
    assert plus > e632.item()


def counts_cube(test, train, model=None):
    """A binary subset cube from (tp, fp, fn, tn) per split."""
    rows = []
    for sub, table in (("test", test), ("train", train)):
        for i, (tp, fp, fn, tn) in enumerate(table):
            rows.append(
                {"subset": sub, "fold": i, "class": 1, "tp": tp, "fp": fp, "fn": fn, "tn": tn}
            )
    return cvframe.from_counts(pd.DataFrame(rows))


def test_632_plus_hand_computed_cases():
    # no overfitting (same error on train and test): R' = 0, .632+ = .632
    ds = counts_cube([(3, 1, 1, 5)], [(3, 1, 1, 5)])
    assert bootstrap_632(ds, plus=True).item() == pytest.approx(0.2, abs=1e-15)
    assert bootstrap_632(ds).item() == pytest.approx(0.2, abs=1e-15)
    # out-of-bag error above the no-information rate: .632+ is the no-information rate
    ds = counts_cube([(0, 5, 5, 0)], [(5, 0, 0, 5)])  # test all wrong, train all right
    # train: p = q = 1/2, gamma = 1/2 * 1/2 + 1/2 * 1/2 = 1/2
    assert bootstrap_632(ds, plus=True).item() == pytest.approx(0.5, abs=1e-15)
    assert bootstrap_632(ds).item() == pytest.approx(0.632, abs=1e-15)
    # R' = (0.3 - 0) / (0.5 - 0) = 0.6, w = 0.632 / (1 - 0.368 * 0.6)
    ds = counts_cube([(2, 2, 1, 5)], [(5, 0, 0, 5)])
    w = 0.632 / (1 - 0.368 * 0.6)
    assert bootstrap_632(ds, plus=True).item() == pytest.approx(w * 0.3, abs=1e-15)


def test_multilabel_632_per_label(noisy):
    X, y = noisy
    Y = np.column_stack([y, (X[:, 1] > 0).astype(int)])
    frame = cross_validate(
        DecisionTreeClassifier(max_depth=4, random_state=0),
        X,
        Y,
        cv=Bootstrap(10, random_state=0),
        stratified=False,
        return_train=True,
        scores=False,
    )
    ds = to_counts(frame)
    got = bootstrap_632(ds)
    assert got.dims == ("repeat", "class")
    for j in range(2):
        sub = frame.rename(columns={f"y_true_{j}": "y_true", f"y_pred_{j}": "y_pred"})
        e_test, e_train = direct_errors(sub)
        expected = np.mean(0.632 * e_test + 0.368 * e_train)
        assert abs(got.isel({"class": j}).item() - expected) < 1e-12


def test_keeps_other_dims_and_accessor_parity(boot_frame, noisy):
    X, y = noisy
    other = cross_validate(
        GaussianNB(), X, y, cv=Bootstrap(30, random_state=1), return_train=True, scores=False
    )
    a, b = boot_frame.cv.counts(), other.cv.counts()
    both = xr.concat([a, b], dim=pd.Index(["knn", "nb"], name="model"))
    for plus in (False, True):
        res = bootstrap_632(both, plus=plus)
        assert set(res.dims) == {"model", "repeat", "class"}
        assert res.sel(model="knn").item() == bootstrap_632(a, plus=plus).item()
        assert res.sel(model="nb").item() == bootstrap_632(b, plus=plus).item()
        xr.testing.assert_identical(both.cv.bootstrap_632(plus=plus), res)
    from cvframe._core.docs import accessor_doc

    assert both.cv.bootstrap_632.__doc__ == accessor_doc(bootstrap_632)


def test_survives_netcdf_round_trip(boot_frame, tmp_path):
    ds = boot_frame.cv.counts()
    path = tmp_path / "boot.nc"
    ds.to_netcdf(path)
    back = cvframe.open_dataset(path)
    for plus in (False, True):
        assert bootstrap_632(back, plus=plus).item() == bootstrap_632(ds, plus=plus).item()


def test_silent_on_good_input(boot_frame):
    ds = boot_frame.cv.counts()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bootstrap_632(ds, plus=True)


def test_bootstrap_632_bad_inputs(boot_frame):
    ds = boot_frame.cv.counts()
    with pytest.raises(CountsError, match="ds has no 'subset' dim.*return_train=True"):
        bootstrap_632(ds.sel(subset="test"))
    with pytest.raises(CountsError, match=r"'subset' holds \['test'\] but needs \['train'\]"):
        bootstrap_632(ds.sel(subset=["test"]))
    with pytest.raises(ValueError, match="metric='f' is not valid"):
        bootstrap_632(ds, metric="f")
    with pytest.raises(TypeError, match="plus='yes'"):
        bootstrap_632(ds, plus="yes")
    with pytest.raises(ValueError, match="(?i)dimension\\(s\\) 'folds' do not exist.*dim='folds'"):
        bootstrap_632(ds, dim="folds")
    with pytest.raises(ValueError, match="includes 'class'"):
        bootstrap_632(ds, dim=["fold", "class"])
    with pytest.raises(TypeError, match="ds must be an xarray.Dataset"):
        bootstrap_632(boot_frame)
    empty = ds.copy(deep=True)
    for v in ("tp", "fp", "fn", "tn"):
        empty[v].loc[{"subset": "test", "fold": 2}] = 0
    with pytest.raises(
        CountsError, match=r"1 split\(s\) have an empty test set \(repeat=\[0\], fold=\[2\]\)"
    ):
        bootstrap_632(empty)
    multi = cross_validate(
        GaussianNB(),
        *load_iris(return_X_y=True),
        cv=Bootstrap(2, random_state=0),
        return_train=True,
        scores=False,
    ).cv.counts()
    bare = multi.drop_vars("confusion")
    bare.attrs = {}
    with pytest.raises(CountsError, match="3 classes but no 'task' attr"):
        bootstrap_632(bare)
