"""read_tidymodels: collect_predictions() as the predictions frame, and what collect_metrics says.

R with tidymodels is not installable here: the fixtures in tests/data/readers/tidymodels/
follow the documented layout of collect_predictions() and hold real predictions made with
scikit-learn (make_fixtures.py); the oracles are scikit-learn's metrics on the same
predictions, aggregated as collect_metrics() does (expected.json and recomputed here).
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
from sklearn.metrics import f1_score, precision_score, recall_score

from cvframe.readers import ReaderError
from cvframe.readers.tidymodels import COLUMNS, looks_like, read_tidymodels

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "readers" / "tidymodels"
EXPECTED = json.loads((DATA / "expected.json").read_text())
BINARY = DATA / "vfold_binary.csv"
REPEATED = DATA / "repeated_multiclass.csv"


def test_fixtures_regenerate_identically(tmp_path):
    (tmp_path / "make_fixtures.py").write_text((DATA / "make_fixtures.py").read_text())
    subprocess.run([sys.executable, str(tmp_path / "make_fixtures.py")], check=True, timeout=120)
    for name in ("vfold_binary.csv", "repeated_multiclass.csv"):
        pd.testing.assert_frame_equal(pd.read_csv(tmp_path / name), pd.read_csv(DATA / name))
    assert json.loads((tmp_path / "expected.json").read_text()) == EXPECTED


def test_fixtures_say_they_are_not_made_by_tidymodels():
    text = (DATA / "README.md").read_text()
    assert "not installable" in text and "make_fixtures.py" in text


# --- v-fold CV, binary ------------------------------------------------------------------------


def test_vfold_frame_shape_and_attrs():
    raw = pd.read_csv(BINARY)
    frame = read_tidymodels(BINARY)
    assert list(frame.columns) == ["fold", "y_true", "y_pred", "score", "param", "sample"]
    assert frame.attrs == {"source": "tidymodels", "task": "binary", "pos_label": "benign"}
    assert (frame["fold"].to_numpy() == raw["id"].to_numpy()).all()
    assert (frame["y_true"].astype(str).to_numpy() == raw["Class"].to_numpy()).all()
    assert (frame["score"].to_numpy() == raw[".pred_benign"].to_numpy()).all()
    assert set(frame["param"]) == {"Preprocessor1_Model1"}


@pytest.mark.parametrize("event_level", ["first", "second"])
def test_collect_metrics_mean_is_f_avg(event_level):
    """collect_metrics(res) for f_meas: mean over resamples of per-resample F, and std_err."""
    frame = read_tidymodels(BINARY, event_level=event_level)
    ds = frame.cv.counts()
    exp = EXPECTED["vfold_binary"][f"f_meas_{event_level}"]["Preprocessor1_Model1"]
    assert ds.cv.f_avg().item() == pytest.approx(exp["mean"], abs=1e-12)
    per = ds.cv.f().values.ravel()
    assert len(per) == exp["n"]
    assert per.std(ddof=1) / np.sqrt(len(per)) == pytest.approx(exp["std_err"], abs=1e-12)
    acc = EXPECTED["vfold_binary"]["accuracy"]["Preprocessor1_Model1"]["mean"]
    assert ds.cv.accuracy(how="avg").item() == pytest.approx(acc, abs=1e-12)


def test_event_level_second_scores_the_second_level():
    raw = pd.read_csv(BINARY)
    frame = read_tidymodels(raw, event_level="second")
    assert frame.attrs["pos_label"] == "malignant"
    assert (frame["score"].to_numpy() == raw[".pred_malignant"].to_numpy()).all()
    pooled = frame.cv.counts().cv.f_tp_fp().item()
    want = f1_score(raw["Class"], raw[".pred_class"], pos_label="malignant")
    assert pooled == pytest.approx(want, abs=1e-12)


# --- repeated CV, multiclass, two candidates ----------------------------------------------------


def test_repeated_ids_become_repeat_and_fold_and_config_param():
    raw = pd.read_csv(REPEATED)
    frame = read_tidymodels(REPEATED)
    assert frame.attrs["task"] == "multiclass"
    assert frame.attrs["labels"] == ["setosa", "versicolor", "virginica"]
    assert (frame["repeat"].to_numpy() == raw["id"].to_numpy()).all()
    assert (frame["fold"].to_numpy() == raw["id2"].to_numpy()).all()
    assert [c for c in frame.columns if c.startswith("score_")] == [
        "score_setosa",
        "score_versicolor",
        "score_virginica",
    ]
    ds = frame.cv.counts()
    assert dict(ds.sizes)["param"] == 2 and dict(ds.sizes)["repeat"] == 2


def test_repeated_collect_metrics_means_over_all_resamples():
    ds = read_tidymodels(REPEATED).cv.counts()
    exp = EXPECTED["repeated_multiclass"]
    macro_per_resample = ds.cv.macro("f", fold_method=None)  # yardstick's default: macro
    for config in ("Preprocessor1_Model1", "Preprocessor1_Model2"):
        per = macro_per_resample.sel(param=config).values.ravel()
        want = exp["f_meas_macro"][config]
        assert per.mean() == pytest.approx(want["mean"], abs=1e-12)
        assert per.std(ddof=1) / np.sqrt(per.size) == pytest.approx(want["std_err"], abs=1e-12)
        # the same mean, from cvframe's fold aggregation then the mean over repeats
        avg = ds.cv.macro("f", fold_method="avg").sel(param=config).mean("repeat").item()
        assert avg == pytest.approx(want["mean"], abs=1e-12)
        acc = ds.cv.accuracy(how="avg").sel(param=config).mean("repeat").item()
        assert acc == pytest.approx(exp["accuracy"][config]["mean"], abs=1e-12)


def test_undefined_resample_is_left_out_as_collect_metrics_does():
    """tune's summary: mean(.estimate, na.rm = TRUE), n = sum(!is.na(.estimate))."""
    raw = pd.read_csv(BINARY)
    raw.loc[raw.id == "Fold02", ".pred_class"] = "malignant"  # no predicted "benign" events
    ds = read_tidymodels(raw).cv.counts()
    est = []
    for _, g in raw.groupby("id", sort=True):  # yardstick: NA when precision or recall is NA
        kw = {"pos_label": "benign", "zero_division": np.nan}
        p, r = (
            precision_score(g.Class, g[".pred_class"], **kw),
            recall_score(g.Class, g[".pred_class"], **kw),
        )
        est.append(0.0 if p == 0 and r == 0 else 2 * p * r / (p + r))
    est = np.array(est)
    assert np.isnan(est[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        skip = ds.cv.f_avg(skip_undefined=True).item()
        plain = ds.cv.f_avg(zero_division=0).item()
    assert skip == pytest.approx(np.nanmean(est), abs=1e-12)
    assert plain == pytest.approx(np.nan_to_num(est).mean(), abs=1e-12)


# --- hypothesis: counts equal sklearn's on any table ---------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 3), st.sampled_from("xy"), st.sampled_from("xy")),
        min_size=6,
        max_size=50,
    ),
    st.sampled_from(["first", "second"]),
)
def test_any_table_counts_equal_sklearn(rows, event_level):
    table = pd.DataFrame(rows, columns=["k", "outcome", ".pred_class"])
    table["id"] = table["k"].map(lambda k: f"Fold{k}")
    table = table.drop(columns="k")
    table[".pred_x"] = (table[".pred_class"] == "x").astype(float)
    table[".pred_y"] = 1 - table[".pred_x"]
    table[".row"] = np.arange(1, len(table) + 1)
    frame = read_tidymodels(table, event_level=event_level)
    event = "x" if event_level == "first" else "y"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = frame.cv.counts().cv.f(zero_division=0).values.ravel()
    want = [
        f1_score(g.outcome, g[".pred_class"], pos_label=event, labels=["x", "y"], zero_division=0)
        for _, g in table.groupby("id", sort=True)
    ]
    assert f == pytest.approx(want, abs=1e-12)


