"""Unusual inputs to the outer ring (readers, command line, explain, simulation), one per test.

Each was accepted silently or answered unclearly; each now gets a clear error naming the
argument, the offending values and the fix, or the right number (checked against an oracle:
scikit-learn, the exact formula, or the value as written).
"""

from __future__ import annotations

import io
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from cvframe.readers import ReaderError, read
from cvframe.readers.caret import read_caret
from cvframe.readers.mlr3 import read_mlr3
from cvframe.readers.tidymodels import read_tidymodels
from cvframe.readers.weka import read_weka_predictions

DATA = Path(__file__).resolve().parent / "data" / "readers"


# --- readers: a sample predicted twice in one resample --------------------------------------


def test_caret_duplicated_resample_row_is_refused():
    df = pd.read_csv(DATA / "caret" / "pred_binary.csv")
    twice = pd.concat([df, df.iloc[[3, 7]]], ignore_index=True)
    first = df.iloc[3]
    with pytest.raises(ReaderError, match=r"predicting a sample again") as info:
        read_caret(twice)
    text = str(info.value)
    assert repr(first["Resample"]) in text and "rowIndex" in text and "unique(" in text
    assert len(read_caret(df)) == len(df)  # the file as caret wrote it is read


def test_caret_all_candidates_share_samples_and_are_read():
    df = pd.read_csv(DATA / "caret" / "pred_binary_all.csv")
    assert len(read_caret(df)) == len(df)  # one row per candidate: not a duplicate


def test_mlr3_duplicated_iteration_row_is_refused():
    df = pd.read_csv(DATA / "mlr3" / "resample_binary.csv")
    twice = pd.concat([df, df.iloc[[0]]], ignore_index=True)
    with pytest.raises(ReaderError, match=r"\(iteration, row_ids\) = \[\('1', '\d+'\)\]"):
        read_mlr3(twice)


def test_tidymodels_duplicated_resample_row_is_refused():
    df = pd.read_csv(DATA / "tidymodels" / "vfold_binary.csv")
    twice = pd.concat([df, df.iloc[[5]]], ignore_index=True)
    with pytest.raises(ReaderError, match=r"\.row.*once per resample.*distinct"):
        read_tidymodels(twice)


# --- readers: WEKA -p -distribution keeps every class's probability -------------------------

_THREE = """
=== Predictions under cross-validation ===

 inst#     actual  predicted error distribution
     1        3:c        3:c       0.25,0.133,*0.617
     2        3:c        2:b   +   0.199,*0.563,0.238
     3        1:a        1:a       *0.7,0.2,0.1
     1        1:a        2:b   +   0.432,*0.499,0.069
     2        2:b        2:b       0.1,*0.8,0.1
     3        3:c        1:a   +   *0.5,0.2,0.3
"""


def _expected_three() -> np.ndarray:
    rows = [r.split()[-1].replace("*", "") for r in _THREE.strip().splitlines()[3:]]
    return np.array([[float(x) for x in r.split(",")] for r in rows])


def test_weka_distribution_keeps_one_score_column_per_class():
    frame = read_weka_predictions(io.StringIO(_THREE))
    cols = ["score_a", "score_b", "score_c"]
    assert [c for c in frame.columns if c.startswith("score")] == cols
    np.testing.assert_array_equal(frame[cols].to_numpy(), _expected_three())
    assert frame.attrs["task"] == "multiclass" and "pos_label" not in frame.attrs
    assert list(frame.y_true.cat.categories) == ["a", "b", "c"]


@pytest.mark.parametrize("padded", [True, False])
def test_weka_csv_distribution_with_or_without_padded_header(tmp_path, padded):
    header = "inst#,actual,predicted,error,distribution" + (",," if padded else "")
    lines = ["=== Predictions under cross-validation ===", "", header]
    for r in _THREE.strip().splitlines()[3:]:
        inst, actual, predicted, *rest = r.split()
        err = "+" if rest[0] == "+" else ""
        lines.append(f"{inst},{actual},{predicted},{err},{rest[-1]}")
    path = tmp_path / "pred.csv"
    path.write_text("\n".join(lines) + "\n")
    frame = read(path)
    cols = ["score_a", "score_b", "score_c"]
    np.testing.assert_array_equal(frame[cols].to_numpy(), _expected_three())


