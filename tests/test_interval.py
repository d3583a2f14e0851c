"""cvframe.interval: each method against its formula (scipy's Beta and t quantiles, a
pairwise DeLong), the dims it keeps, dask, the accessors, and every refusal."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import cvframe
from cvframe.intervals import delong


def _cube(tp, fp, fn, tn, **dims):
    """A binary cube from (..., fold) arrays; ``dims`` names the leading dims."""
    tp = np.asarray(tp)
    names = [*dims, "fold"]
    coords = {d: v for d, v in dims.items()}
    data = {
        k: ([*names, "class"], np.asarray(v)[..., None].astype(np.int64))
        for k, v in zip(("tp", "fp", "fn", "tn"), (tp, fp, fn, tn), strict=True)
    }
    return xr.Dataset(data, coords={**coords, "class": [1]}, attrs={"task": "binary"})


def _frame(n=300, k=5, repeats=2, models=(("lr", 1.0), ("rf", 1.6)), seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.25).astype(int)
    parts = []
    for r in range(repeats):
        fold = rng.permutation(np.arange(n) % k)
        for m, d in models:
            s = rng.standard_normal(n) + d * y
            parts.append(
                pd.DataFrame(
                    {
                        "model": m,
                        "repeat": r,
                        "sample": np.arange(n),
                        "fold": fold,
                        "y_true": y,
                        "score": 1 / (1 + np.exp(-s)),
                        "y_pred": (s > 0.8).astype(int),
                    }
                )
            )
    return pd.concat(parts, ignore_index=True)


# --- the posterior of the pooled cells -------------------------------------------------------


def test_f_tp_fp_posterior_is_the_beta_of_the_jaccard_index():
    ds = cvframe.datasets.table1()  # pooled TP=14, FP=19, FN=1
    iv = cvframe.interval(ds, "f")
    j = stats.beta.ppf([0.025, 0.975], 14 + 0.5, 19 + 1 + 1.0)
    assert iv.attrs["method"] == "posterior"
    np.testing.assert_allclose([iv.lower.item(), iv.upper.item()], 2 * j / (1 + j), rtol=1e-10)
    assert iv.estimate.item() == pytest.approx(2 * 14 / (2 * 14 + 19 + 1))
    assert iv.attrs["training_variability"] == "no"
    assert "conditional on the training sets" in iv.attrs["estimand"]
    assert "Goutte" in iv.attrs["reference"]


@pytest.mark.parametrize(
    ("metric", "x", "y"),
    [("precision", 14, 19), ("recall", 14, 1), ("specificity", 1470, 19)],
)
def test_shares_are_jeffreys_beta(metric, x, y):
    iv = cvframe.interval(cvframe.datasets.table1(), metric, level=0.9)
    np.testing.assert_allclose(
        [iv.lower.item(), iv.upper.item()], stats.beta.ppf([0.05, 0.95], x + 0.5, y + 0.5)
    )


def test_jaccard_is_the_beta_of_its_share_and_f_its_image():
    ds = cvframe.datasets.table1()  # pooled TP=14, FP=19, FN=1
    j = stats.beta.ppf([0.025, 0.975], 14 + 0.5, 19 + 1 + 1.0)
    iv = cvframe.interval(ds, "jaccard")
    np.testing.assert_allclose([iv.lower.item(), iv.upper.item()], j, rtol=1e-10)
    assert iv.estimate.item() == pytest.approx(14 / 34)


def test_multiclass_micro_averages_are_functions_of_the_correct_share():
    """Each error of single-label data is one FP and one FN: a micro average of C classes is
    the formula of one sample's summed cells, TP = a, FP = FN = 1 - a, TN = C - 2 + a."""
    y = np.repeat([0, 1, 2], 40)
    rng = np.random.default_rng(5)
    pred = np.where(rng.random(120) < 0.7, y, rng.integers(0, 3, 120))
    ds = cvframe.from_predictions(y, pred, np.arange(120) % 4)
    acc = cvframe.interval(ds, "accuracy")
    correct = int((y == pred).sum())
    a = stats.beta.ppf([0.025, 0.975], correct + 0.5, 120 - correct + 0.5)
    np.testing.assert_allclose([acc.lower.item(), acc.upper.item()], a, rtol=1e-10)
    for metric, image in [("f", a), ("precision", a), ("recall", a), ("jaccard", a / (2 - a))]:
        iv = cvframe.interval(ds, metric, average="micro")
        np.testing.assert_allclose([iv.lower.item(), iv.upper.item()], image, rtol=1e-10)
        assert iv.lower.item() <= iv.estimate.item() <= iv.upper.item(), metric


