"""Build counts cubes: from per-sample predictions, from tidy counts, from confusion matrices.

Building from predictions is one pass over the data: the labels, folds and repeats are
turned into integer codes, combined into one index, and counted by a single
:func:`numpy.bincount` (:func:`dask.array.bincount` for dask inputs). No Python loop runs
over folds or classes.
"""
from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from . import __version__ as _version
from .errors import CountsError, few
from .schema import CLASS, CONFUSION, COUNTS, FOLD, PRED, REPEAT, TRUE, validate

__all__ = ["counts_from_frame", "from_confusion", "from_counts", "from_predictions"]

#: Columns of a predictions frame that become dimensions of the cube when present.
FRAME_DIMS = ("model", "dataset", "subset")


# --- label handling ----------------------------------------------------------------------------

def _is_dask(x: Any) -> bool:
    return type(x).__module__.startswith("dask")


def _as_array(x: Any, name: str) -> Any:
    """A 1-D/2-D numpy (or dask) array; pandas Categorical kept for its category order."""
    if x is None:
        raise TypeError(f"{name} is None; pass an array-like of labels.")
    if _is_dask(x):
        return x.to_dask_array(lengths=True) if hasattr(x, "to_dask_array") else x
    if isinstance(x, (pd.Series, pd.Index)):
        if isinstance(x.dtype, pd.CategoricalDtype):
            return pd.Categorical(x)
        x = x.to_numpy()
    elif isinstance(x, pd.Categorical):
        return x
    elif isinstance(x, pd.DataFrame):
        x = x.to_numpy()
    arr = np.asarray(x)
    if arr.ndim == 0:
        raise TypeError(f"{name} must be an array of labels, got a scalar {x!r}.")
    return arr


def _unique(values: Any, name: str) -> np.ndarray:
    """Sorted unique labels of one array, checking missing values and mixed types."""
    if isinstance(values, pd.Categorical):
        if values.isna().any():
            raise CountsError(
                f"{name} has {int(values.isna().sum())} missing labels (NaN/None); drop or "
                "impute those samples first."
            )
        return np.asarray(values.categories)
    if _is_dask(values):
        import dask.array as da

        values = np.asarray(da.unique(values).compute())
        return _check_labels(values, name)
    kind = values.dtype.kind
    if kind in "iu" and values.size:
        vmin, vmax = int(values.min()), int(values.max())
        if vmax - vmin <= max(1 << 16, values.size):  # presence table: one O(n) pass
            present = np.bincount((values - vmin).ravel(), minlength=vmax - vmin + 1)
            return np.flatnonzero(present).astype(values.dtype) + vmin
    if kind == "b":
        return np.unique(values)
    return _check_labels(pd.unique(values.ravel()), name)


def _check_labels(uniq: Any, name: str) -> np.ndarray:
    uniq = np.asarray(uniq, dtype=object if np.asarray(uniq).dtype.kind == "O" else None)
    missing = pd.isna(uniq)
    if missing.any():
        raise CountsError(
            f"{name} has missing labels {few(uniq[missing])}; every sample needs a label "
            "(drop or impute those samples first)."
        )
    if uniq.dtype.kind == "O":
        kinds = {"str" if isinstance(u, str) else "number" for u in uniq}
        if len(kinds) > 1:
            strs = [u for u in uniq if isinstance(u, str)][:3]
            nums = [u for u in uniq if not isinstance(u, str)][:3]
            raise CountsError(
                f"{name} mixes string labels {few(strs)} with non-string labels {few(nums)}; "
                "use one type for all labels (e.g. y.astype(str))."
            )
        try:
            return np.asarray(sorted(uniq), dtype=object)
        except TypeError as exc:
            raise CountsError(f"{name} has labels that cannot be ordered: {exc}") from None
    if uniq.dtype.kind == "f" and np.isinf(uniq).any():
        raise CountsError(f"{name} has infinite labels; labels must be finite.")
    return np.sort(uniq)


def _label_universe(y_true: Any, y_pred: Any, labels: Sequence[Hashable] | None
                    ) -> tuple[list[Hashable], bool]:
    """The class order: ``labels``, else Categorical categories, else sorted unique labels.

    Returns the labels and whether they came from the data (not declared).
    """
    if labels is not None:
        lab = list(np.asarray(labels, dtype=object).tolist()) if not isinstance(
            labels, list) else list(labels)
        if len(lab) == 0:
            raise ValueError("labels is empty; pass the class labels or labels=None.")
        dup = pd.Index(lab)[pd.Index(lab).duplicated()]
        if len(dup):
            raise ValueError(f"labels has duplicated entries {few(dup)}; list each class once.")
        return lab, False
    for arr in (y_true, y_pred):
        if isinstance(arr, pd.Categorical):
            return list(arr.categories), False
    ut, up = _unique(y_true, "y_true"), _unique(y_pred, "y_pred")
    both = np.concatenate([ut.astype(object), up.astype(object)]) if (
        ut.dtype != up.dtype) else np.concatenate([ut, up])
    return [_py(v) for v in _check_labels(pd.unique(both), "y_true/y_pred")], True


