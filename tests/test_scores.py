"""Score metrics: AUC avg/merge, average precision, precision at k, R-precision, curves.

Oracles: scikit-learn's roc_auc_score / average_precision_score / roc_curve per fold and on
the pooled folds; a direct per-fold computation for precision at k and R-precision.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, roc_auc_score, roc_curve

import cvframe  # noqa: F401  (registers df.cv)
from cvframe import UndefinedMetricWarning, scores
from cvframe.errors import CountsError
from cvframe.scores import _keys, _rank

SEEDS = range(12)


def frame(seed, n=300, k=5, classes=2, ties=False, repeats=0, pos_rate=0.3, offsets=None):
    """A random predictions frame; scores informative, integer-rounded when ties=True."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"fold": rng.integers(0, k, n)})
    if repeats:
        df.insert(0, "repeat", rng.integers(0, repeats, n))
    if classes == 2:
        y = (rng.random(n) < pos_rate).astype(np.int64)
        s = y * 1.0 + rng.normal(0, 1.0, n)
        if ties:
            s = np.round(s * 2) / 2
        if offsets is not None:
            s = s + np.asarray(offsets)[df["fold"].to_numpy()]
        df["y_true"], df["score"] = y, s
    else:
        y = rng.integers(0, classes, n)
        df["y_true"] = y
        for c in range(classes):
            s = (y == c) * 1.0 + rng.normal(0, 1.0, n)
            df[f"score_{c}"] = np.round(s * 2) / 2 if ties else s
    return df


def _groups(df, by):
    return df.groupby(by, sort=True)


# ------------------------------------------------------------------------------------------
# Oracles
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("seed", SEEDS)
def test_binary_per_fold_and_merged_equal_sklearn(seed, ties):
    df = frame(seed, n=200 + 37 * seed, k=2 + seed % 5, ties=ties, repeats=seed % 3)
    keys = ["repeat", "fold"] if "repeat" in df else ["fold"]
    per_fold_auc = scores.auc(df, method="fold")
    per_fold_ap = scores.average_precision(df, method="fold")
    for key, g in _groups(df, keys):
        sel = dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True))
        sel["class"] = 1
        assert per_fold_auc.sel(sel).item() == pytest.approx(
            roc_auc_score(g.y_true, g.score), abs=1e-12
        )
        assert per_fold_ap.sel(sel).item() == pytest.approx(
            average_precision_score(g.y_true, g.score), abs=1e-12
        )
    merged_auc = scores.auc(df, method="merge")
    merged_ap = scores.average_precision(df, method="merge")
    avg_auc = scores.auc(df)
    pooled = _groups(df, "repeat") if "repeat" in df else [(None, df)]
    for r, g in pooled:
        sel = {"class": 1} if r is None else {"class": 1, "repeat": r}
        assert merged_auc.sel(sel).item() == pytest.approx(
            roc_auc_score(g.y_true, g.score), abs=1e-12
        )
        assert merged_ap.sel(sel).item() == pytest.approx(
            average_precision_score(g.y_true, g.score), abs=1e-12
        )
        per = [roc_auc_score(h.y_true, h.score) for _, h in g.groupby("fold")]
        assert avg_auc.sel(sel).item() == pytest.approx(np.mean(per), abs=1e-12)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("seed", SEEDS[:6])
def test_multiclass_ova_equal_sklearn_per_class(seed, ties):
    df = frame(seed, n=400, k=4, classes=3 + seed % 3, ties=ties)
    classes = sorted(df.y_true.unique())
    auc_f = scores.auc(df, method="fold")
    ap_f = scores.average_precision(df, method="fold")
    auc_m = scores.auc(df, method="merge")
    assert list(auc_f["class"].values) == classes
    for c in classes:
        for f, g in df.groupby("fold"):
            yc = g.y_true == c
            assert auc_f.sel({"fold": f, "class": c}).item() == pytest.approx(
                roc_auc_score(yc, g[f"score_{c}"]), abs=1e-12
            )
            assert ap_f.sel({"fold": f, "class": c}).item() == pytest.approx(
                average_precision_score(yc, g[f"score_{c}"]), abs=1e-12
            )
        assert auc_m.sel({"class": c}).item() == pytest.approx(
            roc_auc_score(df.y_true == c, df[f"score_{c}"]), abs=1e-12
        )


