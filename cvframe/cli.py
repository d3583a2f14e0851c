"""The ``cvframe`` command line: ``main(argv) -> int``; I/O and calls to the public API only.

Subcommands:

- ``cvframe demo [--out DIR]``: repeated stratified 10-fold CV of three scikit-learn
  classifiers on a binary and a multiclass data set shipped with scikit-learn; prints the
  apples-to-apples report and writes the cubes (netCDF), the plots (PNG) and ``report.html``.
- ``cvframe report PREDICTIONS.csv|.parquet [--fold-col ...] [--out DIR] [--format ...]``:
  the report of a predictions frame written by any tool.
- ``cvframe simulate ...``: see :mod:`cvframe.simulation`.

Exit codes: 0 on success, 2 on a user error (one line on stderr naming the problem, no
traceback).
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Sequence
from typing import Any, NoReturn

import pandas as pd

__all__ = ["build_parser", "main"]

#: The classifiers of ``cvframe demo`` (fast: the demo must finish in well under 2 minutes).
DEMO_REPEATS = 5
DEMO_FOLDS = 10


class UserError(Exception):
    """A problem with the user's input: reported in one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit code 2, no usage dump)."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)


# --- demo ----------------------------------------------------------------------------------

def _methods_table(name: str, ds: Any) -> str:
    """The teaser: per-fold counts of one of the paper's tables and its five F methods."""
    from .diagnostics import fold_table, methods_table

    per_fold = fold_table(ds).drop(columns=["class", "valid"]).round(3)
    methods = methods_table(ds).drop(columns=["class"]).iloc[0].round(3)
    return "\n".join([f"== {name}: {ds.attrs.get('source', '')}",
                      per_fold.to_string(index=False),
                      "five aggregations of the same folds (zero_division=0): "
                      + ", ".join(f"{k}={v:.3f}" for k, v in methods.items())])


def _demo_models() -> list[tuple[str, Any]]:
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    return [("logistic", make_pipeline(StandardScaler(), LogisticRegression(max_iter=500))),
            ("naive_bayes", GaussianNB()),
            ("tree", DecisionTreeClassifier(max_depth=6, random_state=0))]


def _demo_frames(repeats: int) -> dict[str, tuple[pd.DataFrame, str]]:
    """Predictions frames (with a ``model`` column) of the two demo data sets."""
    from sklearn.datasets import load_breast_cancer, load_digits
    from threadpoolctl import threadpool_limits

    from .runner import cross_validate

    data = {"breast_cancer": (load_breast_cancer, "Wisconsin breast cancer (binary: "
                                                  "malignant=0 vs benign=1)"),
            "digits": (load_digits, "handwritten digits (10 classes, one-vs-all)")}
    out = {}
    # one BLAS thread per fit: on a small shared machine oversubscribed threads are 50x slower
    with threadpool_limits(1):
        for name, (loader, title) in data.items():
            X, y = loader(return_X_y=True)
            frames = []
            for model, est in _demo_models():
                fr = cross_validate(est, X, y, cv=DEMO_FOLDS, repeats=repeats,
                                    random_state=0, progress=False)
                frames.append(fr.assign(model=model))
            frame = pd.concat(frames, ignore_index=True)
            frame.attrs = dict(frames[0].attrs)
            out[name] = (frame, title)
    return out


def _save(obj: Any, path: str) -> str:
    fig = getattr(obj, "figure", obj)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return path


def _cmd_demo(args: argparse.Namespace) -> int:
    import matplotlib

    matplotlib.use("Agg")
    from . import datasets, io, plot
    from .report import report

    start = time.perf_counter()
    out = _out_dir(args.out or "cvframe-demo")
    print("cvframe demo -- the same folds, five F-measures (Forman & Scholz 2010)\n")
    print("\n\n".join(_methods_table(n, datasets.load(n)) for n in ("table1", "table2")))
    print(f"\nRunning {DEMO_REPEATS} x stratified {DEMO_FOLDS}-fold CV of "
          + ", ".join(m for m, _ in _demo_models()) + " on two scikit-learn data sets ...\n")
    frames = _demo_frames(DEMO_REPEATS)
    cubes, score_frames, written = {}, {}, []
    for name, (frame, title) in frames.items():
        ds = frame.cv.counts()
        ds.attrs["source"] = f"{name}: {title}"
        cubes[name], score_frames[name] = ds, frame
        path = os.path.join(out, f"{name}.nc")
        io.prepare_for_write(ds).to_netcdf(path)
        written.append(path)
        written.append(_save(plot.folds(ds), os.path.join(out, f"{name}_folds.png")))
        written.append(_save(plot.methods(ds), os.path.join(out, f"{name}_methods.png")))
        written.append(_save(plot.confusion(ds, normalize="true"),
                             os.path.join(out, f"{name}_confusion.png")))
    bc = score_frames["breast_cancer"]
    one = bc[(bc["model"] == "logistic") & (bc["repeat"] == 0)].drop(columns=["model"])
    written.append(_save(plot.roc(one), os.path.join(out, "breast_cancer_roc.png")))
    written.append(_save(plot.score_rates(one),
                         os.path.join(out, "breast_cancer_score_rates.png")))
    written.append(_save(plot.fold_risk(), os.path.join(out, "fold_risk.png")))
    text = report(cubes, scores=score_frames, format="text")
    print(text)
    html_path = os.path.join(out, "report.html")
    with open(html_path, "w", encoding="utf-8") as fh:
        fh.write(report(cubes, scores=score_frames, format="html"))
    written.append(html_path)
    print(f"Wrote {len(written)} files to {out}: "
          + ", ".join(os.path.basename(p) for p in written))
    print(f"Done in {time.perf_counter() - start:.1f} s.")
    return 0


