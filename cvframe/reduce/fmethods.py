"""The fold aggregations by name: :func:`aggregate`, the five F methods and pooled counts.

:func:`aggregate` is the checked entry point of the engine
(:func:`cvframe.reduce.aggregate_counts`); ``f_tp_fp``, ``f_avg``, ``f_pr_re`` and
``f_methods`` are named uses of it (Forman & Scholz 2010, §2.3).
"""

from __future__ import annotations

from typing import Any

import xarray as xr

from .. import formulas, metrics
from .._core import checks as _checks
from .._core.docs import doc
from .._core.types import CellMetric, Dims, FoldMethod, ZeroDivision
from ..schema import CLASS, CONFUSION, COUNTS, provenance, read_counts
from ._engine import aggregate_counts, check_metric, f_methods_counts, fold_dims, warn
from .whole import aggregate_whole


@doc
def aggregate(
    ds: xr.Dataset,
    metric: CellMetric = "f",
    fold_method: FoldMethod = "tp_fp",
    dim: Dims = "fold",
    *,
    beta: float = 1.0,
    skip_undefined: bool = False,
    zero_division: ZeroDivision = "warn",
) -> xr.DataArray:
    r"""One metric of every class, aggregated over folds: the engine of every fold aggregation.

    - ``fold_method="tp_fp"``: sum the counts over ``dim``, then the metric once;
    - ``"avg"``: the metric per fold, then its mean over the real folds;
    - ``"pr_re"`` (``metric="f"`` only): F of the fold means of precision and recall;
    - ``None``: the per-fold values (``dim`` is kept).

    ``f_tp_fp``, ``f_avg``, ``f_pr_re`` are ``aggregate(ds, "f", ...)``;
    ``multiclass.macro`` is its class mean.

    Parameters
    ----------
    <<ds>>
    metric : {"precision", "recall", "f", "accuracy", "specificity", "jaccard"}, default "f"
        The per-class one-vs-all metric.
    fold_method : {"tp_fp", "avg", "pr_re", None}, default "tp_fp"
    <<dim>>
    <<beta>>
    skip_undefined : bool, default False
        ``"avg"``/``"pr_re"`` only: average over the folds where the metric is defined
        (for F, where precision and recall are: the paper's tilde methods).
    <<zero_division>>

    Returns
    -------
    xarray.DataArray
        float64 without ``dim`` (``None`` keeps it); ``class`` and every other dim are kept.

    Notes
    -----
    A cell whose four counts are all 0 or all NaN is not a fold: averages leave it out (they
    divide by the number of real folds) and pooled sums count it as 0.

    <<references>>

    Examples
    --------
    >>> import cvframe
    >>> ds = cvframe.datasets.table1()
    >>> round(cvframe.reduce.aggregate(ds, "precision", "avg").item(), 4)
    0.6025
    >>> cvframe.reduce.aggregate(ds, "f", "avg").item() == ds.cv.f_avg().item()
    True
    """
    metric, fold_method = check_metric(metric, fold_method)
    b = _checks.beta(beta)
    skip = _checks.flag("skip_undefined", skip_undefined)
    fill = _checks.zero_division(zero_division)
    dims = fold_dims(ds, dim)
    red = () if fold_method is None else dims
    c = read_counts(ds, need_fold=fold_method is not None)
    sk = skip and fold_method in ("avg", "pr_re")
    if formulas.METRIC_SPECS[metric].over_classes:
        val, items = aggregate_whole(ds, c, metric, fold_method, red, fill, sk)
        red = (*red, CLASS)
    else:
        val, items = aggregate_counts(c, metric, fold_method, red, beta=b, fill=fill, skip=sk)
    warn(items, zero_division)
    name = metrics.spelled(metric, fold_method) + ("_skip" if skip and fold_method else "")
    zd = zero_division
    if metric == "f" and fold_method is not None:
        return _f_provenance(val, name, dims, zd, b, skip)
    bt, skip_attr = b if metric == "f" else None, skip if fold_method in ("avg", "pr_re") else None
    return provenance(
        val, name, red, metric=metric, zero_division=zd, beta=bt, skip_undefined=skip_attr
    )


def _f_provenance(val: xr.DataArray, name: str, dims: Any, zd: Any, b: float, skip: Any) -> Any:
    skip = skip if name != "f_tp_fp" else None
    return provenance(val, name, dims, zero_division=zd, skip_undefined=skip, beta=b)


