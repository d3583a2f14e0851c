"""The one driver of every score metric: read, evaluate, cube, reduce, warn.

A score metric is a :class:`Metric` whose ``values`` turn the parsed frame into one array per
group for every class and variable; :func:`run` checks the options, parses the frame once,
builds one cube per variable, reduces it with :func:`cvframe.reduce.fold_mean` (the one fold
mean) and emits the call's one :class:`~cvframe.UndefinedMetricWarning`. The ranking family
shares :func:`ranked`: one sort per class, also for the per-fold and merged values at once.
"""

from __future__ import annotations

import contextlib
import contextvars
import operator
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
import xarray as xr

from .._core import checks as _checks
from .._core import labels as _labels
from .._core.docs import register
from .._core.labels.frame import Frame, parse
from ..errors import UndefinedMetricWarning, user_stacklevel
from ..reduce import fold_mean
from ..schema import CLASS, FOLD, REPEAT, Counts, where_text
from ._rank import Ranked

__all__ = [
    "AVERAGES",
    "METHODS",
    "UNDEFINED",
    "Average",
    "Metric",
    "Method",
    "Undefined",
    "check",
    "cube",
    "mean",
    "ranked",
    "read",
    "run",
    "warn",
]

Method = Literal["avg", "merge", "fold"]
Undefined = Literal["skip", "nan"]
Average = Literal["macro", "weighted", None]

METHODS = ("avg", "merge", "fold")
UNDEFINED = ("skip", "nan")
AVERAGES = (None, "macro", "weighted")

_EXAMPLE = """\
>>> import pandas as pd
>>> from cvframe import scores
>>> df = pd.DataFrame({{"fold": {fold},
...                    "y_true": {y},
...                    "score": {score}}})"""
_EIGHT = dict(fold=[0, 0, 0, 0, 1, 1, 1, 1], y=[0, 0, 1, 1, 0, 1, 0, 1])
register(  # the predictions frames of the examples
    {
        "score_example": _EXAMPLE.format(
            **_EIGHT, score=[0.1, 0.4, 0.35, 0.8, 10.0, 10.5, 10.2, 11.0]
        ),
        "probability_example": _EXAMPLE.format(
            **_EIGHT, score=[0.1, 0.4, 0.35, 0.8, 0.6, 0.7, 0.65, 0.9]
        ),
        "cost_example": _EXAMPLE.format(
            fold=[0] * 6, y=[1, 0, 1, 1, 0, 0], score=[0.9, 0.8, 0.7, 0.6, 0.5, 0.1]
        ),
    }
)

#: Per class, one array per group for every variable (``"support"`` weighs class averages).
Groups = list[dict[str, np.ndarray]]
#: ``values(frame, df, per_fold, merged)``: the per-fold and the merged groups (None when
#: not asked for).
Values = Callable[[Frame, Any, bool, bool], tuple[Groups | None, Groups | None]]


@dataclass(frozen=True)
class Metric:
    """A score metric the driver runs.

    ``values`` computes the groups; its first variable is the metric's value (NaN where
    undefined; ``"value"`` takes the metric's name), ``"support"`` weighs the class average
    and ``_``-names only feed ``multiclass`` (the value of the whole probability vector,
    ``average="multiclass"``). ``why`` says why a cell can be undefined (None: never).
    """

    name: str
    why: str | None
    values: Values
    extra: dict[str, Any] = field(default_factory=dict)
    methods: tuple[str, ...] = METHODS
    averages: tuple[Any, ...] = AVERAGES
    multiclass: Callable[[Frame, dict[str, xr.DataArray]], dict[str, xr.DataArray]] | None = None
    hard_ok: bool = False  #: hard 0/1 scores are fine (no warning)
    label: str | None = None  #: how the warning names the metric (default: ``name``)


def check(
    methods: Sequence[Any],
    undefined: Any,
    average: Any,
    valid: Sequence[Any] = METHODS,
    averages: Sequence[Any] = AVERAGES,
) -> None:
    """The options of a call, each named in its error."""
    for m in methods:
        _checks.choice("method", m, valid)
    _checks.choice("undefined", undefined, UNDEFINED)
    _checks.choice("average", average, averages)


_HARD = r"score column\(s\) .* hold only the values 0 and 1"


#: Entries by the ids of their objects (kept with the entry) and plain keys.
_Table = dict[tuple[Any, ...], tuple[tuple[Any, ...], Any]]


