"""WEKA readers: the Experimenter's result file and the ``-p`` predictions, against WEKA's numbers.

Fixtures in tests/data/readers/weka/ were made by WEKA 3.6 (make_fixtures.py): every oracle
below is a number WEKA printed in the same run.
"""

from __future__ import annotations

import io
import pathlib
import re
import shutil
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import cvframe
from cvframe.readers import weka
from cvframe.readers._common import ReaderError

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "readers" / "weka"
EXPERIMENT = DATA / "experiment.csv"
JAR = pathlib.Path("/usr/share/java/weka.jar")
HAVE_WEKA = shutil.which("java") is not None and JAR.exists()


@pytest.fixture(scope="module")
def raw() -> pd.DataFrame:
    return pd.read_csv(EXPERIMENT, quotechar="'", escapechar="\\")


@pytest.fixture(scope="module")
def cube():
    return weka.read_weka_experiment(EXPERIMENT)


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return weka.read_weka_predictions(DATA / "predictions_nb_alpha.txt")


def _cell(cube, row) -> dict:
    model = weka._model_names(
        pd.Series([row.Key_Scheme]), pd.Series([row.Key_Scheme_options]), True
    )[0]
    sel = cube.sel(dataset=row.Key_Dataset, model=model, repeat=row.Key_Run, fold=row.Key_Fold)
    return {k: int(sel[k].item()) for k in ("tp", "fp", "fn", "tn")}


# --- Experimenter result file ----------------------------------------------------------------


def test_experiment_cube_shape_and_attrs(cube, raw):
    assert dict(cube.sizes) == {
        "dataset": 2, "model": 3, "repeat": 3, "fold": 5, "class": 1, "true": 2, "pred": 2
    }  # fmt: skip
    assert list(cube.true.values) == ["positive", "negative"]
    np.testing.assert_array_equal(cube.confusion.sel(true="positive", pred="positive"),
                                  cube.tp.squeeze("class"))  # fmt: skip
    np.testing.assert_array_equal(cube.confusion.sel(true="negative", pred="positive"),
                                  cube.fp.squeeze("class"))  # fmt: skip
    assert cube.attrs["source"] == "weka" and cube.attrs["task"] == "binary"
    assert cube.attrs["pos_label"] == "positive"
    assert set(cube.model.values) == {"NaiveBayes", "NaiveBayes -K", "Logistic -R 1.0E-8 -M -1"}
    # one cell per row, every count from its row
    total = (cube.tp + cube.fp + cube.fn + cube.tn).sum().item()
    assert total == raw["Number_of_testing_instances"].sum()
    for row in raw.sample(10, random_state=0).itertuples():
        assert _cell(cube, row) == {
            "tp": row.Num_true_positives,
            "fp": row.Num_false_positives,
            "fn": row.Num_false_negatives,
            "tn": row.Num_true_negatives,
        }


def test_experiment_per_fold_metrics_equal_weka_columns(cube, raw):
    """Per fold: cvframe's accuracy/precision/recall/F/kappa from the counts = WEKA's columns."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = {
            "Percent_correct": 100 * cube.cv.accuracy(),
            "IR_precision": cube.cv.precision(zero_division=0.0),
            "IR_recall": cube.cv.recall(zero_division=0.0),
            "F_measure": cube.cv.f(zero_division=0.0),
            "Kappa_statistic": cube.cv.kappa(fold_method=None, zero_division=0.0),
        }
    for row in raw.itertuples():
        model = weka._model_names(
            pd.Series([row.Key_Scheme]), pd.Series([row.Key_Scheme_options]), True
        )[0]
        at = {"dataset": row.Key_Dataset, "model": model, "repeat": row.Key_Run,
              "fold": row.Key_Fold}  # fmt: skip
        for column, values in ours.items():
            got = float(values.sel(at).squeeze())
            assert got == pytest.approx(getattr(row, column), abs=1e-12), (column, at)


def _means_table(column: str) -> pd.DataFrame:
    """The first table of the Experimenter's analysis of ``column`` (means, 2 decimals)."""
    text = (DATA / "experiment_means.txt").read_text()
    block = text.split(f"### {column}\n", 1)[1]
    names = dict(re.findall(r"^\((\d)\) (.+)$", block, flags=re.M))
    lines = block[block.index("Dataset,") :].splitlines()
    rows = {}
    for line in lines[1:]:
        if not line or line.startswith("'"):
            break
        cells = line.split(",")
        means = [float(c) for c in (cells[1], cells[3], cells[6])]  # [1] mean sd [2] mean sd v ..
        rows[cells[0]] = means
    order = [names[k] for k in ("1", "2", "3")]
    return pd.DataFrame(rows, index=order).T


