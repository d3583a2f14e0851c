"""The one counting pass of a predictions table: every input as integers, counted together.

Integer arrays are counted as they are, a Categorical by its codes, anything else (strings,
floats, objects) by the codes of :mod:`cvframe._core.labels`; then one pass counts every
(group..., y_true, y_pred) cell (:func:`cvframe.build._kernel.count_table`: compiled, or
numpy block by block). The cube's group values and class universe are read back from the
counted ranges: a group's values are those that occur (a Categorical's in category order,
coded values sorted), the classes ``labels=``, else a Categorical's categories, else the
labels seen (:mod:`cvframe._core.labels`).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._core import labels as _labels
from ..errors import CountsError, few
from . import _kernel

__all__ = ["Counted", "coded", "count", "resolve", "universe_of"]


@dataclass
class _Input:
    """One array as the integers the pass counts, and how a counted value reads back:
    ``labels[value]`` (a Categorical's categories, the values a coding found) or the value
    itself (``labels`` None: integers, bools)."""

    ints: np.ndarray
    name: str
    labels: Any = None
    source: Any = None  # the input, to raise its own error (missing values) when needed


def _group(values: Any, name: str) -> _Input:
    """A grouping array (fold, repeat, model, ...) as integers."""
    ints = _kernel.raw_int(values)
    if ints is not None:
        return _Input(ints, name, source=values)
    if isinstance(values, pd.Categorical):
        return _Input(values.codes, name, np.asarray(values.categories, dtype=object), values)
    codes, order = _labels.group_codes(values, name)
    table = np.empty(len(order), dtype=object)  # tuples stay elements
    table[:] = order
    return _Input(np.asarray(codes), name, table, values)


def universe_of(labels: Any, seen_true: Any, seen_pred: Any) -> tuple[Any, bool]:
    """The class universe and whether it comes from the data: ``labels`` (which the labels
    seen must be among), else the labels seen."""
    if labels is None:
        return _labels.merge([seen_true, seen_pred], "y_true/y_pred"), True
    _labels.check_known(seen_true, labels, "y_true")
    _labels.check_known(seen_pred, labels, "y_pred")
    return labels, False


def resolve(
    universe: list[Hashable], from_data: bool, pos_label: Any, pos_from_attr: bool
) -> tuple[list[Hashable], Hashable | None]:
    """The class universe and the positive class (None: multiclass) by the label policy."""
    if pos_from_attr and pos_label is not None:
        pos_label = _labels.pos_from_attrs(pos_label, universe)
    pos = _labels.binary_pos(universe, from_data, pos_label)
    if pos is not None:
        universe = _labels.binary_universe(universe, pos)
    elif len(universe) < 2:
        raise CountsError(
            f"only one class {few(universe)} in the label universe; a multiclass cube needs "
            "at least 2 (pass labels=[...] naming every class, or pos_label= for binary)."
        )
    return universe, pos


def _present_uniques(codes: Any, uniq: np.ndarray, values: Any) -> np.ndarray:
    """The labels of a factorization that occur (bool arrays factorize to both values)."""
    if isinstance(values, np.ndarray) and values.dtype.kind == "b":
        seen = np.bincount(codes.view(np.uint8), minlength=2)[:2] > 0
        return np.asarray(uniq)[seen]
    return np.asarray(uniq)


def _same_categories(yt: Any, yp: Any) -> bool:
    """Both labels Categoricals of the same categories (their codes then count together)."""
    return (
        isinstance(yt, pd.Categorical)
        and isinstance(yp, pd.Categorical)
        and len(yt.categories) >= 2
        and yt.categories.equals(yp.categories)
    )


@dataclass
class Counted:
    """The (groups..., true, pred) counts of a predictions table over its group values and
    class universe: the input of :func:`cvframe.build.tables.confusion_cube`."""

    conf: np.ndarray
    universe: list[Hashable]
    pos: Hashable | None
    gcoords: dict[str, list[Any]]


def count(
    groups: list[tuple[str, Any]],
    yt: Any,
    yp: Any,
    labels: Any,
    pos_label: Any,
    w: Any,
    n: int,
    pos_from_attr: bool = False,
) -> Counted | None:
    """Count 1-D labels ``yt``/``yp`` per group (outer to inner) in one pass over integers.

    ``labels`` and ``pos_label`` as in :func:`cvframe.from_predictions` (``labels`` already
    checked), ``w`` float64 weights or None. Labels are integers counted as they are, the
    codes of two Categoricals of the same categories, or (unweighted) codes into the
    universe. None for weighted labels that need coding (the caller codes them): their
    float sums then keep the order of the per-label counting of earlier releases.
    """
    ints_t, ints_p = _kernel.raw_int(yt), _kernel.raw_int(yp)
    if ints_t is not None and ints_p is not None:
        kind = "ints"
    elif labels is None and _same_categories(yt, yp):
        kind = "categories"
    elif w is None:
        kind = "codes"
    else:
        return None
    inputs = [_group(values, name) for name, values in groups]
    universe: Any = None
    pos: Hashable | None = None
    lab: list[np.ndarray]
    if kind == "ints":
        assert ints_t is not None and ints_p is not None
        lab = [ints_t, ints_p]
    elif kind == "categories":
        _labels.check_classes(np.asarray(yt.categories), "y_true")  # a few values, not rows
        universe, from_data = [_labels.plain(v) for v in yt.categories], False
        universe, pos = resolve(universe, from_data, pos_label, pos_from_attr)
        lab = [yt.codes, yp.codes]
    else:
        universe, pos, lab = coded(yt, yp, labels, pos_label, pos_from_attr)
    arrays = [x.ints for x in inputs] + lab
    got = _kernel.count_table(arrays, w, n)
    if got is None:
        return None
    raw, bounds = got
    for x, (lo, _) in zip(inputs, bounds, strict=False):
        if lo < 0 and x.labels is not None:  # a Categorical's missing values: its own error
            _labels.group_codes(x.source, x.name)
    if kind == "categories" and bounds[-1][0] < 0:
        _labels.factorize(yt, "y_true")
        _labels.factorize(yp, "y_pred")
    raw, offsets, seen_t, seen_p = _kernel.present_values(raw, bounds, arrays, w, n)
    gcoords = {}
    for (name, values), x, off, (lo, _) in zip(groups, inputs, offsets, bounds, strict=False):
        at = off + lo
        if x.labels is not None:
            gcoords[name] = [_labels.plain(v) for v in x.labels[at]]
        elif values.dtype.kind == "b":
            gcoords[name] = [bool(v) for v in at]
        else:
            gcoords[name] = [_labels.plain(v) for v in at]
    lo_l = bounds[-1][0]
    if kind == "ints":
        present_t, present_p = seen_t + lo_l, seen_p + lo_l
        if yt.dtype.kind == "b" and yp.dtype.kind == "b":
            present_t, present_p = present_t.astype(bool), present_p.astype(bool)
        universe, from_data = universe_of(labels, present_t, present_p)
        universe, pos = resolve(universe, from_data, pos_label, pos_from_attr)
        conf = _kernel.take_labels(raw, universe, lo_l)
    else:
        conf = _kernel.take_labels(raw, list(range(len(universe))), lo_l)
    return Counted(conf, universe, pos, gcoords)


def coded(
    yt: Any, yp: Any, labels: Any, pos_label: Any, pos_from_attr: bool
) -> tuple[list[Hashable], Hashable | None, list[np.ndarray]]:
    """Labels that are not integers: the universe, the positive class and the codes of
    ``yt`` and ``yp`` into the universe."""
    t_codes, t_uniq = _labels.factorize(yt, "y_true")
    p_codes, p_uniq = _labels.factorize(yp, "y_pred")
    if labels is None:  # declared labels are classes; so are integers (counted as they are)
        _labels.check_classes(t_uniq, "y_true")
        _labels.check_classes(p_uniq, "y_pred", _labels.PRED_FIX)
    if labels is not None:
        universe, from_data = labels, False
    elif isinstance(yt, pd.Categorical) or isinstance(yp, pd.Categorical):
        universe, from_data = _labels.universe(yt, yp)
    else:
        seen = (_present_uniques(t_codes, t_uniq, yt), _present_uniques(p_codes, p_uniq, yp))
        universe, from_data = universe_of(None, *seen)
    universe, pos = resolve(universe, from_data, pos_label, pos_from_attr)
    tc = _labels.recode(t_codes, t_uniq, universe, "y_true")
    pc = _labels.recode(p_codes, p_uniq, universe, "y_pred")
    return universe, pos, [np.asarray(tc), np.asarray(pc)]