@dataclass
class _Shared:
    """What one :func:`one_parse` block keeps: the parses by (frame, columns), and per
    parse (by ``id``: the parse is kept, so its ``id`` cannot be reused) the ranking
    metrics' sorted classes by grouping and their values by metric and method."""

    parsed: dict[Any, tuple[Any, Frame, bool]] = field(default_factory=dict)
    #: (id(parse), class, "merge") -> ((parse,), the class sorted by repeat)
    ranked: dict[tuple[Any, ...], tuple[tuple[Any, ...], Ranked]] = field(default_factory=dict)
    #: (id(parse), id(per_group), method) -> ((parse, per_group), every class's groups)
    values: dict[tuple[Any, ...], tuple[tuple[Any, ...], Groups]] = field(default_factory=dict)

    @staticmethod
    def get(table: _Table, *key: Any) -> Any:
        """The entry of the objects in ``key`` (those very objects, kept with the entry: not
        others that reuse an ``id``; ints and strings are plain values), or None."""
        ids, owners = _ids(key)
        hit = table.get(ids)
        return hit[1] if hit is not None and all(map(operator.is_, hit[0], owners)) else None

    @staticmethod
    def put(table: _Table, *key: Any, value: Any) -> None:
        """Keep ``value`` under ``key`` (objects by ``id``, kept alive with the entry)."""
        ids, owners = _ids(key)
        table[ids] = (owners, value)


