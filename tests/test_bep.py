"""The interpolated precision-recall break-even point, against a brute-force threshold sweep.

The oracle sweeps every distinct score as a threshold with plain comparisons in exact
fractions, finds where P - R changes sign and interpolates there; it checks that the point
found is a sign change and that precision equals recall at the interpolated point.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cvframe  # noqa: F401  (registers df.cv)
from cvframe import scores
from cvframe.errors import UndefinedMetricWarning


def brute_bep(y, s):
    """The BEP of one group by a threshold sweep in exact fractions (NaN without positives)."""
    npos = sum(int(v) for v in y)
    if npos == 0:
        return math.nan
    pts = []
    for t in sorted(set(s), reverse=True):
        k = sum(1 for v in s if v >= t)
        tp = sum(1 for v, lab in zip(s, y, strict=True) if v >= t and lab)
        pts.append((Fraction(tp, k), Fraction(tp, npos), k))
    d = [p - r for p, r, _ in pts]
    # the sign change: d >= 0 above the crossing, d <= 0 from it on
    j = next(i for i, (_, _, k) in enumerate(pts) if k >= npos)
    assert all(x <= 0 for x in d[j:]) and all(x >= 0 for x in d[:j])
    p1, r1, k1 = pts[j]
    if k1 == npos:
        assert p1 == r1
        return p1
    if j == 0:  # above the top threshold precision is taken as the top run's
        p0, r0 = p1, Fraction(0)
    else:
        p0, r0, _ = pts[j - 1]
    d0, d1 = p0 - r0, p1 - r1
    lam = d0 / (d0 - d1) if d0 != d1 else Fraction(0)
    bep = p0 + lam * (p1 - p0)
    assert bep == r0 + lam * (r1 - r0)  # precision = recall on the segment
    return bep


def _frame(groups):
    rows = [
        (g, lab, sc) for g, (ys, ss) in enumerate(groups) for lab, sc in zip(ys, ss, strict=True)
    ]
    return pd.DataFrame(rows, columns=["fold", "y_true", "score"])


# --- worked cases ----------------------------------------------------------------------------


def test_no_ties_is_the_r_precision_and_sklearns_crossing():
    from sklearn.metrics import precision_recall_curve

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    s = rng.normal(size=200) + y
    df = pd.DataFrame({"fold": np.arange(200) % 4, "y_true": y, "score": s})
    got = scores.break_even_point(df, method="fold")
    np.testing.assert_allclose(got.values, scores.r_precision(df, method="fold").values)
    for f in range(4):
        m = df.fold == f
        p, r, _ = precision_recall_curve(df.y_true[m], df.score[m])
        eq = np.isclose(p, r) & (r > 0)
        assert eq.any()
        assert got.sel(fold=f).item() == pytest.approx(p[eq][0])


def test_tied_run_interpolates_precision_and_recall():
    # P = 1, R = 1/3 at the top score; P = 1/2, R = 2/3 once the tied run (0.5) enters.
    df = pd.DataFrame({"fold": 0, "y_true": [1, 1, 0, 0, 1], "score": [0.9, 0.5, 0.5, 0.5, 0.1]})
    assert scores.break_even_point(df).item() == pytest.approx(0.6)
    assert scores.r_precision(df).item() == pytest.approx(5 / 9)  # differs under ties


def test_all_tied_scorer_has_the_prevalence_and_no_negatives_gives_one():
    tied = pd.DataFrame({"fold": 0, "y_true": [1, 0, 0, 0, 1, 0], "score": 0.3})
    assert scores.break_even_point(tied).item() == pytest.approx(2 / 6)
    allpos = pd.DataFrame({"fold": 0, "y_true": [1, 1, 1], "score": [0.1, 0.5, 0.5]})
    assert scores.break_even_point(allpos).item() == 1.0


def test_merge_and_avg():
    df = pd.DataFrame(
        {
            "fold": [0, 0, 0, 0, 1, 1, 1, 1],
            "y_true": [0, 0, 1, 1, 0, 1, 0, 1],
            "score": [0.1, 0.4, 0.35, 0.8, 10.0, 10.5, 10.2, 11.0],
        }
    )
    assert df.cv.break_even_point().item() == pytest.approx(0.75)
    merged = df.cv.break_even_point(method="merge").item()
    assert merged == pytest.approx(float(brute_bep(df.y_true.tolist(), df.score.tolist())))


def test_undefined_fold_warns_once_and_is_skipped():
    df = _frame([([0, 0, 0], [0.1, 0.2, 0.3]), ([1, 0, 1], [0.9, 0.1, 0.8])])
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        got = df.cv.break_even_point()
    hits = [w for w in rec if issubclass(w.category, UndefinedMetricWarning)]
    assert len(hits) == 1 and "no positives" in str(hits[0].message)
    assert got.item() == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nan = df.cv.break_even_point(undefined="nan")
    assert np.isnan(nan.item())


def test_multiclass_one_vs_all_and_averages():
    rng = np.random.default_rng(5)
    n = 120
    y = rng.choice(["a", "b", "c"], n)
    df = pd.DataFrame({"fold": np.arange(n) % 3, "y_true": y})
    for lab in "abc":
        df[f"score_{lab}"] = np.round(rng.random(n) + (y == lab), 1)  # ties on purpose
    per_class = df.cv.break_even_point(method="fold")
    for f in range(3):
        for lab in "abc":
            m = df.fold == f
            want = brute_bep((df.y_true[m] == lab).tolist(), df[f"score_{lab}"][m].tolist())
            assert per_class.sel(fold=f, **{"class": lab}).item() == pytest.approx(float(want))
    macro = df.cv.break_even_point(average="macro")
    assert macro.item() == pytest.approx(df.cv.break_even_point().mean("class").item())


def test_repeat_and_model_dims_are_kept():
    rng = np.random.default_rng(2)
    parts = []
    for model in ("m1", "m2"):
        for rep in range(2):
            y = rng.integers(0, 2, 40)
            parts.append(
                pd.DataFrame(
                    {
                        "model": model,
                        "repeat": rep,
                        "fold": np.arange(40) % 4,
                        "y_true": y,
                        "score": rng.random(40) + y,
                    }
                )
            )
    got = scores.break_even_point(pd.concat(parts, ignore_index=True))
    assert set(got.dims) == {"model", "repeat", "class"}


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"method": "mean"}, "method"),
        ({"undefined": "zero"}, "undefined"),
        ({"average": "micro"}, "average"),
    ],
)
def test_bad_options_name_themselves(kwargs, match):
    df = pd.DataFrame({"fold": 0, "y_true": [0, 1], "score": [0.1, 0.9]})
    with pytest.raises(ValueError, match=match):
        scores.break_even_point(df, **kwargs)


# --- the brute-force oracle on random data (hypothesis) ----------------------------------


@st.composite
def folds(draw):
    k = draw(st.integers(1, 3))
    grid = draw(st.sampled_from([3, 6, 1000]))  # few distinct scores: many ties
    out = []
    for _ in range(k):
        n = draw(st.integers(1, 25))
        ys = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
        ss = draw(st.lists(st.integers(0, grid), min_size=n, max_size=n))
        out.append((ys, [v / grid - 0.5 for v in ss]))
    return out


@settings(max_examples=50)
@given(folds())
def test_against_a_brute_force_threshold_sweep(groups):
    df = _frame(groups)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        per_fold = scores.break_even_point(df, method="fold", undefined="nan")
        merged = scores.break_even_point(df, method="merge", undefined="nan")
        avg = scores.break_even_point(df, undefined="nan")
    want = [float(brute_bep(ys, ss)) for ys, ss in groups]
    np.testing.assert_allclose(per_fold.values.ravel(), want, rtol=1e-12, atol=1e-15)
    ys = [v for g in groups for v in g[0]]
    ss = [v for g in groups for v in g[1]]
    assert merged.item() == pytest.approx(float(brute_bep(ys, ss)), nan_ok=True)
    assert avg.item() == pytest.approx(np.mean(want), nan_ok=True)
    ok = ~np.isnan(per_fold.values)
    assert np.all((per_fold.values[ok] >= 0) & (per_fold.values[ok] <= 1))
