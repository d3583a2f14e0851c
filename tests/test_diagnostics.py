"""Fold diagnostics: every kind of finding on a constructed case, the paper's Table 2, none on
clean data, dims kept, bad arguments named."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import cvframe
from cvframe import diagnostics
from cvframe.diagnostics import KINDS, anomalies, fold_table, methods_table


def _binary(tp, fp, fn, tn):
    return cvframe.from_counts(
        {"tp": np.array(tp), "fp": np.array(fp), "fn": np.array(fn), "tn": np.array(tn)},
        task="binary",
        pos_label=1,
    )


def _kinds(found):
    return sorted(found["kind"].tolist())


def _clean(
    seed: int, folds: int = 10, repeats: int = 3, n: int = 3000, classes: int = 3
) -> xr.Dataset:
    """Single-label predictions with a constant 85% accuracy: binomial noise only."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, n * repeats)
    wrong = rng.random(n * repeats) < 0.15
    y_pred = np.where(wrong, (y + rng.integers(1, classes, y.size)) % classes, y)
    fold = np.tile(np.arange(n) % folds, repeats)
    repeat = np.repeat(np.arange(repeats), n)
    return cvframe.from_predictions(y, y_pred, fold, repeat=repeat)


def test_table2_finds_the_fold_without_predicted_positives():
    found = anomalies(cvframe.datasets.table2())
    assert list(found.columns) == [
        "severity",
        "code",
        "kind",
        "fold",
        "class",
        "detail",
        "explanation",
    ]
    prec = found[found.kind == "undefined_precision"]
    assert prec["fold"].tolist() == [1] and prec["class"].tolist() == [1]
    assert "TP=0, FP=0, FN=4" in prec["detail"].iloc[0]
    # the five methods span 0.667..0.909 on Table 2 (paper): a stated tolerance flags them
    dis = found[found.kind == "methods_disagree"]
    assert dis["fold"].tolist() == [None]
    assert "0.667-0.909" in dis["detail"].iloc[0]
    assert _kinds(found) == ["methods_disagree", "undefined_precision"]


def test_table1_methods_disagree_depends_on_tolerance():
    ds = cvframe.datasets.table1()
    assert _kinds(anomalies(ds)) == ["methods_disagree"]  # spread 0.734 - 0.583 = 0.150
    assert anomalies(ds, tolerance=0.16).empty
    assert _kinds(anomalies(ds, tolerance=0.149)) == ["methods_disagree"]


def test_empty_fold_reported_once_without_its_undefined_metrics():
    ds = _binary([5, 0, 5], [1, 0, 1], [1, 0, 1], [93, 0, 93])
    found = anomalies(ds, tolerance=1.0)
    assert _kinds(found) == ["empty_fold"]
    assert found["fold"].tolist() == [1] and found["class"].tolist() == [None]


def test_undefined_recall():
    ds = _binary([5, 0, 5], [1, 2, 1], [1, 0, 1], [93, 98, 93])
    found = anomalies(ds, tolerance=1.0)
    assert _kinds(found) == ["undefined_recall"]
    assert found["fold"].tolist() == [1]
    assert "TP=0, FP=2, FN=0, TN=98" in found["detail"].iloc[0]


def test_class_absent_replaces_its_per_fold_undefined_recall():
    # class "c" is in the label universe but never true (it is predicted once)
    y_true = ["a", "b", "a", "b", "a", "b", "a", "b"]
    y_pred = ["a", "b", "a", "c", "a", "b", "a", "b"]
    ds = cvframe.from_predictions(y_true, y_pred, [0, 0, 0, 0, 1, 1, 1, 1], labels=["a", "b", "c"])
    found = anomalies(ds, tolerance=1.0)
    absent = found[found.kind == "class_absent"]
    assert absent["class"].tolist() == ["c"] and absent["fold"].tolist() == [None]
    assert not ((found.kind == "undefined_recall") & (found["class"] == "c")).any()
    # class c is never predicted in fold 1 either: that undefined precision is still listed
    assert ((found.kind == "undefined_precision") & (found["class"] == "c")).sum() == 1


def test_outlying_fold_flagged_by_the_binomial_rule():
    tp = [45] * 10
    tp[3] = 10  # recall 0.2 against a pooled recall of ~0.83 with 50 positives per fold
    ds = _binary(tp, [5] * 10, [50 - t for t in tp], [445] * 10)
    found = anomalies(ds, tolerance=1.0)
    out = found[found.kind == "outlying_fold"]
    assert out["fold"].tolist() == [3]
    assert "recall 0.200 (10/50)" in out["detail"].iloc[0]
    # the rule: exact two-sided binomial p below alpha / m (m = tests run)
    from scipy import stats

    pooled = sum(tp) / 500
    p = 2 * stats.binom.cdf(10, 50, pooled)
    assert p < 0.01 / 20

    def flagged(alpha):
        return anomalies(ds, tolerance=1.0, alpha=alpha).query("kind == 'outlying_fold'")

    assert flagged(p * 20 * 1.01)["fold"].tolist() == [3]  # p < alpha / 20
    assert flagged(p * 20 * 0.99).empty  # p > alpha / 20


