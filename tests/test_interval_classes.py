"""Intervals of class averages and of metrics of every class at once: each holds its own
estimate, its variance is the delta method's (an analytic gradient and a large multinomial
simulation as oracles), it covers at the nominal level on confusion matrices like real ones,
and the coverage certificate of interval(certify=True) simulates the user's own design."""

from __future__ import annotations

import json
import math
import pathlib
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

import cvframe
from cvframe.intervals import _delta, certify

DATA = pathlib.Path(__file__).parent / "data"
PER_CLASS = ("f", "precision", "recall", "jaccard", "specificity")
WHOLE = ("mcc", "balanced_accuracy", "error", "accuracy")
AVERAGES = ("macro", "micro", "weighted")


def _cube(conf_by_fold: np.ndarray) -> xr.Dataset:
    """The cube of (fold, true, pred) confusion counts, by the one builder."""
    y, pred, fold = [], [], []
    for f, m in enumerate(np.asarray(conf_by_fold)):
        for t, p in zip(*np.nonzero(m), strict=True):
            y += [t] * int(m[t, p])
            pred += [p] * int(m[t, p])
            fold += [f] * int(m[t, p])
    labels = list(range(np.shape(conf_by_fold)[-1]))
    return cvframe.from_predictions(np.array(y), np.array(pred), np.array(fold), labels=labels)


@pytest.fixture(scope="module")
def digits() -> xr.Dataset:
    """load_digits, LR and RF, 10-fold CV: the cube the issue reported (its confusion)."""
    raw = json.loads((DATA / "digits_confusion.json").read_text())["confusion"]
    cubes = [_cube(np.array(raw[m])) for m in ("lr", "rf")]
    return xr.concat(cubes, dim="model").assign_coords(model=["lr", "rf"])


def _inside(iv: xr.Dataset) -> bool:
    return bool(((iv.lower <= iv.estimate) & (iv.estimate <= iv.upper)).all())


def test_digits_macro_f_lies_inside_its_interval(digits):
    iv = cvframe.interval(digits, "f", average="macro")
    np.testing.assert_allclose(iv.estimate.values, [0.96439891, 0.97598394], atol=1e-7)
    assert _inside(iv)
    # before: Dirichlet(1/2) on each of the 100 cells put it at [0.9297, 0.9508] for lr
    assert iv.lower.sel(model="lr").item() > 0.95
    assert "delta method" in iv.attrs["approximation"]
    assert "Takahashi" in iv.attrs["reference"]


@pytest.mark.parametrize("metric", PER_CLASS + WHOLE)
def test_digits_every_average_holds_its_estimate(digits, metric):
    for average in (None, *AVERAGES):
        if metric in WHOLE and average is not None:
            continue
        iv = cvframe.interval(digits, metric, average=average)
        assert _inside(iv), (metric, average)
        half = float(((iv.upper - iv.lower) / 2).min())
        assert half > 0, (metric, average)


def _macro_f1_gradient(p: np.ndarray) -> np.ndarray:
    """d macro F1 / d p_ij written out (Takahashi et al. 2022): F_c = 2 p_cc / (r_c + s_c)."""
    c = p.shape[0]
    a, r, s = np.diag(p), p.sum(1), p.sum(0)
    own = -2 * a / (r + s) ** 2  # by a cell of row c or column c off the diagonal
    g = own[:, None] + own[None, :]
    g[np.arange(c), np.arange(c)] = 2 / (r + s) - 4 * a / (r + s) ** 2
    return g / c


def test_macro_f1_variance_is_the_written_out_delta_method():
    rng = np.random.default_rng(4)
    conf = rng.integers(0, 40, (6, 6)) + np.diag(rng.integers(100, 300, 6))
    n = conf.sum()
    p = conf / n
    d = _macro_f1_gradient(p)
    want = ((d**2 * p).sum() - (d * p).sum() ** 2) / n
    g, var = _delta._matrix_variance("f", conf[None].astype(float), "macro", 1.0)
    assert var[0] == pytest.approx(want, rel=1e-5)
    f = 2 * np.diag(p) / (p.sum(0) + p.sum(1))
    assert g[0] == pytest.approx(f.mean(), rel=1e-12)


