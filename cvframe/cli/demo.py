"""``cvframe demo``: repeated stratified 10-fold CV of scikit-learn classifiers, end to end.

Prints the paper's two tables with their five F aggregations, then the report of three
classifiers on a binary and a multiclass data set shipped with scikit-learn, and writes the
cubes (netCDF), the plots (PNG) and ``report.html``.

Where the time goes, and what keeps it short: the fits of every model and split run in one
joblib thread pool (``--jobs``, one BLAS thread per fit: oversubscribed threads made logistic
regression 50x slower on a shared 2-core machine; worker processes cost more to start than
the demo's small fits take); the report is computed once for the text and the HTML, each
figure is drawn once, for the HTML report, and the PNG files are those same images. Drawing
the figures is most of the demo's time.
"""

from __future__ import annotations

import argparse
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
        help="parallel fits, in threads (-1: one per core), each with one BLAS thread",
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


def _frames(repeats: int, n_jobs: int, show: bool | None) -> dict[str, tuple[pd.DataFrame, str]]:
    """Predictions frames (with a ``model`` column) of the two demo data sets.

    Every model is fit on the same splits, in one joblib pool per data set.
    """
    import sklearn.datasets
    from joblib import parallel_backend
    from threadpoolctl import threadpool_limits

    from ..runner import cross_validate

    out = {}
    # Threads, one BLAS thread each: the fits are small (milliseconds) and release the GIL
    # in their numeric parts; worker processes would cost more to start (importing
    # scikit-learn in each) than the fits take.
    with threadpool_limits(1), parallel_backend("threading", n_jobs=n_jobs):
        for name, (loader, kwargs, title) in DATA.items():
            X, y = getattr(sklearn.datasets, loader)(return_X_y=True, **kwargs)
            frame = cross_validate(
                _models(),
                X,
                y,
                cv=DEMO_FOLDS,
                repeats=repeats,
                random_state=0,
                n_jobs=n_jobs,
                progress=show,
            )
            out[name] = (frame, title)
    return out


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
    frames = _frames(repeats, n_jobs, show)
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
        steps.step("report (text and HTML)")
        pages, figs = render(
            cubes,
            scores=score_frames,
            title=args.title,
            plots=plots,
            max_fold_rows=integer(args.max_fold_rows, "--max-fold-rows", 0),
        )
        html_path = os.path.join(out, "report.html")
        with open(html_path, "w", encoding="utf-8") as fh:
            fh.write(pages["html"])
        steps.step("PNG files")
        if plots:
            pngs = {f"{cube}_{fig.name}.png": fig.png for cube, fig in figs}
            written += _write_pngs(out, pngs, score_frames)
        written.append(html_path)
    finally:
        steps.close()
    print(pages["text"])
    print(
        f"Wrote {len(written)} files to {out}: " + ", ".join(os.path.basename(p) for p in written)
    )
    print(f"Done in {time.perf_counter() - start:.1f} s.")
    return 0


def _write_pngs(out: str, pngs: dict[str, bytes], frames: dict[str, Any]) -> list[str]:
    """The report's figures as PNG files, plus the two plots the report has not."""
    from .. import plot

    written = []
    for fname, data in pngs.items():
        path = os.path.join(out, fname)
        with open(path, "wb") as fh:
            fh.write(data)
        written.append(path)
    bc = frames["breast_cancer"]
    one = bc[(bc["model"] == "logistic") & (bc["repeat"] == 0)]  # titles name model and repeat
    written.append(
        save_figure(plot.score_rates(one), os.path.join(out, "breast_cancer_score_rates.png"))
    )
    written.append(save_figure(plot.fold_risk(), os.path.join(out, "fold_risk.png")))
    return written
