"""Labels as values and as integer codes: shape, checks, coordinates, factorization, groups.

Part of the label policy of :mod:`cvframe._core.labels` (the rules are listed there): codes come
from pandas' own factorization (or a Categorical's codes), so no Python object is created per
sample; a label outside the universe is an error naming the argument, never dropped.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...errors import CountsError, few


def plain(v: Any) -> Any:
    """A numpy scalar as the Python scalar it holds; anything else unchanged.

    >>> plain(np.int64(3)), plain(np.bool_(True)), plain("a")
    (3, True, 'a')
    """
    return v.item() if isinstance(v, np.generic) else v


def objects(vals: Sequence[Any]) -> np.ndarray:
    """``vals`` as a 1-D object array (tuples stay elements, never a second axis)."""
    out = np.empty(len(vals), dtype=object)
    out[:] = vals
    return out


def is_dask(x: Any) -> bool:
    """True for dask arrays, Series and DataFrames (without importing dask)."""
    return type(x).__module__.startswith("dask")


def code_dtype(size: int) -> np.dtype:
    """The smallest signed integer dtype that holds codes ``-1 .. size - 1``."""
    for dt in (np.int8, np.int16, np.int32):
        if size <= np.iinfo(dt).max:
            return np.dtype(dt)
    return np.dtype(np.int64)


def coord(values: Iterable[Hashable]) -> np.ndarray:
    """A coordinate array of labels: object dtype for strings (round-trips through netCDF).

    >>> coord(["a", "b"]).dtype, coord([1, 2]).dtype
    (dtype('O'), dtype('int64'))
    """
    vals = [plain(v) for v in values]
    if vals and all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
        for dt in (np.int64, np.uint64):  # ids of any integer width stay integers
            info = np.iinfo(dt)
            if info.min <= min(vals) and max(vals) <= info.max:
                return np.asarray(vals, dtype=dt)
        return objects(vals)
    arr = np.asarray(vals) if vals else np.asarray(vals, dtype=object)
    return objects(vals) if arr.dtype.kind in "OUS" else arr


def as_labels(x: Any, name: str, *, allow_2d: bool = False) -> Any:
    """``x`` as 1-D labels: a numpy array, a :class:`pandas.Categorical` or a dask array.

    A column vector ``(n, 1)`` is 1-D; nullable dtypes without missing values become numpy.
    ``allow_2d=True`` returns 2-D multilabel indicators as they are (else a ValueError).

    >>> as_labels([[1], [0], [1]], "y_true").tolist()
    [1, 0, 1]
    >>> as_labels(5, "y_true")
    Traceback (most recent call last):
    ...
    TypeError: y_true must be an array of labels (one per sample), got the scalar 5.
    """
    if x is None:
        raise TypeError(f"{name} is None; pass an array-like of labels (one per sample).")
    if is_dask(x):
        return _as_dask(x, name, allow_2d)
    if isinstance(x, pd.DataFrame):
        if x.shape[1] == 1:
            x = x.iloc[:, 0]
        elif allow_2d:
            return _numeric_2d(x.to_numpy(), name)
        else:
            raise ValueError(
                f"{name} is a DataFrame with {x.shape[1]} columns; pass one column of labels "
                f"(e.g. df[{x.columns[0]!r}]; duplicated column names: drop or rename them)."
            )
    if isinstance(x, pd.Categorical):
        return x
    if isinstance(x, pd.api.extensions.ExtensionArray):
        x = pd.Series(x, copy=False)
    if isinstance(x, (pd.Series, pd.Index)):
        if isinstance(x.dtype, pd.CategoricalDtype):
            return pd.Categorical(x)
        if isinstance(x.dtype, pd.api.extensions.ExtensionDtype):
            miss = np.asarray(x.isna())
            if miss.any():
                refuse_missing(name, np.asarray(x.to_numpy(dtype=object))[miss], int(miss.sum()))
            np_dtype = getattr(x.dtype, "numpy_dtype", None)
            if np_dtype is None or np.dtype(np_dtype).kind in "OUS":
                return x.array  # strings: factorized by pandas, no Python object per row
            return x.to_numpy(dtype=np_dtype)
        x = x.to_numpy()
    scalar = isinstance(x, (str, bytes)) or not hasattr(x, "__len__")
    try:
        arr = np.asarray(x)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(
            f"{name} could not be read as an array of labels ({exc}); pass one label per sample."
        ) from None
    if scalar or arr.ndim == 0:
        raise TypeError(
            f"{name} must be an array of labels (one per sample), got the scalar {x!r}."
        )
    if isinstance(x, (list, tuple)) and arr.ndim == 1 and arr.dtype.kind in "US":
        _refuse_coerced(x, name)  # numpy turned numbers among strings into strings
    if arr.ndim == 2 and arr.shape[1] == 1:
        return arr[:, 0]
    if arr.ndim == 1:
        return arr
    if arr.ndim == 2 and allow_2d:
        return _numeric_2d(arr, name)
    raise ValueError(
        f"{name} has shape {arr.shape}; pass 1-D labels, one per sample"
        + (" (or a 2-D 0/1 indicator array for multilabel data)." if allow_2d else ".")
    )


def _refuse_coerced(values: list[Any] | tuple[Any, ...], name: str) -> None:
    """A list that mixes strings with other labels (numpy would make ``1`` the string ``"1"``)."""
    other = [v for v in values if not isinstance(v, (str, bytes))]
    if other:
        strs = [v for v in values if isinstance(v, (str, bytes))]
        raise CountsError(
            f"{name} mixes string labels {few(list(dict.fromkeys(strs))[:3])} with non-string "
            f"labels {few(list(dict.fromkeys(other))[:3])}; use one type for all labels (e.g. "
            "[str(v) for v in labels])."
        )


def _numeric_2d(arr: np.ndarray, name: str) -> np.ndarray:
    if arr.dtype.kind == "O":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise CountsError(
                f"multilabel {name} has non-numeric values; 2-D labels must be 0/1 indicators."
            ) from None
    return arr


def _as_dask(x: Any, name: str, allow_2d: bool) -> Any:
    if hasattr(x, "to_dask_array"):
        if getattr(x, "ndim", 1) == 2 and len(x.columns) == 1:
            x = x[x.columns[0]]
        x = x.to_dask_array(lengths=True)
    if x.ndim == 2 and x.shape[1] == 1:
        return x[:, 0]
    if x.ndim == 1 or (x.ndim == 2 and allow_2d):
        return x
    if x.ndim == 0:
        raise TypeError(f"{name} must be an array of labels (one per sample), got a scalar.")
    raise ValueError(f"{name} has shape {x.shape}; pass 1-D labels, one per sample.")


def refuse_missing(name: str, bad: Any, count: int) -> None:
    shown = pd.unique(np.asarray(bad, dtype=object)) if len(bad) else []
    raise CountsError(
        f"{name} has missing labels {few(shown)} ({count} samples); every sample needs a label "
        "(drop or impute those samples first)."
    )


def check_unique(uniq: Any, name: str) -> np.ndarray:
    """Distinct labels checked (no missing, one type, orderable, finite), sorted.

    >>> check_unique(np.array(["b", "a"], dtype=object), "y").tolist()
    ['a', 'b']
    """
    arr = np.asarray(uniq)
    arr = np.asarray(uniq, dtype=object) if arr.dtype.kind in "OUS" else arr
    missing = np.asarray(pd.isna(arr), dtype=bool)
    if missing.any():
        refuse_missing(name, arr[missing], int(missing.sum()))
    if arr.dtype.kind == "O":
        strs = [u for u in arr if isinstance(u, str)]
        if strs and len(strs) < len(arr):
            nums = [u for u in arr if not isinstance(u, str)]
            raise CountsError(
                f"{name} mixes string labels {few(strs[:3])} with non-string labels "
                f"{few(nums[:3])}; use one type for all labels (e.g. y.astype(str))."
            )
        try:
            return objects(sorted(arr.tolist()))
        except TypeError as exc:
            raise CountsError(
                f"{name} has labels that cannot be ordered ({exc}); use one label type."
            ) from None
    if arr.dtype.kind == "f" and np.isinf(arr).any():
        raise CountsError(
            f"{name} has infinite labels {few(arr[np.isinf(arr)])}; labels must be finite."
        )
    if arr.dtype.kind == "c":
        raise CountsError(f"{name} has complex labels {few(arr)}; use real or string labels.")
    return np.sort(arr)


#: What a continuous ``y_pred`` usually is, and the fix.
PRED_FIX = (
    "y_pred must hold predicted class labels (a classifier's predict), not probabilities, "
    "decision values or a regressor's predictions; scores go in a score column"
)
#: The fix for a continuous ``y_true`` (or ``y``).
TRUE_FIX = (
    "cvframe evaluates classifiers of class labels; a regression target needs a regression "
    "evaluation (e.g. scikit-learn's cross_val_score with a regressor). Class codes that are "
    "numbers are whole numbers, or pass them as strings"
)


def check_classes(values: Any, name: str, fix: str = "") -> None:
    """Refuse continuous numbers taken for class labels: floats that are not whole numbers
    (scikit-learn's ``type_of_target`` calls them ``"continuous"``).

    ``values`` are labels or their distinct values (numpy, object or pandas); whole floats
    (``1.0``) are class codes and pass. The CountsError (a ValueError) names ``name``, how
    many distinct values there are, a few of them and ``fix`` (default: :data:`TRUE_FIX`).

    >>> check_classes(np.array([0.0, 1.0]), "y_true")
    >>> check_classes(np.array([0.25, 1.5, 0.25]), "y_true")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    cvframe.errors.CountsError: y_true holds continuous values (2 distinct, e.g. [0.25, 1.5]): ...
    """
    arr = np.asarray(values)
    if arr.dtype.kind == "f":
        frac = arr[np.isfinite(arr) & (arr != np.floor(arr))]
    elif arr.dtype.kind == "O":
        frac = np.asarray(
            [
                v
                for v in arr.ravel().tolist()
                if isinstance(v, float) and math.isfinite(v) and not v.is_integer()
            ],
            dtype=np.float64,
        )
    else:
        return
    if not frac.size:
        return
    distinct = pd.unique(arr.ravel())
    raise CountsError(
        f"{name} holds continuous values ({len(distinct)} distinct, e.g. "
        f"{few(np.unique(frac)[:5])}): a continuous target (or a regressor's predictions) is "
        "not class labels. "
        f"{fix or TRUE_FIX}."
    )


def check_labels_arg(labels: Any, name: str = "labels") -> list[Hashable]:
    """``labels=`` as a list: a non-empty list-like of distinct labels.

    >>> check_labels_arg(np.array([2, 1]))
    [2, 1]
    >>> check_labels_arg(3)
    Traceback (most recent call last):
    ...
    TypeError: labels=3 must be a list of class labels, e.g. labels=[0, 1, 2].
    """
    if (
        isinstance(labels, (str, bytes, dict))
        or not isinstance(labels, Iterable)
        or (isinstance(labels, np.ndarray) and labels.ndim != 1)
    ):
        raise TypeError(f"{name}={labels!r} must be a list of class labels, e.g. {name}=[0, 1, 2].")
    if isinstance(labels, pd.Categorical):
        labels = list(labels.categories) if len(labels) == 0 else list(labels)
    lab = [plain(v) for v in labels]
    if not lab:
        raise ValueError(f"{name} is empty; pass the class labels or {name}=None.")
    try:
        index = pd.Index(lab, dtype=object)
    except TypeError as exc:
        raise TypeError(f"{name} holds values that cannot be labels ({exc}).") from None
    if bool(np.asarray(pd.isna(index)).any()):
        raise ValueError(
            f"{name} has missing entries {few(index[pd.isna(index)])}; every class needs a label."
        )
    try:
        dup = index[index.duplicated()]
    except TypeError as exc:
        raise TypeError(f"{name} holds unhashable values ({exc}).") from None
    if len(dup):
        raise ValueError(f"{name} has duplicated entries {few(dup)}; list each class once.")
    return lab


def check_known(uniq: Any, universe: Sequence[Hashable], name: str) -> None:
    """CountsError naming ``name`` when a label of ``uniq`` is not in ``universe``."""
    known = pd.Index(list(universe), dtype=object)
    vals = [plain(u) for u in np.asarray(uniq, dtype=object).tolist()]
    found = known.get_indexer(vals) if vals else np.empty(0, dtype=np.intp)
    unknown = [u for u, i in zip(vals, found, strict=True) if i < 0]
    if unknown:
        raise CountsError(
            f"{name} has labels {few(unknown)} that are not among labels={few(universe)}; "
            "add them to labels (labels outside the declared universe are never dropped)."
        )


def factorize(values: Any, name: str) -> tuple[Any, np.ndarray]:
    """``(codes, uniques)`` of 1-D labels: ``uniques[codes]`` are the labels.

    A Categorical gives its codes and all its categories; dask a lazy ``get_indexer``. Missing
    labels are a CountsError naming ``name``; ``uniques`` are checked, not sorted.
    """
    if isinstance(values, pd.Categorical):
        c = values.codes
        if (c < 0).any():
            refuse_missing(name, [np.nan], int((c < 0).sum()))
        cats = np.asarray(values.categories)
        check_unique(cats, name)
        return c, cats
    if is_dask(values):
        import dask.array as da

        uniq = np.asarray(da.unique(values).compute())
        check_unique(uniq, name)
        index = pd.Index(uniq)
        dt = code_dtype(len(uniq))
        return values.map_blocks(lambda b: index.get_indexer(b).astype(dt), dtype=dt), uniq
    if not isinstance(values, pd.api.extensions.ExtensionArray):
        values = np.asarray(values)
        if values.dtype.kind == "b":
            return values.view(np.int8), np.array([False, True])
    c, uniq = _blocked_factorize(values, name)
    check_unique(uniq, name)
    return c, uniq


#: Rows per block of :func:`_blocked_factorize` (bounds pandas' per-row temporaries).
_FACTOR_BLOCK = 1 << 20


def _blocked_factorize(values: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    """pandas' factorization block by block (its ~24 bytes per row of temporaries stay bounded)."""
    n = len(values)
    if n <= _FACTOR_BLOCK:
        c, uniq = pd.factorize(values, use_na_sentinel=True)
        uniq = _as_numpy_uniques(uniq)
        if n and (c < 0).any():
            bad = c < 0
            refuse_missing(name, np.asarray(values[bad][:1000], dtype=object), int(bad.sum()))
        return c.astype(code_dtype(len(uniq)), copy=False), uniq
    out = np.empty(n, dtype=np.int32 if n < 2**31 else np.int64)
    seen: dict[Any, int] = {}
    order: list[Any] = []
    n_missing = 0
    for start in range(0, n, _FACTOR_BLOCK):
        block = values[start : start + _FACTOR_BLOCK]
        c, u = pd.factorize(block, use_na_sentinel=True)
        if (c < 0).any():
            n_missing += int((c < 0).sum())
            c = np.where(c < 0, 0, c)
        lut = np.empty(len(u), dtype=out.dtype)
        for i, label in enumerate(_as_numpy_uniques(u).tolist()):
            code = seen.get(label)
            if code is None:
                code = seen[label] = len(order)
                order.append(label)
            lut[i] = code
        out[start : start + len(c)] = lut[c] if len(lut) else 0
    if n_missing:
        refuse_missing(name, [np.nan], n_missing)
    uniq = (
        _as_numpy_uniques(order)
        if not isinstance(values, np.ndarray) or values.dtype.kind in "OUS"
        else np.asarray(order, dtype=values.dtype)
    )
    dt = code_dtype(len(uniq))
    return (out.astype(dt) if dt.itemsize < out.dtype.itemsize else out), uniq


def _as_numpy_uniques(u: Any) -> np.ndarray:
    """Uniques of a factorization as a numpy array (object for strings)."""
    if isinstance(u, np.ndarray) and u.dtype.kind not in "OUS":
        return u
    if isinstance(u, (pd.api.extensions.ExtensionArray, pd.Index)):
        np_dtype = getattr(u.dtype, "numpy_dtype", None)
        if np_dtype is not None and np.dtype(np_dtype).kind not in "OUS" and not u.isna().any():
            return u.to_numpy(dtype=np_dtype)
    return objects(list(u))


def present(codes: Any, size: int) -> np.ndarray:
    """Which of ``size`` codes occur (numpy codes only).

    >>> present(np.array([0, 2]), 3).tolist()
    [True, False, True]
    """
    if size == 0 or len(codes) == 0:
        return np.zeros(size, dtype=bool)
    return np.bincount(codes.astype(np.intp, copy=False), minlength=size)[:size] > 0


def observed(values: Any, name: str) -> np.ndarray:
    """The sorted distinct labels of ``values`` (a Categorical: all its categories).

    >>> observed(np.array(["b", "a", "b"]), "y").tolist()
    ['a', 'b']
    """
    if isinstance(values, pd.Categorical):
        return factorize(values, name)[1]
    if is_dask(values) or isinstance(values, pd.api.extensions.ExtensionArray):
        return check_unique(factorize(values, name)[1], name)
    values = np.asarray(values)
    if values.dtype.kind == "b":
        return np.unique(values)
    uniq = pd.unique(values.ravel())
    return check_unique(uniq, name)


def union(parts: Sequence[Any]) -> np.ndarray:
    """The distinct values of several arrays, unsorted (object dtype when their dtypes differ)."""
    parts = [np.asarray(p) for p in parts if len(p)]
    if not parts:
        return np.empty(0)
    same = len({p.dtype for p in parts}) == 1
    return np.asarray(
        pd.unique(np.concatenate(parts if same else [p.astype(object) for p in parts]))
    )


def merge(parts: Sequence[np.ndarray], name: str) -> list[Hashable]:
    """Sorted union of several arrays of distinct labels, as Python scalars."""
    return [plain(v) for v in check_unique(union(parts), name)]


def recode(codes: Any, uniques: Any, universe: Sequence[Hashable], name: str) -> Any:
    """Codes into ``uniques`` turned into codes into ``universe`` (small int dtype).

    Labels of ``uniques`` that occur but are not in ``universe`` are a CountsError naming
    ``name``.
    """
    uniq = [plain(u) for u in np.asarray(uniques, dtype=object).tolist()]
    index = pd.Index(list(universe), dtype=object)
    lut = index.get_indexer(uniq) if uniq else np.empty(0, dtype=np.intp)
    dt = code_dtype(len(index))
    if (lut < 0).any():
        # dask uniques are the present labels
        occurs = np.ones(len(uniq), bool) if is_dask(codes) else present(codes, len(uniq))
        bad = occurs & (lut < 0)
        if bad.any():
            check_known(np.asarray(uniq, dtype=object)[bad], universe, name)
    lut = lut.astype(dt)
    if is_dask(codes):
        return codes.map_blocks(lambda b: lut[b], dtype=dt)
    if len(lut) == len(index) and (lut == np.arange(len(index))).all():
        return codes.astype(dt, copy=False)
    return lut[codes]


def codes(values: Any, universe: Sequence[Hashable], name: str) -> Any:
    """Integer codes of ``values`` in ``universe`` (small int dtype; numpy or dask).

    Labels outside ``universe`` are a CountsError naming ``name`` (never dropped).

    >>> codes(np.array(["b", "a", "b"]), ["a", "b"], "y_true").tolist()
    [1, 0, 1]
    >>> codes(np.array(["a", "z"]), ["a", "b"], "y_pred")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    cvframe.errors.CountsError: y_pred has labels ['z'] that are not among labels=['a', 'b']; ...
    """
    if not isinstance(values, pd.Categorical) and not is_dask(values):
        values = np.asarray(values)
    c, uniq = factorize(values, name)
    return recode(c, uniq, universe, name)


def group_codes(values: Any, name: str) -> tuple[Any, list[Hashable]]:
    """Codes and labels of a grouping array (fold, repeat, model, ...).

    Only values that occur are groups: the unused categories of a Categorical are not (its
    used categories keep the category order); other groups are sorted. Integer ids of any
    width (uint64 beyond 2**63, negative ids) are kept as they are.

    >>> c, u = group_codes(pd.Categorical([2, 0, 2], categories=[0, 1, 2]), "fold")
    >>> c.tolist(), u
    ([1, 0, 1], [0, 2])
    """
    if not isinstance(values, (pd.Categorical, np.ndarray)) or getattr(values, "ndim", 1) != 1:
        values = as_labels(values, name)
    c, uniq = factorize(values, name)
    if isinstance(values, pd.Categorical) or (
        isinstance(values, np.ndarray) and values.dtype.kind == "b"
    ):  # categories or both booleans: keep the used ones, in their order
        keep = [plain(u) for u in np.asarray(uniq, dtype=object)[present(c, len(uniq))]]
        return recode(c, uniq, keep, name), keep
    ordered: list[Hashable] = [plain(u) for u in check_unique(uniq, name)]
    return recode(c, uniq, ordered, name), ordered


def check_no_missing(col: pd.Series, arg: str) -> None:
    """A ValueError naming ``arg`` and a few rows when column ``col`` has missing values."""
    if isinstance(col.dtype, np.dtype) and col.dtype.kind in "iub":
        return  # numpy ints and bools cannot be missing
    miss = np.asarray(col.isna())
    if miss.any():
        raise ValueError(
            f"{arg} column {col.name!r} has {int(miss.sum())} missing values (None/NaN/NA) at "
            f"rows {few(col.index[miss])}; drop or fill those rows first (nothing is dropped "
            "silently)."
        )


def range_codes(a: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes of a plain integer array over the values that occur, and those values (sorted).

    Counting instead of hashing (one ``bincount`` over the range). None when ``a`` is not a
    1-D integer numpy array (uint64 excluded), is empty, or its range is much wider than it.

    >>> codes, values = range_codes(np.array([7, 3, 7, 9]))
    >>> codes.tolist(), values.tolist()
    ([1, 0, 1, 2], [3, 7, 9])
    """
    if not isinstance(a, np.ndarray) or a.ndim != 1 or a.dtype.kind not in "iu" or not len(a):
        return None
    if a.dtype.kind == "u" and a.dtype.itemsize == 8:
        return None
    lo, hi = int(a.min()), int(a.max())
    if hi - lo + 1 > max(4 * len(a), 1 << 16):
        return None
    shifted = a.astype(np.intp, copy=False) if lo == 0 else np.subtract(a, lo, dtype=np.intp)
    occurs = np.bincount(shifted, minlength=hi - lo + 1) > 0
    values = np.flatnonzero(occurs)
    lut = np.cumsum(occurs, dtype=np.int64) - 1
    return lut.astype(code_dtype(len(values)))[shifted], (values + lo).astype(a.dtype)


def column_groups(col: pd.Series, arg: str) -> tuple[np.ndarray, np.ndarray]:
    """Codes and coordinate of a grouping column (fold, repeat): only values that occur."""
    check_no_missing(col, arg)
    fast = None if isinstance(col.dtype, pd.CategoricalDtype) else range_codes(col.to_numpy())
    if fast is not None:
        return fast[0].astype(np.int64), fast[1]
    values = col.array if isinstance(col.dtype, pd.CategoricalDtype) else col
    codes, order = group_codes(as_labels(values, arg), arg)
    return np.asarray(codes, dtype=np.int64), coord(order)
