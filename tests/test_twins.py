"""Twins: cross_validate's train_duplicate column finds test rows equal to a training row up
to a relative 1e-6 in every numeric feature (the paper's twinning), not only exact copies,
against a brute-force oracle; the search is bounded (benchmarks/bench_twins.py times it at
10^6 rows)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import KFold
from sklearn.naive_bayes import GaussianNB

import cvframe
from cvframe.runner import twins


def _oracle(num, keys, splits, rtol=twins.RTOL):
    """Every (test row, training row) pair compared, feature by feature."""
    out = []
    for tr, te in splits:
        for i in te:
            a, b = num[i], num[tr]
            with np.errstate(invalid="ignore"):
                close = np.abs(a - b) <= rtol * np.maximum(np.abs(a), np.abs(b))
            close |= (a == b) | (np.isnan(a) & np.isnan(b))
            hit = close.all(axis=1)
            if keys is not None:
                hit &= keys[tr] == keys[i]
            out.append(bool(hit.any()))
    return np.array(out)


def _planted(n=400, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.choice([1e-3, 1.0, 1e6], size=d)
    src, dst = rng.choice(n, 60, replace=False).reshape(2, 30)
    X[dst[:10]] = X[src[:10]]  # exact copies
    X[dst[10:20]] = X[src[10:20]] * (1 + rng.uniform(-9e-7, 9e-7, (10, d)))  # near
    X[dst[20:]] = X[src[20:]] * (1 + rng.choice([-1, 1], (10, d)) * 3e-6)  # not near
    X[dst[25], 0] = X[src[25], 0] = np.nan  # NaN equals NaN, the rest 3e-6 apart: not near
    X[dst[15], 1] = X[src[15], 1] = np.nan
    return X, list(KFold(5, shuffle=True, random_state=0).split(X))


def test_near_twins_equal_the_brute_force_oracle():
    X, splits = _planted()
    col, how = twins.train_duplicates(X, splits, False)
    want = _oracle(X, None, splits)
    np.testing.assert_array_equal(col, want)
    assert how == "computed" and 10 < want.sum() < 40


def test_integers_and_a_frame_with_text_features():
    X, splits = _planted(seed=1)
    df = pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])])
    df["site"] = np.where(np.arange(len(df)) % 2, "a", "b")  # twins must share it too
    df["count"] = (np.nan_to_num(np.abs(X[:, 0])) * 1e3).astype(np.int64)
    num = df.drop(columns="site").to_numpy(dtype=np.float64)
    col, _ = twins.train_duplicates(df, splits, False)
    np.testing.assert_array_equal(col, _oracle(num, df["site"].to_numpy(), splits))


def test_cross_validate_marks_near_twins_and_anomalies_reports_them():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] > 0).astype(int)
    X[:20] = X[20:40] * (1 + 1e-7)  # rewritten through rounding: the same records
    y[:20] = y[20:40]
    cv = KFold(3, shuffle=True, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = cvframe.cross_validate(GaussianNB(), X, y, cv=cv)
        found = cvframe.diagnostics.anomalies(frame.cv.counts(), frame=frame)
    want = _oracle(X, None, list(cv.split(X)))
    np.testing.assert_array_equal(frame["train_duplicate"].to_numpy(), want)
    assert want.sum() > 10  # exact hashing alone finds none of them
    assert "train_duplicate" in set(found.kind)


def test_too_many_candidates_falls_back_to_exact_copies_and_says_so(monkeypatch):
    X, splits = _planted()
    monkeypatch.setattr(twins, "PAIR_BUDGET", 0)
    col, how = twins.train_duplicates(X, splits, False)
    assert how.startswith("computed (exact copies only")
    exact = [
        np.isin(
            pd.util.hash_pandas_object(pd.DataFrame(X[te]), index=False),
            pd.util.hash_pandas_object(pd.DataFrame(X[tr]), index=False),
        )
        for tr, te in splits
    ]
    np.testing.assert_array_equal(col, np.concatenate(exact))


@pytest.mark.parametrize("n", [1, 2])
def test_tiny_inputs(n):
    X = np.ones((n, 3))
    splits = [(np.arange(n)[: n // 2], np.arange(n)[n // 2 :])]
    col, how = twins.train_duplicates(X, splits, False)
    assert col.tolist() == ([True] if n == 2 else [False] * (n - n // 2))
