"""The findings about the design of a cross-validation study (see
:func:`cvframe.diagnostics.anomalies`): models that do not beat the dummy baselines, a large
train-test gap, a class missing from a training set, test rows that duplicate training rows."""

from __future__ import annotations

import json
import warnings
from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .. import metrics, reduce
from .._core.labels import frame as labels_frame
from .._core.labels import plain
from ..errors import UndefinedMetricWarning
from ..schema import CLASS, COUNTS, DUPLICATE, FOLD, REPEAT, SUBSET, TRUE, read_counts
from ._folds import Findings, num

__all__ = [
    "BASELINE_METRICS",
    "MODEL",
    "baseline_names",
    "class_missing_from_training",
    "missing_combination",
    "label_not_stratified",
    "not_better_than_baseline",
    "split_subsets",
    "train_duplicate",
    "train_test_gap",
]

MODEL = "model"
PARAM = "param"
#: The metrics a model must beat the baselines on, as :func:`cvframe.compare.compare` names
#: them, with the names the findings show.
BASELINE_METRICS = {m.name: m.display for m in metrics.REGISTRY.values() if m.baseline}


def split_subsets(ds: xr.Dataset) -> tuple[xr.Dataset, xr.Dataset | None]:
    """The test cells of ``ds`` and its training cells (None without a ``subset`` dim)."""
    if SUBSET not in ds.dims:
        return ds, None
    names = [str(s) for s in ds[SUBSET].values]
    test = ds.sel({SUBSET: "test"}, drop=True) if "test" in names else ds.isel({SUBSET: 0})
    train = ds.sel({SUBSET: "train"}, drop=True) if "train" in names else None
    return test.drop_vars(SUBSET, errors="ignore"), train


def baseline_names(ds: xr.Dataset, frame: Any = None) -> list[Hashable]:
    """The baseline models: ``attrs["baselines"]`` of the cube (or frame), else the models
    whose name starts with ``"dummy_"``; only those in the cube's ``model`` dim."""
    if MODEL not in ds.dims:
        return []
    models = [plain(m) for m in ds[MODEL].values]
    listed = ds.attrs.get("baselines")
    if listed is None and frame is not None:
        listed = getattr(frame, "attrs", {}).get("baselines")
    if isinstance(listed, str):  # a netCDF-safe attr: JSON or one name
        try:
            listed = json.loads(listed)
        except ValueError:
            listed = [listed]
    if listed is None:
        return [m for m in models if isinstance(m, str) and m.startswith("dummy_")]
    names = [listed] if isinstance(listed, (str, int)) else list(np.ravel(listed))
    return [m for m in models if m in {plain(n) for n in names}]


