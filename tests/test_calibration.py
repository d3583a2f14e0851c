"""Brier score, its decomposition and log-loss against scikit-learn, brute force and dask."""

from __future__ import annotations

import doctest
import pathlib
import re
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score

import cvframe
from cvframe import diagnostics, scores
from cvframe.errors import UndefinedMetricWarning
from cvframe.formulas import mirror_roc

ROOT = pathlib.Path(__file__).resolve().parents[1]
LABELS = ["a", "b", "c"]


def _binary(seed: int, n: int = 240, repeats: int = 0, model: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "fold": rng.integers(0, 4, n),
            "y_true": rng.integers(0, 2, n),
            "score": rng.random(n),
        }
    )
    df.loc[rng.random(n) < 0.1, "score"] = rng.choice([0.0, 1.0, 0.5])  # ties and edges
    if repeats:
        df.insert(0, "repeat", rng.integers(0, repeats, n))
    if model:
        df.insert(0, "model", rng.choice(["m1", "m2"], n))
    return df


def _multi(seed: int, n: int = 240, repeats: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.dirichlet([1.0, 1.0, 1.0], n)
    df = pd.DataFrame({"fold": rng.integers(0, 3, n), "y_true": rng.choice(LABELS, n)})
    for i, c in enumerate(LABELS):
        df[f"score_{c}"] = p[:, i]
    if repeats:
        df.insert(0, "repeat", rng.integers(0, repeats, n))
    return df


def _groups(df: pd.DataFrame, per_fold: bool):
    keys = [k for k in ("model", "repeat") if k in df.columns] + (["fold"] if per_fold else [])
    if not keys:
        yield {}, df
        return
    for key, part in df.groupby(keys):
        yield dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True)), part


PROBA = [f"score_{c}" for c in LABELS]


# --- oracles: scikit-learn per fold and merged --------------------------------------------


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("method", ["fold", "merge"])
def test_binary_brier_and_log_loss_match_sklearn(seed, method):
    df = _binary(seed, repeats=2, model=True)
    b = scores.brier(df, method)
    ll = scores.log_loss(df, method)
    assert b.dims[:2] == ("model", "repeat") and "class" in b.dims
    for at, part in _groups(df, method == "fold"):
        assert b.sel(at).sel({"class": 1}).item() == pytest.approx(
            brier_score_loss(part.y_true, part.score), abs=1e-12
        )
        assert ll.sel(at).sel({"class": 1}).item() == pytest.approx(
            log_loss(part.y_true, part.score, labels=[0, 1]), abs=1e-12
        )


