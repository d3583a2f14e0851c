"""cvframe.compare: every test against an independent oracle (a direct formula, WEKA,
mlxtend, scipy, statsmodels) and the resampling tests calibrated by simulation."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import cvframe
from cvframe.comparison import compare, resampling
from cvframe.comparison._common import Request
from cvframe.comparison.resampling import Paired

DATA = pathlib.Path(__file__).parent / "data" / "compare"
WEKA_JAR = pathlib.Path("/usr/share/java/weka.jar")


# --- builders ------------------------------------------------------------------------------


def cube(accs, n=157, repeats=10, folds=10, seed=0, names=None, pos_rate=0.4):
    """Models tested on the same folds: one cube per model, stacked along ``model``."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < pos_rate).astype(int)
    fold = np.concatenate([rng.permutation(np.arange(n) % folds) for _ in range(repeats)])
    rep = np.repeat(np.arange(repeats), n)
    yy = np.tile(y, repeats)
    cubes = [
        cvframe.from_predictions(yy, np.where(rng.random(yy.size) < a, yy, 1 - yy), fold, rep)
        for a in accs
    ]
    names = names or [f"m{i}" for i in range(len(accs))]
    return xr.concat(cubes, dim=pd.Index(names, name="model"))


def frame(accs, n=200, repeats=1, folds=5, seed=0, names=None, shared=0.0):
    """A predictions frame with a model column (Categorical, in the given order)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    names = names or [f"m{i}" for i in range(len(accs))]
    parts = []
    for r in range(repeats):
        fold = rng.permutation(np.arange(n) % folds)
        common = rng.random(n)
        for name, acc in zip(names, accs, strict=True):
            u = np.where(rng.random(n) < shared, common, rng.random(n))
            parts.append(
                pd.DataFrame(
                    {
                        "model": name,
                        "repeat": r,
                        "fold": fold,
                        "sample": np.arange(n),
                        "y_true": y,
                        "y_pred": np.where(u < acc, y, 1 - y),
                        "score": y * acc + rng.normal(0, 0.5, n),
                    }
                )
            )
    df = pd.concat(parts, ignore_index=True)
    df["model"] = pd.Categorical(df["model"], categories=names)
    return df


def per_fold_f(ds):
    tp, fp, fn = (ds[v].astype(float) for v in ("tp", "fp", "fn"))
    den = 2 * tp + fp + fn
    return xr.where(den > 0, 2 * tp / den, 0.0)


# --- corrected repeated k-fold t-test ---------------------------------------------------------


def test_corrected_t_equals_the_direct_formula():
    ds = cube([0.7, 0.75, 0.8], n=103, repeats=3, folds=7, seed=1)
    res = compare(ds, "f", baseline="m0")
    f = per_fold_f(ds).isel({"class": 0})
    n_test = (ds.tp + ds.fp + ds.fn + ds.tn).isel({"class": 0}).isel(model=0).values  # (R, K)
    n_train = n_test.sum(1, keepdims=True) - n_test
    ratio = n_test.sum() / n_train.sum()
    for j, m in enumerate(["m1", "m2"]):
        d = (f.sel(model=m) - f.sel(model="m0")).values.ravel()
        n = d.size
        t = d.mean() / np.sqrt((1 / n + ratio) * d.var(ddof=1))
        p = 2 * stats.t.sf(abs(t), n - 1)
        got = res.isel(contrast=j, **{"class": 0})
        assert got["statistic"].item() == pytest.approx(t, rel=1e-12)
        assert got["p_value"].item() == pytest.approx(p, rel=1e-10)
        assert got["df"].item() == n - 1
        half = stats.t.ppf(0.975, n - 1) * np.sqrt((1 / n + ratio) * d.var(ddof=1))
        assert got["low"].item() == pytest.approx(d.mean() - half, rel=1e-12)
        assert got["high"].item() == pytest.approx(d.mean() + half, rel=1e-12)
    assert res.attrs["test"] == "corrected_t"  # auto on a per-fold metric
    assert res.attrs["test_train_ratio"] == pytest.approx(ratio)
    assert res["model"].values.tolist() == ["m1", "m2"]
    assert res["baseline"].values.tolist() == ["m0", "m0"]
    # the per-repeat difference is the difference of the repeat's F_avg
    favg = ds.cv.f_avg()
    want = (favg.sel(model="m2") - favg.sel(model="m0")).values.ravel()
    np.testing.assert_allclose(res["difference"].sel(contrast="m2 - m0").values.ravel(), want)


def _weka_table():
    out = pd.read_csv(DATA / "weka_corrected_t.csv")
    out["model"] = out["model"].str.split().str[0]
    return out.set_index("model")


def test_corrected_t_equals_wekas_paired_corrected_ttester_fixture():
    ds = cvframe.from_counts(pd.read_csv(DATA / "counts.csv"))
    res = compare(ds, "f", baseline="base")
    weka = _weka_table()
    for m in ["better", "same"]:
        got = res.sel(contrast=f"{m} - base").isel({"class": 0})
        assert got["p_value"].item() == pytest.approx(weka.loc[m, "p_value"], rel=1e-9)
        assert got["mean"].item() == pytest.approx(weka.loc[m, "mean"], rel=1e-12)
        assert got["df"].item() == weka.loc[m, "count"] - 1
    # WEKA's significance flag agrees with ours
    assert not res["significant"].any()


@pytest.mark.skipif(
    shutil.which("javac") is None or not WEKA_JAR.exists(),
    reason="WEKA (apt-get install weka) and a JDK are needed to rerun the fixture's tester",
)
def test_weka_fixture_is_what_weka_prints_today(tmp_path):
    subprocess.run(
        ["javac", "-cp", str(WEKA_JAR), "-d", str(tmp_path), str(DATA / "WekaCorrectedT.java")],
        check=True,
    )
    out = subprocess.run(
        [
            "java",
            "-cp",
            f"{WEKA_JAR}:{tmp_path}",
            "weka.experiment.WekaCorrectedT",
            str(DATA / "results.arff"),
            "F_measure",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert out == (DATA / "weka_corrected_t.csv").read_text()


def test_uncorrected_t_is_refused_and_corrected_t_is_wider_than_the_plain_paired_t():
    ds = cube([0.7, 0.8], n=100, repeats=2, folds=5, seed=3)
    with pytest.raises(ValueError, match="uncorrected paired t-test over the folds"):
        compare(ds, "f", baseline="m0", test="t")
    d = (per_fold_f(ds).sel(model="m1") - per_fold_f(ds).sel(model="m0")).values.ravel()
    want = stats.ttest_1samp(d, 0.0)
    corrected = compare(ds, "f", baseline="m0")
    assert corrected["p_value"].item() > want.pvalue
    assert abs(corrected["statistic"].item()) < abs(want.statistic)


def test_bayesian_posterior_agrees_with_the_corrected_t():
    ds = cube([0.7, 0.78], n=120, repeats=5, folds=5, seed=4)
    t = compare(ds, "f", baseline="m0")
    b0 = compare(ds, "f", baseline="m0", test="bayesian", rope=0.0)
    # flat prior: P(mu > 0 | data) is the Student-t cdf of the corrected t statistic
    want = stats.t.cdf(t["statistic"].item(), t["df"].item())
    assert b0["p_right"].item() == pytest.approx(want, rel=1e-10)
    assert b0["p_rope"].item() == 0.0
    b = compare(ds, "f", baseline="m0", test="bayesian", rope=0.02)
    total = b["p_left"] + b["p_rope"] + b["p_right"]
    np.testing.assert_allclose(total.values, 1.0)
    assert b["p_rope"].item() > 0 and b.attrs["rope"] == 0.02
    np.testing.assert_allclose(b["low"].values, t["low"].values)  # same posterior scale


# --- 5x2cv -------------------------------------------------------------------------------------


class _Replay:
    """An 'estimator' whose scores mlxtend reads from a list (fit does nothing)."""

    _estimator_type = "classifier"

    def __init__(self, values):
        self.values = list(values)

    def fit(self, X, y):
        return self

    def get_params(self, deep=True):
        return {}


def _scorer(estimator, X, y):
    return estimator.values.pop(0)


@pytest.mark.parametrize("test", ["5x2cv_t", "5x2cv_f"])
def test_5x2cv_equals_mlxtend_on_the_same_fold_scores(test):
    evaluate = pytest.importorskip("mlxtend.evaluate", reason="mlxtend (test extra) not installed")
    ds = cube([0.7, 0.8], n=60, repeats=5, folds=2, seed=5)
    f = per_fold_f(ds).isel({"class": 0}).transpose("model", "repeat", "fold").values
    res = compare(ds, "f", baseline="m0", test=test)
    X, y = np.zeros((20, 1)), np.arange(20) % 2
    func = evaluate.paired_ttest_5x2cv if test == "5x2cv_t" else evaluate.combined_ftest_5x2cv
    stat, p = func(_Replay(f[1].ravel()), _Replay(f[0].ravel()), X, y, scoring=_scorer)
    assert res["statistic"].item() == pytest.approx(stat, rel=1e-12)
    assert res["p_value"].item() == pytest.approx(p, rel=1e-10)
    assert res.attrs["test"] == test


# --- McNemar -----------------------------------------------------------------------------------


def test_mcnemar_equals_statsmodels_and_scipy():
    contingency = pytest.importorskip(
        "statsmodels.stats.contingency_tables", reason="statsmodels (test extra) not installed"
    )
    df = frame([0.7, 0.8, 0.72], n=150, seed=6)
    res = compare(df, "accuracy_pooled", baseline="m0")
    assert res.attrs["test"] == "mcnemar"  # auto: pooled accuracy of one run
    wide = df.pivot(index="sample", columns="model", values="y_pred")
    y = df[df.model == "m0"].set_index("sample")["y_true"]
    for m in ["m1", "m2"]:
        a, b = wide[m] == y, wide["m0"] == y
        table = [
            [int((a & b).sum()), int((a & ~b).sum())],
            [int((~a & b).sum()), int((~a & ~b).sum())],
        ]
        got = res.sel(contrast=f"{m} - m0")
        exact = contingency.mcnemar(table, exact=True)
        chi2 = contingency.mcnemar(table, exact=False, correction=True)
        assert got["p_value"].item() == pytest.approx(exact.pvalue, rel=1e-10)
        assert got["statistic"].item() == pytest.approx(chi2.statistic, rel=1e-12)
        assert got["p_value_chi2"].item() == pytest.approx(chi2.pvalue, rel=1e-10)
        k = table[0][1] + table[1][0]
        assert got["p_value"].item() == pytest.approx(stats.binomtest(table[0][1], k).pvalue)
        assert got["mean"].item() == pytest.approx(a.mean() - b.mean())


# --- bootstrap and permutation -----------------------------------------------------------------


@pytest.mark.parametrize("test", ["bootstrap", "permutation"])
def test_resampling_tests_measure_the_pooled_metric(test):
    from sklearn.metrics import f1_score, roc_auc_score

    df = frame([0.7, 0.8], n=120, repeats=2, seed=7)
    for metric in ["f_tp_fp", "auc_merge", "accuracy_pooled"]:
        res = compare(df, metric, baseline="m0", test=test, n_resamples=200, random_state=0)
        for r in (0, 1):
            got = res["difference"].sel(repeat=r).item()
            part = {m: df[(df.model == m) & (df.repeat == r)] for m in ("m0", "m1")}
            if metric == "f_tp_fp":
                val = {m: f1_score(p.y_true, p.y_pred) for m, p in part.items()}
            elif metric == "auc_merge":
                val = {m: roc_auc_score(p.y_true, p.score) for m, p in part.items()}
            else:
                val = {m: (p.y_true == p.y_pred).mean() for m, p in part.items()}
            assert got == pytest.approx(val["m1"] - val["m0"], abs=1e-12)
        assert res.attrs["n_resamples"] == 200 and res.attrs["random_state"] == 0
        assert res.attrs["test"] == test
        again = compare(df, metric, baseline="m0", test=test, n_resamples=200, random_state=0)
        xr.testing.assert_identical(res, again)  # the seed makes it reproducible


def test_auto_on_a_frame_picks_the_paired_delta_test_for_pooled_f():
    df = frame([0.6, 0.9], n=150, seed=8)
    res = compare(df, baseline="m0")
    assert res.attrs["test"] == "paired_delta"
    assert res["p_value"].item() < 0.01 and res["low"].item() > 0
    assert res["low"].item() < res["mean"].item() < res["high"].item()


def _null_pair(rng, n=120, shared=0.5):
    """Two exchangeable models' paired predictions of one CV run (5 folds), as compare reads."""
    y = rng.integers(0, 2, n)
    common = rng.random(n)
    preds, scores_ = [], []
    for _ in range(2):
        u = np.where(rng.random(n) < shared, common, rng.random(n))
        preds.append(np.where(u < 0.75, y, 1 - y))
        scores_.append(y * 0.75 + rng.normal(0, 0.5, n))
    pred = np.stack(preds)[:, None, :] == 1  # (M, R, S)
    yy = np.broadcast_to(y == 1, pred.shape)
    counts = {"tp": pred & yy, "fp": pred & ~yy, "fn": ~pred & yy, "tn": ~pred & ~yy}
    return Paired(
        ["m0", "m1"],
        None,
        y,
        np.arange(n) % 5,
        correct=pred == yy,
        counts={k: v[..., None].astype(float) for k, v in counts.items()},
        score=np.stack(scores_)[:, None, None, :],
        positive=(y == 1)[None],
        classes=[1],
    )


