"""The tidy frames of a counts cube: every fold, the five methods, the aggregation lines,
the confusion matrix and the class averages. Every number comes from the core reductions
(:mod:`cvframe.reduce`, :mod:`cvframe.multiclass`); a mean over repeats from
:func:`cvframe.tidy.over_repeats`."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .. import formulas, measure, metrics, multiclass, reduce
from .._core.checks import choice
from .._core.docs import doc
from .._core.types import ZeroDivision
from ..errors import CountsError
from ..schema import (
    CLASS,
    CONFUSION,
    COUNTS,
    FOLD,
    PRED,
    REPEAT,
    TRUE,
    check_structure,
    read_counts,
)
from ._common import (
    METHOD_LABELS,
    extra_dims,
    loaded,
    one_warning,
    over_repeats,
    to_frame,
    user_dims,
)

__all__ = [
    "class_averages",
    "confusion_table",
    "fold_aggregates",
    "fold_table",
    "methods_table",
    "metric_table",
]


@doc
def fold_table(
    ds: xr.Dataset, *, beta: float = 1.0, zero_division: ZeroDivision = 0.0
) -> pd.DataFrame:
    """Every fold's counts and metrics as a tidy table, one row per (..., fold, class).

    Columns: the cube's other dims (``repeat``, ``model``, ...), ``fold``, ``class``,
    ``tp``, ``fp``, ``fn``, ``tn``, ``precision``, ``recall``, ``f`` and ``valid``
    (:math:`V^{(i)}`: precision and recall both defined). Cells that are not folds (no
    samples, or NaN padding of a concatenation) are not rows.

    <<tidy_parameters>>

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import cvframe
    >>> from cvframe.tidy import fold_table
    >>> fold_table(cvframe.datasets.table2())[["fold", "tp", "fp", "fn", "f", "valid"]]
       fold  tp  fp  fn         f  valid
    0     0   2   0   2  0.666667   True
    1     1   0   0   4  0.000000  False
    2     2   4   0   0  1.000000   True
    3     3   4   0   0  1.000000   True
    """
    ds = loaded(ds)
    c = read_counts(ds)
    counts, real = c.as_dict(), c.is_fold
    # cells that are not folds get neutral counts (every metric defined, no warning) and are
    # dropped below: a warning counts only the folds' undefined cells
    neutral = xr.Dataset(
        {v: counts[v].where(real, 1 if v == "tp" else 0) for v in COUNTS}, attrs=ds.attrs
    )
    out = xr.Dataset(dict(counts))
    with one_warning():
        out["precision"] = reduce.precision(neutral, zero_division=zero_division)
        out["recall"] = reduce.recall(neutral, zero_division=zero_division)
        out["f"] = reduce.f(neutral, beta=beta, zero_division=zero_division)
    out["valid"] = reduce.valid(neutral)
    out["_real"] = real
    frame = to_frame(out, extra_dims(ds) + [FOLD, CLASS])
    frame = frame[frame.pop("_real").to_numpy(bool)].reset_index(drop=True)
    return frame


@doc
def methods_table(
    ds: xr.Dataset, *, beta: float = 1.0, zero_division: ZeroDivision = 0.0
) -> pd.DataFrame:
    """The five F aggregations over folds as a tidy table, one row per (..., class).

    Columns: the cube's other dims, ``class`` and ``f_tp_fp``, ``f_avg``, ``f_pr_re``,
    ``f_avg_skip``, ``f_pr_re_skip`` (see :func:`cvframe.reduce.f_methods`).

    <<tidy_parameters>>

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import cvframe
    >>> from cvframe.tidy import methods_table
    >>> methods_table(cvframe.datasets.table1()).round(3)
       class  f_tp_fp  f_avg  f_pr_re  f_avg_skip  f_pr_re_skip
    0      1    0.583  0.692    0.734       0.692         0.734
    """
    ds = loaded(ds)
    m = reduce.f_methods(ds, beta=beta, zero_division=zero_division)
    return to_frame(m, extra_dims(ds) + [CLASS])


@doc
def metric_table(
    ds: xr.Dataset, *, beta: float = 1.0, zero_division: ZeroDivision = 0.0
) -> pd.DataFrame:
    """Every count metric of :data:`cvframe.metrics.REGISTRY` that applies to the cube,
    pooled and fold-averaged side by side, one row per (..., metric).

    A metric of one class is the positive class's for a binary cube and the macro average
    over the classes (labels) of a multiclass (multilabel) cube; a metric over every class
    (accuracy, error) is one value of single-label data and left out of a multilabel cube.
    Each value is :func:`cvframe.measure.cube` of the metric's pooled variant and of its
    fold mean (``"avg"``); with repeats, their mean over repeats and the sd of the pooled
    value across repeats (:func:`over_repeats`). A metric added to the registry is a row.

    <<tidy_parameters>>

    Returns
    -------
    pandas.DataFrame
        The cube's user dims, ``metric`` (its display name), ``average`` (``"macro"`` or
        empty), ``pooled``, ``fold_averaged`` (and ``pooled_sd`` with repeats).

    Examples
    --------
    >>> import cvframe
    >>> from cvframe.tidy import metric_table
    >>> metric_table(cvframe.datasets.table1()).round(3).head(3)
          metric average  pooled  fold_averaged
    0          F           0.583          0.692
    1  precision           0.424          0.603
    2     recall           0.933          0.938
    """
    ds = loaded(ds)
    extra = extra_dims(ds)
    task = ds.attrs.get("task")
    several = ds.sizes.get(CLASS, 1) > 1 and task != "binary"
    rows = []
    with one_warning():
        for m in metrics.by_kind("count").values():
            if m.scope == "all" and task == "multilabel":
                continue  # one value over exclusive classes: not of labels
            average = "macro" if several and m.scope == "class" else None
            values = {
                col: measure.cube(ds, m.name, v, average, beta=beta, zero_division=zero_division)
                for col, v in (("pooled", m.pooled), ("fold_averaged", "avg"))
            }
            one = xr.Dataset(values)
            part = to_frame(one.squeeze(CLASS, drop=True) if CLASS in one.dims else one, extra)
            rows.append(part.assign(metric=m.display, average=average or ""))
    table = pd.concat(rows, ignore_index=True)
    by = [*user_dims(extra), "metric", "average"]
    return over_repeats(table, by, ["pooled", "fold_averaged"], REPEAT in extra)


@doc
def fold_aggregates(
    ds: xr.Dataset,
    *,
    beta: float = 1.0,
    zero_division: ZeroDivision = 0.0,
    methods: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The fold aggregations per class: the lines :func:`cvframe.plot.folds` draws.

    For precision and recall the pooled value (sum the counts over the folds, then divide)
    and the mean over folds of the per-fold values; for F the five methods of
    :func:`cvframe.reduce.f_methods`. With a ``repeat`` dim each value is the mean over
    repeats. Cells that are not folds enter neither the sums nor the means.

    <<tidy_parameters>>
    methods : pandas.DataFrame, optional
        The :func:`methods_table` of ``ds`` (same ``beta`` and ``zero_division``), already
        computed: its five F methods are the F lines. Default: computed here.

    Returns
    -------
    pandas.DataFrame
        Columns: the user dims (``model``, ...; not ``repeat``), ``class``, ``metric``
        ("precision", "recall", "F"), ``line`` (one of :data:`LINES`) and ``value``.

    Raises
    ------
    ValueError
        ``methods`` lacks a column of a methods table, or has other rows than ``ds``'s.

    Examples
    --------
    >>> import cvframe
    >>> t = fold_aggregates(cvframe.datasets.table1())
    >>> t[t.metric == "precision"].round(3)
       class     metric           line  value
    0      1  precision         pooled  0.424
    1      1  precision  mean of folds  0.603
    >>> m = methods_table(cvframe.datasets.table1())
    >>> fold_aggregates(cvframe.datasets.table1(), methods=m).equals(t)
    True
    """
    ds = loaded(ds)
    extra = extra_dims(ds)
    zd = zero_division
    parts = []
    with one_warning():
        for metric in metrics.REGISTRY["f"].components:
            for line, how in (("pooled", "tp_fp"), ("mean of folds", "avg")):
                value = reduce.aggregate(ds, metric, how, zero_division=zd)  # type: ignore[arg-type]
                part = to_frame(xr.Dataset({"value": value}), [*extra, CLASS])
                parts.append(part.assign(metric=metric, line=line))
        if methods is None:
            methods = methods_table(ds, beta=beta, zero_division=zd)
    dims = list(parts[0].columns[:-3])
    missing = [c for c in [*dims, *METHOD_LABELS] if c not in methods.columns]
    if missing or set(methods[dims].itertuples(index=False)) != set(
        parts[0][dims].itertuples(index=False)
    ):
        what = f"lacks the columns {missing}" if missing else "has other rows than ds"
        raise ValueError(
            f"methods {what}: pass the methods table of ds, "
            "tidy.methods_table(ds, beta=..., zero_division=...), or None to compute it."
        )
    for name, label in METHOD_LABELS.items():
        part = methods[[*dims, name]].rename(columns={name: "value"})
        parts.append(part.assign(metric="F", line=label))
    keys = [*user_dims(extra), CLASS, "metric", "line"]
    return over_repeats(pd.concat(parts, ignore_index=True), keys, ["value"])[[*keys, "value"]]