def _py(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _codes(values: Any, universe: list[Hashable], name: str) -> Any:
    """Integer codes of ``values`` in ``universe``; labels outside it are an error."""
    if isinstance(values, pd.Categorical):
        values = np.asarray(values.astype(object))
    if _is_dask(values):
        import dask.array as da

        uniq = np.asarray(da.unique(values).compute())
        _check_known(uniq, universe, name)
        index = pd.Index(universe)
        return values.map_blocks(lambda b: index.get_indexer(b.ravel()).reshape(b.shape),
                                 dtype=np.intp)
    kind = values.dtype.kind
    if kind in "iub" and all(isinstance(u, (int, np.integer, bool, np.bool_)) for u in universe):
        ints = np.asarray(universe, dtype=np.int64)
        lo = min(int(ints.min()), int(values.min())) if values.size else 0
        hi = max(int(ints.max()), int(values.max())) if values.size else 0
        if hi - lo <= max(1 << 16, values.size):
            lut = np.full(hi - lo + 1, -1, dtype=np.intp)
            lut[ints - lo] = np.arange(len(ints))
            codes = lut[values.astype(np.int64) - lo if kind == "b" or lo else values]
            if (codes < 0).any():
                _check_known(_unique(values, name), universe, name)
            return codes
    codes = pd.Index(universe).get_indexer(values.ravel()).reshape(values.shape)
    if (codes < 0).any():
        bad = values.ravel()[codes.ravel() < 0]
        _check_known(_check_labels(pd.unique(bad), name), universe, name)
    return codes


def _check_known(uniq: Any, universe: list[Hashable], name: str) -> None:
    known = set(universe)
    unknown = [_py(u) for u in np.asarray(uniq).tolist() if u not in known]
    if unknown:
        raise CountsError(
            f"{name} has labels {few(unknown)} that are not among labels={few(universe)}; "
            "add them to labels (labels outside the declared universe are never dropped)."
        )


def _group_codes(values: Any, name: str) -> tuple[Any, list[Hashable]]:
    """Codes and sorted labels of a grouping array (fold, repeat, model, ...)."""
    uniq = _unique(values, name)
    if isinstance(values, pd.Categorical):
        values = np.asarray(values.astype(object))
    universe = [_py(u) for u in np.asarray(uniq).tolist()]
    return _codes(values, universe, name), universe


# --- the one pass ---------------------------------------------------------------------------------

def _bincount(index: Any, weights: Any, size: int) -> Any:
    if _is_dask(index):
        import dask.array as da

        return da.bincount(index, weights=weights, minlength=size)
    out = np.bincount(index, weights=weights, minlength=size)
    return out if weights is not None else out.astype(np.int64, copy=False)


def _combined_index(groups: list[tuple[Any, int]], inner: list[tuple[Any, int]]) -> Any:
    """Row-major index over group codes then inner codes: ((g0*n1 + g1)*n2 + ...)."""
    parts = groups + inner
    first = parts[0][0]
    idx = first.astype(np.int64)
    for codes, size in parts[1:]:
        if _is_dask(idx):
            idx = idx * size + codes
        else:
            idx *= size
            idx += codes
    return idx


def _check_lengths(arrays: Mapping[str, Any]) -> int:
    lengths = {k: (len(v) if not _is_dask(v) else v.shape[0]) for k, v in arrays.items()
               if v is not None}
    if len(set(lengths.values())) > 1:
        desc = ", ".join(f"{k} has {n}" for k, n in lengths.items())
        raise CountsError(f"inputs differ in length: {desc}; give one entry per tested sample.")
    return next(iter(lengths.values()))


def _check_weights(w: Any, n: int) -> Any:
    if w is None:
        return None
    w = np.asarray(w, dtype="float64") if not _is_dask(w) else w.astype("float64")
    if w.ndim != 1 or w.shape[0] != n:
        raise CountsError(f"sample_weight has shape {w.shape}; expected ({n},), one per sample.")
    if not _is_dask(w):
        bad = ~np.isfinite(w) | (w < 0)
        if bad.any():
            raise CountsError(
                f"sample_weight has {int(bad.sum())} NaN, infinite or negative values "
                f"{few(w[bad])}; weights must be finite and >= 0."
            )
    return w


def _binary_pos(universe: list[Hashable], from_data: bool, pos_label: Hashable | None,
                multilabel: bool) -> Hashable | None:
    """The positive label when the task is binary, else None."""
    if multilabel:
        if pos_label is not None:
            raise ValueError("pos_label is for binary labels; multilabel indicators use 1.")
        return None
    if pos_label is not None:
        if pos_label not in universe:
            raise ValueError(
                f"pos_label={pos_label!r} is not among the labels {few(universe)}; pass one of "
                "them."
            )
        if len(universe) > 2:
            raise ValueError(
                f"pos_label={pos_label!r} is for binary tasks, but there are {len(universe)} "
                f"labels {few(universe)}; drop pos_label for a multiclass (one-vs-all) cube."
            )
        return pos_label
    if not from_data:
        return None  # declared labels: a one-vs-all cube over all of them
    if set(universe) <= {0, 1} and all(not isinstance(u, str) for u in universe):
        return True if any(isinstance(u, (bool, np.bool_)) for u in universe) else 1
    if len(universe) == 2:
        raise ValueError(
            f"y_true/y_pred have the two labels {few(universe)}, which are not 0/1; pass "
            f"pos_label= (one of them) for a binary cube, or labels={few(universe)} for a "
            "one-vs-all cube over both."
        )
    return None


def _cube(conf_or_ova: dict[str, Any], dims: list[str], coords: dict[str, list[Hashable]],
          attrs: dict[str, Any]) -> xr.Dataset:
    data_vars = {}
    for name, arr in conf_or_ova.items():
        vdims = dims + ([CLASS] if name != CONFUSION else [TRUE, PRED])
        data_vars[name] = (vdims, arr)
    ds = xr.Dataset(data_vars, coords={k: _coord(v) for k, v in coords.items()})
    ds.attrs = {"cvframe_version": _version, **attrs}
    return ds


def _coord(values: Sequence[Hashable]) -> np.ndarray:
    """Coordinate arrays: object dtype for strings (round-trips through netCDF)."""
    arr = np.asarray(list(values))
    if arr.dtype.kind in "OUS":
        return np.asarray(list(values), dtype=object)
    return arr


def _ova_from_confusion(conf: Any) -> dict[str, Any]:
    """tp/fp/fn/tn over (..., class) from a (..., true, pred) confusion array."""
    tp = np.diagonal(conf, axis1=-2, axis2=-1) if not _is_dask(conf) else _dask_diag(conf)
    pred_tot = conf.sum(axis=-2)
    true_tot = conf.sum(axis=-1)
    n = true_tot.sum(axis=-1)[..., None]
    fp, fn = pred_tot - tp, true_tot - tp
    return {"tp": tp, "fp": fp, "fn": fn, "tn": n - tp - fp - fn}


def _dask_diag(conf: Any) -> Any:
    import dask.array as da

    c = conf.shape[-1]
    eye = np.eye(c, dtype=bool)
    return da.where(eye, conf, 0).sum(axis=-1)


def _build(y_true: Any, y_pred: Any, groups: list[tuple[str, Any]], labels: Any,
           pos_label: Any, sample_weight: Any, attrs: dict[str, Any]) -> xr.Dataset:
    yt, yp = _as_array(y_true, "y_true"), _as_array(y_pred, "y_pred")
    garr = [(name, _as_array(v, name)) for name, v in groups if v is not None]
    n = _check_lengths({"y_true": yt, "y_pred": yp, **dict(garr)})
    if n == 0:
        raise CountsError("the predictions are empty (0 samples); nothing to count.")
    multilabel = getattr(yt, "ndim", 1) == 2 or getattr(yp, "ndim", 1) == 2
    w = _check_weights(sample_weight, n)
    for name, values in garr:
        if getattr(values, "ndim", 1) != 1:
            raise CountsError(f"{name} must be 1-D (one entry per sample), got shape "
                              f"{values.shape}.")
    fast = None if multilabel else _fast_confusion(yt, yp, garr, w, n)
    if fast is not None:
        raw, gcoords, present_t, present_p, raw_lo = fast
        gdims = [name for name, _ in garr]
        if labels is None:
            universe = [_py(v) for v in np.union1d(present_t, present_p)]
            if yt.dtype.kind == "b":
                universe = [bool(v) for v in universe]
            from_data = True
        else:
            universe, from_data = _label_universe(yt, yp, labels)
            _check_known(present_t, universe, "y_true")
            _check_known(present_p, universe, "y_pred")
    else:
        gcodes, gdims, gcoords = [], [], {}
        for name, values in garr:
            codes, uni = _group_codes(values, name)
            gcodes.append((codes, len(uni)))
            gdims.append(name)
            gcoords[name] = uni
        gshape = [s for _, s in gcodes]
        if multilabel:
            return _build_multilabel(yt, yp, gcodes, gdims, gcoords, gshape, labels, w, attrs)
        universe, from_data = _label_universe(yt, yp, labels)
    pos = _binary_pos(universe, from_data, pos_label, multilabel=False)
    if pos is not None and len(universe) == 1:
        universe = [0, 1] if pos == 1 else [False, True]
    if pos is None and len(universe) < 2:
        raise CountsError(
            f"only one class {few(universe)} in the label universe; a multiclass cube needs "
            "at least 2 (pass labels=[...] naming every class, or pos_label= for binary)."
        )
    c = len(universe)
    if fast is not None:
        conf = _take_labels(raw, universe, raw_lo)
    else:
        t_codes, p_codes = _codes(yt, universe, "y_true"), _codes(yp, universe, "y_pred")
        idx = _combined_index(gcodes, [(t_codes, c), (p_codes, c)])
        conf = _bincount(idx, w, int(np.prod(gshape, dtype=np.int64)) * c * c)
        conf = conf.reshape(tuple(gshape) + (c, c))
    ova = _ova_from_confusion(conf)
    task = "binary" if pos is not None else "multiclass"
    if pos is not None:
        k = universe.index(pos)
        ova = {name: arr[..., k:k + 1] for name, arr in ova.items()}
        classes: list[Hashable] = [pos]
        attrs = {**attrs, "pos_label": _attr_label(pos)}
    else:
        classes = universe
    attrs = {"task": task, **attrs}
    if w is not None:
        attrs["weighted"] = "yes"
    coords = {**gcoords, CLASS: classes, TRUE: universe, PRED: universe}
    return _cube({**ova, CONFUSION: conf}, gdims, coords, attrs)


def _attr_label(label: Hashable) -> Any:
    if isinstance(label, (bool, np.bool_)):
        return "True" if label else "False"
    return _py(label)


def _build_multilabel(yt: Any, yp: Any, gcodes: list[tuple[Any, int]], gdims: list[str],
                      gcoords: dict[str, list[Hashable]], gshape: list[int], labels: Any,
                      w: Any, attrs: dict[str, Any]) -> xr.Dataset:
    if getattr(yt, "shape", None) != getattr(yp, "shape", None):
        raise CountsError(
            f"multilabel y_true has shape {getattr(yt, 'shape', None)} but y_pred has "
            f"{getattr(yp, 'shape', None)}; both must be (n_samples, n_classes) indicators."
        )
    c = yt.shape[1]
    for name, arr in (("y_true", yt), ("y_pred", yp)):
        if _is_dask(arr):
            continue
        bad = (arr != 0) & (arr != 1)
        if bad.any():
            raise CountsError(
                f"multilabel {name} has non-indicator values {few(np.unique(arr[bad]))}; "
                "2-D labels must be 0/1 (e.g. sklearn.preprocessing.MultiLabelBinarizer)."
            )
    classes = list(range(c)) if labels is None else list(labels)
    if len(classes) != c:
        raise ValueError(f"labels has {len(classes)} entries but y_true has {c} columns.")
    code = yt.astype(np.int64) * 2 + yp.astype(np.int64)  # 0 tn, 1 fp, 2 fn, 3 tp
    g = _combined_index(gcodes, []) if gcodes else None
    cls = np.arange(c, dtype=np.int64)
    base = (g[:, None] * c + cls[None, :]) if g is not None else cls[None, :]
    idx = (base * 4 + code).ravel()
    ww = None if w is None else (np.repeat(w, c) if not _is_dask(w) else
                                 (w[:, None] * np.ones((1, c))).ravel())
    cnt = _bincount(idx, ww, int(np.prod(gshape, dtype=np.int64)) * c * 4)
    cnt = cnt.reshape(tuple(gshape) + (c, 4))
    ova = {"tn": cnt[..., 0], "fp": cnt[..., 1], "fn": cnt[..., 2], "tp": cnt[..., 3]}
    attrs = {"task": "multilabel", **attrs}
    if w is not None:
        attrs["weighted"] = "yes"
    return _cube(ova, gdims, {**gcoords, CLASS: classes}, attrs)


# --- the fast path: integer labels and groups, one bincount over their raw value ranges ---------

def _raw_int(a: Any) -> np.ndarray | None:
    """``a`` as a 1-D integer numpy array usable in index arithmetic, else None."""
    if not isinstance(a, np.ndarray) or a.ndim != 1 or a.dtype.kind not in "iub":
        return None
    if a.dtype.kind == "u" and a.dtype.itemsize == 8:
        return None
    return a.view(np.uint8) if a.dtype.kind == "b" else a


def _fast_confusion(yt: Any, yp: Any, garr: list[tuple[str, Any]], w: Any, n: int
                    ) -> tuple[np.ndarray, dict[str, list[Hashable]], np.ndarray,
                               np.ndarray, int] | None:
    r"""Count integer-coded data in one pass without factorizing anything first.

    The combined index runs over the raw value range of each array,
    :math:`\sum_j (v_j - lo_j)\, s_j` in Horner form. The data are read twice, block by
    block: once for the min/max of every array, once for the index arithmetic and the
    ``bincount`` (both on cache-resident blocks); labels and groups that occur are read off
    the (small) result. Returns None when an input is not a plain
    integer array or the value ranges are too wide, and the general path runs instead.
    """
    maybe = [_raw_int(v) for _, v in garr] + [_raw_int(yt), _raw_int(yp)]
    arrays = [a for a in maybe if a is not None]
    if len(arrays) != len(maybe):
        return None
    bounds = _blocked_bounds(arrays, n)
    lo_l, hi_l = min(bounds[-2][0], bounds[-1][0]), max(bounds[-2][1], bounds[-1][1])
    bounds[-2] = bounds[-1] = (lo_l, hi_l)
    sizes = [hi - lo + 1 for lo, hi in bounds]
    total = int(np.prod(sizes, dtype=np.float64))
    if total > max(4 * n, 1 << 22):
        return None
    offset = bounds[0][0]
    for (lo, _), size in zip(bounds[1:], sizes[1:]):
        offset = offset * size + lo
    raw = _blocked_count(arrays, sizes, offset, w, total, n).reshape(sizes)
    gcoords: dict[str, list[Hashable]] = {}
    for axis, ((name, values), (lo, _)) in enumerate(zip(garr, bounds)):
        others = tuple(i for i in range(raw.ndim) if i != axis)
        present = np.flatnonzero(raw.any(axis=others))
        raw = np.take(raw, present, axis=axis)
        coords = present + lo
        gcoords[name] = [bool(v) for v in coords] if values.dtype.kind == "b" else [
            _py(v) for v in coords]
    lead = tuple(range(raw.ndim - 2))
    present_t = np.flatnonzero(raw.sum(axis=lead + (raw.ndim - 1,))) + lo_l
    present_p = np.flatnonzero(raw.sum(axis=lead + (raw.ndim - 2,))) + lo_l
    return raw, gcoords, present_t, present_p, lo_l


#: Rows per block of the fast path: the index arithmetic of one block stays in cache.
_BLOCK = 1 << 16


def _blocked_bounds(arrays: list[np.ndarray], n: int) -> list[tuple[int, int]]:
    """(min, max) of every array, block by block (each block's min and max hit the cache)."""
    lows = [np.iinfo(np.int64).max] * len(arrays)
    highs = [np.iinfo(np.int64).min] * len(arrays)
    for start in range(0, n, _BLOCK):
        for j, a in enumerate(arrays):
            block = a[start:start + _BLOCK]
            lows[j] = min(lows[j], int(block.min()))
            highs[j] = max(highs[j], int(block.max()))
    return list(zip(lows, highs))


def _blocked_count(arrays: list[np.ndarray], sizes: list[int], offset: int, w: Any,
                   total: int, n: int) -> np.ndarray:
    """Counts of the combined index, computed one cache-sized block at a time.

    Few bins: each block is counted and added (the index never goes to memory). Many bins:
    the blocks' indices fill one array and a single ``bincount`` counts it.
    """
    accumulate = total <= _BLOCK // 4
    out = np.zeros(total if accumulate else 0, dtype=np.float64 if w is not None else np.int64)
    idx = None if accumulate else np.empty(n, dtype=np.int64)
    buf = np.empty(min(_BLOCK, n), dtype=np.int64)
    for start in range(0, n, _BLOCK):
        stop = min(start + _BLOCK, n)
        block = buf[:stop - start]
        block[...] = arrays[0][start:stop]
        for a, size in zip(arrays[1:], sizes[1:]):
            block *= size
            block += a[start:stop]
        if offset:
            block -= offset
        if idx is not None:
            idx[start:stop] = block
        else:
            out += np.bincount(block, weights=None if w is None else w[start:stop],
                               minlength=total)
    if idx is not None:
        out = _bincount(idx, w, total)
    return out


def _take_labels(raw: np.ndarray, universe: list[Hashable], lo: int) -> np.ndarray:
    """The (…, true, pred) confusion over ``universe`` from the raw-range counts.

    Labels outside the observed range (declared but absent) get zero rows and columns.
    """
    size = raw.shape[-1]
    pos = np.array([int(u) - lo if isinstance(u, (int, np.integer, bool, np.bool_))
                    and 0 <= int(u) - lo < size else size for u in universe], dtype=np.intp)
    pad = [(0, 0)] * (raw.ndim - 2) + [(0, 1), (0, 1)]
    padded = np.pad(raw, pad)
    return padded[..., pos, :][..., pos]


# --- public constructors -------------------------------------------------------------------------

def from_predictions(y_true: Any, y_pred: Any, fold: Any, repeat: Any = None,
                     labels: Sequence[Hashable] | None = None, pos_label: Hashable | None = None,
                     sample_weight: Any = None) -> xr.Dataset:
    r"""Count every fold's one-vs-all outcomes from per-sample predictions.

    One pass over the data: labels, folds and repeats become integer codes, combined into one
    index :math:`((r \cdot K + i) \cdot C + t) \cdot C + p` and counted by one ``bincount``;
    ``tp``, ``fp``, ``fn``, ``tn`` follow from the per-fold confusion matrices.

    Parameters
    ----------
    y_true, y_pred : array-like, Series or dask array
        1-D labels (binary or multiclass), or 2-D 0/1 indicator arrays
        (n_samples, n_classes) for multilabel data.
    fold : array-like
        The test fold of each sample.
    repeat : array-like, optional
        The repeat of each sample (repeated CV); becomes the ``repeat`` dim.
    labels : sequence, optional
        The class universe and order. Classes named here but absent from the data stay in
        the cube with zero counts; a label outside it is an error. Default: the categories
        of a pandas Categorical, else the sorted unique labels.
    pos_label : label, optional
        The positive class of a binary task. Labels {0, 1} / {False, True} default to 1 /
        True; any other pair of labels needs it (or ``labels=[a, b]`` for a one-vs-all cube
        over both).
    sample_weight : array-like, optional
        Per-sample weights; the counts become float64 weighted sums (attr ``weighted="yes"``).

    Returns
    -------
    xarray.Dataset
        The counts cube: int64 ``tp``, ``fp``, ``fn``, ``tn`` over ``([repeat,] fold,
        class)``, and ``confusion`` over ``([repeat,] fold, true, pred)`` for single-label
        data. Binary cubes hold only the positive class in ``class``.

    Raises
    ------
    CountsError
        Inputs of different lengths, missing labels, mixed label types, labels outside
        ``labels``, bad weights, empty input.

    See Also
    --------
    sklearn.metrics.multilabel_confusion_matrix : the same counts, one fold at a time.

    Examples
    --------
    >>> import cvframe
    >>> ds = cvframe.from_predictions([1, 0, 1, 1, 0, 0], [1, 0, 0, 1, 1, 0],
    ...                              fold=[0, 0, 0, 1, 1, 1])
    >>> ds.tp.values.ravel().tolist(), ds.fp.values.ravel().tolist()
    ([1, 1], [0, 1])
    >>> round(ds.cv.f_tp_fp().item(), 3)
    0.667
    """
    cube = _build(y_true, y_pred, [(REPEAT, repeat), (FOLD, fold)], labels, pos_label,
                  sample_weight, {})
    return cube if _lazy(cube) else validate(cube)


def _lazy(ds: xr.Dataset) -> bool:
    return any(_is_dask(v.data) for v in ds.data_vars.values())


def counts_from_frame(df: pd.DataFrame, labels: Sequence[Hashable] | None = None,
                      pos_label: Hashable | None = None, *, y_true: str = "y_true",
                      y_pred: str = "y_pred", fold: str = "fold", repeat: str | None = "repeat",
                      sample_weight: str | None = None,
                      dims: Sequence[str] | None = None) -> xr.Dataset:
    """The counts cube of a predictions frame (one row per tested sample).

    Parameters
    ----------
    df : pandas.DataFrame
        Columns ``fold``, ``y_true``, ``y_pred``, optional ``repeat`` (names configurable
        below) and optional dimension columns. A multilabel frame holds
        ``y_true_<label>`` / ``y_pred_<label>`` indicator columns instead (as
        :func:`cvframe.cross_validate` writes them); a binary frame's ``attrs["pos_label"]``
        is used when ``pos_label`` is not given.
    labels, pos_label : see :func:`from_predictions`.
    y_true, y_pred, fold : str
        Column names.
    repeat : str or None, default "repeat"
        Column of the repeat; used when the frame has it.
    sample_weight : str, optional
        Column of per-sample weights.
    dims : sequence of str, optional
        Further columns that become dims of the cube (kept by every reduction). Default: those
        of ``"model"``, ``"dataset"``, ``"subset"`` that the frame has.

    Returns
    -------
    xarray.Dataset
        The counts cube; ``df.attrs`` ``stratified`` and ``splitter`` are copied to its attrs.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"fold": [0, 0, 1, 1], "y_true": ["a", "b", "b", "c"],
    ...                    "y_pred": ["a", "b", "c", "c"]})
    >>> ds = df.cv.counts()
    >>> ds.tp.sum("fold").values.tolist()
    [1, 1, 1]
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame, got {type(df).__name__}.")
    extra = [d for d in FRAME_DIMS if d in df.columns] if dims is None else list(dims)
    if pos_label is None and labels is None and df.attrs.get("task") == "binary":
        pos_label = df.attrs.get("pos_label")
    multi = _multilabel_columns(df, y_true, y_pred) if y_true not in df.columns else None
    wanted = {"y_true": y_true, "y_pred": y_pred, "fold": fold, **{d: d for d in extra}}
    if multi is not None:
        del wanted["y_true"], wanted["y_pred"]
    if sample_weight is not None:
        wanted["sample_weight"] = sample_weight
    missing = {arg: col for arg, col in wanted.items() if col not in df.columns}
    if missing:
        desc = ", ".join(f"{arg}={col!r}" for arg, col in missing.items())
        raise KeyError(
            f"column(s) not in the frame: {desc}; the frame has {few(df.columns, 12)}. Pass the "
            "column names, e.g. df.cv.counts(y_true='label', fold='split')."
        )
    groups: list[tuple[str, Any]] = [(d, df[d]) for d in extra]
    if repeat is not None and repeat in df.columns:
        groups.append((REPEAT, df[repeat]))
    groups.append((FOLD, df[fold]))
    attrs = {k: str(df.attrs[k]) for k in ("stratified", "splitter") if k in df.attrs}
    if multi is not None:
        true_cols, pred_cols, names = multi
        attr_labels = df.attrs.get("labels")
        if labels is None:
            known = list(attr_labels) if attr_labels is not None else []
            labels = known if [str(k) for k in known] == names else names
        yt, yp = df[true_cols].to_numpy(), df[pred_cols].to_numpy()
    else:
        yt, yp = df[y_true], df[y_pred]
    cube = _build(yt, yp, groups, labels, pos_label,
                  None if sample_weight is None else df[sample_weight], attrs)
    return validate(cube)


def _multilabel_columns(df: pd.DataFrame, y_true: str, y_pred: str
                        ) -> tuple[list[str], list[str], list[str]] | None:
    """Multilabel frames hold one ``y_true_<label>`` and ``y_pred_<label>`` column per label."""
    true_cols = [c for c in df.columns if isinstance(c, str) and c.startswith(y_true + "_")]
    if not true_cols:
        return None
    names = [c[len(y_true) + 1:] for c in true_cols]
    pred_cols = [f"{y_pred}_{n}" for n in names]
    missing = [c for c in pred_cols if c not in df.columns]
    if missing:
        raise KeyError(f"multilabel frame has {few(true_cols)} but lacks {few(missing)}; "
                       "every y_true_<label> column needs its y_pred_<label> column.")
    return true_cols, pred_cols, names


def from_confusion(matrices: Any, labels: Sequence[Hashable] | None = None, *,
                   pos_label: Hashable | None = None) -> xr.Dataset:
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
        For 2 x 2 matrices: the positive class of a binary cube. Labels {0, 1} default to 1;
        other pairs give a one-vs-all cube over both unless ``pos_label`` is given.

    Returns
    -------
    xarray.Dataset
        The counts cube with the ``confusion`` variable.

    Examples
    --------
    >>> import cvframe
    >>> ds = cvframe.from_confusion([[88, 10, 2], [14, 40, 6], [18, 10, 12]], ["A", "B", "C"])
    >>> ds.tp.values.ravel().tolist(), ds.fp.values.ravel().tolist()
    ([88, 40, 12], [32, 20, 8])
    """
    if isinstance(matrices, xr.DataArray):
        da_ = matrices
        if da_.dims[-2:] != (TRUE, PRED):
            raise CountsError(f"matrices has dims {da_.dims}; the last two must be "
                              f"({TRUE!r}, {PRED!r}).")
        if FOLD not in da_.dims:
            da_ = da_.expand_dims({FOLD: [0]}, axis=-3)
        arr, dims = da_.values, [str(d) for d in da_.dims[:-2]]
        coords: dict[str, list[Hashable]] = {d: list(da_[d].values) if d in da_.coords else list(range(da_.sizes[d]))
                  for d in dims}
        if labels is None and TRUE in da_.coords:
            labels = list(da_[TRUE].values)
    else:
        arr = np.asarray(matrices)
        if arr.ndim not in (2, 3, 4):
            raise CountsError(
                f"matrices has {arr.ndim} dims (shape {arr.shape}); expected (true, pred), "
                "(fold, true, pred) or (repeat, fold, true, pred)."
            )
        if arr.ndim == 2:
            arr = arr[None]
        dims = [FOLD] if arr.ndim == 3 else [REPEAT, FOLD]
        coords = {d: list(range(s)) for d, s in zip(dims, arr.shape[:-2])}
    if arr.shape[-1] != arr.shape[-2]:
        raise CountsError(f"matrices must be square (true x pred), got {arr.shape[-2:]}.")
    arr = _as_counts(arr, "matrices")
    c = arr.shape[-1]
    universe = list(range(c)) if labels is None else [_py(v) for v in labels]
    if len(universe) != c:
        raise ValueError(f"labels has {len(universe)} entries for {c} x {c} matrices.")
    pos = _binary_pos(universe, from_data=c == 2 and set(universe) <= {0, 1},
                      pos_label=pos_label, multilabel=False) if c == 2 else None
    if c == 2 and pos is None and pos_label is None and set(universe) <= {0, 1}:
        pos = 1
    ova = _ova_from_confusion(arr)
    attrs: dict[str, Any] = {"task": "binary" if pos is not None else "multiclass"}
    classes = universe
    if pos is not None:
        k = universe.index(pos)
        ova = {k_: v[..., k:k + 1] for k_, v in ova.items()}
        classes = [pos]
        attrs["pos_label"] = _attr_label(pos)
    elif c < 2:
        raise CountsError("matrices are 1 x 1; a multiclass cube needs at least 2 classes.")
    coords_all: dict[str, list[Hashable]] = {**coords, CLASS: classes, TRUE: universe,
                                             PRED: universe}
    return validate(_cube({**ova, CONFUSION: arr}, dims, coords_all, attrs))


def _as_counts(arr: Any, name: str) -> np.ndarray:
    """Validate raw counts and return them as int64."""
    arr = np.asarray(arr)
    if arr.size == 0:
        raise CountsError(f"{name} is empty; nothing to count.")
    if arr.dtype.kind not in "iuf":
        raise CountsError(f"{name} has dtype {arr.dtype}; counts must be integers.")
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all():
            raise CountsError(f"{name} has NaN or infinite values; counts must be finite.")
        frac = arr[arr != np.round(arr)]
        if frac.size:
            raise CountsError(f"{name} has fractional values {few(frac)}; counts must be "
                              "whole numbers.")
    if (arr < 0).any():
        raise CountsError(f"{name} has negative values {few(arr[arr < 0])}; counts must be "
                          "non-negative.")
    if arr.dtype.kind == "u" and arr.dtype.itemsize == 8 and arr.max() > np.iinfo(np.int64).max:
        raise CountsError(f"{name} has values too large for int64.")
    return arr.astype(np.int64)


def from_counts(df_or_mapping: pd.DataFrame | Mapping[str, Any], *, task: str | None = None,
                pos_label: Hashable | None = None) -> xr.Dataset:
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
        Recorded for binary cubes.

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
        ds = _counts_from_frame(df_or_mapping)
    elif isinstance(df_or_mapping, Mapping):
        ds = _counts_from_mapping(df_or_mapping)
    else:
        raise TypeError(
            f"from_counts takes a DataFrame or a mapping of arrays, got "
            f"{type(df_or_mapping).__name__}."
        )
    if task is None:
        if ds.sizes[CLASS] == 1:
            task = "binary"
        else:
            single = bool((ds.fp.sum(CLASS) == ds.fn.sum(CLASS)).all())
            task = "multiclass" if single else "multilabel"
    if task not in ("binary", "multiclass", "multilabel"):
        raise ValueError(f"task={task!r} is not valid; expected 'binary', 'multiclass' or "
                         "'multilabel'.")
    ds.attrs = {"cvframe_version": _version, "task": task}
    if pos_label is not None:
        ds.attrs["pos_label"] = _attr_label(pos_label)
    elif task == "binary":
        ds.attrs["pos_label"] = _attr_label(ds[CLASS].values[0])
    return validate(ds)


def _counts_from_frame(df: pd.DataFrame) -> xr.Dataset:
    if any(name is not None for name in df.index.names):
        df = df.reset_index()
    missing = [c for c in (FOLD, CLASS, *COUNTS) if c not in df.columns]
    if missing:
        raise CountsError(
            f"the counts table lacks column(s) {missing}; it needs {[FOLD, CLASS, *COUNTS]} "
            f"(+ repeat and other dims); it has {few(df.columns, 12)}."
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
    for v in COUNTS:
        _as_counts(df[v].to_numpy(), v)
    idx = pd.MultiIndex.from_frame(df[keys])
    full = pd.MultiIndex.from_product(idx.levels, names=keys)
    if len(full) != len(idx):
        absent = full.difference(idx)
        raise CountsError(
            f"{len(absent)} (…, fold, class) combinations have no row, e.g. "
            f"{few(list(absent), 3)}; every fold needs a row for every class (zeros allowed)."
        )
    ds = df.set_index(keys)[list(COUNTS)].to_xarray()
    for v in COUNTS:
        ds[v] = ds[v].astype(np.int64)
    for k in keys:
        if ds[k].dtype.kind in "OUST":
            ds = ds.assign_coords({k: np.asarray(ds[k].values, dtype=object)})
    return ds


def _counts_from_mapping(m: Mapping[str, Any]) -> xr.Dataset:
    missing = [c for c in COUNTS if c not in m]
    if missing:
        raise CountsError(f"the mapping lacks {missing}; it needs all of {list(COUNTS)}.")
    arrs = {v: _as_counts(m[v], v) for v in COUNTS}
    shapes = {v: a.shape for v, a in arrs.items()}
    if len(set(shapes.values())) > 1:
        raise CountsError(f"count arrays differ in shape: {shapes}; all four must match.")
    shape = arrs["tp"].shape
    if len(shape) == 1:
        arrs = {v: a[:, None] for v, a in arrs.items()}
    elif len(shape) not in (2, 3):
        raise CountsError(f"count arrays have shape {shape}; expected (fold,), (fold, class) "
                          "or (repeat, fold, class).")
    shape = arrs["tp"].shape
    dims = [FOLD, CLASS] if len(shape) == 2 else [REPEAT, FOLD, CLASS]
    labels = m.get(CLASS, m.get("labels"))
    classes = list(range(shape[-1])) if labels is None and len(shape) == 2 and shape[-1] > 1 \
        else ([1] if labels is None and shape[-1] == 1 else
              (list(range(shape[-1])) if labels is None else list(labels)))
    if len(classes) != shape[-1]:
        raise CountsError(f"class has {len(classes)} labels for {shape[-1]} classes.")
    coords = {d: list(range(s)) for d, s in zip(dims[:-1], shape[:-1])}
    coords[CLASS] = classes
    return xr.Dataset({v: (dims, a) for v, a in arrs.items()},
                      coords={k: _coord(v) for k, v in coords.items()})
