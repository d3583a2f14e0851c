"""Progress bars and threads of the fits: when a bar shows and which bar (a widget in Jupyter
with ipywidgets, else text, never tqdm.auto's warning), and how many BLAS/OpenMP threads each
fit of a pool runs with."""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = [
    "CONTROLLERS",
    "LONG_SECONDS",
    "THREADS_ENV",
    "bar_class",
    "fit_threads",
    "in_kernel",
    "one_thread",
    "progress_bar",
    "progress_from_env",
    "wants_progress",
    "watched",
]


#: Work that lasts longer than this many seconds shows a progress bar by default: the bar
#: appears once the work has run that long, so a short call never prints one.
LONG_SECONDS = 2.0


def progress_from_env() -> bool | None:
    """The environment's say on progress bars: ``CVFRAME_PROGRESS`` = 0/false/no/off hides
    them (False), 1/true/yes/on shows them (True); unset or anything else is None (the
    default rule of :func:`wants_progress`).

    >>> progress_from_env() in (True, False, None)
    True
    """
    env = os.environ.get("CVFRAME_PROGRESS", "").strip().lower()
    if env in ("0", "false", "no", "off"):
        return False
    if env in ("1", "true", "yes", "on"):
        return True
    return None


def watched() -> bool:
    """Whether someone sees a progress bar: stderr is a terminal, or this is a Jupyter kernel
    (where ``tqdm.auto`` draws a widget, or a text bar in the cell's stderr)."""
    try:
        if sys.stderr is not None and sys.stderr.isatty():
            return True
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        pass
    return in_kernel()


def in_kernel() -> bool:
    """Whether this is a Jupyter kernel (an IPython shell of ``ipykernel``)."""
    ipython: Any = sys.modules.get("IPython")
    try:
        shell = ipython.get_ipython()
        kernel = type(shell).__name__ == "ZMQInteractiveShell" or "IPKernelApp" in shell.config
    except Exception:  # noqa: BLE001 - no IPython, no shell, no config: not a kernel
        return False
    return bool(kernel)


def wants_progress(progress: bool | None, long: bool | None = None) -> bool | None:
    """The one rule for the progress bars of ``cross_validate``, ``PooledSearchCV`` and
    ``bias_study`` (and of ``cvframe demo``'s fits, which pass ``--no-progress`` in).

    ``progress=True`` shows the bar, ``False`` hides it; ``None`` asks ``CVFRAME_PROGRESS``
    (:func:`progress_from_env`), and when that is unset the bar is shown where someone sees it
    (:func:`watched`: a terminal or a Jupyter kernel) and the work is long: ``long`` says
    whether it is (an estimate by the caller); ``long=None`` (unknown) returns None: show the
    bar once the work has lasted ``LONG_SECONDS`` (tqdm's ``delay``).

    >>> wants_progress(True), wants_progress(False)
    (True, False)
    """
    show = progress_from_env() if progress is None else bool(progress)
    if show is not None:
        return show
    if long is False or not watched():
        return False
    return None if long is None else True


def bar_class(show: bool | None) -> Any:
    """The tqdm class of a bar: the widget of ``tqdm.notebook`` in a Jupyter kernel that has
    ``ipywidgets`` (the ``notebook`` extra), else the text bar (on stderr; in Jupyter, in the
    cell's output). ``tqdm.auto`` is never imported: in a kernel without ``ipywidgets`` it
    prints a ``TqdmWarning`` ("IProgress not found") before it falls back to the same text
    bar, and that warning is all a first progress bar would show."""
    from tqdm import tqdm as text_bar

    if show is False or not in_kernel():
        return text_bar
    try:
        import ipywidgets  # noqa: F401  the widget's library, checked before tqdm looks
        from tqdm.notebook import tqdm as widget_bar
    except ImportError:
        return text_bar
    return widget_bar


def progress_bar(total: int, desc: str, unit: str, progress: bool | None) -> Any:
    """A bar over ``total`` steps (:func:`bar_class`: a widget in Jupyter with
    ``ipywidgets``, text on stderr elsewhere), shown by :func:`wants_progress`'s rule
    (unknown length: after ``LONG_SECONDS``)."""
    show = wants_progress(progress)
    delay = {"delay": LONG_SECONDS} if show is None else {}
    return bar_class(show)(total=total, desc=desc, unit=unit, disable=show is False, **delay)


#: The environment variable that sets the BLAS/OpenMP threads of every fit (see
#: :func:`fit_threads`).
THREADS_ENV = "CVFRAME_THREADS"


def fit_threads() -> int | None:
    """The BLAS/OpenMP threads each fit of ``cross_validate`` and ``PooledSearchCV`` runs
    with: 1 by default, whatever ``n_jobs``; ``CVFRAME_THREADS=N`` gives N, and
    ``CVFRAME_THREADS=all`` leaves the libraries' own default (one thread per core).

    Cross-validation runs many fits; they are parallel through ``n_jobs``, not inside each
    fit. A study of logistic regression, a random forest and histogram gradient boosting
    (whose OpenMP threads wait for each other at every tree) stalled past ten minutes on a
    loaded 2-core machine with the libraries' threads and ran in 91 s with one thread; here
    (``benchmarks/bench_threads.py``, a load of 12 on 2 cores) it took 99 s against 5.8 s
    (1,000 samples, 3 folds) and 121 s against 76 s (2,000 samples, 5 folds).

    >>> fit_threads() in (1, None) or fit_threads() >= 1
    True
    """
    env = os.environ.get(THREADS_ENV, "").strip().lower()
    if env in ("", "1"):
        return 1
    if env in ("all", "none", "0", "default"):
        return None
    try:
        n = int(env)
    except ValueError:
        n = 0
    if n < 1:
        raise ValueError(
            f"{THREADS_ENV}={env!r} is not valid; set it to a number of threads per fit "
            "(1, the default, 2, ...) or 'all' for the libraries' own default."
        )
    return n


CONTROLLERS: dict[int, Any] = {}


def one_thread(parent: int, limit: int, func: Any, *args: Any, **kwargs: Any) -> Any:
    """``func(*args, **kwargs)`` with ``limit`` BLAS/OpenMP threads in a worker process
    (threads of the calling process share the limit :func:`fit_pool` sets around the whole
    pool)."""
    if os.getpid() == parent:
        return func(*args, **kwargs)
    controller = CONTROLLERS.get(os.getpid())
    if controller is None:  # one scan of the loaded libraries per worker process
        from threadpoolctl import ThreadpoolController

        controller = CONTROLLERS[os.getpid()] = ThreadpoolController()
    with controller.limit(limits=limit):
        return func(*args, **kwargs)