@pytest.mark.parametrize("pos", ["yes", "no"])
def test_weka_binary_score_is_the_positive_class(pos):
    text = """ inst# actual predicted error distribution
     1 1:yes 1:yes       *0.9,0.1
     2 2:no 1:yes   +   *0.6,0.4
     3 2:no 2:no       0.2,*0.8
     1 1:yes 2:no   +   0.3,*0.7
     2 2:no 2:no       0.1,*0.9
"""
    frame = read_weka_predictions(io.StringIO(text), pos_label=pos)
    p_yes = np.array([0.9, 0.6, 0.2, 0.3, 0.1])
    np.testing.assert_allclose(frame.score, p_yes if pos == "yes" else 1 - p_yes)
    assert frame.attrs["pos_label"] == pos
    y = (frame.y_true == pos).to_numpy()
    auc = float(frame.cv.auc(method="merge").squeeze())
    assert auc == pytest.approx(roc_auc_score(y, frame.score))


def test_weka_pos_label_of_a_multiclass_output_is_refused():
    with pytest.raises(ReaderError, match=r"pos_label='a' applies to a binary task"):
        read_weka_predictions(io.StringIO(_THREE), pos_label="a")


def test_weka_distribution_that_is_not_numbers_is_named():
    text = " inst# actual predicted error distribution\n 1 1:a 1:a *0.9,x\n 2 2:b 2:b 0.1,*0.9\n"
    with pytest.raises(ReaderError, match=r"`distribution` '\*0.9,x' that is not numbers"):
        read_weka_predictions(io.StringIO(text))


# --- readers: files by their content ---------------------------------------------------------


def test_parquet_renamed_csv_is_read_by_its_content(tmp_path):
    df = pd.DataFrame({"fold": [0, 0, 1, 1], "y_true": [0, 1, 0, 1], "y_pred": [0, 1, 1, 1]})
    path = tmp_path / "pred.csv"
    df.to_parquet(path)
    pd.testing.assert_frame_equal(read(path).reset_index(drop=True), df)


@pytest.mark.parametrize("name", ["data.csv", "data.txt"])
@pytest.mark.parametrize("magic", [b"PK\x03\x04", b"\xd0\xcf\x11\xe0"])
def test_excel_renamed_is_refused_by_its_content(tmp_path, name, magic):
    path = tmp_path / name
    path.write_bytes(magic + b"\x00" * 64)
    with pytest.raises(ReaderError, match=r"Excel workbook \(whatever its extension\).*CSV"):
        read(path)


def test_duplicated_column_names_are_named_by_every_reader():
    caret = pd.DataFrame(
        [["a", "a", 1, "Fold1", "b"]], columns=["pred", "obs", "rowIndex", "Resample", "pred"]
    )
    with pytest.raises(ReaderError, match=r"duplicated columns \['pred'\]"):
        read_caret(caret)
    plain = pd.DataFrame([[0, 1, 1, 0]], columns=["fold", "y_true", "y_pred", "fold"])
    with pytest.raises(ReaderError, match=r"duplicated columns \['fold'\]"):
        read(plain)
    with pytest.raises(ReaderError, match="no rows"):
        read(plain.iloc[:0, :3])


def test_probability_that_is_nan_is_named_in_plain_words():
    df = pd.read_csv(DATA / "caret" / "pred_binary.csv")
    level = [c for c in df.columns if c not in ("pred", "obs", "rowIndex", "Resample", "k")][0]
    df.loc[2, level] = np.nan
    with pytest.raises(ReaderError, match=rf"`{level}` column holds nan, not a number"):
        read_caret(df)


# --- command line ---------------------------------------------------------------------------


def _cli(argv: list[str], capsys) -> tuple[int, str]:
    from cvframe.cli import main

    code = main(argv)
    err = capsys.readouterr().err.strip()
    return code, err