MODEL_OF = {
    "bayes.NaiveBayes none 5.9952312017856973E18": "NaiveBayes",
    "bayes.NaiveBayes -K 5.9952312017856973E18": "NaiveBayes -K",
    "functions.Logistic '-R 1.0E-8 -M -1' 3.9321170325465539E18": "Logistic -R 1.0E-8 -M -1",
}


@pytest.mark.parametrize("column", ["F_measure", "Percent_correct", "Kappa_statistic"])
def test_experimenter_means_are_f_avg(cube, column):
    """The Experimenter reports the mean of the per-fold values over runs x folds (F_avg)."""
    table = _means_table(column)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if column == "F_measure":
            ours = cube.cv.f_avg(dim=["repeat", "fold"], zero_division=0.0)
            pooled = cube.cv.f_tp_fp(dim=["repeat", "fold"])
        elif column == "Percent_correct":
            ours = 100 * cube.cv.accuracy(how="avg", dim=["repeat", "fold"])
            pooled = None
        else:
            ours = cube.cv.kappa(fold_method=None, zero_division=0.0).mean(["repeat", "fold"])
            pooled = None
    for dataset, row in table.iterrows():
        for weka_name, printed in row.items():
            value = float(ours.sel(dataset=dataset, model=MODEL_OF[weka_name]).squeeze())
            assert abs(value - printed) <= 0.005 + 1e-12, (column, dataset, weka_name)
            if pooled is not None:  # and it is F_avg, not pooled, where the two differ
                p = float(pooled.sel(dataset=dataset, model=MODEL_OF[weka_name]).squeeze())
                if abs(p - value) > 0.011:
                    assert abs(p - printed) > 0.005


def test_more_than_two_classes_gives_one_vs_rest_counts(raw):
    """WEKA's kappa of 3-class data is not the IR counts' 2 x 2 kappa: no confusion then."""
    multi = raw.copy()
    multi["Kappa_statistic"] = multi["Kappa_statistic"] - 0.05
    ds = weka.read_weka_experiment(multi)
    assert "confusion" not in ds and ds.attrs["task"] == "binary"
    np.testing.assert_array_equal(ds.tp, weka.read_weka_experiment(raw).tp)


def test_pos_label_names_the_ir_class():
    ds = weka.read_weka_experiment(EXPERIMENT, pos_label="yes")
    assert list(ds["class"].values) == ["yes"] and ds.attrs["pos_label"] == "yes"


def test_full_names_option():
    ds = weka.read_weka_experiment(EXPERIMENT, short_names=False)
    assert "weka.classifiers.bayes.NaiveBayes -K" in set(ds.model.values)


def test_looks_like_formats(raw, frame):
    assert weka.looks_like_experiment(raw) and not weka.looks_like_predictions(raw)
    preds = weka._parse_text((DATA / "predictions_nb_alpha.txt").read_text(), "x")
    assert weka.looks_like_predictions(preds) and not weka.looks_like_experiment(preds)
    assert weka.looks_like(raw) and weka.looks_like(preds)
    assert weka.FORMATS["weka"] == (weka.looks_like_experiment, weka.read_weka_experiment)
    detect, read = weka.FORMATS["weka-predictions"]
    assert detect(preds) and read is weka.read_weka_predictions
    assert not weka.looks_like(frame)  # the predictions frame is cvframe's, not WEKA's
    assert set(weka.COLUMNS) <= set(raw.columns)
    assert weka.looks_like_prediction_text(DATA / "predictions_nb_alpha.txt")
    assert not weka.looks_like_prediction_text(EXPERIMENT)


