"""The label policy: one place for the class universe, its order, the binary ``pos_label``
default, integer codes, and labels that round-trip through ``attrs``.

- Labels are 1-D (a column vector ``(n, 1)`` too); missing, mixed str/number and unorderable
  labels are errors naming the argument.
- Universe: ``labels=``, else a Categorical's categories (unused kept), else the sorted unique
  labels. Labels {0, 1} and {False, True} from the data are binary with positive 1 / True;
  any other pair needs ``pos_label``. A label outside the universe is an error, never dropped.
- Groups (fold, repeat, ...) are coded over the values that occur.
- :func:`write_pos_label` is the one writer of ``attrs["pos_label"]``, :func:`attrs_pos` says
  when it applies and :func:`pos_from_attrs` reads it.

Parts: :mod:`.coding` (shape, checks, coordinates, integer codes), this module (universe,
binary default, attrs), :mod:`.frame` (the predictions-frame reader, with its checks in
:mod:`._frame_checks`).
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...errors import few
from .coding import (
    PRED_FIX,
    TRUE_FIX,
    as_labels,
    check_classes,
    check_known,
    check_labels_arg,
    check_no_missing,
    check_unique,
    code_dtype,
    codes,
    column_groups,
    coord,
    factorize,
    group_codes,
    is_dask,
    merge,
    observed,
    plain,
    present,
    range_codes,
    recode,
    union,
)

__all__ = [
    "PRED_FIX",
    "TRUE_FIX",
    "as_labels",
    "check_classes",
    "attrs_labels",
    "attrs_pos",
    "binary_pos",
    "binary_universe",
    "check_known",
    "check_labels_arg",
    "check_no_missing",
    "check_unique",
    "code_dtype",
    "codes",
    "column_groups",
    "coord",
    "factorize",
    "find",
    "from_attr",
    "group_codes",
    "is_dask",
    "member",
    "merge",
    "observed",
    "plain",
    "pos_from_attrs",
    "present",
    "range_codes",
    "recode",
    "to_attr",
    "union",
    "universe",
    "write_pos_label",
]


def universe(y_true: Any, y_pred: Any = None, labels: Any = None) -> tuple[list[Hashable], bool]:
    """The class universe and whether it came from the data (only then a binary default applies).

    ``labels``; else the categories of a Categorical ``y_true`` or ``y_pred``; else the sorted
    unique labels of both (the only universe "from the data").

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


def find(value: Any, universe: Sequence[Hashable]) -> int:
    """Index of ``value`` in ``universe`` (strings match strings only), else -1.

    >>> find(1.0, [0, 1]), find("1", [0, 1])
    (1, -1)
    """
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

    ``pos_label`` must be one of at most two labels (the universe's own element is returned:
    ``1.0`` on int labels gives ``1``). Without it, labels from the data {0, 1} give 1 and
    {False, True} True, another pair is a ValueError asking for it, more labels are multiclass;
    declared labels (``labels=`` or categories) are one-vs-all (None).

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
        many = "is for binary tasks, but there are {n} labels {labels}; drop pos_label for a "
        many += "multiclass (one-vs-all) cube."
        return member(pos_label, universe, f"pos_label={plain(pos_label)!r}", many=many)
    if not from_data:
        return None
    if universe and all(isinstance(u, (bool, np.bool_)) for u in universe):
        return True
    real = all(isinstance(u, numbers.Real) and not isinstance(u, bool) for u in universe)
    if universe and real and set(universe) <= {0, 1}:
        k = find(1, universe)
        return universe[k] if k >= 0 else 1.0 if any(isinstance(u, float) for u in universe) else 1
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


def to_attr(label: Any) -> str | int | float:
    """A label as a netCDF-safe attr value (bools as "True"/"False"; read with from_attr).

    >>> to_attr(True), to_attr(np.int64(2)), to_attr("a")
    ('True', 2, 'a')
    """
    label = plain(label)
    ok = isinstance(label, (str, int, float)) and not isinstance(label, bool)
    return label if ok else str(label)


