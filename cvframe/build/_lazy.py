"""Counts cubes from dask inputs that stay lazy: one ``bincount`` per partition, then a sum.

The cube's ``confusion`` is a dask array whose graph holds one task per partition (codes of
that partition's labels and groups, and one :func:`numpy.bincount` over their combined index)
and a tree sum of those count vectors; ``tp``, ``fp``, ``fn`` and ``tn`` are derived from it.
Computing the cube reads every partition once, holding one partition (and one count vector)
per worker at a time.

To label the cube the classes and the groups (folds, repeats, ...) must be known before any
count is computed. They are taken from ``labels=`` (classes) and from pandas categoricals with
known categories; whatever is still unknown is found in ONE pass over the data, the distinct
values of every partition (``pandas.unique``) computed together in a single ``dask.compute``.

Inputs: dask arrays (1-D, or a column vector), dask Series, or the columns of a dask
DataFrame. Series are put side by side in one frame first (``dask.dataframe.concat``), so a
partition that several of them come from is computed once.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import _labels
from ..errors import CountsError, few
from . import _kernel

__all__ = [
    "Coder",
    "dask_inputs",
    "is_frame_like",
    "known_categories",
    "lazy_counts",
    "observed_values",
]


def is_frame_like(x: Any) -> bool:
    return _labels.is_dask(x) and hasattr(x, "divisions") and hasattr(x, "to_delayed")


def known_categories(x: Any) -> list[Hashable] | None:
    """The categories of a dask categorical Series whose categories are known, else None."""
    if not is_frame_like(x) or getattr(x, "ndim", 1) != 1:
        return None
    if not isinstance(getattr(x, "dtype", None), pd.CategoricalDtype):
        return None
    if not x.cat.known:
        return None
    return [_labels.plain(v) for v in x.cat.categories]


def dask_inputs(named: list[tuple[str, Any]]) -> tuple[list[Any], list[str]] | None:
    """Per-partition delayed inputs of the named 1-D dask/numpy inputs, or None.

    Returns ``(partitions, names)``: each partition is a delayed pandas DataFrame (Series
    inputs, columns ``names``) or a tuple of delayed numpy blocks (array inputs, in the order
    of ``names``). None when an input is 2-D (multilabel data; counted on another path).
    """
    import dask.array as da
    import dask.dataframe as dd

    names = [name for name, _ in named]
    values = []
    for name, v in named:
        if is_frame_like(v) and getattr(v, "ndim", 1) == 2:
            if len(v.columns) != 1:
                return None
            v = v[v.columns[0]]
        elif _labels.is_dask(v) and getattr(v, "ndim", 1) == 2:
            if v.shape[1] != 1:
                return None
            v = v[:, 0]
        elif not _labels.is_dask(v):
            arr = v.to_numpy() if isinstance(v, (pd.Series, pd.Index)) else np.asarray(v)
            if arr.ndim == 2 and arr.shape[1] == 1:
                arr = arr[:, 0]
            if arr.ndim != 1:
                return None
            v = arr
        elif getattr(v, "ndim", 1) != 1:
            raise ValueError(f"{name} has shape {v.shape}; pass 1-D labels, one per sample.")
        values.append(v)
    frames = [v for v in values if is_frame_like(v)]
    if frames:
        arrays = [i for i, v in enumerate(values) if not is_frame_like(v)]
        if arrays:  # numpy or dask arrays beside Series: give them the Series' partitions
            n_parts = frames[0].npartitions
            for i in arrays:
                v = values[i]
                if not _labels.is_dask(v):
                    return None  # numpy beside dask Series: the eager path lines them up
                s = dd.from_dask_array(v)
                if s.npartitions != n_parts:
                    raise CountsError(
                        f"{names[i]} has {s.npartitions} chunks but the dask Series have "
                        f"{n_parts} partitions; give every input the same partitions."
                    )
                values[i] = s
        cols = [f"_c{i}" for i in range(len(values))]
        parts_n = {v.npartitions for v in values}
        if len(parts_n) > 1:
            desc = ", ".join(f"{n} has {v.npartitions}" for n, v in zip(names, values, strict=True))
            raise CountsError(
                f"inputs have different numbers of partitions: {desc}; take them from one dask "
                "DataFrame (or repartition them alike)."
            )
        series = [
            v.rename(c) if getattr(v, "ndim", 1) == 1 else v
            for v, c in zip(values, cols, strict=True)
        ]
        frame = dd.concat(series, axis=1, ignore_unknown_divisions=True)
        return list(frame.to_delayed()), cols
    arrays_d = [v for v in values if _labels.is_dask(v)]
    chunks = arrays_d[0].chunks
    if any(np.isnan(v.shape[0]) for v in arrays_d):  # unknown chunk sizes: align block by block
        if len(values) != len(arrays_d) or len({v.numblocks for v in arrays_d}) > 1:
            return None  # the eager path computes the lengths and lines them up
        blocks = [list(v.to_delayed(optimize_graph=False).ravel()) for v in values]
        return [tuple(b) for b in zip(*blocks, strict=True)], names
    lengths = {n: int(v.shape[0]) for n, v in zip(names, values, strict=True)}
    if len(set(lengths.values())) > 1:
        desc = ", ".join(f"{k} has {n}" for k, n in lengths.items())
        raise CountsError(f"inputs differ in length: {desc}; give one entry per tested sample.")
    blocks = []
    for v in values:
        if not _labels.is_dask(v):
            v = da.from_array(v, chunks=chunks)
        elif v.chunks != chunks:
            v = v.rechunk(chunks)
        blocks.append(list(v.to_delayed(optimize_graph=False).ravel()))
    return [tuple(b) for b in zip(*blocks, strict=True)], names


def _columns(part: Any, names: list[str]) -> list[Any]:
    if isinstance(part, pd.DataFrame):
        return [part[c] for c in names]
    return list(part)


# --- the one pass that finds labels and groups ---------------------------------------------------


def _distinct(values: Any) -> tuple[np.ndarray, bool]:
    """Distinct values of one partition's column (categorical: its used categories)."""
    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.cat.codes.to_numpy()
        cats = values.cat.categories
        used = np.bincount(codes[codes >= 0], minlength=len(cats))[: len(cats)] > 0
        out = np.asarray(cats, dtype=object)[used]
        if (codes < 0).any():
            out = np.append(out, np.array([None], dtype=object))
        return out, True
    arr = values.array if isinstance(values, pd.Series) else np.asarray(values)
    uniq = pd.unique(arr)
    return np.asarray(uniq.astype(object) if not isinstance(uniq, np.ndarray) else uniq), False


