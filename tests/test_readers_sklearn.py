"""from_sklearn_cv / from_cross_val_predict: scikit-learn's CV outputs with their true folds.

Oracles: scikit-learn itself on the same estimators and splitters: ``cross_validate``'s
per-fold ``test_score``, ``cross_val_score(...).mean()`` and ``f1_score`` of
``cross_val_predict``.
"""

from __future__ import annotations

import doctest
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_iris, make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import (
    GroupKFold,
    KFold,
    RepeatedStratifiedKFold,
    ShuffleSplit,
    StratifiedKFold,
    cross_val_predict,
    cross_val_score,
    cross_validate,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from cvframe.readers import ReaderError
from cvframe.readers.sklearn import (
    COLUMNS,
    from_cross_val_predict,
    from_sklearn_cv,
    looks_like,
    read_sklearn,
)

ROOT = Path(__file__).resolve().parents[1]
X, Y = make_classification(
    157, n_features=8, n_informative=3, weights=[0.75], flip_y=0.1, random_state=5
)
MODEL = make_pipeline(StandardScaler(), LogisticRegression(C=0.1))


def _cv_results(cv, scoring="f1", est=MODEL, X=X, y=Y):
    return cross_validate(
        est, X, y, cv=cv, scoring=scoring, return_indices=True, return_estimator=True
    )


# --- cross_validate ------------------------------------------------------------------------


def test_per_fold_f_equals_cross_validate_test_score_exactly():
    cv = StratifiedKFold(7, shuffle=True, random_state=0)
    res = _cv_results(cv)
    frame = from_sklearn_cv(res, X, Y)
    per_fold = frame.cv.counts().cv.f().values.ravel()
    assert per_fold.tolist() == res["test_score"].tolist()  # exactly, fold by fold


def test_f_avg_is_cross_val_score_mean_and_pooled_is_cross_val_predict():
    cv = StratifiedKFold(7, shuffle=True, random_state=0)
    ds = from_sklearn_cv(_cv_results(cv), X, Y).cv.counts()
    mean = cross_val_score(MODEL, X, Y, cv=cv, scoring="f1").mean()
    assert ds.cv.f_avg().item() == pytest.approx(mean, abs=1e-12)
    pooled = f1_score(Y, cross_val_predict(MODEL, X, Y, cv=cv))
    assert ds.cv.f_tp_fp().item() == pytest.approx(pooled, abs=1e-12)
    assert abs(mean - pooled) > 1e-4  # they are different numbers


def test_frame_columns_scores_and_no_refit():
    cv = KFold(5, shuffle=True, random_state=1)
    res = _cv_results(cv)
    frame = from_sklearn_cv(res, X, Y)
    assert list(frame.columns) == ["fold", "sample", "y_true", "y_pred", "score"]
    assert frame.attrs == {"source": "sklearn", "task": "binary", "pos_label": 1}
    for i, test in enumerate(res["indices"]["test"]):
        rows = frame[frame.fold == i]
        assert rows["sample"].tolist() == list(test)
        # the fold's own estimator: its probabilities, not a refitted model's
        want = res["estimator"][i].predict_proba(X[test])[:, 1]
        assert rows["score"].to_numpy() == pytest.approx(want, abs=0)


def test_decision_function_scores_and_string_labels():
    y = np.where(Y == 1, "spam", "ham")
    cv = StratifiedKFold(4, shuffle=True, random_state=2)
    res = _cv_results(cv, scoring="accuracy", est=LinearSVC(dual=False), y=y)
    frame = from_sklearn_cv(res, X, y)
    assert frame.attrs["pos_label"] == "spam"  # classes_[1], the class decision_function scores
    test0 = res["indices"]["test"][0]
    assert frame[frame.fold == 0]["score"].to_numpy() == pytest.approx(
        res["estimator"][0].decision_function(X[test0])
    )
    neg = from_sklearn_cv(res, X, y, pos_label="ham")
    assert neg[neg.fold == 0]["score"].to_numpy() == pytest.approx(
        -res["estimator"][0].decision_function(X[test0])
    )
    acc = neg.cv.counts().cv.accuracy(dim=[]).values.ravel()
    assert acc == pytest.approx(res["test_score"])


def test_repeated_cv_gets_a_repeat_column():
    cv = RepeatedStratifiedKFold(n_splits=4, n_repeats=3, random_state=0)
    res = _cv_results(cv)
    frame = from_sklearn_cv(res, X, Y)
    assert sorted(frame["repeat"].unique()) == [0, 1, 2]
    assert sorted(frame["fold"].unique()) == [0, 1, 2, 3]
    ds = frame.cv.counts()
    per = ds.cv.f().transpose("repeat", "fold", ...).values.ravel()
    assert per.tolist() == res["test_score"].tolist()


def test_multiclass_scores_per_class():
    Xi, yi = load_iris(return_X_y=True)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    est = make_pipeline(StandardScaler(), LogisticRegression())
    res = _cv_results(cv, scoring="f1_macro", est=est, X=Xi, y=yi)
    frame = from_sklearn_cv(res, Xi, yi)
    assert [c for c in frame.columns if c.startswith("score_")] == [
        "score_0",
        "score_1",
        "score_2",
    ]
    macro = frame.cv.counts().cv.macro("f", fold_method=None).values.ravel()
    assert macro == pytest.approx(res["test_score"], abs=1e-12)


def test_dataframe_X_is_indexed_by_position():
    data = load_breast_cancer(as_frame=True)
    Xd, yd = data.data.iloc[::3], data.target.iloc[::3]
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    res = _cv_results(cv, X=Xd, y=yd)
    per = from_sklearn_cv(res, Xd, yd).cv.counts().cv.f().values.ravel()
    assert per.tolist() == res["test_score"].tolist()


def test_cv_results_without_indices_or_estimator_says_which_argument():
    cv = KFold(3)
    plain = cross_validate(MODEL, X, Y, cv=cv, return_estimator=True)
    with pytest.raises(ReaderError, match="return_indices=True"):
        from_sklearn_cv(plain, X, Y)
    plain = cross_validate(MODEL, X, Y, cv=cv, return_indices=True)
    with pytest.raises(ReaderError, match="return_estimator=True"):
        from_sklearn_cv(plain, X, Y)
    with pytest.raises(TypeError, match="cv_results"):
        from_sklearn_cv([1, 2], X, Y)


def test_fold_without_rows_and_wrong_y():
    res = _cv_results(KFold(3))
    tests = list(res["indices"]["test"])
    tests[1] = np.array([], dtype=int)
    res["indices"] = {"train": res["indices"]["train"], "test": tests}
    with pytest.raises(ReaderError, match="fold 1 has no test rows"):
        from_sklearn_cv(res, X, Y)
    res = _cv_results(KFold(3))
    with pytest.raises(ReaderError, match="X and y given to cross_validate"):
        from_sklearn_cv(res, X[:50], Y[:50])


# --- cross_val_predict -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "cv", [5, KFold(6), StratifiedKFold(5, shuffle=True, random_state=3)], ids=str
)
def test_cross_val_predict_folds_are_the_splitters(cv):
    y_pred = cross_val_predict(MODEL, X, Y, cv=cv)
    frame = from_cross_val_predict(Y, y_pred, cv)
    ds = frame.cv.counts()
    assert ds.cv.f_tp_fp().item() == pytest.approx(f1_score(Y, y_pred), abs=1e-12)
    res = _cv_results(cv)
    assert ds.cv.f().values.ravel().tolist() == res["test_score"].tolist()
    assert ds.cv.f_avg().item() == pytest.approx(res["test_score"].mean(), abs=1e-12)