def _kernel(pr, test, metric, seed):
    """The resampling test of compare on paired arrays: model m1 - model m0."""
    name = cvframe.metrics.resolve(metric)
    req = Request(
        metric, test, None, "model", 0.95, 199, seed, 0.01, 1.0, "warn", "macro", None,
        name=name.metric, variant=name.variant,
    )  # fmt: skip
    obs = resampling.pooled_values(pr, metric, 1.0, "macro")
    mean = obs[[1]].mean(-1) - obs[[0]].mean(-1)
    return getattr(resampling, test)(pr, req, [1], [0], mean)


@pytest.mark.parametrize(
    "test, metric",
    [
        ("permutation", "f_tp_fp"),
        ("bootstrap", "f_tp_fp"),
        ("permutation", "accuracy_pooled"),
        ("bootstrap", "auc_merge"),
    ],
)
def test_resampling_tests_hold_alpha_under_the_null(test, metric):
    """Two exchangeable models: the false-positive rate at alpha=0.05 is 0.05 within MC error.

    The simulation calls the test's kernel on the paired arrays compare reads from the frame
    (the frame reading itself is checked against scikit-learn above).
    """
    n_sim = 250 if metric == "auc_merge" else 400  # AUC re-ranks every resample
    rng = np.random.default_rng(2024)
    p = np.empty(n_sim)
    for i in range(n_sim):
        res = _kernel(_null_pair(rng), test, metric, int(rng.integers(2**31)))
        p[i] = res["p_value"][0]
    rate = (p < 0.05).mean()
    mc = np.sqrt(0.05 * 0.95 / n_sim)
    assert 0.05 - 3.5 * mc < rate < 0.05 + 3.5 * mc, rate
    assert 0.35 < (p < 0.5).mean() < 0.65  # roughly uniform, not piled at 1