def _part_distinct(part: Any, names: list[str], wanted: list[int]) -> list[tuple[np.ndarray, bool]]:
    cols = _columns(part, names)
    return [_distinct(cols[i]) for i in wanted]


def observed_values(parts: list[Any], names: list[str], wanted: list[int]) -> list[np.ndarray]:
    """The distinct values of the columns ``wanted`` over all partitions, in ONE compute."""
    import dask

    tasks = [dask.delayed(_part_distinct, pure=True)(p, names, wanted) for p in parts]
    per_part = dask.compute(*tasks)
    out = []
    for j in range(len(wanted)):
        pieces = [pp[j][0] for pp in per_part if len(pp[j][0])]
        if not pieces:
            out.append(np.empty(0))
            continue
        kinds = {p.dtype for p in pieces}
        both = (
            np.concatenate([p.astype(object) for p in pieces])
            if len(kinds) > 1
            else np.concatenate(pieces)
        )
        out.append(np.asarray(pd.unique(both)))
    return out


# --- codes inside a partition -------------------------------------------------------------------


class Coder:
    """Codes of values into a known list of labels; a value outside it raises CountsError."""

    def __init__(self, known: Sequence[Hashable], name: str, what: str) -> None:
        self.known = [_labels.plain(v) for v in known]
        self.name, self.what = name, what
        self.index = pd.Index(self.known, dtype=object)
        self.dtype = _labels.code_dtype(len(self.known))
        ints = [v for v in self.known if isinstance(v, int) and not isinstance(v, bool)]
        self.lo = min(ints) if ints and len(ints) == len(self.known) else None
        self.lut: np.ndarray | None = None
        if self.lo is not None and max(ints) - self.lo < 4 * len(ints) + 1024:
            self.lut = np.full(max(ints) - self.lo + 1, -1, dtype=np.int64)
            self.lut[np.asarray(ints, dtype=np.int64) - self.lo] = np.arange(len(ints))

    def _fail(self, values: Any, codes: np.ndarray) -> None:
        bad: Any = np.asarray(values, dtype=object)[codes < 0] if len(values) else []
        missing = np.asarray(pd.isna(pd.Index(bad, dtype=object)), dtype=bool)
        if missing.any():
            raise CountsError(
                f"{self.name} has missing labels ({int(missing.sum())} samples in a partition); "
                "every sample needs a label (drop or impute those samples first)."
            )
        shown = few(pd.unique(pd.Index(bad, dtype=object)))
        raise CountsError(
            f"{self.name} has {self.what} {shown} that are not among {few(self.known)}; add "
            "them (labels= for classes; a categorical's categories for groups): values "
            "outside the declared ones are never dropped."
        )

    def __call__(self, values: Any) -> np.ndarray:
        if isinstance(values, pd.Series) and isinstance(values.dtype, pd.CategoricalDtype):
            cat_codes = values.cat.codes.to_numpy()
            lut = (
                self(np.asarray(values.cat.categories, dtype=object))
                if len(values.cat.categories)
                else np.empty(0, dtype=self.dtype)
            )
            if (cat_codes < 0).any():
                self._fail(np.array([None], dtype=object), np.array([-1]))
            return lut[cat_codes] if len(lut) else cat_codes.astype(self.dtype)
        if isinstance(values, pd.Series):
            np_dtype = getattr(values.dtype, "numpy_dtype", None)
            if isinstance(values.dtype, pd.api.extensions.ExtensionDtype) and (
                np_dtype is None or np.dtype(np_dtype).kind in "OUS" or values.isna().any()
            ):
                codes = self.index.get_indexer(values.array)
                if (codes < 0).any():
                    self._fail(values.to_numpy(dtype=object), codes)
                return codes.astype(self.dtype)
            values = values.to_numpy()
        arr = np.asarray(values)
        if self.lut is not None and self.lo is not None and arr.dtype.kind in "iu" and len(arr):
            base = self.lo
            lo, hi = int(arr.min()), int(arr.max())
            if base <= lo and hi - base < len(self.lut):
                codes = self.lut[np.subtract(arr, base, dtype=np.intp) if base else arr]
                if not (codes < 0).any():
                    return codes.astype(self.dtype)
        if arr.dtype.kind == "b":
            codes = self.index.get_indexer(np.array([False, True], dtype=object))
            lut = codes
            out = lut[arr.view(np.uint8)]
            if (out < 0).any():
                self._fail(arr, out)
            return out.astype(self.dtype)
        codes = self.index.get_indexer(arr)
        if (codes < 0).any():
            self._fail(arr, codes)
        return codes.astype(self.dtype)


