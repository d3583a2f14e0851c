"""``cvframe demo``: repeated stratified 10-fold CV of scikit-learn classifiers, end to end.

Prints the paper's two tables with their five F aggregations, then the report of three
classifiers on a binary and a multiclass data set shipped with scikit-learn, and writes the
cubes (netCDF), the plots (PNG) and ``report.html``.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import pandas as pd

from ._common import out_dir, save_figure

__all__ = ["DEMO_FOLDS", "DEMO_REPEATS", "OPTIONS", "add_parser", "run"]

#: Repeats and folds of the demo's CV (fast: the demo must finish in well under 2 minutes).
DEMO_REPEATS = 5
DEMO_FOLDS = 10

#: Library argument names and the options that set them.
OPTIONS = {"out": "--out"}


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``demo`` to ``sub`` (an argparse subparsers object)."""
    p = sub.add_parser(
        "demo",
        help="repeated 10-fold CV of scikit-learn classifiers: report, cubes, plots",
        description="Repeated stratified 10-fold CV of three scikit-learn classifiers on a "
        "binary (breast cancer) and a multiclass (digits) data set; prints the "
        "report and writes the cubes (netCDF), the plots (PNG) and report.html.",
    )
    p.add_argument(
        "--out", metavar="DIR", default=None, help="output directory (default ./cvframe-demo)"
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


def _models() -> list[tuple[str, Any]]:
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    return [
        ("logistic", make_pipeline(StandardScaler(), LogisticRegression(max_iter=500))),
        ("naive_bayes", GaussianNB()),
        ("tree", DecisionTreeClassifier(max_depth=6, random_state=0)),
    ]


def _frames(repeats: int) -> dict[str, tuple[pd.DataFrame, str]]:
    """Predictions frames (with a ``model`` column) of the two demo data sets."""
    from sklearn.datasets import load_breast_cancer, load_digits
    from threadpoolctl import threadpool_limits

    from ..runner import cross_validate

    data = {
        "breast_cancer": (
            load_breast_cancer,
            "Wisconsin breast cancer (binary: malignant=0 vs benign=1)",
        ),
        "digits": (load_digits, "handwritten digits (10 classes, one-vs-all)"),
    }
    out = {}
    # one BLAS thread per fit: on a small shared machine oversubscribed threads are 50x slower
    with threadpool_limits(1):
        for name, (loader, title) in data.items():
            X, y = loader(return_X_y=True)
            frames = []
            for model, est in _models():
                fr = cross_validate(
                    est, X, y, cv=DEMO_FOLDS, repeats=repeats, random_state=0, progress=False
                )
                frames.append(fr.assign(model=model))
            frame = pd.concat(frames, ignore_index=True)
            frame.attrs = dict(frames[0].attrs)
            out[name] = (frame, title)
    return out


def run(args: argparse.Namespace) -> int:
    """Handler of ``cvframe demo``."""
    import matplotlib

    matplotlib.use("Agg")
    from .. import datasets, io, plot
    from ..report import report

    start = time.perf_counter()
    out = out_dir(args.out or "cvframe-demo")
    print("cvframe demo -- the same folds, five F-measures (Forman & Scholz 2010)\n")
    print("\n\n".join(_teaser(n, datasets.load(n)) for n in ("table1", "table2")))
    print(
        f"\nRunning {DEMO_REPEATS} x stratified {DEMO_FOLDS}-fold CV of "
        + ", ".join(m for m, _ in _models())
        + " on two scikit-learn data sets ...\n"
    )
    frames = _frames(DEMO_REPEATS)
    cubes, score_frames, written = {}, {}, []
    for name, (frame, title) in frames.items():
        ds = frame.cv.counts()
        ds.attrs["source"] = f"{name}: {title}"
        cubes[name], score_frames[name] = ds, frame
        path = os.path.join(out, f"{name}.nc")
        io.prepare_for_write(ds).to_netcdf(path)
        written.append(path)
        written.append(save_figure(plot.folds(ds), os.path.join(out, f"{name}_folds.png")))
        written.append(save_figure(plot.methods(ds), os.path.join(out, f"{name}_methods.png")))
        written.append(
            save_figure(
                plot.confusion(ds, normalize="true"), os.path.join(out, f"{name}_confusion.png")
            )
        )
    bc = score_frames["breast_cancer"]
    one = bc[(bc["model"] == "logistic") & (bc["repeat"] == 0)].drop(columns=["model"])
    written.append(save_figure(plot.roc(one), os.path.join(out, "breast_cancer_roc.png")))
    written.append(
        save_figure(plot.score_rates(one), os.path.join(out, "breast_cancer_score_rates.png"))
    )
    written.append(save_figure(plot.fold_risk(), os.path.join(out, "fold_risk.png")))
    print(report(cubes, scores=score_frames, format="text"))
    html_path = os.path.join(out, "report.html")
    with open(html_path, "w", encoding="utf-8") as fh:
        fh.write(report(cubes, scores=score_frames, format="html"))
    written.append(html_path)
    print(
        f"Wrote {len(written)} files to {out}: " + ", ".join(os.path.basename(p) for p in written)
    )
    print(f"Done in {time.perf_counter() - start:.1f} s.")
    return 0
