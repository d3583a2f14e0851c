"""read_mlr3: mlr3's per-iteration predictions as the predictions frame, and what mlr3 reports.

R with mlr3 is not installable here: the fixtures in tests/data/readers/mlr3/ follow mlr3's
documented layout and hold real predictions made with scikit-learn (make_fixtures.py); the
oracles are scikit-learn's metrics on the same predictions (expected.json and recomputed here).
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import accuracy_score, f1_score

from cvframe.readers import ReaderError
from cvframe.readers.mlr3 import COLUMNS, looks_like, read_mlr3

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "readers" / "mlr3"
EXPECTED = json.loads((DATA / "expected.json").read_text())


def test_fixtures_regenerate_identically(tmp_path):
    """make_fixtures.py is deterministic and made the committed files."""
    script = (DATA / "make_fixtures.py").read_text()
    (tmp_path / "make_fixtures.py").write_text(script)
    subprocess.run([sys.executable, str(tmp_path / "make_fixtures.py")], check=True, timeout=120)
    for name in ("resample_binary.csv", "benchmark.csv", "repeated_multiclass.csv"):
        pd.testing.assert_frame_equal(pd.read_csv(tmp_path / name), pd.read_csv(DATA / name))
    assert json.loads((tmp_path / "expected.json").read_text()) == EXPECTED


def test_fixtures_say_they_are_not_made_by_mlr3():
    text = (DATA / "README.md").read_text()
    assert "not installable" in text and "make_fixtures.py" in text


# --- the resample fixture: frame, and both of mlr3's aggregations ------------------------------


def test_resample_frame_shape_and_attrs():
    frame = read_mlr3(DATA / "resample_binary.csv")
    raw = pd.read_csv(DATA / "resample_binary.csv")
    assert list(frame.columns) == ["fold", "y_true", "y_pred", "score", "sample"]
    assert frame.attrs == {"source": "mlr3", "task": "binary", "pos_label": "malignant"}
    assert (frame["fold"].to_numpy() == raw["iteration"].to_numpy()).all()
    assert (frame["sample"].to_numpy() == raw["row_ids"].to_numpy()).all()
    assert (frame["score"].to_numpy() == raw["prob.malignant"].to_numpy()).all()
    assert (frame["y_true"].astype(str).to_numpy() == raw["truth"].to_numpy()).all()


def test_resample_per_iteration_scores_equal_sklearn():
    frame = read_mlr3(DATA / "resample_binary.csv")
    f = frame.cv.counts().cv.f().squeeze().values
    exp = EXPECTED["resample_binary"]["per_iteration"]
    assert f == pytest.approx([exp[str(i)]["fbeta"] for i in range(1, 6)], abs=1e-12)
    acc = frame.cv.counts().cv.accuracy(dim=[]).squeeze().values
    assert acc == pytest.approx([exp[str(i)]["acc"] for i in range(1, 6)], abs=1e-12)


def test_aggregate_macro_is_f_avg_and_micro_is_f_tp_fp():
    """rr$aggregate(msr("classif.fbeta")) (macro, the default) and average = "micro"."""
    ds = read_mlr3(DATA / "resample_binary.csv").cv.counts()
    exp = EXPECTED["resample_binary"]
    assert ds.cv.f_avg().item() == pytest.approx(exp["macro"]["fbeta"], abs=1e-12)
    assert ds.cv.f_tp_fp().item() == pytest.approx(exp["micro"]["fbeta"], abs=1e-12)
    assert ds.cv.accuracy(how="avg").item() == pytest.approx(exp["macro"]["acc"], abs=1e-12)
    assert ds.cv.accuracy(how="pooled").item() == pytest.approx(exp["micro"]["acc"], abs=1e-12)
    # the two differ in the fourth digit: which one a paper printed matters
    assert abs(exp["macro"]["fbeta"] - exp["micro"]["fbeta"]) > 5e-5


def test_positive_argument_changes_the_scored_class():
    raw = pd.read_csv(DATA / "resample_binary.csv")
    frame = read_mlr3(raw, positive="benign")
    assert frame.attrs["pos_label"] == "benign"
    assert (frame["score"].to_numpy() == raw["prob.benign"].to_numpy()).all()
    f = frame.cv.counts().cv.f_tp_fp().item()
    assert f == pytest.approx(f1_score(raw.truth, raw.response, pos_label="benign"), abs=1e-12)


def test_benchmark_maps_task_and_learner_to_dataset_and_model():
    frame = read_mlr3(DATA / "benchmark.csv")
    ds = frame.cv.counts()
    assert {"model", "dataset"} <= set(ds.dims)
    macro, micro = ds.cv.f_avg(), ds.cv.f_tp_fp()
    for key, exp in EXPECTED["benchmark"].items():
        task_id, learner_id = key.split("/")
        sel = {"dataset": task_id, "model": learner_id}
        assert macro.sel(sel).item() == pytest.approx(exp["macro_fbeta"], abs=1e-12)
        assert micro.sel(sel).item() == pytest.approx(exp["micro_fbeta"], abs=1e-12)


def test_repeated_cv_with_folds_splits_iterations():
    raw = pd.read_csv(DATA / "repeated_multiclass.csv")
    frame = read_mlr3(raw, folds=3)
    assert frame.attrs["task"] == "multiclass"
    assert frame.attrs["labels"] == ["setosa", "versicolor", "virginica"]
    it = raw["iteration"].to_numpy()
    assert (frame["repeat"].to_numpy() == (it - 1) // 3 + 1).all()
    assert (frame["fold"].to_numpy() == (it - 1) % 3 + 1).all()
    ds = frame.cv.counts()
    exp = EXPECTED["repeated_multiclass"]
    # mlr3's macro aggregate: the mean over all 6 iterations = mean over repeats of the avg
    assert ds.cv.accuracy(how="avg").mean("repeat").item() == pytest.approx(exp["macro_acc"])
    # mlr3's micro aggregate pools every iteration of every repeat
    assert ds.cv.accuracy(how="pooled", dim=["repeat", "fold"]).item() == pytest.approx(
        exp["micro_acc"]
    )
    per_fold = ds.cv.macro("f", fold_method=None).stack(it=["repeat", "fold"]).values
    assert per_fold == pytest.approx(exp["per_iteration_macro_f1"], abs=1e-12)


# --- hypothesis: the frame's counts are sklearn's on any predictions table ----------------------


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 4), st.sampled_from("ab"), st.sampled_from("ab")),
        min_size=8,
        max_size=60,
    )
)
def test_any_table_counts_equal_sklearn(rows):
    table = pd.DataFrame(rows, columns=["iteration", "truth", "response"])
    table = table[table.iteration <= table.iteration.max()]
    present = sorted(set(table.iteration))
    table["iteration"] = table["iteration"].map({v: i + 1 for i, v in enumerate(present)})
    table["row_ids"] = np.arange(1, len(table) + 1)
    table["prob.a"] = (table.response == "a").astype(float)
    table["prob.b"] = 1 - table["prob.a"]
    frame = read_mlr3(table, positive="a")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = frame.cv.counts().cv.f(zero_division=0).squeeze("class").values.ravel()
    want = [
        f1_score(g.truth, g.response, pos_label="a", labels=["a", "b"], zero_division=0)
        for _, g in table.groupby("iteration")
    ]
    assert f == pytest.approx(want, abs=1e-12)
    assert frame.cv.counts().cv.accuracy(how="pooled").item() == pytest.approx(
        accuracy_score(table.truth, table.response)
    )


# --- detection and bad inputs -----------------------------------------------------------------


def test_columns_and_looks_like():
    raw = pd.read_csv(DATA / "benchmark.csv")
    assert set(COLUMNS) <= set(raw.columns) and looks_like(raw)
    assert not looks_like(pd.DataFrame(columns=["pred", "obs", "Resample"]))
    assert not looks_like(pd.DataFrame(columns=["id", ".row", ".pred_class"]))


def test_missing_iteration_says_how_to_write_it():
    raw = pd.read_csv(DATA / "resample_binary.csv").drop(columns="iteration")
    with pytest.raises(ReaderError, match=r"`iteration`.*rr\$predictions\(\)"):
        read_mlr3(raw)


def test_missing_response_column_is_named():
    raw = pd.read_csv(DATA / "resample_binary.csv").drop(columns="response")
    with pytest.raises(ReaderError, match="`response`"):
        read_mlr3(raw)


def test_iteration_without_rows_is_an_error():
    raw = pd.read_csv(DATA / "resample_binary.csv")
    with pytest.raises(ReaderError, match="iteration 3 has no rows"):
        read_mlr3(raw[raw.iteration != 3])
    bm = pd.read_csv(DATA / "benchmark.csv")
    drop = (bm.task_id == "synthetic") & (bm.learner_id == "classif.rpart") & (bm.iteration == 2)
    with pytest.raises(ReaderError, match="iteration 2 of synthetic/classif.rpart has no rows"):
        read_mlr3(bm[~drop])


def test_another_tools_frame_is_named():
    caret = pd.DataFrame({"pred": ["a"], "obs": ["a"], "rowIndex": [1], "Resample": ["Fold1"]})
    with pytest.raises(ReaderError, match="caret"):
        read_mlr3(caret)
    tidy = pd.DataFrame({"id": ["Fold1"], ".row": [1], ".pred_class": ["a"], "y": ["a"]})
    with pytest.raises(ReaderError, match="tidymodels"):
        read_mlr3(tidy)


def test_excel_file_is_refused(tmp_path):
    path = tmp_path / "preds.xlsx"
    path.write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(ReaderError, match="Excel.*CSV"):
        read_mlr3(path)
    disguised = tmp_path / "preds.csv"
    disguised.write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(ReaderError, match="Excel"):
        read_mlr3(disguised)


def test_bad_positive_and_folds_name_the_argument():
    raw = pd.read_csv(DATA / "resample_binary.csv")
    with pytest.raises(ReaderError, match="positive='yes'"):
        read_mlr3(raw, positive="yes")
    with pytest.raises(ReaderError, match="positive="):
        read_mlr3(DATA / "repeated_multiclass.csv", positive="setosa")
    with pytest.raises(ReaderError, match="folds=4"):
        read_mlr3(DATA / "repeated_multiclass.csv", folds=4)
    with pytest.raises(ReaderError, match="folds=1"):
        read_mlr3(raw, folds=1)


def test_missing_truth_values_and_unknown_class():
    raw = pd.read_csv(DATA / "resample_binary.csv")
    bad = raw.copy()
    bad.loc[5, "truth"] = np.nan
    with pytest.raises(ReaderError, match="`truth` column has 1 missing"):
        read_mlr3(bad)
    bad = raw.copy()
    bad.loc[5, "response"] = "other"
    with pytest.raises(ReaderError, match="'other'.*prob"):
        read_mlr3(bad)


def test_without_probabilities_levels_are_sorted():
    raw = pd.read_csv(DATA / "resample_binary.csv").drop(columns=["prob.malignant", "prob.benign"])
    frame = read_mlr3(raw)
    assert frame.attrs["pos_label"] == "benign"  # R's default factor order: alphabetical
    assert "score" not in frame.columns


def test_row_id_of_mlr3_before_0_11_is_read():
    raw = pd.read_csv(DATA / "resample_binary.csv")
    old = raw.rename(columns={"row_ids": "row_id"})
    assert looks_like(old)
    pd.testing.assert_frame_equal(read_mlr3(old), read_mlr3(raw))


def test_write_csv_row_names_are_dropped():
    raw = pd.read_csv(DATA / "resample_binary.csv")
    raw.insert(0, "", np.arange(1, len(raw) + 1))
    assert list(read_mlr3(raw).columns) == ["fold", "y_true", "y_pred", "score", "sample"]


# --- the docs page ------------------------------------------------------------------------------
