"""Readers take the files tools and people actually write: a UTF-8 byte-order mark, UTF-16
and Windows code pages, write.csv2's semicolons, tables stacked with pd.concat (a repeated
index); class probabilities that are not one distribution per row are flagged."""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cvframe.readers import ReaderError, caret, mlr3, read, tidymodels, weka

DATA = Path(__file__).resolve().parent / "data" / "readers"
EXPERIMENT = DATA / "weka" / "experiment.csv"
WEKA_CSV = (
    "inst#,actual,predicted,error,prediction\n1,1:yes,1:yes,,0.9\n2,2:no,1:yes,+,0.6\n"
    "3,2:no,2:no,,0.8\n1,1:yes,2:no,+,0.7\n2,2:no,2:no,,0.9\n3,1:yes,1:yes,,0.8\n"
)


def _counts(ds) -> np.ndarray:
    return np.stack([ds[v].values for v in ("tp", "fp", "fn", "tn")])


@pytest.fixture(scope="module")
def experiment():
    return weka.read_weka_experiment(EXPERIMENT)


@pytest.mark.parametrize(
    "encode",
    [
        pytest.param(lambda t: b"\xef\xbb\xbf" + t.encode(), id="utf-8 BOM"),
        pytest.param(lambda t: t.encode("utf-16"), id="utf-16"),
        pytest.param(lambda t: t.replace("alpha", "alphä").encode("cp1252"), id="cp1252"),
        pytest.param(lambda t: t.replace("\n", "\r\n").encode(), id="CRLF"),
    ],
)
def test_weka_experiment_file_in_any_windows_encoding(tmp_path, experiment, encode):
    path = tmp_path / "experiment.csv"
    path.write_bytes(encode(EXPERIMENT.read_text()))
    for ds in (weka.read_weka_experiment(path), read(path)):
        np.testing.assert_array_equal(_counts(ds), _counts(experiment))


def test_weka_experiment_frame_read_with_the_mark_left_in(experiment):
    raw = b"\xef\xbb\xbf" + EXPERIMENT.read_bytes()
    df = pd.read_csv(io.BytesIO(raw), quotechar="'", escapechar="\\", encoding="latin-1")
    assert df.columns[0] != "Key_Dataset"  # the mark, read as Latin-1
    np.testing.assert_array_equal(_counts(weka.read_weka_experiment(df)), _counts(experiment))
    assert df.columns[0] != "Key_Dataset"  # the caller's frame is not renamed


def test_weka_predictions_csv_and_text_with_a_mark(tmp_path):
    plain = tmp_path / "plain.csv"
    plain.write_text(WEKA_CSV)
    want = weka.read_weka_predictions(plain)
    marked = tmp_path / "marked.csv"
    marked.write_bytes(b"\xef\xbb\xbf" + WEKA_CSV.encode())
    for got in (weka.read_weka_predictions(marked), read(marked)):
        pd.testing.assert_frame_equal(got, want)
    text = DATA / "weka" / "predictions_nb_alpha.txt"
    marked_text = tmp_path / "marked.txt"
    marked_text.write_bytes(b"\xef\xbb\xbf" + text.read_bytes())
    pd.testing.assert_frame_equal(
        weka.read_weka_predictions(marked_text), weka.read_weka_predictions(text)
    )
    wide = tmp_path / "wide.txt"
    wide.write_bytes(text.read_text().encode("utf-16"))
    pd.testing.assert_frame_equal(read(wide), weka.read_weka_predictions(text))


