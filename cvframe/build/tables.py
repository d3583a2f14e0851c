"""Counts cubes from tables: tidy counts (:func:`from_counts`) and confusion matrices
(:func:`from_confusion`); :func:`make_cube` assembles every cube the package builds, from
confusion matrices (:func:`confusion_cube`) or from 2-D 0/1 multilabel indicators
(:func:`multilabel_cube`: every class its own binary problem, no confusion matrix)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from pandas.api.types import is_bool_dtype, is_numeric_dtype

from .._core import checks as _checks
from .._core import labels as _labels
from .._version import __version__ as _version
from ..errors import CountsError, few
from ..reduce.multilabel import SAMPLE_VARS
from ..schema import CLASS, CONFUSION, COUNTS, FOLD, FRAME_DIMS, PRED, REPEAT, TASKS, TRUE, validate
from ._kernel import bincount, check_indicator, combined_index, ova_from_confusion

__all__ = [
    "confusion_cube",
    "from_confusion",
    "from_counts",
    "make_cube",
    "multilabel_cube",
    "sample_sums",
]


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


def confusion_cube(
    conf: Any,
    universe: list[Hashable],
    pos: Hashable | None,
    dims: list[str],
    coords: Mapping[str, Sequence[Hashable]],
    attrs: dict[str, Any],
) -> xr.Dataset:
    """The cube of confusion matrices ``conf`` over ``dims + [true, pred]``: one-vs-all counts
    of every class, or of the positive class ``pos`` only (a binary cube)."""
    ova = ova_from_confusion(conf)
    out_attrs: dict[str, Any] = {"task": "binary" if pos is not None else "multiclass", **attrs}
    classes = universe
    if pos is not None:
        k = universe.index(pos)
        ova = {name: arr[..., k : k + 1] for name, arr in ova.items()}
        classes = [pos]
        out_attrs["pos_label"] = _labels.to_attr(pos)
    all_coords = {**coords, CLASS: classes, TRUE: universe, PRED: universe}
    return make_cube({**ova, CONFUSION: conf}, dims, all_coords, out_attrs)


def _indicator_names(y_true: Any, y_pred: Any) -> tuple[list[Hashable] | None, Any]:
    """Column names of multilabel DataFrames, and y_pred aligned to y_true's columns by name."""
    names = None
    if isinstance(y_true, pd.DataFrame) and y_true.shape[1] > 1:
        names = [_labels.plain(c) for c in y_true.columns]
        if isinstance(y_pred, pd.DataFrame) and list(y_pred.columns) != list(y_true.columns):
            if set(y_pred.columns) != set(y_true.columns):
                raise CountsError(
                    f"multilabel y_pred has columns {few(y_pred.columns)} but y_true has "
                    f"{few(y_true.columns)}; both need one column per label, with the same "
                    "names."
                )
            return names, y_pred[list(y_true.columns)].to_numpy()
    elif isinstance(y_pred, pd.DataFrame) and y_pred.shape[1] > 1:
        names = [_labels.plain(c) for c in y_pred.columns]
    return names, None


