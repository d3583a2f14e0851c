"""Counts cubes from dask inputs that stay lazy: one ``bincount`` per partition, then a sum.

The classes and groups label the cube, so they are known before any count is computed: from
``labels=`` and known categoricals, and what is still unknown from ONE pass (the distinct
values of every partition, computed together). Series are put side by side in one frame first,
so a partition several of them come from is computed once.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._core import labels as _labels
from .._core.labels.frame import is_dask_frame
from ..errors import CountsError, few
from . import _kernel


def known_categories(x: Any) -> list[Hashable] | None:
    """The categories of a dask categorical Series whose categories are known, else None."""
    if not is_dask_frame(x) or not isinstance(getattr(x, "dtype", None), pd.CategoricalDtype):
        return None  # (a dask DataFrame has dtypes, not a dtype)
    return [_labels.plain(v) for v in x.cat.categories] if x.cat.known else None


def dask_inputs(named: list[tuple[str, Any]]) -> tuple[list[Any], list[str]] | None:
    """``(partitions, names)`` of the named 1-D inputs: delayed pandas DataFrames (Series) or
    tuples of delayed numpy blocks (arrays); None for 2-D (multilabel) data, counted eagerly."""
    import dask.array as da
    import dask.dataframe as dd

    names = [name for name, _ in named]
    values = []
    for name, v in named:
        if _labels.is_dask(v) and getattr(v, "ndim", 1) == 2:  # a column vector, or 2-D labels
            if (len(v.columns) if is_dask_frame(v) else v.shape[1]) != 1:
                return None
            v = v[v.columns[0]] if is_dask_frame(v) else v[:, 0]
        elif not _labels.is_dask(v):
            v = v.to_numpy() if isinstance(v, (pd.Series, pd.Index)) else np.asarray(v)
            v = v[:, 0] if v.ndim == 2 and v.shape[1] == 1 else v
            if v.ndim != 1:
                return None
        elif getattr(v, "ndim", 1) != 1:
            raise ValueError(f"{name} has shape {v.shape}; pass 1-D labels, one per sample.")
        values.append(v)
    frames = [v for v in values if is_dask_frame(v)]
    if frames:
        arrays = [i for i, v in enumerate(values) if not is_dask_frame(v)]
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
        if len({v.npartitions for v in values}) > 1:
            desc = ", ".join(f"{n} has {v.npartitions}" for n, v in zip(names, values, strict=True))
            raise CountsError(
                f"inputs have different numbers of partitions: {desc}; take them from one dask "
                "DataFrame (or repartition them alike)."
            )
        series = [v.rename(c) for v, c in zip(values, cols, strict=True)]
        frame = dd.concat(series, axis=1, ignore_unknown_divisions=True)
        return list(frame.to_delayed()), cols
    arrays_d = [v for v in values if _labels.is_dask(v)]
    chunks = arrays_d[0].chunks
    if any(np.isnan(v.shape[0]) for v in arrays_d):  # unknown chunk sizes: align block by block
        if len(values) != len(arrays_d) or len({v.numblocks for v in arrays_d}) > 1:
            return None  # the eager path computes the lengths and lines them up
        blocks = [list(v.to_delayed(optimize_graph=False).ravel()) for v in values]
        return [tuple(b) for b in zip(*blocks, strict=True)], names
    _kernel.check_lengths({n: int(v.shape[0]) for n, v in zip(names, values, strict=True)})
    blocks = []
    for v in values:
        if not _labels.is_dask(v):
            v = da.from_array(v, chunks=chunks)
        elif v.chunks != chunks:
            v = v.rechunk(chunks)
        blocks.append(list(v.to_delayed(optimize_graph=False).ravel()))
    return [tuple(b) for b in zip(*blocks, strict=True)], names


def _columns(part: Any, names: list[str]) -> list[Any]:
    return [part[c] for c in names] if isinstance(part, pd.DataFrame) else list(part)


# --- the one pass that finds labels and groups ---------------------------------------------------


def _distinct(part: Any, names: list[str], wanted: list[int]) -> list[np.ndarray]:
    """Distinct values of one partition's columns ``wanted`` (categorical: used categories)."""
    out = []
    for values in (_columns(part, names)[i] for i in wanted):
        if isinstance(values, pd.Series) and isinstance(values.dtype, pd.CategoricalDtype):
            codes, cats = values.cat.codes.to_numpy(), values.cat.categories
            used = np.bincount(codes[codes >= 0], minlength=len(cats))[: len(cats)] > 0
            vals = np.asarray(cats, dtype=object)[used]
            out.append(
                np.append(vals, np.array([None], dtype=object)) if (codes < 0).any() else vals
            )
            continue
        uniq = pd.unique(values.array if isinstance(values, pd.Series) else np.asarray(values))
        out.append(np.asarray(uniq if isinstance(uniq, np.ndarray) else uniq.astype(object)))
    return out


def observed_values(parts: list[Any], names: list[str], wanted: list[int]) -> list[np.ndarray]:
    """The distinct values of the columns ``wanted`` over all partitions, in ONE compute."""
    import dask

    per_part = dask.compute(*[dask.delayed(_distinct, pure=True)(p, names, wanted) for p in parts])
    return [_labels.union([pp[j] for pp in per_part]) for j in range(len(wanted))]


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
            lut = self(np.asarray(values.cat.categories, dtype=object))
            cat_codes = values.cat.codes.to_numpy()
            if (cat_codes < 0).any():
                self._fail(np.array([None], dtype=object), np.array([-1]))
            return lut[cat_codes]
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
        lo = self.lo
        if self.lut is not None and lo is not None and arr.dtype.kind in "iu" and len(arr):
            if lo <= int(arr.min()) and int(arr.max()) - lo < len(self.lut):
                codes = self.lut[np.subtract(arr, lo, dtype=np.intp) if lo else arr]
                if not (codes < 0).any():
                    return codes.astype(self.dtype)
        if arr.dtype.kind == "b":
            lut = self.index.get_indexer(np.array([False, True], dtype=object))
            codes = lut[arr.view(np.uint8)]
        else:
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
    _kernel.check_lengths(lengths, " within a partition")
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
