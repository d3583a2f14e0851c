"""The one driver of every score metric: read, evaluate, cube, reduce, warn.

A score metric is a :class:`Metric` whose ``values`` turn the parsed frame into one array per
group for every class and variable; :func:`run` checks the options, reads the frame once
(:func:`._parsed.read`: a part of a frame parsed before, or the frame parsed now), builds one
cube per variable, reduces it with :func:`cvframe.reduce.fold_mean` (the one fold mean) and
emits the call's one :class:`~cvframe.UndefinedMetricWarning`. The ranking family and the
curves read :func:`sort`: one sort per class, also for the per-fold and merged values at
once, kept on a frame parsed for several metrics.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import xarray as xr

from .._core import checks as _checks
from .._core import labels as _labels
from .._core.labels.frame import Frame, FrameArgs
from ..errors import UndefinedMetricWarning, user_stacklevel
from ..reduce import fold_mean
from ..schema import CLASS, FOLD, REPEAT, Counts, where_text
from ._counted import CountedFrame, Runs
from ._parsed import read
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
    "dataset",
    "mean",
    "ranked",
    "run",
    "sort",
    "warn",
]

Method = Literal["avg", "merge", "fold"]
Undefined = Literal["skip", "nan"]
Average = Literal["macro", "weighted", None]

METHODS = ("avg", "merge", "fold")
UNDEFINED = ("skip", "nan")
AVERAGES = (None, "macro", "weighted")

#: Per class, one array per group for every variable (``"support"`` weighs class averages).
Groups = list[dict[str, np.ndarray]]
#: ``values(frame, per_fold, merged)``: the per-fold and the merged groups (None when not
#: asked for).
Values = Callable[[Frame, bool, bool], tuple[Groups | None, Groups | None]]


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


def sort(fr: Frame, c: int, per_fold: bool, both: bool = False) -> Ranked:
    """Class ``c``'s scores sorted per (repeat, fold) group (``per_fold``) or per repeat.

    A frame parsed for several metrics (``fr.keep``), or a call that wants ``both``, sorts
    the class once, by (repeat, score) with the fold in the lowest key bits: that sort is
    the merged one, its :meth:`~._rank.Ranked.by_low` the per-fold one, and both stay on the
    frame (``fr.sorts``) for every later metric and curve. Else the groups asked for. A
    frame read from score counts gives its runs of tied scores (:class:`._counted.Runs`,
    the same methods on the same integers), kept alike.
    """
    if isinstance(fr, CountedFrame):
        runs = fr.kept.get((c, per_fold))
        if runs is None:
            runs = fr.runs(c, per_fold)
            if fr.keep:
                fr.kept[(c, per_fold)] = runs
        return runs  # type: ignore[return-value]  # the methods of Ranked, on runs
    kept = fr.sorts.get(c)
    if kept is None:
        s, (lo, hi), y = fr.scores[c], fr.ranges[c], fr.ys[c]
        if not (fr.keep or both):
            return Ranked(s, lo, hi, y, *fr.groups(per_fold))
        r = Ranked(s, lo, hi, y, fr.rep_codes, fr.n_reps, fr.fold_codes, fr.n_folds, fr.sizes())
        kept = fr.sorts[c] = (r.by_low(), r)
    return kept[0] if per_fold else kept[1]


def ranked(
    per_group: Callable[[Ranked], tuple[np.ndarray, ...] | dict[str, np.ndarray]],
    both: Callable[..., Any] | None = None,
) -> Values:
    """The values of a ranking metric: ``per_group(ranked)`` gives (value, support) per group,
    or a dict of variables (``"value"``, ``"support"``, ...), of the :func:`sort` of each
    class.

    When both the per-fold and the merged values of a frame read for this call alone are
    wanted, one sort by (repeat, score) has the fold in the lowest key bits
    (:meth:`~._rank.Ranked.by_low`); ``both`` is a fused pass giving both at once (None where
    it does not apply).
    """

    def put(out: Groups, vs: tuple[np.ndarray, ...] | dict[str, np.ndarray]) -> None:
        out.append(vs if isinstance(vs, dict) else {"value": vs[0], "support": vs[1]})

    # runs of score counts answer a method of the row sort by their own method of that name
    on_runs = getattr(Runs, getattr(per_group, "__name__", ""), per_group)

    def values(fr: Frame, per_fold: bool, merged: bool) -> tuple[Groups, Groups]:
        fold_res: Groups = []
        merge_res: Groups = []
        counted = isinstance(fr, CountedFrame)
        fuse = per_fold and merged and not fr.keep and both is not None and not counted
        counts, buffer = (fr.sizes(), np.empty(fr.n, np.uint64)) if fuse else (None, None)
        for c, (s, (lo, hi), y) in enumerate(zip(fr.scores, fr.ranges, fr.ys, strict=True)):
            if fuse and both is not None:
                args = (s, lo, hi, y, fr.rep_codes, fr.n_reps, fr.fold_codes, fr.n_folds)
                fused = both(*args, counts, buffer)  # one key buffer for every class
                if fused is not None:
                    put(merge_res, fused[0])
                    put(fold_res, fused[1])
                    continue
            for res, pf, wanted in ((fold_res, True, per_fold), (merge_res, False, merged)):
                if wanted:
                    r = sort(fr, c, pf, per_fold and merged)
                    put(res, on_runs(r) if counted else per_group(r))
                    r.release()  # a kept sort drops its temporaries
            if not fr.keep:  # a sort for this call only
                fr.sorts.pop(c, None)
        return fold_res, merge_res

    return values


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
    df: Any, metric: Metric, methods: Sequence[str], undefined: str, average: Any, args: FrameArgs
) -> list[dict[str, xr.DataArray]]:
    """The one body of every score metric: check, read (:func:`._parsed.read` with
    ``args``), evaluate, cube, reduce, warn once. Returns, per method, every variable of the
    metric."""
    check(methods, undefined, average, metric.methods, metric.averages)
    fr = read(df, args, metric.hard_ok)
    if average == "multiclass" and fr.multilabel:  # needs one true class per sample
        raise ValueError(
            f"average='multiclass' scores one probability vector over exclusive classes; "
            f"the labels {list(fr.classes)[:5]} of this multilabel frame are not exclusive. "
            f"Use average='macro' (the mean of the per-label {metric.name}), 'weighted' or "
            f"None (one value per label)."
        )
    fold_res, merge_res = metric.values(fr, any(m != "merge" for m in methods), "merge" in methods)
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


def dataset(out: dict[str, xr.DataArray], attrs: dict[str, Any]) -> xr.Dataset:
    """The variables of one method of :func:`run` as a Dataset: ``attrs`` on it, none on them."""
    ds = xr.Dataset(out, attrs=attrs)
    for v in ds.data_vars.values():
        v.attrs = {}
    return ds


def _present(fr: Frame, like: xr.DataArray) -> xr.DataArray:
    """Which cells of a per-fold cube (without class) are folds."""
    pres = fr.present.reshape(fr.n_reps, fr.n_folds)[:, fr.fold_keep]
    dims = [d for d in like.dims if d != CLASS]
    return xr.DataArray(pres.reshape([like.sizes[d] for d in dims]), dims=dims)