def _two_by_two(c: dict[str, xr.DataArray], labels: list[str]) -> xr.DataArray:
    """The 2x2 table of one-vs-all counts, rows true and columns predicted: the class, not
    (a multilabel cube's labels: present, absent; ``multilabel_confusion_matrix`` reversed)."""
    rows = [xr.concat([c["tp"], c["fn"]], dim=PRED), xr.concat([c["fp"], c["tn"]], dim=PRED)]
    return xr.concat(rows, dim=TRUE).assign_coords({TRUE: labels, PRED: labels})


def confusion_table(ds: xr.Dataset, *, normalize: str | None = None) -> pd.DataFrame:
    """The confusion matrix summed over folds (and repeats) as a long frame.

    Parameters
    ----------
    ds : xarray.Dataset
        A cube with ``confusion`` (single-label data), a binary cube (its 2x2 table of
        TP, FN / FP, TN; the classes are the positive label and "not <label>") or a
        multilabel cube (the 2x2 table of every label, over a ``label`` column; the classes
        are "present" and "absent").
    normalize : {None, "true", "pred", "all"}, default None
        As in :func:`sklearn.metrics.confusion_matrix`: counts, or shares of each true class
        (rows sum to 1), of each predicted class (columns), or of all samples. A row or
        column without samples is NaN.

    Returns
    -------
    pandas.DataFrame
        Columns: the user dims (``model``, ...; ``label`` for a multilabel cube), ``true``,
        ``pred``, ``value`` (float), in the class order of the cube.

    Raises
    ------
    CountsError
        A multiclass cube without ``confusion`` (from counts).

    Examples
    --------
    >>> import cvframe
    >>> t = confusion_table(cvframe.datasets.slides_confusion(), normalize="true")
    >>> t.head(3).round(2)
      true pred  value
    0    A    A   0.88
    1    A    B   0.10
    2    A    C   0.02
    """
    normalize = choice("normalize", normalize, [None, "true", "pred", "all"])
    check_structure(ds)
    folds = [d for d in (FOLD, REPEAT) if d in ds.dims]
    if CONFUSION in ds.data_vars:
        dims = [d for d in ds[CONFUSION].dims if d in (FOLD, REPEAT)]
        table = multiclass.confusion(ds.fillna(0) if ds[CONFUSION].isnull().any() else ds, dim=dims)
    elif ds.attrs.get("task") == "binary" or ds.sizes.get(CLASS) == 1:
        pos = ds.attrs.get("pos_label", ds.indexes[CLASS][0] if CLASS in ds.indexes else 1)
        c = {v: x.isel({CLASS: 0}, drop=True) for v, x in read_counts(ds).as_dict().items()}
        table = _two_by_two(c, [str(pos), f"not {pos}"]).sum(folds)
    elif ds.attrs.get("task") == "multilabel":  # one 2x2 table per label
        c = {v: x.rename({CLASS: "label"}) for v, x in read_counts(ds).as_dict().items()}
        table = _two_by_two(c, ["present", "absent"]).sum(folds)
    else:
        raise CountsError(
            "ds has no 'confusion' variable (a multiclass cube from counts); "
            "a confusion heatmap needs single-label predictions. Use plot.folds(ds) "
            "for the per-class counts."
        )
    table = table.astype("float64")
    if normalize is not None:
        over = {"true": [PRED], "pred": [TRUE], "all": [TRUE, PRED]}[normalize]
        table = formulas.safe_divide(table, table.sum(over), fill=np.nan)
    groups = user_dims(table.dims)
    table = table.transpose(*groups, TRUE, PRED)
    frame = table.rename("value").to_dataframe().reset_index()
    return frame[[*groups, TRUE, PRED, "value"]]


