"""cvframe.readers: reading any tool's table, detecting its format, and the report/explain doors.

The tool readers themselves are tested in their own files (test_readers_<tool>.py); here: the
shared table reading and column checks, format detection (none, one, several), the forced
format, ``cvframe report`` detecting the formats, and explain's round trips on the fixtures
that the real tools wrote (caret's printed numbers, WEKA's Explorer and Experimenter).
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pandas as pd
import pytest

from cvframe import readers
from cvframe.cli import main
from cvframe.readers import ReaderError, detect, formats_of, read
from cvframe.readers._common import read_table, require

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "readers"


def _plain() -> pd.DataFrame:
    return pd.DataFrame({"fold": [0, 0, 1, 1], "y_true": [0, 1, 0, 1], "y_pred": [0, 1, 1, 1]})


def _caret() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "pred": ["a", "b", "a", "b"],
            "obs": ["a", "b", "b", "b"],
            "rowIndex": [1, 2, 3, 4],
            "Resample": ["Fold1", "Fold1", "Fold2", "Fold2"],
        }
    )


def _fixture(path: str) -> pathlib.Path:
    p = DATA / path
    if not p.exists():
        pytest.skip(f"fixture {path} not there (written by the tool's reader engineer)")
    return p


# --- read_table and require --------------------------------------------------------------------


def test_read_table_reads_csv_and_parquet_and_returns_frames_as_they_are(tmp_path):
    df = _plain()
    assert read_table(df) is df
    df.to_csv(tmp_path / "p.csv", index=False)
    df.to_parquet(tmp_path / "p.parquet")
    pd.testing.assert_frame_equal(read_table(tmp_path / "p.csv"), df)
    pd.testing.assert_frame_equal(read_table(str(tmp_path / "p.parquet")), df)


@pytest.mark.parametrize("name", ["pred.xlsx", "pred.xls", "pred.csv"])
def test_an_excel_workbook_is_an_error_naming_the_path_and_saying_export_csv(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(b"PK\x03\x04" + b"\x00" * 64)  # a zip container: an .xlsx's first bytes
    with pytest.raises(ReaderError, match="Excel") as info:
        read_table(path, "caret's pred")
    assert name in str(info.value) and "CSV" in str(info.value)


def test_unreadable_content_is_an_error_naming_the_path(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_bytes(b'a,b\n"unterminated,1\n')
    with pytest.raises(ReaderError, match="bad.csv") as info:
        read_table(path, "the predictions")
    assert "CSV" in str(info.value)
    with pytest.raises(FileNotFoundError, match="nowhere.csv"):
        read_table(tmp_path / "nowhere.csv")
    with pytest.raises(TypeError, match="source"):
        read_table(42)
    empty = tmp_path / "empty.csv"
    empty.write_text("fold,y_true,y_pred\n")
    with pytest.raises(ReaderError, match="no rows"):
        read_table(empty)


def test_require_names_the_missing_columns_the_tool_and_the_hint():
    df = pd.DataFrame({"pred": [1], "obs": [1]})
    require(df, ["pred", "obs"], "caret's `pred`")  # nothing missing
    with pytest.raises(ReaderError, match="`Resample`") as info:
        require(df, ["pred", "Resample", "rowIndex"], "caret's `pred`", "was savePredictions set?")
    text = str(info.value)
    assert "caret's `pred`" in text and "`rowIndex` columns" in text
    assert "was savePredictions set?" in text and "['pred', 'obs']" in text


# --- detection -----------------------------------------------------------------------------


def test_a_cvframe_frame_is_detected_and_read_as_it_is():
    df = _plain()
    assert detect(df) == "cvframe" and formats_of(df) == ["cvframe"]
    out = read(df)
    assert out.attrs["source"] == "cvframe" and out is not df
    pd.testing.assert_frame_equal(out, df)


def test_no_format_is_an_error_naming_the_columns_and_the_formats():
    df = pd.DataFrame({"label": [1], "guess": [0]})
    with pytest.raises(ReaderError, match=r"\['label', 'guess'\]") as info:
        detect(df)
    assert "cvframe" in str(info.value) and "format=" in str(info.value)
    with pytest.raises(ReaderError, match="label"):
        read(df)


def test_mixed_tools_in_one_file_are_an_error_naming_them():
    mixed = pd.concat([_plain(), _caret()], axis=1)
    if "caret" not in formats_of(mixed):
        pytest.skip("the caret reader is not there")
    with pytest.raises(ReaderError, match="several formats") as info:
        detect(mixed)
    assert "caret" in str(info.value) and "cvframe" in str(info.value)


def test_a_forced_format_is_checked():
    with pytest.raises(ReaderError, match="format='spss'"):
        read(_plain(), format="spss")
    with pytest.raises(ReaderError, match="`y_pred`"):
        read(pd.DataFrame({"fold": [0], "y_true": [1]}), format="cvframe")
    with pytest.raises(TypeError, match="format='cvframe'"):
        read(_plain(), format="cvframe", pos_label=1)


def test_caret_is_detected_and_read_by_its_reader():
    if "caret" not in formats_of(_caret()):
        pytest.skip("the caret reader is not there")
    assert detect(_caret()) == "caret"
    out = read(_caret())
    assert out.attrs["source"] == "caret"
    assert {"fold", "y_true", "y_pred"} <= set(out.columns)


def test_import_works_without_a_tool_module(monkeypatch):
    """A tool module that is not there is no format; the others still are."""
    real = readers._module

    def without_mlr3(name):
        return None if name == "mlr3" else real(name)

    monkeypatch.setattr(readers, "_module", without_mlr3)
    assert "mlr3" not in readers._known()
    assert detect(_plain()) == "cvframe"
    with pytest.raises(ReaderError, match="not available"):
        read(_plain(), format="mlr3")
    code = "import cvframe.readers as r; print(sorted(r.FORMATS))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "cvframe" in out.stdout


# --- cvframe report detects the formats -----------------------------------------------------


@pytest.mark.parametrize(
    ("path", "dims"),
    [
        ("caret/pred_binary.csv", "repeat=2, fold=5"),
        ("caret/pred_multiclass.csv", "task=multiclass"),
        ("mlr3/resample_binary.csv", "fold=5"),
        ("tidymodels/vfold_binary.csv", "fold=5"),
        ("weka/experiment.csv", "dataset=2, model=3, repeat=3, fold=5"),
    ],
)
def test_report_detects_each_tool(path, dims, capsys):
    file = _fixture(path)
    assert main(["report", str(file)]) == 0
    out = capsys.readouterr().out
    tool = path.split("/")[0]
    assert f"({tool})" in out.splitlines()[0]
    assert dims in out


def test_report_format_in_forces_a_format(tmp_path, capsys):
    path = tmp_path / "plain.csv"
    _plain().to_csv(path, index=False)
    assert main(["report", str(path), "--format-in", "cvframe"]) == 0
    assert "plain.csv" in capsys.readouterr().out
    assert main(["report", str(path), "--format-in", "caret"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "caret" in err
    assert main(["report", str(path), "--format-in", "spss"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_report_of_a_plain_file_with_its_own_column_names_is_read_as_before(tmp_path, capsys):
    path = tmp_path / "own.csv"
    _plain().rename(columns={"fold": "split", "y_true": "label"}).to_csv(path, index=False)
    assert main(["report", str(path), "--fold-col", "split", "--y-true-col", "label"]) == 0
    assert "own.csv" in capsys.readouterr().out


def test_report_of_mixed_tools_is_one_line_exit_2(tmp_path, capsys):
    mixed = pd.concat([_plain(), _caret()], axis=1)
    if "caret" not in formats_of(mixed):
        pytest.skip("the caret reader is not there")
    path = tmp_path / "mixed.csv"
    mixed.to_csv(path, index=False)
    assert main(["report", str(path)]) == 2
    err = capsys.readouterr().err
    assert "several formats" in err and "--format-in" in err


# --- explain on what the tools themselves reported -------------------------------------------


def _caret_reported(source: str, metric: str) -> float:
    rep = pd.read_csv(_fixture("caret/caret_reported.csv"))
    rep = rep[(rep.fixture == "binary") & (rep.source == source) & (rep.metric == metric)]
    return float(rep.value.iloc[0])


@pytest.mark.parametrize(
    ("source", "metric", "kind", "expected"),
    [
        ("results", "Accuracy", "accuracy", "fold-averaged accuracy, mean over repeats"),
        ("results", "F", "f", "F_avg, mean over repeats"),
        ("results", "ROC", "auc", "AUC_avg, mean over repeats"),
        ("confusionMatrix", "F1", "f", "F_tp,fp, pooled over repeats"),
        ("confusionMatrix", "Accuracy", "accuracy", "pooled accuracy, pooled over repeats"),
    ],
)
def test_explain_caret_printed_numbers(source, metric, kind, expected):
    """caret's train() prints resample means; its confusionMatrix pools every prediction."""
    from cvframe.explanation import explain

    frame = read(_fixture("caret/pred_binary.csv"))
    value = _caret_reported(source, metric)
    e = explain(f"{value:.4f}", frame, kind)
    assert expected in list(e.matches["name"]), e.text