def _direct_p_at_k(y, s, k):
    """Expected precision of the k top scores under random tie-breaking, by counting."""
    y, s = np.asarray(y), np.asarray(s)
    if k < 1 or k > len(s):
        return np.nan
    t = np.sort(s)[::-1][k - 1]  # the k-th largest score
    above = s > t
    tied = s == t
    take = k - above.sum()
    return (y[above].sum() + y[tied].sum() * take / tied.sum()) / k


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("seed", SEEDS[:8])
def test_precision_at_k_and_r_precision_direct(seed, ties):
    df = frame(seed, n=150, k=3, ties=ties, repeats=2)
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 30))
    pk = scores.precision_at_k(df, k, method="fold", undefined="nan")
    rp = scores.r_precision(df, method="fold", undefined="nan")
    pk_m = scores.precision_at_k(df, k, method="merge")
    for (r, f), g in df.groupby(["repeat", "fold"]):
        sel = {"repeat": r, "fold": f, "class": 1}
        np.testing.assert_allclose(pk.sel(sel).item(), _direct_p_at_k(g.y_true, g.score, k))
        np.testing.assert_allclose(
            rp.sel(sel).item(), _direct_p_at_k(g.y_true, g.score, int(g.y_true.sum()))
        )
    for r, g in df.groupby("repeat"):
        np.testing.assert_allclose(
            pk_m.sel({"repeat": r, "class": 1}).item(), _direct_p_at_k(g.y_true, g.score, k)
        )


def test_precision_at_k_without_ties_is_top_k_count():
    df = frame(3, n=100, k=2)
    got = scores.precision_at_k(df, 10, method="fold")
    for f, g in df.groupby("fold"):
        top = g.sort_values("score", ascending=False).head(10)
        assert got.sel({"fold": f}).item() == top.y_true.mean()


def test_r_precision_equals_break_even_point():
    # R = 2 positives; the top 2 hold one positive: precision = recall = 1/2.
    df = pd.DataFrame({"fold": 0, "y_true": [1, 0, 1, 0, 0], "score": [5, 4, 3, 2, 1.0]})
    assert scores.r_precision(df).item() == 0.5


def test_known_values_by_hand():
    # one fold, positives {0.8, 0.4}, negatives {0.4, 0.1}: pairs 1 + 1 + 0.5 + 1 = 3.5 / 4
    df = pd.DataFrame({"fold": 0, "y_true": [1, 1, 0, 0], "score": [0.8, 0.4, 0.4, 0.1]})
    assert scores.auc(df).item() == 3.5 / 4
    # AP: threshold 0.8 -> P=1, R=1/2; threshold 0.4 -> P=2/3, R=1
    assert scores.average_precision(df).item() == pytest.approx(0.5 * 1 + 0.5 * 2 / 3)
    # top 2: 0.8 (pos) and one of the tied 0.4 (one pos, one neg) -> (1 + 1/2) / 2
    assert scores.precision_at_k(df, 2).item() == 0.75


# ------------------------------------------------------------------------------------------
# The calibration effect
# ------------------------------------------------------------------------------------------


def test_fold_offsets_leave_auc_avg_and_drop_auc_merge():
    base = frame(7, n=2000, k=4)
    shifted = frame(7, n=2000, k=4, offsets=[0.0, 2.0, -1.5, 4.0])
    a0, a1 = scores.auc_methods(base), scores.auc_methods(shifted)
    assert a1.auc_avg.item() == pytest.approx(a0.auc_avg.item(), abs=1e-12)
    assert a1.auc_merge.item() < a0.auc_merge.item() - 0.05
    assert a1.auc_merge.item() < a1.auc_avg.item() - 0.05
    # the per-fold values themselves are untouched
    xr.testing.assert_allclose(scores.auc(base, "fold"), scores.auc(shifted, "fold"))


# ------------------------------------------------------------------------------------------
# Properties (hypothesis)
# ------------------------------------------------------------------------------------------


@st.composite
def folds(draw, min_folds=1, max_folds=5):
    """A binary frame whose every fold holds both classes; scores small ints (many ties)."""
    k = draw(st.integers(min_folds, max_folds))
    rows = []
    for f in range(k):
        n = draw(st.integers(2, 20))
        y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
        y[0], y[1] = 0, 1
        s = draw(st.lists(st.integers(-5, 5), min_size=n, max_size=n))
        rows += [(f, yi, si + 0.25) for yi, si in zip(y, s, strict=True)]  # never exactly {0, 1}
    return pd.DataFrame(rows, columns=["fold", "y_true", "score"])


@settings(max_examples=50, deadline=None)
@given(
    folds(),
    st.lists(st.floats(0.1, 3.0), min_size=5, max_size=5),
    st.lists(st.floats(-50, 50), min_size=5, max_size=5),
)
def test_auc_invariant_to_increasing_transform_per_fold(df, a, b):
    f = df["fold"].to_numpy()
    t = df.copy()
    # a different strictly increasing map in every fold
    t["score"] = np.exp(np.asarray(a)[f] * df["score"]) + np.asarray(b)[f]
    xr.testing.assert_allclose(scores.auc(df, "fold"), scores.auc(t, "fold"))
    xr.testing.assert_allclose(scores.auc(df), scores.auc(t))


@settings(max_examples=50, deadline=None)
@given(folds(), st.lists(st.integers(-100, 100), min_size=5, max_size=5))
def test_auc_avg_invariant_to_fold_shifts(df, shifts):
    t = df.assign(score=df["score"] + np.asarray(shifts, float)[df["fold"].to_numpy()])
    assert scores.auc(t).item() == pytest.approx(scores.auc(df).item(), abs=1e-12)