@given(
    st.lists(st.integers(0, 40), min_size=4, max_size=4),
    st.sampled_from(["f", "precision", "recall", "accuracy", "specificity", "jaccard"]),
)
def test_posterior_holds_the_estimate_and_nests_by_level(cells, metric):
    tp, fp, fn, tn = cells
    ds = _cube([[tp]], [[fp]], [[fn]], [[tn + 1]], model=["m"])
    wide = cvframe.interval(ds, metric, zero_division=0.0)
    narrow = cvframe.interval(ds, metric, zero_division=0.0, level=0.8)
    lo, est, hi = (wide[v].item() for v in ("lower", "estimate", "upper"))
    assert 0.0 <= lo <= hi <= 1.0
    assert narrow.lower.item() >= lo - 1e-12 and narrow.upper.item() <= hi + 1e-12
    defined = {"f": tp + fp + fn, "jaccard": tp + fp + fn, "precision": tp + fp}
    defined = {**defined, "recall": tp + fn}.get(metric, 1)
    if defined:
        assert lo - 1e-12 <= est <= hi + 1e-12


def test_monte_carlo_posterior_agrees_with_the_exact_one():
    ds = cvframe.datasets.table1()
    exact = cvframe.interval(ds, "f")
    mc = cvframe.interval(ds, "f", beta=1 + 1e-12, n_boot=20000)  # beta != 1: draws
    assert mc.attrs["draws"] == 20000
    for v in ("lower", "upper"):
        assert mc[v].item() == pytest.approx(exact[v].item(), abs=0.01)


def test_no_true_positive_gives_lower_end_zero():
    ds = _cube([[0, 0]], [[3, 2]], [[4, 5]], [[90, 91]], model=["m"])
    iv = cvframe.interval(ds, "f", zero_division=0.0)
    assert iv.lower.item() == 0.0 and 0 < iv.upper.item() < 1


def test_repeats_count_as_one_pass():
    one = cvframe.datasets.table1()
    two = xr.concat([one, one, one], dim="repeat")
    a, b = cvframe.interval(one, "f"), cvframe.interval(two, "f")
    for v in ("estimate", "lower", "upper"):
        assert b[v].item() == pytest.approx(a[v].item())
    assert b.attrs["reduced_dims"] == "fold,repeat"


def test_counts_of_all_repeats_as_new_samples_would_under_cover():
    sim = cvframe.simulate(n=1000, prevalence=0.05, f=0.8, trials=400, seed=2)
    rep = xr.concat([sim] * 10, dim="repeat")
    as_new = rep.stack(run=("repeat", "fold")).drop_vars(["run", "repeat", "fold"])
    as_new = as_new.rename(run="fold")

    def covers(iv):
        return float(((iv.lower <= 0.8) & (0.8 <= iv.upper)).mean())

    assert covers(rep.cv.interval("f")) > 0.92
    assert covers(as_new.cv.interval("f")) < 0.6


def test_bootstrap_stratified_within_folds():
    ds = cvframe.datasets.table1()
    iv = cvframe.interval(ds, "f", method="bootstrap", random_state=3)
    again = cvframe.interval(ds, "f", method="bootstrap", random_state=3)
    assert iv.identical(again)
    assert iv.lower.item() < iv.estimate.item() < iv.upper.item()
    assert iv.attrs["n_boot"] == 2000


# --- the corrected t ------------------------------------------------------------------------