@pytest.mark.parametrize("seed", range(3))
def test_avg_is_the_mean_of_the_per_fold_values(seed):
    df = _binary(seed, repeats=3)
    for f, oracle in (
        (scores.brier, brier_score_loss),
        (scores.log_loss, lambda y, s: log_loss(y, s, labels=[0, 1])),
    ):
        want = [
            np.mean([oracle(p.y_true, p.score) for _, p in part.groupby("fold")])
            for _, part in df.groupby("repeat")
        ]
        np.testing.assert_allclose(f(df).values.ravel(), want, atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("method", ["fold", "merge"])
def test_multiclass_one_vs_all_and_multiclass_sum_match_sklearn(seed, method):
    df = _multi(seed, repeats=2)
    ova = scores.brier(df, method)
    total = scores.brier(df, method, average="multiclass")
    ll_ova = scores.log_loss(df, method)
    ll = scores.log_loss(df, method, average="multiclass")
    assert list(ova["class"].values) == LABELS and "class" not in total.dims
    for at, part in _groups(df, method == "fold"):
        for c in LABELS:
            y = part.y_true == c
            assert ova.sel(at).sel({"class": c}).item() == pytest.approx(
                brier_score_loss(y, part[f"score_{c}"]), abs=1e-12
            )
            assert ll_ova.sel(at).sel({"class": c}).item() == pytest.approx(
                log_loss(y, part[f"score_{c}"], labels=[False, True]), abs=1e-12
            )
        proba = part[PROBA].to_numpy()
        assert total.sel(at).item() == pytest.approx(
            brier_score_loss(part.y_true, proba, labels=LABELS), abs=1e-12
        )
        assert ll.sel(at).item() == pytest.approx(
            log_loss(part.y_true, proba, labels=LABELS), abs=1e-12
        )


def test_two_class_multiclass_sum_is_halved_as_sklearn_auto():
    df = _multi(5)
    two = df[df.y_true != "c"].drop(columns="score_c")
    two = two.assign(score_b=1 - two.score_a)
    got = scores.brier(two, "merge", average="multiclass", labels=["a", "b"]).item()
    proba = two[["score_a", "score_b"]].to_numpy()
    assert got == pytest.approx(brier_score_loss(two.y_true, proba, labels=["a", "b"]))
    # and equals the binary Brier score of either class
    assert got == pytest.approx(brier_score_loss(two.y_true == "a", two.score_a))


def test_macro_and_weighted_class_averages():
    df = _multi(2)
    ova = scores.brier(df, "merge")
    assert scores.brier(df, "merge", average="macro").item() == pytest.approx(
        float(ova.mean("class"))
    )
    support = df.y_true.value_counts().reindex(LABELS).to_numpy()
    assert scores.brier(df, "merge", average="weighted").item() == pytest.approx(
        float((ova.values * support).sum() / support.sum())
    )


def test_binary_frame_multiclass_average_is_the_binary_score():
    df = _binary(1)
    assert scores.brier(df, "merge", average="multiclass").item() == pytest.approx(
        brier_score_loss(df.y_true, df.score)
    )
    assert scores.log_loss(df, "merge", average="multiclass").item() == pytest.approx(
        log_loss(df.y_true, df.score)
    )


def test_string_labels_with_pos_label_and_clipping():
    df = pd.DataFrame(
        {
            "fold": [0, 0, 0, 1, 1, 1],
            "y_true": ["spam", "ham", "spam", "ham", "spam", "ham"],
            "score": [1.0, 0.0, 0.0, 1.0, 0.7, 0.2],  # confident mistakes: clipped log-loss
        }
    )
    for m in ("fold", "merge"):
        ll = scores.log_loss(df, m, pos_label="spam")
        b = scores.brier(df, m, pos_label="spam")
        for at, part in _groups(df, m == "fold"):
            assert ll.sel(at).item() == pytest.approx(
                log_loss(part.y_true == "spam", part.score, labels=[False, True])
            )
            assert b.sel(at).item() == pytest.approx(
                brier_score_loss(part.y_true, part.score, pos_label="spam")
            )
    big = scores.log_loss(df, "merge", eps=1e-3, pos_label="spam").item()
    assert big == pytest.approx(log_loss(df.y_true == "spam", np.clip(df.score, 1e-3, 1 - 1e-3)))


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 2), st.booleans(), st.floats(0, 1, allow_nan=False)),
        min_size=1,
        max_size=40,
    ),
    st.sampled_from(["avg", "merge", "fold"]),
)
def test_brier_matches_sklearn_on_any_frame(rows, method):
    df = pd.DataFrame(rows, columns=["fold", "y_true", "score"]).astype({"y_true": int})
    b = scores.brier(df, method)
    if method == "avg":
        want = np.mean(
            [brier_score_loss(p.y_true, p.score, pos_label=1) for _, p in _groups(df, True)]
        )
        assert b.item() == pytest.approx(want, abs=1e-12)
        return
    for at, part in _groups(df, method == "fold"):
        want = brier_score_loss(part.y_true, part.score, pos_label=1)
        assert b.sel(at).item() == pytest.approx(want, abs=1e-12)


# --- defined everywhere: a fold without positives -----------------------------------------