@pytest.mark.parametrize(("metric", "average"), [("f", "macro"), ("f", "weighted"), ("mcc", None)])
def test_delta_variance_matches_a_large_multinomial_simulation(metric, average):
    design = certify.class_design(8, 4000, 0.85, 5.0, "nearby")
    rng = np.random.default_rng(9)
    conf = rng.multinomial(np.broadcast_to(design.sizes, (4000, 1, 8)), design.probs)[:, 0]
    g, var = _delta._matrix_variance(metric, conf.astype(float), average, 1.0)
    # the spread of the metric over the draws against the delta method's mean variance
    assert np.sqrt(var.mean()) == pytest.approx(g.std(ddof=1), rel=0.06)


def test_chain_rule_of_class_averages_equals_moving_each_class():
    design = certify.class_design(7, 3000, 0.8, 4.0, "uniform")
    conf = design.sizes[..., None] * design.probs
    p = conf / conf.sum()
    tp = np.diagonal(p, axis1=-2, axis2=-1)
    fn, fp = p.sum(-1) - tp, p.sum(-2) - tp
    cells = {"tp": tp, "fp": fp, "fn": fn, "tn": 1 - tp - fp - fn}
    for metric in PER_CLASS:
        for average in ("macro", "weighted"):
            _, fast = _delta.partials(metric, cells, average, 1.0)
            _, slow = _delta.partials(metric, cells, average, 1.0, generic=True)
            for k in fast:
                np.testing.assert_allclose(fast[k], slow[k], atol=1e-5, err_msg=metric)


def test_per_class_f_beta_reads_each_class_table_alone():
    """A per-class metric's one-vs-all cells are one multinomial of the n samples: the
    confusion matrix and the class tables give the same interval."""
    rng = np.random.default_rng(2)
    ds = _cube(rng.integers(0, 30, (3, 4, 4)) + np.diag([50, 80, 20, 60]))
    with_matrix = cvframe.interval(ds, "f", beta=2.0)
    tables = ds.drop_vars(["confusion", "true", "pred"])
    without = cvframe.interval(tables, "f", beta=2.0)
    xr.testing.assert_allclose(with_matrix[["lower", "upper"]], without[["lower", "upper"]])


@settings(max_examples=10, deadline=None)
@given(
    classes=st.integers(2, 9),
    seed=st.integers(0, 10_000),
    level=st.sampled_from([0.1, 0.5, 0.9, 0.95, 0.999]),
    zeros=st.floats(0.0, 0.9),
)
def test_every_interval_holds_its_estimate_and_stays_in_range(classes, seed, level, zeros):
    rng = np.random.default_rng(seed)
    m = rng.integers(0, 20, (2, classes, classes)) * (rng.random((2, classes, classes)) > zeros)
    m += np.eye(classes, dtype=int) * rng.integers(0, 40, (2, 1, classes))
    if m.sum() == 0:
        m[0, 0, 0] = 1
    ds = _cube(m)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for metric in ("f", "precision", "specificity", "mcc", "balanced_accuracy"):
            low, high = cvframe.metrics.REGISTRY[metric].bounds
            for average in (None,) if metric in WHOLE else (None, *AVERAGES):
                iv = cvframe.interval(ds, metric, average=average, level=level)
                ok = iv.estimate.notnull()
                assert bool(((iv.lower <= iv.estimate) | ~ok).all()), (metric, average)
                assert bool(((iv.estimate <= iv.upper) | ~ok).all()), (metric, average)
                assert bool(((iv.lower >= low - 1e-12) | ~ok).all()), (metric, average)
                assert bool(((iv.upper <= high + 1e-12) | ~ok).all()), (metric, average)