def test_corrected_t_is_nadeau_bengio_by_hand():
    # 2 repeats x 3 folds of 10, 10, 20 samples; accuracy per fold by hand
    tp = [[4, 3, 8], [5, 4, 6]]
    tn = [[4, 5, 9], [3, 5, 10]]
    fp = [[1, 1, 2], [1, 0, 2]]
    fn = [[1, 1, 1], [1, 1, 2]]
    ds = _cube(tp, fp, fn, tn, repeat=[0, 1])
    sizes = np.array([[10, 10, 20], [10, 10, 20]])
    acc = (np.array(tp) + np.array(tn)) / sizes
    x = acc.ravel()
    n = x.size
    n_test = sizes.sum()
    n_train = (sizes.sum(1, keepdims=True) - sizes).sum()  # 30 + 30 + 20 per repeat
    se = np.sqrt((1 / n + n_test / n_train) * x.var(ddof=1))
    q = stats.t.ppf(0.975, n - 1)
    iv = cvframe.interval(ds, "accuracy_avg")
    assert iv.attrs["method"] == "corrected_t"
    assert iv.attrs["test_train_ratio"] == pytest.approx(80 / 160)
    assert iv.estimate.item() == pytest.approx(x.mean())
    assert iv.lower.item() == pytest.approx(x.mean() - q * se)
    assert iv.upper.item() == pytest.approx(x.mean() + q * se)
    assert iv.attrs["training_variability"] == "yes"
    assert iv.attrs["estimand"].startswith("expected fold-averaged accuracy of the learning")
    same = cvframe.interval(ds, "accuracy", fold_method="avg")
    assert same.identical(iv)


def test_f_avg_estimate_is_the_reported_f_avg():
    ds = cvframe.datasets.table1()
    iv = cvframe.interval(ds, "f_avg")
    assert iv.estimate.item() == pytest.approx(ds.cv.f_avg().item())
    assert 0.0 <= iv.lower.item() <= iv.upper.item() <= 1.0  # clipped to the range


# --- DeLong ---------------------------------------------------------------------------------


def _delong_pairwise(s, y):
    """DeLong's structural components from their definition (pairwise, ties 1/2)."""
    x, z = s[y == 1], s[y == 0]
    psi = (x[:, None] > z[None, :]) + 0.5 * (x[:, None] == z[None, :])
    v10, v01 = psi.mean(1), psi.mean(0)
    return psi.mean(), v10.var(ddof=1) / len(x) + v01.var(ddof=1) / len(z)


def test_delong_matches_the_pairwise_definition_with_ties():
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(4)
    y = (rng.random(60) < 0.3).astype(int)
    s = np.round(rng.standard_normal(60) + y, 1)  # many ties
    auc, var = _delong_pairwise(s, y)
    est, lo, hi = delong(s, y)
    assert est == pytest.approx(auc) and est == pytest.approx(roc_auc_score(y, s))
    z = stats.norm.ppf(0.975)
    logit, half = np.log(auc / (1 - auc)), z * np.sqrt(var) / (auc * (1 - auc))
    assert lo == pytest.approx(1 / (1 + np.exp(-(logit - half))))
    assert hi == pytest.approx(1 / (1 + np.exp(-(logit + half))))


def test_auc_merge_on_a_frame_is_delong_per_repeat():
    df = _frame()
    iv = cvframe.interval(df, "auc")
    assert iv.attrs["method"] == "delong" and iv.attrs["reduced_dims"] == "fold,repeat"
    assert list(iv.model.values) == ["lr", "rf"]
    merged = cvframe.scores.auc(df, "merge")
    np.testing.assert_allclose(iv.estimate.values, merged.mean("repeat").values)
    part = df[(df.model == "rf")]
    var = [
        _delong_pairwise(part[part.repeat == r].score.values, part[part.repeat == r].y_true.values)[
            1
        ]
        for r in (0, 1)
    ]
    a = iv.estimate.sel(model="rf").item()
    se = np.sqrt(np.mean(var)) / (a * (1 - a))
    upper = 1 / (1 + np.exp(-(np.log(a / (1 - a)) + stats.norm.ppf(0.975) * se)))
    assert iv.upper.sel(model="rf").item() == pytest.approx(upper)