def test_outlying_precision_fold():
    fp = [5] * 10
    fp[7] = 60  # precision 45/105 against ~0.86 pooled
    ds = _binary([45] * 10, fp, [5] * 10, [500 - f for f in fp])
    found = anomalies(ds, tolerance=1.0)
    out = found[found.kind == "outlying_fold"]
    assert out["fold"].tolist() == [7]
    assert out["detail"].iloc[0].startswith("precision 0.429 (45/105)")


@pytest.mark.parametrize("seed", range(8))
def test_clean_binomial_data_has_no_findings(seed):
    found = anomalies(_clean(seed))
    assert found.empty, found


def test_every_kind_is_documented():
    doc = anomalies.__doc__
    for kind in KINDS:
        assert f"``{kind}``" in doc


def test_user_dims_become_columns_and_are_kept():
    base = cvframe.datasets.table2()
    ds = xr.concat(
        [base, base.assign(tp=base.tp * 0 + 2, fn=base.fn * 0 + 2)],
        dim=pd.Index(["m1", "m2"], name="model"),
    )
    ds = xr.concat([ds, ds], dim=pd.Index([0, 1], name="repeat"))
    found = anomalies(ds)
    assert list(found.columns) == [
        "severity",
        "code",
        "kind",
        "repeat",
        "model",
        "fold",
        "class",
        "detail",
        "explanation",
    ]
    prec = found[found.kind == "undefined_precision"]
    assert sorted(zip(prec["repeat"], prec["model"], prec["fold"], strict=True)) == [
        (0, "m1", 1),
        (1, "m1", 1),
    ]
    # sorted by severity, then repeat and model, the whole-class finding after the folds
    for _, part in found.groupby("severity", sort=False):
        assert part["repeat"].tolist() == sorted(part["repeat"].tolist())
    assert found["severity"].tolist() == ["warning", "warning", "info", "info"]


def test_dask_cube_gives_the_same_findings():
    ds = cvframe.datasets.table2()
    lazy = ds.chunk({"fold": 2})
    pd.testing.assert_frame_equal(anomalies(lazy), anomalies(ds))


def test_silent_under_warnings_as_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        anomalies(cvframe.datasets.table2())
        fold_table(cvframe.datasets.table2())
        methods_table(cvframe.datasets.table2())


def test_accessor_delegates():
    ds = cvframe.datasets.table1()
    pd.testing.assert_frame_equal(ds.cv.anomalies(tolerance=0.1), anomalies(ds, tolerance=0.1))
    # the accessor shows the function's docstring without the ds parameter it supplies
    from cvframe._core.docs import accessor_doc

    assert ds.cv.anomalies.__doc__ == accessor_doc(anomalies)
    assert "ds : xarray.Dataset" not in ds.cv.anomalies.__doc__


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"tolerance": -0.1}, "tolerance=-0.1 must be a finite number >= 0"),
        ({"tolerance": float("nan")}, "tolerance=nan"),
        ({"tolerance": "0.1"}, "tolerance='0.1'"),
        ({"alpha": 0}, r"alpha=0 must be a number in \(0, 1\)"),
        ({"alpha": 1.5}, "alpha=1.5"),
    ],
)
def test_bad_arguments_are_named(kw, match):
    with pytest.raises(ValueError, match=match):
        anomalies(cvframe.datasets.table1(), **kw)


def test_not_a_cube():
    with pytest.raises(TypeError, match="ds must be an xarray.Dataset"):
        anomalies(pd.DataFrame({"tp": [1]}))
    with pytest.raises(cvframe.CountsError, match="missing count variable"):
        anomalies(cvframe.datasets.table1().drop_vars("tn"))


def test_fold_table_matches_sklearn_per_fold():
    from sklearn.metrics import f1_score, precision_score, recall_score

    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 400)
    y_pred = np.where(rng.random(400) < 0.3, 1 - y, y)
    fold = np.arange(400) % 4
    table = fold_table(cvframe.from_predictions(y, y_pred, fold))
    for i in range(4):
        m = fold == i
        row = table[table.fold == i].iloc[0]
        assert row.precision == pytest.approx(precision_score(y[m], y_pred[m]))
        assert row.recall == pytest.approx(recall_score(y[m], y_pred[m]))
        assert row.f == pytest.approx(f1_score(y[m], y_pred[m]))


def test_methods_table_has_the_paper_values():
    row = methods_table(cvframe.datasets.table2()).iloc[0]
    assert [round(row[m], 3) for m in cvframe.reduce.F_METHODS] == [
        0.769,
        0.667,
        0.682,
        0.889,
        0.909,
    ]


def test_module_all():
    assert set(diagnostics.__all__) == {
        "COLUMNS",
        "FINDINGS",
        "Finding",
        "KINDS",
        "SEVERITIES",
        "anomalies",
        "fold_table",
        "group_findings",
        "methods_table",
    }


# --- cells that are not folds -------------------------------------------------------------


def _per_model(found, name):
    part = found[found["model"] == name].drop(columns="model").reset_index(drop=True)
    return part.astype(object)


