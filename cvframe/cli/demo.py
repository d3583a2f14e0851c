"""``cvframe demo``: repeated stratified 10-fold CV of scikit-learn classifiers, end to end.

Prints the paper's two tables with their five F aggregations, then the report of three
classifiers on a binary and a multiclass data set shipped with scikit-learn, and writes the
cubes (netCDF), the plots (PNG) and ``report.html``.

Where the time goes, and what keeps it short (the last line printed gives each stage's
seconds): the two data sets are fit at the same time, each in its own forked process, and
within it every model and split in one joblib thread pool (one BLAS thread per fit:
oversubscribed threads made logistic regression 50x slower on a shared 2-core machine); the
two plots the report has not are drawn in a forked process as soon as breast cancer is
fitted; the report is computed once, here, for the text and the HTML; each of its figures
is drawn once, in a forked process per core (the largest data set's first), and the PNG
files are those same images. Drawing the figures is most of the time. ``--jobs 1``, one
core or no ``fork``: everything in this process, in the same order, the same files.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import time
from typing import Any

import pandas as pd

from ._common import Steps, UserError, integer, out_dir, progress, save_figure
from .report import add_report_options

__all__ = ["DEMO_FOLDS", "DEMO_REPEATS", "OPTIONS", "add_parser", "run"]

#: Repeats and folds of the demo's CV.
DEMO_REPEATS = 5
DEMO_FOLDS = 10

#: Library argument names and the options that set them.
OPTIONS = {
    "out": "--out",
    "repeats": "--repeats",
    "n_jobs": "--jobs",
    "title": "--title",
    "max_fold_rows": "--max-fold-rows",
}


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``demo`` to ``sub`` (an argparse subparsers object)."""
    p = sub.add_parser(
        "demo",
        help="repeated 10-fold CV of scikit-learn classifiers: report, cubes, plots",
        description="Repeated stratified 10-fold CV of three scikit-learn classifiers on a "
        "binary (breast cancer) and a multiclass (digits) data set; prints the "
        "report and writes the cubes (netCDF), the plots (PNG) and report.html.",
    )
    p.add_argument("--out", metavar="DIR", default="cvframe-demo", help="output directory")
    p.add_argument(
        "--repeats",
        default=str(DEMO_REPEATS),
        metavar="N",
        help="repeats of the stratified 10-fold CV",
    )
    p.add_argument(
        "--jobs",
        default="-1",
        metavar="N",
        help="parallel fits, in threads (-1: one per core), each with one BLAS thread; and "
        "processes drawing the plots (at most one per core; 1: all in this process)",
    )
    add_report_options(
        p, "title of report.html (default: per cube)", "write no PNG and no plot in the HTML"
    )
    p.add_argument(
        "--no-progress", action="store_true", help="no progress bars (shown on a terminal)"
    )
    p.set_defaults(func=run, options=OPTIONS)
    return p


def _teaser(name: str, ds: Any) -> str:
    """Per-fold counts of one of the paper's tables and its five F methods."""
    from ..tidy import fold_table, methods_table

    per_fold = fold_table(ds).drop(columns=["class", "valid"]).round(3)
    methods = methods_table(ds).drop(columns=["class"]).iloc[0].round(3)
    return "\n".join(
        [
            f"== {name}: {ds.attrs.get('source', '')}",
            per_fold.to_string(index=False),
            "five aggregations of the same folds (zero_division=0): "
            + ", ".join(f"{k}={v:.3f}" for k, v in methods.items()),
        ]
    )


def _models() -> dict[str, Any]:
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    return {
        "logistic": make_pipeline(StandardScaler(), LogisticRegression(max_iter=500)),
        "naive_bayes": GaussianNB(),
        "tree": DecisionTreeClassifier(max_depth=6, random_state=0),
    }


