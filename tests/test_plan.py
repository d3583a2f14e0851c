"""plan (before fitting) and the simulated classifier whose precision and recall differ.

Oracles: ``p_fold_without_positives`` (exact, its own brute-force tests), ``bias_study`` (an
independent run: within Monte-Carlo error), the exact moments of the model, and the paper's
claim that F_avg favours classifiers that make more false positives (Section 4.3).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import cvframe
import cvframe.io
from cvframe.cli import main
from cvframe.simulation import bias_study, p_fold_without_positives, plan, simulate
from cvframe.simulation._model import Model
from cvframe.simulation.exact import fold_risks, moments

# --- precision != recall --------------------------------------------------------------------


def test_rates_default_to_f_and_keep_the_paper_streams():
    a = simulate(n=500, prevalence=0.1, f=0.8, trials=50, seed=3)
    b = simulate(n=500, prevalence=0.1, f=0.8, trials=50, seed=3, precision=0.8, recall=0.8)
    assert a.equals(b) and a.attrs["sim_precision"] == a.attrs["sim_recall"] == 0.8
    m = Model.make(1000, 0.05, 0.8, 10, True, 0.6, 0.9)
    assert m.f == pytest.approx(2 * 0.6 * 0.9 / 1.5)
    assert m.q == pytest.approx(50 * 0.9 * 0.4 / (0.6 * 950))
    one = Model.make(1000, 0.05, 0.72, 10, True, precision=0.6)
    assert one.recall == pytest.approx(0.9) and one.f == 0.72


@pytest.mark.parametrize("stratified", [True, False])
def test_unequal_rates_simulated_match_the_targets_and_the_exact_moments(stratified):
    ds = simulate(
        n=1000, prevalence=0.1, trials=4000, stratified=stratified, seed=1, precision=0.6,
        recall=0.9,
    )  # fmt: skip
    tp, fp, fn = (float(ds[v].sum()) for v in ("tp", "fp", "fn"))
    assert tp / (tp + fn) == pytest.approx(0.9, abs=0.005)
    assert tp / (tp + fp) == pytest.approx(0.6, abs=0.005)
    ex = moments(Model.make(1000, 0.1, 0.8, 10, stratified, 0.6, 0.9))
    est = ds.cv.f_methods(zero_division=0.0)
    for name in ("f_tp_fp", "f_avg"):
        x = est[name].values.ravel()
        se = x.std(ddof=1) / math.sqrt(x.size)
        assert abs(x.mean() - ex[f"{name}_mean"]) < 4 * se


def test_f_avg_favours_the_classifier_with_more_false_positives():
    # Forman & Scholz (2010, Section 4.3): F_avg "penalizes methods that may occasionally
    # predict zero positives for some test folds" and so prefers those "that err on the side
    # of producing more false positives". Same ground-truth F, precision < recall (more false
    # positives) vs precision > recall: F_avg's relative bias is higher for the first.
    loose = Model.make(1000, 0.02, 0.72, 10, True, precision=0.6, recall=0.9)
    strict = Model.make(1000, 0.02, 0.72, 10, True, precision=0.9, recall=0.6)
    assert loose.f == pytest.approx(strict.f)
    m_loose, m_strict = moments(loose), moments(strict)
    bias = {k: (m["f_avg_mean"] - k.f) / k.f for k, m in ((loose, m_loose), (strict, m_strict))}
    assert bias[loose] > bias[strict] + 0.05
    assert m_loose["p_undefined"] < m_strict["p_undefined"]
    # the pooled estimator hardly cares
    pooled = [(m["f_tp_fp_mean"] - loose.f) / loose.f for m in (m_loose, m_strict)]
    assert abs(pooled[0] - pooled[1]) < 0.02
    # and bias_study shows the same, its Monte-Carlo F_avg,skip included
    kw = dict(prevalence=0.02, stratified=True, trials=4000, seed=0, progress=False)
    lo = bias_study(precision=0.6, recall=0.9, **kw)
    hi = bias_study(precision=0.9, recall=0.6, **kw)
    b_lo = lo.rel_bias.sel(estimator="f_avg").item()
    b_hi = hi.rel_bias.sel(estimator="f_avg").item()
    assert b_lo == pytest.approx(bias[loose]) and b_hi == pytest.approx(bias[strict])
    assert lo.precision.item() == 0.6 and hi.recall.item() == 0.6


def test_rates_bad_values():
    with pytest.raises(ValueError, match="precision"):
        simulate(trials=2, precision=1.5)
    with pytest.raises(ValueError, match="disagrees"):
        simulate(trials=2, f=0.5, precision=0.6, recall=0.9)
    with pytest.raises(ValueError, match="cannot give f"):
        simulate(trials=2, f=0.8, precision=0.3)
    with pytest.raises(ValueError, match="too low"):
        simulate(n=100, prevalence=0.9, trials=2, precision=0.5, recall=1.0)


# --- plan --------------------------------------------------------------------------------


DESIGNS = [
    dict(counts={"pos": 20, "neg": 980}, k=10, stratified=False, repeats=1),
    dict(counts={"pos": 50, "neg": 450}, k=5, stratified=True, repeats=3),
    dict(counts={"pos": 15, "neg": 285}, k=10, stratified=False, repeats=2),
]


@pytest.mark.parametrize("design", DESIGNS)
def test_plan_equals_p_fold_without_positives_and_bias_study(design):
    kw = {k: v for k, v in design.items() if k != "counts"}
    p = plan(design["counts"], trials=4000, random_state=1, **kw)
    pos, n = design["counts"]["pos"], sum(design["counts"].values())
    row = p.risks.loc["pos"]
    if design["stratified"]:
        assert row["p_some_no_pos"] == float(pos < design["k"])
    else:
        expect = p_fold_without_positives(pos, n, design["k"], trials=design["repeats"])
        assert row["p_some_no_pos"] == expect  # exactly: the same computation
    st = bias_study(
        prevalence=pos / n, stratified=design["stratified"], n=n, k=design["k"], trials=4000,
        seed=99, progress=False,
    ).isel(stratified=0, prevalence=0, f=0)  # fmt: skip
    est = p.estimators.set_index("estimator")
    for name in cvframe.simulation.ESTIMATORS:
        got, ref = est.loc[name], st.sel(estimator=name)
        if bool(ref.exact):
            assert got["rel_bias"] == pytest.approx(float(ref.rel_bias), abs=1e-12)
        else:
            se = math.hypot(got["rel_bias_se"], float(ref.rel_bias_se))
            assert abs(got["rel_bias"] - float(ref.rel_bias)) < 4 * se
    und = 1 - (1 - float(st.p_undefined)) ** design["repeats"]
    assert row["p_some_undefined"] == pytest.approx(und, abs=0.03)


def test_fold_risks_match_a_simulation():
    m = Model.make(300, 0.05, 0.7, 10, False)
    r = fold_risks(m)
    ds = simulate(n=300, prevalence=0.05, f=0.7, trials=20000, stratified=False, seed=4)
    no_pred = ((ds.tp + ds.fp) == 0).values[..., 0]
    no_pos = ((ds.tp + ds.fn) == 0).values[..., 0]
    for key, x in (("p_fold_no_pred", no_pred.mean()), ("p_some_no_pred", no_pred.any(1).mean())):
        assert abs(r[key] - x) < 4 * math.sqrt(r[key] * (1 - r[key]) / 20000) + 1e-3
    assert abs(r["p_fold_no_pos"] - no_pos.mean()) < 0.01


def test_recommendation_follows_prevalence():
    rare = plan({"pos": 5, "neg": 995}, k=10, trials=2000)
    assert rare.overall["k"] == 5 and rare.overall["report"] == "f_tp_fp"
    unstrat = plan({"pos": 30, "neg": 970}, k=10, stratified=False, trials=2000)
    assert unstrat.overall["stratified"] and unstrat.overall["report"] == "f_tp_fp"
    strat = plan({"pos": 30, "neg": 970}, k=10, trials=2000)
    assert strat.overall["report"] == "f_tp_fp"  # undefined folds still likely: F_tp,fp
    balanced = plan({"pos": 500, "neg": 500}, k=10, trials=2000)
    assert balanced.overall["report"] == "any" and balanced.overall["k"] == 10
    auc_rare = plan({"pos": 30, "neg": 970}, k=10, metric="roc_auc", trials=2000)
    assert auc_rare.overall["k"] < 10  # 3 positives per fold: fewer folds for AUC_avg
    for p in (rare, balanced):
        assert p.overall["reason"].endswith(".") and p.overall["reason"].count(". ") == 0


def test_labels_multilabel_and_counts_inputs():
    y = np.array(["a"] * 20 + ["b"] * 980)
    by_labels = plan(y, trials=500)
    by_counts = plan(pd.Series({"a": 20, "b": 980}), trials=500)
    assert list(by_labels.risks.index) == ["a"] == list(by_counts.risks.index)
    pd.testing.assert_frame_equal(by_labels.risks, by_counts.risks)
    assert list(plan(np.array([20, 980]), counts=True, trials=500).risks.index) == [0]
    rng = np.random.default_rng(0)
    Y = pd.DataFrame({"x": rng.random(200) < 0.3, "y": rng.random(200) < 0.02}).astype(int)
    Y.loc[:3, "y"] = 1
    ml = plan(Y, k=10, trials=500)
    assert list(ml.risks.index) == ["x", "y"] and ml.design["multilabel"]
    n_y = int(Y["y"].sum())
    assert ml.risks.loc["y", "p_some_no_pos"] == float(n_y < 10)
    frame = ml.to_frame()
    assert {"rel_bias_f_avg", "rel_bias_auc_merge", "advice_report"} <= set(frame.columns)
    assert "Recommendation" in str(ml) and "'y'" in repr(ml)


def test_plan_bad_inputs():
    with pytest.raises(ValueError, match="one class"):
        plan(np.zeros(10))
    with pytest.raises(ValueError, match="k="):
        plan({"a": 3, "b": 3}, k=7)
    with pytest.raises(ValueError, match="metric"):
        plan({"a": 3, "b": 30}, metric="brier")
    with pytest.raises(ValueError, match="pos_label"):
        plan({"a": 3, "b": 30}, pos_label="c")
    with pytest.raises(ValueError, match="indicator"):
        plan(np.full((5, 2), 2))
    p = plan({"a": 300, "b": 300, "c": 30}, k=5, trials=500)  # F=0.8 unreachable for none
    assert set(p.risks.index) == {"a", "b", "c"}
    q = plan({"a": 5, "b": 990, "c": 5}, k=5, trials=500)  # "b": F=0.8 needs too many FPs
    assert "b" in q.skipped and "not planned" in str(q)


def test_cli_plan_and_reconcile(tmp_path, capsys):
    assert main(["plan", "--counts", "20,980", "--k", "10", "--trials", "500"]) == 0
    out = capsys.readouterr().out
    assert "Recommendation" in out and "F_tp,fp" in out
    path = tmp_path / "y.csv"
    pd.DataFrame({"label": ["r"] * 20 + ["c"] * 980}).to_csv(path, index=False)
    assert main(["plan", "--y", str(path), "--column", "label", "--trials", "500"]) == 0
    assert "class 'r'" in capsys.readouterr().out
    assert main(["plan", "--y", str(path), "--column", "nope"]) == 2
    assert "--column nope" in capsys.readouterr().err
    ds = cvframe.datasets.table2()
    nc = tmp_path / "t2.nc"
    cvframe.io.prepare_for_write(ds).to_netcdf(nc)
    assert main(["reconcile", str(nc), "--reported", "0.667", "--reported", "0.769"]) == 0
    out = capsys.readouterr().out
    assert "F_avg" in out and "F_tp,fp" in out and "undefined folds" in out
    assert main(["reconcile", str(nc), "--reported", "0.667"]) == 2
    assert "exactly twice" in capsys.readouterr().err
