"""Where the tasks of a bias study run: dask's local schedulers or a distributed cluster."""

from __future__ import annotations

from typing import Any

LOCAL_SCHEDULERS = ("threads", "threading", "sync", "synchronous", "single-threaded", "processes")


def run(tasks: list[tuple[Any, ...]], scheduler: Any, progress: Any) -> list[Any]:
    """Run ``(func, *args)`` tasks on dask (threads, or a distributed cluster), in order.

    ``scheduler``: None or a local scheduler name (:data:`LOCAL_SCHEDULERS`) runs on this
    machine; a ``distributed.Client`` submits to its cluster; any other string is a scheduler
    address (a client is opened for the run and closed after). Results come back in the
    order of ``tasks`` whatever order they finish in; a tqdm bar counts finished tasks. On
    a cluster a failing task cancels the others and its error is raised here.
    """
    from tqdm.auto import tqdm

    disable = None if progress is None else not progress
    bar = tqdm(total=len(tasks), desc="bias_study", unit="task", disable=disable)
    try:
        try:
            import dask
        except ImportError:  # dask is optional: run in this thread
            out = []
            for func, *args in tasks:
                out.append(func(*args))
                bar.update()
            return out
        if scheduler is None or (isinstance(scheduler, str) and scheduler in LOCAL_SCHEDULERS):
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
                return list(dask.compute(*delayed, scheduler=scheduler or "threads"))
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
    finally:
        bar.close()
