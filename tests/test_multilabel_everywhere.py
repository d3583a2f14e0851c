"""Multilabel targets through every entry point: PooledSearchCV (against GridSearchCV on the
same splits), compare (per-fold multilabel metrics, clear refusals for the resampling tests),
anomalies (a fold lacking a label, a label missing from a training set), the scores reader
(per-label AUC equal to scikit-learn), the report and the command line on a CSV."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_multilabel_classification
from sklearn.metrics import f1_score, hamming_loss, make_scorer, roc_auc_score
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier

import cvframe
from cvframe import formulas
from cvframe.comparison import MULTILABEL_METRICS, compare
from cvframe.diagnostics import anomalies
from cvframe.errors import UndefinedMetricWarning
from cvframe.search import MULTILABEL_SCORINGS, PooledSearchCV
from cvframe.splits import multilabel_kfold

GRID = {"n_neighbors": [3, 9]}


@pytest.fixture(scope="module")
def data():
    X, Y = make_multilabel_classification(n_samples=90, n_classes=4, random_state=0)
    return X, Y, list(multilabel_kfold(3).split(X, Y))


@pytest.fixture(scope="module")
def two(data):
    """Two models cross-validated on the same iteratively stratified folds."""
    X, Y, _ = data
    models = {
        "knn": KNeighborsClassifier(),
        "tree": DecisionTreeClassifier(max_depth=3, random_state=0),
    }
    return cvframe.cross_validate(models, X, Y, cv=3)


# --- PooledSearchCV -------------------------------------------------------------------------------

#: scikit-learn scorer names on multilabel y, and the pooled scoring each one becomes.
SCORERS = {
    "f1_samples": "f_samples",
    "jaccard_samples": "jaccard_samples",
    "accuracy": "subset_accuracy",
    "f1_macro": "f_tp_fp",
    "f1_micro": "f_tp_fp",
    "f1_weighted": "f_tp_fp",
    "precision_macro": "precision_tp_fp",
    "recall_micro": "recall_tp_fp",
    "jaccard_macro": "jaccard_tp_fp",
}


@pytest.mark.parametrize("name", list(SCORERS))
def test_search_fold_mean_equals_gridsearchcv(data, name):
    X, Y, splits = data
    ours = PooledSearchCV(
        KNeighborsClassifier(), GRID, scoring=name, cv=splits, zero_division=0.0, refit=False
    ).fit(X, Y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = GridSearchCV(KNeighborsClassifier(), GRID, scoring=name, cv=splits).fit(X, Y)
    assert ours.scoring_ == SCORERS[name]
    for key in ("mean_test_score", "split0_test_score", "split2_test_score", "std_test_score"):
        np.testing.assert_allclose(ours.cv_results_[key], theirs.cv_results_[key], atol=1e-12)
    np.testing.assert_array_equal(
        ours.cv_results_["rank_mean_test_score"], theirs.cv_results_["rank_test_score"]
    )


def test_search_pooled_score_is_the_metric_of_the_pooled_predictions(data):
    X, Y, splits = data
    search = PooledSearchCV(
        KNeighborsClassifier(), GRID, scoring="f1_samples", cv=splits, zero_division=0.0
    ).fit(X, Y)
    pred = search.predictions_
    assert [c for c in pred.columns if c.startswith("y_")] == [
        *(f"y_true_{j}" for j in range(4)),
        *(f"y_pred_{j}" for j in range(4)),
    ]
    assert search.cube_.attrs["task"] == "multilabel"
    pooled = []
    for label in pred.param.cat.categories:
        part = pred[pred.param == label]
        yt, yp = part.filter(like="y_true_").to_numpy(), part.filter(like="y_pred_").to_numpy()
        pooled.append(f1_score(yt, yp, average="samples", zero_division=0))
    np.testing.assert_allclose(search.cv_results_["pooled_test_score"], pooled, atol=1e-12)
    best = int(np.argmax(pooled))
    assert search.best_index_ == best and search.best_score_ == pytest.approx(pooled[best])
    assert search.predict(X[:5]).shape == (5, 4)  # refitted on the indicator matrix


def test_search_hamming_and_average_samples(data):
    X, Y, splits = data
    ham = PooledSearchCV(
        KNeighborsClassifier(), GRID, scoring="neg_hamming_loss", cv=splits, refit=False
    ).fit(X, Y)
    neg = make_scorer(hamming_loss, greater_is_better=False)
    theirs = GridSearchCV(KNeighborsClassifier(), GRID, scoring=neg, cv=splits).fit(X, Y)
    np.testing.assert_allclose(
        ham.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"], atol=1e-12
    )
    assert (ham.cv_results_["pooled_test_score"] < 0).all()
    by_average = PooledSearchCV(
        KNeighborsClassifier(), GRID, scoring="jaccard", average="samples", cv=splits,
        zero_division=0.0, refit=False,
    ).fit(X, Y)  # fmt: skip
    assert by_average.scoring_ == "jaccard_samples"


def test_search_f_samples_at_another_beta(data):
    from sklearn.metrics import fbeta_score

    X, Y, splits = data
    ours = PooledSearchCV(
        KNeighborsClassifier(), GRID, scoring="f1_samples", beta=2.0, cv=splits,
        zero_division=0.0, refit=False,
    ).fit(X, Y)  # fmt: skip
    pred = ours.predictions_
    for i, label in enumerate(pred.param.cat.categories):
        for k in range(3):
            part = pred[(pred.param == label) & (pred.fold == k)]
            want = fbeta_score(
                _cols(part, "y_true"), _cols(part, "y_pred"), beta=2.0, average="samples",
                zero_division=0,
            )  # fmt: skip
            assert ours.cv_results_[f"split{k}_test_score"][i] == pytest.approx(want)


def test_search_int_cv_stratifies_labels_as_cross_validate(data):
    X, Y, splits = data
    search = PooledSearchCV(
        KNeighborsClassifier(), GRID, scoring="f1_micro", cv=3, refit=False
    ).fit(X, Y)
    pred = search.predictions_
    first = pred[pred.param == pred.param.cat.categories[0]]
    for i, (_, test) in enumerate(splits):
        assert sorted(first.loc[first.fold == i, "sample"]) == sorted(test.tolist())
    assert pred.attrs["stratified"] == "yes"


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"scoring": "f1"}, "needs average='samples', 'macro'"),
        ({"scoring": "roc_auc"}, "not defined for a multilabel y"),
        ({"scoring": "balanced_accuracy"}, "not defined for a multilabel y"),
        ({"scoring": "precision_samples"}, "average='samples' is defined here for F"),
        ({"scoring": "f1_samples", "average": "macro"}, "drop one of them"),
        ({"scoring": "f1_micro", "pos_label": 1}, "pos_label"),
    ],
)
def test_search_bad_multilabel_requests_say_the_fix(data, kw, match):
    X, Y, splits = data
    with pytest.raises(ValueError, match=match):
        PooledSearchCV(KNeighborsClassifier(), GRID, cv=splits, **kw).fit(X, Y)


def test_multilabel_scorings_refused_on_1d_y(data):
    X, Y, _ = data
    with pytest.raises(ValueError, match="multilabel y"):
        PooledSearchCV(KNeighborsClassifier(), GRID, scoring="f1_samples", cv=3).fit(X, Y[:, 0])
    with pytest.raises(ValueError, match="multilabel y"):
        formulas.scorer_metric("subset_accuracy")
    assert set(formulas.MULTILABEL_SCORER_ALIASES.values()) <= set(MULTILABEL_SCORINGS)


def test_search_warns_once_for_samples_without_labels():
    X = np.arange(24.0)[:, None]
    Y = np.zeros((24, 2), dtype=int)
    Y[12:, 0] = 1
    Y[18:, 1] = (
        1  # the first 12 samples have no label: per-sample F is 0/0 where nothing is predicted
    )
    with pytest.warns(UndefinedMetricWarning) as rec:
        PooledSearchCV(
            KNeighborsClassifier(), {"n_neighbors": [1]}, scoring="f1_samples",
            cv=KFold(3, shuffle=True, random_state=0), refit=False,
        ).fit(X, Y)  # fmt: skip
    assert sum(issubclass(w.category, UndefinedMetricWarning) for w in rec) == 1


# --- compare ------------------------------------------------------------------------------------


@pytest.mark.parametrize("metric", [m for m in MULTILABEL_METRICS if not m.endswith("_avg")])
def test_compare_multilabel_metric_per_fold(two, metric):
    ds = two.cv.counts()
    res = compare(ds, metric, baseline="tree", zero_division=0.0)
    assert res.attrs["test"] == "corrected_t"
    funcs = {
        "f_samples": lambda t, p: f1_score(t, p, average="samples", zero_division=0),
        "jaccard_samples": lambda t, p: _jaccard(t, p),
        "subset_accuracy": lambda t, p: float((t == p).all(axis=1).mean()),
        "hamming_loss": hamming_loss,
    }
    diffs = []
    for k in range(3):
        vals = []
        for m in ("knn", "tree"):
            g = two[(two.model == m) & (two.fold == k)]
            vals.append(funcs[metric](_cols(g, "y_true"), _cols(g, "y_pred")))
        diffs.append(vals[0] - vals[1])
    assert float(res["mean"].squeeze()) == pytest.approx(np.mean(diffs), abs=1e-12)
    from_frame = compare(two, metric, baseline="tree", zero_division=0.0)
    assert float(from_frame["p_value"].squeeze()) == pytest.approx(float(res["p_value"].squeeze()))


def _cols(g, prefix):
    return g[[c for c in g.columns if c.startswith(prefix + "_")]].to_numpy()


def _jaccard(t, p):
    from sklearn.metrics import jaccard_score

    return jaccard_score(t, p, average="samples", zero_division=0)


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"metric": "f_tp_fp", "test": "bootstrap"}, "multilabel .*test='paired_delta'"),
        ({"metric": "f", "test": "bootstrap"}, "reads single-label"),
        ({"metric": "f", "pos_label": 1}, "pos_label=1 is for single-label"),
    ],
)
def test_compare_multilabel_frame_refusals_name_the_fix(two, kw, match):
    with pytest.raises(ValueError, match=match):
        compare(two, **kw)


def test_friedman_refuses_the_lower_is_better_hamming_loss(two):
    import xarray as xr

    ds = two.cv.counts()
    sets = xr.concat([ds, ds], dim=pd.Index(["a", "b"], name="dataset"))
    with pytest.raises(ValueError, match="lower-is-better"):
        compare(sets, "hamming_loss")
    assert compare(sets, "subset_accuracy").attrs["test"] == "friedman"


# --- anomalies ----------------------------------------------------------------------------------


def test_anomalies_fold_lacking_a_label_and_label_missing_from_training():
    rng = np.random.default_rng(0)
    fold = np.arange(60) % 3
    Y = rng.integers(0, 2, (60, 3))
    Y[:, 2] = (fold == 0).astype(int)  # label 2 only in fold 0
    P = np.where(rng.random((60, 3)) < 0.8, Y, 1 - Y)
    found = anomalies(cvframe.from_predictions(Y, P, fold=fold))
    lacking = found[found.kind == "undefined_recall"]
    assert set(zip(lacking["fold"], lacking["class"], strict=True)) == {(1, 2), (2, 2)}
    missing = found[found.kind == "class_missing_from_training"]
    assert missing[["fold", "class"]].values.tolist() == [[0, 2]]
    assert (missing.severity == "error").all()


def test_anomalies_reads_a_multilabel_frame_with_scores(two):
    found = anomalies(two.cv.counts(), frame=two)
    assert "code" in found.columns  # runs through the one reader (scores per label)


# --- scores -----------------------------------------------------------------------------------


def test_per_label_auc_and_curves_of_a_multilabel_frame(two):
    knn = two[two.model == "knn"].drop(columns="model")
    auc = knn.cv.auc("merge")
    Y, S = _cols(knn, "y_true"), _cols(knn, "score")
    np.testing.assert_allclose(auc.squeeze("repeat"), roc_auc_score(Y, S, average=None))
    assert auc.attrs["task"] == "multilabel"
    roc = knn.cv.roc()
    assert sorted(roc["class"].unique()) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="pos_label=1 is for single-label"):
        knn.cv.auc(pos_label=1)
    with pytest.raises(cvframe.errors.ColumnError, match="score_<label> column per label"):
        knn.drop(columns="score_3").cv.auc()


# --- end to end --------------------------------------------------------------------------------


@pytest.mark.slow(reason="end to end: cross-validations, a search, compare, report, CLI (~5-7 s)")
def test_end_to_end(tmp_path, data, two, capsys):
    X, Y, splits = data
    ds = two.cv.counts()
    metrics = ds.cv.multilabel_metrics(zero_division=0.0)
    assert set(metrics.data_vars) >= {"f_samples", "subset_accuracy", "hamming_loss"}
    assert two.attrs["stratified"] == "yes"  # iterative stratification of the labels
    search = PooledSearchCV(
        KNeighborsClassifier(), GRID, scoring="f1_samples", cv=3, zero_division=0.0
    ).fit(X, Y)
    assert search.cube_.sizes["param"] == 2
    res = compare(ds, "f_samples", baseline="tree", zero_division=0.0)
    assert np.isfinite(float(res["p_value"].squeeze()))
    assert isinstance(anomalies(ds, frame=two), pd.DataFrame)
    knn = ds.sel(model="knn")
    assert "Multilabel metrics" in knn.cv.report()
    assert "f_samples" in knn.cv.report(format="html")
    knn_frame = two[two.model == "knn"].drop(columns="model")
    assert knn_frame.cv.plot.roc() is not None  # one ROC per label
    path = tmp_path / "pred.csv"
    two[two.model == "knn"].drop(columns="model").to_csv(path, index=False)
    from cvframe.cli import main

    assert main(["report", str(path)]) == 0
    out = capsys.readouterr().out
    assert "task=multilabel" in out and "Multilabel metrics" in out
    assert "AUC_avg" in out  # the score_<label> columns, scored label by label
    assert main(["report", str(path), "--format", "html", "--out", str(tmp_path / "o")]) == 0
    assert "f_samples" in (tmp_path / "o" / "report.html").read_text()
    assert main(["report", str(path), "--pos-label", "1"]) == 2
    assert "--pos-label is for single-label files" in capsys.readouterr().err
    assert main(["report", str(path), "--labels", "0,1"]) == 2
