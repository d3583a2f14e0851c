"""Catalogue of unusual inputs to the score metrics: one row per case.

Each error row asserts the error type and that the message names the argument or column;
each value row asserts the exact number against scikit-learn (or the same data written the
ordinary way); each warning row asserts one warning and, where a policy is explicit, silence.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import average_precision_score, balanced_accuracy_score, roc_auc_score

import cvframe  # noqa: F401  (registers df.cv)
from cvframe import UndefinedMetricWarning, scores
from cvframe.errors import CountsError


def binary(seed=0, n=90, k=3):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(np.int64)
    y[:k] = 1
    y[k : 2 * k] = 0
    return pd.DataFrame(
        {"fold": np.arange(n) % k, "y_true": y, "score": np.round(y + rng.normal(0, 1, n), 1)}
    )


def multi(seed=0, n=120, k=3, classes=3):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % classes
    rng.shuffle(y)
    df = pd.DataFrame({"fold": np.arange(n) % k, "y_true": y})
    for c in range(classes):
        df[f"score_{c}"] = np.round((y == c) + rng.normal(0, 1, n), 1)
    return df


def per_fold_sklearn(df, y, s, metric=roc_auc_score):
    return np.array([metric(g[y], g[s]) for _, g in df.groupby("fold")])


# ------------------------------------------------------------------------------------------
# Errors: (frame builder, kwargs, error type, message pattern)
# ------------------------------------------------------------------------------------------


def _dup_score():
    df = binary()
    return pd.concat([df, df[["score"]]], axis=1)


def _dup_class_score():
    df = multi()
    return pd.concat([df, df[["score_1"]]], axis=1)


def _multiindex():
    df = binary()
    df.columns = pd.MultiIndex.from_tuples([("a", c) for c in df.columns])
    return df


def _nan_multiclass():
    df = multi()
    df.loc[[4, 9], "score_1"] = np.nan
    return df


def _strings():
    df = binary()
    return df.assign(y_true=np.where(df.y_true == 1, "spam", "ham"))


def _attrs_unknown():
    df = _strings()
    df.attrs = {"task": "binary", "pos_label": "eggs"}
    return df


def _unused_category_class():
    df = multi()
    return df.assign(y_true=pd.Categorical(df.y_true, categories=[0, 1, 2, 3]))


def _missing_fold():
    df = binary().astype({"fold": float})
    df.loc[7, "fold"] = np.nan
    return df


ERRORS = {
    "not a frame": (lambda: binary().to_numpy(), {}, TypeError, "df must be a pandas"),
    "no rows": (lambda: binary().iloc[:0], {}, ValueError, "df has no rows"),
    "MultiIndex columns": (_multiindex, {}, ValueError, "df has MultiIndex columns"),
    "duplicated score": (_dup_score, {}, ValueError, "score='score' names 2 columns"),
    "duplicated score_<label>": (
        _dup_class_score,
        {},
        ValueError,
        "score='score_1' names 2 columns",
    ),
    "duplicated y_true": (
        lambda: pd.concat([binary(), binary()[["y_true"]]], axis=1),
        {},
        ValueError,
        "y_true='y_true' names 2 columns",
    ),
    "missing score": (
        lambda: binary().drop(columns="score"),
        {},
        ValueError,
        "score='score' is not a column",
    ),
    "missing fold column": (
        lambda: binary().drop(columns="fold"),
        {},
        ValueError,
        "fold='fold' is not a column",
    ),
    "missing class column": (
        lambda: multi().drop(columns="score_2"),
        {},
        ValueError,
        r"score columns \['score_2'\] are missing",
    ),
    "extra class column": (
        lambda: multi().assign(score_9=0.0),
        {},
        ValueError,
        r"score columns \['score_9'\] match no class",
    ),
    "unused category needs its column": (
        _unused_category_class,
        {},
        ValueError,
        r"score columns \['score_3'\] are missing",
    ),
    "NaN score": (
        lambda: binary().assign(score=lambda d: d.score.where(d.index != 5)),
        {},
        ValueError,
        r"score column 'score' has 1 NaN or infinite scores at rows \[5\]",
    ),
    "inf score": (
        lambda: binary().assign(score=lambda d: d.score.where(d.index != 3, np.inf)),
        {},
        ValueError,
        "score column 'score' has 1 NaN or infinite",
    ),
    "NaN in a class column": (
        _nan_multiclass,
        {},
        ValueError,
        r"score column 'score_1' has 2 NaN or infinite scores at rows "
        r"\[4, 9\]",
    ),
    "string scores": (
        lambda: binary().assign(score=lambda d: d.score.astype(str)),
        {},
        TypeError,
        "score column 'score' has dtype",
    ),
    "pos_label not a class": (
        binary,
        {"pos_label": 5},
        ValueError,
        "pos_label=5 is not among the labels",
    ),
    "string pair without pos_label": (_strings, {}, ValueError, "pass pos_label="),
    "attrs pos_label not a class": (
        _attrs_unknown,
        {},
        ValueError,
        r"attrs\['pos_label'\]='eggs' is not among",
    ),
    "labels=3": (multi, {"labels": 3}, TypeError, "labels=3 must be a list"),
    "labels duplicated": (
        multi,
        {"labels": [0, 1, 1]},
        ValueError,
        "labels has duplicated entries",
    ),
    "label outside labels": (
        multi,
        {"labels": [0, 1]},
        CountsError,
        r"y_true has labels \[2\] that are not among labels=",
    ),
    "mixed str and int labels": (
        lambda: binary().assign(y_true=pd.Series([1, "x"] * 45, dtype=object)),
        {"pos_label": 1},
        CountsError,
        "y_true mixes string labels",
    ),
    "missing label": (
        lambda: binary().assign(y_true=lambda d: d.y_true.astype(float).where(d.index != 2)),
        {},
        ValueError,
        r"y_true column 'y_true' has 1 missing values .* rows \[2\]",
    ),
    "missing fold id": (_missing_fold, {}, ValueError, "fold column 'fold' has 1 missing"),
    "bad method": (binary, {"method": "mean"}, ValueError, "method='mean' is not valid"),
    "bad undefined": (binary, {"undefined": "zero"}, ValueError, "undefined='zero' is not valid"),
    "bad average": (binary, {"average": "micro"}, ValueError, "average='micro' is not valid"),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_error(case):
    make, kw, exc, match = ERRORS[case]
    with pytest.raises(exc, match=match):
        scores.auc(make(), **kw)


@pytest.mark.parametrize(
    "k, exc",
    [(0, ValueError), (-2, ValueError), (True, TypeError), (2.5, TypeError), ("3", TypeError)],
)
def test_bad_k_names_k(k, exc):
    with pytest.raises(exc, match=f"k={k!r} must"):
        scores.precision_at_k(binary(), k)


@pytest.mark.parametrize(
    "fn",
    [
        scores.roc,
        scores.score_rates,
        scores.auc_methods,
        scores.average_precision,
        scores.r_precision,
    ],
)
def test_every_entry_point_rejects_duplicated_score(fn):
    with pytest.raises(ValueError, match="score='score' names 2 columns"):
        fn(_dup_score())


# ------------------------------------------------------------------------------------------
# Labels: the same rule as counts()
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fn, metric", [(scores.auc, roc_auc_score), (scores.average_precision, average_precision_score)]
)
def test_float_labels_are_binary_with_positive_one(fn, metric):
    df = binary()
    got = fn(df.assign(y_true=df.y_true.astype(float)), method="fold")
    assert got["class"].values.tolist() == [1.0]
    np.testing.assert_allclose(
        got.values.ravel(), per_fold_sklearn(df, "y_true", "score", metric), rtol=0, atol=1e-12
    )
    assert (
        scores.precision_at_k(df.assign(y_true=df.y_true.astype(float)), 5).item()
        == scores.precision_at_k(df, 5).item()
    )


def test_float_labels_auc_methods_match_counts_default():
    df = binary()
    f = df.assign(y_true=df.y_true.astype(float), y_pred=(df.score > 0.5).astype(float))
    ds = scores.auc_methods(f)
    assert ds["class"].values.tolist() == f.cv.counts()["class"].values.tolist() == [1.0]
    assert ds.auc_merge.item() == pytest.approx(roc_auc_score(df.y_true, df.score), abs=1e-12)


def test_string_labels_use_the_frames_pos_label_like_counts():
    df = _strings()
    df.attrs = {"task": "binary", "pos_label": "spam"}
    ds = df.cv.auc_methods()
    assert ds["class"].values.tolist() == ["spam"]
    assert ds.auc_avg.item() == pytest.approx(
        per_fold_sklearn(binary(), "y_true", "score").mean(), abs=1e-12
    )
    assert ds.auc_merge.item() == pytest.approx(
        roc_auc_score(binary().y_true, binary().score), abs=1e-12
    )
    # pos_label="ham" in attrs: the other class is positive, exactly 1 - AUC
    df.attrs["pos_label"] = "ham"
    assert scores.auc(df, "merge").item() == pytest.approx(
        1 - roc_auc_score(binary().y_true, binary().score), abs=1e-12
    )
    # an explicit pos_label picks the class, the attrs still say whose column "score" is:
    # decision values of "ham" are never read as the scores of "spam"
    with pytest.raises(ValueError, match="holds the scores of class 'ham'"):
        scores.auc(df, "merge", pos_label="spam")


def test_bool_pos_label_in_attrs_comes_back_as_bool():
    df = binary().assign(y_true=lambda d: d.y_true.astype(bool))
    df.attrs = {"task": "binary", "pos_label": "True"}
    got = scores.auc(df)
    assert got["class"].item() is True


def test_cross_validate_frame_with_string_targets():
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression

    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[:150, :5], np.where(y[:150] == 1, "benign", "malignant")
    pred = cvframe.cross_validate(LogisticRegression(max_iter=500), X, y, cv=3)
    pos = pred.attrs["pos_label"]
    ds = pred.cv.auc_methods()
    assert ds["class"].values.tolist() == [pos]
    yt = (pred.y_true == pos).to_numpy()
    assert ds.auc_merge.item() == pytest.approx(roc_auc_score(yt, pred.score), abs=1e-12)
    per = [roc_auc_score(yt[g.index], g.score) for _, g in pred.groupby("fold")]
    assert ds.auc_avg.item() == pytest.approx(np.mean(per), abs=1e-12)


def test_categorical_classes_keep_category_order_and_realign_columns_by_name():
    df = multi()
    names = np.array(["cat", "dog", "emu"])
    s = df.rename(columns={f"score_{i}": f"score_{n}" for i, n in enumerate(names)})
    s["y_true"] = pd.Categorical(names[df.y_true], categories=["emu", "cat", "dog"])
    s = s[["fold", "y_true", "score_dog", "score_emu", "score_cat"]]  # columns shuffled
    got = scores.auc(s, "merge")
    assert got["class"].values.tolist() == ["emu", "cat", "dog"]
    for name in ["emu", "cat", "dog"]:
        assert got.sel({"class": name}).item() == pytest.approx(
            roc_auc_score(s.y_true == name, s[f"score_{name}"]), abs=1e-12
        )


def test_pos_label_of_a_multiclass_frame_scores_that_class_against_the_rest():
    df = multi().assign(score=lambda d: d.score_2)
    got = scores.auc(df.drop(columns=["score_0", "score_1", "score_2"]), "merge", pos_label=2)
    assert got["class"].values.tolist() == [2]
    assert got.item() == pytest.approx(roc_auc_score(df.y_true == 2, df.score), abs=1e-12)


# ------------------------------------------------------------------------------------------
# Folds
# ------------------------------------------------------------------------------------------


def test_unused_fold_category_is_not_a_fold():
    df = binary()
    cat = df.assign(fold=pd.Categorical(df.fold, categories=[0, 1, 2, 7]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        per = scores.auc(cat, "fold")
        avg = scores.auc(cat)
    assert per.fold.values.tolist() == [0, 1, 2]
    assert avg.item() == pytest.approx(per_fold_sklearn(df, "y_true", "score").mean(), abs=1e-12)


@pytest.mark.parametrize(
    "ids",
    [
        np.array([2**63 + 5, 2**64 - 1, 2**63], dtype=np.uint64),
        np.array(["a", "b", "c"], dtype=object),
        np.array([-(10**15), 0, 10**15]),
    ],
)
def test_fold_ids_of_any_kind(ids):
    df = binary()
    got = scores.auc(df.assign(fold=ids[df.fold]), "fold")
    np.testing.assert_array_equal(np.sort(ids), got.fold.values)
    order = np.argsort(ids)
    np.testing.assert_allclose(
        got.values.ravel(), per_fold_sklearn(df, "y_true", "score")[order], atol=1e-12
    )


def test_repeat_with_fewer_folds_pads_nothing():
    df = binary(n=120, k=4)
    two = pd.concat([df.assign(repeat=0), df[df.fold < 3].assign(repeat=1)], ignore_index=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        avg = scores.auc(two)
    ref = per_fold_sklearn(df, "y_true", "score")
    np.testing.assert_allclose(avg.values.ravel(), [ref.mean(), ref[:3].mean()], atol=1e-12)


def test_one_class_fold_is_undefined_never_zero_or_half():
    df = binary()
    df.loc[df.fold == 1, "y_true"] = 1
    with pytest.warns(UndefinedMetricWarning, match=r"1 of 3 cells.*fold=\[1\]") as rec:
        avg = scores.auc(df)
    assert len(rec) == 1
    ok = df[df.fold != 1]
    assert avg.item() == pytest.approx(per_fold_sklearn(ok, "y_true", "score").mean(), abs=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        per = scores.auc(df, "fold", undefined="nan")
    assert np.isnan(per.sel(fold=1).item())


def test_auc_methods_warns_once_for_both_variables():
    df = binary()
    df["y_true"] = 0
    df.loc[df.fold == 0, "y_true"] = np.arange((df.fold == 0).sum()) % 2
    with pytest.warns(UndefinedMetricWarning) as rec:
        ds = scores.auc_methods(df)
    assert len(rec) == 1
    assert "2 of 3 fold cells" in str(rec[0].message)
    g = df[df.fold == 0]
    assert ds.auc_avg.item() == pytest.approx(roc_auc_score(g.y_true, g.score), abs=1e-12)
    assert ds.auc_merge.item() == pytest.approx(roc_auc_score(df.y_true, df.score), abs=1e-12)


# ------------------------------------------------------------------------------------------
# Hard predictions
# ------------------------------------------------------------------------------------------


def test_hard_predictions_work_with_one_warning():
    df = binary()
    hard = df.assign(score=(df.score > 0.5).astype(float))
    with pytest.warns(UserWarning, match="hard predictions") as rec:
        got = scores.auc(hard, "fold")
    assert len(rec) == 1
    np.testing.assert_allclose(
        got.values.ravel(),
        [balanced_accuracy_score(g.y_true, g.score) for _, g in hard.groupby("fold")],
    )


def test_hard_multiclass_columns_give_one_warning_listing_them():
    df = multi()
    for c in range(3):
        df[f"score_{c}"] = (df.y_true == c).astype(int)
    with pytest.warns(UserWarning, match=r"\['score_0', 'score_1', 'score_2'\]") as rec:
        got = scores.auc(df, "merge")
    assert len([w for w in rec if "hard" in str(w.message)]) == 1
    np.testing.assert_allclose(got.values, 1.0)
