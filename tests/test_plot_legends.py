"""Legends and panels that a reader can use: ROC legends with enough decimals to tell two
near-perfect models apart, and calibration panels of ten classes with rare positives that
show the merged curve first and the folds as a band instead of a tangle of lines."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from cvframe import plot, scores
from cvframe.plot.roc_curves import digits


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def _near_perfect():
    rng = np.random.default_rng(0)
    parts = []
    for m, noise in (("a", 0.22), ("b", 0.3)):
        for f in range(5):
            y = np.r_[np.ones(50, int), np.zeros(50, int)]
            parts.append(
                pd.DataFrame(
                    {"model": m, "fold": f, "y_true": y, "score": y + rng.normal(0, noise, 100)}
                )
            )
    return pd.concat(parts, ignore_index=True)


def test_roc_legends_tell_near_perfect_models_apart():
    df = _near_perfect()
    texts = [t.get_text() for t in plot.roc(df).ax.get_legend().get_texts()]
    assert len(texts) == 2 and texts[0].split(": ")[1] != texts[1].split(": ")[1]
    assert "1.00 ± 0.00" not in " ".join(texts)  # before: "1.00 ± 0.00 | 1.00" for both
    fold_auc = scores.auc(df, method="fold")
    for text, m in zip(texts, ("a", "b"), strict=True):
        mean = float(fold_auc.sel(model=m).mean())
        shown = text.split(": ")[1].split(" ± ")[0]
        assert abs(float(shown) - mean) <= 0.5 * 10.0 ** -(len(shown) - 2) + 1e-12
    one = df[df.model == "a"].drop(columns="model")
    texts = [t.get_text() for t in plot.roc(one).ax.get_legend().get_texts()]
    aucs = scores.auc(one, method="fold").values.ravel()
    for t, a in zip(texts[:5], aucs, strict=True):  # a fold below 1 never reads 1.00
        assert (t.endswith("1.0000)") or "(AUC 1.00)" in t) == (a == 1.0)


def test_digits_rule():
    assert digits([(0.91, 0.03), (0.85,)]) == 2
    assert digits([(0.9991, 0.0004), (0.9968, 0.001)]) == 4
    assert digits([(1.0, 0.0), (1.0, 0.0)]) == 2  # equal entries need no more
    assert digits([(0.5, 0.000001)]) == 5  # at most 5
    assert digits([None, ()]) == 2


def _rare_ten_classes(n=600, k=10, folds=10):
    rng = np.random.default_rng(2)
    p = np.r_[0.55, np.full(k - 1, 0.45 / (k - 1))]  # nine rare classes of 5% each
    y = rng.choice(k, n, p=p)
    s = rng.dirichlet(np.ones(k), n) + 2.5 * np.eye(k)[y]
    s /= s.sum(1, keepdims=True)
    df = pd.DataFrame({"fold": rng.permutation(np.arange(n) % folds), "y_true": y})
    df["y_pred"] = s.argmax(1)
    for c in range(k):
        df[f"score_{c}"] = s[:, c]
    return df


def test_calibration_of_ten_rare_classes_is_the_merged_curve_and_a_band():
    g = plot.calibration(_rare_ten_classes(), bins=5)
    panels = [ax for ax in g.axes.flat if ax.has_data()]
    assert len(panels) == 10
    for ax in panels:
        widths = [line.get_linewidth() for line in ax.lines]
        assert widths.count(2.2) == 1  # the merged curve
        assert len(widths) == 2  # and the diagonal: no thin fold line
        assert len(ax.collections) >= 1  # the band of the folds
        legend = ax.get_legend()
        if legend is not None:
            texts = [t.get_text() for t in legend.get_texts()]
            assert texts[0] == "merged" and texts[1] == "range of 10 fold curves"