def test_perfect_classification_reaches_the_end_of_the_range():
    ds = _cube(np.stack([np.diag([30, 20, 10])] * 4))
    for metric, average in (("f", "macro"), ("f", "weighted"), ("mcc", None)):
        iv = cvframe.interval(ds, metric, average=average)
        assert iv.estimate.item() == 1.0 and iv.upper.item() == 1.0
        assert 0.8 < iv.lower.item() < 1.0, metric  # two pseudo-counts: an error stays possible


def test_multilabel_macro_f_is_centred_on_its_estimate():
    rng = np.random.default_rng(1)
    n, labels = 600, 12
    y = rng.random((n, labels)) < np.linspace(0.05, 0.4, labels)
    pred = np.where(rng.random((n, labels)) < 0.85, y, ~y)
    frame = pd.DataFrame({"fold": np.arange(n) % 5})
    for j in range(labels):
        frame[f"y_true_{j}"] = y[:, j].astype(int)
        frame[f"y_pred_{j}"] = pred[:, j].astype(int)
    ds = frame.cv.counts()
    assert ds.attrs["task"] == "multilabel"
    for average in ("macro", "weighted"):
        iv = cvframe.interval(ds, "f", average=average)
        assert _inside(iv)
        assert "independent" in iv.attrs["approximation"]


# --- coverage, measured ----------------------------------------------------------------------


def test_macro_f_covers_at_3_10_and_20_classes():
    study = cvframe.coverage_study(
        classes=(3, 10, 20), n=1000, accuracy=(0.7, 0.97), errors="nearby", trials=1000
    )
    assert len(study) == 6 and set(study["average"]) == {"macro"}
    assert study["coverage"].between(0.93, 0.975).all(), study[["classes", "coverage"]]
    assert (study["holds_estimate"] == 1.0).all()
    assert study["coverage_se"].max() < 0.008


def _independent_coverage(probs: np.ndarray, n: int, trials: int, seed: int) -> float:
    """Coverage of interval(average='macro') on one-pass matrices drawn here in plain numpy
    from the population confusion ``probs`` (one multinomial of n samples), truth written
    out."""
    c = probs.shape[0]
    rng = np.random.default_rng(seed)
    conf = rng.multinomial(n, probs.ravel(), size=trials).reshape(trials, 1, c, c)
    tp = np.einsum("tfcc->tfc", conf)
    cells = {"tp": tp, "fn": conf.sum(3) - tp, "fp": conf.sum(2) - tp}
    cells["tn"] = n - cells["tp"] - cells["fn"] - cells["fp"]
    dims = ("trial", "fold", "class")
    ds = xr.Dataset({k: (dims, v) for k, v in cells.items()}, attrs={"task": "multiclass"})
    ds["confusion"] = (("trial", "fold", "true", "pred"), conf)
    iv = cvframe.interval(ds, "f", average="macro")
    truth = np.mean(2 * np.diag(probs) / (probs.sum(0) + probs.sum(1)))
    return float(((iv.lower <= truth) & (truth <= iv.upper)).mean())


@pytest.mark.parametrize("classes", [10, 20])
def test_coverage_study_agrees_with_an_independent_simulation(classes):
    design = certify.class_design(classes, 2000, 0.9, 5.0, "uniform")
    probs = design.sizes[0, :, None] * design.probs[0] / design.sizes.sum()
    c = _independent_coverage(probs, 2000, 1000, seed=classes)
    assert 0.93 <= c <= 0.975, c
    row = cvframe.coverage_study(classes=classes, n=2000, accuracy=0.9, trials=1000).iloc[0]
    assert abs(row["coverage"] - c) <= 3 * math.hypot(
        row["coverage_se"], math.sqrt(0.05 * 0.95 / 1000)
    )