# --- bad inputs ------------------------------------------------------------------------------


def test_missing_counts_names_column_and_evaluator(raw):
    with pytest.raises(ReaderError, match=r"`Num_true_positives`.*ClassifierSplitEvaluator"):
        weka.read_weka_experiment(raw.drop(columns="Num_true_positives"))


def test_missing_key_column(raw):
    with pytest.raises(ReaderError, match=r"`Key_Fold`"):
        weka.read_weka_experiment(raw.drop(columns="Key_Fold"))


def test_fold_without_rows(raw):
    cut = raw[~((raw.Key_Run == 2) & (raw.Key_Fold == 3) & (raw.Key_Dataset == "beta"))]
    with pytest.raises(
        ReaderError, match=r"no row, e.g. Key_Fold=3 of Key_Run=2 .* Key_Dataset='beta'"
    ):
        weka.read_weka_experiment(cut)


def test_fold_without_test_instances(raw):
    bad = raw.copy()
    bad.loc[0, list(weka.COUNT_COLUMNS.values())] = 0
    with pytest.raises(ReaderError, match=r"no test instances"):
        weka.read_weka_experiment(bad)


def test_duplicated_rows(raw):
    with pytest.raises(ReaderError, match=r"appended twice"):
        weka.read_weka_experiment(pd.concat([raw, raw.iloc[:1]]))


def test_non_count_values(raw):
    bad = raw.copy()
    bad.loc[3, "Num_false_negatives"] = np.nan
    with pytest.raises(ReaderError, match=r"`Num_false_negatives`.*not counts"):
        weka.read_weka_experiment(bad)


def test_another_tools_frame():
    caret = pd.DataFrame({"pred": ["a"], "obs": ["a"], "rowIndex": [1], "Resample": ["Fold1"]})
    with pytest.raises(ReaderError, match=r"caret"):
        weka.read_weka_experiment(caret)
    with pytest.raises(ReaderError, match=r"caret"):
        weka.read_weka_predictions(caret)


def test_cross_format_errors(raw):
    preds = weka._parse_text((DATA / "predictions_nb_alpha.txt").read_text(), "x")
    with pytest.raises(ReaderError, match=r"read_weka_predictions"):
        weka.read_weka_experiment(preds)
    with pytest.raises(ReaderError, match=r"read_weka_experiment"):
        weka.read_weka_predictions(raw)


def test_excel_and_arff_files(tmp_path):
    xlsx = tmp_path / "results.xlsx"
    xlsx.write_bytes(b"PK\x03\x04rest")
    with pytest.raises(ReaderError, match=r"results.xlsx.*Excel.*CSV"):
        weka.read_weka_experiment(xlsx)
    disguised = tmp_path / "results.csv"
    disguised.write_bytes(b"PK\x03\x04rest")
    with pytest.raises(ReaderError, match=r"Excel"):
        weka.read_weka_experiment(disguised)
    with pytest.raises(ReaderError, match=r"Excel"):
        weka.read_weka_predictions(disguised)
    arff = tmp_path / "results.arff"
    arff.write_text("@relation r\n")
    with pytest.raises(ReaderError, match=r"ARFF.*CSVResultListener"):
        weka.read_weka_experiment(arff)


# --- -p predictions --------------------------------------------------------------------------


def _summary() -> dict:
    text = (DATA / "summary_nb_alpha.txt").read_text()
    cv = text.split("=== Stratified cross-validation ===", 1)[1]
    number = r"\s+([\d.]+)"
    row = re.search(r"^" + number * 6 + r"\s+positive", cv, flags=re.M)
    tp_rate, fp_rate, prec, rec, f, roc = map(float, row.groups())
    return {
        "accuracy": float(re.search(r"Correctly Classified Instances\s+\d+\s+([\d.]+) %", cv)[1]),
        "kappa": float(re.search(r"Kappa statistic\s+([-\d.]+)", cv)[1]),
        "n": int(re.search(r"Total Number of Instances\s+(\d+)", cv)[1]),
        "fp_rate": fp_rate,
        "precision": prec,
        "recall": rec,
        "f": f,
        "roc": roc,
    }


