r"""What every interval and test of cvframe shares: the references table, the corrected t and
how a metric reads the classes.

:func:`corrected_moments` is the mean, standard error and degrees of freedom of per-fold
values with the variance correction of Nadeau & Bengio (2003), which the corrected t interval
(:func:`cvframe.interval`) and the corrected t-test (:func:`cvframe.compare`) share;
:data:`REFERENCES` is the one table of the methods' references; :func:`whole` says whether a
count metric is one value over every class (no class average, no one-vs-rest class).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import xarray as xr

from .. import formulas, metrics
from .._core.labels import frame as frame_reader
from .._core.quantiles import t_quantile
from ..schema import CLASS, FOLD, REPEAT, read_counts

__all__ = ["REFERENCES", "Ask", "corrected_moments", "data_in_memory", "t_interval", "whole"]

#: The reference of every interval method (copied to a result's ``attrs["reference"]``).
REFERENCES = {
    "posterior": (
        "C. Goutte and E. Gaussier, A probabilistic interpretation of precision, recall and "
        "F-score, with implication for evaluation, ECIR 2005; L. D. Brown, T. T. Cai and A. "
        "DasGupta, Interval estimation for a binomial proportion, Statistical Science 16(2), "
        "2001 (Jeffreys prior); class averages and metrics of every class: Y. Takahashi, M. "
        "Yamamoto, H. Kuchiba and T. Koyama, Confidence interval for micro-averaged F1 and "
        "macro-averaged F1 scores, Applied Intelligence 52, 2022 (delta method of the "
        "multinomial confusion matrix, here on the logit scale); D. B. Rubin, The Bayesian "
        "bootstrap, Annals of Statistics 9(1), 1981."
    ),
    "bootstrap": (
        "B. Efron and R. Tibshirani, An Introduction to the Bootstrap, 1993, ch. 13 and 16 "
        "(percentile interval; resampled within strata fold x true class)."
    ),
    "delong": (
        "E. R. DeLong, D. M. DeLong and D. L. Clarke-Pearson, Comparing the areas under two "
        "or more correlated receiver operating characteristic curves: a nonparametric "
        "approach, Biometrics 44(3), 1988; X. Sun and W. Xu, Fast implementation of DeLong's "
        "algorithm for comparing the areas under correlated receiver operating characteristic "
        "curves, IEEE Signal Processing Letters 21(11), 2014 (logit scale)."
    ),
    "corrected_t": (
        "C. Nadeau and Y. Bengio, Inference for the generalization error, Machine Learning "
        "52(3), 2003; R. Bouckaert and E. Frank, Evaluating the replicability of significance "
        "tests for comparing learning algorithms, PAKDD 2004 (WEKA PairedCorrectedTTester)."
    ),
    "nested": (
        "S. Bates, T. Hastie and R. Tibshirani, Cross-validation: what does it estimate and "
        "how well does it do it?, Journal of the American Statistical Association 119(546), "
        "2024."
    ),
}


class Ask(NamedTuple):
    """The options of one :func:`cvframe.interval` call that its methods read (``n_draws``:
    bootstrap resamples or Monte-Carlo posterior draws; ``seed``: their seed)."""

    level: float
    beta: float
    zero_division: Any
    average: str | None
    n_draws: int
    seed: int


def data_in_memory(data: Any) -> Any:
    """The ``data`` an interval or a test reads: the counts cube computed (a dask-backed cube
    is read once), or the predictions frame's test rows (a dask frame computed)."""
    if frame_reader.is_dask_frame(data):
        data = data.compute()
    if isinstance(data, pd.DataFrame):
        return frame_reader.test_rows(data)
    if not isinstance(data, xr.Dataset):
        raise TypeError(
            f"data must be a counts cube (xarray.Dataset) or a predictions frame "
            f"(pandas.DataFrame), got {type(data).__name__}."
        )
    if any(v.chunks is not None for v in data.variables.values()):
        data = data.compute()
    return data


def t_interval(
    mean: xr.DataArray, se: xr.DataArray, df: xr.DataArray, level: float
) -> dict[str, xr.DataArray]:
    """The mean and its ``level`` Student t interval on ``df`` degrees of freedom."""
    q = t_quantile(level, df)
    return {"mean": mean, "low": mean - q * se, "high": mean + q * se, "df": df.astype("float64")}


def corrected_moments(
    d: xr.DataArray, ds: xr.Dataset, dim: str, test: str
) -> tuple[xr.DataArray, xr.DataArray, xr.DataArray, dict[str, Any]]:
    r"""Mean, standard error and degrees of freedom of per-fold values ``d`` over the
    repeats x folds: :math:`\sqrt{(1/n + n_{test}/n_{train})\,\hat\sigma^2}` (Nadeau & Bengio
    2003), uncorrected (:math:`1/n`) for ``test="t"``; :math:`n_{test}/n_{train}` from the fold
    totals of ``ds`` (the first entry of ``dim``)."""
    x = (d if REPEAT in d.dims else d.expand_dims(REPEAT)).stack(_obs=(REPEAT, FOLD))
    n = x.notnull().sum("_obs")
    if int(n.min()) < 2:
        raise ValueError(
            f"test={test!r} needs at least two folds per comparison (got {int(n.min())}); "
            "run more folds or repeats."
        )
    ratio: Any = 0.0
    info: dict[str, Any] = {"n_folds_used": int(n.max())}
    if test != "t":
        tests = read_counts(ds).n.isel({CLASS: 0, dim: 0}, drop=True)
        tests = tests.where(tests > 0)
        if REPEAT not in tests.dims:
            tests = tests.expand_dims(REPEAT)
        trains = (tests.sum(FOLD) - tests).where(tests.notnull())
        ratio = tests.sum((REPEAT, FOLD)) / trains.sum((REPEAT, FOLD))
        info["n_test"] = float(tests.mean().item())
        info["n_train"] = float(trains.mean().item())
        info["test_train_ratio"] = float(ratio.mean().item())
    se = np.sqrt((1.0 / n + ratio) * x.var("_obs", ddof=1))
    return x.mean("_obs"), se, n - 1, info


def whole(metric: str) -> str | None:
    """How a count metric of :data:`cvframe.metrics.REGISTRY` reads the classes of
    single-label data: ``"correct"``, the share of correctly classified samples (the metric
    whose pooled test is McNemar's, which compares exactly that: accuracy); ``"all"``, one
    value of every class at once (an ``over_classes`` formula, such as Matthews correlation);
    None, one value per class (averaged by ``average=``, or one class against the rest).

    >>> whole("accuracy"), whole("f"), whole("auc")
    ('correct', None, None)
    """
    entry = metrics.REGISTRY[metric]
    if entry.kind != "count":
        return None
    if formulas.METRIC_SPECS[entry.kernel].over_classes:
        return "all"
    return "correct" if entry.tests.get(entry.pooled) == "mcnemar" else None