#: The demo's data sets: name -> (scikit-learn loader, its keyword arguments, description).
DATA: dict[str, tuple[str, dict[str, Any], str]] = {
    "breast_cancer": (
        "load_breast_cancer",
        {},
        "Wisconsin breast cancer (binary: malignant=0 vs benign=1)",
    ),
    "digits": ("load_digits", {}, "handwritten digits (10 classes, one-vs-all)"),
}


def _fit_one(name: str, repeats: int, n_jobs: int, show: bool | None) -> pd.DataFrame:
    """The predictions frame (with a ``model`` column) of one demo data set: every model fit
    on the same splits, in one joblib thread pool, one BLAS thread per fit."""
    import sklearn.datasets
    from joblib import parallel_backend
    from threadpoolctl import threadpool_limits

    from ..runner import cross_validate

    loader, kwargs, _ = DATA[name]
    X, y = getattr(sklearn.datasets, loader)(return_X_y=True, **kwargs)
    # Threads, one BLAS thread each: the fits are small (milliseconds) and release the GIL
    # in their numeric parts; a process per fit would cost more to start than the fit.
    with threadpool_limits(1), parallel_backend("threading", n_jobs=n_jobs):
        return cross_validate(
            _models(),
            X,
            y,
            cv=DEMO_FOLDS,
            repeats=repeats,
            random_state=0,
            n_jobs=n_jobs,
            progress=show,
        )


