"""The one reader of a predictions frame: positive class, score column, test rows, columns."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import brier_score_loss, roc_auc_score

import cvframe
from cvframe import scores
from cvframe._core import checks as _checks
from cvframe._core import labels as _labels
from cvframe._core.labels import frame
from cvframe.errors import ColumnError


def _ab(n: int = 200, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """A frame whose ``score`` is P(A) (attrs say so), one fold."""
    rng = np.random.default_rng(seed)
    y = rng.choice(np.array(["A", "B"], dtype=object), n)
    p = np.clip(rng.random(n) * 0.6 + (y == "A") * 0.3, 0.0, 1.0)
    df = pd.DataFrame({"fold": np.arange(n) % 4, "y_true": y, "score": p})
    df.attrs = {"task": "binary", "pos_label": "A"}
    return df, y, p


# --- which class a score column belongs to ----------------------------------------------------


def test_pos_label_b_scores_the_complement_of_a_probability_of_a():
    df, y, p = _ab()
    got = scores.auc(df, "merge", pos_label="B").item()
    assert got == pytest.approx(roc_auc_score(y == "B", 1 - p), abs=1e-12)
    # Brier is not symmetric: 1 - P(A) is P(B), exactly as scikit-learn scores it
    brier = scores.brier(df, "merge", pos_label="B").item()
    assert brier == pytest.approx(brier_score_loss(y == "B", 1 - p), abs=1e-12)
    assert brier != pytest.approx(brier_score_loss(y == "B", p), abs=1e-6)


def test_pos_label_b_uses_its_own_column_when_present():
    df, y, p = _ab()
    q = np.random.default_rng(3).random(len(df))
    df["score_B"] = q
    assert scores.auc(df, "merge", pos_label="B").item() == pytest.approx(
        roc_auc_score(y == "B", q), abs=1e-12
    )
    sc = frame.score_column(df, "score", "B", ["A", "B"])
    assert sc == frame.ScoreColumn("score_B", "B", False)


def test_pos_label_b_on_a_decision_function_of_a_is_refused():
    df, _, p = _ab()
    df["score"] = 4 * p - 2  # not a probability
    with pytest.raises(ValueError, match=r"pos_label='B'.*class 'A'.*attrs\['pos_label'\]='A'"):
        scores.auc(df, "merge", pos_label="B")


def test_attrs_pos_label_applies_without_pos_label():
    df, y, p = _ab()
    assert scores.auc(df, "merge").item() == pytest.approx(roc_auc_score(y == "A", p), abs=1e-12)
    assert frame.frame_pos_label(df, None, None, ["A", "B"]) == "A"
    assert frame.frame_pos_label(df, None, ["A", "B"], ["A", "B"]) is None  # labels= given


def test_plain_score_without_attrs_belongs_to_the_pos_label_asked_for():
    # scikit-learn's convention: roc_curve(y, score, pos_label=0) reads score as class 0's
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 100)
    p = np.clip(rng.random(100) * 0.5 + 0.4 * y, 0, 1)
    df = pd.DataFrame({"fold": 0, "y_true": y, "score": p})
    assert not frame.score_column(df, "score", 0, [0, 1]).complement
    assert scores.brier(df, "merge", pos_label=0).item() == pytest.approx(
        brier_score_loss(y == 0, p), abs=1e-12
    )
    df.attrs = {"task": "binary", "pos_label": 1}  # recorded as class 1's: 1 - p for class 0
    assert scores.brier(df, "merge", pos_label=0).item() == pytest.approx(
        brier_score_loss(y == 0, 1 - p), abs=1e-12
    )


def test_string_classes_without_attrs_score_the_given_pos_label():
    df, y, p = _ab()
    df.attrs = {}
    assert frame.score_column(df, "score", "B", ["A", "B"]) == ("score", "B", False)
    assert scores.auc(df, "merge", pos_label="B").item() == pytest.approx(
        roc_auc_score(y == "B", p), abs=1e-12
    )


def test_bool_attrs_come_back_as_bool():
    y = np.array([True, False, True, False, True, False])
    df = pd.DataFrame({"fold": 0, "y_true": y, "score": [0.9, 0.2, 0.6, 0.4, 0.3, 0.1]})
    _labels.write_pos_label(df, False)
    assert df.attrs == {"task": "binary", "pos_label": False}
    assert frame.frame_pos_label(df, None, None, [False, True]) is False
    # the attrs say the score column holds P(False)
    auc = scores.auc(df, "merge").item()
    assert auc == pytest.approx(roc_auc_score(~y, df.score), abs=1e-12)
    assert scores.auc(df, "merge", pos_label=True).item() == pytest.approx(
        roc_auc_score(y, 1 - df.score), abs=1e-12
    )


def test_attrs_pos_label_that_is_not_a_class_is_a_clear_error():
    df, _, _ = _ab()
    df.attrs["pos_label"] = "C"
    with pytest.raises(ValueError, match=r"attrs\['pos_label'\]='C' is not among the labels"):
        scores.auc(df, "merge")
    with pytest.raises(ValueError, match=r"attrs\['pos_label'\]='C' is not among the labels"):
        df.assign(y_pred=df.y_true).cv.counts()


def test_attrs_pos_label_on_three_classes_is_a_clear_error():
    df = pd.DataFrame({"fold": 0, "y_true": ["a", "b", "c"], "y_pred": ["a", "b", "c"]})
    df.attrs = {"pos_label": "a"}
    with pytest.raises(ValueError, match=r"attrs\['pos_label'\]='a' names a positive class"):
        df.cv.counts()


def test_counts_and_scores_read_attrs_by_one_rule():
    # task absent: attrs["pos_label"] still applies, for counts and scores alike
    df, _, _ = _ab()
    df.attrs = {"pos_label": "B"}
    df["y_pred"] = np.where(df.score > 0.5, "A", "B")
    assert df.cv.counts().attrs["pos_label"] == "B"
    assert frame.frame_pos_label(df, None, None, ["A", "B"]) == "B"
    # a multiclass task: attrs["pos_label"] does not apply
    assert _labels.attrs_pos({"task": "multiclass", "pos_label": "B"}) is None


# --- test rows ------------------------------------------------------------------------------


def test_test_rows_drops_training_rows_and_keeps_attrs():
    df = pd.DataFrame({"fold": [0, 0, 1], "subset": ["test", "train", "test"], "y": [1, 2, 3]})
    df.attrs = {"task": "binary", "pos_label": 1}
    out = frame.test_rows(df)
    assert out.y.tolist() == [1, 3] and "subset" not in out.columns
    assert out.attrs == df.attrs
    plain = df.drop(columns="subset")
    assert frame.test_rows(plain) is plain


def test_test_rows_refuses_other_subsets():
    df = pd.DataFrame({"fold": [0, 0], "subset": ["test", "valid"]})
    with pytest.raises(ValueError, match=r"subset column has values \['valid'\]"):
        frame.test_rows(df)


# --- one missing-column error ------------------------------------------------------------------


def test_missing_column_names_argument_column_and_fix():
    df = pd.DataFrame({"fold": [0], "label": [1]})
    with pytest.raises(
        ColumnError, match=r"y_true='y_true' is not a column.*'label'.*pass y_true="
    ):
        _checks.column(df, "y_true", "y_true")
    with pytest.raises(KeyError):
        _checks.column(df, "y_true", "y_true")
    with pytest.raises(ColumnError, match=r"y_pred='y_pred' is not a column"):
        df.assign(y_true=1).cv.counts()
    dup = pd.DataFrame([[0, 1, 1]], columns=["fold", "y_true", "y_true"])
    with pytest.raises(ValueError, match=r"names 2 columns"):
        _checks.column(dup, "y_true", "y_true")


def test_is_dask_frame():
    assert not frame.is_dask_frame(pd.DataFrame())
    dd = pytest.importorskip("dask.dataframe")
    assert frame.is_dask_frame(dd.from_pandas(pd.DataFrame({"a": [1]}), npartitions=1))


def test_counts_and_auc_agree_on_the_positive_class():
    df, y, p = _ab()
    df["y_pred"] = np.where(p > 0.5, "A", "B")
    ds = cvframe.build.counts_from_frame(df, pos_label="B")
    assert ds["class"].values.tolist() == ["B"]
    assert int(ds.tp.sum()) == int(((y == "B") & (p <= 0.5)).sum())


# --- unusual inputs ---------------------------------------------------------------------------


def test_attrs_label_written_as_a_number_matches_string_classes():
    df, y, p = _ab()
    df["y_true"] = np.where(y == "A", "1", "0")
    df.attrs = {"task": "binary", "pos_label": 1}  # e.g. a frame read back from CSV
    assert frame.frame_pos_label(df, None, None, ["0", "1"]) == "1"
    assert scores.auc(df, "merge").item() == pytest.approx(roc_auc_score(y == "A", p), abs=1e-12)


def test_explicit_repeat_column_must_exist():
    df, _, _ = _ab()
    assert not frame.has_repeat(df, "repeat") and not frame.has_repeat(df, None)
    with pytest.raises(KeyError, match=r"repeat='rep' is not a column"):
        scores.auc(df, "fold", repeat="rep")


def test_multiclass_frame_reads_its_classes_from_attrs():
    rng = np.random.default_rng(2)
    df = pd.DataFrame(
        {"fold": 0, "y_true": ["a", "b", "a", "b"], **{f"score_{c}": rng.random(4) for c in "abc"}}
    )
    df.attrs = {"task": "multiclass", "labels": ["a", "b", "c"]}
    auc = scores.auc(df, "merge", undefined="nan")
    assert auc["class"].values.tolist() == ["a", "b", "c"]
    assert np.isnan(auc.sel({"class": "c"}).item())  # no sample of class c: undefined


def test_scalar_checks_read_0d_arrays_and_refuse_arrays_by_shape():
    xr = pytest.importorskip("xarray")
    assert _checks.real("p", xr.DataArray(0.5), 0, 1) == 0.5
    assert _checks.integer("k", np.array(3), 1) == 3
    assert _checks.flag("f", xr.DataArray(True)) is True
    with pytest.raises(ValueError, match=r"p=1.5 must be in \[0, 1\]"):
        _checks.real("p", xr.DataArray(1.5), 0, 1)
    with pytest.raises(TypeError, match=r"p=<DataArray of shape \(2,\)> must be a real number"):
        _checks.real("p", xr.DataArray([0.5, 0.6]), 0, 1)


def test_is_dask_frame_is_not_true_for_dask_arrays():
    da = pytest.importorskip("dask.array")
    dd = pytest.importorskip("dask.dataframe")
    assert not frame.is_dask_frame(da.zeros(3))
    assert frame.is_dask_frame(dd.from_pandas(pd.Series([1, 2]), npartitions=1))
