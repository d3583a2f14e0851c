"""Counts cubes from tables: tidy counts (:func:`from_counts`) and confusion matrices
(:func:`from_confusion`); :func:`make_cube` assembles every cube the package builds."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .. import __version__ as _version
from .. import _labels
from ..errors import CountsError, few
from ..schema import CLASS, CONFUSION, COUNTS, FOLD, PRED, REPEAT, TASKS, TRUE, validate
from ._kernel import ova_from_confusion

__all__ = ["from_confusion", "from_counts", "make_cube"]


def make_cube(
    variables: dict[str, Any],
    dims: list[str],
    coords: Mapping[str, Sequence[Hashable]],
    attrs: dict[str, Any],
) -> xr.Dataset:
    """A cube from count arrays over ``dims + [class]`` (``confusion``: ``+ [true, pred]``)."""
    data_vars = {}
    for name, arr in variables.items():
        vdims = dims + ([CLASS] if name != CONFUSION else [TRUE, PRED])
        data_vars[name] = (vdims, arr)
    ds = xr.Dataset(data_vars, coords={k: _labels.coord(v) for k, v in coords.items()})
    ds.attrs = {"cvframe_version": _version, **attrs}
    return ds


def as_counts(arr: Any, name: str) -> np.ndarray:
    """Validate raw counts (whole, finite, >= 0, fit int64) and return them as int64."""
    try:
        arr = np.asarray(arr)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(
            f"{name} is ragged ({exc}); every row must have the same length."
        ) from None
    if arr.dtype.kind == "O":
        odd = [v for v in arr.ravel() if isinstance(v, (str, bytes, bool, np.bool_))]
        if odd:
            raise CountsError(
                f"{name} holds {type(odd[0]).__name__} values {few(odd)}; counts must be "
                "numbers (convert the column first, e.g. pd.to_numeric)."
            )
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise CountsError(
                f"{name} has dtype object with non-numeric values; counts must be integers."
            ) from None
    if arr.size == 0:
        raise CountsError(f"{name} is empty; nothing to count.")
    if arr.dtype.kind not in "iuf":
        raise CountsError(f"{name} has dtype {arr.dtype}; counts must be integers.")
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all():
            raise CountsError(f"{name} has NaN or infinite values; counts must be finite.")
        frac = arr[arr != np.round(arr)]
        if frac.size:
            raise CountsError(
                f"{name} has fractional values {few(frac)}; counts must be whole numbers."
            )
        if (np.abs(arr) >= 2.0**63).any():
            raise CountsError(f"{name} has values too large for int64.")
    if (arr < 0).any():
        raise CountsError(
            f"{name} has negative values {few(arr[arr < 0])}; counts must be non-negative."
        )
    if arr.dtype.kind == "u" and arr.dtype.itemsize == 8 and arr.max() > np.iinfo(np.int64).max:
        raise CountsError(f"{name} has values too large for int64.")
    return arr.astype(np.int64)


# --- confusion matrices ---------------------------------------------------------------------------


def from_confusion(
    matrices: Any, labels: Sequence[Hashable] | None = None, *, pos_label: Hashable | None = None
) -> xr.Dataset:
    """A counts cube from confusion matrices (rows = true class, columns = predicted).

    Parameters
    ----------
    matrices : array-like or xarray.DataArray
        Shaped (true, pred) for a single fold, (fold, true, pred) or
        (repeat, fold, true, pred); or a DataArray whose last two dims are ``true`` and
        ``pred`` (any others, e.g. ``model``, are kept).
    labels : sequence, optional
        Class labels in row/column order (default 0..C-1).
    pos_label : label, optional
        For 2 x 2 matrices: the positive class of a binary cube (one of ``labels``). Labels
        {0, 1} default to 1; other pairs give a one-vs-all cube over both unless
        ``pos_label`` is given. Not allowed for more than two classes.

    Returns
    -------
    xarray.Dataset
        The counts cube with the ``confusion`` variable.

    Raises
    ------
    CountsError, ValueError, TypeError
        Ragged or non-square matrices, negative or fractional counts, ``labels`` that are
        not a list of distinct labels of the right length, a ``pos_label`` that is not a
        label or is given for more than two classes.

    Examples
    --------
    >>> import cvframe
    >>> ds = cvframe.from_confusion([[88, 10, 2], [14, 40, 6], [18, 10, 12]], ["A", "B", "C"])
    >>> ds.tp.values.ravel().tolist(), ds.fp.values.ravel().tolist()
    ([88, 40, 12], [32, 20, 8])
    """
    if isinstance(matrices, xr.DataArray):
        arr_ = matrices
        if arr_.ndim < 2 or arr_.dims[-2:] != (TRUE, PRED):
            raise CountsError(
                f"matrices has dims {arr_.dims}; the last two must be ({TRUE!r}, {PRED!r})."
            )
        if FOLD not in arr_.dims:
            arr_ = arr_.expand_dims({FOLD: [0]}, axis=-3)
        arr, dims = arr_.values, [str(d) for d in arr_.dims[:-2]]
        coords: dict[str, list[Hashable]] = {
            d: list(arr_[d].values) if d in arr_.coords else list(range(arr_.sizes[d]))
            for d in dims
        }
        if labels is None and TRUE in arr_.coords:
            labels = list(arr_[TRUE].values)
    else:
        try:
            arr = np.asarray(matrices)
        except ValueError as exc:
            raise ValueError(
                f"matrices is ragged ({exc}); every row of a confusion matrix "
                "must have one entry per predicted class."
            ) from None
        if arr.dtype.kind == "O":
            raise ValueError(
                "matrices is ragged or holds non-numbers; pass square count "
                "matrices, e.g. [[5, 1], [2, 7]]."
            )
        if arr.ndim not in (2, 3, 4):
            raise CountsError(
                f"matrices has {arr.ndim} dims (shape {arr.shape}); expected (true, pred), "
                "(fold, true, pred) or (repeat, fold, true, pred)."
            )
        if arr.ndim == 2:
            arr = arr[None]
        dims = [FOLD] if arr.ndim == 3 else [REPEAT, FOLD]
        coords = {d: list(range(s)) for d, s in zip(dims, arr.shape[:-2], strict=False)}
    if arr.shape[-1] != arr.shape[-2]:
        raise CountsError(
            f"matrices must be square (true x pred), got {arr.shape[-2:]}; rows "
            "are the true classes and columns the predicted ones."
        )
    arr = as_counts(arr, "matrices")
    c = arr.shape[-1]
    if labels is None:
        universe: list[Hashable] = list(range(c))
    else:
        universe = _labels.check_labels_arg(labels)
    if len(universe) != c:
        raise ValueError(
            f"labels has {len(universe)} entries {few(universe)} for {c} x {c} "
            "matrices; give one label per row."
        )
    if c < 2:
        raise CountsError("matrices are 1 x 1; a cube needs at least 2 classes.")
    from_data = labels is None or set(universe) <= {0, 1}
    pos = _labels.binary_pos(universe, from_data and c == 2, pos_label)
    ova = ova_from_confusion(arr)
    attrs: dict[str, Any] = {"task": "binary" if pos is not None else "multiclass"}
    classes = universe
    if pos is not None:
        k = universe.index(pos)
        ova = {k_: v[..., k : k + 1] for k_, v in ova.items()}
        classes = [pos]
        attrs["pos_label"] = _labels.to_attr(pos)
    coords_all: dict[str, Sequence[Hashable]] = {
        **coords,
        CLASS: classes,
        TRUE: universe,
        PRED: universe,
    }
    return validate(make_cube({**ova, CONFUSION: arr}, dims, coords_all, attrs))


# --- tidy counts ----------------------------------------------------------------------------------


def from_counts(
    df_or_mapping: pd.DataFrame | Mapping[str, Any],
    *,
    task: str | None = None,
    pos_label: Hashable | None = None,
) -> xr.Dataset:
    """A counts cube from a tidy table of counts or from arrays.

    Parameters
    ----------
    df_or_mapping : pandas.DataFrame or mapping
        A DataFrame with columns ``fold``, ``class``, ``tp``, ``fp``, ``fn``, ``tn``, one row per
        (fold, class) (and per value of every extra column, e.g. ``repeat`` or ``model``,
        which become dims; a MultiIndex is reset into columns first). Or a mapping with
        ``tp``, ``fp``, ``fn``, ``tn`` arrays shaped (fold,), (fold, class) or
        (repeat, fold, class), and optionally ``class`` (the labels).
    task : {"binary", "multiclass", "multilabel"}, optional
        Default: "binary" for one class, else "multiclass" when every fold has
        :math:`\\sum_c FP_c = \\sum_c FN_c` (single-label), else "multilabel".
    pos_label : label, optional
        The positive class of a binary cube: the cube's one class (default: that class).
        An error for a cube with several classes.

    Returns
    -------
    xarray.Dataset
        The validated counts cube (int64).

    Examples
    --------
    >>> import pandas as pd, cvframe
    >>> df = pd.DataFrame({"fold": [0, 1], "class": [1, 1], "tp": [3, 4], "fp": [0, 1],
    ...                    "fn": [0, 0], "tn": [373, 371]})
    >>> round(cvframe.from_counts(df).cv.f_tp_fp().item(), 3)
    0.933
    """
    if isinstance(df_or_mapping, pd.DataFrame):
        ds = _counts_from_table(df_or_mapping)
    elif isinstance(df_or_mapping, Mapping):
        ds = _counts_from_mapping(df_or_mapping)
    else:
        raise TypeError(
            f"from_counts takes a DataFrame or a mapping of arrays, got "
            f"{type(df_or_mapping).__name__}."
        )
    if task is not None and (not isinstance(task, str) or task not in TASKS):
        raise ValueError(f"task={task!r} is not valid; expected one of {list(TASKS)!r}.")
    classes = [_labels.plain(v) for v in ds[CLASS].values]
    if task is None:
        if len(classes) == 1:
            task = "binary"
        else:
            single = bool((ds.fp.sum(CLASS) == ds.fn.sum(CLASS)).all())
            task = "multiclass" if single else "multilabel"
    if task == "binary" and len(classes) != 1:
        raise ValueError(
            f"task='binary' needs one class (the positive one), but the counts have "
            f"{len(classes)} classes {few(classes)}; pass task='multiclass' or keep only the "
            "positive class's rows."
        )
    ds.attrs = {"cvframe_version": _version, "task": task}
    if pos_label is not None:
        if task != "binary":
            raise ValueError(
                f"pos_label={pos_label!r} is for binary cubes, but these counts are {task} "
                f"with classes {few(classes)}; drop pos_label."
            )
        k = _labels.binary_pos(classes, False, pos_label)
        ds.attrs["pos_label"] = _labels.to_attr(k)
    elif task == "binary":
        ds.attrs["pos_label"] = _labels.to_attr(classes[0])
    return validate(ds)


def _counts_from_table(df: pd.DataFrame) -> xr.Dataset:
    if isinstance(df.columns, pd.MultiIndex):
        raise ValueError(
            "the counts table has MultiIndex columns; flatten them so the table "
            f"has columns {[FOLD, CLASS, *COUNTS]}."
        )
    if any(name is not None for name in df.index.names):
        df = df.reset_index()
    missing = [c for c in (FOLD, CLASS, *COUNTS) if c not in df.columns]
    if missing:
        raise CountsError(
            f"the counts table lacks column(s) {missing}; it needs {[FOLD, CLASS, *COUNTS]} "
            f"(+ repeat and other dims); it has {few(df.columns, 12)}."
        )
    if df.columns.duplicated().any():
        raise ValueError(
            f"the counts table has duplicated columns "
            f"{few(df.columns[df.columns.duplicated()])}; name each column once."
        )
    if len(df) == 0:
        raise CountsError("the counts table is empty; it needs one row per (fold, class).")
    dims = [c for c in df.columns if c not in COUNTS and c not in (FOLD, CLASS)]
    order = [d for d in (REPEAT,) if d in dims] + [d for d in dims if d != REPEAT]
    keys = order + [FOLD, CLASS]
    for k in keys:
        if df[k].isna().any():
            raise CountsError(f"column {k!r} has {int(df[k].isna().sum())} missing values.")
    dup = df.duplicated(keys)
    if dup.any():
        raise CountsError(
            f"{int(dup.sum())} duplicated rows for {keys}, e.g. "
            f"{few(df.loc[dup, keys].itertuples(index=False, name=None), 3)}; give each "
            "(fold, class, ...) one row (sum duplicates first if intended)."
        )
    values = {v: as_counts(df[v].to_numpy(), v) for v in COUNTS}
    idx = pd.MultiIndex.from_frame(df[keys])
    full = pd.MultiIndex.from_product(idx.levels, names=keys)
    if len(full) != len(idx):
        absent = full.difference(idx)
        raise CountsError(
            f"{len(absent)} (…, fold, class) combinations have no row, e.g. "
            f"{few(list(absent), 3)}; every fold needs a row for every class (zeros allowed)."
        )
    table = pd.DataFrame(values, index=idx)
    ds = table.to_xarray()
    for v in COUNTS:
        ds[v] = ds[v].astype(np.int64)
    for k in keys:
        if ds[k].dtype.kind in "OUST":
            ds = ds.assign_coords({k: _labels.coord(ds[k].values)})
    return ds


def _counts_from_mapping(m: Mapping[str, Any]) -> xr.Dataset:
    missing = [c for c in COUNTS if c not in m]
    if missing:
        raise CountsError(f"the mapping lacks {missing}; it needs all of {list(COUNTS)}.")
    arrs = {v: as_counts(m[v], v) for v in COUNTS}
    shapes = {v: a.shape for v, a in arrs.items()}
    if len(set(shapes.values())) > 1:
        raise CountsError(f"count arrays differ in shape: {shapes}; all four must match.")
    shape = arrs["tp"].shape
    if len(shape) == 1:
        arrs = {v: a[:, None] for v, a in arrs.items()}
    elif len(shape) not in (2, 3):
        raise CountsError(
            f"count arrays have shape {shape}; expected (fold,), (fold, class) "
            "or (repeat, fold, class)."
        )
    shape = arrs["tp"].shape
    dims = [FOLD, CLASS] if len(shape) == 2 else [REPEAT, FOLD, CLASS]
    given = m.get(CLASS, m.get("labels"))
    if given is None:
        classes: list[Hashable] = [1] if shape[-1] == 1 else list(range(shape[-1]))
    else:
        name = CLASS if CLASS in m else "labels"
        if np.ndim(given) == 0 and not isinstance(given, (list, tuple)):
            given = [given]
        classes = _labels.check_labels_arg(given, name)
    if len(classes) != shape[-1]:
        raise CountsError(f"class has {len(classes)} labels for {shape[-1]} classes.")
    coords: dict[str, list[Hashable]] = {
        d: list(range(s)) for d, s in zip(dims[:-1], shape[:-1], strict=False)
    }
    coords[CLASS] = classes
    return xr.Dataset(
        {v: (dims, a) for v, a in arrs.items()},
        coords={k: _labels.coord(v) for k, v in coords.items()},
    )