@doc
def pooled(ds: xr.Dataset, dim: Dims = "fold") -> xr.Dataset:
    r"""The counts summed along ``dim``: :math:`TP = \sum_i TP^{(i)}` and likewise.

    ``confusion``, when present, is summed too. Integer counts stay int64; a sum that would
    overflow int64 is an error (never a wrapped-around count). NaN padding counts as 0.

    Parameters
    ----------
    <<ds>>
    <<dim>>

    Returns
    -------
    xarray.Dataset
        A counts cube without ``dim``; per-cell metrics (``.cv.precision()``, ...) apply.

    Examples
    --------
    >>> import cvframe
    >>> p = cvframe.datasets.table1().cv.pooled()
    >>> int(p.tp.item()), int(p.fp.item()), int(p.fn.item())
    (14, 19, 1)
    """
    dims = fold_dims(ds, dim)
    p = read_counts(ds).sum(dims)
    out = xr.Dataset({v: p[v] for v in COUNTS})
    if CONFUSION in ds.data_vars:
        conf = ds[CONFUSION]
        conf = conf.fillna(0) if conf.dtype.kind == "f" else conf
        out[CONFUSION] = conf.sum([d for d in dims if d in conf.dims], skipna=False)
    for v in out.data_vars.values():
        v.attrs = {}
    out.attrs = dict(ds.attrs, reduced_dims=",".join(map(str, dims)))
    return out


@doc
def f_tp_fp(
    ds: xr.Dataset, dim: Dims = "fold", *, beta: float = 1.0, zero_division: ZeroDivision = "warn"
) -> xr.DataArray:
    r"""F_tp,fp: pool the counts over folds, then compute F once (the recommended method).

    .. math::
        TP = \sum_i TP^{(i)},\quad FP = \sum_i FP^{(i)},\quad FN = \sum_i FN^{(i)},\qquad
        F_{tp,fp} = \frac{(1+\beta^2)\,TP}{(1+\beta^2)\,TP + \beta^2 FN + FP}

    Parameters
    ----------
    <<ds>>
    <<dim>>
    <<beta>>
    <<zero_division>>
        Applies only where the pooled :math:`TP = FP = FN = 0`.

    Returns
    -------
    xarray.DataArray
        float64 without ``dim``; attrs record the method and policy.

    Notes
    -----
    Forman & Scholz (2010, §4) show by simulation that this is the only one of the five
    aggregations that is essentially unbiased; it equals F on the concatenated predictions
    of all folds (``sklearn.metrics.f1_score(y, cross_val_predict(...))``).
    ``aggregate(ds, "f", "tp_fp", dim)``.

    See Also
    --------
    f_avg, f_pr_re, f_methods, aggregate

    <<references>>

    Examples
    --------
    >>> import cvframe
    >>> round(cvframe.datasets.table1().cv.f_tp_fp().item(), 3)
    0.583
    """
    return aggregate(ds, "f", "tp_fp", dim, beta=beta, zero_division=zero_division)


@doc
def f_avg(
    ds: xr.Dataset,
    dim: Dims = "fold",
    *,
    beta: float = 1.0,
    skip_undefined: bool = False,
    zero_division: ZeroDivision = "warn",
) -> xr.DataArray:
    r"""F_avg: the mean of the per-fold F-measures (scikit-learn's ``cross_val_score``).

    .. math::
        F_{avg} = \frac{1}{k}\sum_{i=1}^k F^{(i)}, \qquad
        \tilde F_{avg} = \frac{1}{\sum_i V^{(i)}}\sum_{i: V^{(i)}=1} F^{(i)}
        \quad (\texttt{skip\_undefined=True})

    Parameters
    ----------
    <<ds>>
    <<dim>>
    <<beta>>
    <<skip_undefined>>
    <<zero_division>>

    Returns
    -------
    xarray.DataArray
        float64 without ``dim``.

    Notes
    -----
    A fold with undefined precision or recall scores :math:`F^{(i)} = 0` (the limit of
    Equation 2). Biased downwards, most under class imbalance; ``skip_undefined=True``
    is biased upwards (Forman & Scholz 2010, §4.3). With ``skip_undefined=True`` and no
    valid fold the result is the ``zero_division`` value. :math:`k` counts the real folds:
    a cell with no test samples (all counts 0, or all NaN padding) is not a fold.
    ``aggregate(ds, "f", "avg", dim)``.

    See Also
    --------
    f_tp_fp : the recommended aggregation.
    sklearn.model_selection.cross_val_score : ``scoring="f1"`` computes this.

    <<references>>

    Examples
    --------
    >>> import cvframe
    >>> round(cvframe.datasets.table1().cv.f_avg().item(), 3)
    0.692
    >>> round(cvframe.datasets.table2().cv.f_avg(skip_undefined=True, zero_division=0).item(), 3)
    0.889
    """
    return aggregate(
        ds, "f", "avg", dim, beta=beta, skip_undefined=skip_undefined, zero_division=zero_division
    )


