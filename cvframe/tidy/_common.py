"""What every tidy frame shares: the display names of the methods, one reading of the cube,
the flat frame of a Dataset, the one warning per call and the one mean over repeats."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Hashable, Iterator, Sequence

import numpy as np
import pandas as pd
import xarray as xr

from .. import metrics
from .._core.docs import register, section
from ..errors import UndefinedMetricWarning, user_stacklevel
from ..schema import CLASS, CONFUSION, COUNTS, FOLD, PRED, REPEAT, TRUE, check_structure

__all__ = [
    "LINES",
    "METHOD_LABELS",
    "all_folds",
    "extra_dims",
    "loaded",
    "one_warning",
    "over_repeats",
    "to_frame",
    "user_dims",
]

#: Display names of the five F aggregations (the paper's notation, its tilde for the skip
#: variants), by the names of :data:`cvframe.reduce.F_METHODS`.
METHOD_LABELS = {
    metrics.spelled("f", v): metrics.display("f", v, tilde=True)
    for v in metrics.REGISTRY["f"].variants
}

#: The aggregation lines of :func:`cvframe.tidy.fold_aggregates`, in drawing order.
LINES = ("pooled", "mean of folds", *METHOD_LABELS.values())

register(
    {
        "tidy_zero_division": """\
zero_division : {"warn", 0.0, 1.0, np.nan}, default 0.0
    Value of an undefined precision or recall (the paper's 0; ``valid`` says where).
    ``"warn"`` uses 0 and emits one :class:`~cvframe.UndefinedMetricWarning` per call.""",
        "frame_columns": """\
labels, pos_label, y_true, fold, repeat, score :
    As in :func:`cvframe.scores.roc`; ``repeat`` is ignored when the frame has no such
    column.""",
    }
)
register({"tidy_parameters": section("Parameters", "ds", "beta", "tidy_zero_division")})


def loaded(ds: xr.Dataset) -> xr.Dataset:
    """The checked cube with its counts in memory (a tidy frame holds every cell anyway)."""
    check_structure(ds)
    names = list(COUNTS) + ([CONFUSION] if CONFUSION in ds.data_vars else [])
    return ds[names].load() if any(ds[v].chunks is not None for v in names) else ds


def all_folds(ds: xr.Dataset) -> xr.Dataset:
    """The cube with the folds of every repeat on one ``fold`` dim: its pooled value sums
    the counts of all of them (one pass over the data per repeat), its fold mean weighs
    each fold of each repeat once."""
    if REPEAT not in ds.dims:
        return ds
    n = ds.sizes[REPEAT] * ds.sizes[FOLD]
    others = [d for d in ds["tp"].dims if d not in (REPEAT, FOLD)]
    shape = [ds.sizes[d] for d in others]
    data = {
        k: ((FOLD, *others), ds[k].transpose(REPEAT, FOLD, *others).values.reshape(n, *shape))
        for k in COUNTS
    }
    coords = {d: ds[d] for d in others if d in ds.coords}
    return xr.Dataset(data, coords=coords, attrs=ds.attrs).assign_coords({FOLD: np.arange(n)})


def extra_dims(ds: xr.Dataset) -> list[Hashable]:
    """The dims of the counts other than fold and class (``repeat``, ``model``, ...)."""
    return [d for d in ds["tp"].dims if d not in (FOLD, CLASS)]


def user_dims(dims: Sequence[Hashable]) -> list[Hashable]:
    """The user dims (``model``, ...): not fold, class, repeat, true or pred."""
    return [d for d in dims if d not in (FOLD, CLASS, REPEAT, TRUE, PRED)]


def to_frame(obj: xr.Dataset, order: Sequence[Hashable]) -> pd.DataFrame:
    """A Dataset as a flat frame with index dims as leading columns, in ``order``."""
    dims = [d for d in order if d in obj.dims]
    if not dims:
        return pd.DataFrame({k: [v.item()] for k, v in obj.data_vars.items()})
    frame = obj.transpose(*dims).to_dataframe().reset_index()
    return frame[dims + list(obj.data_vars)]


@contextlib.contextmanager
def one_warning() -> Iterator[None]:
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


def over_repeats(
    frame: pd.DataFrame,
    by: Sequence[Hashable],
    values: Sequence[str],
    has_repeat: bool | None = None,
) -> pd.DataFrame:
    """Mean over repeats, with the sd (ddof=1) of the first value column, when there are repeats.

    The one mean over repeats of the tidy frames (:func:`cvframe.tidy.fold_aggregates`
    and :func:`cvframe.tidy.class_averages` take theirs from here); the fold aggregation
    inside each repeat is :func:`cvframe.reduce.aggregate`'s. NaN values (an undefined
    repeat under ``zero_division=np.nan``) are left out of the mean.

    Parameters
    ----------
    frame : pandas.DataFrame
        A table with one row per (repeat, ``by``...).
    by : sequence of column names
        The columns kept (``class``, ``model``, ...; not ``repeat``); may be empty.
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
    keys = by or [pd.Series(0, index=frame.index)]
    grouped = frame.groupby(keys, sort=False, dropna=False)
    out = grouped[values].mean()
    if values:
        out[f"{values[0]}_sd"] = grouped[values[0]].std(ddof=1)
    return out.reset_index() if by else out.reset_index(drop=True)
