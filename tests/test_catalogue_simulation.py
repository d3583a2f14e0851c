"""Catalogue of unusual inputs to the simulation entry points.

One row per input: a bad argument raises the promised error type with a message that names the
argument; a trivial or extreme case gives its exact value (a formula written here).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import xarray as xr

import cvframe
from cvframe.simulation import bias_study, p_fold_without_positives, simulate

NAN = float("nan")


# --- simulate: every bad argument is a ValueError naming it --------------------------------
@pytest.mark.parametrize(
    "kwargs,name",
    [
        ({"trials": True}, "trials"),
        ({"trials": False}, "trials"),
        ({"trials": 2.5}, "trials"),
        ({"trials": "10"}, "trials"),
        ({"trials": 0}, "trials"),
        ({"trials": -5}, "trials"),
        ({"trials": np.bool_(True)}, "trials"),
        ({"trials": None}, "trials"),
        ({"n": True}, "n"),
        ({"n": 1}, "n"),
        ({"n": 99.5}, "n"),
        ({"k": True}, "k"),
        ({"k": 1}, "k"),
        ({"k": 2.5}, "k"),
        ({"k": 1001}, "k"),
        ({"prevalence": True}, "prevalence"),
        ({"prevalence": 0}, "prevalence"),
        ({"prevalence": 1}, "prevalence"),
        ({"prevalence": "0.1"}, "prevalence"),
        ({"prevalence": NAN}, "prevalence"),
        ({"prevalence": float("inf")}, "prevalence"),
        ({"prevalence": 0.0001}, "prevalence"),
        ({"f": 0}, "f"),
        ({"f": 1.5}, "f"),
        ({"f": True}, "f"),
        ({"f": NAN}, "f"),
        ({"stratified": "yes"}, "stratified"),
        ({"stratified": 1}, "stratified"),
        ({"stratified": None}, "stratified"),
        ({"seed": -1}, "seed"),
        ({"seed": True}, "seed"),
        ({"seed": 1.5}, "seed"),
        ({"seed": "abc"}, "seed"),
        ({"chunks": 0}, "chunks"),
        ({"chunks": True}, "chunks"),
        ({"chunks": 2.5}, "chunks"),
    ],
)
def test_simulate_bad_argument(kwargs, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        simulate(**{"trials": 10, **kwargs})


@pytest.mark.parametrize(
    "kwargs,name",
    [
        ({"trials": True}, "trials"),
        ({"trials": 0.5}, "trials"),
        ({"chunks": True}, "chunks"),
        ({"exact": "yes"}, "exact"),
        ({"exact": 1}, "exact"),
        ({"stratified": ["yes"]}, "stratified"),
        ({"stratified": [1, 0]}, "stratified"),
        ({"prevalence": []}, "prevalence"),
        ({"f": [0.8, 2.0]}, "f"),
        ({"k": 1}, "k"),
        ({"n": True}, "n"),
        ({"k": True}, "k"),
        ({"seed": -2}, "seed"),
    ],
)
def test_bias_study_bad_argument(kwargs, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        bias_study(**{"trials": 10, "progress": False, **kwargs})


@pytest.mark.parametrize(
    "kwargs,name",
    [
        ({"n_pos": True}, "n_pos"),
        ({"n_pos": 2.5}, "n_pos"),
        ({"n_pos": "3"}, "n_pos"),
        ({"n_pos": -1}, "n_pos"),
        ({"n_pos": 1001}, "n_pos"),
        ({"n_pos": [3, NAN]}, "n_pos"),
        ({"n_pos": 5, "trials": True}, "trials"),
        ({"n_pos": 5, "trials": 0}, "trials"),
        ({"n_pos": 5, "trials": 2.5}, "trials"),
        ({"n_pos": 5, "trials": [1, -1]}, "trials"),
        ({"n_pos": 5, "n": True}, "n"),
        ({"n_pos": 5, "n": 1}, "n"),
        ({"n_pos": 5, "k": True}, "k"),
        ({"n_pos": 5, "k": 1}, "k"),
        ({"n_pos": 5, "k": 2000}, "k"),
        ({"n_pos": 5, "k": 3.5}, "k"),
    ],
)
def test_p_fold_without_positives_bad_argument(kwargs, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        p_fold_without_positives(**kwargs)


# --- p_fold_without_positives: trivial cases answered exactly, big inputs bounded ----------
@pytest.mark.parametrize(
    "n_pos,n,k,expected",
    [
        (0, 10, 2, 1.0),  # no positives: every fold lacks them
        (0, 10**9, 1000, 1.0),
        (1, 10**9, 2, 1.0),  # fewer positives than folds (pigeonhole)
        (999, 10**9, 1000, 1.0),
        (9, 1000, 10, 1.0),
        (10**6 - 1, 10**9, 10**6, 1.0),
        (1000, 1000, 10, 0.0),  # all positives: no fold without one
        (95, 100, 10, 0.0),  # 5 negatives cannot fill a fold of 10
        (10**9 - 10**5, 10**9, 10**5, 0.0),  # 10**5 negatives, folds of 10**4: cannot fill one
        (10**5, 10**9, 10, 0.0),  # 10 * 0.9**100000 underflows to 0
        (10**4, 10**9, 10**6, 1.0),  # many folds, few positives each: 1 to double
    ],
)
def test_p_fold_without_positives_trivial_and_extreme(n_pos, n, k, expected):
    assert p_fold_without_positives(n_pos, n=n, k=k) == expected


@pytest.mark.parametrize("n_pos,n", [(3, 10**6), (25, 10**7), (2, 10**9)])
def test_p_fold_without_positives_two_folds_closed_form(n_pos, n):
    # two equal folds: some fold empty iff all positives in one, 2*C(n/2, r)/C(n, r)
    exact = Fraction(2 * math.comb(n // 2, n_pos), math.comb(n, n_pos))
    assert p_fold_without_positives(n_pos, n=n, k=2) == pytest.approx(float(exact), rel=1e-13)


@pytest.mark.parametrize("n_pos,n,k", [(20, 10**6, 10), (60, 10**7, 10), (300, 10**6, 50)])
def test_p_fold_without_positives_large_n_equals_inclusion_exclusion(n_pos, n, k):
    s = n // k
    acc = sum(
        (-1) ** (j + 1) * math.comb(k, j) * math.comb(n - j * s, n_pos) for j in range(1, k + 1)
    )
    expected = float(Fraction(acc, math.comb(n, n_pos)))
    assert p_fold_without_positives(n_pos, n=n, k=k) == pytest.approx(expected, rel=1e-12)


def test_p_fold_without_positives_vector_of_trivial_and_trials():
    got = p_fold_without_positives(np.array([0, 5, 9, 1000]), n=1000, k=10, trials=3)
    np.testing.assert_array_equal(got, [1.0, 1.0, 1.0, 0.0])


# --- the study file reads back like the study in memory ------------------------------------
def test_study_file_round_trip_keeps_booleans(tmp_path):
    study = bias_study(
        prevalence=(0.02, 0.05), f=0.8, stratified=(True, False), trials=400, seed=1, progress=False
    )
    assert study.stratified.dtype == bool and study.exact.dtype == bool
    assert [type(v) for v in study.stratified.values.tolist()] == [bool, bool]
    path = tmp_path / "bias_study.nc"
    cvframe.simulation.study_for_netcdf(study).to_netcdf(path)
    back = cvframe.open_dataset(path)
    assert back.stratified.dtype == bool and back.exact.dtype == bool
    assert back.stratified.values.tolist() == [True, False]
    xr.testing.assert_identical(back, study)
    # selecting the unstratified panel by boolean works as in memory ("no" is not truthy)
    np.testing.assert_array_equal(
        back.rel_bias.sel(stratified=False).values, study.rel_bias.sel(stratified=False).values
    )
    assert not bool(back.stratified.values[1])


def test_study_stratified_coordinate_from_numpy_bools():
    study = bias_study(
        prevalence=0.05,
        f=0.8,
        stratified=np.array([False]),
        trials=50,
        seed=2,
        progress=False,
        exact=False,
    )
    assert study.stratified.dtype == bool and study.stratified.values.tolist() == [False]