# --- detection and bad inputs -----------------------------------------------------------------


def test_columns_and_looks_like():
    raw = pd.read_csv(REPEATED)
    assert set(COLUMNS) <= set(raw.columns) and looks_like(raw)
    assert not looks_like(pd.DataFrame(columns=["row_ids", "truth", "response", "iteration"]))
    assert not looks_like(pd.DataFrame(columns=["pred", "obs", "Resample"]))


def test_outcome_detection_and_truth_argument():
    raw = pd.read_csv(BINARY)
    raw["Class2"] = raw["Class"]
    with pytest.raises(ReaderError, match=r"several columns.*'Class'.*truth="):
        read_tidymodels(raw)
    assert read_tidymodels(raw, truth="Class2").attrs["pos_label"] == "benign"
    with pytest.raises(ReaderError, match="`nope`"):
        read_tidymodels(raw, truth="nope")
    with pytest.raises(ReaderError, match="no outcome column.*truth="):
        read_tidymodels(pd.read_csv(BINARY).drop(columns="Class"))


def test_tuning_parameter_columns_are_not_the_outcome():
    raw = pd.read_csv(REPEATED)
    raw.insert(0, "penalty", np.where(raw[".config"].str.endswith("1"), 0.01, 1.0))
    frame = read_tidymodels(raw)
    assert (frame["y_true"].astype(str).to_numpy() == raw["Species"].to_numpy()).all()


def test_missing_columns_name_save_pred():
    raw = pd.read_csv(BINARY).drop(columns=".pred_class")
    with pytest.raises(ReaderError, match=r"`.pred_class`.*save_pred = TRUE"):
        read_tidymodels(raw)


def test_resample_without_rows_is_an_error():
    raw = pd.read_csv(REPEATED)
    drop = (raw.id == "Repeat2") & (raw.id2 == "Fold03")
    with pytest.raises(ReaderError, match="Fold03.*no rows"):
        read_tidymodels(raw[~drop])
    drop = (raw.id == "Repeat1") & (raw.id2 == "Fold02") & (raw[".config"].str.endswith("2"))
    with pytest.raises(ReaderError, match="Preprocessor1_Model2.*no rows"):
        read_tidymodels(raw[~drop])


def test_another_tools_frame_is_named():
    mlr3 = pd.DataFrame({"iteration": [1], "row_ids": [1], "truth": ["a"], "response": ["a"]})
    with pytest.raises(ReaderError, match="mlr3"):
        read_tidymodels(mlr3)
    caret = pd.DataFrame({"pred": ["a"], "obs": ["a"], "rowIndex": [1], "Resample": ["Fold1"]})
    with pytest.raises(ReaderError, match="caret"):
        read_tidymodels(caret)


def test_excel_file_is_refused(tmp_path):
    path = tmp_path / "preds.xls"
    path.write_bytes(b"\xd0\xcf\x11\xe0 not really")
    with pytest.raises(ReaderError, match="Excel.*CSV"):
        read_tidymodels(path)


def test_bad_event_level_names_the_argument():
    with pytest.raises(ValueError, match="event_level"):
        read_tidymodels(BINARY, event_level="last")


def test_missing_outcome_values_are_an_error():
    raw = pd.read_csv(BINARY)
    raw.loc[3, "id"] = np.nan
    with pytest.raises(ReaderError, match="`id` column has 1 missing"):
        read_tidymodels(raw)


# --- the docs page ------------------------------------------------------------------------------