@pytest.fixture
def predictions(tmp_path) -> Path:
    n = 40
    df = pd.DataFrame(
        {
            "fold": np.arange(n) % 4,
            "rep": np.arange(n) // 20,
            "y_true": np.arange(n) % 2,
            "y_pred": (np.arange(n) // 3) % 2,
            "score": np.linspace(0, 1, n),
        }
    )
    path = tmp_path / "pred.csv"
    df.to_csv(path, index=False)
    return path


@pytest.mark.parametrize(
    ("extra", "column", "roles"),
    [
        (["--repeat-col", "fold"], "fold", "--fold-col (its default), --repeat-col"),
        (["--fold-col", "rep", "--repeat-col", "rep"], "rep", "--fold-col, --repeat-col"),
        (["--y-true-col", "y_pred"], "y_pred", "--y-true-col, --y-pred-col (its default)"),
        (["--model-col", "fold"], "fold", "--fold-col (its default), --model-col"),
        (["--dims", "score"], "score", "--score-col (its default), --dims"),
    ],
)
def test_cli_refuses_a_column_in_two_roles(predictions, capsys, extra, column, roles):
    code, err = _cli(["report", str(predictions), *extra], capsys)
    assert code == 2 and len(err.splitlines()) == 1
    assert f"column {column!r} is given 2 roles ({roles})" in err


@pytest.mark.parametrize("value", ["", " ", ",", "0.1,,0.2", "0.1,"])
@pytest.mark.parametrize("option", ["--prevalence", "--f"])
def test_cli_simulate_refuses_an_empty_list(capsys, option, value):
    code, err = _cli(["simulate", option, value, "--trials", "10"], capsys)
    assert code == 2 and "expected numbers separated by commas" in err and option in err


@pytest.mark.parametrize("name", ["data.csv", "data.txt", "data.parquet"])
def test_cli_names_an_excel_file_by_its_content(tmp_path, capsys, name):
    path = tmp_path / name
    path.write_bytes(b"PK\x03\x04" + b"\x00" * 64)
    code, err = _cli(["report", str(path)], capsys)
    assert code == 2 and "is an Excel workbook (whatever its extension)" in err
    assert "export it as CSV" in err


def test_cli_reads_a_parquet_file_by_its_content(predictions, tmp_path, capsys):
    renamed = tmp_path / "pred.txt"
    pd.read_csv(predictions).to_parquet(renamed)
    code, _ = _cli(["report", str(renamed)], capsys)
    plain, _ = _cli(["report", str(predictions)], capsys)
    assert code == plain == 0


def test_cli_names_a_csv_header_with_a_column_twice(tmp_path, capsys):
    path = tmp_path / "dup.csv"
    path.write_text("fold,y_true,y_pred,fold\n0,1,1,1\n1,0,0,0\n")
    code, err = _cli(["report", str(path)], capsys)
    assert code == 2 and "duplicated columns 'fold'" in err


# --- simulation -----------------------------------------------------------------------------


def test_p_fold_without_positives_names_shapes_that_do_not_broadcast():
    from cvframe import p_fold_without_positives

    with pytest.raises(ValueError, match=r"n_pos of shape \(2,\) and trials of shape \(3,\)"):
        p_fold_without_positives([50, 60], trials=[1, 2, 3])


@pytest.mark.parametrize("trials", [10**30, 1e30, np.uint64(2**63), 2**62])
def test_p_fold_without_positives_huge_trials_is_one(trials):
    from cvframe import p_fold_without_positives

    assert p_fold_without_positives(50, trials=trials) == 1.0


def test_p_fold_without_positives_big_trials_equals_the_formula():
    from cvframe import p_fold_without_positives

    p = p_fold_without_positives(500, n=1000, k=10)  # tiny
    trials = 10**20
    expected = -math.expm1(trials * math.log1p(-p))
    assert p_fold_without_positives(500, n=1000, k=10, trials=trials) == pytest.approx(expected)


@pytest.mark.parametrize("bad", [True, 2.5, "3", [1, 0], math.inf, [2, math.nan]])
def test_p_fold_without_positives_bad_trials_is_named(bad):
    from cvframe import p_fold_without_positives

    with pytest.raises(ValueError, match=r"\btrials\b"):
        p_fold_without_positives(50, trials=bad)


def test_bias_study_refuses_trials_that_cannot_finish_and_repeated_grid_values():
    from cvframe import bias_study, simulate

    with pytest.raises(ValueError, match=r"trials=.* must be between 1 and .*sqrt\(trials\)"):
        bias_study(prevalence=0.1, trials=10**30)
    with pytest.raises(ValueError, match=r"trials=.* must be between 1 and"):
        simulate(prevalence=0.1, trials=10**30)
    with pytest.raises(ValueError, match=r"prevalence repeats the values \[0.1\]"):
        bias_study(prevalence=[0.1, 0.1], trials=10, exact=False)
    with pytest.raises(ValueError, match=r"prevalence has shape \(1, 2\)"):
        bias_study(prevalence=[[0.1, 0.2]], trials=10, exact=False)


# --- explain --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value", [np.float32(0.667), np.float16(0.667), np.array(np.float32(0.667)), "0.667"]
)
def test_explain_reads_a_float_in_its_own_precision(value):
    import cvframe
    from cvframe.explanation import explain

    e = explain(value, cvframe.datasets.table2())
    assert (e.reported, e.digits, e.value) == ("0.667", 3, 0.667)
    assert list(e.matches["name"]) == ["F_avg"]


