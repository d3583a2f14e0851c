"""Cost-sensitive ROC analysis: hull, iso-cost slope, optimal point, expected cost, the plot.

Oracles: a brute-force sweep over every threshold of the raw scores (numpy, independent of
the ranking kernel), a brute-force convex hull in exact fractions, the slope formula, and
scikit-learn's confusion matrix for the expected cost of hard decisions.
"""

from __future__ import annotations

import doctest
import pathlib
import re
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import confusion_matrix

import cvframe
from cvframe import UndefinedMetricWarning, scores
from cvframe.scores.cost import hull_mask

ROOT = pathlib.Path(__file__).resolve().parents[1]


# --- brute-force oracles ---------------------------------------------------------------------


def _sweep(y: np.ndarray, s: np.ndarray) -> list[tuple[float, int, int]]:
    """Every threshold (inf and each distinct score) with (TP, FP) of ``s >= t``."""
    out = [(np.inf, 0, 0)]
    for t in np.unique(s)[::-1]:
        pred = s >= t
        out.append((float(t), int((pred & (y == 1)).sum()), int((pred & (y == 0)).sum())))
    return out


def _brute_hull(points: list[tuple[int, int]]) -> set[tuple[int, int]]:
    """Vertices of the upper-left hull, in exact fractions: (0, 0), (N, P), and every point
    not on or below a chord between two other points on either side of it (a point
    directly below another one counts as below)."""
    pts = sorted(set(points))
    verts = {pts[0], pts[-1]}
    for p in pts[1:-1]:
        covered = any(q[0] == p[0] and q[1] > p[1] for q in pts) or any(
            a[0] <= p[0] <= b[0]
            and a[0] < b[0]
            and p[1] <= a[1] + Fraction(p[0] - a[0], b[0] - a[0]) * (b[1] - a[1])
            for a in pts
            for b in pts
            if a != p and b != p
        )
        if not covered:
            verts.add(p)
    return verts


def _expected_cost(tp, fp, npos, nneg, cfp, cfn, pi=None):
    if pi is None:
        return (cfn * (npos - tp) + cfp * fp) / (npos + nneg)
    return cfn * pi * (1 - tp / npos) + cfp * (1 - pi) * fp / nneg


@st.composite
def fold_data(draw, max_n=24):
    n = draw(st.integers(4, max_n))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    y[0], y[1] = 0, 1  # both classes
    s = np.array(draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)), dtype=float) / 2
    return y, s


# --- iso-cost slope --------------------------------------------------------------------------


@given(
    st.floats(0.01, 100),
    st.floats(0.01, 100),
    st.floats(0.001, 0.999),
)
def test_iso_cost_slope_is_cost_ratio_times_n_over_p(cfp, cfn, pi):
    n_over_p = (1 - pi) / pi
    assert scores.iso_cost_slope(cfp, cfn, pi) == pytest.approx(cfp / cfn * n_over_p, rel=1e-12)


def test_iso_cost_slope_edges_and_bad_input():
    assert scores.iso_cost_slope(1, 0, 0.5) == np.inf
    assert scores.iso_cost_slope(0, 1, 0.5) == 0.0
    with pytest.raises(ValueError, match="cost_fp=0 and cost_fn=0"):
        scores.iso_cost_slope(0, 0, 0.5)
    with pytest.raises(ValueError, match="prevalence"):
        scores.iso_cost_slope(1, 1, 1.0)
    with pytest.raises(ValueError, match="cost_fn"):
        scores.iso_cost_slope(1, -1, 0.5)
    with pytest.raises(TypeError, match="cost_fp"):
        scores.iso_cost_slope("1", 1, 0.5)


# --- the hull --------------------------------------------------------------------------------


