"""The reliability curve per fold and merged against scikit-learn's ``calibration_curve``, and
its plot (each fold thin, the pooled curve bold, a band across folds)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from sklearn.calibration import calibration_curve as sk_calibration_curve  # noqa: E402

import cvframe  # noqa: E402
from cvframe import plot, scores  # noqa: E402


def _frame(seed: int, n: int = 200, folds: int = 5, repeats: int = 1):
    rng = np.random.default_rng(seed)
    parts = []
    for r in range(repeats):
        p = rng.beta(1.5, 2.5, n)
        p[: n // 10] = np.round(p[: n // 10], 1)  # scores on the bin edges
        y = (rng.random(n) < p**0.8).astype(int)
        parts.append(
            pd.DataFrame(
                {
                    "repeat": r,
                    "fold": rng.permutation(np.arange(n) % folds),
                    "y_true": y,
                    "score": p,
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def _check(curve, y, p, bins, strategy):
    true, pred = sk_calibration_curve(y, p, n_bins=bins, strategy=strategy)
    np.testing.assert_allclose(curve["prob_true"].to_numpy(), true, rtol=1e-12, atol=0)
    np.testing.assert_allclose(curve["prob_pred"].to_numpy(), pred, rtol=1e-12, atol=0)
    assert curve["count"].sum() == len(y)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("bins", [1, 5, 10])
def test_calibration_curve_equals_sklearn_per_fold_and_merged(strategy, bins):
    df = _frame(bins, repeats=2)
    cc = scores.calibration_curve(df, bins=bins, strategy=strategy)
    for (rep, f), part in df.groupby(["repeat", "fold"]):
        curve = cc[(cc.kind == "fold") & (cc.repeat == rep) & (cc.fold == f)]
        _check(curve, part.y_true, part.score, bins, strategy)
    for rep, part in df.groupby("repeat"):
        curve = cc[(cc.kind == "merged") & (cc.repeat == rep)]
        _check(curve, part.y_true, part.score, bins, strategy)
    assert set(scores.calibration_curve(df, bins, "fold").kind) == {"fold"}
    assert set(scores.calibration_curve(df, bins, "merge").kind) == {"merged"}
    pd.testing.assert_frame_equal(df.cv.calibration_curve(bins, strategy=strategy), cc)


def test_uniform_bins_are_the_edges_and_the_bin_index():
    df = _frame(0)
    cc = scores.calibration_curve(df, bins=10)
    np.testing.assert_allclose(cc.bin_low, cc.bin / 10, atol=1e-15)
    np.testing.assert_allclose(cc.bin_high, (cc.bin + 1) / 10, atol=1e-15)
    assert ((cc.prob_pred >= cc.bin_low) & (cc.prob_pred <= cc.bin_high)).all()


def test_calibration_curve_one_vs_all_and_models():
    rng = np.random.default_rng(1)
    n = 150
    raw = rng.dirichlet([1, 1, 1], n)
    y = np.array([rng.choice(3, p=row) for row in raw])
    df = pd.DataFrame({"fold": np.arange(n) % 3, "y_true": y})
    for c in range(3):
        df[f"score_{c}"] = raw[:, c]
    both = pd.concat([df.assign(model="a"), df.assign(model="b")], ignore_index=True)
    cc = scores.calibration_curve(both, bins=4)
    assert list(cc.columns[:2]) == ["model", "kind"]
    for c in range(3):
        curve = cc[(cc.model == "b") & (cc.kind == "merged") & (cc["class"] == c)]
        _check(curve, y == c, raw[:, c], 4, "uniform")


def test_calibration_curve_bad_inputs():
    df = _frame(0)
    with pytest.raises(ValueError, match="outside \\[0, 1\\]"):
        scores.calibration_curve(df.assign(score=df.score * 3))
    with pytest.raises(ValueError, match="bins"):
        scores.calibration_curve(df, bins=0)
    with pytest.raises(ValueError, match="strategy"):
        scores.calibration_curve(df, strategy="kmeans")
    with pytest.raises(ValueError, match="method"):
        scores.calibration_curve(df, method="avg")


# --- the reliability diagram ---------------------------------------------------------------


def test_plot_calibration_draws_folds_thin_merged_bold_and_a_band():
    df = _frame(2)
    g = plot.calibration(df, bins=5)
    ax = g.ax
    widths = sorted(line.get_linewidth() for line in ax.lines)
    assert widths.count(2.2) == 1  # one merged curve
    assert sum(w == 1.0 for w in widths) == 6  # five folds and the diagonal
    assert len(ax.collections) == 1  # the band across folds
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    # the merged curve first, then the band, then the (few) folds
    assert texts == ["merged", "range of folds", "fold 0", "fold 1", "fold 2", "fold 3", "fold 4"]
    band = ax.collections[0].get_paths()[0].vertices
    assert band[:, 1].min() >= 0 and band[:, 1].max() <= 1
    assert g is not None and hasattr(g, "figure")  # returned, not shown
    # the accessor and a filtered table draw the same
    table = df.cv.calibration_curve(5)
    g2 = df.cv.plot.calibration(bins=5)
    g3 = plot.calibration(table)
    assert len(g2.ax.lines) == len(g3.ax.lines) == len(ax.lines)


def test_plot_pr_curve_draws_folds_and_merged():
    df = _frame(3)
    g = plot.pr_curve(df)
    assert [t.get_text() for t in g.ax.get_legend().get_texts()][-2:] == [
        "merged",
        "share of positives",
    ]
    assert g.ax.get_xlabel() == "recall"
    many = pd.concat([df.assign(model=m) for m in "abc"], ignore_index=True)
    g = many.cv.plot.pr_curve()
    assert [t.get_text() for t in g.ax.get_legend().get_texts()] == [
        "a",
        "b",
        "c",
        "share of positives",
    ]
    g = plot.calibration(many, hue="model")
    assert len(g.ax.collections) == 3  # a band per model


def test_plot_calibration_refuses_decision_values():
    df = _frame(0)
    with pytest.raises(ValueError, match="outside \\[0, 1\\]"):
        plot.calibration(df.assign(score=df.score - 0.5))
    _ = cvframe
