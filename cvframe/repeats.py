r"""Results across repeats of a repeated cross-validation: :func:`summary`.

Fold aggregation reduces ``fold`` within each repeat and keeps ``repeat``; :func:`summary`
then gives the mean, the standard deviation, the standard error and a Student-t confidence
interval of any such result across repeats (or across any other dim).
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import numpy as np
import xarray as xr

from . import _checks
from ._docs import doc
from .errors import UndefinedMetricWarning, user_stacklevel
from .reduce import f_tp_fp
from .schema import REPEAT

__all__ = ["STACKED", "summary"]

#: The dim along which summary() stacks the variables of a Dataset result.
STACKED = "variable"


@doc
def summary(
    ds: xr.Dataset,
    result: xr.DataArray | xr.Dataset | None = None,
    dim: str = REPEAT,
    ci: float = 0.95,
    *,
    ddof: int = 1,
) -> xr.Dataset:
    r"""Mean, spread and a Student-t confidence interval of a result across repeats.

    For the :math:`n` values :math:`x_j` of ``result`` along ``dim``:

    .. math::
        \bar x = \frac1n\sum_j x_j,\quad
        s = \sqrt{\frac{1}{n-\delta}\sum_j (x_j - \bar x)^2},\quad
        \text{sem} = \frac{s_1}{\sqrt n},\quad
        \bar x \pm t_{n-1,\,(1+ci)/2}\,\text{sem}

    where :math:`\delta` is ``ddof`` (1: the sample standard deviation, the default; 0:
    the population standard deviation, the "mean ± sd over folds" that course slides and
    many tools print) and :math:`s_1` is the sample standard deviation (:math:`\delta=1`),
    which the standard error and the interval always use.

    Parameters
    ----------
    ds : xarray.Dataset
        The counts cube; used to compute the default ``result``.
    result : xarray.DataArray or xarray.Dataset, optional
        A result computed from ``ds`` that still has ``dim`` (e.g. ``ds.cv.macro()``).
        Default ``f_tp_fp(ds)`` (pooled F per repeat and class). A Dataset (e.g.
        ``ds.cv.f_methods()``) is stacked along a new ``variable`` dim (xarray's
        ``to_array`` default), one entry per data variable, so every statistic compares the
        methods side by side: ``s["mean"].sel(variable="f_avg")``. (Not a dim named
        ``method``: ``.sel(method=...)`` is xarray's interpolation keyword.)
    dim : str, default "repeat"
        The dim to summarise over; it must exist.
    ci : float, default 0.95
        Confidence level, strictly between 0 and 1.
    ddof : {1, 0}, default 1
        Delta degrees of freedom of ``std``: 1 for the sample standard deviation, 0 for the
        population one. ``sem`` and the interval do not depend on it.

    Returns
    -------
    xarray.Dataset
        Variables ``mean``, ``std`` (with ``ddof``), ``sem``, ``ci_low``, ``ci_high``
        (float64, without ``dim``; every other dim kept) and ``n`` (int64, the number of
        values). Attrs: ``method="summary"``, ``reduced_dims``, ``ci``, ``ddof`` (the
        ``std``'s) and the result's own attrs prefixed ``result_``.

    Raises
    ------
    ValueError
        When ``dim`` is absent, ``ci`` is not in (0, 1) or ``ddof`` is not 0 or 1.

    Warns
    -----
    UndefinedMetricWarning
        When ``dim`` has length 1: the mean is that value, and ``std``, ``sem`` and the
        interval (which need two values) are NaN.

    Notes
    -----
    NaN values (e.g. under ``zero_division=np.nan``) propagate; nothing is skipped. The
    interval treats repeats as independent draws, which they are not (they reuse the same
    data), so it is an optimistic measure of the uncertainty of a CV estimate: it shows the
    variation due to the random split, not the variation across data sets.

    References
    ----------
    <<reference>>

    Examples
    --------
    >>> import cvframe, xarray as xr
    >>> one = cvframe.datasets.slides_confusion()
    >>> ds = xr.concat([one, one], dim="repeat")
    >>> s = ds.cv.summary(ds.cv.micro())
    >>> float(s["mean"]), float(s["std"]), int(s["n"])
    (0.7, 0.0, 2)

    The slides' "mean (+/- sd)" over three folds of kappa 0, 1, 0 is the population sd:

    >>> k = xr.DataArray([0.0, 1.0, 0.0], dims="fold")
    >>> [round(float(ds.cv.summary(k, dim="fold", ddof=d)["std"]), 4) for d in (0, 1)]
    [0.4714, 0.5774]
    """
    from scipy.special import stdtrit  # the t quantile, as scipy.stats.t.ppf computes it

    ddof = _checks.integer(
        "ddof", ddof, low=0, high=1, fix="Use ddof=1 (sample sd) or ddof=0 (population sd)."
    )
    if isinstance(ci, bool) or not isinstance(ci, numbers.Real) or not 0 < float(ci) < 1:
        raise ValueError(
            f"ci={ci!r} must be a confidence level strictly between 0 and 1 (e.g. ci=0.95)."
        )
    if result is None:
        result = f_tp_fp(ds)
    if isinstance(result, xr.Dataset):
        if STACKED in result.dims:
            raise ValueError(
                f"result is a Dataset that already has a {STACKED!r} dim; pass "
                f"one of its variables {list(result.data_vars)} instead."
            )
        kept = dict(result.attrs)
        names = np.asarray(list(result.data_vars), dtype=object)  # str coords as object
        result = result.to_array(dim=STACKED).assign_coords({STACKED: names})
        result.attrs = kept
    elif not isinstance(result, xr.DataArray):
        raise TypeError(
            f"result must be an xarray DataArray or Dataset computed from ds "
            f"(e.g. ds.cv.macro()), got {type(result).__name__}."
        )
    if not isinstance(dim, str):
        raise TypeError(f"dim={dim!r} must be one dimension name, e.g. dim='repeat'.")
    (d,) = _checks.dims(result, dim)
    n = result.sizes[d]
    x = result.astype("float64")
    mean = x.mean(d, skipna=False)
    if n < 2:
        sd_words = "std, sem" if ddof == 1 else "sem"
        warnings.warn(
            f"dim={dim!r} has length {n}: {sd_words} and the interval across {dim!r} need at "
            "least 2 values (the sample standard deviation, ddof=1) and are NaN. Run more "
            "repeats.",
            UndefinedMetricWarning,
            stacklevel=user_stacklevel(),
        )
        sample_sd = xr.full_like(mean, np.nan)
        half = sample_sd
    else:
        sample_sd = x.std(d, ddof=1, skipna=False)
        half = float(stdtrit(n - 1, (1 + float(ci)) / 2)) * sample_sd / math.sqrt(n)
    std = sample_sd if ddof == 1 else x.std(d, ddof=0, skipna=False)
    sem = sample_sd / math.sqrt(n)
    stats = dict(mean=mean, std=std, sem=sem, ci_low=mean - half, ci_high=mean + half)
    out = xr.Dataset({**stats, "n": xr.DataArray(np.int64(n))})
    for v in out.data_vars.values():
        v.attrs = {}
    attrs: dict[str, Any] = {"method": "summary", "reduced_dims": d, "ci": float(ci), "ddof": ddof}
    for key, value in result.attrs.items():
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            attrs[f"result_{key}"] = value
    out.attrs = attrs
    return out