def test_a_fold_without_positives_is_defined_and_silent():
    df = pd.DataFrame({"fold": [0, 0, 1, 1], "y_true": [0, 0, 0, 1], "score": [0.2, 0.1, 0.3, 0.9]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        per_fold = scores.brier(df, "fold").values.ravel()
    np.testing.assert_allclose(per_fold, [(0.04 + 0.01) / 2, (0.09 + 0.01) / 2])
    assert scores.brier(df).attrs["n_undefined"] == 0


def test_folds_missing_in_one_repeat_are_not_folds():
    df = _binary(3, repeats=2)
    df = df[~((df.repeat == 1) & (df.fold == 3))]
    per_fold = scores.brier(df, "fold")
    assert np.isnan(per_fold.sel(repeat=1, fold=3)).all()
    avg = scores.brier(df)
    part = df[df.repeat == 1]
    want = np.mean([brier_score_loss(p.y_true, p.score) for _, p in part.groupby("fold")])
    assert avg.sel(repeat=1).item() == pytest.approx(want)


# --- the decomposition ----------------------------------------------------------------------


def _brute_decomposition(y: np.ndarray, p: np.ndarray, bins: int | None) -> dict[str, float]:
    """Murphy's terms by looping over the bins (the slow, obvious way)."""
    key = p if bins is None else np.minimum(np.floor(p * bins), bins - 1)
    n, ybar = len(y), y.mean()
    cal = res = 0.0
    for k in np.unique(key):
        inside = key == k
        cal += inside.sum() * (p[inside].mean() - y[inside].mean()) ** 2
        res += inside.sum() * (y[inside].mean() - ybar) ** 2
    return {"calibration": cal / n, "resolution": res / n, "uncertainty": ybar * (1 - ybar)}


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 2), st.booleans(), st.sampled_from([0.0, 0.1, 0.35, 0.5, 0.9, 1.0])
        ),
        min_size=1,
        max_size=50,
    ),
    st.sampled_from([None, 1, 3, 10]),
    st.sampled_from(["avg", "merge", "fold"]),
)
def test_decomposition_sums_back_and_matches_a_brute_force(rows, bins, method):
    df = pd.DataFrame(rows, columns=["fold", "y_true", "score"]).astype({"y_true": int})
    d = scores.brier_decomposition(df, method, bins=bins)
    np.testing.assert_allclose(d.brier, d.calibration + d.refinement, atol=1e-12)
    np.testing.assert_allclose(
        d.refinement, d.uncertainty - d.resolution + d.within_bin, atol=1e-12
    )
    np.testing.assert_allclose(d.brier, scores.brier(df, method), atol=1e-12)
    if bins is None:  # one score value per bin: Murphy's exact decomposition
        np.testing.assert_allclose(d.within_bin, 0.0, atol=1e-12)
    parts = list(_groups(df, method != "merge"))
    brute = [
        _brute_decomposition(p.y_true.to_numpy(float), p.score.to_numpy(), bins) for _, p in parts
    ]
    for name in ("calibration", "resolution", "uncertainty"):
        if method == "avg":
            assert d[name].item() == pytest.approx(np.mean([b[name] for b in brute]), abs=1e-12)
        else:
            for (at, _), b in zip(parts, brute, strict=True):
                assert d[name].sel(at).item() == pytest.approx(b[name], abs=1e-12)


def test_decomposition_of_perfect_calibration_and_of_a_constant():
    # every bin's mean score equals its share of positives: calibration 0
    df = pd.DataFrame(
        {"fold": 0, "y_true": [1, 0, 0, 0, 1, 1, 1, 0], "score": [0.25] * 4 + [0.75] * 4}
    )
    d = scores.brier_decomposition(df, "merge", bins=None).sel({"class": 1})
    assert d.calibration.item() == pytest.approx(0.0, abs=1e-15)
    assert d.brier.item() == pytest.approx(0.1875)  # 1/4 * 3/4
    assert d.resolution.item() == pytest.approx(0.0625)
    # predicting the prevalence: Brier = uncertainty, no resolution
    df = pd.DataFrame({"fold": 0, "y_true": [1, 0, 0, 0], "score": 0.25})
    d = scores.brier_decomposition(df, "merge").sel({"class": 1})
    assert d.brier.item() == pytest.approx(d.uncertainty.item()) == pytest.approx(0.1875)
    assert d.resolution.item() == pytest.approx(0.0) and d.calibration.item() == pytest.approx(0.0)