def multilabel_cube(
    y_true: Any,
    y_pred: Any,
    yt: Any,
    yp: Any,
    gcodes: list[tuple[Any, int]],
    gcoords: dict[str, Any],
    labels: Any,
    pos_label: Any,
    w: Any,
    attrs: dict[str, Any],
    beta: float = 1.0,
) -> xr.Dataset:
    """The cube of multilabel indicators ``yt``/``yp`` grouped by the coded groups, with the
    per-fold sums of per-sample outcomes (:data:`cvframe.reduce.SAMPLE_VARS`, F at
    ``beta``)."""
    names, aligned = _indicator_names(y_true, y_pred)
    yp = yp if aligned is None else aligned
    if getattr(yt, "ndim", 1) != 2 or getattr(yp, "ndim", 1) != 2 or yt.shape != yp.shape:
        raise CountsError(
            f"multilabel y_true has shape {getattr(yt, 'shape', None)} but y_pred has "
            f"{getattr(yp, 'shape', None)}; both must be (n_samples, n_classes) indicators."
        )
    _labels.binary_pos([], False, pos_label, multilabel=True)
    c = yt.shape[1]
    classes = labels if labels is not None else (names if names is not None else list(range(c)))
    if len(classes) != c:
        raise ValueError(
            f"labels has {len(classes)} entries {few(classes)} but y_true has {c} "
            "indicator columns; give one label per column."
        )
    yt = check_indicator(yt, "y_true")
    yp = check_indicator(yp, "y_pred")
    gshape = [s for _, s in gcodes]
    code = yt.astype(np.int64) * 2 + yp  # 0 tn, 1 fp, 2 fn, 3 tp
    g = combined_index(gcodes)
    cls = np.arange(c, dtype=np.int64)
    idx = ((g[:, None] * c + cls[None, :]) * 4 + code).ravel()
    ww = None if w is None else (w[:, None] * np.ones((1, c))).ravel()  # numpy or dask
    size = int(np.prod(gshape, dtype=np.int64))
    cnt = bincount(idx, ww, size * c * 4).reshape(tuple(gshape) + (c, 4))
    ova = {"tp": cnt[..., 3], "fp": cnt[..., 1], "fn": cnt[..., 2], "tn": cnt[..., 0]}
    out_attrs = {"task": "multilabel", **attrs, **({"weighted": "yes"} if w is not None else {})}
    ds = make_cube(ova, list(gcoords), {**gcoords, CLASS: classes}, out_attrs)
    for name, arr in sample_sums(yt, yp, g, size, w, beta).items():
        ds[name] = (list(gcoords), arr.reshape(tuple(gshape)))
    ds["n_samples"].attrs["n_labels"] = c  # the labels every per-sample outcome runs over
    ds["sample_f_sum"].attrs["beta"] = float(beta)
    return ds


def sample_sums(yt: Any, yp: Any, g: Any, size: int, w: Any, beta: float = 1.0) -> dict[str, Any]:
    r"""Per-group sums of the per-sample outcomes of 0/1 indicators ``(n, C)``.

    Sample :math:`i` has :math:`tp_i, fp_i, fn_i` over its labels; its F is
    :math:`(1+\beta^2)tp_i / ((1+\beta^2)tp_i + \beta^2 fn_i + fp_i)` and its Jaccard
    :math:`tp_i / (tp_i + fp_i + fn_i)`, both undefined (left out of the sums, counted in
    ``n_empty``) when :math:`tp_i = fp_i = fn_i = 0`; it is an exact match when
    :math:`fp_i = fn_i = 0`. ``g`` is the group of every sample (``size`` groups), ``w`` the
    sample weights or None; numpy or dask arrays (dask: lazy sums).

    >>> yt = np.array([[1, 0], [1, 1], [0, 0]]); yp = np.array([[1, 1], [1, 1], [0, 0]])
    >>> {k: v.tolist() for k, v in sample_sums(yt, yp, np.array([0, 0, 1]), 2, None).items()}
    ... # doctest: +NORMALIZE_WHITESPACE
    {'n_samples': [2, 1], 'subset_correct': [1, 1], 'n_empty': [0, 1],
     'sample_f_sum': [1.6666666666666665, 0.0], 'jaccard_sum': [1.5, 0.0]}
    """
    tp = (yt & yp).sum(axis=1)
    n_true, n_pred = yt.sum(axis=1), yp.sum(axis=1)
    fp, fn = n_pred - tp, n_true - tp
    b2 = float(beta) ** 2
    f_den = (1.0 + b2) * tp + b2 * fn + fp
    union = tp + fp + fn
    per_sample = dict(  # in the order of SAMPLE_VARS; a 0/0 has numerator 0: divide by 1
        zip(
            SAMPLE_VARS,
            (
                None,  # n_samples
                (fp + fn) == 0,  # subset_correct
                union == 0,  # n_empty
                (1.0 + b2) * tp / (f_den + (f_den == 0)),  # sample_f_sum
                tp / (union + (union == 0)),  # jaccard_sum
            ),
            strict=True,
        )
    )
    if _labels.is_dask(tp) and not _labels.is_dask(g):
        import dask.array as da

        g = da.from_array(np.asarray(g), chunks=(tp.chunks[0],))
    out = {}
    for name, x in per_sample.items():
        if x is None:  # n_samples: the count (or total weight) of the group
            out[name] = bincount(g, w, size)
        elif w is not None:
            out[name] = bincount(g, x * w, size)
        elif x.dtype.kind == "b":  # a count: int64
            out[name] = bincount(g, x.astype(np.int64), size).astype(np.int64)
        else:
            out[name] = bincount(g, x, size)
    return out


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
        if TRUE in arr_.coords and PRED in arr_.coords:
            arr_ = _align_pred(arr_)
        if FOLD not in arr_.dims:
            arr_ = arr_.expand_dims({FOLD: [0]}, axis=-3)
        arr, dims = as_counts(arr_.values, "matrices"), [str(d) for d in arr_.dims[:-2]]
        coords: dict[str, list[Hashable]] = {
            d: list(arr_[d].values) if d in arr_.coords else list(range(arr_.sizes[d]))
            for d in dims
        }
        if labels is None and TRUE in arr_.coords:
            labels = list(arr_[TRUE].values)
    else:
        arr = as_counts(matrices, "matrices")
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
    c = arr.shape[-1]
    universe: list[Hashable] = (
        list(range(c)) if labels is None else _labels.check_labels_arg(labels)
    )
    if len(universe) != c:
        raise ValueError(
            f"labels has {len(universe)} entries {few(universe)} for {c} x {c} "
            "matrices; give one label per row."
        )
    if c < 2:
        raise CountsError("matrices are 1 x 1; a cube needs at least 2 classes.")
    from_data = labels is None or set(universe) <= {0, 1}
    pos = _labels.binary_pos(universe, from_data and c == 2, pos_label)
    return validate(confusion_cube(arr, universe, pos, dims, coords, {}))


