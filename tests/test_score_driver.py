"""The one driver of the score metrics, the array-level AUC, and bad inputs of the metrics.

``scores.auc_arrays`` must equal scikit-learn's ``roc_auc_score`` (with ``sample_weight``) row
by row, ties counting one half; integer weights are counts. Every frame metric runs through
``scores._driver``; a curve and its AUC come from one parse.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from sklearn.metrics import brier_score_loss, roc_auc_score

import cvframe  # noqa: F401  (registers df.cv)
from cvframe import UndefinedMetricWarning, scores, tidy
from cvframe._core import kernel as _kernel
from cvframe.scores import _driver, _rank, curves


@pytest.mark.parametrize("eng", ["numpy", "numba"])
def test_auc_arrays_equals_sklearn_with_ties_and_weights(eng, monkeypatch):
    if eng == "numba" and not _kernel.have_numba():
        pytest.skip("numba is not installed")
    monkeypatch.setattr(_kernel, "ENGINE", eng)
    monkeypatch.setattr(_kernel, "NUMBA_MIN_SIZE", 0)
    rng = np.random.default_rng(0)
    s = np.round(rng.normal(size=(4, 6, 40)), 1)  # many ties
    y = rng.integers(0, 2, 40)
    got = scores.auc_arrays(s, y)
    want = np.array([roc_auc_score(y, row) for row in s.reshape(-1, 40)]).reshape(4, 6)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-14)
    for w in (rng.integers(0, 4, (4, 6, 40)), rng.random((4, 6, 40))):
        got = scores.auc_arrays(s, y, weights=w)
        want = [
            roc_auc_score(y, row, sample_weight=wr)
            for row, wr in zip(s.reshape(-1, 40), w.reshape(-1, 40), strict=True)
        ]
        np.testing.assert_allclose(got, np.reshape(want, (4, 6)), rtol=0, atol=1e-12)


def test_auc_arrays_counts_are_repeated_rows():
    rng = np.random.default_rng(1)
    s, y = np.round(rng.random(30), 1), rng.integers(0, 2, 30)
    w = rng.integers(0, 3, 30)
    rep = scores.auc_arrays(np.repeat(s, w), np.repeat(y, w))
    assert scores.auc_arrays(s, y, weights=w) == pytest.approx(float(rep), abs=1e-15)
    # one row of scores, B resamples as counts: the rows broadcast
    counts = np.random.default_rng(2).integers(0, 3, (5, 30))
    got = scores.auc_arrays(s, y, weights=counts)
    want = [scores.auc_arrays(np.repeat(s, c), np.repeat(y, c)) for c in counts]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-15)


def test_auc_arrays_nan_without_one_class_and_bool_labels():
    s = np.array([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]])
    out = scores.auc_arrays(s, np.array([[True, True, True], [False, True, True]]))
    assert np.isnan(out[0]) and out[1] == 0.0
    # a class present only with weight 0 is absent
    assert np.isnan(scores.auc_arrays(s[0], [0, 1, 1], weights=[0, 1, 1]))
    assert scores.auc_arrays(np.zeros((2, 0)), []).shape == (2,)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(scores=[0.1, np.nan], y=[0, 1]), "scores has 1 NaN or infinite"),
        (dict(scores=[0.1, 0.2], y=[0, 2]), r"y has values \[2.0\]"),
        (dict(scores=[0.1, 0.2], y=[0, 1, 1]), r"scores \(2,\), y \(3,\) do not"),
        (dict(scores=[0.1, 0.2], y=[0, 1], weights=[1, -1]), "weights has negative"),
        (dict(scores=[0.1, 0.2], y=[0, 1], weights=[1, np.inf]), "weights has 1 NaN"),
        (dict(scores=0.5, y=1), "single number"),
    ],
)
def test_auc_arrays_refuses_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        scores.auc_arrays(**kwargs)


def test_auc_arrays_refuses_text():
    with pytest.raises(TypeError, match="scores must hold real numbers"):
        scores.auc_arrays(np.array(["a", "b"]), [0, 1])


def test_auc_arrays_float32_and_huge_range():
    s32 = np.array([0.1, 0.4, 0.35, 0.8], dtype=np.float32)
    assert float(scores.auc_arrays(s32, [0, 0, 1, 1])) == 0.75
    wide = np.array([-1e300, -1e-300, 0.0, 1e-300, 1e300, 5e-324])
    y = np.array([0, 0, 1, 0, 1, 1])
    assert float(scores.auc_arrays(wide, y)) == pytest.approx(roc_auc_score(y, wide))


# ------------------------------------------------------------------------------------------
# One parse, one sort: a curve and its AUC
# ------------------------------------------------------------------------------------------


def _frame(seed=0, n=120, classes=2, repeats=True):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"fold": rng.integers(0, 3, n), "y_true": rng.integers(0, classes, n)})
    if repeats:
        df["repeat"] = rng.integers(0, 2, n)
    if classes == 2:
        df["score"] = np.round(rng.random(n) * 0.6 + 0.4 * df.y_true, 2)
    else:
        raw = rng.random((n, classes)) + np.eye(classes)[df.y_true]
        for c in range(classes):
            df[f"score_{c}"] = raw[:, c] / raw.sum(1)
    return df


@pytest.fixture
def spy(monkeypatch):
    """Count the parses of the score driver and the sorts of the curves."""
    calls = {"parse": 0, "sort": 0}
    parse, ranked = _driver.parse, curves.Ranked

    def counting_parse(*args, **kwargs):
        calls["parse"] += 1
        return parse(*args, **kwargs)

    def counting_ranked(*args, **kwargs):
        calls["sort"] += 1
        return ranked(*args, **kwargs)

    monkeypatch.setattr(_driver, "parse", counting_parse)
    monkeypatch.setattr(curves, "Ranked", counting_ranked)
    return calls


@pytest.mark.parametrize("classes", [2, 3])
def test_a_curve_and_its_auc_come_from_one_parse_and_one_sort(spy, classes):
    df = _frame(1, classes=classes)
    table = tidy.roc_table(df)
    assert spy == {"parse": 1, "sort": 2 * (1 if classes == 2 else classes)}
    # the AUC column is the fold's AUC and the repeat's AUC_merge
    fold_auc = df.cv.auc(method="fold")
    merged = df.cv.auc(method="merge")
    assert spy["parse"] == 3
    for (r, f, c), part in table[table.kind == "fold"].groupby(["repeat", "fold", "class"]):
        want = fold_auc.sel(repeat=r, fold=f, **{"class": c}).item()
        assert part.auc.unique().tolist() == [want]
    for (r, c), part in table[table.kind == "merged"].groupby(["repeat", "class"]):
        assert part.auc.unique().tolist() == [merged.sel(repeat=r, **{"class": c}).item()]


def test_both_auc_methods_and_the_calibration_scores_parse_once_per_call(spy):
    df = _frame(2)
    df.cv.auc_methods()
    assert spy["parse"] == 1
    scores.brier_decomposition(df, "merge")
    assert spy["parse"] == 2
    scores.optimal_operating_point(df)
    assert spy["parse"] == 3


# ------------------------------------------------------------------------------------------
# Bad inputs of the frame metrics
# ------------------------------------------------------------------------------------------

FRAME_METRICS = {
    "auc": scores.auc,
    "average_precision": scores.average_precision,
    "break_even_point": scores.break_even_point,
    "r_precision": scores.r_precision,
    "brier": scores.brier,
    "log_loss": scores.log_loss,
    "brier_decomposition": scores.brier_decomposition,
    "roc": scores.roc,
    "score_rates": scores.score_rates,
    "roc_hull": scores.roc_hull,
    "optimal_operating_point": scores.optimal_operating_point,
}


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("name", FRAME_METRICS)
def test_nan_and_infinite_scores_are_refused_by_every_metric(name, bad):
    df = _frame(3, repeats=False)
    df.loc[5, "score"] = bad
    with pytest.raises(ValueError, match="score column 'score' has 1 NaN or infinite"):
        FRAME_METRICS[name](df)


@pytest.mark.parametrize("name", ["brier", "log_loss", "brier_decomposition"])
def test_nan_scores_of_a_dask_frame_are_refused_by_the_lazy_sums(name):
    dd = pytest.importorskip("dask.dataframe")
    df = _frame(3, repeats=False)
    df.loc[5, "score"] = np.nan
    with pytest.raises(ValueError, match="score column 'score' has 1 NaN or infinite"):
        FRAME_METRICS[name](dd.from_pandas(df, npartitions=2))


def test_a_fold_of_one_class_is_undefined_for_ranking_and_defined_for_calibration():
    df = _frame(4, repeats=False)
    df.loc[df.fold == 1, "y_true"] = 0
    with pytest.warns(UndefinedMetricWarning, match=r"auc .*1 of 3 cells \(fold=\[1\]"):
        auc = scores.auc(df)
    per_fold = [roc_auc_score(p.y_true, p.score) for f, p in df.groupby("fold") if f != 1]
    assert auc.item() == pytest.approx(np.mean(per_fold), abs=1e-12)
    assert np.isnan(scores.auc(df, "fold", "nan").sel(fold=1).item())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a mean over samples is defined on every fold
        brier = scores.brier(df, "fold")
    want = [brier_score_loss(p.y_true, p.score) for _, p in df.groupby("fold")]
    np.testing.assert_allclose(brier.values.ravel(), want, rtol=1e-12)
    with pytest.warns(UndefinedMetricWarning, match="optimal operating point.*fold=\\[1\\]"):
        op = scores.optimal_operating_point(df)
    assert np.isnan(op.threshold.sel(fold=1).item()) and op.threshold.notnull().sum() == 2


def test_a_frame_of_one_class_warns_and_is_nan_never_a_number():
    df = _frame(5, repeats=False).assign(y_true=1)
    with pytest.warns(UndefinedMetricWarning, match="3 of 3 cells"):
        assert np.isnan(scores.auc(df).item())
    with pytest.warns(UndefinedMetricWarning, match="4 of 4 curves"):
        assert scores.roc(df).empty


@pytest.mark.parametrize("name", FRAME_METRICS)
def test_float32_scores_score_as_their_float64_values(name):
    df = _frame(6, classes=3)
    cols = ["score_0", "score_1", "score_2"]
    df32 = df.astype({c: np.float32 for c in cols})
    df64 = df32.astype({c: np.float64 for c in cols})
    got, want = FRAME_METRICS[name](df32), FRAME_METRICS[name](df64)
    if isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got, want)
    else:
        xr.testing.assert_identical(got, want)


@pytest.mark.parametrize("name", FRAME_METRICS)
def test_a_frame_stacked_by_model_scores_each_model_alone(name):
    a, b = _frame(7), _frame(8)
    stacked = pd.concat([a.assign(model="a"), b.assign(model="b")], ignore_index=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = FRAME_METRICS[name](stacked)
        want = [FRAME_METRICS[name](x) for x in (a, b)]
    if isinstance(got, pd.DataFrame):
        for m, w in zip("ab", want, strict=True):
            part = got[got.model == m].drop(columns="model").reset_index(drop=True)
            pd.testing.assert_frame_equal(part, w, check_dtype=False)
    else:
        for m, w in zip("ab", want, strict=True):
            xr.testing.assert_allclose(got.sel(model=m, drop=True), w)


@pytest.mark.parametrize("name", FRAME_METRICS)
def test_dask_frames_equal_pandas_frames(name):
    dd = pytest.importorskip("dask.dataframe")
    df = pd.concat([_frame(9).assign(model="a"), _frame(10).assign(model="b")], ignore_index=True)
    want = FRAME_METRICS[name](df)
    got = FRAME_METRICS[name](dd.from_pandas(df, npartitions=3))
    if isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got, want)
    else:
        xr.testing.assert_allclose(got, want)


def test_roc_auc_flag_must_be_a_bool():
    with pytest.raises(TypeError, match="auc='yes' must be True or False"):
        scores.roc(_frame(0), auc="yes")


def test_the_compiled_auc_of_one_kind_equals_the_numpy_rank_sums(monkeypatch):
    if not _kernel.have_numba():
        pytest.skip("numba is not installed")
    monkeypatch.setattr(_kernel, "NUMBA_MIN_SIZE", 0)
    rng = np.random.default_rng(3)
    for _ in range(30):
        n, groups = int(rng.integers(1, 200)), int(rng.integers(1, 6))
        s = np.round(rng.normal(size=n), int(rng.integers(0, 3)))  # ties, empty groups
        y, g = rng.integers(0, 2, n), rng.integers(0, groups, n)
        out = {}
        for eng in ("numba", "numpy"):
            monkeypatch.setattr(_kernel, "ENGINE", eng)
            out[eng] = _rank.Ranked(s, s.min(), s.max(), y, g, groups).auc()
        for a, b in zip(out["numba"], out["numpy"], strict=True):
            np.testing.assert_array_equal(a, b)


def test_one_parse_shares_the_parse_of_one_frame_only(monkeypatch):
    calls = []
    original = _driver.parse
    monkeypatch.setattr(_driver, "parse", lambda *a: calls.append(1) or original(*a))
    rng = np.random.default_rng(3)
    frames = []
    for _ in range(2):
        y = rng.integers(0, 2, 60)
        frames.append(
            pd.DataFrame({"fold": np.arange(60) % 3, "y_true": y, "score": rng.random(60)})
        )
    with scores.one_parse():
        for df in frames:
            auc = scores.auc(df, "merge").item()
            brier = scores.brier(df, "merge").item()
            assert auc == pytest.approx(roc_auc_score(df.y_true, df.score), abs=1e-12)
            assert brier == pytest.approx(brier_score_loss(df.y_true, df.score), abs=1e-12)
    assert len(calls) == 2  # one parse per frame, not per metric
    scores.auc(frames[0], "merge")
    assert len(calls) == 3  # outside the block nothing is kept