def test_auc_avg_is_the_corrected_t_of_the_fold_aucs():
    df = _frame()
    iv = cvframe.interval(df, "auc", fold_method="avg")
    assert iv.attrs["method"] == "corrected_t"
    per = cvframe.scores.auc(df, "fold").sel(model="lr")
    x = per.values.ravel()
    se = np.sqrt((1 / x.size + 0.25) * x.var(ddof=1))  # 5 folds: n_test/n_train = 1/4
    q = stats.t.ppf(0.975, x.size - 1)
    assert iv.lower.sel(model="lr").item() == pytest.approx(x.mean() - q * se)


# --- dims, dask, accessors -------------------------------------------------------------------


def test_dims_are_kept_model_dataset_class():
    rng = np.random.default_rng(1)
    shape = (2, 3, 4, 5)  # dataset, model, repeat, fold
    tp = rng.integers(1, 20, shape)
    fp, fn = rng.integers(0, 10, shape), rng.integers(0, 10, shape)
    tn = 100 - tp - fp - fn
    ds = _cube(tp, fp, fn, tn, dataset=["a", "b"], model=["x", "y", "z"], repeat=[0, 1, 2, 3])
    for metric in ("f", "f_avg", "precision", "accuracy_avg"):
        iv = cvframe.interval(ds, metric)
        assert set(iv.estimate.dims) == {"dataset", "model", "class"}, metric
        assert (iv.lower <= iv.upper).all()
    one = cvframe.interval(ds.sel(dataset="b", model="y"), "f")
    full = cvframe.interval(ds, "f")
    assert full.upper.sel(dataset="b", model="y").item() == pytest.approx(one.upper.item())


def test_multiclass_average_and_per_class():
    y = np.repeat([0, 1, 2], 40)
    rng = np.random.default_rng(2)
    pred = np.where(rng.random(120) < 0.7, y, rng.integers(0, 3, 120))
    ds = cvframe.from_predictions(y, pred, np.arange(120) % 4)
    per = cvframe.interval(ds, "f")
    assert per.sizes["class"] == 3
    macro = cvframe.interval(ds, "f", average="macro")
    assert "class" not in macro.dims and macro.attrs["reduced_dims"] == "fold,class"
    assert macro.estimate.item() == pytest.approx(per.estimate.mean().item())
    micro = cvframe.interval(ds, "f", average="micro")
    acc = cvframe.interval(ds, "accuracy")
    assert micro.lower.item() == pytest.approx(acc.lower.item())  # micro F = accuracy


def test_weighted_average_is_support_weighted():
    y = np.repeat([0, 1, 2], [60, 30, 10])
    rng = np.random.default_rng(3)
    pred = np.where(rng.random(100) < 0.8, y, rng.integers(0, 3, 100))
    ds = cvframe.from_predictions(y, pred, np.arange(100) % 5)
    iv = cvframe.interval(ds, "recall", average="weighted")
    assert iv.estimate.item() == pytest.approx(ds.cv.weighted("recall").item())
    assert iv.lower.item() < iv.estimate.item() < iv.upper.item()
    assert "delta method" in iv.attrs["approximation"] and "draws" not in iv.attrs


def test_dask_cube_gives_the_same_interval():
    pytest.importorskip("dask")
    ds = cvframe.simulate(n=500, prevalence=0.1, f=0.7, trials=40, seed=1)
    lazy = ds.chunk({"trial": 10})
    for metric in ("f", "f_avg"):
        a = cvframe.interval(ds, metric, zero_division=0.0)
        b = cvframe.interval(lazy, metric, zero_division=0.0)
        xr.testing.assert_allclose(a, b)
        assert a.sizes["trial"] == 40


def test_accessors_equal_the_function():
    ds = cvframe.datasets.table1()
    assert ds.cv.interval("f_avg", level=0.9).identical(cvframe.interval(ds, "f_avg", level=0.9))
    df = _frame(repeats=1)
    assert df.cv.interval("auc").identical(cvframe.interval(df, "auc"))
    a, b = df.cv.interval("f"), cvframe.interval(df.cv.counts(dims=["model"]), "f")
    xr.testing.assert_allclose(a[["lower", "upper"]], b[["lower", "upper"]])


# --- nested ---------------------------------------------------------------------------------