@doc
def f_pr_re(
    ds: xr.Dataset,
    dim: Dims = "fold",
    *,
    beta: float = 1.0,
    skip_undefined: bool = False,
    zero_division: ZeroDivision = "warn",
) -> xr.DataArray:
    r"""F_pr,re: F of the mean precision and the mean recall over folds.

    .. math::
        \overline{Pr} = \frac1k\sum_i Pr^{(i)},\quad \overline{Re} = \frac1k\sum_i Re^{(i)},
        \qquad F_{pr,re} = \frac{(1+\beta^2)\,\overline{Pr}\,\overline{Re}}
        {\beta^2\,\overline{Pr} + \overline{Re}}

    With ``skip_undefined=True`` (:math:`\tilde F_{pr,re}`) the means run over the folds
    with :math:`V^{(i)} = 1` only.

    Parameters
    ----------
    <<ds>>
    <<dim>>
    <<beta>>
    <<skip_undefined>>
    <<zero_division>>
        The value an undefined per-fold precision or recall takes in the means.

    Returns
    -------
    xarray.DataArray
        float64 without ``dim``.

    Notes
    -----
    Averaging smooths over a fold with very low precision or recall, so this method is
    biased upwards (Forman & Scholz 2010, §4.3). F of two zero means is 0. :math:`k` counts
    the real folds (see :func:`f_avg`). ``aggregate(ds, "f", "pr_re", dim)``.

    See Also
    --------
    f_tp_fp : the recommended aggregation.

    <<references>>

    Examples
    --------
    >>> import cvframe
    >>> round(cvframe.datasets.table1().cv.f_pr_re().item(), 3)
    0.734
    """
    return aggregate(
        ds, "f", "pr_re", dim, beta=beta, skip_undefined=skip_undefined, zero_division=zero_division
    )


@doc
def f_methods(
    ds: xr.Dataset, dim: Dims = "fold", *, beta: float = 1.0, zero_division: ZeroDivision = "warn"
) -> xr.Dataset:
    r"""All five F aggregations side by side (the apples-to-apples table).

    Variables ``f_tp_fp``, ``f_avg``, ``f_pr_re``, ``f_avg_skip``, ``f_pr_re_skip``; see
    :func:`f_tp_fp`, :func:`f_avg` and :func:`f_pr_re` for the formulas.

    Parameters
    ----------
    <<ds>>
    <<dim>>
    <<beta>>
    <<zero_division>>

    Returns
    -------
    xarray.Dataset
        Five float64 variables without ``dim``; ``.to_array("method")`` stacks them.

    <<references>>

    Examples
    --------
    >>> import cvframe
    >>> m = cvframe.datasets.table2().cv.f_methods(zero_division=0)
    >>> {k: round(v.item(), 3) for k, v in m.data_vars.items()}
    {'f_tp_fp': 0.769, 'f_avg': 0.667, 'f_pr_re': 0.682, 'f_avg_skip': 0.889, 'f_pr_re_skip': 0.909}
    """
    b = _checks.beta(beta)
    fill = _checks.zero_division(zero_division)
    dims = fold_dims(ds, dim)
    values, items = f_methods_counts(read_counts(ds), dims, beta=b, fill=fill)
    warn(items, zero_division)
    out = {
        name: _f_provenance(val, name, dims, zero_division, b, name.endswith("_skip"))
        for name, val in values.items()
    }
    # the five share their coords: built from variables, so nothing is aligned again
    res = xr.Dataset({k: v.variable for k, v in out.items()}, coords=out["f_tp_fp"].coords)
    res.attrs = {
        "method": "f_methods",
        "reduced_dims": ",".join(map(str, dims)),
        "zero_division": _checks.zero_division_attr(zero_division),
        "beta": b,
    }
    return res
