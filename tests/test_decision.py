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


def test_decision_is_per_fold_f_from_the_cube_whatever_the_frame():
    """One rule: compare(ds, "f", test="auto") on the cube; the frame changes nothing.

    (Formerly the frame switched the test to a bootstrap of F_tp,fp while the value column
    stayed F_tp,fp and, without the frame, the differences were of per-fold F: two p-values
    for the same data and a difference that was not the difference of the value shown.)
    """
    frame = _frame()
    ds = frame.cv.counts()
    per_fold = cvframe.tidy.fold_table(ds, zero_division=0.0)
    d = decision(ds, per_fold, beta=1.0, zero_division=0.0)
    assert d["best"] == "c" and d["test"] == "corrected_t" and d["tested_metric"] == "f"
    assert d["metric"] == "F_avg"
    f = ds.cv.f_avg(zero_division=0.0).mean("repeat").squeeze()
    rows = {r["model"]: r for r in d["rows"]}
    ref = compare(ds, "f", baseline="c", zero_division=0.0)
    for m in ("a", "b"):
        assert rows[m]["F_avg"] == pytest.approx(float(f.sel(model=m)))
        # the difference column is the difference of the value column
        assert rows[m]["difference"] == pytest.approx(rows[m]["F_avg"] - rows["c"]["F_avg"])
        contrast = f"{m} - c"
        assert rows[m]["p_value"] == pytest.approx(
            ref["p_value"].sel(contrast=contrast).squeeze().item()
        )
        assert rows[m]["difference"] == pytest.approx(
            ref["mean"].sel(contrast=contrast).squeeze().item()
        )
    assert rows["c"]["difference"] is None
    assert "f_tp_fp" in d["note"] and "bootstrap" in d["note"]
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
    for d in (with_scores, from_cli):
        assert (d["metric"], d["test"], d["tested_metric"], d["best"]) == (
            cube_only["metric"],
            cube_only["test"],
            cube_only["tested_metric"],
            cube_only["best"],
        )
        for got, want in zip(d["rows"], cube_only["rows"], strict=True):
            assert got["model"] == want["model"]
            for key in (cube_only["metric"], "difference", "low", "high", "p_value"):
                if want[key] is None:  # the best model's own row has no difference
                    assert got[key] is None
                else:
                    assert got[key] == pytest.approx(want[key], rel=1e-12, abs=1e-15)
    assert cube_only["metric"] == "F_avg" and cube_only["test"] == "corrected_t"
    assert cube_only["best"] == "rf"
    rows = {r["model"]: r for r in cube_only["rows"]}
    for m in ("lr", "nb"):
        assert rows[m]["difference"] == pytest.approx(rows[m]["F_avg"] - rows["rf"]["F_avg"])
        assert 0 <= rows[m]["p_value"] <= 1
    # the text says which test it ran on which number, and which it did not run
    text = ds.cv.report(scores=pred)
    lead = text.split("Which model is better:")[1].split("\n\n")[0]
    assert "Best by F_avg: rf" in lead and "corrected_t on per-fold F" in lead
    assert "compare(pred, 'f_tp_fp', test='bootstrap')" in lead


def test_report_leads_with_the_decision():
    ds = _frame().cv.counts()
    text = ds.cv.report()
    lines = text.splitlines()
    lead = lines.index("Which model is better:")
    assert lead < next(i for i, x in enumerate(lines) if x.startswith("Five aggregations"))
    assert "Best by F_avg: c" in lines[lead + 1]
    # the differences sit next to the value they are differences of (F_avg), not next to the
    # summary's F_tp,fp
    summary = text.split("Summary:")[1].split("\n\n")[0]
    assert "F_tp,fp" in summary and "minus" not in summary
    decision_table = text.split("Which model is better:")[1].split("Summary:")[0]
    assert "F_avg" in decision_table and "minus c" in decision_table
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
    assert "Which model is better:" in out and "Best by F_avg: c" in out


def test_no_decision_on_undefined_per_fold_f():
    """zero_division=nan leaves F undefined in folds without positives: no best, no test (a
    difference over the folds both models define would not be the difference of the values)."""
    import json

    pred = _frame((0.6, 0.93, 0.8), n=120, k=10, seed=3, prevalence=0.06, names=("x", "y", "z"))
    ds = pred.cv.counts()
    d = json.loads(ds.cv.report(format="json", zero_division=float("nan")))["decision"]
    assert d["best"] is None and d["test"] is None
    assert "zero_division=0" in d["note"]
    assert any(r["F_avg"] is None for r in d["rows"])
    text = ds.cv.report(zero_division=float("nan"))
    assert "no best model, no test" in text
    d0 = json.loads(ds.cv.report(format="json"))["decision"]
    assert d0["best"] is not None and d0["test"] == "corrected_t"