def test_nested_reads_the_runner_table():
    ds = cvframe.datasets.table1().expand_dims(model=["lr"])
    ds.attrs["nested_cv"] = {
        "lr": {
            "metric": "error",
            "estimate": 0.2,
            "se": 0.02,
            "bias": 0.01,
            "n_train": 900,
            "repeats": 5,
            "fits": 550,
        }
    }
    iv = cvframe.interval(ds, "error", method="nested")
    z = stats.norm.ppf(0.975)
    assert iv.estimate.item() == 0.2
    assert iv.lower.item() == pytest.approx(0.19 - z * 0.02)
    assert iv.upper.item() == pytest.approx(0.19 + z * 0.02)
    assert iv.attrs["training_variability"] == "yes" and iv.attrs["fits"] == 550
    with pytest.raises(ValueError, match="metric="):
        cvframe.interval(ds, "f", method="nested")
    ds.attrs["nested_cv"]["lr"]["se"] = 0.2  # a share's interval stays in [0, 1]
    assert cvframe.interval(ds, "error", method="nested").lower.item() == 0.0


# --- refusals -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"metric": "f", "method": "corrected_t"}, "fold_method='avg'"),
        ({"metric": "f_avg", "method": "posterior"}, "corrected_t"),
        ({"metric": "auc"}, "predictions frame"),
        ({"metric": "f", "method": "delong"}, "AUC"),
        ({"metric": "f", "method": "nested"}, r"cross_validate\(\.\.\., nested="),
        ({"metric": "f_pr_re"}, "asks for F_pr.*computes F_tp,fp, F_avg"),
        ({"metric": "f", "fold_method": "pr_re"}, "F_pr.*no interval method.*fold_method='avg'"),
        ({"metric": "log_loss"}, "no interval method"),
        ({"metric": "f_avg", "fold_method": "tp_fp"}, "asks otherwise"),
        ({"metric": "g"}, "metric='g' is not a metric"),
        ({"method": "wald"}, "method='wald'"),
        ({"level": 1.5}, "level"),
        ({"n_boot": 10}, "n_boot"),
        ({"average": "micro", "method": "bootstrap"}, "cannot average"),
    ],
)
def test_refusals_name_the_reason_and_the_fix(kwargs, match):
    with pytest.raises(ValueError, match=match):
        cvframe.interval(cvframe.datasets.table1(), **kwargs)


def test_corrected_t_refuses_one_fold_and_undefined_folds():
    one = cvframe.datasets.table1().isel(fold=[0])
    with pytest.raises(ValueError, match="at least two folds"):
        cvframe.interval(one, "f_avg")
    ds = _cube([[0, 3, 2]], [[0, 1, 1]], [[0, 1, 1]], [[10, 9, 9]], model=["m"])
    with pytest.raises(ValueError, match="undefined on 1 fold"):
        cvframe.interval(ds, "f_avg", zero_division=np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert cvframe.interval(ds, "f_avg").attrs["method"] == "corrected_t"


def test_merged_ap_and_brier_are_refused_with_the_fix():
    df = _frame(repeats=1)
    for metric in ("ap", "brier"):
        with pytest.raises(ValueError, match="fold_method='avg'"):
            cvframe.interval(df, metric)
        assert cvframe.interval(df, metric, fold_method="avg").attrs["method"] == "corrected_t"


def test_delong_refuses_a_repeat_without_two_positives():
    df = pd.DataFrame(
        {"fold": [0, 0, 1, 1, 1], "y_true": [0, 1, 0, 0, 0], "score": [0.1, 0.8, 0.3, 0.2, 0.5]}
    )
    with pytest.raises(ValueError, match="at least 2 positives"):
        cvframe.interval(df, "auc")


def test_type_errors():
    with pytest.raises(TypeError, match="counts cube"):
        cvframe.interval([1, 2, 3])


@pytest.mark.parametrize("metric", ["f", "f_avg"])
def test_interval_attrs_are_netcdf_safe_and_round_trip(tmp_path, metric):
    ds = cvframe.datasets.table1()
    iv = ds.cv.interval(metric)
    path = tmp_path / "iv.nc"
    iv.to_netcdf(path)
    back = xr.open_dataset(path)
    assert back.attrs["training_variability"] == iv.attrs["training_variability"]
    assert back.attrs["training_variability"] in ("yes", "no")
    xr.testing.assert_allclose(back.load(), iv)
