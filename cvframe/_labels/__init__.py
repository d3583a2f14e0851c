"""The label policy: one place for the class universe, its order, the binary ``pos_label``
default, integer codes, and labels that round-trip through ``attrs``.

Used by :mod:`cvframe.build`, :mod:`cvframe.scores` and :mod:`cvframe.runner`, so the same
labels give the same classes everywhere:

- **Shape.** Labels are 1-D; a column vector ``(n, 1)`` is 1-D labels. Scalars and other 2-D
  arrays are errors naming the argument (2-D 0/1 indicators are multilabel data, accepted
  only where the caller says so).
- **Universe and order.** ``labels=`` when given (a non-empty list-like without duplicates);
  else the categories of a :class:`pandas.Categorical` (unused categories kept, in category
  order); else the sorted unique labels of the data. Missing labels (None, NaN, ``pd.NA``),
  strings mixed with numbers and unorderable labels are errors.
- **Binary default.** Labels {0, 1} (ints or floats 0.0/1.0) and {False, True} found in the
  data are binary with the positive class 1 / True; any other pair needs ``pos_label``;
  ``pos_label`` must be one of the labels and is refused for more than two labels.
- **Codes.** Labels become small integer codes into the universe; a label outside the
  universe is an error, never dropped. Codes come from pandas' own factorization (or a
  Categorical's codes): no per-sample Python objects are created.
- **Groups** (fold, repeat, model, ...) are coded over the values that occur: an unused
  category of a Categorical fold is not a fold.
- **Attrs.** :func:`to_attr` writes a label as a netCDF-safe scalar; :func:`from_attr` reads it
  back against the class coordinate, so a bool ``pos_label`` comes back as ``True``, not
  ``"True"``.

(Over 400 lines: every rule above lives here once, with its doctest; splitting the policy
would bring back the copies that disagreed.)
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import CountsError, few

__all__ = [
    "as_labels",
    "binary_pos",
    "binary_universe",
    "check_known",
    "check_labels_arg",
    "check_unique",
    "code_dtype",
    "codes",
    "coord",
    "factorize",
    "from_attr",
    "group_codes",
    "is_dask",
    "merge",
    "observed",
    "plain",
    "recode",
    "to_attr",
    "universe",
]


# --- small helpers -------------------------------------------------------------------------------


def plain(v: Any) -> Any:
    """A numpy scalar as the Python scalar it holds; anything else unchanged.

    >>> plain(np.int64(3)), plain(np.bool_(True)), plain("a")
    (3, True, 'a')
    """
    return v.item() if isinstance(v, np.generic) else v


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
        out = np.empty(len(vals), dtype=object)
        out[:] = vals
        return out
    arr = np.asarray(vals) if vals else np.asarray(vals, dtype=object)
    if arr.dtype.kind in "OUS":
        out = np.empty(len(vals), dtype=object)
        out[:] = vals
        return out
    return arr


# --- shape ------------------------------------------------------------------------------------


def as_labels(x: Any, name: str, *, allow_2d: bool = False) -> Any:
    """``x`` as 1-D labels: a numpy array, a :class:`pandas.Categorical` or a dask array.

    A column vector ``(n, 1)`` (array or one-column DataFrame) is 1-D labels. Nullable pandas
    dtypes without missing values become their numpy dtype. With ``allow_2d=True`` a 2-D
    ``(n, k)`` array with ``k > 1`` (multilabel indicators) is returned as a 2-D numpy/dask
    array; otherwise it is a ValueError naming ``name``.

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
                f"(e.g. df[{few(x.columns, 1)[1:-1]}])."
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
                _missing(name, np.asarray(x.to_numpy(dtype=object))[miss], int(miss.sum()))
            np_dtype = getattr(x.dtype, "numpy_dtype", None)
            if np_dtype is None or np.dtype(np_dtype).kind in "OUS":
                return x.array  # strings: factorized by pandas, no Python object per row
            return x.to_numpy(dtype=np_dtype)
        x = x.to_numpy()
    if isinstance(x, (str, bytes)) or (not hasattr(x, "__len__") and not isinstance(x, np.ndarray)):
        raise TypeError(
            f"{name} must be an array of labels (one per sample), got the scalar {x!r}."
        )
    try:
        arr = np.asarray(x)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(
            f"{name} could not be read as an array of labels ({exc}); pass one label per sample."
        ) from None
    if arr.ndim == 0:
        raise TypeError(
            f"{name} must be an array of labels (one per sample), got the scalar {x!r}."
        )
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


# --- checks -----------------------------------------------------------------------------------


def _missing(name: str, bad: Any, count: int) -> None:
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
    if arr.dtype.kind == "O" or arr.dtype.kind in "US":
        arr = np.asarray(uniq, dtype=object)
    missing = np.asarray(pd.isna(arr), dtype=bool)
    if missing.any():
        _missing(name, arr[missing], int(missing.sum()))
    if arr.dtype.kind == "O":
        kinds = {"str" if isinstance(u, str) else "number" for u in arr}
        if len(kinds) > 1:
            strs = [u for u in arr if isinstance(u, str)][:3]
            nums = [u for u in arr if not isinstance(u, str)][:3]
            raise CountsError(
                f"{name} mixes string labels {few(strs)} with non-string labels {few(nums)}; "
                "use one type for all labels (e.g. y.astype(str))."
            )
        try:
            out = np.empty(len(arr), dtype=object)
            out[:] = sorted(arr.tolist())
            return out
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


