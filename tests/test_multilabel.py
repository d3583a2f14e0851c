"""Multilabel metrics (samples-averaged F and Jaccard, subset accuracy, Hamming loss, macro
and micro F and Jaccard) against scikit-learn, per fold, pooled and averaged over folds, on
random indicator data (hypothesis), on dask-backed cubes, with sample weights, and end to end
(cross_validate, report, plots, compare)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics

import cvframe
from cvframe.errors import UndefinedMetricWarning
from cvframe.measure import multilabel_metrics_from_frame

# --- strategies ---------------------------------------------------------------------------------


@st.composite
def indicator_data(draw, max_n: int = 30, max_labels: int = 5, max_folds: int = 4):
    """(Y_true, Y_pred, fold): 0/1 indicator matrices (n, C), C >= 2, and fold ids that occur.

    Rows without any label (true or predicted) are drawn often (the zero_division case)."""
    n = draw(st.integers(1, max_n))
    c = draw(st.integers(2, max_labels))
    k = draw(st.integers(1, max_folds))
    seed = draw(st.integers(0, 2**32 - 1))
    density = draw(st.sampled_from([0.1, 0.3, 0.6]))
    rng = np.random.default_rng(seed)
    y_true = (rng.random((n, c)) < density).astype(int)
    y_pred = np.where(rng.random((n, c)) < 0.3, 1 - y_true, y_true)
    y_pred[rng.random(n) < 0.2] = 0  # some samples predict no label
    fold = rng.integers(0, k, n)
    return y_true, y_pred, fold


ZD = st.sampled_from([0.0, 1.0])

# scikit-learn's metric of every name of multilabel_metrics
SKLEARN = {
    "f_samples": lambda t, p, zd, w=None: metrics.f1_score(
        t, p, average="samples", zero_division=zd, sample_weight=w
    ),
    "f_macro": lambda t, p, zd, w=None: metrics.f1_score(
        t, p, average="macro", zero_division=zd, sample_weight=w
    ),
    "f_micro": lambda t, p, zd, w=None: metrics.f1_score(
        t, p, average="micro", zero_division=zd, sample_weight=w
    ),
    "jaccard_samples": lambda t, p, zd, w=None: metrics.jaccard_score(
        t, p, average="samples", zero_division=zd, sample_weight=w
    ),
    "jaccard_macro": lambda t, p, zd, w=None: metrics.jaccard_score(
        t, p, average="macro", zero_division=zd, sample_weight=w
    ),
    "jaccard_micro": lambda t, p, zd, w=None: metrics.jaccard_score(
        t, p, average="micro", zero_division=zd, sample_weight=w
    ),
    "subset_accuracy": lambda t, p, zd, w=None: metrics.accuracy_score(t, p, sample_weight=w),
    "hamming_loss": lambda t, p, zd, w=None: metrics.hamming_loss(t, p, sample_weight=w),
}


def _sklearn_per_fold(y_true, y_pred, fold, zd, w=None):
    """{name: [value of each fold, in fold order]} from scikit-learn."""
    folds = np.unique(fold)
    out = {}
    for name, fn in SKLEARN.items():
        vals = []
        for f in folds:
            m = fold == f
            vals.append(fn(y_true[m], y_pred[m], zd, None if w is None else w[m]))
        out[name] = np.array(vals)
    return out


def _metrics(ds, fold_method, zd):
    return ds.cv.multilabel_metrics(fold_method, zero_division=zd)


# --- equal to scikit-learn ----------------------------------------------------------------------


@settings(max_examples=12)
@given(indicator_data(), ZD)
def test_every_metric_equals_scikit_learn_per_fold_pooled_and_averaged(data, zd):
    y_true, y_pred, fold = data
    ds = cvframe.from_predictions(y_true, y_pred, fold=fold)
    per_fold = _sklearn_per_fold(y_true, y_pred, fold, zd)
    got_fold = _metrics(ds, None, zd)
    got_pool = _metrics(ds, "tp_fp", zd)
    got_avg = _metrics(ds, "avg", zd)
    for name, fn in SKLEARN.items():
        np.testing.assert_allclose(got_fold[name].values, per_fold[name], rtol=1e-12, err_msg=name)
        np.testing.assert_allclose(got_avg[name].item(), per_fold[name].mean(), rtol=1e-12)
        pooled = fn(y_true, y_pred, zd)
        assert got_pool[name].item() == pytest.approx(pooled, rel=1e-12), name


@settings(max_examples=10)
@given(indicator_data(max_folds=3), ZD)
def test_single_functions_equal_scikit_learn_too(data, zd):
    y_true, y_pred, fold = data
    ds = cvframe.from_predictions(y_true, y_pred, fold=fold)
    kw = {"zero_division": zd}
    pairs = {
        "f_samples": ds.cv.f_samples(**kw),
        "subset_accuracy": ds.cv.subset_accuracy(**kw),
        "hamming_loss": ds.cv.hamming_loss(**kw),
        "jaccard_samples": ds.cv.jaccard(**kw),
        "jaccard_macro": ds.cv.jaccard("macro", **kw),
        "jaccard_micro": ds.cv.jaccard("micro", **kw),
        "f_macro": ds.cv.macro("f", **kw),
        "f_micro": ds.cv.micro("f", **kw),
    }
    for name, got in pairs.items():
        assert got.item() == pytest.approx(SKLEARN[name](y_true, y_pred, zd), rel=1e-12), name
    weighted = metrics.jaccard_score(y_true, y_pred, average="weighted", zero_division=zd)
    assert ds.cv.jaccard("weighted", **kw).item() == pytest.approx(weighted, rel=1e-12)
    per_label = metrics.jaccard_score(y_true, y_pred, average=None, zero_division=zd)
    np.testing.assert_allclose(ds.cv.jaccard(None, **kw).values, per_label, rtol=1e-12)
    assert ds.cv.macro("jaccard", **kw).item() == pytest.approx(pairs["jaccard_macro"].item())


def test_dask_cube_stays_lazy_and_gives_the_same_numbers():
    da = pytest.importorskip("dask.array")
    dask = pytest.importorskip("dask")
    y_true, y_pred = _random(45, 4, seed=3)
    y_true[:3], y_pred[:3] = 0, 0  # samples without labels: zero_division applies
    fold = np.repeat([0, 1, 2], [20, 15, 10])
    ds = cvframe.from_predictions(y_true, y_pred, fold=fold)
    lazy = cvframe.from_predictions(
        da.from_array(y_true, chunks=(16, -1)),
        da.from_array(y_pred, chunks=(16, -1)),
        fold=da.from_array(fold, chunks=16),
    )
    assert cvframe.schema.is_lazy(lazy)
    got = [_metrics(lazy, fm, 1.0) for fm in ("tp_fp", "avg", None)]
    assert all(cvframe.schema.is_lazy(g) for g in got)
    for fm, g in zip(("tp_fp", "avg", None), dask.compute(*got), strict=True):
        xr.testing.assert_allclose(g, _metrics(ds, fm, 1.0))


@settings(max_examples=10)
@given(indicator_data(), ZD, st.integers(0, 2**32 - 1))
def test_sample_weights_match_scikit_learn(data, zd, seed):
    y_true, y_pred, fold = data
    w = np.random.default_rng(seed).random(len(fold)) + 0.05
    ds = cvframe.from_predictions(y_true, y_pred, fold=fold, sample_weight=w)
    per_fold = _sklearn_per_fold(y_true, y_pred, fold, zd, w)
    got_fold, got_pool = _metrics(ds, None, zd), _metrics(ds, "tp_fp", zd)
    for name, fn in SKLEARN.items():
        np.testing.assert_allclose(got_fold[name].values, per_fold[name], rtol=1e-9, err_msg=name)
        assert got_pool[name].item() == pytest.approx(fn(y_true, y_pred, zd, w), rel=1e-9), name


@settings(max_examples=10)
@given(indicator_data(), ZD, st.sampled_from([0.5, 2.0]))
def test_frame_scores_f_samples_at_any_beta(data, zd, beta):
    y_true, y_pred, fold = data
    df = _frame(y_true, y_pred, fold)
    got = df.cv.multilabel_metrics(None, beta=beta, zero_division=zd)
    for name, average in (("f_samples", "samples"), ("f_macro", "macro"), ("f_micro", "micro")):
        want = [
            metrics.fbeta_score(
                y_true[fold == f], y_pred[fold == f], beta=beta, average=average, zero_division=zd
            )
            for f in np.unique(fold)
        ]
        np.testing.assert_allclose(got[name].values, want, rtol=1e-12, err_msg=name)


def _frame(y_true, y_pred, fold, labels=None):
    labels = labels or [f"l{j}" for j in range(y_true.shape[1])]
    cols = {"fold": fold}
    cols.update({f"y_true_{lab}": y_true[:, j] for j, lab in enumerate(labels)})
    cols.update({f"y_pred_{lab}": y_pred[:, j] for j, lab in enumerate(labels)})
    return pd.DataFrame(cols)


# --- dims, padding, pooled = fold-size weighted ----------------------------------------------


def _random(n=60, c=3, seed=0):
    rng = np.random.default_rng(seed)
    y_true = (rng.random((n, c)) < 0.4).astype(int)
    y_pred = np.where(rng.random((n, c)) < 0.25, 1 - y_true, y_true)
    return y_true, y_pred


def test_pooled_is_the_fold_size_weighted_mean_and_avg_the_plain_mean():
    y_true, y_pred = _random(50)
    fold = np.r_[np.zeros(40, int), np.ones(10, int)]  # unequal folds
    ds = cvframe.from_predictions(y_true, y_pred, fold=fold)
    per_fold = ds.cv.f_samples(None, zero_division=0.0)
    sizes = ds.n_samples
    assert ds.cv.f_samples(zero_division=0.0).item() == pytest.approx(
        float((per_fold * sizes).sum() / sizes.sum())
    )
    assert ds.cv.f_samples("avg", zero_division=0.0).item() == pytest.approx(float(per_fold.mean()))
    assert ds.cv.f_samples("avg", zero_division=0.0) != ds.cv.f_samples(zero_division=0.0)


def test_repeat_and_model_dims_are_kept_and_padding_is_not_a_fold():
    y_true, y_pred = _random(60)
    rng = np.random.default_rng(1)
    frames = []
    for model in ("a", "b"):
        for rep in (0, 1):
            df = _frame(
                y_true, np.roll(y_pred, rep + (model == "b"), axis=0), rng.integers(0, 3, 60)
            )
            frames.append(df.assign(model=model, repeat=rep))
    pred = pd.concat(frames, ignore_index=True)
    ds = pred.cv.counts()
    out = ds.cv.multilabel_metrics("avg", zero_division=0.0)
    assert dict(out.sizes) == {"model": 2, "repeat": 2}
    assert out.model.values.tolist() == ["a", "b"]
    one = pred[(pred.model == "b") & (pred.repeat == 1)]
    want = np.mean(
        [
            metrics.f1_score(
                one.filter(like="y_true_")[one.fold == f].to_numpy(),
                one.filter(like="y_pred_")[one.fold == f].to_numpy(),
                average="samples",
                zero_division=0.0,
            )
            for f in sorted(one.fold.unique())
        ]
    )
    assert out.f_samples.sel(model="b", repeat=1).item() == pytest.approx(want)
    pooled = ds.cv.f_samples(dim=["repeat", "fold"], zero_division=0.0)
    assert pooled.dims == ("model",)
    # a cube padded by xr.concat: the missing fold is not a fold
    a = ds.sel(model="a", repeat=0, drop=True)
    padded = xr.concat([a, a.isel(fold=[0, 1])], dim=pd.Index([0, 1], name="repeat"), join="outer")
    assert bool(padded.n_samples.isnull().any())
    got = padded.cv.f_samples("avg", zero_division=0.0)
    assert got.sel(repeat=1).item() == pytest.approx(
        float(a.cv.f_samples(None, zero_division=0.0).isel(fold=[0, 1]).mean())
    )


def test_provenance_attrs_and_names():
    y_true, y_pred = _random(20)
    ds = cvframe.from_predictions(y_true, y_pred, fold=np.arange(20) % 2)
    f = ds.cv.f_samples("avg", zero_division=0.0)
    assert f.name == "f_samples"
    assert f.attrs["fold_method"] == "avg" and f.attrs["reduced_dims"] == "fold"
    j = ds.cv.jaccard("micro")
    assert j.attrs["average"] == "micro" and j.attrs["reduced_dims"] == "fold,class"
    assert ds.cv.jaccard(None).dims == ("class",)


# --- warnings -----------------------------------------------------------------------------------


def test_empty_samples_warn_once_with_counts_and_follow_zero_division():
    y_true = np.array([[1, 0], [0, 0], [0, 1], [0, 0]])
    y_pred = np.array([[1, 0], [0, 0], [1, 1], [0, 0]])
    ds = cvframe.from_predictions(y_true, y_pred, fold=[0, 0, 1, 1])
    with pytest.warns(UndefinedMetricWarning, match=r"F of 2 of 4 samples") as rec:
        got = ds.cv.f_samples()
    assert len(rec) == 1
    assert got.item() == pytest.approx(
        metrics.f1_score(y_true, y_pred, average="samples", zero_division=0)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ds.cv.f_samples(zero_division=1.0).item() == pytest.approx(
            metrics.f1_score(y_true, y_pred, average="samples", zero_division=1.0)
        )
        ds.cv.subset_accuracy()
        ds.cv.hamming_loss()
    with pytest.warns(UndefinedMetricWarning) as rec:
        ds.cv.multilabel_metrics()
    assert len(rec) == 1 and "Jaccard of 2 of 4 samples" in str(rec[0].message)


def test_nan_zero_division_gives_nan_only_where_a_sample_is_empty():
    y_true = np.array([[1, 0], [0, 0], [0, 1], [1, 1]])
    y_pred = np.array([[1, 0], [0, 0], [1, 1], [1, 1]])
    ds = cvframe.from_predictions(y_true, y_pred, fold=[0, 0, 1, 1])
    per_fold = ds.cv.f_samples(None, zero_division=np.nan).values
    assert np.isnan(per_fold[0]) and per_fold[1] == pytest.approx((2 / 3 + 1) / 2)


# --- bad inputs ---------------------------------------------------------------------------------


def test_bad_inputs_name_the_fix():
    y_true, y_pred = _random(20)
    ds = cvframe.from_predictions(y_true, y_pred, fold=np.arange(20) % 2)
    with pytest.raises(ValueError, match="fold_method='pr_re'.*'tp_fp'"):
        ds.cv.f_samples("pr_re")
    with pytest.raises(ValueError, match="average='sample' is not valid"):
        ds.cv.jaccard("sample")
    with pytest.raises(ValueError, match="beta=2.*multilabel_metrics\\(beta=2\\)"):
        ds.cv.f_samples(beta=2.0)
    with pytest.raises(ValueError, match="built with, but it now has 2 classes"):
        ds.sel({"class": [0, 1]}).cv.subset_accuracy()
    counts = cvframe.from_counts(
        {v: ds[v].values for v in ("tp", "fp", "fn", "tn")}, task="multilabel"
    )
    with pytest.raises(ValueError, match="lacks.*from_predictions"):
        counts.cv.f_samples()
    # label-based metrics need only the counts
    assert counts.cv.hamming_loss().item() == pytest.approx(ds.cv.hamming_loss().item())
    assert counts.cv.jaccard("macro").item() == pytest.approx(ds.cv.jaccard("macro").item())
    binary = cvframe.from_predictions([1, 0, 1, 1], [1, 1, 0, 1], fold=[0, 0, 1, 1])
    with pytest.raises(ValueError, match=r"ds.cv.macro\('jaccard'\)"):
        binary.cv.jaccard("macro")
    single = pd.DataFrame({"fold": [0, 1], "y_true": ["a", "b"], "y_pred": ["a", "a"]})
    with pytest.raises(ValueError, match="not a multilabel predictions frame"):
        single.cv.multilabel_metrics()


def test_hamming_loss_of_single_label_data_is_the_error_rate():
    y_true = np.array(["a", "b", "c", "a", "b", "c"])
    y_pred = np.array(["a", "c", "c", "a", "b", "a"])
    ds = cvframe.from_predictions(y_true, y_pred, fold=[0, 0, 0, 1, 1, 1])
    assert ds.cv.hamming_loss().item() == pytest.approx(metrics.hamming_loss(y_true, y_pred))
    binary = cvframe.from_predictions([1, 0, 1, 1], [1, 1, 0, 1], fold=[0, 0, 1, 1])
    assert binary.cv.hamming_loss().item() == pytest.approx(0.5)
    assert binary.cv.jaccard(None).item() == pytest.approx(
        metrics.jaccard_score([1, 0, 1, 1], [1, 1, 0, 1])
    )


def test_dask_frame_gives_a_lazy_result_equal_to_pandas():
    dd = pytest.importorskip("dask.dataframe")
    y_true, y_pred = _random(40, 3, seed=5)
    df = _frame(y_true, y_pred, np.arange(40) % 4)
    lazy = multilabel_metrics_from_frame(dd.from_pandas(df, npartitions=3), zero_division=0.0)
    assert cvframe.schema.is_lazy(lazy)
    xr.testing.assert_allclose(lazy.compute(), df.cv.multilabel_metrics(zero_division=0.0))


def test_the_frame_takes_the_cubes_arguments_and_the_old_name_still_works():
    y_true, y_pred = _random(60, 3, seed=6)
    df = _frame(y_true, y_pred, np.arange(60) % 4)
    df["repeat"] = np.arange(60) // 30
    ds = df.cv.counts()
    for args in [("avg", ("repeat", "fold")), (None, "fold"), ("tp_fp", "repeat")]:
        want = ds.cv.multilabel_metrics(*args, zero_division=0.0)
        xr.testing.assert_identical(df.cv.multilabel_metrics(*args, zero_division=0.0), want)
    with pytest.warns(FutureWarning, match="renamed cvframe.measure.multilabel_metrics_from"):
        old = cvframe.build.multilabel_metrics(df, "avg", beta=1.0, zero_division=0.0)
    xr.testing.assert_identical(old, ds.cv.multilabel_metrics("avg", zero_division=0.0))


# --- end to end ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def study():
    from sklearn.datasets import make_multilabel_classification
    from sklearn.model_selection import KFold
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.tree import DecisionTreeClassifier

    X, Y = make_multilabel_classification(n_samples=90, n_features=6, n_classes=3, random_state=0)
    models = {"knn": KNeighborsClassifier(), "tree": DecisionTreeClassifier(random_state=0)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pred = cvframe.cross_validate(models, X, Y, cv=KFold(4, shuffle=True, random_state=0))
    return pred, pred.cv.counts()


def test_cross_validate_frame_scores_equal_scikit_learn(study):
    pred, ds = study
    one = pred[pred.model == "tree"]
    y_true = one.filter(like="y_true_").to_numpy()
    y_pred = one.filter(like="y_pred_").to_numpy()
    got = ds.sel(model="tree").cv.multilabel_metrics(zero_division=0.0).squeeze("repeat")
    for name, fn in SKLEARN.items():
        assert got[name].item() == pytest.approx(fn(y_true, y_pred, 0.0), rel=1e-12), name
    frame = pred.cv.multilabel_metrics(zero_division=0.0)
    xr.testing.assert_allclose(frame, ds.cv.multilabel_metrics(zero_division=0.0))


def test_report_shows_the_multilabel_table_in_every_format(study):
    import json

    pred, ds = study
    text = cvframe.report.report(ds, scores=pred, plots=False)
    assert "Multilabel metrics" in text and "subset_accuracy" in text
    table = json.loads(cvframe.report.report(ds, format="json"))["multilabel"]
    rows = {(r["model"], r["fold_method"]): r for r in table}
    want = ds.cv.multilabel_metrics("avg", zero_division=0.0).squeeze("repeat")
    assert rows[("knn", "avg")]["f_samples"] == pytest.approx(want.f_samples.sel(model="knn"))
    html = cvframe.report.report(ds, format="html", plots=False)
    assert 'class="multilabel"' in html


def test_confusion_plot_draws_one_two_by_two_panel_per_label(study):
    _, ds = study
    one = ds.sel(model="knn")
    grid = one.cv.plot.confusion()
    assert len(grid.axes.flat) == one.sizes["class"]
    table = cvframe.tidy.confusion_table(one)
    first = table[table["label"] == 0].set_index(["true", "pred"])["value"]
    counts = one.sum(["repeat", "fold"]).isel({"class": 0})
    assert first[("present", "present")] == counts.tp and first[("absent", "present")] == counts.fp
    assert first[("present", "absent")] == counts.fn and first[("absent", "absent")] == counts.tn


def test_compare_models_on_a_multilabel_cube(study):
    _, ds = study
    res = ds.cv.compare("jaccard")
    per_fold = ds.cv.macro("jaccard", None).squeeze("repeat")
    diff = per_fold.sel(model="tree") - per_fold.sel(model="knn")
    assert res["mean"].item() == pytest.approx(float(diff.mean()))