def _stack(table: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """The table as R users rebuild it in Python: parts read apart, stacked with pd.concat."""
    return pd.concat([part.reset_index(drop=True) for _, part in table.groupby(by, sort=False)])


def test_mlr3_benchmark_stacked_with_concat_reads_as_the_whole_table():
    table = pd.read_csv(DATA / "mlr3" / "benchmark.csv")
    stacked = _stack(table, ["task_id", "learner_id"])
    assert not stacked.index.is_unique
    want = mlr3.read_mlr3(table)
    got = mlr3.read_mlr3(stacked)
    pd.testing.assert_frame_equal(got, want)
    pd.testing.assert_frame_equal(read(stacked), want)
    np.testing.assert_array_equal(_counts(got.cv.counts()), _counts(want.cv.counts()))


@pytest.mark.parametrize(
    "path, reader, by",
    [
        (DATA / "mlr3" / "resample_binary.csv", mlr3.read_mlr3, ["iteration"]),
        (DATA / "caret" / "pred_multiclass.csv", caret.read_caret, ["Resample"]),
        (DATA / "tidymodels" / "repeated_multiclass.csv", tidymodels.read_tidymodels, ["id"]),
    ],
)
def test_every_reader_reads_a_stacked_table(path, reader, by):
    table = pd.read_csv(path)
    stacked = _stack(table, by)
    np.testing.assert_array_equal(
        _counts(reader(stacked).cv.counts()),
        _counts(reader(stacked.reset_index(drop=True)).cv.counts()),
    )


def test_weka_experiment_stacked_with_concat():
    raw = pd.read_csv(EXPERIMENT, quotechar="'", escapechar="\\")
    stacked = _stack(raw, ["Key_Dataset"])
    np.testing.assert_array_equal(
        _counts(weka.read_weka_experiment(stacked)), _counts(weka.read_weka_experiment(raw))
    )


@pytest.mark.parametrize(
    "write",
    [
        pytest.param(lambda df, p: df.to_csv(p, sep=";", decimal=",", index=False), id="csv2"),
        pytest.param(lambda df, p: df.to_csv(p, sep="\t", index=False), id="tab"),
        pytest.param(
            lambda df, p: p.write_text(
                ", ".join(df.columns) + "\n" + df.to_csv(index=False, header=False)
            ),
            id="comma-space header",
        ),
    ],
)
def test_separators_of_r_and_spreadsheets(tmp_path, write):
    table = pd.read_csv(DATA / "mlr3" / "benchmark.csv")
    path = tmp_path / "bench.csv"
    write(table, path)
    pd.testing.assert_frame_equal(read(path), mlr3.read_mlr3(table))


# --- probabilities ---------------------------------------------------------------------------

FIXTURES = [
    (DATA / "mlr3" / "benchmark.csv", mlr3.read_mlr3),
    (DATA / "caret" / "pred_multiclass.csv", caret.read_caret),
    (DATA / "caret" / "pred_binary.csv", caret.read_caret),
    (DATA / "tidymodels" / "repeated_multiclass.csv", tidymodels.read_tidymodels),
    (DATA / "weka" / "predictions_nb_alpha.txt", weka.read_weka_predictions),
]


@pytest.mark.parametrize("path, reader", FIXTURES, ids=lambda x: getattr(x, "name", ""))
def test_real_probabilities_are_read_silently(path, reader):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reader(path)


@pytest.mark.parametrize(
    "path, reader, column, match",
    [
        (
            DATA / "mlr3" / "repeated_multiclass.csv",
            mlr3.read_mlr3,
            "prob.virginica",
            r"mlr3's probability columns \['prob.setosa', 'prob.versicolor', 'prob.virginica'\] "
            r"do not sum to 1 in \d+ of 300 rows",
        ),
        (
            DATA / "caret" / "pred_multiclass.csv",
            caret.read_caret,
            "virginica",
            r"caret's probability columns \['setosa', 'versicolor', 'virginica'\] do not sum",
        ),
        (
            DATA / "tidymodels" / "repeated_multiclass.csv",
            tidymodels.read_tidymodels,
            None,
            r"tidymodels' probability columns .* do not sum to 1",
        ),
    ],
)
def test_rows_that_do_not_sum_to_one_are_flagged(path, reader, column, match):
    table = pd.read_csv(path)
    column = (
        column or [c for c in table.columns if c.startswith(".pred_") and c != ".pred_class"][-1]
    )
    table[column] = table[column] * 0.5
    with pytest.warns(UserWarning, match=match) as caught:
        frame = reader(table)
    assert len([w for w in caught if "do not sum" in str(w.message)]) == 1
    assert frame.shape[0] == len(table)  # flagged, kept


def test_weka_distribution_that_does_not_sum_to_one_is_flagged(tmp_path):
    rows = ["inst#,actual,predicted,error,distribution,"]
    pairs = [(0.9, 0.1), (0.6, 0.4), (0.2, 0.8), (0.7, 0.3), (0.1, 0.5), (0.8, 0.2)]
    for line, (a, b) in zip(WEKA_CSV.splitlines()[1:], pairs, strict=True):
        rows.append(f"{line.rsplit(',', 1)[0]},{a},{b}")
    path = tmp_path / "dist.csv"
    path.write_text("\n".join(rows) + "\n")
    with pytest.warns(UserWarning, match=r"do not sum to 1 in 1 of 6 rows \(row 4 sums to 0.6"):
        weka.read_weka_predictions(path)


def test_probabilities_outside_zero_one_are_refused():
    table = pd.read_csv(DATA / "mlr3" / "resample_binary.csv")
    table.loc[3, "prob.malignant"] = 1.7
    with pytest.raises(ReaderError, match=r"`prob.malignant` column holds 1 values outside"):
        mlr3.read_mlr3(table)


# --- regression outputs: a continuous target is named --------------------------------------

_RNG = np.random.default_rng(0)
_NUM = _RNG.normal(size=30)
_IDS = np.repeat(["Fold1", "Fold2", "Fold3"], 10)


@pytest.mark.parametrize(
    "reader, table, match",
    [
        (
            caret.read_caret,
            pd.DataFrame(
                {"pred": _NUM, "obs": _NUM[::-1], "rowIndex": range(30), "Resample": _IDS}
            ),
            r"caret's `obs` column holds continuous numbers \(30 distinct.*a continuous target",
        ),
        (
            mlr3.read_mlr3,
            pd.DataFrame(
                {
                    "iteration": np.repeat([1, 2, 3], 10),
                    "row_ids": range(30),
                    "truth": _NUM,
                    "response": _NUM,
                }
            ),
            r"mlr3's `truth` column holds continuous numbers .*the output of a regression",
        ),
        (
            tidymodels.read_tidymodels,
            pd.DataFrame({"id": _IDS, ".pred": _NUM, ".row": range(30), "y": _NUM}),
            r"a `.pred` column and no `.pred_class`: the predictions of a regression model",
        ),
    ],
)
def test_a_regression_output_is_named_not_read_as_many_classes(reader, table, match):
    with pytest.raises(ReaderError, match=match):
        reader(table)