# --- factorization ----------------------------------------------------------------------------


def factorize(values: Any, name: str) -> tuple[Any, np.ndarray]:
    """``(codes, uniques)`` of 1-D labels: ``uniques[codes]`` are the labels.

    Categorical: its own codes and all its categories (unused ones included). numpy: pandas'
    hash factorization (one pass, codes of the platform's int size). dask: a lazy
    ``get_indexer`` over the computed uniques. Missing labels are a CountsError naming
    ``name``; ``uniques`` are checked with :func:`check_unique` (not necessarily sorted).
    """
    if isinstance(values, pd.Categorical):
        c = values.codes
        if (c < 0).any():
            _missing(name, [np.nan], int((c < 0).sum()))
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
    """pandas' factorization, one block of rows at a time, into int32 codes (then smaller).

    pandas allocates about 24 bytes per row while it factorizes; block by block that stays
    bounded, and the codes cost 4 bytes per row (1 once downcast for few labels).
    """
    n = len(values)
    if n <= _FACTOR_BLOCK:
        c, uniq = pd.factorize(values, use_na_sentinel=True)
        uniq = _as_numpy_uniques(uniq)
        if n and (c < 0).any():
            bad = c < 0
            _missing(name, np.asarray(values[bad][:1000], dtype=object), int(bad.sum()))
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
        _missing(name, [np.nan], n_missing)
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
    vals = list(u)
    out = np.empty(len(vals), dtype=object)
    out[:] = vals
    return out


def _present(codes: Any, size: int) -> np.ndarray:
    """Which of ``size`` codes occur (numpy codes only)."""
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


def merge(parts: Sequence[np.ndarray], name: str) -> list[Hashable]:
    """Sorted union of several arrays of distinct labels, as Python scalars."""
    parts = [np.asarray(p) for p in parts if len(p)]
    if not parts:
        return []
    kinds = {p.dtype for p in parts}
    both = (
        np.concatenate([p.astype(object) for p in parts])
        if len(kinds) > 1
        else np.concatenate(parts)
    )
    both = both if both.dtype.kind != "O" else np.asarray(pd.unique(both), dtype=object)
    out = [
        plain(v) for v in check_unique(pd.unique(both) if both.dtype.kind != "O" else both, name)
    ]
    if all(isinstance(v, (bool, np.bool_)) for v in out):
        return [bool(v) for v in out]
    return out


# --- the universe and the binary default --------------------------------------------------------


def universe(y_true: Any, y_pred: Any = None, labels: Any = None) -> tuple[list[Hashable], bool]:
    """The class universe and whether it came from the data.

    Order: ``labels`` when given; else the categories of a :class:`pandas.Categorical`
    (``y_true``'s, then ``y_pred``'s; unused categories kept); else the sorted unique labels of
    ``y_true`` and ``y_pred``. Only the last comes "from the data" (``True``): declared labels
    and categories are a universe the user chose, so no binary default applies to them.

    >>> universe(np.array(["b", "a"]), np.array(["c", "a"]))
    (['a', 'b', 'c'], True)
    >>> universe([0, 1], labels=[1, 0])
    ([1, 0], False)
    """
    if labels is not None:
        return check_labels_arg(labels), False
    arrays = [(y_true, "y_true"), (y_pred, "y_pred")]
    for arr, _ in arrays:
        if isinstance(arr, pd.Categorical):
            return [plain(v) for v in arr.categories], False
    parts = [
        observed(as_labels(a, n) if not isinstance(a, np.ndarray) or a.ndim != 1 else a, n)
        for a, n in arrays
        if a is not None
    ]
    return merge(parts, "y_true/y_pred" if y_pred is not None else "y_true"), True


def _find(value: Any, universe: Sequence[Hashable]) -> int:
    """Index of ``value`` in ``universe`` (strings match strings only), else -1."""
    value = plain(value)
    for i, u in enumerate(universe):
        u = plain(u)
        if isinstance(u, str) != isinstance(value, str):
            continue
        try:
            if bool(u == value):
                return i
        except (TypeError, ValueError):
            continue
    return -1