@settings(max_examples=40)
@given(fold_data())
def test_hull_vertices_are_the_brute_force_hull(data):
    y, s = data
    df = pd.DataFrame({"fold": 0, "y_true": y, "score": s})
    sweep = _sweep(y, s)
    want = _brute_hull([(fp, tp) for _, tp, fp in sweep])
    got = scores.roc_hull(df, method="fold")
    npos, nneg = int(y.sum()), int((1 - y).sum())
    pairs = {(round(f * nneg), round(t * npos)) for f, t in zip(got.fpr, got.tpr, strict=True)}
    assert pairs == want
    # the thresholds are those of the vertices, in decreasing order
    thr = {(fp, tp): t for t, tp, fp in sweep}
    assert got.threshold.tolist() == [
        thr[(round(f * nneg), round(t * npos))] for f, t in zip(got.fpr, got.tpr, strict=True)
    ]
    assert got.threshold.is_monotonic_decreasing


@settings(max_examples=30)
@given(fold_data())
def test_every_roc_point_lies_on_or_below_the_hull(data):
    y, s = data
    df = pd.DataFrame({"fold": 0, "y_true": y, "score": s})
    pts = scores.roc(df).query("kind == 'fold'")
    hull = scores.roc_hull(df, method="fold")
    upper = np.interp(pts.fpr, hull.fpr, hull.tpr)
    assert np.all(pts.tpr.to_numpy() <= upper + 1e-12)
    assert (hull.fpr.iloc[0], hull.tpr.iloc[0]) == (0.0, 0.0)
    assert (hull.fpr.iloc[-1], hull.tpr.iloc[-1]) == (1.0, 1.0)


def test_hull_mask_is_the_monotone_chain_on_random_staircases():
    rng = np.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(3, 60))
        g = np.sort(rng.integers(0, 4, n))
        x, y = np.zeros(n, int), np.zeros(n, int)
        for gg in np.unique(g):
            m = g == gg
            dx, dy = rng.integers(0, 3, m.sum()), rng.integers(0, 3, m.sum())
            dy[(dx == 0) & (dy == 0)] = 1
            dx[0] = dy[0] = 0
            x[m], y[m] = np.cumsum(dx), np.cumsum(dy)
        for gg in np.unique(g):
            m = g == gg
            got = {
                (a, b)
                for a, b in zip(
                    x[m][hull_mask(g[m], x[m], y[m])],
                    y[m][hull_mask(g[m], x[m], y[m])],
                    strict=True,
                )
            }
            assert got == _brute_hull(list(zip(x[m].tolist(), y[m].tolist(), strict=True)))


def test_hull_mask_falls_back_when_pruning_peels_one_point_per_pass():
    k = 400  # a concave arc below the chord to a high last point: one point per pass
    x = np.arange(k + 2)
    y = np.concatenate([[0], np.floor(np.sqrt(np.arange(1, k + 1)) * 10), [10**6]]).astype(int)
    mask = hull_mask(np.zeros(k + 2, int), x, y)
    assert np.flatnonzero(mask).tolist() == [0, k + 1]


