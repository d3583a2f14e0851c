"""Findings and messages that say what is wrong: a model x data set combination that never ran
is a finding; a dask frame handed to ``explain`` is named as one; ``explain`` states the
metric's range from the registry, in words the command line keeps; ``kappa_band`` refuses
text instead of reading it as a number."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import cvframe
from cvframe import metrics
from cvframe.cli import main
from cvframe.diagnostics import anomalies
from cvframe.explanation import explain, reconcile
from cvframe.kappa import kappa_band


def _frame(missing=(("b", "d2"),), seed=0, n=40, k=5):
    rng = np.random.default_rng(seed)
    parts = []
    for m in ("a", "b", "c"):
        for d in ("d1", "d2", "d3"):
            if (m, d) in missing:
                continue
            for f in range(k):
                y = rng.integers(0, 2, n)
                p = np.where(rng.random(n) < 0.8, y, 1 - y)
                parts.append(
                    pd.DataFrame(
                        {"model": m, "dataset": d, "fold": f}
                        | {
                            "y_true": y,
                            "y_pred": p,
                            "score": np.clip(p * 0.6 + rng.random(n) * 0.4, 0, 1),
                        }
                    )
                )
    return pd.concat(parts, ignore_index=True)


# --- a missing combination -----------------------------------------------------------------------


def test_a_missing_model_dataset_combination_is_a_finding():
    ds = _frame().cv.counts()
    assert float(ds.tp.sel(model="b", dataset="d2").sum()) == 0  # the padding of the cube
    found = anomalies(ds)
    rows = found[found.kind == "missing_combination"]
    assert len(rows) == 1
    row = rows.iloc[0]
    assert (row.model, row.dataset, row.fold, row["class"]) == ("b", "d2", None, None)
    assert row.code == "CV304" and row.severity == "error"
    assert "model='b', dataset='d2'" in row.detail
    assert "model='b' has results for 2 of 3 dataset values" in row.detail
    assert found.iloc[0].kind == "missing_combination"  # an error: listed first


def test_missing_combinations_by_concat_and_a_model_never_run():
    one = _frame(missing=()).cv.counts()
    # xr.concat of per-data-set cubes, one of which lacks model c: NaN padding
    parts = [one.sel(dataset=[d]) for d in ("d1", "d2")]
    parts.append(one.sel(dataset=["d3"], model=["a", "b"]))
    ds = xr.concat(parts, dim="dataset", join="outer")
    rows = anomalies(ds).query("kind == 'missing_combination'")
    assert rows[["model", "dataset"]].values.tolist() == [["c", "d3"]]
    # a model with no results at all, and a cube with one study dim
    single = xr.concat(
        [
            one.sel(dataset="d1"),
            one.sel(dataset="d1", model="a").drop_vars("model").expand_dims(model=["z"]) * np.nan,
        ],
        dim="model",
    )
    rows = anomalies(single).query("kind == 'missing_combination'")
    assert rows["model"].tolist() == ["z"]


def test_no_finding_for_a_complete_study_or_for_candidates_not_run():
    assert "missing_combination" not in set(anomalies(_frame(missing=()).cv.counts()).kind)
    # per-model grids leave (model, param) cells that were never run by design
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB

    X, y = make_classification(n_samples=80, random_state=0)
    frame = cvframe.cross_validate(
        {"lr": LogisticRegression(), "nb": GaussianNB()},
        X,
        y,
        cv=3,
        param_grid={"lr": {"C": [0.1, 1.0]}},
        progress=False,
    )
    assert "missing_combination" not in set(anomalies(frame.cv.counts()).kind)


# --- explain: dask, ranges -----------------------------------------------------------------------


def test_explain_names_a_dask_frame_and_reads_its_counts():
    dd = pytest.importorskip("dask.dataframe")
    df = (
        _frame(missing=())
        .query("model == 'a' and dataset == 'd1'")
        .drop(columns=["model", "dataset"])
    )
    lazy = dd.from_pandas(df, npartitions=2)
    eager = explain("0.8", df)
    got = explain("0.8", lazy)  # before: "... not DataFrame"
    pd.testing.assert_frame_equal(got.candidates, eager.candidates)
    for call in (lambda: explain("0.8", lazy, "auc"), lambda: reconcile("0.8", "0.7", lazy, "auc")):
        with pytest.raises(TypeError, match=r"data is a dask DataFrame.*data\.compute\(\)"):
            call()


@pytest.mark.parametrize(
    "value, metric, words",
    [
        ("150", "f", "neither in the range of F (from 0 to 1) nor a percent of it (from 0 to 100)"),
        ("-0.2", "f", "neither in the range of F (from 0 to 1)"),
        ("150", "mcc", "range of MCC (from -1 to 1) nor a percent of it (from -100 to 100)"),
        ("-0.2", "log_loss", "outside the range of log-loss (0 or more)"),
        ("250%", "accuracy", "a percent, 250%, outside the range of accuracy as a percent"),
    ],
)
def test_explain_states_the_registry_range(value, metric, words, capsys, tmp_path):
    lo, hi = metrics.REGISTRY[metric].bounds
    assert f"{lo:g}" in words
    df = _frame(missing=()).query("model == 'a' and dataset == 'd1'")
    data = df if metric == "log_loss" else df.cv.counts()
    with pytest.raises(ValueError) as err:
        explain(value, data, metric)
    assert words in str(err.value)
    path = tmp_path / "data.csv"
    df.drop(columns=["model", "dataset"]).to_csv(path, index=False)
    code = main(["explain", str(path), f"--reported={value}", "--metric", metric])
    said = capsys.readouterr().err
    assert code != 0 and words in said  # before: "(0, 1)", an open interval, on the command line


def test_negative_percents_of_a_metric_that_can_be_negative():
    df = _frame(missing=()).query("model == 'a' and dataset == 'd1'")
    e = explain("-87", df.cv.counts(), "mcc")
    assert e.value == pytest.approx(-0.87) and e.digits == 2
    with pytest.raises(ValueError, match=r"^b='150'"):
        reconcile("0.5", "150", df.cv.counts())


# --- kappa bands of text -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value", ["0.5", b"0.5", ["0.1", "0.9"], np.array(["0.3"]), xr.DataArray(["0.3"])]
)
def test_kappa_band_refuses_text(value):
    with pytest.raises(TypeError, match=r"is text \(.*\), not a number.*float\(x\)"):
        kappa_band(value)  # before: '0.5' was read as 0.5, "Moderate"


def test_kappa_band_refuses_none_and_keeps_numbers():
    with pytest.raises(TypeError, match="kappa_value=None is not a kappa value"):
        kappa_band(None)
    assert kappa_band(0.5) == "Moderate"
    assert kappa_band(np.array([0.1, np.nan])).tolist() == ["Poor", "undefined"]


# --- findings grouped ----------------------------------------------------------------------------


def _never_positive(k=10, reps=1):
    """Model "quiet" never predicts a positive in any of its k folds; "loud" is fine."""
    rng = np.random.default_rng(1)
    parts = []
    for r in range(reps):
        for m in ("loud", "quiet"):
            for f in range(k):
                y = np.r_[np.ones(4, int), np.zeros(16, int)]
                p = np.zeros(20, int) if m == "quiet" else np.where(rng.random(20) < 0.9, y, 1 - y)
                parts.append(
                    pd.DataFrame({"model": m, "repeat": r, "fold": f, "y_true": y, "y_pred": p})
                )
    return pd.concat(parts, ignore_index=True)


def test_ten_folds_without_predicted_positives_are_one_line():
    from cvframe.diagnostics import group_findings
    from cvframe.report import report

    ds = _never_positive().cv.counts()
    rows = anomalies(ds)
    quiet = rows[(rows.kind == "undefined_precision") & (rows.model == "quiet")]
    assert len(quiet) == 10
    grouped = group_findings(rows)
    line = grouped[(grouped.kind == "undefined_precision") & (grouped.model == "quiet")]
    assert len(line) == 1 and line.iloc[0]["count"] == 10 and line.iloc[0]["folds"] == "0-9"
    assert line.iloc[0]["detail"].startswith("10 folds; the first: no predicted positives")
    assert grouped["count"].sum() == len(rows)
    text = report(ds)
    said = [x for x in text.splitlines() if "undefined_precision" in x and "quiet" in x]
    assert len(said) == 1 and "folds 0-9" in said[0] and "(10 folds)" in said[0]
    import json

    js = json.loads(report(ds, format="json"))
    assert sum(r["count"] for r in js["findings"]) == len(js["findings_all"]) == len(rows)


def test_grouped_folds_name_their_repeats():
    from cvframe.diagnostics import group_findings

    rows = anomalies(_never_positive(k=3, reps=2).cv.counts())
    line = group_findings(rows).query("kind == 'undefined_precision' and model == 'quiet'")
    assert line["folds"].tolist() == ["0-2 (repeat 0); 0-2 (repeat 1)"]
    assert group_findings(rows.iloc[:0]).columns.tolist()[-4:] == [
        "count",
        "folds",
        "detail",
        "explanation",
    ]


def test_the_report_names_a_dask_frame():
    dd = pytest.importorskip("dask.dataframe")
    from cvframe.report import report

    df = (
        _frame(missing=())
        .query("model == 'a' and dataset == 'd1'")
        .drop(columns=["model", "dataset"])
    )
    lazy = dd.from_pandas(df, npartitions=2)
    with pytest.raises(TypeError, match=r"ds is a dask DataFrame.*frame\.cv\.counts\(\)"):
        report(lazy)
    text = report(df.cv.counts(), scores=lazy, plots=False)  # read from its score counts
    assert text == report(df.cv.counts(), scores=df, plots=False)
