"""Where the tasks of a bias study run: threads of this process, dask's process scheduler or a
distributed cluster."""

from __future__ import annotations

import os
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from typing import Any

#: Scheduler names that run on this machine (the threads of this process unless
#: ``"processes"``).
LOCAL_SCHEDULERS = ("threads", "threading", "sync", "synchronous", "single-threaded", "processes")
#: The local scheduler names that run the tasks one after the other in this thread.
_IN_ORDER = ("sync", "synchronous", "single-threaded")


def run(tasks: list[tuple[Any, ...]], scheduler: Any, progress: Any) -> list[Any]:
    """Run ``(func, *args)`` tasks and return their results in the order of ``tasks``.

    ``scheduler``: None or ``"threads"`` runs them on a pool of threads of this process, one
    per core (the compiled passes and numpy release the GIL; neither dask nor distributed is
    imported); ``"sync"`` runs them one after the other in this thread; ``"processes"`` on
    dask's local process scheduler; a ``distributed.Client`` submits to its cluster; any
    other string is a scheduler address (a client is opened for the run and closed after).
    Results come back in the order of ``tasks`` whatever order they finish in; a tqdm bar
    counts finished tasks. A failing task cancels the tasks not yet started (on a cluster,
    all the others) and its error is raised here.
    """
    from tqdm.auto import tqdm

    disable = None if progress is None else not progress
    bar = tqdm(total=len(tasks), desc="bias_study", unit="task", disable=disable)
    try:
        if isinstance(scheduler, str) and scheduler in _IN_ORDER:
            return _in_order(tasks, bar)
        if scheduler is None or scheduler in ("threads", "threading"):
            return _threads(tasks, bar)
        if scheduler == "processes":
            return _dask_processes(tasks, bar)
        return _cluster(tasks, scheduler, bar)
    finally:
        bar.close()


def _in_order(tasks: list[tuple[Any, ...]], bar: Any) -> list[Any]:
    out = []
    for func, *args in tasks:
        out.append(func(*args))
        bar.update()
    return out


def _threads(tasks: list[tuple[Any, ...]], bar: Any) -> list[Any]:
    """The tasks on a pool of one thread per core; the first error cancels the rest."""
    workers = min(len(tasks), os.cpu_count() or 1)
    if workers <= 1:
        return _in_order(tasks, bar)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="bias_study") as pool:
        futures = [pool.submit(func, *args) for func, *args in tasks]
        for fut in futures:
            fut.add_done_callback(lambda _fut: bar.update())
        done, _ = wait(futures, return_when=FIRST_EXCEPTION)
        failed = next((f for f in futures if f in done and f.exception() is not None), None)
        if failed is not None:
            for fut in futures:
                fut.cancel()
            raise failed.exception()  # type: ignore[misc]
        return [fut.result() for fut in futures]


def _dask_processes(tasks: list[tuple[Any, ...]], bar: Any) -> list[Any]:
    """The tasks on dask's local process scheduler (dask is optional: else in order here)."""
    try:
        import dask
    except ImportError:
        return _in_order(tasks, bar)
    from dask.callbacks import Callback

    class _Bar(Callback):
        def _posttask(self, key: Any, result: Any, dsk: Any, state: Any, id: Any) -> None:
            if isinstance(key, tuple) and str(key[0]).startswith("task"):
                bar.update()

    delayed = [
        dask.delayed(func, pure=False)(*args, dask_key_name=("task", i))
        for i, (func, *args) in enumerate(tasks)
    ]
    with _Bar():
        return list(dask.compute(*delayed, scheduler="processes"))


def _cluster(tasks: list[tuple[Any, ...]], scheduler: Any, bar: Any) -> list[Any]:
    """The tasks on a distributed cluster: a ``Client``, or a scheduler address."""
    from distributed import Client, as_completed

    own = isinstance(scheduler, str)
    client = Client(scheduler) if own else scheduler
    futures = []
    try:
        futures = [client.submit(func, *args, pure=False) for func, *args in tasks]
        index = {f.key: i for i, f in enumerate(futures)}
        out = [None] * len(tasks)
        for fut in as_completed(futures):  # the bar moves as tasks finish, in any order
            out[index[fut.key]] = fut.result()
            bar.update()
        return out
    except BaseException:
        client.cancel(futures)  # a failed or interrupted study leaves no work behind
        raise
    finally:
        if own:
            client.close()