@settings(max_examples=50, deadline=None)
@given(folds())
def test_swapping_labels_or_negating_scores_gives_one_minus_auc(df):
    a = scores.auc(df, "fold")
    swapped = scores.auc(df.assign(y_true=1 - df["y_true"]), "fold")
    negated = scores.auc(df.assign(score=-df["score"]), "fold")
    xr.testing.assert_allclose(swapped, 1 - a)
    xr.testing.assert_allclose(negated, 1 - a)
    assert float(a.min()) >= 0 and float(a.max()) <= 1


@settings(max_examples=50, deadline=None)
@given(folds(), st.floats(-1e6, 1e6))
def test_constant_scores_give_one_half(df, c):
    got = scores.auc(df.assign(score=c), "fold")
    assert np.all(got.values == 0.5)
    assert scores.auc(df.assign(score=c), "merge").item() == 0.5


@settings(max_examples=50, deadline=None)
@given(folds(max_folds=4))
def test_fold_and_row_order_do_not_matter(df):
    rng = np.random.default_rng(len(df))
    shuffled = df.sample(frac=1, random_state=rng).reset_index(drop=True)
    relabel = shuffled.assign(fold=shuffled["fold"].map(lambda f: 10 - f))
    assert scores.auc(shuffled).item() == pytest.approx(scores.auc(df).item(), abs=1e-12)
    assert scores.auc(relabel).item() == pytest.approx(scores.auc(df).item(), abs=1e-12)
    assert scores.auc(relabel, "merge").item() == pytest.approx(
        scores.auc(df, "merge").item(), abs=1e-12
    )


# ------------------------------------------------------------------------------------------
# Score encodings: negative, huge ranges (dense-rank path), -0.0
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["negative", "wide", "tiny", "signed_zero", "many_folds"])
def test_unusual_score_ranges_match_sklearn(kind):
    rng = np.random.default_rng(11)
    n = 500
    y = rng.integers(0, 2, n)
    k = 300 if kind == "many_folds" else 3
    fold = rng.integers(0, k, n)
    s = y + rng.normal(0, 1, n)
    if kind == "negative":
        s = s - 10
    elif kind == "wide":  # needs the dense-rank fallback
        s = np.sign(s) * 10.0 ** rng.uniform(-300, 300, n)
    elif kind == "tiny":
        s = s * 1e-310  # subnormals
    elif kind == "signed_zero":
        s = np.where(rng.random(n) < 0.3, -0.0, np.where(rng.random(n) < 0.5, 0.0, s))
    elif kind == "many_folds":
        s = np.sign(s) * 10.0 ** rng.uniform(-200, 200, n)
    df = pd.DataFrame({"fold": fold, "y_true": y, "score": s})
    got = scores.auc(df, "fold", undefined="nan")
    ap = scores.average_precision(df, "fold", undefined="nan")
    for f, g in df.groupby("fold"):
        if g.y_true.nunique() < 2:
            assert np.isnan(got.sel({"fold": f}).item())
            continue
        assert got.sel({"fold": f}).item() == pytest.approx(
            roc_auc_score(g.y_true, g.score), abs=1e-12
        )
        assert ap.sel({"fold": f}).item() == pytest.approx(
            average_precision_score(g.y_true, g.score), abs=1e-12
        )
    assert scores.auc(df, "merge").item() == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    one = df.assign(fold=0) if kind == "many_folds" else df
    pts = scores.roc(one)
    f0 = pts[(pts.kind == "fold") & (pts.fold == 0)]
    g0 = one[one.fold == 0]
    fpr, tpr, thr = roc_curve(g0.y_true, g0.score, drop_intermediate=False)
    np.testing.assert_array_equal(f0.threshold.to_numpy()[1:], thr[1:])


# ------------------------------------------------------------------------------------------
# Curves
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("ties", [False, True])
def test_roc_points_equal_sklearn_and_integrate_to_auc(ties):
    df = frame(5, n=300, k=3, ties=ties, repeats=2)
    pts = scores.roc(df)
    assert list(pts.columns) == ["kind", "repeat", "fold", "class", "threshold", "fpr", "tpr"]
    per = scores.auc(df, "fold")
    for (r, f), g in df.groupby(["repeat", "fold"]):
        mine = pts[(pts.kind == "fold") & (pts.repeat == r) & (pts.fold == f)]
        fpr, tpr, thr = roc_curve(g.y_true, g.score, drop_intermediate=False)
        np.testing.assert_allclose(mine.fpr, fpr)
        np.testing.assert_allclose(mine.tpr, tpr)
        np.testing.assert_array_equal(mine.threshold.to_numpy()[1:], thr[1:])
        assert np.isinf(mine.threshold.iloc[0])
        area = np.trapezoid(mine.tpr, mine.fpr)
        assert area == pytest.approx(per.sel({"repeat": r, "fold": f, "class": 1}).item())
    merged = scores.auc(df, "merge")
    for r, _g in df.groupby("repeat"):
        m = pts[(pts.kind == "merged") & (pts.repeat == r)]
        assert m.fold.isna().all()
        assert np.trapezoid(m.tpr, m.fpr) == pytest.approx(
            merged.sel({"repeat": r, "class": 1}).item()
        )