def _part_counts(
    part: Any, names: list[str], coders: list[Coder], weighted: bool, total: int
) -> np.ndarray:
    """The counts of one partition over the combined index of its codes."""
    cols = _columns(part, names)
    n = len(cols[0])
    lengths = {nm: len(c) for nm, c in zip([c.name for c in coders], cols, strict=False)}
    if weighted:
        lengths["sample_weight"] = len(cols[-1])
    if len(set(lengths.values())) > 1:
        desc = ", ".join(f"{k} has {m}" for k, m in lengths.items())
        raise CountsError(
            f"inputs differ in length within a partition: {desc}; give one entry per tested sample."
        )
    codes = [coder(col) for coder, col in zip(coders, cols, strict=False)]
    w = None
    if weighted:
        w = _kernel.check_weights(np.asarray(cols[-1], dtype="float64"))
    if n == 0:
        return np.zeros(total, dtype=np.float64 if weighted else np.int64)
    sizes = [len(c.known) for c in coders]
    return _kernel.blocked_count(codes, sizes, 0, w, total, n)


def lazy_counts(parts: list[Any], names: list[str], coders: list[Coder], weighted: bool) -> Any:
    """The dask array of counts over the coders' labels: per-partition bincounts, summed."""
    import dask
    import dask.array as da

    total = int(np.prod([len(c.known) for c in coders], dtype=np.int64))
    dtype = np.float64 if weighted else np.int64
    blocks = [
        da.from_delayed(
            dask.delayed(_part_counts, pure=True)(p, names, coders, weighted, total),
            shape=(total,),
            dtype=dtype,
        )
        for p in parts
    ]
    return da.stack(blocks).sum(axis=0, split_every=8, dtype=dtype)
