"""Simulated cross-validation: the bias and spread of every F-measure estimator.

A simulated experiment of the model of Forman & Scholz (2010, Section 4.2; see
:func:`simulate`) is an ordinary counts cube with a ``trial`` dimension, so the estimators
under test are the very same cube methods (:func:`cvframe.reduce.f_methods`) a user applies
to real folds.

Public functions: :func:`simulate` (the cube), :func:`bias_study` (relative bias and
spread of the five estimators over a grid, exact where tractable, Monte Carlo otherwise,
chunked on dask), :func:`p_fold_without_positives` (the paper's Figure 9),
:func:`fold_risk_curve` (that figure's curves as a tidy frame, what
:func:`cvframe.plot.fold_risk` draws) and :func:`power_study` (type I error and power of the
paired tests of two models, :mod:`.power`).

Layout: ``_model`` (the design, its argument checks and distributions), ``_sampler`` (the
numpy draws, reproducible whatever the chunking), ``cube`` (:func:`simulate`), ``exact``
(summed expectations and Figure 9), ``risk`` (Figure 9's frame), ``study``
(:func:`bias_study`) and ``_scheduler`` (threads of this process, dask processes or a
distributed cluster).
"""

from __future__ import annotations

from .coverage import coverage_study
from .cube import simulate
from .exact import p_fold_without_positives
from .plan import Plan, plan
from .power import power_study
from .risk import fold_risk_curve
from .study import ESTIMATORS, EXACT_ESTIMATORS, bias_study, study_for_netcdf

__all__ = [
    "ESTIMATORS",
    "EXACT_ESTIMATORS",
    "Plan",
    "bias_study",
    "coverage_study",
    "fold_risk_curve",
    "p_fold_without_positives",
    "plan",
    "power_study",
    "simulate",
    "study_for_netcdf",
]