def test_concat_of_a_5_and_a_10_fold_model_finds_what_each_finds_alone():
    # model a: fold 1 predicts nothing; model b: fold 7 has no positives, fold 3 is an outlier
    a = _binary([5, 0, 5, 4, 5], [1, 0, 1, 2, 1], [1, 4, 1, 2, 1], [93, 96, 93, 92, 93])
    tp = [45] * 10
    tp[3] = 10
    fn = [50 - t for t in tp]
    tp[7], fn[7] = 0, 0
    b = _binary(tp, [5] * 10, fn, [445] * 10)
    both = xr.concat([a, b], dim=pd.Index(["a", "b"], name="model"), join="outer")
    assert bool(both.tp.isnull().any())  # NaN padding for folds 5-9 of model a
    found = anomalies(both)
    alone_a, alone_b = anomalies(a), anomalies(b)
    assert "empty_fold" not in set(found["kind"])
    assert _kinds(alone_a) == ["methods_disagree", "undefined_precision"]
    assert "undefined_recall" in _kinds(alone_b) and "outlying_fold" in _kinds(alone_b)
    pd.testing.assert_frame_equal(_per_model(found, "a"), alone_a.astype(object))
    pd.testing.assert_frame_equal(_per_model(found, "b"), alone_b.astype(object))


def _two_repeats(fold_1):
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 600)
    y_pred = np.where(rng.random(600) < 0.15, 1 - y, y)
    fold = np.concatenate([np.arange(300) % 5, fold_1])
    return cvframe.from_predictions(y, y_pred, fold, repeat=np.repeat([0, 1], 300))


@pytest.mark.parametrize("fold_1, padded", [(np.arange(300) % 10, 5), (5 + np.arange(300) % 5, 10)])
def test_repeats_with_different_folds_raise_no_padding_finding(fold_1, padded):
    ds = _two_repeats(fold_1)
    assert int((ds.tp + ds.fp + ds.fn + ds.tn == 0).sum()) == padded  # padded cells exist
    found = anomalies(ds)
    assert found.empty, found
    for r in (0, 1):
        alone = ds.sel(repeat=r)
        alone = alone.isel(
            fold=np.flatnonzero((alone.tp + alone.fp + alone.fn + alone.tn).values.ravel() > 0)
        )
        assert anomalies(alone).empty


def test_class_absent_counts_the_real_folds():
    y_true = ["a", "b"] * 6
    y_pred = ["a", "b"] * 6
    fold = np.concatenate([np.arange(6) % 2, np.arange(6) % 3])
    ds = cvframe.from_predictions(
        y_true, y_pred, fold, repeat=np.repeat([0, 1], 6), labels=["a", "b", "c"]
    )
    found = anomalies(ds, tolerance=1.0)
    absent = found[found.kind == "class_absent"]
    assert absent["repeat"].tolist() == [0, 1]
    assert "any of the 2 folds" in absent["detail"].iloc[0]
    assert "any of the 3 folds" in absent["detail"].iloc[1]
    assert "empty_fold" not in set(found["kind"])


def test_partial_nan_cell_is_an_error_naming_the_variable():
    ds = cvframe.datasets.table2().astype(float)
    ds["fn"][2, 0] = np.nan
    with pytest.raises(cvframe.CountsError, match="fn"):
        anomalies(ds)


def _scored_binary_frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 400
    df = pd.DataFrame({"fold": rng.integers(0, 4, n), "y_true": rng.integers(0, 2, n)})
    df["y_pred"] = df["y_true"]
    df["score"] = np.where(df["fold"] == 1, 1 - df["y_true"], df["y_true"]) * 0.5 + rng.random(n)
    return df


def test_anomalies_read_a_given_fold_auc_as_they_compute_it():
    df = _scored_binary_frame()
    ds = df.cv.counts()
    given = cvframe.scores.auc(df, "fold", undefined="nan")
    pd.testing.assert_frame_equal(
        ds.cv.anomalies(frame=df, scores=df), ds.cv.anomalies(frame=df, scores=df, fold_auc=given)
    )
    assert "worse_than_random" in set(ds.cv.anomalies(frame=df, fold_auc=given)["kind"])


@pytest.mark.parametrize(
    "bad, err, match",
    [
        (np.ones(4), TypeError, "fold_auc must be an xarray.DataArray, got ndarray"),
        (xr.DataArray(np.ones(3), dims="x"), ValueError, "fold_auc has no 'fold' dim"),
        (
            xr.DataArray(np.ones((4, 2)), dims=("fold", "seed")),
            ValueError,
            r"dims the cube lacks: \['seed'\]",
        ),
        ("first two folds", ValueError, r"no value for the cube's folds \[2, 3\]"),
    ],
)
def test_a_fold_auc_that_does_not_fit_the_cube_is_refused(bad, err, match):
    df = _scored_binary_frame()
    ds = df.cv.counts()
    if isinstance(bad, str):
        bad = cvframe.scores.auc(df, "fold", undefined="nan").isel(fold=slice(0, 2))
    with pytest.raises(err, match=match):
        ds.cv.anomalies(frame=df, fold_auc=bad)
