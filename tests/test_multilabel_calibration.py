"""Calibration scores of a multilabel predictions frame: per label, never summed as if the
labels were exclusive classes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import brier_score_loss

import cvframe  # noqa: F401  (registers the accessors)


@pytest.fixture(scope="module")
def pred() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    n, labels = 120, 3
    y = rng.integers(0, 2, (n, labels))
    p = np.clip(y * 0.6 + rng.uniform(0, 0.4, (n, labels)), 0.01, 0.99)
    cols: dict[str, object] = {"fold": np.repeat(np.arange(4), n // 4)}
    for j in range(labels):
        cols[f"y_true_{j}"] = y[:, j]
        cols[f"y_pred_{j}"] = (p[:, j] >= 0.5).astype(int)
        cols[f"score_{j}"] = p[:, j]
    return pd.DataFrame(cols)


@pytest.mark.parametrize("name", ["brier", "log_loss", "brier_decomposition"])
def test_multiclass_average_is_refused_on_labels_that_are_not_exclusive(pred, name):
    with pytest.raises(ValueError, match=r"average='multiclass'.*not exclusive.*'macro'"):
        getattr(pred.cv, name)(average="multiclass")


def test_macro_brier_is_the_mean_of_the_per_label_scores(pred):
    got = float(pred.cv.brier(average="macro", method="merge"))
    per_label = [brier_score_loss(pred[f"y_true_{j}"], pred[f"score_{j}"]) for j in range(3)]
    assert got == pytest.approx(np.mean(per_label), rel=1e-12)