def test_coverage_study_class_and_label_designs_table():
    res = cvframe.coverage_study(
        classes=3, n=500, accuracy=0.9, average=("macro", "weighted"), trials=100
    )
    assert list(res["average"]) == ["macro", "weighted"]
    for col in ("classes", "accuracy", "errors", "imbalance", "truth", "coverage", "trials"):
        assert col in res.columns
    labels = cvframe.coverage_study(
        classes=4, multilabel=True, n=800, prevalence=0.2, f=0.8, trials=100
    )
    assert labels["multilabel"].all() and labels["f"].iloc[0] == 0.8
    assert labels["truth"].iloc[0] == pytest.approx(0.8)
    whole = cvframe.coverage_study(metric="mcc", classes=3, n=500, accuracy=0.9, trials=100)
    assert whole["average"].isna().all() and len(whole) == 1
    again = cvframe.coverage_study(classes=3, n=500, accuracy=0.9, trials=100)
    assert again["coverage"].iloc[0] == res["coverage"].iloc[0]  # seeded


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"classes": 3, "errors": "everywhere"}, "errors="),
        ({"classes": 3, "average": None}, "average="),
        ({"classes": 1}, "classes="),
        ({"classes": 3, "methods": "bootstrap"}, "posterior"),
        ({"classes": 3, "metric": "f_avg"}, "pooled"),
        ({"multilabel": True}, "classes="),
        ({"classes": 3, "metric": "auc"}, "count metrics"),
        ({"classes": 3, "accuracy": 1.5}, "accuracy="),
    ],
)
def test_coverage_study_refuses_bad_class_designs(kw, match):
    with pytest.raises(ValueError, match=match):
        cvframe.coverage_study(trials=10, **kw)


# --- the certificate -------------------------------------------------------------------------


def test_certificate_of_digits(digits):
    iv = cvframe.interval(digits, "f", average="macro", certify=True)
    assert iv.coverage.dims == ("model",) and iv.coverage_se.dims == ("model",)
    assert iv.attrs["coverage_trials"] == 2000
    assert (abs(iv.coverage - 0.95) < 3 * iv.coverage_se + 0.01).all()
    assert "n=1797" in iv.attrs["coverage_design"] and "k=10 folds" in iv.attrs["coverage_design"]
    again = cvframe.interval(digits, "f", average="macro", certify=True)
    assert again.identical(iv)
    plain = cvframe.interval(digits, "f", average="macro")
    xr.testing.assert_equal(
        plain[["estimate", "lower", "upper"]], iv[["estimate", "lower", "upper"]]
    )


def test_certificate_agrees_with_coverage_study_at_the_same_design():
    design = certify.class_design(5, 1500, 0.8, 5.0, "nearby")
    expected = design.expected()
    # a cube at the design's expected counts: the certificate simulates that classifier
    conf = np.round(expected["confusion"].values[0, 0] / certify.SCALE).astype(int)
    iv = cvframe.interval(_cube(conf[None]), "f", average="macro", certify=True)
    row = cvframe.coverage_study(classes=5, n=1500, accuracy=0.8, errors="nearby", trials=2000)
    se = math.hypot(iv.coverage_se.item(), row["coverage_se"].iloc[0])
    assert abs(iv.coverage.item() - row["coverage"].iloc[0]) <= 3 * se + 0.005


def test_certificate_per_class_binary_and_multilabel():
    per = cvframe.interval(cvframe.datasets.table1(), "f", certify=True)
    assert per.coverage.shape == per.estimate.shape and 0.9 < per.coverage.item() <= 1
    rng = np.random.default_rng(3)
    ds = _cube(rng.integers(0, 10, (4, 3, 3)) + np.diag([40, 30, 20]))
    by_class = cvframe.interval(ds, "recall", certify=True)
    assert by_class.coverage.dims == ("class",) and by_class.sizes["class"] == 3
    mcc = cvframe.interval(cvframe.datasets.table1(), "mcc", certify=True, n_boot=500)
    assert mcc.attrs["draws"] == 500 and mcc.attrs["coverage_trials"] >= certify.TRIALS[0]