# --- Friedman across data sets -----------------------------------------------------------------


def _datasets(n_datasets=6, accs=(0.7, 0.75, 0.8, 0.72), seed=9):
    parts = [
        cube(accs, n=80, repeats=2, folds=4, seed=seed + i).expand_dims(dataset=[f"d{i}"])
        for i in range(n_datasets)
    ]
    return xr.concat(parts, dim="dataset")


def test_friedman_equals_scipy_and_the_critical_difference_demsar():
    ds = _datasets()
    res = compare(ds, "f_tp_fp", test="friedman")
    score = ds.cv.f_tp_fp().mean("repeat").isel({"class": 0})
    want = stats.friedmanchisquare(*[score.sel(model=m).values for m in score.model.values])
    got = res.isel({"class": 0})
    assert got["friedman_statistic"].item() == pytest.approx(want.statistic, rel=1e-12)
    assert got["friedman_p_value"].item() == pytest.approx(want.pvalue, rel=1e-10)
    k, n = 4, 6
    # Demšar (2006), Table 5(a): q_0.05 = 2.569 for k = 4
    assert res["critical_difference"].item() == pytest.approx(
        2.569 * np.sqrt(k * (k + 1) / (6 * n)), rel=1e-3
    )
    ranks = stats.rankdata(-score.transpose("dataset", "model").values, axis=1).mean(0)
    np.testing.assert_allclose(got["rank"].values, ranks)
    assert res.attrs["posthoc"] == "nemenyi" and res.sizes["contrast"] == 6
    chi2 = want.statistic
    ff = (n - 1) * chi2 / (n * (k - 1) - chi2)
    assert got["iman_davenport_statistic"].item() == pytest.approx(ff)


