"""Reader of R caret's ``train(...)$pred``: fixtures made by caret, and caret's own numbers.

The fixtures in tests/data/readers/caret/ were written by make_fixture.R (next to them) with
Debian's r-cran-caret; caret_reported.csv holds what caret reported in the same run:
``confusionMatrix`` on the pooled predictions, ``fit$resample`` (per resample) and
``fit$results`` (caret's default report: the mean over resamples).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score, confusion_matrix, f1_score

from cvframe.readers.caret import COLUMNS, looks_like, read_caret

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "readers" / "caret"
RS = ["repeat", "fold"]  # every resample of a repeated CV
# caret's CSVs print 15 significant digits
TOL = {"rtol": 1e-12, "atol": 1e-14}


def reported(fixture: str, source: str) -> pd.DataFrame:
    df = pd.read_csv(DATA / "caret_reported.csv", keep_default_na=False)
    out = df[(df.fixture == fixture) & (df.source == source)]
    assert len(out), (fixture, source)
    return out


def value(fixture: str, source: str, metric: str, cls: str = "") -> float:
    rows = reported(fixture, source)
    rows = rows[(rows.metric == metric) & (rows["class"] == cls)]
    assert len(rows) == 1, (fixture, source, metric, cls)
    return float(rows.value.iloc[0])


def item(x) -> float:
    return float(np.asarray(x).squeeze())


@pytest.fixture(scope="module")
def binary() -> pd.DataFrame:
    return read_caret(DATA / "pred_binary.csv")


@pytest.fixture(scope="module")
def multi() -> pd.DataFrame:
    return read_caret(DATA / "pred_multiclass.csv")


# --- the frame ------------------------------------------------------------------------------


def test_binary_frame_columns_and_attrs(binary):
    raw = pd.read_csv(DATA / "pred_binary.csv")
    assert list(binary.columns) == [
        "repeat",
        "fold",
        "y_true",
        "y_pred",
        "score",
        "param",
        "sample",
    ]
    assert binary.attrs == {
        "source": "caret",
        "task": "binary",
        "resampling": "repeatedcv",
        "pos_label": "versicolor",  # caret's positive class: the first factor level
    }
    # factor order = order of caret's probability columns
    assert list(binary.y_true.cat.categories) == ["versicolor", "virginica"]
    np.testing.assert_array_equal(binary.score, raw.versicolor)
    expected_fold = raw.Resample.str.extract(r"Fold(\d+)\.Rep(\d+)").astype(int)
    np.testing.assert_array_equal(binary.fold, expected_fold[0])
    np.testing.assert_array_equal(binary["repeat"], expected_fold[1])
    np.testing.assert_array_equal(binary["sample"], raw.rowIndex)
    assert set(binary.param) == {"k=9"}  # savePredictions = "final": the chosen k only
    # 5-fold CV repeated twice over 97 rows: every row tested once per repeat
    assert sorted(binary.groupby("repeat")["sample"].apply(sorted).iloc[0]) == list(range(1, 98))
    assert binary.groupby("repeat").size().tolist() == [97, 97]
    assert looks_like(raw) and set(COLUMNS) <= set(raw.columns)


def test_savepredictions_all_keeps_every_candidate(binary):
    every = read_caret(DATA / "pred_binary_all.csv")
    assert sorted(every.param.unique()) == ["k=5", "k=9"]
    cube = every.cv.counts()
    assert list(cube.param.values) == ["k=5", "k=9"]
    # the final model's predictions are the k=9 rows of the "all" run (same seed, same folds)
    final = binary.cv.counts().sel(param="k=9")
    np.testing.assert_array_equal(cube.confusion.sel(param="k=9"), final.confusion)
    np.testing.assert_allclose(
        item(cube.cv.f_tp_fp(dim=RS).sel(param="k=9")),
        value("binary_all", "confusionMatrix", "F1", "versicolor"),
        **TOL,
    )


def test_row_names_column_of_write_csv_default_is_dropped(tmp_path, binary):
    path = tmp_path / "pred.csv"
    pd.read_csv(DATA / "pred_binary.csv").to_csv(path)  # index written: R's row.names = TRUE
    text = path.read_text().split("\n", 1)
    path.write_text('""' + text[0] + "\n" + text[1])
    pd.testing.assert_frame_equal(read_caret(path), binary)


# --- caret's numbers -------------------------------------------------------------------------


def test_pooled_numbers_equal_carets_confusion_matrix(binary):
    ds = binary.cv.counts()
    pos = "versicolor"
    got = {
        "Accuracy": ds.cv.accuracy(how="pooled", dim=RS),
        "Kappa": ds.cv.kappa(dim=RS),
        "Sensitivity": ds.cv.aggregate("recall", "tp_fp", dim=RS),
        "Recall": ds.cv.aggregate("recall", "tp_fp", dim=RS),
        "Specificity": ds.cv.aggregate("specificity", "tp_fp", dim=RS),
        "Precision": ds.cv.aggregate("precision", "tp_fp", dim=RS),
        "Pos Pred Value": ds.cv.aggregate("precision", "tp_fp", dim=RS),
        "F1": ds.cv.f_tp_fp(dim=RS),
    }
    for metric, x in got.items():
        cls = "" if metric in ("Accuracy", "Kappa") else pos
        np.testing.assert_allclose(
            item(x), value("binary", "confusionMatrix", metric, cls), **TOL, err_msg=metric
        )
    # and an independent oracle on the same pooled predictions
    assert item(got["F1"]) == pytest.approx(
        f1_score(binary.y_true, binary.y_pred, pos_label=pos), rel=1e-12
    )


def test_per_resample_numbers_equal_carets_resample(binary):
    """fit$resample: defaultSummary, twoClassSummary (ROC, Sens, Spec), prSummary (P, R, F)."""
    ds = binary.cv.counts().squeeze("param", drop=True)
    rs = reported("binary", "resample").pivot(index="resample", columns="metric", values="value")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no resample is undefined here
        per_fold = {
            "Accuracy": ds.cv.accuracy(),
            "Kappa": ds.cv.kappa(fold_method=None),
            "Precision": ds.cv.precision(),
            "Recall": ds.cv.recall(),
            "Sens": ds.cv.recall(),
            "Spec": ds.cv.specificity(),
            "F": ds.cv.f(),
            "ROC": binary.cv.auc(method="fold").squeeze("param", drop=True),
        }
    assert len(rs) == 10
    for name, row in rs.iterrows():
        fold, rep = (int(s) for s in name.replace("Fold", "").split(".Rep"))
        for metric, x in per_fold.items():
            np.testing.assert_allclose(
                item(x.sel(repeat=rep, fold=fold)), row[metric], **TOL, err_msg=f"{name} {metric}"
            )


def test_carets_default_report_is_the_mean_over_all_resamples(binary):
    """fit$results (what train() prints) = mean over all repeat x fold resamples."""
    ds = binary.cv.counts()
    mean = {
        "Accuracy": ds.cv.accuracy(how="avg", dim=RS),
        "Kappa": ds.cv.kappa("avg", dim=RS),
        "Precision": ds.cv.aggregate("precision", "avg", dim=RS),
        "Recall": ds.cv.aggregate("recall", "avg", dim=RS),
        "Sens": ds.cv.aggregate("recall", "avg", dim=RS),
        "Spec": ds.cv.aggregate("specificity", "avg", dim=RS),
        "F": ds.cv.f_avg(dim=RS),
        # AUC_avg per repeat, then the mean over repeats (equal fold counts per repeat)
        "ROC": binary.cv.auc(method="avg").mean("repeat"),
    }
    for metric, x in mean.items():
        np.testing.assert_allclose(
            item(x), value("binary", "results", metric), **TOL, err_msg=metric
        )
    # folds of 19 and 20 rows: caret's mean is not the pooled number, to 4 digits
    assert abs(item(mean["Accuracy"]) - item(ds.cv.accuracy(how="pooled", dim=RS))) > 1e-5
    assert abs(item(mean["F"]) - item(ds.cv.f_tp_fp(dim=RS))) > 1e-5
    # equal fold counts per repeat: the mean of the per-repeat means is the same number
    per_repeat = ds.cv.accuracy(how="avg").mean("repeat")
    np.testing.assert_allclose(item(per_repeat), value("binary", "results", "Accuracy"), **TOL)


def test_multiclass_equals_carets_numbers(multi):
    assert multi.attrs == {
        "source": "caret",
        "task": "multiclass",
        "resampling": "cv",
        "labels": ["setosa", "versicolor", "virginica"],
    }
    assert [c for c in multi.columns if c.startswith("score_")] == [
        "score_setosa",
        "score_versicolor",
        "score_virginica",
    ]
    assert "repeat" not in multi.columns
    ds = multi.cv.counts()
    np.testing.assert_allclose(
        item(ds.cv.accuracy(how="pooled")),
        value("multiclass", "confusionMatrix", "Accuracy"),
        **TOL,
    )
    np.testing.assert_allclose(
        item(ds.cv.kappa()), value("multiclass", "confusionMatrix", "Kappa"), **TOL
    )
    assert item(ds.cv.kappa()) == pytest.approx(cohen_kappa_score(multi.y_true, multi.y_pred))
    f1 = ds.cv.f_tp_fp().squeeze("param", drop=True)
    pooled = ds.cv.pooled().squeeze("param", drop=True)
    for cls in multi.attrs["labels"]:
        for metric, x in [
            ("F1", f1),
            ("Precision", pooled.cv.precision()),
            ("Recall", pooled.cv.recall()),
            ("Specificity", pooled.cv.specificity()),
        ]:
            np.testing.assert_allclose(
                float(x.sel({"class": cls})),
                value("multiclass", "confusionMatrix", metric, cls),
                **TOL,
                err_msg=f"{cls} {metric}",
            )
    np.testing.assert_allclose(
        item(ds.cv.accuracy(how="avg")), value("multiclass", "results", "Accuracy"), **TOL
    )
    np.testing.assert_allclose(
        item(ds.cv.kappa("avg")), value("multiclass", "results", "Kappa"), **TOL
    )


def test_positive_overrides_carets_first_level(binary):
    flipped = read_caret(DATA / "pred_binary.csv", positive="virginica")
    raw = pd.read_csv(DATA / "pred_binary.csv")
    assert flipped.attrs["pos_label"] == "virginica"
    np.testing.assert_array_equal(flipped.score, raw.virginica)
    ds = flipped.cv.counts()
    assert list(ds["class"].values) == ["virginica"]
    assert item(ds.cv.f_tp_fp(dim=RS)) == pytest.approx(
        f1_score(raw.obs, raw.pred, pos_label="virginica"), rel=1e-12
    )
    # AUC of the positive class's probability is AUC of the other's, mirrored
    a = flipped.cv.auc(method="merge")
    b = binary.cv.auc(method="merge")
    np.testing.assert_allclose(np.asarray(a).ravel(), np.asarray(b).ravel())


# --- resample ids, parameters, weights ---------------------------------------------------------


def frame(resample, **extra) -> pd.DataFrame:
    n = len(resample)
    obs = (["a", "b"] * n)[:n]
    pred = (["a", "a", "b"] * n)[:n]
    return pd.DataFrame(
        {"pred": pred, "obs": obs, "rowIndex": range(1, n + 1), **extra, "Resample": resample}
    )


@pytest.mark.parametrize(
    ("ids", "fold", "repeat", "kind"),
    [
        (["Fold01.Rep1", "Fold02.Rep1", "Fold01.Rep2", "Fold02.Rep2"], [1, 2, 1, 2], [1, 1, 2, 2],
         "repeatedcv"),
        (["Fold01", "Fold02", "Fold10", "Fold03"] + [f"Fold{i:02d}" for i in range(4, 10)],
         [1, 2, 10, 3, 4, 5, 6, 7, 8, 9], None, "cv"),
        (["Resample01", "Resample02", "Resample02"], [1, 2, 2], None, "resample"),
    ],
)  # fmt: skip
def test_resample_ids_become_fold_and_repeat(ids, fold, repeat, kind):
    out = read_caret(frame(ids))
    assert out.fold.tolist() == fold
    assert out.attrs["resampling"] == kind
    if repeat is None:
        assert "repeat" not in out.columns
    else:
        assert out["repeat"].tolist() == repeat
    # without classProbs: no score, R's default (sorted) level order
    assert "score" not in out.columns
    assert list(out.y_true.cat.categories) == ["a", "b"]


def test_tuning_columns_become_param_labels_and_none_placeholder_is_dropped():
    ids = ["Fold1", "Fold2"] * 2
    out = read_caret(frame(ids, sigma=[0.1, 0.1, 0.01, 0.01], C=[1, 1, 1, 1]))
    assert out.param.tolist() == ["C=1, sigma=0.1"] * 2 + ["C=1, sigma=0.01"] * 2
    assert read_caret(frame(ids, kernel=["radial"] * 4)).param.tolist() == ["kernel='radial'"] * 4
    glm = read_caret(frame(ids, parameter=["none"] * 4))
    assert "param" not in glm.columns and "parameter" not in glm.columns


def test_case_weights_are_kept_for_counts():
    out = read_caret(frame(["Fold1", "Fold2"] * 2, weights=[1.0, 2.0, 0.5, 1.0]))
    cube = out.cv.counts(pos_label="a", sample_weight="weights")
    assert float(cube.tp.sum() + cube.fn.sum()) == pytest.approx(1.0 + 0.5)


def test_model_argument_adds_a_model_column_for_stacking(binary):
    a = read_caret(DATA / "pred_binary.csv", model="knn")
    assert (a.model == "knn").all()
    assert a.drop(columns="model").equals(binary)


@settings(max_examples=25, deadline=None)
@given(
    n_rep=st.integers(1, 3),
    n_fold=st.integers(2, 4),
    seed=st.integers(0, 2**16),
)
def test_counts_equal_sklearn_confusion_per_resample(n_rep, n_fold, seed):
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(1, n_rep + 1):
        for f in range(1, n_fold + 1):
            m = int(rng.integers(2, 7))
            rows += [(f"Fold{f}.Rep{r}", *rng.choice(["x", "y", "z"], 2)) for _ in range(m)]
    df = pd.DataFrame(rows, columns=["Resample", "obs", "pred"])
    df["rowIndex"] = np.arange(1, len(df) + 1)
    if df[["obs", "pred"]].stack().nunique() < 2:
        df.loc[0, ["obs", "pred"]] = ["x", "y"]
    out = read_caret(df)
    labels = list(out.y_true.cat.categories)
    cube = out.cv.counts() if len(labels) > 2 else out.cv.counts(labels=labels)
    for (r, f), part in df.groupby(df.Resample.str.extract(r"Fold(\d+)\.Rep(\d+)")[[1, 0]]
                                   .astype(int).apply(tuple, axis=1)):  # fmt: skip
        expected = confusion_matrix(part.obs, part.pred, labels=labels)
        np.testing.assert_array_equal(cube.confusion.sel(repeat=r, fold=f), expected)


# --- bad inputs ----------------------------------------------------------------------------


def test_no_resample_column_asks_about_savepredictions():
    df = frame(["Fold1", "Fold2"]).drop(columns="Resample")
    with pytest.raises(ValueError, match=r"`Resample`.*savePredictions"):
        read_caret(df)


@pytest.mark.parametrize("column", ["obs", "pred"])
def test_missing_obs_or_pred_is_named(column):
    with pytest.raises(ValueError, match=f"`{column}`"):
        read_caret(frame(["Fold1", "Fold2"]).drop(columns=column))


@pytest.mark.parametrize("name", ["pred.xlsx", "pred.csv"])
def test_excel_file_says_export_csv(tmp_path, name):
    path = tmp_path / name
    # the first bytes of an .xlsx (a zip container); under a .csv name too
    path.write_bytes(b"PK\x03\x04" + bytes(60))
    with pytest.raises(ValueError, match=r"Excel.*CSV"):
        read_caret(path)


def test_weka_frame_given_to_read_caret_names_weka():
    weka = pd.DataFrame(
        {
            "Key_Dataset": ["iris"],
            "Key_Run": [1],
            "Key_Fold": [1],
            "Key_Scheme": ["weka.classifiers.trees.J48"],
            "Num_true_positives": [3],
        }
    )
    with pytest.raises(ValueError, match="WEKA"):
        read_caret(weka)


def test_tidymodels_frame_given_to_read_caret_names_tidymodels():
    tidy = pd.DataFrame({"id": ["Fold01"], ".row": [1], ".pred_class": ["a"], "Class": ["a"]})
    with pytest.raises(ValueError, match="tidymodels"):
        read_caret(tidy)


def test_mixed_tools_in_one_frame_are_an_error():
    mixed = frame(["Fold1", "Fold2"]).assign(row_ids=[1, 2], truth=["a", "b"], response="a")
    with pytest.raises(ValueError, match=r"mlr3.*mixed"):
        read_caret(mixed)


def test_cvframe_frame_given_to_read_caret_names_it():
    df = pd.DataFrame({"fold": [0, 1], "y_true": [0, 1], "y_pred": [0, 0]})
    with pytest.raises(ValueError, match="cvframe"):
        read_caret(df)


def test_missing_fold_of_a_repeat_is_an_error():
    ids = ["Fold1.Rep1", "Fold2.Rep1", "Fold3.Rep1", "Fold1.Rep2", "Fold2.Rep2"]
    with pytest.raises(ValueError, match=r"folds \[3\] of repeat 2"):
        read_caret(frame(ids))
    with pytest.raises(ValueError, match=r"resamples \[2\]"):
        read_caret(frame(["Fold1", "Fold3"]))


def test_candidate_without_rows_in_a_resample_is_an_error():
    df = frame(["Fold1", "Fold2", "Fold1"], k=[5, 5, 9])
    with pytest.raises(ValueError, match=r"candidate 'k=9'"):
        read_caret(df)


@pytest.mark.parametrize("bad", ["Fold1-Rep1", "Bootstrap3"])
def test_unknown_resample_id_is_named(bad):
    with pytest.raises(ValueError, match=f"`Resample`.*{bad}"):
        read_caret(frame(["Fold1", bad]))


def test_mixed_resample_kinds_are_an_error():
    with pytest.raises(ValueError, match="Resample.*mixes"):
        read_caret(frame(["Fold1", "Fold1.Rep1"]))


def test_positive_must_be_a_class_of_a_binary_task(multi):
    with pytest.raises(ValueError, match="positive="):
        read_caret(DATA / "pred_binary.csv", positive="setosa")
    with pytest.raises(ValueError, match="positive=.*binary"):
        read_caret(DATA / "pred_multiclass.csv", positive="setosa")


def test_probability_columns_must_cover_every_class():
    df = frame(["Fold1", "Fold2"], a=[0.7, 0.2])
    with pytest.raises(ValueError, match=r"probability columns \['a'\].*\['b'\]"):
        read_caret(df)


def test_missing_obs_value_is_named():
    df = frame(["Fold1", "Fold2", "Fold2"])
    df.loc[1, "obs"] = None
    with pytest.raises(ValueError, match="`obs` column has 1 missing"):
        read_caret(df)


def test_source_of_wrong_type_is_named():
    with pytest.raises(TypeError, match="source"):
        read_caret(42)


# --- regeneration with R, and the docs page --------------------------------------------------


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="needs Rscript with r-cran-caret")
def test_fixtures_regenerate_identically(tmp_path):
    env = {**os.environ, "TZ": "UTC"}
    run = subprocess.run(
        ["Rscript", str(DATA / "make_fixture.R"), str(tmp_path)],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    if "no package called" in run.stderr:
        pytest.skip(f"R lacks a package the script needs: {run.stderr.strip()[-200:]}")
    assert run.returncode == 0, run.stderr
    committed = sorted(p.name for p in DATA.glob("*.csv"))
    assert sorted(p.name for p in tmp_path.glob("*.csv")) == committed
    for name in committed:
        pd.testing.assert_frame_equal(
            pd.read_csv(tmp_path / name, keep_default_na=False),
            pd.read_csv(DATA / name, keep_default_na=False),
            rtol=1e-12,
            obj=name,
        )


def test_factor_levels_of_a_categorical_obs_are_the_level_order():
    """A frame read from an .rds (pyreadr) keeps R's factor: its levels are the order."""
    df = frame(["Fold1", "Fold2"] * 2)
    df["obs"] = pd.Categorical(df.obs, categories=["b", "a", "c"])
    out = read_caret(df)
    assert list(out.y_true.cat.categories) == ["b", "a", "c"]
    assert out.attrs["task"] == "multiclass"
    two = frame(["Fold1", "Fold2"] * 2)
    two["obs"] = pd.Categorical(two.obs, categories=["b", "a"])
    assert read_caret(two).attrs["pos_label"] == "b"  # caret's positive: the first level