def test_delong_certificate_and_its_tie_free_ranks():
    rng = np.random.default_rng(0)
    s = rng.standard_normal((6, 400))
    s[:, :60] += 1.2
    est, var = certify.tie_free_delong(s, 60)
    from cvframe.intervals import _auc

    want, want_var = _auc.delong_arrays(s, np.arange(400) < 60)
    np.testing.assert_allclose(est, want, rtol=1e-12)
    np.testing.assert_allclose(var, want_var, rtol=1e-9)
    y = (rng.random(500) < 0.3).astype(int)
    df = pd.DataFrame({"fold": np.arange(500) % 5, "y_true": y})
    df["score"] = rng.standard_normal(500) + 1.0 * y
    iv = cvframe.interval(df, "auc", certify=True)
    assert 0.9 < float(iv.coverage.max()) <= 1.0
    assert "binormal" in iv.attrs["coverage_design"]


def test_delong_certificate_too_large_is_refused_and_the_report_goes_on(monkeypatch):
    """Above SCORE_LIMIT simulated scores the certificate is refused, naming the limit and
    the fix; the report then shows the interval without a certificate instead of sorting
    for minutes."""
    rng = np.random.default_rng(1)
    y = (rng.random(2000) < 0.3).astype(int)
    df = pd.DataFrame({"fold": np.arange(2000) % 5, "y_true": y, "y_pred": y})
    df["score"] = rng.standard_normal(2000) + 1.0 * y
    monkeypatch.setattr(certify, "SCORE_LIMIT", 40 * 1999)  # one sample short
    with pytest.raises(ValueError, match=r"over the certificate's limit of 79,960.*certify=False"):
        cvframe.interval(df, "auc", certify=True)
    plain = cvframe.interval(df, "auc")
    text = cvframe.report.report(df.cv.counts(), scores=df)
    assert f"{float(plain['estimate'].values.ravel()[0]):.4f}" in text
    monkeypatch.setattr(certify, "SCORE_LIMIT", 40 * 2000)  # exactly at the limit: simulated
    assert "binormal" in cvframe.interval(df, "auc", certify=True).attrs["coverage_design"]


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"metric": "f_avg"}, "certify=True simulates"),
        ({"method": "bootstrap"}, "certify=True simulates"),
        ({"certify": "yes"}, "certify"),
    ],
)
def test_certificate_refusals(kw, match):
    ds = cvframe.datasets.table1()
    kw = {"certify": True, **kw}
    with pytest.raises((ValueError, TypeError), match=match):
        cvframe.interval(ds, **kw)


def test_the_headline_states_each_interval_coverage(digits):
    from cvframe.report import headline

    table, legend = headline.headline_table(digits, beta=1.0, zero_division=0.0, level=0.95)
    assert {"coverage", "coverage_se"} <= set(table.columns)
    assert table["coverage"].between(0.9, 1.0).all()
    assert any("coverage" in k and "simulated at this design" in v for k, v in legend.items())
    iv = cvframe.interval(digits, "f", average="macro")
    np.testing.assert_allclose(table["value_ci_low"], iv.lower.values)


def _tables_script():
    import importlib.util

    path = pathlib.Path(__file__).resolve().parents[1] / "docs" / "coverage_tables.py"
    spec = importlib.util.spec_from_file_location("coverage_tables", path)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script


def test_the_docs_tables_are_the_stored_run_and_a_fresh_run_repeats_it():
    script = _tables_script()
    rows = pd.read_csv(script.STORE, keep_default_na=False, na_values=[""])
    text = script.PAGE.read_text()
    assert script.page(text, script.render(rows)) == text, (
        "docs/intervals.md is stale: run python docs/coverage_tables.py --render"
    )
    macro = rows[(rows.table == "classes") & (rows.metric == "f") & (rows.average == "macro")]
    assert macro["coverage"].between(0.93, 0.975).all()
    stored = macro[(macro.classes == 10) & (macro.n == 1000) & (macro.accuracy == 0.9)]
    fresh = cvframe.coverage_study(
        classes=10,
        n=1000,
        accuracy=0.9,
        errors=("uniform", "nearby"),
        trials=script.TRIALS,
        random_state=2010,
    )
    for errors in ("uniform", "nearby"):
        want = stored[stored.errors == errors]["coverage"].item()
        assert fresh[fresh.errors == errors]["coverage"].item() == pytest.approx(want, abs=1e-12)
