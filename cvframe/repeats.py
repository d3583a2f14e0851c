r"""Results across repeats of a repeated cross-validation: :func:`summary` (mean and spread
across repeats of any result that keeps ``repeat``, beside an interval for the metric),
:func:`variance_components` (the within- and across-repeat parts of the spread of per-fold
values) and :func:`fold_composition` (what every fold holds).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import xarray as xr

from ._core import checks as _checks
from ._core import quantiles
from ._core.docs import doc
from ._core.quantiles import t_quantile
from .errors import UndefinedMetricWarning, user_stacklevel
from .reduce import aggregate, f_tp_fp, fold_dims
from .schema import CLASS, FOLD, REPEAT, read_counts

__all__ = ["STACKED", "fold_composition", "summary", "variance_components"]

#: The dim along which summary() stacks the variables of a Dataset result.
STACKED = "variable"


@doc
def summary(
    ds: xr.Dataset,
    result: xr.DataArray | xr.Dataset | None = None,
    dim: str = REPEAT,
    level: float = 0.95,
    *,
    ddof: int = 1,
    interval: xr.Dataset | None = None,
    ci: float | None = None,
) -> xr.Dataset:
    r"""Mean and spread of a result across repeats, and (``interval=``) an interval for it.

    For the :math:`n` values :math:`x_j` of ``result`` along ``dim``:

    .. math::
        \bar x = \frac1n\sum_j x_j,\quad
        s = \sqrt{\frac{1}{n-\delta}\sum_j (x_j - \bar x)^2},\quad
        \text{sem} = \frac{s_1}{\sqrt n},\quad
        \bar x \pm t_{n-1,\,(1+level)/2}\,\text{sem}

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
    level : float, default 0.95
        Confidence level of ``ci_low``/``ci_high``, strictly between 0 and 1.
    ddof : {1, 0}, default 1
        Delta degrees of freedom of ``std``: 1 for the sample standard deviation, 0 for the
        population one. ``sem`` and the interval do not depend on it.
    interval : xarray.Dataset, optional
        The result of :func:`cvframe.interval` (``ds.cv.interval(...)``) for the same
        number: its ``estimate``, ``lower`` and ``upper`` are added to the summary, and its
        ``method``, ``level``, ``estimand``, ``training_variability`` and ``reference``
        attrs as ``interval_<name>``. Its dims must be among the summary's.
    ci : float, optional
        Deprecated: the former name of ``level``; warns with a :class:`FutureWarning`.

    Returns
    -------
    xarray.Dataset
        Variables ``mean``, ``std`` (with ``ddof``), ``sem``, ``ci_low``, ``ci_high``
        (float64, without ``dim``; every other dim kept) and ``n`` (int64, the number of
        values); with ``interval``, also ``estimate``, ``lower`` and ``upper``. Attrs:
        ``method="summary"``, ``reduced_dims``, ``level``, ``ddof`` (the ``std``'s),
        ``spread`` (what ``ci_low``/``ci_high`` are), the result's own attrs prefixed
        ``result_`` and, with ``interval``, the interval's prefixed ``interval_``.

    Raises
    ------
    ValueError
        When ``dim`` is absent, ``level`` is not in (0, 1), ``ddof`` is not 0 or 1, or
        ``interval`` is not an interval Dataset over the summary's dims.

    Warns
    -----
    UndefinedMetricWarning
        When ``dim`` has length 1: the mean is that value, and ``std``, ``sem`` and the
        interval (which need two values) are NaN.

    Notes
    -----
    NaN values (e.g. under ``zero_division=np.nan``) propagate; nothing is skipped.

    ``ci_low``/``ci_high`` are the **spread across partitions**, not an interval for the
    metric: they treat the repeats as independent draws, which they are not (every repeat
    re-uses the same samples), so as an interval for the metric they are far too narrow —
    with many repeats they shrink to the mean of this data's partitions. They answer "how
    much does the number move when the data are split differently?"; the result's
    ``spread`` attr says so. For how sure the number is, pass ``interval=`` the result of
    :func:`cvframe.interval`, which states its estimand, method and reference.
    :func:`variance_components` splits the per-fold spread into its within- and
    across-repeat parts.

    <<references>>

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
    ddof = _checks.integer(
        "ddof", ddof, low=0, high=1, fix="Use ddof=1 (sample sd) or ddof=0 (population sd)."
    )
    level = quantiles.level(level, ci=ci)
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
        half = sample_sd = xr.full_like(mean, np.nan)
    else:
        sample_sd = x.std(d, ddof=1, skipna=False)
        half = float(t_quantile(level, n - 1)) * sample_sd / math.sqrt(n)
    std = sample_sd if ddof == 1 else x.std(d, ddof=0, skipna=False)
    sem = sample_sd / math.sqrt(n)
    stats = dict(mean=mean, std=std, sem=sem, ci_low=mean - half, ci_high=mean + half)
    out = xr.Dataset({**stats, "n": xr.DataArray(np.int64(n))})
    for v in out.data_vars.values():
        v.attrs = {}
    attrs: dict[str, Any] = {"method": "summary", "reduced_dims": d, "level": level, "ddof": ddof}
    attrs["spread"] = SPREAD
    for key, value in result.attrs.items():
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            attrs[f"result_{key}"] = value
    if interval is not None:
        out, extra = _with_interval(out, interval)
        attrs.update(extra)
    out.attrs = attrs
    return out


#: What ``ci_low``/``ci_high`` of :func:`summary` are (its ``spread`` attr).
SPREAD = (
    "ci_low/ci_high: Student-t interval of the mean across the summarised dim, treating "
    "repeats as independent; the repeats re-use the same samples, so this is the spread "
    "across partitions, not an interval for the metric (see cvframe.interval)"
)


def _with_interval(out: xr.Dataset, interval: Any) -> tuple[xr.Dataset, dict[str, Any]]:
    """The summary with the interval's ``estimate``/``lower``/``upper`` and its attrs."""
    need = ("estimate", "lower", "upper")
    if not isinstance(interval, xr.Dataset) or any(k not in interval for k in need):
        raise ValueError(
            f"interval must be the Dataset cvframe.interval returns (variables {list(need)}), "
            f"got {type(interval).__name__}; pass interval=ds.cv.interval(...)."
        )
    extra = sorted({str(d) for k in need for d in interval[k].dims} - set(out["mean"].dims))
    if extra:
        raise ValueError(
            f"interval has the dims {extra} that the summary has reduced or does not have "
            f"(summary dims {list(out['mean'].dims)}); compute the interval of the same number."
        )
    out = out.assign({k: interval[k].astype("float64") for k in need})
    for k in need:
        out[k].attrs = {}
    keys = ("method", "level", "estimand", "training_variability", "reference")
    attrs = {}
    for key in keys:
        if key in interval.attrs:
            v = interval.attrs[key]
            attrs[f"interval_{key}"] = ("yes" if v else "no") if isinstance(v, bool) else v
    return out, attrs


def _repeat_dim(ds: xr.Dataset, dim_repeat: Any, who: str) -> str:
    """``dim_repeat`` checked: a dim of the cube with at least two repeats."""
    if not isinstance(dim_repeat, str):
        raise TypeError(f"dim_repeat={dim_repeat!r} must be one dimension name, e.g. 'repeat'.")
    if dim_repeat not in ds.dims:
        raise ValueError(
            f"dim_repeat={dim_repeat!r} is not a dimension of the cube (dims "
            f"{tuple(ds.dims)}); {who} splits the spread of per-fold values across the "
            "repeats of a repeated cross-validation: run cross_validate(..., repeats=5)."
        )
    if ds.sizes[dim_repeat] < 2:
        raise ValueError(
            f"dim_repeat={dim_repeat!r} has {ds.sizes[dim_repeat]} repeat; {who} needs at "
            "least 2 repeats to estimate the across-repeat part. Run more repeats."
        )
    return dim_repeat


@doc
def variance_components(
    ds: xr.Dataset,
    metric: str = "f",
    *,
    beta: float = 1.0,
    zero_division: Any = "warn",
    dim: str = FOLD,
    dim_repeat: str = REPEAT,
) -> xr.Dataset:
    r"""Split the spread of per-fold values into within-repeat and across-repeat parts.

    A one-way analysis of variance of the per-fold values :math:`x_{ij}` (fold :math:`j` of
    repeat :math:`i`, :math:`n_i` folds in repeat :math:`i`, :math:`N = \sum_i n_i`,
    :math:`r` repeats), with repeat means :math:`\bar x_i` and grand mean :math:`\bar x`:

    .. math::
        \underbrace{\sum_{ij} (x_{ij} - \bar x)^2}_{SS_{total}}
        = \underbrace{\sum_{ij} (x_{ij} - \bar x_i)^2}_{SS_{within}}
        + \underbrace{\sum_i n_i (\bar x_i - \bar x)^2}_{SS_{between}},

    exactly. The within part is the fold-to-fold (test-sample) variation inside one
    partition; the between part is how much the repeat's mean moves with the partition.
    Mean squares :math:`MS_w = SS_w/(N - r)`, :math:`MS_b = SS_b/(r - 1)`; the
    method-of-moments variance components of the random-effects model
    :math:`x_{ij} = \mu + a_i + e_{ij}` are

    .. math::
        \hat\sigma^2_{within} = MS_w, \qquad
        \hat\sigma^2_{between} = \max\!\left(0, \frac{MS_b - MS_w}{n_0}\right), \qquad
        n_0 = \frac{N - \sum_i n_i^2 / N}{r - 1},

    and ``share_between`` :math:`= \hat\sigma^2_b / (\hat\sigma^2_b + \hat\sigma^2_w)`
    (the intraclass correlation of folds within a repeat).

    Parameters
    ----------
    <<ds>>
    metric : {"precision", "recall", "f", "accuracy", "specificity"}, default "f"
        The per-class metric computed per fold (:func:`cvframe.reduce.aggregate` with
        ``fold_method=None``).
    <<beta>>
    <<zero_division>>
    dim : str, default "fold"
        The fold dimension (the observations within a repeat).
    dim_repeat : str, default "repeat"
        The repeat dimension (the groups); at least two repeats.

    Returns
    -------
    xarray.Dataset
        Without ``dim`` and ``dim_repeat`` (``class``, ``model`` and every other dim kept):
        ``ss_within``, ``ss_between``, ``ss_total``, ``df_within``, ``df_between``,
        ``ms_within``, ``ms_between``, ``var_within``, ``var_between``, ``share_between``,
        ``mean`` (grand mean of the per-fold values) and ``n_folds`` (:math:`N`). Attrs:
        ``method="variance_components"``, ``metric``, ``reduced_dims``, ``meaning``.

    Raises
    ------
    ValueError
        ``dim_repeat`` absent or with one repeat; ``dim`` absent; an unknown ``metric``.

    Notes
    -----
    Cells that are not folds (no samples, NaN padding) and per-fold values that are NaN
    (under ``zero_division=np.nan``) are left out; other undefined values take the
    ``zero_division`` value. Neither part is an interval for the metric: the between part
    is the variation of the partition of *this* data; the variation over new data sets is
    not in it (Bengio & Grandvalet 2004: no unbiased estimator of the variance of k-fold
    CV exists). :func:`fold_composition` shows what each fold holds.

    References
    ----------
    Y. Bengio and Y. Grandvalet, "No unbiased estimator of the variance of K-fold
    cross-validation", JMLR 5, 2004; S. R. Searle, G. Casella and C. E. McCulloch,
    "Variance Components", Wiley 1992, ch. 3 (one-way classification, unbalanced data).

    Examples
    --------
    >>> import cvframe, xarray as xr
    >>> one = cvframe.datasets.table1()
    >>> two = one.copy(data={k: one[k].values[::-1].copy() for k in one.data_vars})
    >>> ds = xr.concat([one, two], dim="repeat")
    >>> vc = ds.cv.variance_components("f", zero_division=0.0)
    >>> round(float(vc["ss_between"].item()), 12), int(vc["n_folds"].item())
    (0.0, 8)
    >>> bool(abs(vc["ss_within"] + vc["ss_between"] - vc["ss_total"]).max() < 1e-12)
    True
    """
    dims = fold_dims(ds, dim)
    rep = _repeat_dim(ds, dim_repeat, "variance_components")
    if rep in dims:
        raise ValueError(f"dim={dim!r} and dim_repeat={dim_repeat!r} must be two different dims.")
    (fd,) = dims
    vals = aggregate(ds, metric, None, dim=fd, beta=beta, zero_division=zero_division)  # type: ignore[arg-type]
    is_fold = read_counts(ds).is_fold
    if CLASS not in vals.dims and CLASS in is_fold.dims:
        is_fold = is_fold.any(CLASS)
    x = vals.where(is_fold).astype("float64")
    n_i = x.notnull().sum(fd)
    n = n_i.sum(rep)
    group = x.sum(fd) / n_i.where(n_i > 0)
    grand = x.sum((rep, fd)) / n.where(n > 0)
    ss_within = ((x - group) ** 2).sum((rep, fd))
    ss_between = (n_i * (group - grand) ** 2).sum(rep)
    ss_total = ((x - grand) ** 2).sum((rep, fd))
    r = (n_i > 0).sum(rep)
    df_within, df_between = n - r, r - 1
    ms_within = ss_within / df_within.where(df_within > 0)
    ms_between = ss_between / df_between.where(df_between > 0)
    n0 = (n - (n_i**2).sum(rep) / n.where(n > 0)) / df_between.where(df_between > 0)
    var_between = ((ms_between - ms_within) / n0).clip(min=0.0)
    total = var_between + ms_within
    share = var_between / total.where(total > 0)
    out = xr.Dataset({
        "ss_within": ss_within, "ss_between": ss_between, "ss_total": ss_total,
        "df_within": df_within.astype("int64"), "df_between": df_between.astype("int64"),
        "ms_within": ms_within, "ms_between": ms_between,
        "var_within": ms_within, "var_between": var_between, "share_between": share,
        "mean": grand, "n_folds": n.astype("int64"),
    })  # fmt: skip
    out.attrs = {
        "method": "variance_components",
        "metric": str(metric),
        "reduced_dims": [fd, rep],
        "meaning": (
            "within: fold-to-fold variation inside one partition (test-sample sampling); "
            "between: variation of the repeat means with the partition of this data; "
            "ss_within + ss_between = ss_total (one-way ANOVA)"
        ),
    }
    return out


@doc
def fold_composition(ds: xr.Dataset, *, dim: str = FOLD) -> xr.Dataset:
    r"""What every fold holds: positives, negatives and the pairs AUC can compare.

    Per (repeat, fold, class, ...) cell of the counts: ``positives`` :math:`= TP + FN`
    (samples of the class), ``negatives`` :math:`= FP + TN`, ``n`` the fold's size and
    ``auc_pairs`` :math:`= positives \cdot negatives`, the positive-negative pairs a
    per-fold AUC ranks (0: the fold's AUC is undefined). A fold with few positives has a
    noisy recall and few AUC pairs; folds of different composition across repeats are one
    source of the across-repeat part of :func:`variance_components`.

    Parameters
    ----------
    <<ds>>
    dim : str, default "fold"
        The fold dimension; ``repeat``, ``class``, ``model`` and other dims are kept, so
        each repeat's partition has its own rows.

    Returns
    -------
    xarray.Dataset
        ``positives``, ``negatives``, ``n``, ``auc_pairs`` (int64; every dim of the counts
        kept) and, per class and repeat, ``min_positives`` and ``max_positives`` over the
        folds. Attrs: ``method="fold_composition"``.

    <<references>>

    Examples
    --------
    >>> import cvframe
    >>> fc = cvframe.datasets.table1().cv.fold_composition()
    >>> fc["positives"].values.ravel().tolist()[:4], int(fc["min_positives"].item())
    ([3, 4, 4, 4], 3)
    """
    (fd,) = fold_dims(ds, dim)
    c = read_counts(ds)
    pos = (c.tp + c.fn).astype("int64")
    neg = (c.fp + c.tn).astype("int64")
    out = xr.Dataset(
        {
            "positives": pos,
            "negatives": neg,
            "n": pos + neg,
            "auc_pairs": pos * neg,
            "min_positives": pos.where(c.is_fold).min(fd).fillna(0).astype("int64"),
            "max_positives": pos.where(c.is_fold).max(fd).fillna(0).astype("int64"),
        }
    )
    out.attrs = {"method": "fold_composition", "reduced_dims": [fd]}
    return out