def test_friedman_with_a_baseline_uses_holm():
    multitest = pytest.importorskip("statsmodels.stats.multitest", reason="statsmodels missing")
    ds = _datasets(n_datasets=8, seed=20)
    res = compare(ds, "f", test="friedman", baseline="m0").isel({"class": 0})
    assert res.attrs["posthoc"] == "holm"
    raw = 2 * stats.norm.sf(np.abs(res["statistic"].values))
    want = multitest.multipletests(raw, method="holm")[1]
    np.testing.assert_allclose(res["p_value"].values, want, rtol=1e-12)


# --- invariants --------------------------------------------------------------------------------


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6), folds=st.integers(2, 6), repeats=st.integers(1, 3))
def test_swapping_model_and_baseline_flips_the_sign(seed, folds, repeats):
    ds = cube([0.6, 0.8], n=40, repeats=repeats, folds=folds, seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ab = compare(ds, "f", baseline="m0", zero_division=0.0)
        ba = compare(ds, "f", baseline="m1", zero_division=0.0)
    np.testing.assert_allclose(ab["mean"].values, -ba["mean"].values)
    np.testing.assert_allclose(ab["p_value"].values, ba["p_value"].values)
    np.testing.assert_allclose(ab["low"].values, -ba["high"].values)
    assert (ab["p_value"].values >= 0).all() and (ab["p_value"].values <= 1).all()


def test_all_pairs_when_no_baseline_and_the_accessors_agree():
    ds = cube([0.7, 0.75, 0.8], n=90, repeats=2, folds=3, seed=11, names=["c", "a", "b"])
    res = compare(ds, "accuracy")
    assert res["contrast"].values.tolist() == ["a - c", "b - c", "b - a"]  # the given order
    xr.testing.assert_identical(res, ds.cv.compare("accuracy"))
    df = frame([0.7, 0.8], n=80, seed=12)
    xr.testing.assert_identical(
        compare(df, baseline="m0", random_state=3, n_resamples=100),
        df.cv.compare(baseline="m0", random_state=3, n_resamples=100),
    )


def test_a_frame_with_per_fold_metric_uses_its_cube():
    df = frame([0.7, 0.8], n=100, repeats=2, seed=13)
    via_frame = compare(df, "f", baseline="m0")
    via_cube = compare(df.cv.counts(), "f", baseline="m0")
    xr.testing.assert_identical(via_frame, via_cube)


def test_the_doc_page_examples_run():
    import doctest

    page = pathlib.Path(__file__).parents[1] / "docs" / "compare.md"
    if not page.exists():
        pytest.skip("docs/compare.md not written")
    text = page.read_text()
    blocks = [b.split("```", 1)[0] for b in text.split("```python")[1:]]
    parser, runner = (
        doctest.DocTestParser(),
        doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE),
    )
    test = parser.get_doctest("\n".join(blocks), {}, "compare.md", str(page), 0)
    runner.run(test)  # one namespace: later blocks use earlier names
    assert runner.failures == 0


def test_a_summary_of_the_difference_says_it_is_a_difference():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300)
    fold, rep = np.arange(300) % 5, np.arange(300) % 3
    cubes = [
        cvframe.from_predictions(y, np.where(rng.random(300) < q, y, 1 - y), fold, repeat=rep)
        for q in (0.7, 0.8)
    ]
    ds = xr.concat(cubes, dim=pd.Index(["a", "b"], name="model"))
    res = compare(ds, "f", baseline="a")
    s = ds.cv.summary(res["difference"])
    assert s.attrs["result_method"] == "difference"
    assert s.attrs["result_difference"] == res.attrs["difference"]
    assert res["difference"].attrs["test"] == res.attrs["test"]