def from_attr(value: Any, universe: Any) -> Any:
    """The label ``value`` (read from attrs) as the element of ``universe`` it names.

    The class coordinate decides the type: ``"True"`` is ``True`` when the classes are
    booleans, ``"1"`` is ``1`` when they are ints, ``1`` is ``"1"`` when they are strings; a
    value matching no class is returned as it is (plain Python scalar).

    >>> from_attr("True", np.array([True])), from_attr(1, [0, 1]), from_attr("a", ["a", "b"])
    (True, 1, 'a')
    """
    value = plain(value)
    vals = [] if universe is None else np.asarray(universe, dtype=object).ravel().tolist()
    uni = [plain(u) for u in vals]
    k = find(value, uni)
    if k >= 0:
        return uni[k]
    for u in uni:  # "True" for True, 1 for "1": the same label written as text
        if isinstance(u, str) != isinstance(value, str) and str(u) == str(value):
            return u
    return value


def write_pos_label(obj: Any, pos: Any) -> None:
    """Record the positive class ``pos`` in ``obj.attrs`` (a frame, Dataset or DataArray).

    The one writer of ``attrs["pos_label"]``: a Dataset or DataArray gets :func:`to_attr`
    (netCDF-safe), a predictions frame the label itself (``df.y_true == df.attrs["pos_label"]``
    selects the positives); ``attrs["task"]`` becomes ``"binary"``. ``pos=None`` removes it.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"y_true": [True, False]})
    >>> write_pos_label(df, True)
    >>> df.attrs
    {'task': 'binary', 'pos_label': True}
    """
    if pos is None:
        obj.attrs.pop("pos_label", None)
        return
    obj.attrs["task"] = "binary"
    obj.attrs["pos_label"] = plain(pos) if hasattr(obj, "columns") else to_attr(pos)


def attrs_pos(attrs: Mapping[str, Any] | None, labels: Any = None) -> Any:
    """The positive class a frame's ``attrs`` record (as stored), when it applies; else None.

    It applies when ``labels=`` is not given (declared labels ask for one-vs-all) and
    ``attrs["task"]`` is ``"binary"`` or absent (a user who set only ``pos_label`` means it).

    >>> attrs_pos({"task": "binary", "pos_label": "b"}), attrs_pos({"task": "multiclass"})
    ('b', None)
    """
    attrs = attrs or {}
    if labels is not None or attrs.get("pos_label") is None:
        return None
    return attrs["pos_label"] if attrs.get("task", "binary") == "binary" else None


def attrs_labels(attrs: Mapping[str, Any] | None, labels: Any = None) -> Any:
    """``labels=`` when given; else the classes a multiclass frame's ``attrs["labels"]`` lists.

    >>> attrs_labels({"task": "multiclass", "labels": ["a", "b", "c"]})
    ['a', 'b', 'c']
    """
    attrs = attrs or {}
    if labels is None and attrs.get("task") == "multiclass" and attrs.get("labels") is not None:
        return list(attrs["labels"])
    return labels


def pos_from_attrs(value: Any, universe: Sequence[Hashable]) -> Any:
    """``attrs["pos_label"]`` read as the class of ``universe`` it names.

    A stored ``"True"`` is ``True`` of boolean classes; a value naming no class, or more than
    two classes, is a ValueError naming the attrs and the fix.
    """
    full = list(universe)
    pos = from_attr(value, full)
    if find(pos, full) < 0 and len(full) == 1:
        full = binary_universe(full, pos)  # only one of {0, 1} occurs
    fix = "pass pos_label= (one of them), or fix df.attrs['pos_label']."
    many = (
        "names a positive class, but y_true has {n} labels {labels}; drop it (del "
        "df.attrs['pos_label']) for one-vs-all over every class, or keep only two classes."
    )
    return member(pos, full, f"the frame's attrs['pos_label']={value!r}", fix, many)


def member(
    label: Any,
    universe: Sequence[Hashable],
    said: str,
    fix: str = "pass one of them.",
    many: str | None = None,
) -> Any:
    """The element of ``universe`` that ``label`` names, else a ValueError ``said ... fix``;
    with ``many``, also one (``many`` formatted with ``n`` and ``labels``) for > 2 labels."""
    k = find(label, universe)
    if k < 0:
        raise ValueError(f"{said} is not among the labels {few(universe)}; {fix}")
    if many is not None and len(universe) > 2:
        raise ValueError(f"{said} " + many.format(n=len(universe), labels=few(universe)))
    return plain(universe[k])