# --- report ----------------------------------------------------------------------------------

def _read_frame(path: str) -> pd.DataFrame:
    if not os.path.exists(path):
        raise UserError(f"PREDICTIONS file {path!r} does not exist.")
    if os.path.isdir(path):
        raise UserError(f"PREDICTIONS {path!r} is a directory; give a .csv or .parquet file.")
    ext = os.path.splitext(path)[1].lower()
    readers = {".csv": pd.read_csv, ".parquet": pd.read_parquet, ".pq": pd.read_parquet}
    if ext not in readers:
        raise UserError(f"PREDICTIONS {path!r} has unknown format {ext or '(no extension)'!r};"
                        " expected one of .csv, .parquet.")
    try:
        frame = readers[ext](path)
    except Exception as exc:  # noqa: BLE001 - any reader failure is the user's file
        raise UserError(f"cannot read {path!r} as {ext[1:]}: {type(exc).__name__}: "
                        f"{_first_line(exc)}") from None
    if frame.empty:
        raise UserError(f"PREDICTIONS {path!r} has no rows.")
    return frame


def _first_line(exc: BaseException) -> str:
    text = str(exc.args[0] if isinstance(exc, KeyError) and exc.args else exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _label(value: str | None, column: pd.Series) -> Any:
    """A label given on the command line, in the dtype of the label column."""
    if value is None:
        return None
    if pd.api.types.is_bool_dtype(column):
        if value.lower() in ("true", "1"):
            return True
        if value.lower() in ("false", "0"):
            return False
    elif pd.api.types.is_integer_dtype(column):
        try:
            return int(value)
        except ValueError:
            pass
    elif pd.api.types.is_float_dtype(column):
        try:
            return float(value)
        except ValueError:
            pass
    return value


def _zero_division(value: str) -> Any:
    if value == "warn":
        return "warn"
    try:
        num = float(value)
    except ValueError:
        raise UserError(f"--zero-division={value!r} is not valid; expected one of warn, 0, 1, "
                        "nan.") from None
    if not (num in (0.0, 1.0) or math.isnan(num)):
        raise UserError(f"--zero-division={value!r} is not valid; expected one of warn, 0, 1, "
                        "nan.")
    return num


def _number(value: str, name: str, low: float, high: float | None = None) -> float:
    try:
        num = float(value)
    except ValueError:
        raise UserError(f"{name}={value!r} is not a number.") from None
    if not math.isfinite(num) or num < low or (high is not None and num >= high):
        rng = f">= {low:g}" if high is None else f"in [{low:g}, {high:g})"
        raise UserError(f"{name}={value!r} must be a finite number {rng}.")
    return num


def _out_dir(path: str) -> str:
    if os.path.exists(path) and not os.path.isdir(path):
        raise UserError(f"--out {path!r} exists and is not a directory.")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create --out directory {path!r}: {exc.strerror}.") from None
    return path


def _cmd_report(args: argparse.Namespace) -> int:
    from .report import report

    zd = _zero_division(args.zero_division)
    tolerance = _number(args.tolerance, "--tolerance", 0.0)
    alpha = _number(args.alpha, "--alpha", 1e-300, 1.0)
    frame = _read_frame(args.predictions)
    cols = {"--fold-col": args.fold_col, "--y-true-col": args.y_true_col,
            "--y-pred-col": args.y_pred_col}
    missing = [f"{opt} {col!r}" for opt, col in cols.items() if col not in frame.columns]
    if missing:
        raise UserError(f"{args.predictions!r} has no column {', '.join(missing)}; its columns "
                        f"are {list(frame.columns)[:12]} (name yours with --fold-col, "
                        "--y-true-col, --y-pred-col).")
    repeat = args.repeat_col if args.repeat_col in frame.columns else None
    if args.repeat_col != "repeat" and repeat is None:
        raise UserError(f"{args.predictions!r} has no column --repeat-col "
                        f"{args.repeat_col!r}; its columns are {list(frame.columns)[:12]}.")
    pos_label = _label(args.pos_label, frame[args.y_true_col])
    ds = frame.cv.counts(pos_label=pos_label, y_true=args.y_true_col, y_pred=args.y_pred_col,
                         fold=args.fold_col, repeat=repeat)
    ds.attrs["source"] = os.path.basename(args.predictions)
    has_scores = args.score_col in frame.columns or any(
        str(c).startswith("score_") for c in frame.columns)
    kwargs = dict(scores=frame if has_scores else None, zero_division=zd, tolerance=tolerance,
                  alpha=alpha, y_true=args.y_true_col, fold=args.fold_col, repeat=repeat,
                  score=args.score_col)
    if args.out is None:
        sys.stdout.write(report(ds, format=args.format, **kwargs))
        return 0
    import matplotlib

    matplotlib.use("Agg")
    out = _out_dir(args.out)
    ext = {"text": "txt", "json": "json", "html": "html"}[args.format]
    path = os.path.join(out, f"report.{ext}")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(report(ds, format=args.format, **kwargs))
    cube = os.path.join(out, "counts.nc")
    from .io import prepare_for_write

    prepare_for_write(ds).to_netcdf(cube)
    print(f"wrote {path} and {cube}")
    return 0


# --- parser ----------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = _Parser(
        prog="cvframe",
        description="Honest, comparable classifier evaluation under cross-validation: every "
                    "fold kept, every aggregation named (Forman & Scholz 2010).",
    )
    parser.add_argument("--version", action="version", version=f"cvframe {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    demo = sub.add_parser(
        "demo", help="repeated 10-fold CV of scikit-learn classifiers: report, cubes, plots",
        description="Repeated stratified 10-fold CV of three scikit-learn classifiers on a "
                    "binary (breast cancer) and a multiclass (digits) data set; prints the "
                    "report and writes the cubes (netCDF), the plots (PNG) and report.html.")
    demo.add_argument("--out", metavar="DIR", default=None,
                      help="output directory (default ./cvframe-demo)")
    demo.set_defaults(func=_cmd_demo)

    rep = sub.add_parser(
        "report", help="the report of a predictions file (.csv or .parquet)",
        description="Build the counts cube of a predictions file (one row per tested sample: "
                    "fold, y_true, y_pred, optional repeat and score columns) and print or "
                    "write its report.")
    rep.add_argument("predictions", metavar="PREDICTIONS",
                     help="a .csv or .parquet file, one row per tested sample")
    rep.add_argument("--fold-col", default="fold", help="fold column (default: fold)")
    rep.add_argument("--y-true-col", default="y_true", help="true label column (y_true)")
    rep.add_argument("--y-pred-col", default="y_pred", help="predicted label column (y_pred)")
    rep.add_argument("--repeat-col", default="repeat",
                     help="repeat column (default: repeat, used when present)")
    rep.add_argument("--score-col", default="score",
                     help="binary score column (default: score; multiclass: score_<label>)")
    rep.add_argument("--pos-label", default=None,
                     help="positive class of a binary task whose labels are not 0/1")
    rep.add_argument("--zero-division", default="0", metavar="{warn,0,1,nan}",
                     help="value of undefined precision/recall (default 0, the paper's)")
    rep.add_argument("--tolerance", default="0.05",
                     help="flag classes whose five F methods differ by more (default 0.05)")
    rep.add_argument("--alpha", default="0.01",
                     help="false-alarm rate of the outlying-fold tests (default 0.01)")
    rep.add_argument("--format", default="text", choices=["text", "json", "html"],
                     help="output format (default text)")
    rep.add_argument("--out", metavar="DIR", default=None,
                     help="write report.<ext> and counts.nc to DIR instead of printing")
    rep.set_defaults(func=_cmd_report)

    # --- simulate (issue 6: cvframe/simulation.py) -------------------------------------------
    _add_simulate(sub)
    return parser


def _add_simulate(sub: Any) -> None:
    """The ``simulate`` subcommand is added here by the simulation layer (issue 6)."""
    from . import _simulate_cli  # parser and handler live beside the simulation layer

    _simulate_cli.add_parser(sub)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 2 user error)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except (UserError, OSError, KeyError, ValueError, TypeError) as exc:
        print(f"cvframe {args.command}: error: {_first_line(exc)}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
