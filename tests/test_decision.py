"""Showing the decision: the differences plot, the CD diagram, the report's lead section."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import cvframe
from cvframe.compare import compare
from cvframe.plot.compare import _cliques
from cvframe.report.decision import decision

mpl = pytest.importorskip("matplotlib", reason="plots need matplotlib")
mpl.use("Agg")


@pytest.fixture(autouse=True)
def _close():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def _frame(accs=(0.7, 0.8, 0.95), n=300, k=5, reps=2, seed=0):
    """A predictions frame of len(accs) models on the same folds (one row per model, sample)."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    parts = []
    for r in range(reps):
        fold = rng.permutation(np.arange(n) % k)
        for name, a in zip("abc", accs, strict=False):
            pred = np.where(rng.random(n) < a, y, 1 - y)
            parts.append(
                pd.DataFrame(
                    {
                        "model": name,
                        "repeat": r,
                        "fold": fold,
                        "sample": np.arange(n),
                        "y_true": y,
                        "y_pred": pred,
                    }
                )
            )
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


def test_decision_from_the_cube_and_from_the_frame():
    frame = _frame()
    ds = frame.cv.counts()
    d = decision(ds, None, beta=1.0, zero_division=0.0)
    assert d["best"] == "c" and d["test"] == "corrected_t" and d["tested_metric"] == "f"
    f = ds.cv.f_tp_fp(zero_division=0.0).mean("repeat").squeeze()
    rows = {r["model"]: r for r in d["rows"]}
    assert rows["a"]["F_tp,fp"] == pytest.approx(float(f.sel(model="a")))
    ref = compare(ds, "f", baseline="c", zero_division=0.0)
    ref_p = ref["p_value"].sel(contrast="a - c").squeeze().item()
    assert rows["a"]["p_value"] == pytest.approx(ref_p)
    assert rows["c"]["difference"] is None
    d2 = decision(ds, frame, beta=1.0, zero_division=0.0)
    assert d2["test"] == "bootstrap" and d2["tested_metric"] == "f_tp_fp"
    assert decision(ds.isel(model=[0]), None, beta=1.0, zero_division=0.0) is None


def test_report_leads_with_the_decision():
    ds = _frame().cv.counts()
    text = ds.cv.report()
    lines = text.splitlines()
    lead = lines.index("Which model is better:")
    assert lead < next(i for i, x in enumerate(lines) if x.startswith("Five aggregations"))
    assert "Best by F_tp,fp: c" in lines[lead + 1]
    page = cvframe.report.report(ds, format="html", plots=False)
    assert page.index("Which model is better") < page.index("Five aggregations")
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