@doc
def class_averages(
    ds: xr.Dataset, *, beta: float = 1.0, zero_division: ZeroDivision = "warn"
) -> pd.DataFrame | None:
    """Macro, micro and weighted F (and kappa, pooled accuracy) of a multiclass cube.

    Columns: the user dims (``model``, ...), ``macro_f``, ``macro_f_avg_folds``,
    ``macro_f_of_means``, ``micro_f``, ``weighted_f`` (fold method ``tp_fp`` unless the
    name says otherwise; see :mod:`cvframe.multiclass`) and, for single-label cubes,
    ``kappa`` and ``accuracy`` (pooled). With a ``repeat`` dim each value is the mean over
    repeats.

    Parameters
    ----------
    <<ds>>
    <<beta>>
    <<zero_division>>

    Returns
    -------
    pandas.DataFrame or None
        None for a cube with one class (a binary cube: its methods table says it all).

    Examples
    --------
    >>> import cvframe
    >>> t = class_averages(cvframe.datasets.slides_confusion(), zero_division=0.0)
    >>> round(float(t["micro_f"].iloc[0]), 3), round(float(t["kappa"].iloc[0]), 3)
    (0.7, 0.492)
    """
    check_structure(ds)
    if ds.sizes[CLASS] < 2:
        return None
    extra = extra_dims(ds)
    zd = zero_division
    kw: dict[str, Any] = {"beta": beta, "zero_division": zd}
    with one_warning():
        out = {
            "macro_f": multiclass.macro(ds, "f", "tp_fp", **kw),
            "macro_f_avg_folds": multiclass.macro(ds, "f", "avg", **kw),
            "macro_f_of_means": multiclass.macro(ds, "f", "tp_fp", definition="f_of_means", **kw),
            "micro_f": multiclass.micro(ds, "f", "tp_fp", **kw),
            "weighted_f": multiclass.weighted(ds, "f", "tp_fp", **kw),
        }
        if CONFUSION in ds.data_vars:
            out["kappa"] = multiclass.kappa(ds, "tp_fp", zero_division=zd)
            out["accuracy"] = reduce.accuracy(ds, how="pooled", zero_division=zd)
    res = xr.Dataset(
        {k: xr.DataArray(v.data, dims=v.dims, coords=v.coords) for k, v in out.items()}
    )
    by = [d for d in extra if d != REPEAT]
    frame = over_repeats(to_frame(res, extra), by, list(out), REPEAT in extra)
    return frame[[*by, *out]] if REPEAT in extra else frame[[*extra, *out]]