def test_score_rates_are_the_fold_curves_in_long_format():
    df = frame(9, n=120, k=3, ties=True)
    sr = scores.score_rates(df)
    assert list(sr.columns) == ["fold", "class", "threshold", "rate", "value"]
    pts = scores.roc(df)
    for f, g in df.groupby("fold"):
        roc_f = pts[(pts.kind == "fold") & (pts.fold == f)].iloc[1:]
        for rate in ("fpr", "tpr"):
            part = sr[(sr.fold == f) & (sr.rate == rate)]
            np.testing.assert_array_equal(part.threshold, roc_f.threshold)
            np.testing.assert_allclose(part.value, roc_f[rate])
            # the rate at threshold t is the share of that class scored >= t
            side = g[g.y_true == (1 if rate == "tpr" else 0)].score.to_numpy()
            expect = [(side >= t).mean() for t in part.threshold]
            np.testing.assert_allclose(part.value, expect)


def test_curves_skip_undefined_folds_with_one_warning_or_keep_nan():
    df = frame(1, n=60, k=3)
    df.loc[df.fold == 1, "y_true"] = 0
    with pytest.warns(UndefinedMetricWarning, match=r"1 of 4 curves.*fold=1") as rec:
        pts = scores.roc(df)
    assert len(rec) == 1
    assert 1 not in set(pts.fold.dropna())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kept = scores.roc(df, undefined="nan")
        sr = scores.score_rates(df, undefined="nan")
    assert kept[kept.fold == 1].tpr.isna().all()
    assert sr[(sr.fold == 1) & (sr.rate == "tpr")].value.isna().all()
    with pytest.warns(UndefinedMetricWarning, match="score-rate curve"):
        scores.score_rates(df)


# ------------------------------------------------------------------------------------------
# Undefined folds
# ------------------------------------------------------------------------------------------


def _one_class_fold():
    df = frame(2, n=200, k=4, repeats=2)
    df.loc[(df.fold == 2) & (df.repeat == 1), "y_true"] = 1  # no negatives there
    return df


def test_undefined_fold_skipped_with_one_warning_naming_it():
    df = _one_class_fold()
    with pytest.warns(
        UndefinedMetricWarning, match=r"1 of 8 cells \(repeat=\[1\], fold=\[2\], class=\[1\]\)"
    ) as rec:
        got = scores.auc(df)
    assert len(rec) == 1
    assert got.attrs["n_undefined"] == 1
    g = df[(df.repeat == 1) & (df.fold != 2)]
    per = [roc_auc_score(h.y_true, h.score) for _, h in g.groupby("fold")]
    assert got.sel({"repeat": 1}).item() == pytest.approx(np.mean(per))


def test_undefined_nan_policy_is_silent_and_never_zero_or_half():
    df = _one_class_fold()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        avg = scores.auc(df, undefined="nan")
        per = scores.auc(df, "fold", undefined="nan")
        ap = scores.average_precision(df, undefined="nan")
    assert np.isnan(avg.sel({"repeat": 1}).item())
    assert not np.isnan(avg.sel({"repeat": 0}).item())
    assert np.isnan(per.sel({"repeat": 1, "fold": 2}).item())
    assert per.isnull().sum().item() == 1
    # AP is defined without negatives (=1), only undefined without positives
    assert not ap.isnull().any()


def test_per_fold_method_under_skip_warns_and_leaves_nan():
    df = _one_class_fold()
    with pytest.warns(UndefinedMetricWarning, match="left as NaN"):
        per = scores.auc(df, "fold")
    assert np.isnan(per.sel({"repeat": 1, "fold": 2}).item())


def test_ap_and_r_precision_undefined_without_positives():
    df = frame(4, n=100, k=3)
    df.loc[df.fold == 0, "y_true"] = 0
    with pytest.warns(UndefinedMetricWarning, match="average_precision.*fold=\\[0\\]"):
        scores.average_precision(df)
    with pytest.warns(UndefinedMetricWarning, match="r_precision.*fold=\\[0\\]"):
        scores.r_precision(df)
    with pytest.warns(UndefinedMetricWarning, match="fewer than k=1000"):
        out = scores.precision_at_k(df, 1000)
    assert out.isnull().all()