def test_hull_per_fold_and_merged_with_repeats_and_models():
    rng = np.random.default_rng(3)
    n = 240
    df = pd.DataFrame(
        {
            "model": np.repeat(["a", "b"], n // 2),
            "repeat": np.tile(np.repeat([0, 1], n // 4), 2),
            "fold": np.tile(np.arange(3), n // 3),
            "y_true": rng.integers(0, 2, n),
        }
    )
    df["score"] = df.y_true + rng.normal(0, 1, n)
    h = scores.roc_hull(df)
    assert set(h.kind) == {"fold", "merged"}
    assert list(h.columns[:4]) == ["model", "kind", "repeat", "fold"]
    part = df[(df.model == "b") & (df.repeat == 1) & (df.fold == 2)]
    want = scores.roc_hull(part.drop(columns=["model", "repeat"]), method="fold")
    got = h[(h.model == "b") & (h.kind == "fold") & (h.repeat == 1) & (h.fold == 2)]
    np.testing.assert_allclose(got[["threshold", "fpr", "tpr"]], want[["threshold", "fpr", "tpr"]])
    merged = h[(h.model == "a") & (h.kind == "merged") & (h.repeat == 0)]
    pooled = df[(df.model == "a") & (df.repeat == 0)].assign(fold=0)
    want = scores.roc_hull(pooled.drop(columns=["model", "repeat"]), method="fold")
    np.testing.assert_allclose(merged[["fpr", "tpr"]], want[["fpr", "tpr"]])
    assert merged.fold.isna().all()


def test_hull_undefined_fold_skip_warns_once_and_nan_keeps_a_row():
    df = pd.DataFrame(
        {"fold": [0, 0, 0, 1, 1], "y_true": [0, 1, 1, 0, 0], "score": [0.1, 0.5, 0.9, 0.2, 0.3]}
    )
    with pytest.warns(UndefinedMetricWarning, match="ROC hull.*1 of 3 curves.*fold=1") as rec:
        h = scores.roc_hull(df)
    assert len([w for w in rec if w.category is UndefinedMetricWarning]) == 1
    assert 1 not in set(h.fold.dropna())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h = scores.roc_hull(df, undefined="nan")
    row = h[(h.kind == "fold") & (h.fold == 1)]
    assert len(row) == 1 and row[["threshold", "fpr", "tpr"]].isna().all(axis=None)


def test_hull_bad_arguments_name_the_argument():
    df = pd.DataFrame({"fold": [0, 0], "y_true": [0, 1], "score": [0.1, 0.9]})
    with pytest.raises(ValueError, match="method='avg'"):
        scores.roc_hull(df, method="avg")
    with pytest.raises(ValueError, match="undefined="):
        scores.roc_hull(df, undefined="zero")
    with pytest.raises(ValueError, match="score="):
        scores.roc_hull(df, score="proba")


# --- the optimal operating point ---------------------------------------------------------------


@settings(max_examples=40)
@given(
    fold_data(),
    st.sampled_from([1.0, 2.0, 0.5, 10.0, 0.0]),
    st.sampled_from([1.0, 3.0, 0.25, 0.0]),
    st.sampled_from([None, 0.01, 0.3, 0.9]),
)
def test_optimum_equals_brute_force_minimum_over_all_thresholds(data, cfp, cfn, pi):
    if cfp == cfn == 0.0:
        cfn = 1.0
    y, s = data
    npos, nneg = int(y.sum()), int((1 - y).sum())
    df = pd.DataFrame({"fold": 0, "y_true": y, "score": s})
    op = scores.optimal_operating_point(df, cfp, cfn, pi)
    costs = [_expected_cost(tp, fp, npos, nneg, cfp, cfn, pi) for _, tp, fp in _sweep(y, s)]
    assert float(op.expected_cost.item()) == pytest.approx(min(costs), abs=1e-12)
    # the reported threshold reaches that cost when applied to the raw scores
    t = float(op.threshold.item())
    pred = s >= t
    tp, fp = int((pred & (y == 1)).sum()), int((pred & (y == 0)).sum())
    assert _expected_cost(tp, fp, npos, nneg, cfp, cfn, pi) == pytest.approx(min(costs), abs=1e-12)
    assert float(op.fpr.item()) == pytest.approx(fp / nneg)
    assert float(op.tpr.item()) == pytest.approx(tp / npos)
    # the iso-cost line through the optimum has the formula's slope; no ROC point lies above
    prev = npos / (npos + nneg) if pi is None else pi
    if cfn > 0:
        slope = scores.iso_cost_slope(cfp, cfn, prev)
        assert float(op.slope.item()) == pytest.approx(slope)
        b = float(op.intercept.item())
        for _, tp_, fp_ in _sweep(y, s):
            assert tp_ / npos <= slope * fp_ / nneg + b + 1e-9
    else:
        assert float(op.slope.item()) == np.inf and np.isnan(op.intercept.item())


def test_optimum_per_fold_and_merged_with_repeats_keeps_dims():
    rng = np.random.default_rng(7)
    n = 300
    df = pd.DataFrame(
        {
            "repeat": np.repeat([0, 1], n // 2),
            "fold": np.tile(np.arange(3), n // 3),
            "y_true": rng.integers(0, 2, n),
        }
    )
    df["score"] = df.y_true * 0.8 + rng.normal(0, 1, n)
    op = scores.optimal_operating_point(df, cost_fp=1, cost_fn=4)
    assert dict(op.sizes) == {"repeat": 2, "fold": 3, "class": 1}
    mg = scores.optimal_operating_point(df, cost_fp=1, cost_fn=4, method="merge")
    assert dict(mg.sizes) == {"repeat": 2, "class": 1}
    for r in (0, 1):
        part = df[df.repeat == r]
        y, s = part.y_true.to_numpy(), part.score.to_numpy()
        npos, nneg = int(y.sum()), int((1 - y).sum())
        best = min(_expected_cost(tp, fp, npos, nneg, 1, 4) for _, tp, fp in _sweep(y, s))
        assert float(mg.expected_cost.sel(repeat=r).item()) == pytest.approx(best)
        for f in range(3):
            q = part[part.fold == f]
            y, s = q.y_true.to_numpy(), q.score.to_numpy()
            npos, nneg = int(y.sum()), int((1 - y).sum())
            best = min(_expected_cost(tp, fp, npos, nneg, 1, 4) for _, tp, fp in _sweep(y, s))
            got = op.expected_cost.sel(repeat=r, fold=f).item()
            assert got == pytest.approx(best)
    assert op.attrs["prevalence"] == "data" and op.attrs["cost_fn"] == 4.0


def test_optimum_multiclass_is_one_vs_all_per_class():
    rng = np.random.default_rng(11)
    n = 150
    y = rng.choice(["a", "b", "c"], n)
    df = pd.DataFrame({"fold": np.arange(n) % 2, "y_true": y})
    for c in "abc":
        df[f"score_{c}"] = (y == c) + rng.normal(0, 0.8, n)
    op = scores.optimal_operating_point(df, cost_fp=2, cost_fn=1, method="merge")
    assert op["class"].values.tolist() == ["a", "b", "c"]
    for c in "abc":
        yy, s = (y == c).astype(int), df[f"score_{c}"].to_numpy()
        npos, nneg = int(yy.sum()), int((1 - yy).sum())
        best = min(_expected_cost(tp, fp, npos, nneg, 2, 1) for _, tp, fp in _sweep(yy, s))
        assert float(op.expected_cost.sel({"class": c}).item()) == pytest.approx(best)


def test_optimum_undefined_fold_is_nan_with_one_warning():
    df = pd.DataFrame(
        {"fold": [0, 0, 0, 1, 1], "y_true": [0, 1, 1, 0, 0], "score": [0.1, 0.5, 0.9, 0.2, 0.3]}
    )
    with pytest.warns(UndefinedMetricWarning, match="optimal operating point.*left as NaN") as rec:
        op = scores.optimal_operating_point(df)
    assert len(rec) == 1
    assert np.isnan(op.expected_cost.sel(fold=1).item())
    assert op.expected_cost.sel(fold=0).item() == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scores.optimal_operating_point(df, undefined="nan")


def test_optimum_bad_arguments_name_the_argument():
    df = pd.DataFrame({"fold": [0, 0], "y_true": [0, 1], "score": [0.1, 0.9]})
    with pytest.raises(ValueError, match="prevalence=0"):
        scores.optimal_operating_point(df, prevalence=0)
    with pytest.raises(ValueError, match="cost_fp=-1"):
        scores.optimal_operating_point(df, cost_fp=-1)
    with pytest.raises(ValueError, match="method=None"):
        scores.optimal_operating_point(df, method=None)
    with pytest.raises(TypeError, match="cost_fn"):
        scores.optimal_operating_point(df, cost_fn=None)


def test_accessors_match_the_functions():
    df = pd.DataFrame(
        {
            "fold": [0, 0, 0, 0, 1, 1, 1, 1],
            "y_true": [0, 1, 0, 1, 1, 0, 1, 0],
            "score": [0.1, 0.8, 0.3, 0.4, 0.9, 0.2, 0.6, 0.7],
        }
    )
    pd.testing.assert_frame_equal(df.cv.roc_hull("merge"), scores.roc_hull(df, "merge"))
    xr.testing.assert_identical(
        df.cv.optimal_operating_point(1, 3), scores.optimal_operating_point(df, 1, 3)
    )


# --- expected cost of the actual decisions ---------------------------------------------------


def _frame(classes, seed, n=120, folds=3):
    rng = np.random.default_rng(seed)
    y = rng.choice(classes, n)
    pred = np.where(rng.random(n) < 0.3, rng.choice(classes, n), y)
    return pd.DataFrame({"fold": np.arange(n) % folds, "y_true": y, "y_pred": pred})


@pytest.mark.parametrize("classes", [[0, 1], ["a", "b", "c"]])
def test_default_cost_is_the_error_rate(classes):
    ds = _frame(classes, 1).cv.counts()
    for how in (None, "pooled", "avg"):
        got = ds.cv.expected_cost(how=how)
        want = ds.cv.error_rate(how=how)
        np.testing.assert_allclose(got.values, want.values)
        assert got.dims == want.dims


def test_multiclass_cost_matrix_against_sklearn_confusion():
    df = _frame(["a", "b", "c"], 2)
    cost = np.array([[0, 1, 5], [2, 0, 1], [10, 3, 0]], dtype=float)
    ds = df.cv.counts()
    got = scores.expected_cost(ds, cost)
    for f in range(3):
        part = df[df.fold == f]
        cm = confusion_matrix(part.y_true, part.y_pred, labels=["a", "b", "c"])
        assert got.sel(fold=f).item() == pytest.approx((cm * cost).sum() / cm.sum())
    cm = confusion_matrix(df.y_true, df.y_pred, labels=["a", "b", "c"])
    pooled = scores.expected_cost(ds, cost, how="pooled").item()
    assert pooled == pytest.approx((cm * cost).sum() / cm.sum())
    # labelled forms are matched by label, not position
    perm = ["c", "a", "b"]
    frame = pd.DataFrame(cost, index=list("abc"), columns=list("abc")).loc[perm, perm[::-1]]
    xr.testing.assert_allclose(scores.expected_cost(ds, frame), got)
    arr = xr.DataArray(
        cost.T, dims=("pred", "true"), coords={"pred": list("abc"), "true": list("abc")}
    )
    xr.testing.assert_allclose(scores.expected_cost(ds, arr), got)


def test_binary_cost_matrix_from_the_counts():
    df = _frame([0, 1], 3)
    cost = [[0.0, 1.0], [7.0, -0.5]]  # a TP may earn (negative cost)
    ds = df.cv.counts()
    got = ds.cv.expected_cost(cost)
    assert got.dims == ("fold", "class")
    for f in range(3):
        part = df[df.fold == f]
        (tn, fp), (fn, tp) = confusion_matrix(part.y_true, part.y_pred, labels=[0, 1])
        want = (1 * fp + 7 * fn - 0.5 * tp) / len(part)
        assert got.sel(fold=f).item() == pytest.approx(want)
    # pos_label=0: rows/columns still follow the `true` coordinate [0, 1]
    ds0 = df.cv.counts(pos_label=0)
    xr.testing.assert_allclose(
        ds0.cv.expected_cost(cost).drop_vars("class"), got.drop_vars("class")
    )


def test_expected_cost_avg_keeps_repeats_skips_empty_folds_and_stays_lazy():
    a = _frame(["a", "b", "c"], 4).cv.counts()
    b = _frame(["a", "b", "c"], 5, folds=2).cv.counts()
    ds = xr.concat([a, b], dim="repeat", join="outer")  # repeat 1 has no fold 2 (NaN padding)
    cost = np.array([[0, 1, 1], [4, 0, 1], [1, 1, 0]])
    avg = ds.cv.expected_cost(cost, how="avg")
    assert avg.dims == ("repeat",)
    want = scores.expected_cost(b, cost).mean("fold").item()
    assert avg.sel(repeat=1).item() == pytest.approx(want)
    lazy = ds.chunk({"fold": 1}).cv.expected_cost(cost, how="avg")
    assert lazy.chunks is not None
    xr.testing.assert_allclose(lazy.compute(), avg)


def test_expected_cost_empty_fold_warns_once():
    ds = cvframe.from_counts({"tp": [3, 0], "fp": [1, 0], "fn": [0, 0], "tn": [4, 0]})
    with pytest.warns(UndefinedMetricWarning, match="expected cost.*1 of 2") as rec:
        out = ds.cv.expected_cost()
    assert len(rec) == 1 and out.values.ravel().tolist() == [0.125, 0.0]


def test_expected_cost_bad_cost_matrix_names_the_argument():
    ds = _frame(["a", "b", "c"], 6).cv.counts()
    with pytest.raises(ValueError, match="cost_matrix has shape"):
        scores.expected_cost(ds, [[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="cost_matrix has NaN"):
        scores.expected_cost(ds, np.full((3, 3), np.nan))
    bad = pd.DataFrame(np.zeros((3, 3)), index=list("abx"), columns=list("abc"))
    with pytest.raises(ValueError, match="cost_matrix labels"):
        scores.expected_cost(ds, bad)
    with pytest.raises(ValueError, match="how='mean'"):
        scores.expected_cost(ds, how="mean")


# --- the plot -------------------------------------------------------------------------------


def _plot_frame():
    rng = np.random.default_rng(5)
    n = 200
    y = rng.integers(0, 2, n)
    return pd.DataFrame({"fold": np.arange(n) % 4, "y_true": y, "score": y + rng.normal(0, 1, n)})


def test_cost_roc_draws_the_hull_the_iso_line_and_the_optimum():
    df = _plot_frame()
    ax = cvframe.plot.cost_roc(df, cost_fp=1, cost_fn=3).ax
    op = scores.optimal_operating_point(df, 1, 3, method="merge")
    hull = scores.roc_hull(df, "merge")
    lines = ax.get_lines()
    stars = [ln for ln in lines if ln.get_marker() == "*"]
    assert len(stars) == 1
    assert stars[0].get_xydata().tolist() == [[op.fpr.item(), op.tpr.item()]]
    dashed = [ln for ln in lines if ln.get_linestyle() == "--"]
    np.testing.assert_allclose(dashed[0].get_xydata(), hull[["fpr", "tpr"]].to_numpy())
    iso = [ln for ln in lines if ln.get_color() == "0.45"][0].get_xydata()
    slope = (iso[1, 1] - iso[0, 1]) / (iso[1, 0] - iso[0, 0])
    assert slope == pytest.approx(op.slope.item())


def test_cost_roc_grid_per_fold_and_ax_with_many_panels_is_an_error():
    df = _plot_frame()
    g = df.cv.plot.cost_roc(cost_fp=2, method="fold")
    stars = [ln for ln in g.ax.get_lines() if ln.get_marker() == "*"]
    assert len(stars) == 4
    three = _frame(["a", "b", "c"], 1).assign(
        score_a=0.1, score_b=np.linspace(0, 1, 120), score_c=0.3
    )
    with pytest.raises(TypeError, match="figure-level"):
        cvframe.plot.cost_roc(three, ax=_new_axes())


def _new_axes():
    import matplotlib.pyplot as plt

    return plt.subplots()[1]


def test_score_rates_logx_draws_score_minus_min_plus_delta():
    rng = np.random.default_rng(2)
    n = 80
    y = rng.integers(0, 2, n)
    df = pd.DataFrame(
        {"fold": np.arange(n) % 2, "y_true": y, "score": y + rng.normal(0, 1, n) - 3.0}
    )
    g = cvframe.plot.score_rates(df, logx=True)
    lo, hi = df.score.min(), df.score.max()
    delta = 1e-3 * (hi - lo)
    sr = scores.score_rates(df)
    for axis in g.axes.flat:
        assert axis.get_xscale() == "log"
        drawn = np.sort(np.concatenate([ln.get_xdata() for ln in axis.get_lines()]))
        want = np.sort(sr[sr.rate == "fpr"].threshold.to_numpy() - lo + delta)
        np.testing.assert_allclose(np.unique(drawn), np.unique(want))
    assert min(drawn) == pytest.approx(delta)  # the smallest score sits at delta


# --- the docs page ---------------------------------------------------------------------------


def test_doc_page_examples_run():
    page = "cost_sensitive_roc.md"
    text = (ROOT / "docs" / page).read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if ">>>" in b]
    assert blocks, f"{page} has no runnable example"
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, page, page, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    failures: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)
