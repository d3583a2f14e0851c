"""The ranking metrics share one sort of each class of a frame parsed once (``scores.parse``):
the DeLong variance read off that sort against its pairwise definition, both engines bit for
bit, and a parse's sorts never serve another frame, and its values never another metric or
method."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cvframe import scores
from cvframe._core import kernel as _kernel
from cvframe.intervals import delong, interval
from cvframe.scores import _keys, _rank


def _pairwise(s: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """AUC and DeLong's variance from the definition (pairwise, ties one half)."""
    x, z = s[y == 1], s[y == 0]
    psi = (x[:, None] > z[None, :]) + 0.5 * (x[:, None] == z[None, :])
    return psi.mean(), psi.mean(1).var(ddof=1) / len(x) + psi.mean(0).var(ddof=1) / len(z)


def _frame(seed: int = 0, n: int = 150, classes: int = 3, repeats: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, n)
    parts = []
    for r in range(repeats):
        noise = np.round(rng.normal(0, 1, (n, classes)), 1)  # many ties
        noise[np.arange(n), y] += 1.0
        part = pd.DataFrame({"repeat": r, "fold": rng.permutation(np.arange(n) % 4), "y_true": y})
        for c in range(classes):
            part[f"score_{c}"] = noise[:, c]
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


@pytest.mark.parametrize("engine", ["numpy", "numba"])
def test_the_delong_variance_of_each_repeat_is_the_pairwise_one(monkeypatch, engine):
    if engine == "numba" and not _kernel.have_numba():
        pytest.skip("numba is not installed")
    monkeypatch.setattr(_kernel, "ENGINE", engine)
    df = _frame()
    parsed = scores.parse(df)
    methods = scores.auc_methods(parsed, undefined="nan")
    res = scores.ranking.delong_frame(parsed)
    np.testing.assert_array_equal(res["auc"].values, methods["auc_merge"].values)
    for r in range(2):
        part = df[df.repeat == r]
        for c in range(3):
            auc, var = _pairwise(part[f"score_{c}"].to_numpy(), (part.y_true == c).to_numpy())
            assert res["auc"].values[r, c] == pytest.approx(auc, abs=1e-15)
            assert res["var"].values[r, c] == pytest.approx(var, rel=1e-12)
            assert res["n_pos"].values[r, c] == (part.y_true == c).sum()


def test_delong_arrays_rows_are_sorted_together_and_match_the_definition():
    rng = np.random.default_rng(5)
    s = np.round(rng.normal(size=(4, 3, 25)), 1)
    y = rng.random((4, 3, 25)) < 0.4
    y[..., :2], y[..., 2:4] = True, False  # at least 2 of each
    auc, var = scores.ranking.delong_arrays(s, y)
    assert auc.shape == var.shape == (4, 3)
    for i in np.ndindex(4, 3):
        want = _pairwise(s[i], y[i])
        assert auc[i] == pytest.approx(want[0], abs=1e-15)
        assert var[i] == pytest.approx(want[1], rel=1e-12)
    np.testing.assert_array_equal(auc, scores.auc_arrays(s, y))
    # fewer than 2 positives: NaN variance; no positives: NaN AUC too
    a, v = scores.ranking.delong_arrays([[0.1, 0.2, 0.3], [0.1, 0.2, 0.3]], [[0, 0, 1], [0, 0, 0]])
    assert a[0] == 1.0 and np.isnan(v).all() and np.isnan(a[1])
    est, lo, hi = delong(np.array([0.1, 0.4, 0.35, 0.8, 0.7, 0.2]), [0, 0, 1, 1, 1, 0])
    assert lo < est < hi


def test_both_engines_give_the_same_placements(monkeypatch):
    if not _kernel.have_numba():
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(2)
    s = np.round(rng.normal(size=90_000), 2)
    y = rng.random(90_000) < 0.3
    g = rng.integers(0, 3, 90_000)
    out = {}
    for eng in ("numba", "numpy"):
        monkeypatch.setattr(_kernel, "ENGINE", eng)
        out[eng] = _rank.Ranked(s, s.min(), s.max(), y, g, 3).delong()
    for k in out["numpy"]:
        np.testing.assert_array_equal(out["numba"][k], out["numpy"][k])


def test_a_parse_shares_sorts_but_never_values_of_another_metric_or_frame():
    df, other = _frame(1), _frame(2)
    alone = {
        "fold": scores.auc(df, "fold", undefined="nan"),
        "methods": scores.auc_methods(df, undefined="nan"),
        "p1": scores.precision_at_k(df, 1, "fold", undefined="nan"),
        "p3": scores.precision_at_k(df, 3, "fold", undefined="nan"),
        "ap": scores.average_precision(df, "merge", undefined="nan"),
        "other": scores.auc_methods(other, undefined="nan"),
        "iv": interval(df, "auc", average="macro"),
    }
    parsed = scores.parse(df)  # the interval first: it sorts each class, the others read it
    got = {"iv": interval(parsed, "auc", average="macro")}
    got["methods"] = scores.auc_methods(parsed, undefined="nan")
    got["fold"] = scores.auc(parsed, "fold", undefined="nan")
    got["p1"] = scores.precision_at_k(parsed, 1, "fold", undefined="nan")
    got["p3"] = scores.precision_at_k(parsed, 3, "fold", undefined="nan")
    got["ap"] = scores.average_precision(parsed, "merge", undefined="nan")
    got["other"] = scores.auc_methods(scores.parse(other), undefined="nan")
    for key, want in alone.items():
        if key == "iv":
            for v in ("estimate", "lower", "upper"):
                np.testing.assert_allclose(got[key][v], want[v], rtol=0, atol=1e-12)
        else:
            assert got[key].identical(want), key
    assert not np.array_equal(got["p1"].values, got["p3"].values, equal_nan=True)


@pytest.mark.parametrize("engine", ["numpy", "numba"])
def test_a_parse_sorts_each_class_once_in_either_engine(monkeypatch, engine):
    """AUC_avg and AUC_merge, the per-fold AUC and the DeLong variance: one sort a class."""
    if engine == "numba" and not _kernel.have_numba():
        pytest.skip("numba is not installed")
    monkeypatch.setattr(_kernel, "ENGINE", engine)
    df = _frame(3)
    alone = scores.auc_methods(df, undefined="nan"), scores.ranking.delong_frame(df)
    calls = []
    original = _keys.sorted_keys
    monkeypatch.setattr(_rank, "sorted_keys", lambda *a, **k: calls.append(1) or original(*a, **k))
    parsed = scores.parse(df)
    methods = scores.auc_methods(parsed, undefined="nan")
    fold = scores.auc(parsed, "fold", undefined="nan")
    res = scores.ranking.delong_frame(parsed)
    roc = scores.roc(parsed, auc=True)
    assert len(calls) == 3  # one per class
    assert methods.identical(alone[0]) and res.identical(alone[1])
    np.testing.assert_array_equal(fold.mean("fold").values, methods["auc_avg"].values)
    pd.testing.assert_frame_equal(roc, scores.roc(df, auc=True))
    assert len(calls) == 3 + 2 * 3  # the frame alone: a sort by fold and one by repeat a class


def test_one_parse_warns_and_changes_nothing():
    df = _frame(4)
    with pytest.warns(FutureWarning, match=r"scores\.parse\(df") as caught:
        block = scores.one_parse()
    assert caught[0].filename == __file__  # it names the caller's line
    with block:
        got = scores.auc_methods(df, undefined="nan")
    assert got.identical(scores.auc_methods(df, undefined="nan"))
