"""One column cannot be two dims: every reader of a predictions frame (the frame reader of
the score metrics and intervals, the cube builder of counts and tests) refuses a column
named for two dims, or for a dim and the labels, scores or weights, naming both arguments."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import cvframe
from cvframe import scores

N = 120


def _frame(models: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    y = np.arange(N) % 2
    pred = np.where(rng.random(N) < 0.8, y, 1 - y)
    df = pd.DataFrame(
        {
            "y_true": y,
            "y_pred": pred,
            "fold": np.arange(N) % 5,
            "rep": np.arange(N) // 40,
            "score": np.clip(0.4 * y + 0.6 * rng.random(N), 0, 1),
        }
    )
    return df.assign(model=np.arange(N) % 2) if models else df


TWO_DIMS = r"repeat='fold' names the column 'fold', which fold='fold' already reads as the test "
TWO_DIMS += r"fold of every row; one column cannot be two dims\. Pass repeat= with the column"

CASES = {
    "interval of F (the issue)": (lambda df: cvframe.interval(df, "f", repeat="fold"), TWO_DIMS),
    "interval of AUC": (lambda df: cvframe.interval(df, "auc", repeat="fold"), TWO_DIMS),
    "counts": (lambda df: df.cv.counts(repeat="fold"), TWO_DIMS),
    "auc": (lambda df: scores.auc(df, repeat="fold"), TWO_DIMS),
    "parse": (lambda df: scores.parse(df, repeat="fold"), TWO_DIMS),
    "compare": (
        lambda df: cvframe.compare(df.assign(model=np.arange(N) % 2), "f_avg", repeat="fold"),
        TWO_DIMS,
    ),
    "y_true is the fold": (
        lambda df: df.cv.counts(y_true="fold"),
        r"y_true='fold' names the column 'fold', which fold='fold' already reads as the test "
        r"fold of every row; one column cannot be both a dim and the true labels",
    ),
    "scores are the fold": (
        lambda df: scores.auc(df, score="fold"),
        r"score='fold' .* cannot be both a dim and the scores",
    ),
    "weights are the fold": (
        lambda df: df.cv.counts(sample_weight="fold"),
        r"sample_weight='fold' .* cannot be both a dim and the sample weights",
    ),
    "repeat and dims": (
        lambda df: df.cv.counts(dims=["rep"], repeat="rep"),
        r"repeat='rep' names the column 'rep', which dims='rep' already reads as a further dim",
    ),
    "fold is the model column": (
        lambda df: df.assign(model=np.arange(N) % 2).cv.counts(fold="model"),
        r"fold='model' names the column 'model', which is the cube's 'model' dim",
    ),
    "fold is the model column, scored": (
        lambda df: scores.auc(df.assign(model=np.arange(N) % 2), fold="model"),
        r"fold='model' names a column that is a dim of every result",
    ),
    "from_predictions, one array twice": (
        lambda df: cvframe.from_predictions(df.y_true, df.y_pred, df["fold"], repeat=df["fold"]),
        r"repeat and fold are the same array; one column cannot be two dims",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_column_read_as_two_dims_is_refused(case):
    call, match = CASES[case]
    with pytest.raises(ValueError, match=match):
        call(_frame())


def test_a_dask_frame_is_refused_before_anything_is_computed():
    dd = pytest.importorskip("dask.dataframe")
    lazy = dd.from_pandas(_frame(), npartitions=2)
    with pytest.raises(ValueError, match=TWO_DIMS):
        cvframe.build.counts_from_frame(lazy, repeat="fold")


def test_distinct_columns_and_the_repeat_column_named_in_dims_are_accepted():
    df = _frame().rename(columns={"rep": "repeat"})
    a = df.cv.counts()
    b = df.cv.counts(dims=["repeat"])  # the repeat column named once more: one dim
    assert a.sizes == b.sizes and int(a.tp.sum()) == int(b.tp.sum())
    assert _frame().cv.counts(y_pred="y_true").cv.f_tp_fp().item() == 1.0  # not a dim
    est = cvframe.interval(_frame(), "f", repeat="rep")
    assert est.attrs["metric"] == "f_tp_fp"