def test_explain_weka_explorer_f_measure_is_pooled():
    """WEKA's Explorer (``-x 5``) prints F-Measure 0.677 for class positive: F_tp,fp."""
    from cvframe.explanation import explain

    summary = _fixture("weka/summary_nb_alpha.txt").read_text()
    rows = [ln.split() for ln in summary.splitlines()]
    line = [r for r in rows if len(r) >= 7 and r[-1] == "positive"][-1]
    f_measure = line[4]
    frame = read(_fixture("weka/predictions_nb_alpha.txt"), format="weka-predictions")
    e = explain(f_measure, frame)
    assert list(e.matches["name"]) == ["F_tp,fp"], e.text
    correct = [ln for ln in summary.splitlines() if "Correctly Classified" in ln][-1].split()[-2]
    e = explain(correct, frame, "accuracy")  # a percent: 78.3505
    assert list(e.matches["name"]) == ["pooled accuracy"], e.text


def test_explain_weka_experimenter_mean_is_f_avg_over_repeats():
    """The Experimenter's F_measure of NaiveBayes on alpha, 0.67: the mean of per-fold F."""
    from cvframe.explanation import explain

    ds = read(_fixture("weka/experiment.csv"))
    means = _fixture("weka/experiment_means.txt").read_text()
    block = means.split("### F_measure")[1]
    row = [ln for ln in block.splitlines() if ln.startswith("alpha,")][0]
    reported = row.split(",")[1]
    e = explain(reported, ds.sel(dataset="alpha", model="NaiveBayes"))
    assert "F_avg, mean over repeats" in list(e.matches["name"]), e.text


def test_weka_prediction_text_is_sniffed_by_read_report_and_explain(capsys):
    path = _fixture("weka/predictions_nb_alpha.txt")
    assert readers.sniff(path) == "weka-predictions"
    assert readers.sniff(_fixture("caret/pred_binary.csv")) is None
    frame = read(path)
    assert frame.attrs["source"] == "weka" and frame["fold"].nunique() == 5
    assert main(["report", str(path)]) == 0
    assert "(weka)" in capsys.readouterr().out.splitlines()[0]
    assert main(["explain", str(path), "--reported", "0.677"]) == 0
    assert "matches F_tp,fp" in capsys.readouterr().out