def test_predictions_frame(frame):
    assert list(frame.columns[:4]) == ["fold", "y_true", "y_pred", "score"]
    assert frame.attrs["source"] == "weka" and frame.attrs["pos_label"] == "positive"
    assert sorted(frame.fold.unique()) == [1, 2, 3, 4, 5]
    assert frame.groupby("fold").size().tolist() == [20, 20, 19, 19, 19]  # 97 in 5 folds
    assert frame.score.between(0, 1).all()


def test_predictions_pooled_equal_explorer_summary(frame):
    """WEKA's Explorer summary of the same CV is pooled over the folds (F_tp,fp)."""
    s = _summary()
    counts = frame.cv.counts()
    assert int((counts.tp + counts.fp + counts.fn + counts.tn).sum()) == s["n"]
    assert round(100 * float(counts.cv.accuracy(how="pooled").squeeze()), 4) == s["accuracy"]
    assert round(float(counts.cv.kappa()), 3) == s["kappa"]
    pooled = cvframe.reduce.pooled(counts)
    assert round(float(cvframe.reduce.precision(pooled).squeeze()), 3) == s["precision"]
    assert round(float(cvframe.reduce.recall(pooled).squeeze()), 3) == s["recall"]
    f_pool = float(counts.cv.f_tp_fp().squeeze())
    assert round(f_pool, 3) == s["f"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f_avg = float(counts.cv.f_avg().squeeze())
    assert round(f_avg, 3) != s["f"]  # the Explorer's F is not the mean of the fold F's


def test_predictions_auc_merge_brackets_explorer_roc_area(frame):
    """-p prints 3 decimals: the exact AUC_merge lies between tied pairs counted 0 and 1."""
    s = _summary()
    merge = float(frame.cv.auc(method="merge").squeeze())
    y = (frame.y_true == "positive").to_numpy()
    pos, neg = frame.score.to_numpy()[y], frame.score.to_numpy()[~y]
    n = len(pos) * len(neg)
    wins = (pos[:, None] > neg[None, :]).sum()
    ties = (pos[:, None] == neg[None, :]).sum()
    lo, hi = wins / n, (wins + ties) / n
    assert lo <= merge <= hi
    # WEKA's printed ROC area (full-precision probabilities) is inside [lo, hi] within rounding
    assert lo - 0.0005 <= s["roc"] <= hi + 0.0005
    assert abs(merge - s["roc"]) <= 0.0005 + (hi - lo)
    assert abs(float(frame.cv.auc().squeeze()) - s["roc"]) > 0.005  # not AUC_avg


def test_single_test_set_and_list_of_folds(frame):
    one = weka.read_weka_predictions(DATA / "predictions_nb_beta_test.txt", fold="beta")
    assert (one.fold == "beta").all() and len(one) == 83
    with pytest.raises(ReaderError, match=r"holds 5 test folds.*fold=None"):
        weka.read_weka_predictions(DATA / "predictions_nb_alpha.txt", fold=1)
    parts = [frame[frame.fold == k].drop(columns="fold") for k in (1, 2)]
    texts = []
    for p in parts:
        lines = [" inst#     actual  predicted error distribution"]
        for r in p.itertuples():
            ia = 1 if r.y_true == "positive" else 2
            ip = 1 if r.y_pred == "positive" else 2
            lines.append(f"{r.inst} {ia}:{r.y_true} {ip}:{r.y_pred} {r.score},{1 - r.score:.3f}")
        texts.append(io.StringIO("\n".join(lines)))
    both = weka.read_weka_predictions(texts, fold=["a", "b"], repeat=1, model="NB")
    assert both.fold.tolist() == ["a"] * 20 + ["b"] * 20
    assert (both.repeat == 1).all() and (both.model == "NB").all()
    np.testing.assert_allclose(both.score, frame.score[:40])


def _as_weka38_csv(frame: pd.DataFrame) -> str:
    """The same predictions as WEKA >= 3.7 writes them with -classifications ...CSV."""
    lines = ["=== Predictions under cross-validation ===", "", "inst#,actual,predicted,error,"
             "distribution,"]  # fmt: skip
    for r in frame.itertuples():
        ia, ip = (1 if v == "positive" else 2 for v in (r.y_true, r.y_pred))
        p = [f"{r.score:.3f}", f"{1 - r.score:.3f}"]
        p[ip - 1] = "*" + p[ip - 1]
        err = "+" if ia != ip else ""
        lines.append(f"{r.inst},{ia}:{r.y_true},{ip}:{r.y_pred},{err},{','.join(p)}")
    return "\n".join(lines) + "\n"


def test_weka38_csv_output_reads_the_same(frame, tmp_path):
    path = tmp_path / "predictions.csv"
    path.write_text(_as_weka38_csv(frame))
    again = weka.read_weka_predictions(path)
    pd.testing.assert_frame_equal(again, frame, check_dtype=False)


def test_predictions_without_distribution():
    text = """
 inst#     actual  predicted error prediction
     1 1:yes 1:yes       0.9
     2 2:no 1:yes   +   0.6
     1 1:yes 2:no   +   0.7
"""
    fr = weka.read_weka_predictions(io.StringIO(text), pos_label="yes")
    assert fr.score.round(6).tolist() == [0.9, 0.6, 0.3]
    assert fr.fold.tolist() == [1, 1, 2]


def test_bad_prediction_outputs(tmp_path):
    p = tmp_path / "out.txt"
    p.write_text("=== Summary ===\nCorrectly Classified Instances 3\n")
    with pytest.raises(ReaderError, match=r"`inst#`.*-p 0"):
        weka.read_weka_predictions(p)
    with pytest.raises(ReaderError, match=r"index:name"):
        weka.read_weka_predictions(io.StringIO(" inst# actual predicted error\n 1 3.2 3.1 0.1\n"))
    empty_fold = io.StringIO("=== Predictions on test data ===\n\n inst# actual predicted error\n")
    with pytest.raises(ReaderError, match=r"no prediction rows"):
        weka.read_weka_predictions([DATA / "predictions_nb_beta_test.txt", empty_fold])
    with pytest.raises(ReaderError, match=r"missing class value"):
        weka.read_weka_predictions(io.StringIO(" inst# actual predicted error\n 1 ? 1:a 0.5\n"))
    with pytest.raises(ReaderError, match=r"pos_label"):
        weka.read_weka_predictions(DATA / "predictions_nb_alpha.txt", pos_label="maybe")


# --- regeneration and docs -------------------------------------------------------------------


def _stable(path: pathlib.Path) -> str:
    text = path.read_text()
    if path.suffix == ".csv":
        df = pd.read_csv(io.StringIO(text), quotechar="'", escapechar="\\")
        drop = [c for c in df.columns if c.startswith(("Date_time", "Elapsed_", "UserCPU_"))]
        return df.drop(columns=drop).to_csv(index=False)
    return "\n".join(
        line for line in text.splitlines() if not line.startswith(("Date:", "Time taken"))
    )


@pytest.mark.skipif(not HAVE_WEKA, reason="needs java and WEKA (apt-get install weka)")
@pytest.mark.slow(reason="runs WEKA's Experimenter in a JVM to regenerate every fixture (~12 s)")
def test_regenerated_fixtures_equal_committed(tmp_path):
    subprocess.run(
        [sys.executable, str(DATA / "make_fixtures.py"), str(tmp_path)], check=True, timeout=300
    )
    for name in (
        "alpha.arff",
        "beta.arff",
        "experiment.csv",
        "experiment_means.txt",
        "predictions_nb_alpha.txt",
        "summary_nb_alpha.txt",
        "predictions_nb_beta_test.txt",
    ):
        assert _stable(tmp_path / name) == _stable(DATA / name), name
