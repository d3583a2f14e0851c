"""Argument checks shared by every public function.

Each check returns the normalised value or raises an error whose message names the argument,
shows the offending value and says what is expected. Nothing here reads data values of a
cube; the cube's own structure and values are checked in :mod:`cvframe.schema`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import ColumnError, few


def scalar(value: Any) -> Any:
    """A 0-d numpy array or DataArray (also dask-backed) as the Python scalar it holds.

    Scalar arguments are often the result of a reduction (``ds.tp.sum()``); every scalar
    check reads them through this. Anything else is returned unchanged, so arrays of several
    values are refused by the check with their shape (:func:`shown`).

    >>> import xarray as xr
    >>> scalar(np.array(0.5)), scalar(xr.DataArray(2)), scalar("a")
    (0.5, 2, 'a')
    """
    if getattr(value, "ndim", None) == 0 and not isinstance(value, np.generic):
        item = getattr(value, "item", None)
        if item is not None:
            return item()
    return value


def shown(value: Any) -> str:
    """``value`` as an error message shows it: arrays by type and shape, scalars by repr.

    >>> shown(np.zeros((2, 3))), shown(0.5)
    ('<ndarray of shape (2, 3)>', '0.5')
    """
    if getattr(value, "ndim", 0) and hasattr(value, "shape"):
        return f"<{type(value).__name__} of shape {tuple(value.shape)}>"
    return repr(value.item() if isinstance(value, np.generic) else value)


def choice(name: str, value: Any, valid: Sequence[Any]) -> Any:
    """Return ``value`` when it is one of ``valid``; else a ValueError naming ``name``.

    >>> choice("how", "avg", ["pooled", "avg"])
    'avg'
    >>> choice("how", "mean", ["pooled", "avg"])
    Traceback (most recent call last):
    ...
    ValueError: how='mean' is not valid; expected one of ['pooled', 'avg'].
    """
    for v in valid:
        if v is None or isinstance(v, str) != isinstance(value, str):
            if v is value:
                return v
            continue
        try:
            if bool(value == v):
                return v
        except Exception:  # noqa: BLE001 - comparison of arbitrary user objects
            continue
    raise ValueError(f"{name}={value!r} is not valid; expected one of {list(valid)!r}.")


def dims(obj: Any, dim: Any, name: str = "dim") -> tuple[str, ...]:
    """``dim`` (a name, several names or None) as a tuple of names present in ``obj``.

    >>> import xarray as xr
    >>> dims(xr.DataArray([[1]], dims=("fold", "class")), "fold")
    ('fold',)
    >>> dims(xr.DataArray([[1]], dims=("fold", "class")), 0)
    Traceback (most recent call last):
    ...
    TypeError: dim=0 must be a dimension name or a list of names, e.g. dim='fold'.
    """
    if dim is None:
        return ()
    many = isinstance(dim, Iterable) and not isinstance(dim, (str, bytes, Mapping))
    names: tuple[Any, ...] = tuple(dim) if many else (dim,)
    bad = [d for d in names if not isinstance(d, str)]
    if bad:
        raise TypeError(
            f"{name}={dim!r} must be a dimension name or a list of names, e.g. {name}='fold'."
        )
    if len(set(names)) != len(names):
        raise ValueError(f"{name}={dim!r} names a dimension twice; name each one once.")
    have = tuple(str(d) for d in getattr(obj, "dims", ()))
    missing = [d for d in names if d not in have]
    if missing:
        raise ValueError(
            f"Dimension(s) {', '.join(repr(d) for d in missing)} do not exist. "
            f"Expected one of {have!r} for {name}={dim!r}."
        )
    return names


def zero_division(value: Any) -> float:
    """The numeric fill of a ``zero_division`` policy ("warn" behaves as 0).

    >>> zero_division("warn"), zero_division(1)
    (0.0, 1.0)
    >>> zero_division("zero")
    Traceback (most recent call last):
    ...
    ValueError: zero_division='zero' is not valid; expected one of ['warn', 0.0, 1.0, nan] ...
    """
    if isinstance(value, str):
        if value == "warn":
            return 0.0
    elif isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        fill = float(value)
        if fill in (0.0, 1.0) or math.isnan(fill):
            return fill
    raise ValueError(
        f"zero_division={value!r} is not valid; expected one of "
        "['warn', 0.0, 1.0, nan] (scikit-learn's meaning)."
    )


def zero_division_attr(value: Any) -> str:
    """How a ``zero_division`` policy is written in ``attrs`` ("warn", "0.0", "1.0", "nan")."""
    zero_division(value)
    return value if isinstance(value, str) else repr(float(value))


def beta(value: Any) -> float:
    """``beta`` of F_beta: a finite real number >= 0.

    >>> beta(2)
    2.0
    >>> beta("1")
    Traceback (most recent call last):
    ...
    TypeError: beta='1' must be a real number >= 0 (e.g. beta=1 for F1).
    """
    value = scalar(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"beta={shown(value)} must be a real number >= 0 (e.g. beta=1 for F1).")
    b = float(value)
    if not math.isfinite(b) or b < 0:
        raise ValueError(f"beta={value!r} must be a finite number >= 0 (e.g. beta=1 for F1).")
    return b


def flag(name: str, value: Any) -> bool:
    """A switch that must be True or False (not 0/1, not "yes").

    >>> flag("skip_undefined", "no")
    Traceback (most recent call last):
    ...
    TypeError: skip_undefined='no' must be True or False.
    """
    value = scalar(value)
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}={shown(value)} must be True or False.")
    return bool(value)


def integer(
    name: str, value: Any, low: int | None = None, high: int | None = None, fix: str = ""
) -> int:
    """An integer argument in ``[low, high]``; bools and non-integral numbers are refused.

    >>> integer("k", 10, low=2)
    10
    >>> integer("trials", True, low=1)
    Traceback (most recent call last):
    ...
    TypeError: trials=True must be an integer, not a bool.
    """
    value = scalar(value)
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}={value!r} must be an integer, not a bool.")
    if isinstance(value, numbers.Integral):
        out = int(value)
    elif isinstance(value, numbers.Real) and float(value).is_integer():
        out = int(float(value))
    else:
        raise TypeError(f"{name}={shown(value)} must be an integer.{' ' + fix if fix else ''}")
    if (low is not None and out < low) or (high is not None and out > high):
        bounds = f"between {low} and {high}" if None not in (low, high) else f">= {low}"
        bounds = f"<= {high}" if low is None else bounds
        raise ValueError(f"{name}={value!r} must be {bounds}.{' ' + fix if fix else ''}")
    return out


def real(
    name: str,
    value: Any,
    low: float | None = None,
    high: float | None = None,
    *,
    low_open: bool = False,
    high_open: bool = False,
    fix: str = "",
) -> float:
    """A finite real argument within the given (closed unless ``*_open``) bounds.

    >>> real("prevalence", 0.05, 0, 1, low_open=True, high_open=True)
    0.05
    >>> real("prevalence", 1, 0, 1, low_open=True, high_open=True)
    Traceback (most recent call last):
    ...
    ValueError: prevalence=1 must be in (0, 1).
    """
    value = scalar(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}={shown(value)} must be a real number.{' ' + fix if fix else ''}")
    out = float(value)
    bad = not math.isfinite(out)
    if low is not None:
        bad |= out <= low if low_open else out < low
    if high is not None:
        bad |= out >= high if high_open else out > high
    if bad:
        left = "(-inf" if low is None else f"{'(' if low_open else '['}{low:g}"
        right = "inf)" if high is None else f"{high:g}{')' if high_open else ']'}"
        raise ValueError(f"{name}={value!r} must be in {left}, {right}.{' ' + fix if fix else ''}")
    return out


def is_regressor(estimator: Any) -> bool:
    """Whether scikit-learn calls ``estimator`` a regressor (its tags or ``_estimator_type``;
    a Pipeline by its last step); False for objects outside scikit-learn.

    >>> from sklearn.linear_model import LinearRegression, LogisticRegression
    >>> is_regressor(LinearRegression()), is_regressor(LogisticRegression()), is_regressor(1)
    (True, False, False)
    """
    try:
        import warnings

        from sklearn.base import is_regressor as sk_is_regressor

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if sk_is_regressor(estimator):
                return True
    except Exception:  # noqa: BLE001 - objects scikit-learn cannot inspect
        pass
    return getattr(estimator, "_estimator_type", None) == "regressor"


def column(frame: Any, name: Any, arg: str, what: str = "frame") -> Any:
    """The one column ``name`` of ``frame`` that argument ``arg`` names.

    The one "missing column" check of the package: a column that is absent is a
    :class:`~cvframe.errors.ColumnError` (a KeyError and a ValueError) naming the argument,
    the column, a few of the frame's columns and the fix; a name shared by several columns is
    a ValueError. Works on pandas and dask frames.

    >>> import pandas as pd
    >>> column(pd.DataFrame({"fold": [0]}), "fold", "fold").tolist()
    [0]
    >>> column(pd.DataFrame({"fold": [0]}), "label", "y_true")
    Traceback (most recent call last):
    ...
    cvframe.errors.ColumnError: y_true='label' is not a column of the frame (columns: ['fold']); ...
    """
    have = getattr(frame, "columns", None)
    if have is None:
        raise TypeError(
            f"{arg}={name!r} names a column, but the {what} is a {type(frame).__name__}."
        )
    try:
        found = name in have
    except TypeError:  # an unhashable name
        found = False
    if not found:
        raise ColumnError(
            f"{arg}={name!r} is not a column of the {what} (columns: {few(have, 8)}); pass "
            f"{arg}= with the name of the column that holds it."
        )
    col = frame[name]
    if getattr(col, "ndim", 1) == 2:
        raise ValueError(
            f"{arg}={name!r} names {col.shape[1]} columns of the {what} (duplicated column "
            "names); name each column once (drop or rename the duplicates)."
        )
    return col
