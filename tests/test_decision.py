"""Showing the decision: the differences plot, the CD diagram, the report's lead section."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import cvframe
from cvframe.comparison import compare
from cvframe.plot.compare import _cliques
from cvframe.report.decision import decision

mpl = pytest.importorskip("matplotlib", reason="plots need matplotlib")
mpl.use("Agg")


def _frame(
    accs=(0.7, 0.8, 0.95), n=300, k=5, reps=2, seed=0, prevalence=0.3, names="abc", scores=False
):
    """A predictions frame of len(accs) models on the same folds (one row per model, sample);
    ``scores``: with a probability-like score column agreeing with the prediction."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < prevalence).astype(int)
    parts = []
    for r in range(reps):
        fold = rng.permutation(np.arange(n) % k)
        for name, a in zip(names, accs, strict=False):
            pred = np.where(rng.random(n) < a, y, 1 - y)
            part = pd.DataFrame(
                {
                    "model": name,
                    "repeat": r,
                    "fold": fold,
                    "sample": np.arange(n),
                    "y_true": y,
                    "y_pred": pred,
                }
            )
            if scores:
                part["score"] = np.clip(0.25 + 0.5 * pred + rng.normal(0, 0.15, n), 0, 1)
            parts.append(part)
    return pd.concat(parts, ignore_index=True)


def test_differences_draws_the_result():
    ds = _frame().cv.counts()
    res = compare(ds, "f", baseline="a")
    ax = cvframe.plot.differences(res)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["b - a", "c - a"]
    # the error bars span low..high of the result (drawn, not recomputed)
    seg = ax.collections[0].get_segments()
    lows = sorted(s[0][0] for s in seg)
    assert lows == pytest.approx(sorted(res["low"].values.ravel()))
    assert any(t.get_text().startswith("p=") for t in ax.texts)


def test_differences_bad_input():
    with pytest.raises(TypeError, match="compare"):
        cvframe.plot.differences(xr.Dataset())


def test_critical_difference_diagram():
    rank = xr.DataArray([1.0, 2.2, 2.8, 4.0], dims="model", coords={"model": list("abcd")})
    res = xr.Dataset({"rank": rank, "critical_difference": 1.5}, attrs={"test": "friedman"})
    ax = cvframe.plot.critical_difference(res)
    texts = [t.get_text() for t in ax.texts]
    assert {"a (1.00)", "b (2.20)", "(2.80) c", "(4.00) d"} <= set(texts)
    assert "CD = 1.50" in texts
    # groups within CD: (a, b), (b, c), (c, d)
    assert _cliques(np.array([1.0, 2.2, 2.8, 4.0]), 1.5) == [(0, 1), (1, 2), (2, 3)]
    assert _cliques(np.array([1.0, 1.1, 1.2]), 0.5) == [(0, 2)]


def test_critical_difference_from_friedman():
    cubes = []
    for s in range(4):
        cubes.append(_frame(reps=1, seed=s).cv.counts())
    ds = xr.concat(cubes, dim=pd.Index([f"d{s}" for s in range(4)], name="dataset"))
    res = compare(ds, "f", test="friedman")
    ax = cvframe.plot.critical_difference(res)
    texts = [t.get_text() for t in ax.texts]
    # the best model (c: highest accuracy) is drawn at its own mean rank, on the left
    r = res["rank"].squeeze().values
    assert f"c ({r[2]:.2f})" in texts and r[2] == r.min()
    cvframe.plot.differences(res)
    vs = compare(ds, "f", test="friedman", baseline="b")
    ax = cvframe.plot.critical_difference(vs)
    assert f"c ({r[2]:.2f})" in {t.get_text() for t in ax.texts}


def test_critical_difference_bad_input():
    with pytest.raises(TypeError, match="friedman"):
        cvframe.plot.critical_difference(xr.Dataset({"x": 1}))