def _align_pred(arr: xr.DataArray) -> xr.DataArray:
    """Matrices whose ``pred`` columns follow the order of the ``true`` rows (by label)."""
    true = [_labels.plain(v) for v in arr[TRUE].values]
    pred = [_labels.plain(v) for v in arr[PRED].values]
    if true == pred:
        return arr
    if sorted(map(repr, true)) != sorted(map(repr, pred)) or len(set(map(repr, true))) != len(true):
        raise CountsError(
            f"matrices has true labels {few(true)} but pred labels {few(pred)}; a confusion "
            "matrix needs the same classes on both axes (each once)."
        )
    order = [pred.index(t) for t in true]
    return arr.isel({PRED: order}).assign_coords({PRED: arr[TRUE].values})


# --- tidy counts ----------------------------------------------------------------------------------


def from_counts(
    df_or_mapping: pd.DataFrame | Mapping[str, Any],
    *,
    task: str | None = None,
    pos_label: Hashable | None = None,
    dims: Sequence[str] | None = None,
) -> xr.Dataset:
    """A counts cube from a tidy table of counts or from arrays.

    Parameters
    ----------
    df_or_mapping : pandas.DataFrame or mapping
        A DataFrame with columns ``fold``, ``class``, ``tp``, ``fp``, ``fn``, ``tn``, one row per
        (fold, class) and per value of every dim column (see ``dims``; a MultiIndex is reset
        into columns first). Or a mapping with
        ``tp``, ``fp``, ``fn``, ``tn`` arrays shaped (fold,), (fold, class) or
        (repeat, fold, class), and optionally ``class`` (the labels); any other key is an
        error (nothing is dropped silently).
    task : {"binary", "multiclass", "multilabel"}, optional
        Default: "binary" for one class, else "multiclass" when every fold has
        :math:`\\sum_c FP_c = \\sum_c FN_c` (single-label), else "multilabel".
    pos_label : label, optional
        The positive class of a binary cube: the cube's one class (default: that class).
        An error for a cube with several classes.
    dims : sequence of str, optional
        The table's further columns that become dims of the cube (e.g. ``["repeat",
        "seed"]``); any other column is an error. Default: ``repeat``, ``model``,
        ``param``, ``dataset``, ``subset`` and every non-numeric column (labels such as model
        names); a numeric column of another name (``support``, ``accuracy``) is an error that
        names it, since counting it as a dim would split the folds.

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
        ds = _counts_from_table(df_or_mapping, dims)
    elif isinstance(df_or_mapping, Mapping):
        if dims is not None:
            raise TypeError(
                f"dims={dims!r} names columns of a counts table; a mapping of arrays has its "
                "dims from their shape. Drop dims= or pass a DataFrame."
            )
        ds = _counts_from_mapping(df_or_mapping)
    else:
        raise TypeError(
            f"from_counts takes a DataFrame or a mapping of arrays, got "
            f"{type(df_or_mapping).__name__}."
        )
    if task is not None and (not isinstance(task, str) or task not in TASKS):
        raise ValueError(f"task={task!r} is not valid; expected one of {list(TASKS)!r}.")
    classes = [_labels.plain(v) for v in ds[CLASS].values]
    if task is None and len(classes) == 1:
        task = "binary"
    elif task is None:  # single-label when every error is one fp and one fn
        task = "multiclass" if bool((ds.fp.sum(CLASS) == ds.fn.sum(CLASS)).all()) else "multilabel"
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
        _labels.write_pos_label(ds, _labels.binary_pos(classes, False, pos_label))
    elif task == "binary":
        _labels.write_pos_label(ds, classes[0])
    return validate(ds)


def _table_dims(df: pd.DataFrame, dims: Any) -> list[str]:
    """The dim columns of a counts table (see ``from_counts(dims=)``), ``repeat`` first."""
    rest = [c for c in df.columns if c not in COUNTS and c not in (FOLD, CLASS)]
    if dims is None:
        named = (REPEAT, *FRAME_DIMS)
        out = [c for c in rest if c in named or is_bool_dtype(df[c]) or not is_numeric_dtype(df[c])]
        odd = [c for c in rest if c not in out]
        fix = f"pass dims={[*out, *odd]!r}"
    else:
        if not isinstance(dims, (str, list, tuple, pd.Index, np.ndarray)):
            raise TypeError(f"dims={dims!r} must be a list of column names, e.g. dims=['seed'].")
        out = [dims] if isinstance(dims, str) else list(dims)
        for d in out:
            _checks.column(df, d, "dims", "counts table")
        if any(d in (FOLD, CLASS, *COUNTS) for d in out) or len(set(out)) != len(out):
            raise ValueError(
                f"dims={out!r} must name other columns than fold, class and the counts, each once."
            )
        odd = [c for c in rest if c not in out]
        fix = f"add it to dims={[*out, *odd]!r}"
    if odd:
        raise CountsError(
            f"the counts table has column(s) {few(odd)} that are not counts {list(COUNTS)}, "
            f"keys ({FOLD}, {CLASS}) or dims; a numeric column is a dim only when declared "
            "(a per-row value such as a support, taken as a dim, would split the folds). "
            f"Drop it (df.drop(columns={[str(c) for c in odd]!r})) or, if it labels a dim, "
            f"{fix}."
        )
    return [d for d in out if d == REPEAT] + [d for d in out if d != REPEAT]


def _counts_from_table(df: pd.DataFrame, dims: Any = None) -> xr.Dataset:
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
    keys = _table_dims(df, dims) + [FOLD, CLASS]
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
    odd = [k for k in m if k not in (*COUNTS, CLASS, "labels")]
    if odd:
        raise CountsError(
            f"the mapping has key(s) {few(odd)} that are not counts {list(COUNTS)} or the class "
            "labels ('class' or 'labels'); nothing is dropped silently: remove them (a "
            "support is tp + fn of the counts), or pass a DataFrame with dims= for dim columns."
        )
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
    coords = {d: list(range(s)) for d, s in zip(dims[:-1], shape[:-1], strict=False)}
    return make_cube(arrs, dims[:-1], {**coords, CLASS: classes}, {})  # attrs: from_counts