def _ids(key: tuple[Any, ...]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """``key`` with its objects (not ints or strings) as ids, and those objects."""
    plain = [isinstance(k, (int, str)) for k in key]
    ids = tuple(k if p else id(k) for k, p in zip(key, plain, strict=True))
    return ids, tuple(k for k, p in zip(key, plain, strict=True) if not p)


_PARSED: contextvars.ContextVar[_Shared | None]
_PARSED = contextvars.ContextVar("cvframe_parsed", default=None)


@contextlib.contextmanager
def one_parse() -> Iterator[None]:
    """Within the block, score metrics of the same frame (same object, same columns) share
    one parse of it, and the ranking metrics one sort of each class (AUC_avg, AUC_merge,
    the per-fold AUC and the DeLong variance of AUC_merge): a report asks for AUC, Brier,
    the ROC curves and the AUC interval of one frame.

    >>> import pandas as pd
    >>> from cvframe import scores
    >>> df = pd.DataFrame({"fold": [0, 0, 1, 1], "y_true": [0, 1, 0, 1],
    ...                    "score": [0.2, 0.7, 0.4, 0.9]})
    >>> with scores.one_parse():  # AUC and Brier of one parse
    ...     auc, brier = scores.auc(df, "merge").item(), scores.brier(df, "merge").item()
    >>> auc, round(brier, 3)
    (1.0, 0.075)
    """
    token = _PARSED.set(_Shared())
    try:
        yield
    finally:
        _PARSED.reset(token)


def read(df: pd.DataFrame, *frame: Any, hard_ok: bool = False) -> Frame:
    """The one parse of a predictions frame by a score metric: :func:`parse` of ``frame``
    (``labels, pos_label, y_true, fold, repeat, score``); ``hard_ok``: no warning for hard
    0/1 scores, where they are meaningful. Inside :func:`one_parse` a frame read before is
    not parsed again (the cache holds the frame, so its ``id`` cannot be reused)."""
    shared = _PARSED.get()
    memo = None if shared is None else shared.parsed
    key = (id(df), repr(frame))
    if memo is not None and key in memo:
        seen, fr, quiet = memo[key]
        if seen is df and (hard_ok or not quiet):
            return fr
    with warnings.catch_warnings():
        if hard_ok:
            warnings.filterwarnings("ignore", message=_HARD, category=UserWarning)
        fr = parse(df, *frame)
    if memo is not None:
        memo[key] = (df, fr, hard_ok)
    return fr


# --- The ranking family: one sort per class -----------------------------------------------


def ranked(
    per_group: Callable[[Ranked], tuple[np.ndarray, ...] | dict[str, np.ndarray]],
    both: Callable[..., Any] | None = None,
) -> Values:
    """The values of a ranking metric: ``per_group(ranked)`` gives (value, support) per group,
    or a dict of variables (``"value"``, ``"support"``, ...).

    When both the per-fold and the merged values are wanted, one sort by (repeat, score) has
    the fold in the lowest key bits (:meth:`~._rank.Ranked.by_low`); ``both`` is a fused
    pass giving both at once (None where it does not apply). Inside :func:`one_parse` each
    class of a parse is sorted once for every ranking metric and method (the sort by repeat
    is kept for the merged values asked later) and a metric's values are computed once.
    """

    def put(out: Groups, vs: tuple[np.ndarray, ...] | dict[str, np.ndarray]) -> None:
        out.append(vs if isinstance(vs, dict) else {"value": vs[0], "support": vs[1]})

    def values(fr: Frame, df: Any, per_fold: bool, merged: bool) -> tuple[Groups, Groups]:
        shared = _PARSED.get()
        wanted = [m for m, on in (("fold", per_fold), ("merge", merged)) if on]
        if shared is not None:
            done = [shared.get(shared.values, fr, per_group, m) for m in wanted]
            if all(d is not None for d in done):
                got = dict(zip(wanted, done, strict=True))
                return got.get("fold", []), got.get("merge", [])
        fold_res: Groups = []
        merge_res: Groups = []
        counts = buffer = None
        if per_fold and merged:
            g, n_groups = fr.groups(True)
            counts = np.bincount(g, minlength=n_groups) if g is not None else np.array([fr.n])
            if fr.present_ is None:
                fr.present_ = counts > 0
        for c, (s, (lo, hi), y) in enumerate(zip(fr.scores, fr.ranges, fr.ys, strict=True)):
            kept = None if shared is None else shared.get(shared.ranked, fr, c, "merge")
            if counts is None or kept is not None:  # one method, or the merged sort is kept
                if merged:
                    if kept is None:
                        kept = Ranked(s, lo, hi, y, *fr.groups(False))
                        if shared is not None:
                            shared.put(shared.ranked, fr, c, "merge", value=kept)
                    put(merge_res, per_group(kept))
                    kept.release()
                if per_fold:
                    r = Ranked(s, lo, hi, y, *fr.groups(True))
                    if fr.present_ is None:
                        fr.present_ = r.size > 0
                    put(fold_res, per_group(r))
                continue
            fused = None
            if both is not None and shared is None:  # a block keeps the sort instead
                if buffer is None:  # one key buffer for every class
                    buffer = np.empty(fr.n, dtype=np.uint64)
                args = (s, lo, hi, y, fr.rep_codes, fr.n_reps, fr.fold_codes, fr.n_folds)
                fused = both(*args, counts, buffer)
            if fused is not None:
                put(merge_res, fused[0])
                put(fold_res, fused[1])
                continue
            r = Ranked(s, lo, hi, y, fr.rep_codes, fr.n_reps, fr.fold_codes, fr.n_folds, counts)
            put(merge_res, per_group(r))
            put(fold_res, per_group(r.by_low()))
            if shared is not None:  # kept for the merged metrics asked later
                r.release()
                shared.put(shared.ranked, fr, c, "merge", value=r)
        if shared is not None:
            for m, res in (("fold", fold_res), ("merge", merge_res)):
                if m in wanted:
                    shared.put(shared.values, fr, per_group, m, value=res)
        return fold_res, merge_res

    return values


# --- One cube, one mean, one warning ------------------------------------------------------


def cube(fr: Frame, per_fold: bool, per_class: list[np.ndarray]) -> xr.DataArray:
    """Per-class group arrays as a DataArray over (repeat?, fold?, class).

    A (repeat, fold) group without rows (a fold id only another repeat has) is no fold: it
    is NaN, and a fold id no repeat has is dropped.
    """
    arr = np.stack(per_class, axis=-1).astype(np.float64)
    dims: list[str] = []
    coords: dict[str, Any] = {}
    if fr.rep_coord is not None:
        dims.append(REPEAT)
        coords[REPEAT] = fr.rep_coord
    if per_fold:
        dims.append(FOLD)
        coords[FOLD] = fr.fold_coord[fr.fold_keep]
        arr = arr.reshape(fr.n_reps, fr.n_folds, -1)
        arr = np.where(fr.present.reshape(fr.n_reps, fr.n_folds)[..., None], arr, np.nan)
        arr = arr[:, fr.fold_keep]
    dims.append(CLASS)
    coords[CLASS] = _labels.coord(fr.classes)
    shape = [len(coords[d]) for d in dims]
    return xr.DataArray(arr.reshape(shape), dims=dims, coords=coords)


def mean(values: xr.DataArray, keep: xr.DataArray, dim: str) -> xr.DataArray:
    """Mean of ``values`` along ``dim`` over the ``keep`` cells (NaN where none is kept):
    :func:`cvframe.reduce.fold_mean`, the package's one fold mean, with ``keep`` as folds."""
    keep = keep.broadcast_like(values) if set(keep.dims) != set(values.dims) else keep
    return fold_mean(values, Counts(keep, keep, keep, keep, is_fold=keep), (dim,), np.nan)[0]


def warn(
    what: str, parts: Sequence[tuple[int, int, str, str, str]], instead: str = "get NaN instead"
) -> None:
    """The call's one UndefinedMetricWarning over every kind of result it computed.

    ``what`` names the metric and why it can be undefined; ``parts`` are (undefined, total,
    unit, where, action) per kind (unit: ``"cells"``, ``"fold cells"``, ``"curves"``).
    """
    bad = [p for p in parts if p[0]]
    if not bad:
        return
    msgs = [f"{n} of {t} {unit} ({where}); {action}" for n, t, unit, where, action in bad]
    warnings.warn(
        f"{what} is undefined in {'; and in '.join(msgs)}. Pass undefined='nan' to {instead} "
        "and silence this warning.",
        UndefinedMetricWarning,
        stacklevel=user_stacklevel(),
    )


# --- The run ------------------------------------------------------------------------------


def _reduce(
    fr: Frame,
    value: xr.DataArray,
    support: xr.DataArray,
    multi: xr.DataArray | None,
    method: str,
    skip: bool,
    average: str | None,
) -> tuple[xr.DataArray, list[str]]:
    """Fold mean (``"avg"``), then the class average, of one variable."""
    reduced: list[str] = []
    if average == "multiclass" and not fr.binary:
        assert multi is not None
        value = multi
    if method == "avg":
        present = _present(fr, value)
        keep = present & value.notnull() if skip else present
        value = mean(value, keep, FOLD)
        support = support.sum(FOLD, skipna=True)
        reduced.append(FOLD)
    if average == "multiclass":
        value = value.squeeze(CLASS, drop=True) if fr.binary else value
        reduced.append(CLASS)
    elif average in ("macro", "weighted"):
        keep = value.notnull() if skip else xr.ones_like(value, dtype=bool)
        if average == "macro":
            value = mean(value, keep, CLASS)
        else:
            w = support.where(value.notnull(), 0.0) if skip else support
            den = mean(w, keep, CLASS)
            value = mean(value * w, keep, CLASS) / den.where(den > 0)
        reduced.append(CLASS)
    return value, reduced


def run(
    df: Any, metric: Metric, methods: Sequence[str], undefined: str, average: Any, *frame: Any
) -> list[dict[str, xr.DataArray]]:
    """The one body of every score metric: check, parse (``frame`` as :func:`read`),
    evaluate, cube, reduce, warn once. Returns, per method, every variable of the metric."""
    check(methods, undefined, average, metric.methods, metric.averages)
    fr = read(df, *frame, hard_ok=metric.hard_ok)
    if average == "multiclass" and fr.multilabel:  # needs one true class per sample
        raise ValueError(
            f"average='multiclass' scores one probability vector over exclusive classes; "
            f"the labels {list(fr.classes)[:5]} of this multilabel frame are not exclusive. "
            f"Use average='macro' (the mean of the per-label {metric.name}), 'weighted' or "
            f"None (one value per label)."
        )
    fold_res, merge_res = metric.values(
        fr, df, any(m != "merge" for m in methods), "merge" in methods
    )
    skip = undefined == "skip"
    out, parts = [], []
    for m in methods:
        res = merge_res if m == "merge" else fold_res
        assert res is not None
        per_fold = m != "merge"
        cubes = {v: cube(fr, per_fold, [r[v] for r in res]) for v in res[0]}
        support = cubes.pop("support")
        aux = {v: cubes.pop(v) for v in list(cubes) if v.startswith("_")}
        bad = next(iter(cubes.values())).isnull()
        if per_fold:
            present = _present(fr, bad)
            bad, total = bad & present, int(present.sum()) * len(fr.classes)
        else:
            total = bad.size
        n_bad = int(bad.sum()) if metric.why else 0
        if n_bad:
            unit = ("merged " if m == "merge" else "fold ") * (len(methods) > 1) + "cells"
            action = "skipped in the mean over folds" if m == "avg" else "left as NaN"
            parts.append((n_bad, total, unit, where_text(bad), action))
        multi = metric.multiclass(fr, {**cubes, **aux}) if metric.multiclass else {}
        result = {}
        for name, value in cubes.items():
            red, reduced = _reduce(fr, value, support, multi.get(name), m, skip, average)
            red.attrs = {
                "metric": metric.name,
                "method": m,
                "undefined": undefined,
                "average": "none" if average is None else average,
                "reduced_dims": ",".join(reduced),
                "n_undefined": n_bad,
                "task": fr.task,
                "score_columns": ",".join(fr.score_cols),
                **metric.extra,
            }
            red.name = metric.name if name == "value" else name
            result[red.name] = red
        out.append(result)
    if skip:
        warn(f"{metric.label or metric.name} ({metric.why})", parts)
    return out


def _present(fr: Frame, like: xr.DataArray) -> xr.DataArray:
    """Which cells of a per-fold cube (without class) are folds."""
    pres = fr.present.reshape(fr.n_reps, fr.n_folds)[:, fr.fold_keep]
    dims = [d for d in like.dims if d != CLASS]
    return xr.DataArray(pres.reshape([like.sizes[d] for d in dims]), dims=dims)