def test_explain_reads_float32_percent():
    import cvframe
    from cvframe.explanation import explain

    e = explain(np.float32(66.7), cvframe.datasets.table2())
    assert e.digits == 3 and e.value == pytest.approx(0.667, abs=1e-15)


def test_explain_passes_on_the_warnings_of_what_it_computes_once_each():
    from cvframe.explanation import explain

    df = pd.DataFrame(
        {
            "fold": [0, 0, 0, 1, 1, 1],
            "y_true": [0, 1, 1, 0, 0, 0],
            "y_pred": [0, 1, 0, 0, 1, 0],
            "score": [0.1, 0.9, 0.4, 0.2, 0.7, 0.3],
        }
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        explain("0.5", df, "auc")
    texts = [str(w.message) for w in caught]
    assert len(texts) == 1 and "undefined in 1 of 2" in texts[0]


@pytest.mark.parametrize("stored", [True, "True"])
def test_explain_reads_the_pos_label_a_reader_wrote_for_bool_labels(stored):
    from sklearn.metrics import f1_score
    from sklearn.model_selection import KFold

    from cvframe.explanation import explain
    from cvframe.readers.sklearn import from_cross_val_predict

    y = np.array([True, False] * 20)
    pred = np.roll(y, 3) | (np.arange(40) % 7 == 0)
    frame = from_cross_val_predict(y, pred, KFold(4), scores=np.linspace(0, 1, 40))
    frame.attrs["pos_label"] = stored  # the label, or its netCDF-safe text
    pooled = f1_score(y, pred)
    e = explain(f"{pooled:.4f}", frame)
    assert "F_tp,fp" in list(e.matches["name"])
    auc = roc_auc_score(y, frame.score)
    assert "AUC_merge" in list(explain(f"{auc:.4f}", frame, "auc").matches["name"])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"y": [0, 1, np.nan, 1]}, r"y has missing labels \(None/NaN\) at rows \[2\]"),
        ({"y_pred": [0, 1, 7, 1]}, r"y_pred holds classes \[7\] that y does not have"),
        ({"scores": [0.1, np.nan, 0.3, 0.4]}, r"scores has NaN or infinite values at rows \[1\]"),
    ],
)
def test_from_cross_val_predict_refuses_what_no_fold_tested(kwargs, match):
    from sklearn.model_selection import KFold

    from cvframe.readers.sklearn import from_cross_val_predict

    args = {"y": [0, 1, 0, 1], "y_pred": [0, 1, 1, 1], **kwargs}
    with pytest.raises(ValueError, match=match):
        from_cross_val_predict(
            np.array(args["y"]), np.array(args["y_pred"]), KFold(2), scores=kwargs.get("scores")
        )


@pytest.mark.parametrize("preamble", [True, False])
def test_cli_reports_wekas_csv_predictions_of_three_classes(tmp_path, capsys, preamble):
    lines = ["inst#,actual,predicted,error,distribution,,"]
    for r in _THREE.strip().splitlines()[3:]:
        inst, actual, predicted, *rest = r.split()
        lines.append(f"{inst},{actual},{predicted},{'+' if rest[0] == '+' else ''},{rest[-1]}")
    if preamble:
        lines = ["=== Predictions under cross-validation ===", "", *lines]
    path = tmp_path / "weka.csv"
    path.write_text("\n".join(lines) + "\n")
    code, err = _cli(["report", str(path), "--format", "json"], capsys)
    assert code == 0, err


def test_a_csv_header_naming_a_column_twice_is_refused(tmp_path):
    df = pd.read_csv(DATA / "caret" / "pred_binary.csv")
    text = df.assign(again=df["pred"]).to_csv(index=False).replace("again", "pred", 1)
    path = tmp_path / "pred.csv"
    path.write_text(text)  # pandas would read the second one as "pred.1", a tuning parameter
    with pytest.raises(ReaderError, match=r"duplicated columns \['pred'\]"):
        read_caret(path)