def test_decision_is_the_pooled_f_tested_on_the_cube_or_per_sample_on_the_predictions():
    """One rule: the number the report recommends (F_tp,fp) decides, tested by compare with
    its defaults on the data given: the cube's fold jackknife, or with the predictions the
    per-sample paired test; F_avg with the corrected t is the labelled second line."""
    frame = _frame()
    ds = frame.cv.counts()
    per_fold = cvframe.tidy.fold_table(ds, zero_division=0.0)
    d = decision(ds, per_fold, beta=1.0, zero_division=0.0)
    assert d["best"] == "c" and d["test"] == "fold_jackknife" and d["tested_metric"] == "f_tp_fp"
    assert d["metric"] == "F_tp,fp" and d["data"] == "counts cube"
    f = ds.cv.f_tp_fp(zero_division=0.0).mean("repeat").squeeze()
    rows = {r["model"]: r for r in d["rows"]}
    ref = compare(ds, baseline="c", zero_division=0.0)  # compare's defaults: f_tp_fp, auto
    with_pred = decision(ds, per_fold, beta=1.0, zero_division=0.0, frame=frame)
    assert with_pred["test"] == "paired_delta" and with_pred["data"] == "predictions"
    ref_pred = compare(frame, baseline="c", zero_division=0.0)
    pred_rows = {r["model"]: r for r in with_pred["rows"]}
    for m in ("a", "b"):
        assert rows[m]["F_tp,fp"] == pytest.approx(float(f.sel(model=m)))
        # the difference column is the difference of the value column
        assert rows[m]["difference"] == pytest.approx(rows[m]["F_tp,fp"] - rows["c"]["F_tp,fp"])
        contrast = f"{m} - c"
        for got, res in ((rows, ref), (pred_rows, ref_pred)):
            want = res.sel(contrast=contrast).squeeze()
            assert got[m]["p_value"] == pytest.approx(float(want["p_value"]), rel=1e-12)
            assert got[m]["difference"] == pytest.approx(float(want["mean"]), rel=1e-12)
    assert rows["c"]["difference"] is None
    second = d["second"]
    assert second["metric"] == "F_avg" and second["test"] == "corrected_t"
    f_avg = compare(ds, "f", baseline=second["best"], zero_division=0.0)
    other = next(r for r in second["rows"] if r["model"] != second["best"])
    want = f_avg.sel(contrast=f"{other['model']} - {second['best']}").squeeze()
    assert other["p_value"] == pytest.approx(float(want["p_value"]))
    assert decision(ds.isel(model=[0]), per_fold, beta=1.0, zero_division=0.0) is None
    assert decision(ds, None, beta=1.0, zero_division=0.0) == d  # the fold table computed here
    with pytest.raises(ValueError, match=r"per_fold has the columns .*tidy.fold_table"):
        decision(ds, frame, beta=1.0, zero_division=0.0)  # a predictions frame is no fold table


def test_one_decision_whatever_the_entry_point(tmp_path, capsys):
    import json

    from cvframe.cli import main

    # three models, 10% positives, hard predictions and scores, on the same folds
    pred = _frame(
        (0.85, 0.93, 0.8),
        n=400,
        reps=2,
        seed=1,
        prevalence=0.1,
        names=("lr", "rf", "nb"),
        scores=True,
    )
    ds = pred.cv.counts()
    cube_only = json.loads(ds.cv.report(format="json"))["decision"]
    with_scores = json.loads(ds.cv.report(scores=pred, format="json"))["decision"]
    path = tmp_path / "pred.csv"
    pred.to_csv(path, index=False)
    capsys.readouterr()
    assert main(["report", str(path), "--format", "json", "--no-progress"]) == 0
    from_cli = json.loads(capsys.readouterr().out)["decision"]
    for d in (cube_only, with_scores, from_cli):  # the same metric and the same best
        assert (d["metric"], d["tested_metric"], d["best"]) == ("F_tp,fp", "f_tp_fp", "rf")
    assert cube_only["test"] == "fold_jackknife"
    assert with_scores["test"] == from_cli["test"] == "paired_delta"
    # the same data, the same test and p-values: the cube and ds.cv.compare(); the
    # predictions, the command line and compare(pred), each with its defaults
    for d, res in ((cube_only, ds.cv.compare()), (with_scores, cvframe.compare(pred))):
        assert res.attrs["test"] == d["test"]
        for row in d["rows"]:
            if row["model"] == "rf":
                continue
            pair = [
                c for c in res["contrast"].values if set(c.split(" - ")) == {row["model"], "rf"}
            ]
            got = float(res["p_value"].sel(contrast=pair[0]).squeeze())
            assert row["p_value"] == pytest.approx(got, rel=1e-9)
    for got, want in zip(from_cli["rows"], with_scores["rows"], strict=True):
        for key in ("F_tp,fp", "difference", "low", "high", "p_value"):
            if want[key] is None:  # the best model's own row has no difference
                assert got[key] is None
            else:
                assert got[key] == pytest.approx(want[key], rel=1e-12, abs=1e-15)
    # two calls of compare(pred) give one p-value
    xr.testing.assert_identical(cvframe.compare(pred), cvframe.compare(pred))
    rows = {r["model"]: r for r in cube_only["rows"]}
    for m in ("lr", "nb"):
        assert rows[m]["difference"] == pytest.approx(rows[m]["F_tp,fp"] - rows["rf"]["F_tp,fp"])
        assert 0 <= rows[m]["p_value"] <= 1
    # the text says which test it ran on which number, and labels the second line
    text = ds.cv.report(scores=pred)
    lead = text.split("Which model is better:")[1].split("\n\n")[0]
    assert "Best by F_tp,fp: rf" in lead and "paired_delta on the per-sample predictions" in lead
    assert "Second line, F_avg" in lead and "corrected_t on per-fold F" in lead
    cube_lead = ds.cv.report().split("Which model is better:")[1].split("\n\n")[0]
    assert "fold_jackknife on the folds' counts" in cube_lead