def binary_pos(
    universe: Sequence[Hashable], from_data: bool, pos_label: Any, multilabel: bool = False
) -> Hashable | None:
    """The positive label when the task is binary, else None.

    - ``pos_label`` given: it must be one of ``universe`` (the universe's own element is
      returned, so ``pos_label=1.0`` on int labels gives ``1``) and ``universe`` must have at
      most two labels; a ValueError naming ``pos_label`` otherwise.
    - Not given, labels from the data: {0, 1} (ints or floats) gives 1, {False, True} gives
      True (also when only one of the two occurs); any other pair is a ValueError asking for
      ``pos_label``; three or more labels are multiclass (None).
    - Not given, declared labels (``labels=`` or categories): None (one-vs-all over them).

    >>> binary_pos([0, 1], True, None), binary_pos([False, True], True, None)
    (1, True)
    >>> binary_pos(["a", "b"], True, "b")
    'b'
    >>> binary_pos([0, 1, 2], True, 1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: pos_label=1 is for binary tasks, but there are 3 labels [0, 1, 2]; drop ...
    """
    universe = [plain(u) for u in universe]
    if multilabel:
        if pos_label is not None:
            raise ValueError(
                f"pos_label={pos_label!r} is for binary labels; multilabel "
                "indicators use 1 for present. Drop pos_label."
            )
        return None
    if pos_label is not None:
        pos_label = plain(pos_label)
        k = _find(pos_label, universe)
        if k < 0:
            raise ValueError(
                f"pos_label={pos_label!r} is not among the labels {few(universe)}; pass one of "
                "them."
            )
        if len(universe) > 2:
            raise ValueError(
                f"pos_label={pos_label!r} is for binary tasks, but there are {len(universe)} "
                f"labels {few(universe)}; drop pos_label for a multiclass (one-vs-all) cube."
            )
        return universe[k]
    if not from_data:
        return None
    if universe and all(isinstance(u, (bool, np.bool_)) for u in universe):
        return True
    if (
        universe
        and all(
            isinstance(u, numbers.Real) and not isinstance(u, (bool, np.bool_)) for u in universe
        )
        and set(universe) <= {0, 1}
    ):
        k = _find(1, universe)
        if k >= 0:
            return universe[k]
        return 1.0 if any(isinstance(u, float) for u in universe) else 1
    if len(universe) == 2:
        raise ValueError(
            f"y_true/y_pred have the two labels {few(universe)}, which are not 0/1; pass "
            f"pos_label= (one of them) for a binary cube, or labels={few(universe)} for a "
            "one-vs-all cube over both."
        )
    return None


def binary_universe(universe: Sequence[Hashable], pos: Hashable) -> list[Hashable]:
    """Both classes of a binary task whose data show only one: [0, 1], [0.0, 1.0], [False, True]."""
    universe = list(universe)
    if len(universe) >= 2:
        return universe
    if isinstance(pos, (bool, np.bool_)):
        return [False, True]
    if isinstance(pos, float):
        return [0.0, 1.0]
    if pos in (0, 1):
        return [0, 1]
    return universe


# --- codes ------------------------------------------------------------------------------------


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
        if is_dask(codes):
            occurs = np.ones(len(uniq), dtype=bool)  # dask uniques are the present labels
        else:
            occurs = _present(codes, len(uniq))
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
    values = (
        as_labels(values, name)
        if not isinstance(values, (pd.Categorical, np.ndarray)) or getattr(values, "ndim", 1) != 1
        else values
    )
    c, uniq = factorize(values, name)
    if is_dask(c):
        order = check_unique(uniq, name)
        return recode(c, uniq, [plain(u) for u in order], name), [plain(u) for u in order]
    if isinstance(values, pd.Categorical):
        used = _present(c, len(uniq))
        keep = [plain(u) for u in np.asarray(uniq)[used]]
        return recode(c, uniq, keep, name), keep
    if isinstance(values, np.ndarray) and values.dtype.kind == "b":
        used = _present(c, 2)
        keep = [bool(v) for v in np.array([False, True])[used]]
        return recode(c, np.array([False, True], dtype=object), keep, name), keep
    ordered: list[Hashable] = [plain(u) for u in check_unique(uniq, name)]
    return recode(c, uniq, ordered, name), ordered


# --- attrs ------------------------------------------------------------------------------------


def to_attr(label: Any) -> str | int | float:
    """A label as a netCDF-safe attr value (bools as "True"/"False"; read with from_attr).

    >>> to_attr(True), to_attr(np.int64(2)), to_attr("a")
    ('True', 2, 'a')
    """
    label = plain(label)
    if isinstance(label, bool):
        return "True" if label else "False"
    if isinstance(label, (str, int, float)):
        return label
    return str(label)


def from_attr(value: Any, universe: Any) -> Any:
    """The label ``value`` (read from attrs) as the element of ``universe`` it names.

    The class coordinate decides the type: ``"True"`` is ``True`` when the classes are
    booleans, ``"1"`` is ``1`` when they are ints; a value matching no class is returned as it
    is (plain Python scalar).

    >>> from_attr("True", np.array([True])), from_attr(1, [0, 1]), from_attr("a", ["a", "b"])
    (True, 1, 'a')
    """
    value = plain(value)
    uni = [
        plain(u)
        for u in (
            np.asarray(universe, dtype=object).ravel().tolist() if universe is not None else []
        )
    ]
    k = _find(value, uni)
    if k >= 0:
        return uni[k]
    if isinstance(value, str):
        for u in uni:
            if str(u) == value:
                return u
    return value