def test_all_folds_undefined_gives_nan_with_one_warning():
    df = pd.DataFrame({"fold": [0, 0, 1, 1], "y_true": [0, 0, 0, 0], "score": [1.0, 2, 3, 4]})
    with pytest.warns(UndefinedMetricWarning) as rec:
        got = scores.auc(df)
    assert len(rec) == 1 and np.isnan(got.item())


# ------------------------------------------------------------------------------------------
# Dims, class averages, labels, attrs
# ------------------------------------------------------------------------------------------


def test_dims_and_coords():
    df = frame(0, n=300, k=3, classes=4, repeats=2)
    assert scores.auc(df).dims == ("repeat", "class")
    assert scores.auc(df, "fold").dims == ("repeat", "fold", "class")
    assert scores.auc(df, "merge").dims == ("repeat", "class")
    assert scores.auc(df, average="macro").dims == ("repeat",)
    assert list(scores.auc(df).repeat.values) == [0, 1]
    b = frame(0, n=100, k=3)
    got = scores.auc(b)
    assert got.dims == ("class",) and got["class"].values.tolist() == [1]
    assert scores.auc(b.assign(y_true=b.y_true.astype(bool)))["class"].item() is True


def test_macro_and_weighted_class_averages():
    df = frame(8, n=600, k=3, classes=3)
    per = scores.auc(df)
    support = df.y_true.value_counts().sort_index().to_numpy()
    assert scores.auc(df, average="macro").item() == pytest.approx(per.mean("class").item())
    assert scores.auc(df, average="weighted").item() == pytest.approx(
        float(np.sum(per.values * support) / support.sum())
    )
    pf = scores.auc(df, "fold")
    assert scores.auc(df, "fold", average="macro").values == pytest.approx(pf.mean("class").values)


def test_class_average_skips_undefined_classes_under_skip():
    df = frame(8, n=300, k=2, classes=3)
    df["y_true"] = df["y_true"].where(df["y_true"] != 2, 0)  # class 2 never occurs
    with pytest.warns(UndefinedMetricWarning):
        got = scores.auc(df, labels=[0, 1, 2], average="macro")
    ref = scores.auc(df, labels=[0, 1, 2], undefined="nan").sel({"class": [0, 1]})
    assert got.item() == pytest.approx(ref.mean("class").item())
    assert np.isnan(scores.auc(df, labels=[0, 1, 2], undefined="nan", average="macro").item())


def test_string_and_categorical_labels_follow_declared_order():
    df = frame(6, n=300, k=3, classes=3)
    names = np.array(["cat", "dog", "emu"])
    s = df.rename(columns={f"score_{i}": f"score_{n}" for i, n in enumerate(names)})
    s["y_true"] = names[df.y_true]
    plain = scores.auc(s)
    assert list(plain["class"].values) == ["cat", "dog", "emu"]
    cat = s.assign(y_true=pd.Categorical(s.y_true, categories=["emu", "cat", "dog"]))
    got = scores.auc(cat)
    assert list(got["class"].values) == ["emu", "cat", "dog"]
    xr.testing.assert_allclose(got.sel({"class": ["cat", "dog", "emu"]}), plain)
    lab = scores.auc(s, labels=["dog", "cat", "emu"])
    assert list(lab["class"].values) == ["dog", "cat", "emu"]
    # numeric equality with the integer-labelled frame
    np.testing.assert_allclose(plain.values, scores.auc(df).values)


def test_reordered_score_columns_are_matched_by_name():
    df = frame(6, n=300, k=3, classes=3)
    reordered = df[["fold", "y_true", "score_2", "score_0", "score_1"]]
    xr.testing.assert_identical(scores.auc(df), scores.auc(reordered))


def test_binary_string_labels_with_pos_label_and_two_label_ova():
    df = frame(3, n=200, k=3)
    s = df.assign(y_true=np.where(df.y_true == 1, "spam", "ham"))
    got = scores.auc(s, pos_label="spam")
    assert got["class"].values.tolist() == ["spam"]
    assert got.item() == pytest.approx(scores.auc(df).item())
    both = s.assign(score_spam=s.score, score_ham=-s.score).drop(columns="score")
    ova = scores.auc(both, labels=["ham", "spam"])
    assert ova["class"].values.tolist() == ["ham", "spam"]
    np.testing.assert_allclose(ova.values, [got.item(), got.item()])
    # score_<pos_label> serves a binary task too
    assert scores.auc(both, pos_label="spam").item() == pytest.approx(got.item())


def test_repeat_none_and_custom_column_names():
    df = frame(3, n=200, k=3, repeats=2)
    custom = df.rename(columns={"fold": "f", "repeat": "r", "y_true": "t", "score": "p"})
    a = scores.auc(df)
    b = scores.auc(custom, y_true="t", fold="f", repeat="r", score="p")
    xr.testing.assert_equal(a, b)
    assert b.attrs["score_columns"] == "p"
    one = df[df.repeat == 0].drop(columns="repeat")
    assert scores.auc(one).dims == ("class",)