def test_report_leads_with_the_decision():
    ds = _frame().cv.counts()
    text = ds.cv.report()
    lines = text.splitlines()
    lead = lines.index("Which model is better:")
    assert lead < next(i for i, x in enumerate(lines) if x.startswith("Five aggregations"))
    assert "Best by F_tp,fp: c" in lines[lead + 1]
    # the differences sit next to the value they are differences of (F_tp,fp, the
    # summary's number), not in the summary
    summary = text.split("Summary:")[1].split("\n\n")[0]
    assert "F_tp,fp" in summary and "minus" not in summary
    decision_table = text.split("Which model is better:")[1].split("Summary:")[0]
    assert "F_tp,fp" in decision_table and "minus c" in decision_table
    page = cvframe.report.report(ds, format="html", plots=False)
    assert page.index("Which model is better") < page.index("Five aggregations")
    assert page.index('class="decision-table"') < page.index('class="summary-table"')
    import json

    js = json.loads(cvframe.report.report(ds, format="json"))
    assert js["decision"]["best"] == "c"
    # no model dim: no lead
    assert "Which model is better" not in cvframe.datasets.table1().cv.report()


def test_cli_report_on_a_file_with_a_model_column(tmp_path, capsys):
    from cvframe.cli import main

    path = tmp_path / "preds.csv"
    _frame().to_csv(path, index=False)
    assert main(["report", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Which model is better:" in out and "Best by F_tp,fp: c" in out


def test_no_second_line_test_on_undefined_per_fold_f():
    """zero_division=nan leaves F undefined in folds without positives: the second line has no
    best and no test (a difference over the folds both models define would not be the
    difference of the values); the pooled F, defined, still decides."""
    import json

    pred = _frame((0.6, 0.93, 0.8), n=120, k=10, seed=3, prevalence=0.06, names=("x", "y", "z"))
    ds = pred.cv.counts()
    d = json.loads(ds.cv.report(format="json", zero_division=float("nan")))["decision"]
    assert d["best"] is not None and d["test"] == "fold_jackknife"
    second = d["second"]
    assert second["best"] is None and second["test"] is None
    assert "zero_division=0" in second["note"]
    assert any(r["F_avg"] is None for r in second["rows"])
    text = ds.cv.report(zero_division=float("nan"))
    assert "no best model, no test" in text
    d0 = json.loads(ds.cv.report(format="json"))["decision"]
    assert d0["second"]["best"] is not None and d0["second"]["test"] == "corrected_t"


def test_a_multilabel_decision_says_when_sample_wise_metrics_pick_another_winner():
    rng = np.random.default_rng(0)
    n, labels = 300, 4
    y = (rng.random((n, labels)) < [0.5, 0.3, 0.05, 0.04]).astype(int)
    fold = np.arange(n) % 5
    # "rare": right on the rare labels, sloppy on the common ones; "common": right on the
    # common labels, never predicts the rare ones
    parts = []
    for m in ("rare", "common"):
        pred = y.copy()
        if m == "rare":
            pred[:, :2] = np.where(rng.random((n, 2)) < 0.3, 1 - y[:, :2], y[:, :2])
        else:
            pred[:, 2:] = 0
        cols = {f"y_true_{j}": y[:, j] for j in range(labels)}
        cols |= {f"y_pred_{j}": pred[:, j] for j in range(labels)}
        parts.append(pd.DataFrame({"model": m, "fold": fold, "sample": np.arange(n), **cols}))
    df = pd.concat(parts, ignore_index=True)
    ds = df.cv.counts()
    d = decision(ds, None, beta=1.0, zero_division=0.0)
    assert d["metric"] == "macro F_tp,fp" and d["best"] == "rare"
    assert "disagree about the winner" in d["disagreement"]
    assert "common" in d["disagreement"] and "subset accuracy" in d["disagreement"]
    assert "Note: the label-wise and sample-wise" in ds.cv.report()
    with_pred = decision(ds, None, beta=1.0, zero_division=0.0, frame=df)
    assert with_pred["test"] == "paired_delta" and with_pred["best"] == "rare"
