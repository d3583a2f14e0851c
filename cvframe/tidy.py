"""The long (tidy) frames that the plots and the report draw.

Every number a plot or the report shows is computed here, from the core reductions
(:mod:`cvframe.reduce`, :mod:`cvframe.multiclass`); the outer layers only reshape and draw.

================================  ==========================================================
``fold_table(ds)``                every fold's counts, precision, recall, F and validity
``methods_table(ds)``             the five F aggregations per class (and user dim)
``fold_aggregates(ds)``           the aggregation lines of ``plot.folds``: pooled and
                                  fold-averaged precision and recall, the five F methods
``confusion_table(ds)``           the confusion matrix summed over folds, long, optionally
                                  normalised
``class_averages(ds)``            macro / micro / weighted F, kappa and accuracy of a
                                  multiclass cube (mean over repeats)
``over_repeats(frame, by, cols)`` a per-repeat table as its mean (and sd) over repeats
``bias_table(study)``             a bias study as a long frame, ``stratified`` as labels
``roc_table(df)``                 every fold's and the merged ROC curve with its AUC
================================  ==========================================================

Cells that are not folds (all four counts 0, or all NaN: the padding of ``xr.concat`` of
cubes with different folds, or of repeats with different fold ids) are not rows of these
frames and enter no average.

(Over 400 lines: seven frames, each with its numpydoc and a runnable example, that share
one reading of the cube and one warning per call; splitting them would split that.)
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Hashable, Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from . import formulas, multiclass, reduce, scores
from ._checks import choice
from ._docs import doc, register
from ._types import ZeroDivision
from .errors import CountsError, UndefinedMetricWarning, user_stacklevel
from .schema import CLASS, CONFUSION, COUNTS, FOLD, PRED, REPEAT, TRUE, check_structure, read_counts

__all__ = [
    "LINES",
    "METHOD_LABELS",
    "bias_table",
    "class_averages",
    "confusion_table",
    "extra_dims",
    "fold_aggregates",
    "fold_table",
    "methods_table",
    "over_repeats",
    "roc_table",
]

#: Display names of the five F aggregations (the paper's notation).
METHOD_LABELS = {
    "f_tp_fp": "F_tp,fp",
    "f_avg": "F_avg",
    "f_pr_re": "F_pr,re",
    "f_avg_skip": "~F_avg",
    "f_pr_re_skip": "~F_pr,re",
}

#: The aggregation lines of :func:`fold_aggregates`, in drawing order.
LINES = ("pooled", "mean of folds", *METHOD_LABELS.values())

register(
    {
        "tidy_zero_division": """\