def test_attrs_are_provenance_and_netcdf_safe(tmp_path):
    df = frame(3, n=200, k=3, repeats=2)
    got = scores.precision_at_k(df, 5, average="macro")
    assert got.attrs["metric"] == "precision_at_k"
    assert got.attrs["method"] == "avg" and got.attrs["undefined"] == "skip"
    assert got.attrs["reduced_dims"] == "fold,class" and got.attrs["k"] == 5
    for v in got.attrs.values():
        assert isinstance(v, (str, int, float)) and not isinstance(v, bool)
    ds = scores.auc_methods(df)
    ds.to_netcdf(tmp_path / "auc.nc", engine="netcdf4")
    back = xr.open_dataset(tmp_path / "auc.nc", engine="netcdf4").load()
    xr.testing.assert_identical(back, ds)
    assert back.auc_avg.attrs == ds.auc_avg.attrs


def test_accessor_parity():
    df = frame(2, n=200, k=3, ties=True, repeats=2)
    xr.testing.assert_identical(df.cv.auc("merge"), scores.auc(df, "merge"))
    xr.testing.assert_identical(df.cv.auc_methods(), scores.auc_methods(df))
    xr.testing.assert_identical(
        df.cv.average_precision("fold"), scores.average_precision(df, "fold")
    )
    xr.testing.assert_identical(df.cv.precision_at_k(3), scores.precision_at_k(df, 3))
    xr.testing.assert_identical(
        df.cv.r_precision(average="macro"), scores.r_precision(df, average="macro")
    )
    pd.testing.assert_frame_equal(df.cv.roc(), scores.roc(df))
    pd.testing.assert_frame_equal(df.cv.score_rates(), scores.score_rates(df))
    for name in scores.__all__:
        func = getattr(scores, name)
        if not callable(func) or next(iter(inspect.signature(func).parameters), None) != "df":
            continue  # cube functions (expected_cost) are ds.cv's; iso_cost_slope takes scalars
        if name == "parse":
            continue  # not metrics: the parse that every metric (and df.cv's) reads
        assert hasattr(df.cv, name), name
        # the method's help is the function's, rendered for the accessor (no df parameter)
        method_doc, func_doc = getattr(df.cv, name).__doc__, getattr(scores, name).__doc__
        assert method_doc.splitlines()[0] == func_doc.splitlines()[0]
        assert "df : pandas.DataFrame" in func_doc and "df : pandas.DataFrame" not in method_doc


def test_missing_fold_in_one_repeat_is_not_a_fold():
    df = frame(3, n=300, k=4, repeats=2)
    df = df[~((df.repeat == 1) & (df.fold == 3))]  # repeat 1 ran 3 folds
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        per = scores.auc(df, "fold")
        avg = scores.auc(df)
    assert np.isnan(per.sel({"repeat": 1, "fold": 3}).item())
    g = df[df.repeat == 1]
    assert avg.sel({"repeat": 1}).item() == pytest.approx(
        np.mean([roc_auc_score(h.y_true, h.score) for _, h in g.groupby("fold")])
    )
    gapped = frame(3, n=300, k=4)
    gapped["fold"] = gapped["fold"] * 2  # folds 0, 2, 4, 6
    assert scores.auc(gapped, "fold").fold.values.tolist() == [0, 2, 4, 6]


# ------------------------------------------------------------------------------------------
# Bad input
# ------------------------------------------------------------------------------------------


def _bin():
    return frame(0, n=60, k=3)


@pytest.mark.parametrize(
    "value, match",
    [
        (np.nan, "1 NaN or infinite scores at rows \\[5\\]"),
        (np.inf, "NaN or infinite.*inf"),
        (-np.inf, "NaN or infinite.*-inf"),
    ],
)
def test_nan_and_inf_scores_raise(value, match):
    df = _bin()
    df.loc[5, "score"] = value
    with pytest.raises(ValueError, match=match):
        scores.auc(df)


def test_nullable_score_with_na_raises():
    df = _bin()
    df["score"] = df["score"].astype("Float64")
    df.loc[3, "score"] = pd.NA
    with pytest.raises(ValueError, match="NaN or infinite scores at rows \\[3\\]"):
        scores.auc(df)


def test_missing_columns_raise_naming_the_argument():
    with pytest.raises(ValueError, match="score='score' is not a column.*pass score="):
        scores.auc(_bin().drop(columns="score"))
    with pytest.raises(ValueError, match="fold='fold' is not a column"):
        scores.auc(_bin().drop(columns="fold"))
    with pytest.raises(ValueError, match="y_true='label' is not a column"):
        scores.auc(_bin(), y_true="label")


def test_multiclass_score_columns_must_match_labels():
    df = frame(1, n=100, k=2, classes=3)
    with pytest.raises(ValueError, match=r"score columns \['score_2'\] are missing"):
        scores.auc(df.drop(columns="score_2"))
    with pytest.raises(ValueError, match=r"score columns \['score_7'\] match no class"):
        scores.auc(df.assign(score_7=0.0))
    with pytest.raises(ValueError, match="score_3.*are missing"):
        scores.auc(df, labels=[0, 1, 2, 3])