def _frames(
    repeats: int, n_jobs: int, show: bool | None, ready: Any = None
) -> dict[str, tuple[pd.DataFrame, str]]:
    """Predictions frames (with a ``model`` column) of the demo data sets.

    With more than one core (and ``--jobs`` not 1), each data set is fit in its own process
    (forked: nothing is imported again), the cores shared between them: the fits' Python
    parts hold the GIL, so two processes fit in parallel where threads take turns.
    ``ready(name, frame)`` is called as each data set is fitted (the others may still fit).
    """
    import multiprocessing

    cores = os.cpu_count() or 1
    total = cores if n_jobs < 0 else n_jobs
    names = list(DATA)
    workers = min(len(names), total)
    ready = ready or (lambda name, frame: None)
    if workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        done = {}
        for n in names:
            done[n] = _fit_one(n, repeats, n_jobs, show)
            ready(n, done[n])
        return {n: (done[n], DATA[n][2]) for n in names}
    from concurrent.futures import ProcessPoolExecutor, as_completed

    per = max(1, total // workers)
    context = multiprocessing.get_context("fork")
    steps = Steps(len(names), "cvframe demo: fits", show)  # one bar here, none in the workers
    try:
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            futures = {pool.submit(_fit_one, n, repeats, per, False): n for n in names}
            done = {}
            for future in as_completed(futures):
                done[futures[future]] = future.result()
                steps.step(f"{futures[future]} fitted")
                ready(futures[future], done[futures[future]])
    finally:
        steps.close()
    return {n: (done[n], DATA[n][2]) for n in names}


def _extra_figures(out: str, bc: pd.DataFrame) -> list[str]:
    """The two plots the report has not, as PNG files (run beside the fits and the report)."""
    import matplotlib

    matplotlib.use("Agg")
    from .. import plot

    one = bc[(bc["model"] == "logistic") & (bc["repeat"] == 0)]  # titles name model and repeat
    return [
        save_figure(plot.score_rates(one), os.path.join(out, "breast_cancer_score_rates.png")),
        save_figure(plot.fold_risk(), os.path.join(out, "fold_risk.png")),
    ]


def run(args: argparse.Namespace) -> int:
    """Handler of ``cvframe demo``."""
    start = time.perf_counter()
    repeats = integer(args.repeats, "--repeats", 1)
    n_jobs = integer(args.jobs, "--jobs", -1)
    if n_jobs == 0:
        raise UserError("--jobs '0' runs nothing; give a number of parallel fits, or -1.")
    integer(args.max_fold_rows, "--max-fold-rows", 0)
    show = progress(args)
    plots = not args.no_plots
    import matplotlib

    matplotlib.use("Agg")
    from .. import datasets, io
    from ..report import render

    out = out_dir(args.out)
    print("cvframe demo -- the same folds, five F-measures (Forman & Scholz 2010)\n")
    print("\n\n".join(_teaser(n, datasets.load(n)) for n in ("table1", "table2")))
    print(
        f"\nRunning {repeats} x stratified {DEMO_FOLDS}-fold CV of "
        + ", ".join(_models())
        + " on two scikit-learn data sets ...\n",
        flush=True,
    )
    took: dict[str, float] = {}
    mark = time.perf_counter()
    extra: list[_Beside] = []

    def ready(name: str, frame: pd.DataFrame) -> None:
        """The extra plots begin as soon as breast cancer is fitted (often while digits
        still fits), with what drawing imports, in a forked process."""
        if plots and name == "breast_cancer":
            _drawing_imports()
            extra.append(_Beside(n_jobs != 1, _extra_figures, out, frame))

    frames = _frames(repeats, n_jobs, show, ready)
    took["fits"], mark = time.perf_counter() - mark, time.perf_counter()
    steps = Steps(3, "cvframe demo", show)
    try:
        steps.step("counts cubes")
        cubes, score_frames, written = {}, {}, []
        for name, (frame, title) in frames.items():
            ds = frame.cv.counts()
            ds.attrs["source"] = f"{name}: {title}"
            cubes[name], score_frames[name] = ds, frame
            path = os.path.join(out, f"{name}.nc")
            io.prepare_for_write(ds).to_netcdf(path)
            written.append(path)
        took["cubes"], mark = time.perf_counter() - mark, time.perf_counter()
        steps.step("report (text and HTML)")
        pages, figs = render(
            cubes,
            scores=score_frames,
            title=args.title,
            plots=plots,
            max_fold_rows=integer(args.max_fold_rows, "--max-fold-rows", 0),
            n_jobs=n_jobs,  # each plot in a forked process, the cores shared
        )
        html_path = os.path.join(out, "report.html")
        with open(html_path, "w", encoding="utf-8") as fh:
            fh.write(pages["html"])
        took["report and its figures"], mark = time.perf_counter() - mark, time.perf_counter()
        steps.step("PNG files")
        if plots:
            for fname, data in {f"{cube}_{fig.name}.png": fig.png for cube, fig in figs}.items():
                path = os.path.join(out, fname)
                with open(path, "wb") as png_file:
                    png_file.write(data)
                written.append(path)
        for beside in extra:
            written += beside.result()
        took["PNG files"] = time.perf_counter() - mark
        written.append(html_path)
    finally:
        steps.close()
    print(pages["text"])
    print(
        f"Wrote {len(written)} files to {out}: " + ", ".join(os.path.basename(p) for p in written)
    )
    stages = ", ".join(f"{k} {v:.1f} s" for k, v in took.items())
    print(f"Done in {time.perf_counter() - start:.1f} s ({stages}).")
    return 0


def _drawing_imports() -> None:
    """Import what drawing needs (forked processes that draw then import nothing again)."""
    import matplotlib.pyplot  # noqa: F401

    from .. import plot  # noqa: F401

    with contextlib.suppress(ImportError):  # the plots say what to install
        import seaborn  # noqa: F401


class _Beside:
    """``fn(*args)`` in a forked process while this one goes on (in this process when not
    ``parallel``, fork is not available or there is one core); :meth:`result` waits for it."""

    def __init__(self, parallel: bool, fn: Any, *args: Any) -> None:
        import multiprocessing

        self._pool: Any = None
        forks = "fork" in multiprocessing.get_all_start_methods()
        if parallel and forks and (os.cpu_count() or 1) > 1:
            from concurrent.futures import ProcessPoolExecutor

            self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
            self._future = self._pool.submit(fn, *args)
        else:
            self._value = fn(*args)

    def result(self) -> Any:
        if self._pool is None:
            return self._value
        try:
            return self._future.result()
        finally:
            self._pool.shutdown()