def test_cross_val_predict_with_groups_and_probabilities():
    groups = np.arange(len(Y)) % 9
    cv = GroupKFold(3)
    proba = cross_val_predict(MODEL, X, Y, cv=cv, groups=groups, method="predict_proba")
    y_pred = proba.argmax(axis=1)
    frame = from_cross_val_predict(Y, y_pred, cv, groups=groups, scores=proba)
    assert frame["score"].to_numpy() == pytest.approx(proba[frame["sample"].to_numpy(), 1])
    for _, rows in frame.groupby("fold"):
        assert len(set(groups[rows["sample"]])) == 3  # 9 groups in 3 folds


def test_shuffling_splitter_without_random_state_is_refused():
    y_pred = cross_val_predict(MODEL, X, Y, cv=KFold(5, shuffle=True, random_state=0))
    with pytest.raises(ValueError, match=r"cv=KFold.*random_state=None"):
        from_cross_val_predict(Y, y_pred, KFold(5, shuffle=True))
    with pytest.raises(ValueError, match=r"cv=StratifiedKFold.*RandomState"):
        from_cross_val_predict(
            Y, y_pred, StratifiedKFold(5, shuffle=True, random_state=np.random.RandomState(0))
        )


def test_non_partition_splitter_is_refused():
    with pytest.raises(ValueError, match="partition"):
        from_cross_val_predict(Y, Y, ShuffleSplit(3, test_size=0.5, random_state=0))