def test_label_problems_raise():
    df = _bin()
    with pytest.raises(ValueError, match="not \\{0, 1\\}.*pass pos_label="):
        scores.auc(df.assign(y_true=np.where(df.y_true == 1, "a", "b")))
    with pytest.raises(ValueError, match="pos_label=5 is not among the labels"):
        scores.auc(df, pos_label=5)
    mixed = df.assign(y_true=pd.Series([1, "x"] * 30, dtype=object))
    with pytest.raises(CountsError, match="y_true mixes string labels"):
        scores.auc(mixed, pos_label=1)
    missing = df.assign(y_true=df.y_true.astype(float))
    missing.loc[[2, 4], "y_true"] = np.nan
    with pytest.raises(ValueError, match="2 missing values.*rows \\[2, 4\\]"):
        scores.auc(missing)
    three = frame(1, n=100, k=2, classes=3)
    with pytest.raises(ValueError, match=r"y_true has labels \[2\] that are not among labels="):
        scores.auc(three, labels=[0, 1])
    with pytest.raises(ValueError, match="duplicated"):
        scores.auc(three, labels=[0, 1, 1])
    with pytest.raises(TypeError, match="scores must be numbers"):
        scores.auc(df.assign(score=df.score.astype(str)))
    with pytest.raises(ValueError, match="df has no rows"):
        scores.auc(df.iloc[:0])


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"method": "mean"}, "method='mean' is not valid; expected one of \\['avg', 'merge'"),
        ({"undefined": "zero"}, "undefined='zero' is not valid"),
        ({"average": "micro"}, "average='micro' is not valid"),
    ],
)
def test_bad_options_list_valid_ones(kw, match):
    with pytest.raises(ValueError, match=match):
        scores.auc(_bin(), **kw)


@pytest.mark.parametrize("k", [0, -1, 2.5, True, "3"])
def test_bad_k(k):
    with pytest.raises((TypeError, ValueError), match=f"k={k!r} must be"):
        scores.precision_at_k(_bin(), k)


def test_hard_predictions_warn_and_equal_balanced_accuracy():
    from sklearn.metrics import balanced_accuracy_score

    df = _bin()
    hard = df.assign(score=(df.score > 0.5).astype(int))
    with pytest.warns(UserWarning, match="hard predictions.*balanced accuracy"):
        got = scores.auc(hard, "fold")
    for f, g in hard.groupby("fold"):
        assert got.sel({"fold": f}).item() == pytest.approx(
            balanced_accuracy_score(g.y_true, g.score)
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scores.auc(df.assign(score=0.5))  # constant scores are not hard predictions


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=1, max_size=40)
)
def test_packed_keys_preserve_order_ties_and_values(values):
    s = np.asarray(values, dtype=np.float64)
    key, packing, _ = _keys.pack(s, float(s.min()), float(s.max()))
    order = np.argsort(s, kind="stable")
    ks, ss = key[order], s[order]
    assert np.all(ks[1:] >= ks[:-1])
    np.testing.assert_array_equal(ks[1:] == ks[:-1], ss[1:] == ss[:-1])
    assert int(key.max()) == packing.span
    np.testing.assert_array_equal(packing.decode(key), s + 0.0)


def test_dense_rank_fallback_is_used_and_exact():
    rng = np.random.default_rng(0)
    s = np.sign(rng.normal(size=400)) * 10.0 ** rng.uniform(-300, 300, 400)
    y = rng.integers(0, 2, 400)
    ranked = _rank.Ranked(s, float(s.min()), float(s.max()), y == 1, rng.integers(0, 4, 400), 4)
    assert ranked.uniques is not None
    df = pd.DataFrame({"fold": 0, "y_true": y, "score": s})
    assert scores.auc(df).item() == pytest.approx(roc_auc_score(y, s), abs=1e-12)


def test_roc_rows_ordered_by_kind_repeat_fold_class_then_threshold():
    df = frame(4, n=300, k=3, classes=3, repeats=2)
    pts = scores.roc(df)
    key = pts[["repeat", "fold", "class"]].astype("float").fillna(99)
    order = pd.concat([(pts.kind == "merged").astype(int), key], axis=1)
    assert order.apply(tuple, axis=1).is_monotonic_increasing
    for _, part in pts.groupby(["kind", "repeat", "fold", "class"], dropna=False):
        assert part.threshold.is_monotonic_decreasing


# --- frames that stack models, data sets or train/test subsets ------------------------------