zero_division : {"warn", 0.0, 1.0, np.nan}, default 0.0
    Value of an undefined precision or recall (the paper's 0; ``valid`` says where).
    ``"warn"`` uses 0 and emits one :class:`~cvframe.UndefinedMetricWarning` per call.""",
    }
)


# --- reading a cube ---------------------------------------------------------------------------


def _read(ds: xr.Dataset) -> tuple[dict[str, xr.DataArray], xr.DataArray]:
    """The counts with NaN padding read as 0, and the mask of the cells that are folds."""
    c = read_counts(ds)
    return c.as_dict(), c.is_fold


def _loaded(ds: xr.Dataset) -> xr.Dataset:
    check_structure(ds)
    names = list(COUNTS) + ([CONFUSION] if CONFUSION in ds.data_vars else [])
    return ds[names].load() if any(ds[v].chunks is not None for v in names) else ds


def extra_dims(ds: xr.Dataset) -> list[Hashable]:
    """The dims of the counts other than fold and class (``repeat``, ``model``, ...)."""
    return [d for d in ds["tp"].dims if d not in (FOLD, CLASS)]


def _frame(obj: xr.Dataset, order: Sequence[Hashable]) -> pd.DataFrame:
    """A Dataset as a flat frame with index dims as leading columns, in ``order``."""
    dims = [d for d in order if d in obj.dims]
    frame = obj.transpose(*dims).to_dataframe().reset_index()
    return frame[dims + list(obj.data_vars)]


@contextlib.contextmanager
def _one_warning() -> Iterator[None]:
    """Collect the UndefinedMetricWarnings of the calls inside; emit them as one."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UndefinedMetricWarning)
        yield
    undefined = [str(w.message) for w in caught if issubclass(w.category, UndefinedMetricWarning)]
    for w in caught:
        if not issubclass(w.category, UndefinedMetricWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    unique = list(dict.fromkeys(undefined))
    if len(unique) == 1:
        warnings.warn(unique[0], UndefinedMetricWarning, stacklevel=user_stacklevel())
    elif unique:
        text = "; ".join(dict.fromkeys(m.split("; ")[0] for m in unique))
        warnings.warn(
            f"{text}; set to the zero_division value. Pass zero_division= "
            "explicitly to choose the value and silence this warning.",
            UndefinedMetricWarning,
            stacklevel=user_stacklevel(),
        )


# --- per fold and per method ------------------------------------------------------------------


@doc
def fold_table(
    ds: xr.Dataset, *, beta: float = 1.0, zero_division: ZeroDivision = 0.0
) -> pd.DataFrame:
    """Every fold's counts and metrics as a tidy table, one row per (..., fold, class).

    Columns: the cube's other dims (``repeat``, ``model``, ...), ``fold``, ``class``,
    ``tp``, ``fp``, ``fn``, ``tn``, ``precision``, ``recall``, ``f`` and ``valid``
    (:math:`V^{(i)}`: precision and recall both defined). Cells that are not folds (no
    samples, or NaN padding of a concatenation) are not rows.

    Parameters
    ----------
    <<ds>>
    <<beta>>
    <<tidy_zero_division>>

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
    ds = _loaded(ds)
    counts, real = _read(ds)
    # cells that are not folds get neutral counts (every metric defined, no warning) and are
    # dropped below: a warning counts only the folds' undefined cells
    neutral = xr.Dataset(
        {v: counts[v].where(real, 1 if v == "tp" else 0) for v in COUNTS}, attrs=ds.attrs
    )
    out = xr.Dataset(dict(counts))
    with _one_warning():
        out["precision"] = reduce.precision(neutral, zero_division=zero_division)
        out["recall"] = reduce.recall(neutral, zero_division=zero_division)
        out["f"] = reduce.f(neutral, beta=beta, zero_division=zero_division)
    out["valid"] = reduce.valid(neutral)
    out["_real"] = real
    frame = _frame(out, extra_dims(ds) + [FOLD, CLASS])
    frame = frame[frame.pop("_real").to_numpy(bool)].reset_index(drop=True)
    return frame


@doc
def methods_table(
    ds: xr.Dataset, *, beta: float = 1.0, zero_division: ZeroDivision = 0.0
) -> pd.DataFrame:
    """The five F aggregations over folds as a tidy table, one row per (..., class).

    Columns: the cube's other dims, ``class`` and ``f_tp_fp``, ``f_avg``, ``f_pr_re``,
    ``f_avg_skip``, ``f_pr_re_skip`` (see :func:`cvframe.reduce.f_methods`).

    Parameters
    ----------
    <<ds>>
    <<beta>>
    <<tidy_zero_division>>

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
    ds = _loaded(ds)
    m = reduce.f_methods(ds, beta=beta, zero_division=zero_division)
    return _frame(m, extra_dims(ds) + [CLASS])


def _user_dims(dims: Sequence[Hashable]) -> list[Hashable]:
    return [d for d in dims if d not in (FOLD, CLASS, REPEAT, TRUE, PRED)]


@doc
def fold_aggregates(
    ds: xr.Dataset, *, beta: float = 1.0, zero_division: ZeroDivision = 0.0
) -> pd.DataFrame:
    """The fold aggregations per class: the lines :func:`cvframe.plot.folds` draws.

    For precision and recall the pooled value (sum the counts over the folds, then divide)
    and the mean over folds of the per-fold values; for F the five methods of
    :func:`cvframe.reduce.f_methods`. With a ``repeat`` dim each value is the mean over
    repeats. Cells that are not folds enter neither the sums nor the means.

    Parameters
    ----------
    <<ds>>
    <<beta>>
    <<tidy_zero_division>>

    Returns
    -------
    pandas.DataFrame
        Columns: the user dims (``model``, ...; not ``repeat``), ``class``, ``metric``
        ("precision", "recall", "F"), ``line`` (one of :data:`LINES`) and ``value``.

    Examples
    --------
    >>> import cvframe
    >>> t = fold_aggregates(cvframe.datasets.table1())
    >>> t[t.metric == "precision"].round(3)
       class     metric           line  value
    0      1  precision         pooled  0.424
    1      1  precision  mean of folds  0.603
    """
    ds = _loaded(ds)
    extra = extra_dims(ds)
    groups = _user_dims(extra)
    counts, _ = _read(ds)
    with _one_warning():
        per_fold = fold_table(ds, beta=beta, zero_division=zero_division)
        pooled = reduce.pooled(xr.Dataset(dict(counts), attrs=ds.attrs))
        pooled_pr = _frame(
            xr.Dataset(
                {
                    "precision": reduce.precision(pooled, zero_division=zero_division),
                    "recall": reduce.recall(pooled, zero_division=zero_division),
                }
            ),
            [*extra, CLASS],
        )
        methods = methods_table(ds, beta=beta, zero_division=zero_division)
    keys = [*extra, CLASS]
    means = per_fold.groupby(keys, sort=False, dropna=False)[["precision", "recall"]].mean()
    parts = []

    def add(frame: pd.DataFrame, metric: str, line: str, col: str) -> None:
        part = frame[keys + [col]].rename(columns={col: "value"})
        if REPEAT in extra:
            part = part.groupby([*groups, CLASS], sort=False, dropna=False)["value"].mean()
            part = part.reset_index()
        part.insert(len(groups) + 1, "metric", metric)
        part.insert(len(groups) + 2, "line", line)
        parts.append(part[[*groups, CLASS, "metric", "line", "value"]])

    means = means.reset_index()
    for metric in ("precision", "recall"):
        add(pooled_pr, metric, "pooled", metric)
        add(means, metric, "mean of folds", metric)
    for name, label in METHOD_LABELS.items():
        add(methods, "F", label, name)
    return pd.concat(parts, ignore_index=True)


# --- confusion --------------------------------------------------------------------------------


def _binary_confusion(ds: xr.Dataset, counts: dict[str, xr.DataArray]) -> xr.DataArray:
    """The 2x2 table (rows true, columns predicted) of a binary cube without ``confusion``."""
    pos = ds.attrs.get("pos_label", ds.indexes[CLASS][0] if CLASS in ds.indexes else 1)
    c = {v: counts[v].isel({CLASS: 0}, drop=True) for v in COUNTS}
    table = xr.concat(
        [xr.concat([c["tp"], c["fn"]], dim=PRED), xr.concat([c["fp"], c["tn"]], dim=PRED)], dim=TRUE
    )
    labels = [str(pos), f"not {pos}"]
    return table.assign_coords({TRUE: labels, PRED: labels})


def confusion_table(ds: xr.Dataset, *, normalize: str | None = None) -> pd.DataFrame:
    """The confusion matrix summed over folds (and repeats) as a long frame.

    Parameters
    ----------
    ds : xarray.Dataset
        A cube with ``confusion`` (single-label data) or a binary cube (its 2x2 table of
        TP, FN / FP, TN; the classes are the positive label and "not <label>").
    normalize : {None, "true", "pred", "all"}, default None
        As in :func:`sklearn.metrics.confusion_matrix`: counts, or shares of each true class
        (rows sum to 1), of each predicted class (columns), or of all samples. A row or
        column without samples is NaN.

    Returns
    -------
    pandas.DataFrame
        Columns: the user dims (``model``, ...), ``true``, ``pred``, ``value`` (float), in
        the class order of the cube.

    Raises
    ------
    CountsError
        A multilabel cube (no ``confusion``).

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
    if CONFUSION in ds.data_vars:
        dims = [d for d in ds[CONFUSION].dims if d in (FOLD, REPEAT)]
        table = multiclass.confusion(ds.fillna(0) if ds[CONFUSION].isnull().any() else ds, dim=dims)
    elif ds.attrs.get("task") == "binary" or ds.sizes.get(CLASS) == 1:
        counts, _ = _read(ds)
        table = _binary_confusion(ds, counts).sum([d for d in (FOLD, REPEAT) if d in ds.dims])
    else:
        raise CountsError(
            "ds has no 'confusion' variable (multilabel or counts-only cube); "
            "a confusion heatmap needs single-label data. Use plot.folds(ds) "
            "for the per-class counts."
        )
    table = table.astype("float64")
    if normalize is not None:
        over = {"true": [PRED], "pred": [TRUE], "all": [TRUE, PRED]}[normalize]
        table = formulas.safe_divide(table, table.sum(over), fill=np.nan)
    groups = _user_dims(table.dims)
    table = table.transpose(*groups, TRUE, PRED)
    frame = table.rename("value").to_dataframe().reset_index()
    return frame[[*groups, TRUE, PRED, "value"]]


# --- class averages and repeats ---------------------------------------------------------------


def over_repeats(
    frame: pd.DataFrame,
    by: Sequence[Hashable],
    values: Sequence[str],
    has_repeat: bool | None = None,
) -> pd.DataFrame:
    """Mean over repeats, with the sd (ddof=1) of the first value column, when there are repeats.

    Parameters
    ----------
    frame : pandas.DataFrame
        A table with one row per (repeat, ``by``...).
    by : sequence of column names
        The columns kept (``class``, ``model``, ...; not ``repeat``).
    values : sequence of column names
        The columns averaged; the first also gets ``<name>_sd`` across repeats.
    has_repeat : bool, optional
        Whether to average; default: ``frame`` has a ``repeat`` column.

    Returns
    -------
    pandas.DataFrame
        ``by`` then ``values`` (then ``<first>_sd``); without repeats the ``by`` and
        ``values`` columns of ``frame`` unchanged.

    Examples
    --------
    >>> import pandas as pd
    >>> f = pd.DataFrame({"repeat": [0, 1], "class": [1, 1], "f_tp_fp": [0.5, 0.7]})
    >>> over_repeats(f, ["class"], ["f_tp_fp"]).round(3)
       class  f_tp_fp  f_tp_fp_sd
    0      1      0.6       0.141
    """
    by, values = list(by), list(values)
    if has_repeat is None:
        has_repeat = REPEAT in frame.columns
    if not has_repeat:
        return frame[by + values].reset_index(drop=True)
    grouped = frame.groupby(by, sort=False, dropna=False)
    out = grouped[values].mean()
    if values:
        out[f"{values[0]}_sd"] = grouped[values[0]].std(ddof=1)
    return out.reset_index()


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
    with _one_warning():
        out = {
            "macro_f": multiclass.macro(ds, "f", "tp_fp", beta=beta, zero_division=zd),
            "macro_f_avg_folds": multiclass.macro(ds, "f", "avg", beta=beta, zero_division=zd),
            "macro_f_of_means": multiclass.macro(
                ds, "f", "tp_fp", definition="f_of_means", beta=beta, zero_division=zd
            ),
            "micro_f": multiclass.micro(ds, "f", "tp_fp", beta=beta, zero_division=zd),
            "weighted_f": multiclass.weighted(ds, "f", "tp_fp", beta=beta, zero_division=zd),
        }
        if CONFUSION in ds.data_vars:
            out["kappa"] = multiclass.kappa(ds, "tp_fp", zero_division=zd)
            out["accuracy"] = reduce.accuracy(ds, how="pooled", zero_division=zd)
    res = xr.Dataset(
        {k: xr.DataArray(v.data, dims=v.dims, coords=v.coords) for k, v in out.items()}
    )
    if extra:
        frame = res.transpose(*extra).to_dataframe().reset_index()
        frame = frame[[*extra, *out]]
    else:
        frame = pd.DataFrame({k: [float(v.values)] for k, v in res.data_vars.items()})
    by = [d for d in extra if d != REPEAT]
    if REPEAT in extra:
        return (
            frame.groupby(by, sort=False)[list(out)].mean().reset_index()
            if by
            else frame[list(out)].mean().to_frame().T.reset_index(drop=True)
        )
    return frame


# --- simulation studies -----------------------------------------------------------------------

_YES = {"yes", "true", "1", "stratified", "y", "t"}
_NO = {"no", "false", "0", "unstratified", "n", "f"}


def _as_bool(value: Any, name: str) -> bool:
    """A boolean coordinate value as stored in memory (bool) or in a file ("yes"/"no", 0/1)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, bytes):
        value = value.decode()
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _YES:
            return True
        if text in _NO:
            return False
    elif isinstance(value, (int, np.integer, float, np.floating)) and value in (0, 1):
        return bool(value)
    raise ValueError(
        f"{name} holds {value!r}; expected booleans or 'yes'/'no' (as "
        "cvframe.bias_study and `cvframe simulate --out` write them)."
    )


def bias_table(study: xr.Dataset, y: str = "rel_bias") -> pd.DataFrame:
    """A bias study (:func:`cvframe.bias_study`) as a long frame for plotting.

    ``stratified`` becomes the labels "stratified" / "unstratified" whether the study holds
    booleans (in memory) or "yes"/"no" strings (read back from the file ``cvframe simulate
    --out`` writes); ``estimator`` gets the paper's names (:data:`METHOD_LABELS`).

    Parameters
    ----------
    study : xarray.Dataset
        Dims among ``stratified``, ``prevalence``, ``f``, ``estimator``.
    y : {"rel_bias", "rel_std", "p_undefined"}, default "rel_bias"
        The variable.

    Returns
    -------
    pandas.DataFrame
        One row per grid point: the study's dims as columns, then ``y``.

    Raises
    ------
    ValueError
        ``y`` not a valid name or not a variable of ``study``; a ``stratified`` value that
        is neither a boolean nor "yes"/"no".

    Examples
    --------
    >>> import xarray as xr
    >>> s = xr.Dataset({"rel_bias": ("stratified", [0.1, -0.2])},
    ...                coords={"stratified": ["yes", "no"]})
    >>> bias_table(s)
         stratified  rel_bias
    0    stratified       0.1
    1  unstratified      -0.2
    """
    y = choice("y", y, ["rel_bias", "rel_std", "p_undefined"])
    if not isinstance(study, xr.Dataset) or y not in study.data_vars:
        raise ValueError(
            f"study must be a bias_study Dataset with a {y!r} variable; got "
            f"{list(getattr(study, 'data_vars', []))!r}."
        )
    frame = study[y].to_dataframe().reset_index()
    keep = [c for c in frame.columns if c in study[y].dims or c == y]
    frame = frame[keep]
    if "stratified" in frame.columns:
        frame["stratified"] = [
            "stratified" if _as_bool(v, "study['stratified']") else "unstratified"
            for v in frame["stratified"]
        ]
    if "estimator" in frame.columns:
        frame["estimator"] = frame["estimator"].map(lambda e: METHOD_LABELS.get(e, e))
    return frame


# --- ROC curves with their AUC ----------------------------------------------------------------


def roc_table(
    df: pd.DataFrame,
    *,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
) -> pd.DataFrame:
    r"""Every fold's ROC curve and each repeat's merged curve, each point with its curve's AUC.

    The points of :func:`cvframe.scores.roc` with one more column ``auc``: for a fold curve
    the fold's AUC (:func:`cvframe.scores.auc` with ``method="fold"``), for a merged curve
    AUC_merge of its repeat (``method="merge"``), the Mann-Whitney statistic

    .. math:: AUC = \frac{1}{n_1 n_0} \sum_{i \in +} \sum_{j \in -}
              \left([s_i > s_j] + \tfrac12 [s_i = s_j]\right).

    A dask DataFrame is computed once. Curves of folds without positives or negatives are
    left out with one :class:`~cvframe.UndefinedMetricWarning` (as in ``scores.roc``).

    Parameters
    ----------
    df : pandas.DataFrame or dask.dataframe.DataFrame
        A predictions frame with scores (see :func:`cvframe.scores.roc`).
    labels, pos_label, y_true, fold, repeat, score :
        As in :func:`cvframe.scores.roc`; ``repeat`` is ignored when the frame has no such
        column.

    Returns
    -------
    pandas.DataFrame
        Columns of :func:`cvframe.scores.roc` (``model``..., ``kind``, ``repeat``, ``fold``,
        ``class``, ``threshold``, ``fpr``, ``tpr``) and ``auc``.

    References
    ----------
    G. Forman and M. Scholz, "Apples-to-Apples in Cross-Validation Studies: Pitfalls in
    Classifier Performance Measurement", ACM SIGKDD Explorations 12(1), 2010, §3.2.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...                    "y_true": [0, 0, 1, 1, 0, 1, 0, 1],
    ...                    "score": [0.1, 0.4, 0.35, 0.8, 10.0, 10.5, 10.2, 11.0]})
    >>> t = roc_table(df)
    >>> t.groupby(["kind", "fold"], dropna=False)["auc"].first().tolist()
    [0.75, 1.0, 0.6875]
    """
    if type(df).__module__.split(".")[0] in ("dask", "dask_expr") and hasattr(df, "compute"):
        df = df.compute()
    rep = repeat if repeat is not None and repeat in df.columns else None
    kw: dict[str, Any] = {
        "labels": labels,
        "pos_label": pos_label,
        "y_true": y_true,
        "fold": fold,
        "repeat": rep,
        "score": score,
    }
    pts = scores.roc(df, **kw)
    with warnings.catch_warnings():
        # the same undefined folds and hard scores scores.roc has just warned about
        warnings.simplefilter("ignore")
        per_fold = scores.auc(df, "fold", "nan", **kw)
        merged = scores.auc(df, "merge", "nan", **kw)
    parts = []
    for kind, values in (("fold", per_fold), ("merged", merged)):
        part = pts[pts["kind"] == kind]
        table = values.rename("auc").to_dataframe().reset_index()
        keys = [c for c in table.columns if c != "auc" and c in part.columns]
        for k in keys:
            table[k] = table[k].astype(part[k].dtype)
        out = part.merge(table[keys + ["auc"]], on=keys, how="left")
        out.index = part.index
        parts.append(out)
    res = pd.concat(parts).sort_index()
    res.attrs = dict(pts.attrs)
    return res.reset_index(drop=True)