def test_cross_val_predict_bad_shapes_name_the_argument():
    with pytest.raises(ValueError, match="y_pred"):
        from_cross_val_predict(Y, Y[:-1], 5)
    with pytest.raises(ValueError, match="scores"):
        from_cross_val_predict(Y, Y, 5, scores=np.zeros((len(Y), 3)))


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 8), st.integers(0, 2**16), st.booleans())
def test_any_splitter_per_fold_counts_equal_sklearn(k, seed, stratified):
    cv = (StratifiedKFold if stratified else KFold)(k, shuffle=True, random_state=seed)
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 60)
    y[:k] = 1
    y[k : 2 * k] = 0
    y_pred = np.where(rng.random(60) < 0.3, 1 - y, y)
    frame = from_cross_val_predict(y, y_pred, cv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = frame.cv.counts().cv.f(zero_division=0).values.ravel()
    want = [f1_score(y[t], y_pred[t], zero_division=0) for _, t in cv.split(np.zeros(60), y)]
    assert f == pytest.approx(want, abs=1e-12)


# --- the results table -------------------------------------------------------------------------


def test_results_table_is_recognised_and_explained(tmp_path):
    res = _cv_results(KFold(3))
    table = pd.DataFrame({k: v for k, v in res.items() if k not in ("estimator", "indices")})
    assert set(COLUMNS) <= set(table.columns) and looks_like(table)
    assert not looks_like(pd.DataFrame(columns=["fold", "y_true", "y_pred"]))
    path = tmp_path / "scores.csv"
    table.to_csv(path, index=False)
    with pytest.raises(ReaderError, match="holds no predictions.*return_indices=True"):
        read_sklearn(path)
    frame = read_sklearn(_cv_results(KFold(3)), X=X, y=Y)
    assert frame.attrs["source"] == "sklearn"
    with pytest.raises(ReaderError, match="X= and y="):
        read_sklearn(_cv_results(KFold(3)))


def test_another_tools_table_is_named(tmp_path):
    mlr3 = pd.DataFrame({"iteration": [1], "row_ids": [1], "truth": ["a"], "response": ["a"]})
    with pytest.raises(ReaderError, match="mlr3"):
        read_sklearn(mlr3)
    with pytest.raises(ReaderError, match=r"not scikit-learn's.*test_<scorer>"):
        read_sklearn(pd.DataFrame({"x": [1]}))


def test_excel_file_is_refused(tmp_path):
    path = tmp_path / "scores.xlsx"
    path.write_bytes(b"PK\x03\x04")
    with pytest.raises(ReaderError, match="Excel.*CSV"):
        read_sklearn(path)


# --- the docs page ------------------------------------------------------------------------------


def test_doc_page_examples_run(monkeypatch):
    monkeypatch.chdir(ROOT)
    text = (ROOT / "docs" / "readers_sklearn.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if ">>>" in b]
    assert blocks
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, "page", "page", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    failures: list[str] = []
    runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)
