"""F from the rates at a prevalence (Figure 1b) and the F-surface plot.

Oracles: exact fractions (precision = pi TPR / (pi TPR + (1 - pi) FPR), then the harmonic
mean), the counts formula at integer counts, and the contour lines of the plot evaluated
back through the formula.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import xarray as xr
from hypothesis import given
from hypothesis import strategies as st

import cvframe
from cvframe import formulas


def _exact(tpr: Fraction, fpr: Fraction, pi: Fraction, beta: Fraction = Fraction(1)) -> Fraction:
    if tpr == 0:
        return Fraction(0)
    precision = pi * tpr / (pi * tpr + (1 - pi) * fpr)
    b2 = beta * beta
    return (1 + b2) * precision * tpr / (b2 * precision + tpr)


fractions_01 = st.fractions(0, 1, max_denominator=1000)
prevalences = st.fractions(Fraction(1, 1000), Fraction(999, 1000), max_denominator=1000)


@given(
    fractions_01,
    fractions_01,
    prevalences,
    st.sampled_from([Fraction(1), Fraction(2), Fraction(1, 2)]),
)
def test_f_from_rates_equals_the_exact_fraction(tpr, fpr, pi, beta):
    got = formulas.f_from_rates(float(tpr), float(fpr), float(pi), beta=float(beta))
    assert got == pytest.approx(float(_exact(tpr, fpr, pi, beta)), rel=1e-13, abs=1e-300)


@given(st.integers(0, 60), st.integers(0, 60), st.integers(0, 300), st.integers(1, 300))
def test_f_from_rates_is_f_of_the_counts(tp, fn, fp, tn):
    if tp + fn == 0:
        fn = 1
    n_pos, n_neg = tp + fn, fp + tn
    got = formulas.f_from_rates(tp / n_pos, fp / n_neg, n_pos / (n_pos + n_neg))
    assert got == pytest.approx(float(Fraction(2 * tp, 2 * tp + fp + fn)), rel=1e-12)


def test_paper_figure_1b_values_at_one_percent_positives():
    # TPR 0.5 without false positives: precision 1, F = 2/3; 1% FPR: precision 50/149
    assert formulas.f_from_rates(0.5, 0.0, 0.01) == pytest.approx(2 / 3, rel=1e-15)
    exact = _exact(Fraction(1, 2), Fraction(1, 100), Fraction(1, 100))
    assert exact == Fraction(100, 249)
    assert formulas.f_from_rates(0.5, 0.01, 0.01) == pytest.approx(100 / 249, rel=1e-15)
    # FPR = 1/99 at 1% positives: twice as many false as true positives, precision 1/3
    assert _exact(Fraction(1, 2), Fraction(1, 99), Fraction(1, 100)) == Fraction(2, 5)
    assert formulas.f_from_rates(0.5, 1 / 99, 0.01) == pytest.approx(0.4, rel=1e-15)


def test_f_from_rates_broadcasts_and_keeps_dataarrays():
    tpr = np.linspace(0, 1, 5)[:, None]
    fpr = np.linspace(0, 1, 3)[None, :]
    out = formulas.f_from_rates(tpr, fpr, 0.2)
    assert out.shape == (5, 3)
    want = [
        [
            float(
                _exact(
                    Fraction(t).limit_denominator(), Fraction(f).limit_denominator(), Fraction(1, 5)
                )
            )
            for f in fpr[0]
        ]
        for t in tpr[:, 0]
    ]
    np.testing.assert_allclose(out, want, rtol=1e-13)
    pis = np.array([0.01, 0.5])
    assert formulas.f_from_rates(0.5, 0.01, pis).shape == (2,)
    da = xr.DataArray([0.2, 0.8], dims="t")
    res = formulas.f_from_rates(da, 0.1, 0.3)
    assert isinstance(res, xr.DataArray) and res.dims == ("t",)
    np.testing.assert_allclose(res, formulas.f_from_rates(np.array([0.2, 0.8]), 0.1, 0.3))


def test_f_from_rates_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="tpr"):
        formulas.f_from_rates(1.5, 0.1, 0.1)
    with pytest.raises(ValueError, match="fpr"):
        formulas.f_from_rates(0.5, [-0.1, 0.2], 0.1)
    with pytest.raises(ValueError, match="prevalence"):
        formulas.f_from_rates(0.5, 0.1, 0.0)
    with pytest.raises(TypeError, match="beta"):
        formulas.f_from_rates(0.5, 0.1, 0.1, beta="2")
    assert np.isnan(formulas.f_from_rates(np.nan, 0.1, 0.1))


@pytest.mark.parametrize("kind", ["roc", "pr"])
def test_contour_lines_lie_on_their_f_level(kind):
    ax = cvframe.plot.f_surface(kind, prevalence=0.05, levels=[0.3, 0.6])
    sets = [c for c in ax.collections if hasattr(c, "levels") and len(c.levels) == 2]
    assert sets, "no contour lines drawn"
    lines = sets[-1]
    for level, path in zip(lines.levels, lines.get_paths(), strict=True):
        xy = path.vertices
        assert len(xy) > 10
        x, y = xy[:, 0], xy[:, 1]
        f = formulas.f_from_rates(y, x, 0.05) if kind == "roc" else formulas.f_from_pr(y, x)
        np.testing.assert_allclose(f, level, atol=5e-3)
    labels = (
        ("false positive rate", "true positive rate") if kind == "roc" else ("recall", "precision")
    )
    assert (ax.get_xlabel(), ax.get_ylabel()) == labels


def test_f_surface_draws_into_a_given_axes_and_checks_its_arguments():
    import matplotlib.pyplot as plt

    _, ax = plt.subplots()
    assert cvframe.plot.f_surface("pr", ax=ax, levels=4) is ax
    with pytest.raises(ValueError, match="kind='f'"):
        cvframe.plot.f_surface("f")
    with pytest.raises(ValueError, match="prevalence"):
        cvframe.plot.f_surface(prevalence=1.0)
    with pytest.raises(ValueError, match="levels"):
        cvframe.plot.f_surface(levels=[1.5])