def test_decomposition_multiclass_average_sums_the_terms():
    df = _multi(4)
    ova = scores.brier_decomposition(df, "merge")
    total = scores.brier_decomposition(df, "merge", average="multiclass")
    for name in total.data_vars:
        assert total[name].item() == pytest.approx(float(ova[name].sum("class")))
    assert total.brier.item() == pytest.approx(
        brier_score_loss(df.y_true, df[PROBA].to_numpy(), labels=LABELS)
    )


# --- bad input ------------------------------------------------------------------------------


def test_scores_outside_unit_interval_are_an_error_naming_the_column():
    df = _binary(0).assign(score=lambda d: d.score * 4 - 2)
    for f in (scores.brier, scores.log_loss, scores.brier_decomposition):
        with pytest.raises(ValueError, match=r"score column 'score' .*outside \[0, 1\]"):
            f(df)
    multi = _multi(0)
    multi.loc[3, "score_b"] = 1.5
    with pytest.raises(ValueError, match="'score_b'"):
        scores.brier(multi)


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"method": "mean"}, ValueError, "method="),
        ({"undefined": "zero"}, ValueError, "undefined="),
        ({"average": "micro"}, ValueError, "average="),
        ({"y_true": "label"}, ValueError, "y_true="),
        ({"score": "proba"}, ValueError, "score="),
    ],
)
def test_bad_arguments_name_themselves(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        scores.brier(_binary(0), **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [({"eps": 0.7}, ValueError, "eps="), ({"eps": "tiny"}, TypeError, "eps=")],
)
def test_bad_eps(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        scores.log_loss(_binary(0), **kwargs)


@pytest.mark.parametrize(("bins", "exc"), [(0, ValueError), (2.5, TypeError), (True, TypeError)])
def test_bad_bins(bins, exc):
    with pytest.raises(exc, match="bins="):
        scores.brier_decomposition(_binary(0), bins=bins)


def test_nan_scores_are_an_error():
    df = _binary(0)
    df.loc[5, "score"] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        scores.brier(df)


def test_hard_predictions_are_fine_and_give_the_error_rate():
    df = _binary(0).assign(score=lambda d: (d.score > 0.5).astype(float))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b = scores.brier(df, "merge").item()
    assert b == pytest.approx(float((df.score != df.y_true).mean()))


# --- accessors, dask ------------------------------------------------------------------------


def test_accessors_give_the_same_result():
    df = _multi(1, repeats=2)
    xr.testing.assert_identical(df.cv.brier("merge"), scores.brier(df, "merge"))
    xr.testing.assert_identical(df.cv.log_loss(eps=1e-6), scores.log_loss(df, eps=1e-6))
    xr.testing.assert_identical(
        df.cv.brier_decomposition(bins=5), scores.brier_decomposition(df, bins=5)
    )


@pytest.mark.parametrize("kind", ["binary", "multiclass"])
def test_dask_frames_equal_pandas(kind):
    dd = pytest.importorskip("dask.dataframe", reason="dask is an optional dependency")
    if kind == "binary":
        df = _binary(7, repeats=2, model=True)
    else:
        df = _multi(7, repeats=2)
    lazy = dd.from_pandas(df, npartitions=3)
    for f, method, kw in (
        (scores.brier, "fold", {}),
        (scores.brier, "merge", {"average": "multiclass"}),
        (scores.log_loss, "avg", {"average": "weighted"}),
        (scores.brier_decomposition, "fold", {"bins": 10}),
        (scores.brier_decomposition, "merge", {"bins": None}),
    ):
        xr.testing.assert_allclose(f(lazy, method, **kw), f(df, method, **kw), atol=1e-12)


def test_dask_frame_with_out_of_range_scores_names_the_column():
    dd = pytest.importorskip("dask.dataframe", reason="dask is an optional dependency")
    df = _binary(0)
    df.loc[0, "score"] = 1.2
    with pytest.raises(ValueError, match="'score'"):
        scores.brier(dd.from_pandas(df, npartitions=2))


# --- worse than random ----------------------------------------------------------------------


def test_mirror_roc_maps_a_curve_to_its_inverted_scores():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 60)
    s = rng.random(60) + 0.3 * y
    pts = scores.roc(pd.DataFrame({"fold": 0, "y_true": y, "score": s}))
    inv = scores.roc(pd.DataFrame({"fold": 0, "y_true": y, "score": -s}))
    pts, inv = pts[pts.kind == "fold"], inv[inv.kind == "fold"]
    fpr, tpr = mirror_roc(pts.fpr.to_numpy(), pts.tpr.to_numpy())
    got = sorted(zip(np.round(fpr, 12), np.round(tpr, 12), strict=True))
    want = sorted(zip(np.round(inv.fpr, 12), np.round(inv.tpr, 12), strict=True))
    assert got == want
    assert roc_auc_score(y, -s) == pytest.approx(1 - roc_auc_score(y, s))


def test_anomalies_flag_a_fold_with_negated_scores():
    rng = np.random.default_rng(1)
    n = 400
    df = pd.DataFrame({"fold": rng.integers(0, 4, n), "y_true": rng.integers(0, 2, n)})
    df["score"] = df.y_true + rng.normal(0, 0.8, n)
    df.loc[df.fold == 2, "score"] *= -1
    df["y_pred"] = (df.score > 0.5).astype(int)
    ds = df.cv.counts()
    found = ds.cv.anomalies(scores=df)
    bad = found[found.kind == "worse_than_random"]
    assert list(bad.fold) == [2] and list(bad["class"]) == [1]
    part = df[df.fold == 2]
    a = roc_auc_score(part.y_true, part.score)
    assert f"AUC {a:.3f}" in bad.detail.iloc[0]
    assert f"AUC = 1 - {a:.3f} = {1 - a:.3f}" in bad.detail.iloc[0]
    assert "worse_than_random" not in set(ds.cv.anomalies().kind)  # only with scores=
    assert "worse_than_random" in diagnostics.KINDS


def test_anomalies_worse_than_random_per_model_and_class_keeps_dims():
    df = _multi(3, n=300, repeats=2)
    # class "b": negate its one-vs-all ranking in repeat 1, fold 0
    at = (df.repeat == 1) & (df.fold == 0)
    df.loc[at, "score_b"] = np.where(df.loc[at, "y_true"] == "b", 0.0, 0.9)
    df["y_pred"] = np.array(LABELS)[df[PROBA].to_numpy().argmax(axis=1)]
    ds = df.cv.counts(labels=LABELS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        found = diagnostics.anomalies(ds, scores=df)
    bad = found[found.kind == "worse_than_random"]
    hit = bad[(bad["repeat"] == 1) & (bad.fold == 0) & (bad["class"] == "b")]
    assert len(hit) == 1 and "AUC 0.000" in hit.detail.iloc[0]
    auc = scores.auc(df, method="fold")
    assert len(bad) == int((auc < 0.5).sum())


def test_anomalies_scores_must_be_a_frame():
    with pytest.raises(TypeError, match="scores"):
        cvframe.datasets.table2().cv.anomalies(scores=np.zeros(3))


# --- report -----------------------------------------------------------------------------------


def test_report_shows_brier_next_to_auc():
    import json

    df = _binary(2, repeats=2)
    df["y_pred"] = (df.score > 0.5).astype(int)
    out = json.loads(cvframe.report.report(df.cv.counts(), scores=df, format="json"))
    row = out["auc"][0]
    assert row["brier_avg"] == pytest.approx(float(scores.brier(df).mean()))
    assert row["brier_merge"] == pytest.approx(float(scores.brier(df, "merge").mean()))
    text = cvframe.report.report(df.cv.counts(), scores=df)
    assert "Brier_merge" in text and "AUC_merge mixes calibration into ranking" in text
    # decision values: no Brier columns, the AUC table stays
    dv = df.assign(score=df.score * 10 - 5)
    out = json.loads(cvframe.report.report(dv.cv.counts(), scores=dv, format="json"))
    assert "brier_avg" not in out["auc"][0] and "auc_avg" in out["auc"][0]


# --- docs page ------------------------------------------------------------------------------


def test_doc_page_examples_run():
    text = (ROOT / "docs" / "calibration.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if ">>>" in b]
    assert len(blocks) >= 4
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, "calibration.md", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    failures: list[str] = []
    runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)