def test_multiclass_summary_per_resample_and_its_mean(multi):
    """multiClassSummary: Mean_F1, Mean_Precision, ... are macro means per resample; AUC the
    mean one-vs-rest ROC area; fit$results averages them over the resamples."""
    ds = multi.cv.counts().squeeze("param", drop=True)
    rs = reported("multiclass", "resample").pivot(
        index="resample", columns="metric", values="value"
    )
    per_fold = {
        "Accuracy": ds.cv.accuracy(),
        "Kappa": ds.cv.kappa(fold_method=None),
        "Mean_F1": ds.cv.macro("f", None),
        "Mean_Precision": ds.cv.macro("precision", None),
        "Mean_Recall": ds.cv.macro("recall", None),
        "Mean_Specificity": ds.cv.specificity().mean("class"),
        "AUC": multi.cv.auc(method="fold", average="macro").squeeze("param", drop=True),
    }
    assert len(rs) == 5
    for name, row in rs.iterrows():
        fold = int(name.replace("Fold", ""))
        for metric, x in per_fold.items():
            np.testing.assert_allclose(
                item(x.sel(fold=fold)), row[metric], **TOL, err_msg=f"{name} {metric}"
            )
    means = {
        "Mean_F1": ds.cv.macro("f", "avg"),
        "Mean_Precision": ds.cv.macro("precision", "avg"),
        "AUC": multi.cv.auc(method="avg", average="macro"),
    }
    for metric, x in means.items():
        np.testing.assert_allclose(
            item(x), value("multiclass", "results", metric), **TOL, err_msg=metric
        )


@pytest.mark.parametrize(("column", "bad"), [("rowIndex", "x"), ("versicolor", "high")])
def test_non_numbers_in_numeric_columns_are_named(column, bad):
    df = pd.read_csv(DATA / "pred_binary.csv", dtype={column: object})
    df.loc[3, column] = bad
    with pytest.raises(ValueError, match=f"`{column}` column holds '{bad}'"):
        read_caret(df)
