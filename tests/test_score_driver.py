"""The one driver of the score metrics, the array-level AUC, and bad inputs of the metrics.

``scores.auc_arrays`` must equal scikit-learn's ``roc_auc_score`` (with ``sample_weight``) row
by row, ties counting one half; integer weights are counts. Every frame metric runs through
``scores._driver``; a curve and its AUC come from one parse, and a frame parsed once
(``scores.parse``) is read by every metric without another parse.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from sklearn.metrics import brier_score_loss, roc_auc_score

import cvframe
from cvframe import UndefinedMetricWarning, scores, tidy
from cvframe._core import kernel as _kernel
from cvframe._core.labels import frame as frame_reader
from cvframe.scores import _rank


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
    """Count the parses of the frame reader and the sorts of the ranking metrics and curves."""
    calls = {"parse": 0, "sort": 0}
    parse, sorted_keys = frame_reader.parse, _rank.sorted_keys

    def counting_parse(*args, **kwargs):
        calls["parse"] += 1
        return parse(*args, **kwargs)

    def counting_sort(*args, **kwargs):
        calls["sort"] += 1
        return sorted_keys(*args, **kwargs)

    monkeypatch.setattr(frame_reader, "parse", counting_parse)
    monkeypatch.setattr(_rank, "sorted_keys", counting_sort)
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


def _models(seed=4, n=90):
    """Three models' probability scores of the same samples, stacked with a model column."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    parts = [
        pd.DataFrame(
            {
                "model": m,
                "repeat": np.arange(n) % 2,
                "fold": np.arange(n) % 3,
                "y_true": y,
                "score": np.round(np.clip(rng.normal(0.4 + 0.2 * y * (i + 1), 0.2), 0, 1), 2),
            }
        )
        for i, m in enumerate("abc")
    ]
    return pd.concat(parts, ignore_index=True)


#: Every score metric of a frame, by name: each takes the frame or its parse.
METRICS = {
    "auc": lambda d: scores.auc(d, "merge"),
    "auc_methods": lambda d: scores.auc_methods(d),
    "ap": lambda d: scores.average_precision(d, "fold"),
    "p_at_k": lambda d: scores.precision_at_k(d, 3),
    "r_precision": lambda d: scores.r_precision(d),
    "bep": lambda d: scores.break_even_point(d, "merge", return_threshold=True),
    "brier": lambda d: scores.brier(d, "fold"),
    "log_loss": lambda d: scores.log_loss(d),
    "decomposition": lambda d: scores.brier_decomposition(d, bins=3),
    "calibration_curve": lambda d: scores.calibration_curve(d, bins=3),
    "roc": lambda d: scores.roc(d, auc=True),
    "score_rates": lambda d: scores.score_rates(d),
    "pr_curve": lambda d: scores.pr_curve(d),
    "at_thresholds": lambda d: scores.metric_at_thresholds(d, "f"),
    "roc_hull": lambda d: scores.roc_hull(d),
    "optimum": lambda d: scores.optimal_operating_point(d, cost_fp=2),
    "delong": lambda d: scores.ranking.delong_frame(d),
    "interval": lambda d: cvframe.interval(d, "auc"),
    "interval_avg": lambda d: cvframe.interval(d, "auc", fold_method="avg"),
}


def _same(got, want):
    if isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got, want)
    else:
        xr.testing.assert_identical(got, want)


def test_a_parsed_frame_is_read_by_every_metric_without_another_parse(spy):
    df = _models()
    want = {k: f(df) for k, f in METRICS.items()}
    spy.update(parse=0, sort=0)
    parsed = scores.parse(df)
    assert spy["parse"] == 3 and len(parsed.parts) == 3  # split once, each model parsed once
    assert [len(p.ys[0]) for p in parsed.parts] == [len(df) // 3] * 3
    for name, f in METRICS.items():
        _same(f(parsed), want[name])
    assert spy == {"parse": 3, "sort": 3}  # one sort of each model's class, read by all
    a = df[df.model == "a"]
    merged = want["auc"].sel(model="a").values.ravel()
    for r in range(2):
        part = a[a.repeat == r]
        assert merged[r] == pytest.approx(roc_auc_score(part.y_true, part.score), abs=1e-12)
    assert "3 parts" in repr(parsed) and "model" in repr(parsed)


def test_a_parsed_frame_keeps_its_reading_and_refuses_another():
    df = _frame(5, repeats=False)
    parsed = scores.parse(df, pos_label=0)
    flipped = scores.auc(df, pos_label=0)
    # left out, or asked as it was parsed: the parse's reading
    for kw in ({}, {"pos_label": 0}, {"repeat": None}, {"y_true": "y_true"}):
        xr.testing.assert_identical(scores.auc(parsed, **kw), flipped)
    with pytest.raises(ValueError, match=r"pos_label=1 asks for another reading.*pos_label=0"):
        scores.auc(parsed, pos_label=1)
    with pytest.raises(ValueError, match=r"score='p' .*scores\.parse\(df, score='p'\)"):
        scores.brier(parsed, score="p")
    multi = scores.parse(_frame(6, classes=3))
    assert scores.auc(multi, labels=[0, 1, 2]).sizes["class"] == 3  # its classes
    with pytest.raises(ValueError, match="labels="):
        scores.auc(multi, labels=[0, 1])


def test_a_parse_warns_of_hard_scores_once_and_its_metrics_do_not():
    df = _frame(7)
    df["score"] = (df["score"] > 0.5).astype(float)
    with pytest.warns(UserWarning, match="hard predictions") as caught:
        parsed = scores.parse(df)
    assert len(caught) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scores.auc(parsed)
        scores.brier(parsed)