def _two_models_with_subsets():
    rng = np.random.default_rng(11)
    n = 200
    base = pd.DataFrame({"fold": np.arange(n) % 4, "y_true": rng.integers(0, 2, n)})
    good = base.assign(model="good", score=base.y_true + rng.normal(0, 0.7, n))
    bad = base.assign(model="bad", score=rng.normal(0, 1, n))
    test = pd.concat([good, bad], ignore_index=True).assign(subset="test")
    train = test.assign(
        subset="train",  # resubstitution: near-perfect ranking
        score=test.y_true + rng.normal(0, 0.05, len(test)),
    )
    return pd.concat([test, train], ignore_index=True)


def test_frame_dims_are_kept_and_never_ranked_together():
    df = _two_models_with_subsets()
    out = df.cv.auc(method="merge")
    assert out.dims == ("model", "subset", "class")
    for (model, subset), part in df.groupby(["model", "subset"]):
        expected = roc_auc_score(part.y_true, part.score)
        got = out.sel(model=model, subset=subset).item()
        assert got == pytest.approx(expected, abs=1e-12)
    pooled_wrongly = roc_auc_score(df.y_true, df.score)
    assert not np.isclose(out.sel(model="good", subset="test").item(), pooled_wrongly)
    both = df.cv.auc_methods()
    assert set(both.dims) == {"model", "subset", "class"}
    curves = df.cv.roc()
    assert list(curves.columns[:2]) == ["model", "subset"]
    assert set(curves.model) == {"good", "bad"}


# ------------------------------------------------------------------------------------------
# One driver: per-fold and merged values from one sort, against scikit-learn
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_multiclass_repeats_fold_and_merged_equal_sklearn(seed):
    df = frame(seed, n=240, k=3, classes=3 + seed % 2, ties=seed % 2 == 0, repeats=2)
    methods = scores.auc_methods(df)
    auc_f = scores.auc(df, "fold")
    ap_f = scores.average_precision(df, "fold")
    ap_m = scores.average_precision(df, "merge")
    for r, g in df.groupby("repeat"):
        for c in sorted(df.y_true.unique()):
            yc, sc = g.y_true == c, g[f"score_{c}"]
            sel = {"repeat": r, "class": c}
            assert methods.auc_merge.sel(sel).item() == pytest.approx(
                roc_auc_score(yc, sc), abs=1e-12
            )
            assert ap_m.sel(sel).item() == pytest.approx(average_precision_score(yc, sc), abs=1e-12)
            per = []
            for f, h in g.groupby("fold"):
                per.append(roc_auc_score(h.y_true == c, h[f"score_{c}"]))
                assert auc_f.sel({**sel, "fold": f}).item() == pytest.approx(per[-1], abs=1e-12)
                assert ap_f.sel({**sel, "fold": f}).item() == pytest.approx(
                    average_precision_score(h.y_true == c, h[f"score_{c}"]), abs=1e-12
                )
            assert methods.auc_avg.sel(sel).item() == pytest.approx(np.mean(per), abs=1e-12)


def test_model_column_with_repeats_equals_sklearn_per_model():
    a = frame(1, n=200, k=3, ties=True, repeats=2).assign(model="a")
    b = frame(2, n=200, k=3, ties=True, repeats=2).assign(model="b")
    df = pd.concat([a, b], ignore_index=True)
    ds = scores.auc_methods(df)
    ap = scores.average_precision(df, "merge")
    assert ds.auc_avg.dims == ("model", "repeat", "class")
    for (m, r), g in df.groupby(["model", "repeat"]):
        sel = {"model": m, "repeat": r, "class": 1}
        assert ds.auc_merge.sel(sel).item() == pytest.approx(
            roc_auc_score(g.y_true, g.score), abs=1e-12
        )
        assert ap.sel(sel).item() == pytest.approx(
            average_precision_score(g.y_true, g.score), abs=1e-12
        )
        per = [roc_auc_score(h.y_true, h.score) for _, h in g.groupby("fold")]
        assert ds.auc_avg.sel(sel).item() == pytest.approx(np.mean(per), abs=1e-12)


def test_auc_methods_is_auc_avg_and_auc_merge():
    df = frame(5, n=300, k=4, classes=3, ties=True, repeats=3)
    ds = scores.auc_methods(df, average="weighted")
    xr.testing.assert_identical(ds.auc_avg.rename("auc"), scores.auc(df, "avg", average="weighted"))
    xr.testing.assert_identical(
        ds.auc_merge.rename("auc"), scores.auc(df, "merge", average="weighted")
    )


@pytest.mark.parametrize(
    "name", ["auc", "average_precision", "break_even_point", "roc_hull", "optimal_operating_point"]
)
def test_dask_frames_give_the_pandas_result(name):
    dd = pytest.importorskip("dask.dataframe")
    df = frame(2, n=240, k=4, ties=True, repeats=2)
    df["model"] = np.where(np.arange(len(df)) % 2, "b", "a")
    want = getattr(scores, name)(df)
    got = getattr(scores, name)(dd.from_pandas(df, npartitions=3))
    if isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got, want)
    else:
        xr.testing.assert_identical(got, want)
