"""What the report's modules share: a cell as a JSON value, the cube's task and positive class,
work spread over forked processes."""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import pandas as pd
import xarray as xr

from .._core import labels as _labels
from ..schema import CLASS

__all__ = ["binary", "fork_workers", "forked", "plain", "pos_label"]


def plain(v: Any) -> Any:
    """A table cell as a JSON value: numpy scalars as Python ones, NaN/inf/NA as None.

    >>> import numpy as np
    >>> plain(np.int64(3)), plain(float("nan")), plain(np.float32(0.5))
    (3, None, 0.5)
    """
    v = _labels.plain(v)
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if v is pd.NA or v is pd.NaT:
        return None
    return v


def binary(ds: xr.Dataset) -> bool:
    """Whether the cube is a binary task (one class: the positive one)."""
    return ds.attrs.get("task") == "binary" or ds.sizes.get(CLASS, 1) == 1


def pos_label(ds: xr.Dataset) -> Any:
    """The cube's positive class as its class coordinate holds it (a bool stays a bool)."""
    if "pos_label" not in ds.attrs:
        return None
    return _labels.from_attr(ds.attrs["pos_label"], ds[CLASS].values)


def fork_workers(n_jobs: int, tasks: int) -> int:
    """Processes to run ``tasks`` tasks in for ``n_jobs`` (-1: one per core): at most one per
    core and per task, and 1 (this process) on one core or where ``fork`` is not available.

    >>> fork_workers(1, 8), fork_workers(4, 1)
    (1, 1)
    """
    import multiprocessing

    cores = os.cpu_count() or 1
    if n_jobs == 1 or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return max(1, min(tasks, cores if n_jobs < 0 else min(n_jobs, cores)))


def forked(fn: Callable[[Any], Any], items: Iterable[Any], workers: int) -> list[Any] | None:
    """``[fn(x) for x in items]`` computed in ``workers`` forked processes (forked: nothing is
    imported again; ``fn``, the items and the results are pickled), in the order of
    ``items``, the warnings ``fn`` raised raised again here; None if a process died (the
    caller computes them itself). An error of ``fn`` is raised here.

    ``items`` may be an iterator that computes them: each is handed to a process as soon as
    it comes. The objects of this process are frozen for the garbage collector while the
    processes run (:func:`gc.freeze`): a collection in a child then does not touch, and so
    copy, the memory it shares with this process."""
    import gc
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    gc.freeze()
    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            futures = []
            try:
                for x in items:
                    futures.append(pool.submit(_caught, fn, x))
                done = [f.result() for f in futures]
            except BrokenProcessPool:
                return None
            finally:
                for f in futures:
                    f.cancel()
    finally:
        gc.unfreeze()
    out = []
    for value, caught in done:
        for text, category, filename, lineno in caught:
            warnings.warn_explicit(text, category, filename, lineno)
        out.append(value)
    return out


def _caught(fn: Callable[[Any], Any], x: Any) -> tuple[Any, list[tuple[Any, ...]]]:
    """``fn(x)`` and the warnings it raised (message, category, file, line)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = fn(x)
    return value, [(str(w.message), w.category, w.filename, w.lineno) for w in caught]