def not_better_than_baseline(
    found: Findings, test: xr.Dataset, baselines: list[Hashable], level: float
) -> None:
    """Add a finding for every model whose paired difference to a baseline does not exclude 0
    (see :func:`cvframe.diagnostics.anomalies`); with a ``param`` dim every (model, candidate)
    that was run is one model of the comparison."""
    from ..comparison import compare

    flat, cells = _flat(test)
    models = [plain(m) for m in flat[MODEL].values]
    bases = [m for m in models if cells.get(m, (m,))[0] in baselines]
    others = [m for m in models if m not in bases]
    if not bases or not others:
        return
    task = test.attrs.get("task")
    rows: dict[str, xr.Dataset] = {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            for metric in BASELINE_METRICS:
                per_base = [
                    _contrasts(compare, flat, metric, b, level, task, others) for b in bases
                ]
                rows[metric] = xr.concat(per_base, dim=pd.Index(bases, name="baseline"))
    except ValueError as err:  # a design the paired test cannot use (one fold, ...)
        reason = str(err).split(";")[0]
        mask = xr.DataArray(np.array([True]), dims=["_"])
        found.add(mask, "baseline_not_checked", lambda pos: f"not checked: {reason}")
        return
    flagged = xr.concat([_fails(res) for res in rows.values()], dim="metric")
    flagged = flagged.any(["metric", "baseline"])
    n_folds = int(read_counts(test).is_fold.any(CLASS).sum(FOLD).max())
    text = np.full(flagged.shape, "", dtype=object)
    for pos in zip(*np.nonzero(flagged.values), strict=True):
        at = dict(zip(flagged.dims, (int(i) for i in pos), strict=True))
        cell = {m: r.isel(at) for m, r in rows.items()}
        text[pos] = _baseline_detail(cell, level, n_folds, cells)
    detail = flagged.copy(data=text)
    if cells:  # back to the cube's (model, param) cells
        index = pd.MultiIndex.from_tuples([cells[m] for m in others], names=[MODEL, PARAM])
        coords = xr.Coordinates.from_pandas_multiindex(index, "_cell")
        flagged, detail = (
            x.rename({MODEL: "_cell"}).drop_vars("_cell").assign_coords(coords).unstack("_cell")
            for x in (flagged, detail)
        )
        flagged = flagged.fillna(False).astype(bool)
    order = [d for d in found.extra if d in flagged.dims]
    flagged, detail = flagged.transpose(*order), detail.transpose(*order)
    found.add(flagged, "not_better_than_baseline", lambda pos: str(detail.values[pos]))


def _flat(test: xr.Dataset) -> tuple[xr.Dataset, dict[Hashable, tuple[Any, Any]]]:
    """The test cube with one ``model`` entry per (model, candidate) that was run, and the
    (model, param) of each entry (empty without a ``param`` dim)."""
    if PARAM not in test.dims:
        return test, {}
    stacked = test[list(COUNTS)].stack(_cell=[MODEL, PARAM])
    real = read_counts(stacked).is_fold
    keep = np.flatnonzero(real.any([d for d in real.dims if d != "_cell"]).values)
    stacked = stacked.isel(_cell=keep)
    pairs = [(plain(m), plain(p)) for m, p in stacked.indexes["_cell"]]
    labels = [f"{m} [{p}]" for m, p in pairs]
    flat = stacked.drop_vars(["_cell", MODEL, PARAM]).assign_coords(_cell=labels)
    flat.attrs = dict(test.attrs)
    return flat.rename({"_cell": MODEL}), dict(zip(labels, pairs, strict=True))


def _baseline_detail(
    cell: dict[str, xr.Dataset], level: float, n_folds: int, cells: dict[Hashable, Any]
) -> str:
    """The detail of one flagged model: the failing metric(s) against the worst baseline."""
    parts = []
    for metric, res in cell.items():
        if not bool(_fails(res).any()):
            continue
        worst = res.isel(baseline=int(np.argmin(np.nan_to_num(res["low"].values, nan=-1))))
        base = plain(worst["baseline"].item())
        parts.append(
            f"{BASELINE_METRICS[metric]} {float(worst['mean']):+.3f} vs "
            f"{cells.get(base, (base,))[0]} ({level:.0%} interval "
            f"{float(worst['low']):.3f} to {float(worst['high']):.3f})"
        )
    return (
        "; ".join(parts) + f": paired corrected t over {n_folds} folds per repeat, "
        "the interval does not exclude 0"
    )


def _fails(res: xr.Dataset) -> xr.DataArray:
    """Where the interval does not exclude 0 (no interval: where the mean is not above 0)."""
    return (res["low"] <= 0) | (res["low"].isnull() & (res["mean"] <= 0))


def _contrasts(
    compare: Any,
    test: xr.Dataset,
    metric: str,
    baseline: Hashable,
    level: float,
    task: Any,
    others: list[Hashable],
) -> xr.Dataset:
    """``compare`` of every model against ``baseline``: mean, low, high over ``model``."""
    kw = {"test": "corrected_t", "level": level, "zero_division": 0.0}
    res = compare(
        test, metric, baseline=baseline, average="macro" if task != "binary" else None, **kw
    )
    out = res[["mean", "low", "high"]]
    out = out.drop_vars([MODEL, "baseline"], errors="ignore")
    out = out.assign_coords(contrast=res[MODEL].values).rename({"contrast": MODEL})
    if CLASS in out.dims and out.sizes[CLASS] == 1:
        out = out.isel({CLASS: 0}, drop=True)
    return out.sel({MODEL: others})


def train_test_gap(
    found: Findings, test: xr.Dataset, train: xr.Dataset, gap: float, beta: float
) -> None:
    """Add a finding for every model and class whose pooled F on its training sets exceeds
    its pooled F on the test folds by more than ``gap`` (mean over repeats)."""
    kw: dict[str, Any] = {"zero_division": 0.0}

    def pooled(ds: xr.Dataset) -> tuple[xr.DataArray, xr.DataArray]:
        f = reduce.aggregate(ds, "f", "tp_fp", beta=beta, **kw)
        acc = reduce.accuracy(ds, how="pooled", **kw)
        if REPEAT in f.dims:
            f, acc = f.mean(REPEAT), acc.mean(REPEAT)
        return f, acc

    (f_te, acc_te), (f_tr, acc_tr) = pooled(test), pooled(train)
    order = [d for d in found.extra if d in f_te.dims] + [CLASS]
    # accuracy has no class dim for a multiclass cube: the same value beside every class
    te, acc_te_v, tr, acc_tr_v = (
        np.asarray(x.broadcast_like(f_te).transpose(*order).values)
        for x in (f_te, acc_te, f_tr, acc_tr)
    )
    mask = xr.DataArray(tr - te > gap, dims=order, coords={d: test[d] for d in order})

    def detail(pos: tuple[int, ...]) -> str:
        return (
            f"F_tp,fp {tr[pos]:.3f} on the training sets vs {te[pos]:.3f} on the test "
            f"folds (gap {tr[pos] - te[pos]:.3f} > {gap:g}); pooled accuracy "
            f"{acc_tr_v[pos]:.3f} vs {acc_te_v[pos]:.3f}"
        )

    found.add(mask, "train_test_gap", detail)


def class_missing_from_training(
    found: Findings, test: xr.Dataset, train: xr.Dataset | None, test_sets: Any
) -> None:
    """Add a finding for every fold whose training set held no sample of a class (see
    :func:`cvframe.diagnostics.anomalies`: read, or the repeat total minus the fold's own).
    Every class at once: a few array operations whatever the number of classes."""
    if train is None and test_sets not in (None, "partition"):
        return
    support = _class_supports(test)
    real = read_counts(test).is_fold.any(CLASS)
    total = support.sum(FOLD)
    if train is None:
        in_train = total - support
        how = "all {n} of its test samples in the repeat are in this fold's test set"
    else:
        in_train = _class_supports(train)
        how = "0 of the training rows (subset='train') belong to it; {n} are tested"
    mask = (in_train == 0) & (total > 0) & real
    if train is None:  # one fold is a holdout whose training set is not known
        mask = mask & (real.sum(FOLD) > 1)
    order = [d for d in found.extra if d in mask.dims] + [FOLD, CLASS]
    mask = mask.transpose(*order)
    tot = total.transpose(*[d for d in order if d in total.dims])
    found.add(mask, "class_missing_from_training", _missing_detail(mask.dims, tot, how))


def missing_combination(found: Findings, test: xr.Dataset) -> None:
    """Add a finding for every cell of the study's dims (``model`` x ``dataset`` ..., but not
    ``repeat`` or the candidates of a search, ``param``) where no fold holds a count, while
    other cells do: a combination that was never run, or whose results were lost (the padding
    ``xr.concat`` or a stacked frame leaves there is read as no fold, so nothing else says)."""
    combo = [d for d in found.extra if d not in (REPEAT, PARAM, SUBSET) and d in test.dims]
    if not combo:
        return
    real = read_counts(test).is_fold
    ran = real.any([d for d in real.dims if d not in combo]).transpose(*combo)
    if not bool(ran.any()):
        return
    missing = ~ran

    def detail(pos: tuple[int, ...]) -> str:
        at = {d: plain(ran[d].values[i]) for d, i in zip(combo, pos, strict=True)}
        where = ", ".join(f"{d}={v!r}" for d, v in at.items())
        parts = []
        for d in combo:  # how many of the other cells the same values have
            same = ran.isel({o: pos[combo.index(o)] for o in combo if o != d})
            parts.append(
                f"{', '.join(f'{o}={at[o]!r}' for o in combo if o != d) or 'it'} has results "
                f"for {int(same.sum())} of {same.size} {d} values"
            )
        return f"no fold of {where} holds a count ({'; '.join(parts)})"

    found.add(missing, "missing_combination", detail)


#: What a cube's ``attrs["stratified"]`` says when its splitter stratified (for some classes).
STRATIFIED = ("yes", "partial")


def label_not_stratified(found: Findings, test: xr.Dataset) -> None:
    """Add a finding for every class of a stratified cube (``attrs["stratified"]`` "yes" or
    "partial") that some real test fold holds no positive of, while others hold some; its
    detail says how many folds, how many positives there are and why."""
    said = str(test.attrs.get("stratified", "")).lower()
    if said not in STRATIFIED:
        return
    real = read_counts(test).is_fold.any(CLASS)
    support = _class_supports(test)  # every class at once
    total = support.where(real, 0).sum(FOLD)
    empty = ((support == 0) & real).sum(FOLD)
    mask = (empty > 0) & (total > 0)
    mask = mask.transpose(*[d for d in found.extra if d in mask.dims], CLASS)
    k = real.sum(FOLD)
    found.add(mask, "label_not_stratified", _strat_detail(mask.dims, total, empty, k, said))


def _strat_detail(
    dims: tuple[Hashable, ...], total: xr.DataArray, empty: xr.DataArray, k: Any, said: str
) -> Any:
    def detail(pos: tuple[int, ...]) -> str:
        at = dict(zip(dims, pos, strict=True))
        n, e, folds = (
            int(x.isel({d: p for d, p in at.items() if d in x.dims}).values.ravel()[0])
            for x in (total, empty, k)
        )
        why = (
            f"{n} positives cannot fill {folds} folds"
            if n < folds
            else "the splitter could not spread them (iterative stratification balances every "
            "label at once)"
        )
        return (
            f"{e} of {folds} test folds hold none of the class's {n} positives: {why} "
            f"(the cube says stratified={said!r})"
        )

    return detail


def _missing_detail(dims: tuple[Hashable, ...], tot: xr.DataArray, how: str) -> Any:
    def detail(pos: tuple[int, ...]) -> str:
        at = {d: p for d, p in zip(dims, pos, strict=True) if d in tot.dims}
        n = num(tot.isel(at).values.ravel()[0])
        return (
            f"the training set had no sample of the class: {how.format(n=n)} (an unstratified "
            "or grouped splitter can do this)"
        )

    return detail


def _class_supports(ds: xr.Dataset) -> xr.DataArray:
    """The support (samples) of every class per fold, over ``class``: a binary cube's
    negative class first."""
    read = read_counts(ds)
    sup = (read["tp"] + read["fn"]).fillna(0)
    sup = sup.assign_coords({CLASS: [plain(c) for c in ds[CLASS].values]})
    if ds.attrs.get("task") == "binary" and ds.sizes[CLASS] == 1:
        pos = plain(ds[CLASS].values[0])
        labels = [plain(t) for t in ds[TRUE].values] if TRUE in ds.coords else []
        neg = next((t for t in labels if t != pos), f"not {pos}")
        neg_sup = (read["fp"] + read["tn"]).fillna(0).assign_coords({CLASS: [neg]})
        sup = xr.concat([neg_sup, sup], dim=CLASS, coords="minimal", join="override")
    return sup


def train_duplicate(found: Findings, ds: xr.Dataset, frame: Any) -> None:
    """Add a finding for every fold with test rows marked ``train_duplicate``."""
    cols = getattr(frame, "columns", ())
    if DUPLICATE not in cols or FOLD not in cols:
        return
    rows = labels_frame.test_rows(frame)
    if labels_frame.is_dask_frame(rows):
        rows = rows[[c for c in rows.columns if c in (*found.extra, REPEAT, FOLD, DUPLICATE)]]
        rows = rows.compute()
    keys = [d for d in found.extra if d in rows.columns] + [FOLD]
    dup = rows[DUPLICATE].fillna(False).astype(bool)
    grouped = dup.groupby([rows[k] for k in keys], observed=True).agg(["sum", "size"])
    counts = grouped.to_xarray().fillna(0)
    for d in keys:  # the cube's order, so findings sort as the cube's other findings
        if d in ds.coords and set(counts[d].values.tolist()) <= set(ds[d].values.tolist()):
            counts = counts.reindex({d: ds[d].values}, fill_value=0)
    mask = counts["sum"] > 0

    def detail(pos: tuple[int, ...]) -> str:
        k, n = int(counts["sum"].values[pos]), int(counts["size"].values[pos])
        return f"{k} of {n} test rows ({k / max(n, 1):.1%}) equal a row of the fold's training set"

    found.add(mask, "train_duplicate", detail)


def check_level(level: Any, name: str = "level", example: float = 0.95) -> float:
    """``level`` (or the argument ``name``) as a float in (0, 1)."""
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < level < 1:
        raise ValueError(f"{name}={level!r} must be a number in (0, 1), e.g. {name}={example}.")
    return float(level)
