"""Catalogue of bad and unusual inputs to cvframe.compare: one row per case; each asserts the
error type and that the message names the argument (or the design problem)."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import cvframe
from cvframe.comparison import compare


@functools.cache
def _cube(repeats=2, folds=5, n=60):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    fold = np.tile(np.arange(n) % folds, repeats)
    rep = np.repeat(np.arange(repeats), n)
    yy = np.tile(y, repeats)
    cubes = [
        cvframe.from_predictions(yy, np.where(rng.random(yy.size) < a, yy, 1 - yy), fold, rep)
        for a in (0.7, 0.8)
    ]
    return xr.concat(cubes, dim=pd.Index(["a", "b"], name="model"))


def _unpaired_cube():
    ds = _cube()
    other = ds.sel(model="b").copy(deep=True)
    # move one sample from fold 0 to fold 1 of repeat 0: fold sizes differ from model "a"
    other["tn"][0, 0, 0] -= 1
    other["tn"][0, 1, 0] += 1
    return xr.concat([ds.sel(model="a"), other], dim="model")


@functools.cache
def _frame(repeats=1):
    rng = np.random.default_rng(1)
    n = 50
    y = rng.integers(0, 2, n)
    parts = []
    for r in range(repeats):
        fold = rng.permutation(np.arange(n) % 5)
        for m in ("a", "b"):
            parts.append(
                pd.DataFrame(
                    {
                        "model": m,
                        "repeat": r,
                        "fold": fold,
                        "sample": np.arange(n),
                        "y_true": y,
                        "y_pred": np.where(rng.random(n) < 0.8, y, 1 - y),
                        "score": rng.random(n),
                    }
                )
            )
    return pd.concat(parts, ignore_index=True)


def _unpaired_frame():
    df = _frame().copy()
    b = df["model"] == "b"
    df.loc[b, "fold"] = np.arange(int(b.sum())) % 4  # model b ran 4 folds, model a 5
    return df


def _one_dataset():
    return _cube().expand_dims(dataset=["d0"])


ERRORS = [
    # (id, call, error type, message must contain)
    (
        "baseline not a model",
        lambda: compare(_cube(), "f", baseline="zz"),
        ValueError,
        "baseline='zz'",
    ),
    ("unknown metric", lambda: compare(_cube(), "f_mean"), ValueError, "metric='f_mean'"),
    ("unknown test", lambda: compare(_cube(), "f", test="wilcoxon"), ValueError, "test='wilcoxon'"),
    ("dim not in cube", lambda: compare(_cube(), "f", dim="param"), ValueError, "dim='param'"),
    ("dim not in frame", lambda: compare(_frame(), dim="param"), ValueError, "dim='param'"),
    ("alpha out of range", lambda: compare(_cube(), "f", alpha=1.5), ValueError, "alpha=1.5"),
    ("too few resamples", lambda: compare(_frame(), n_resamples=10), ValueError, "n_resamples=10"),
    (
        "negative rope",
        lambda: compare(_cube(), "f", test="bayesian", rope=-1),
        ValueError,
        "rope=-1",
    ),
    ("data not a cube or frame", lambda: compare([1, 2]), TypeError, "data must be"),
    ("one model only", lambda: compare(_cube().isel(model=[0]), "f"), ValueError, "at least two"),
    (
        "AUC_merge on a cube",
        lambda: compare(_cube(), "auc_merge"),
        ValueError,
        "pass the predictions frame",
    ),
    (
        "a pooled test of a cube without a model dim",
        lambda: compare(_cube().isel(model=0, drop=True), "f_tp_fp"),
        ValueError,
        "dim='model' is not a dimension of the cube",
    ),
    (
        "unpaired cube, pooled test",
        lambda: compare(_unpaired_cube(), "f_tp_fp"),
        ValueError,
        "unpaired design",
    ),
    ("unpaired cube", lambda: compare(_unpaired_cube(), "f"), ValueError, "unpaired design"),
    (
        "unpaired frame folds",
        lambda: compare(_unpaired_frame(), test="permutation"),
        ValueError,
        "unpaired design",
    ),
    ("5x2cv on 2x5", lambda: compare(_cube(), "f", test="5x2cv_t"), ValueError, "test='5x2cv_t'"),
    ("5x2cv_f on 2x5", lambda: compare(_cube(), "f", test="5x2cv_f"), ValueError, "test='5x2cv_f'"),
    (
        "corrected_t on one fold",
        lambda: compare(_cube(repeats=1, folds=1), "f", test="corrected_t"),
        ValueError,
        "at least two folds",
    ),
    (
        "mcnemar on several repeats",
        lambda: compare(_frame(2), "accuracy_pooled", test="mcnemar"),
        ValueError,
        "test='mcnemar'",
    ),
    (
        "mcnemar on F",
        lambda: compare(_frame(), "f_tp_fp", test="mcnemar"),
        ValueError,
        "test='mcnemar'",
    ),
    (
        "bootstrap on a cube",
        lambda: compare(_cube(), "f_tp_fp", test="bootstrap"),
        ValueError,
        "predictions frame",
    ),
    (
        "bootstrap of a per-fold metric",
        lambda: compare(_frame(), "f", test="bootstrap"),
        ValueError,
        "metric='f' is per-fold",
    ),
    (
        "friedman without dataset",
        lambda: compare(_cube(), "f", test="friedman"),
        ValueError,
        "'dataset' dim",
    ),
    (
        "friedman on one dataset",
        lambda: compare(_one_dataset(), "f", test="friedman"),
        ValueError,
        "at least two data sets",
    ),
    (
        "missing sample ids",
        lambda: compare(_frame().assign(sample=np.nan)),
        ValueError,
        "sample column 'sample' has 100 missing",
    ),
    (
        "missing model names",
        lambda: compare(_frame().assign(model=lambda d: d.model.where(d.index != 3))),
        ValueError,
        "dim column 'model' has 1 missing values",
    ),
    (
        "pos_label not a label",
        lambda: compare(_frame(), pos_label="x"),
        ValueError,
        "pos_label='x'",
    ),
]


@pytest.mark.parametrize("call, error, match", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_bad_input_is_an_error_naming_the_argument(call, error, match):
    with pytest.raises(error, match=match.replace("(", r"\(").replace("[", r"\[")):
        call()


def test_a_frame_without_sample_ids_pairs_rows_of_one_run_by_position():
    df = _frame().drop(columns="sample")
    res = compare(df, "accuracy_pooled", baseline="a")
    assert res.attrs["test"] == "mcnemar"


def test_several_repeats_without_sample_ids_are_refused():
    with pytest.raises(ValueError, match="sample='sample'"):
        compare(_frame(2).drop(columns="sample"), test="bootstrap")


def test_a_multiclass_frame_compares_the_class_average_or_one_class():
    from sklearn.metrics import f1_score

    df = _frame().copy()
    df["y_true"] = df["y_true"] + (df["sample"] % 7 == 0) * 2  # a third class
    res = compare(df, test="bootstrap", n_resamples=100, random_state=0)
    assert res.attrs["average"] == "macro" and "4 classes" in res.attrs["classes"]
    f = {m: f1_score(p.y_true, p.y_pred, average="macro") for m, p in df.groupby("model")}
    assert res["mean"].item() == pytest.approx(f["b"] - f["a"])
    with pytest.raises(ValueError, match="average=None"):
        compare(df, test="bootstrap", average=None)
    res = compare(df, test="bootstrap", pos_label=1, n_resamples=100, random_state=0)
    assert res.attrs["pos_label"] == 1


def test_nemenyi_over_identical_models_finds_nothing():
    ds = _cube()
    same = xr.concat([ds.sel(model="a")] * 3, dim=pd.Index(["x", "y", "z"], name="model"))
    both = xr.concat([same, same], dim=pd.Index(["d0", "d1"], name="dataset"))
    res = compare(both, "f", test="friedman")
    assert float(res["friedman_p_value"].max()) == 1.0 or bool(
        res["friedman_p_value"].isnull().all()
    )
    assert not bool(res["significant"].any())
