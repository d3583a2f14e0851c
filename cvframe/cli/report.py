"""``cvframe report PREDICTIONS``: the report of a predictions file written by any tool."""

from __future__ import annotations

import argparse
import os
import re
import sys
import warnings
from typing import Any

import xarray as xr

from .._core.labels.frame import multilabel_names
from ..readers import FORMATS as READER_FORMATS
from ..schema import FRAME_DIMS
from ._common import (
    Steps,
    UserError,
    integer,
    label,
    labels,
    listing,
    number,
    out_dir,
    progress,
    read_frame,
    zero_division,
)

__all__ = ["FORMATS_IN", "OPTIONS", "add_parser", "add_report_options", "columns", "run"]

#: The library arguments that name a column, and the help of their ``--<name>-col`` options.
COLUMNS = {
    "fold": "fold column",
    "y_true": "true label column",
    "y_pred": "predicted label column",
    "repeat": "repeat column, used when present",
    "score": "binary score column (multiclass: a score_<label> column per class)",
}

#: Library argument names and the options that set them.
OPTIONS = {
    **{name: f"--{name.replace('_', '-')}-col" for name in COLUMNS},
    "pos_label": "--pos-label",
    "labels": "--labels",
    "zero_division": "--zero-division",
    "tolerance": "--tolerance",
    "alpha": "--alpha",
    "format": "--format",
    "format_in": "--format-in",
    "title": "--title",
    "dims": "--dims",
    "max_fold_rows": "--max-fold-rows",
}

#: The formats ``--format-in`` can force (default: detected from the columns).
FORMATS_IN = list(READER_FORMATS)


def columns(args: argparse.Namespace) -> dict[str, str]:
    """The library arguments that name a column, and the columns the user gave."""
    return {name: getattr(args, f"{name}_col") for name in COLUMNS}


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``report`` to ``sub`` (an argparse subparsers object)."""
    p = sub.add_parser(
        "report",
        help="the report of a predictions file (.csv or .parquet)",
        description="Build the counts cube of a predictions file (one row per tested sample: "
        "fold, y_true, y_pred, optional repeat, model and score columns) and print or "
        "write its report. CSV files are read with pyarrow when it is installed and there are "
        "4 cores or more, else with pandas' C engine.",
    )
    p.add_argument(
        "predictions",
        metavar="PREDICTIONS",
        help="a .csv or .parquet file, one row per tested sample",
    )
    for name, text in COLUMNS.items():
        p.add_argument(OPTIONS[name], default=name, metavar="COL", help=text)
    p.add_argument(
        "--model-col",
        default=None,
        metavar="COL",
        help="column naming the model of each row: the cube gets a model dim, the report "
        "compares the models (default: a column named model, when present)",
    )
    p.add_argument(
        "--dims",
        default=None,
        metavar="COL,COL,...",
        help="further columns kept as dims of the cube, comma-separated (default: those of "
        "model, param, dataset, subset present)",
    )
    p.add_argument(
        "--pos-label",
        default=None,
        metavar="LABEL",
        help="positive class of a binary task whose labels are not 0/1",
    )
    p.add_argument(
        "--labels",
        default=None,
        metavar="A,B,...",
        help="the classes to report and plot, comma-separated, in report order; every label "
        "in the file must be one of them (default: the labels in the file); with two "
        "labels, a one-vs-all report of both",
    )
    for flag, default, meta, text in (
        ("--zero-division", "0", "{warn,0,1,nan}", "value of undefined precision/recall (0 is "
         "the paper's)"),
        ("--tolerance", "0.05", "X", "flag classes whose five F methods differ by more"),
        ("--alpha", "0.01", "A", "false-alarm rate of the outlying-fold tests, in (0, 1)"),
    ):  # fmt: skip
        p.add_argument(flag, default=default, metavar=meta, help=text)
    p.add_argument("--format", default="text", choices=["text", "json", "html"], help="output")
    add_report_options(p, "report title (default: the file name)", "no plots in the HTML report")
    p.add_argument(
        "--format-in",
        default=None,
        choices=FORMATS_IN,
        help="the tool that wrote PREDICTIONS (default: detected from its columns; "
        "cvframe: a predictions file named by --fold-col, --y-true-col, ...)",
    )
    p.add_argument(
        "--out",
        metavar="DIR",
        default=None,
        help="write report.<ext> and counts.nc to DIR (default: print the report)",
    )
    p.add_argument(
        "--no-progress", action="store_true", help="no progress bar (shown on a terminal)"
    )
    p.set_defaults(func=run, options=OPTIONS, columns=columns)
    return p


def add_report_options(p: argparse.ArgumentParser, title_help: str, plots_help: str) -> None:
    """The options of the report itself (``--title``, ``--max-fold-rows``, ``--no-plots``),
    shared by the commands that write one."""
    p.add_argument("--title", default=None, metavar="TEXT", help=title_help)
    p.add_argument(
        "--max-fold-rows",
        default="40",
        metavar="N",
        help="list every fold when there are at most N (fold, class) rows, else only the "
        "rows a finding names",
    )
    p.add_argument("--no-plots", action="store_true", help=plots_help)


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """The options every report takes, checked before any file is read."""
    return dict(
        zero_division=zero_division(args.zero_division),
        tolerance=number(args.tolerance, "--tolerance", 0.0),
        alpha=number(args.alpha, "--alpha", 0.0, 1.0, low_open=True),
        max_fold_rows=integer(args.max_fold_rows, "--max-fold-rows", 0),
        plots=not args.no_plots,
    )


def _dims(args: argparse.Namespace, frame: Any) -> tuple[Any, list[str] | None]:
    """The frame with ``--model-col`` as its ``model`` column, and the dims to keep."""
    cols = list(frame.columns)
    model = args.model_col
    if model is not None:
        if model not in cols:
            raise UserError(
                f"{args.predictions!r} has no column --model-col {model!r}; its columns "
                f"are {listing(cols)}."
            )
        if model != "model":
            if "model" in cols:
                raise UserError(
                    f"--model-col {model!r}: {args.predictions!r} also has a column 'model'; "
                    "name one of them with --model-col, or rename the other."
                )
            frame = frame.rename(columns={model: "model"})
    if args.dims is None:
        return frame, None
    given = [x.strip() for x in args.dims.split(",")]
    if not all(given):
        raise UserError(
            f"--dims {args.dims!r} must be a comma-separated list of columns, e.g. "
            "--dims dataset,param."
        )
    missing = [d for d in given if d not in frame.columns]
    if missing:
        raise UserError(
            f"--dims: {args.predictions!r} has no column {listing(missing)}; its columns "
            f"are {listing(cols)}."
        )
    own = set(columns(args).values())
    taken = [d for d in given if d in own or str(d).startswith("score_")]
    if taken:
        raise UserError(
            f"--dims {listing(taken)}: already read as the fold, repeat, label or score "
            "columns; name other columns."
        )
    auto = [d for d in FRAME_DIMS if d in frame.columns]
    return frame, list(dict.fromkeys(auto + given))


def run(args: argparse.Namespace) -> int:
    """Handler of ``cvframe report``."""
    opts = _options(args)
    steps = Steps(4 if args.out else 3, "cvframe report", progress(args))
    try:
        return _run(args, opts, steps)
    finally:
        steps.close()


def _run(args: argparse.Namespace, opts: dict[str, Any], steps: Steps) -> int:
    steps.step("reading")
    data = _text_output(args.predictions, args.format_in)
    if data is None:
        frame = read_frame(args.predictions)
        data = _from_tool(frame, args.format_in)
    else:
        frame = data
    if isinstance(data, xr.Dataset):  # a per-fold count table (WEKA's Experimenter)
        tool = data.attrs.get("source", "")
        data.attrs["source"] = os.path.basename(args.predictions) + (f" ({tool})" if tool else "")
        return _write(args, data, opts, steps)
    if data is not None:  # a tool's per-sample output, read into cvframe's own columns
        frame = data
        args = argparse.Namespace(**(vars(args) | {f"{c}_col": c for c in COLUMNS}))
        if args.pos_label is None and frame.attrs.get("pos_label") is not None:
            args.pos_label = str(frame.attrs["pos_label"])
    if multilabel_names(frame, args.y_true_col):  # <y_true>_<label>, <y_pred>_<label> columns
        return _multilabel(args, frame, opts, steps)
    given = columns(args)
    cols = {OPTIONS[c]: given[c] for c in ("fold", "y_true", "y_pred")}
    missing = [f"{opt} {col!r}" for opt, col in cols.items() if col not in frame.columns]
    if missing:
        raise UserError(
            f"{args.predictions!r} has no column {', '.join(missing)}; its columns "
            f"are {listing(frame.columns)} (name yours with --fold-col, "
            "--y-true-col, --y-pred-col)."
        )
    repeat = _repeat(args, frame)
    frame, dims = _dims(args, frame)
    truth = frame[args.y_true_col]
    pos_label = label(args.pos_label, truth)
    classes = labels(args.labels, truth)
    steps.step("counting")
    ds = frame.cv.counts(
        labels=classes,
        pos_label=pos_label,
        y_true=args.y_true_col,
        y_pred=args.y_pred_col,
        fold=args.fold_col,
        repeat=repeat,
        dims=dims,
    )
    ds.attrs["source"] = os.path.basename(args.predictions)
    binary = ds.attrs.get("task") == "binary"
    per_class = any(str(c).startswith("score_") for c in frame.columns)
    has_scores = args.score_col in frame.columns if binary else per_class
    if not binary and not per_class and args.score_col in frame.columns:
        warnings.warn(
            f"--score-col {args.score_col!r} scores one class, but this report is "
            f"one-vs-all over {ds.sizes['class']} classes: no AUC table (it needs "
            "a score_<label> column per class, or --pos-label for a binary report).",
            UserWarning,
            stacklevel=2,
        )
    if has_scores and classes is not None and not binary:
        keep = {f"score_{c}" for c in classes}
        frame = frame.drop(
            columns=[c for c in frame.columns if str(c).startswith("score_") and c not in keep]
        )
    if data is not None:
        ds.attrs["source"] = f"{ds.attrs['source']} ({frame.attrs.get('source', 'cvframe')})"
    return _write(args, ds, _kwargs(opts, args, frame if has_scores else None, repeat), steps)


def _multilabel(args: argparse.Namespace, frame: Any, opts: dict[str, Any], steps: Steps) -> int:
    """A multilabel file: one ``<y-true-col>_<label>`` and ``<y-pred-col>_<label>`` 0/1 column
    per label (and ``<score-col>_<label>`` scores), as ``cvframe.cross_validate`` writes it."""
    for opt, given in (("--pos-label", args.pos_label), ("--labels", args.labels)):
        if given is not None:
            raise UserError(
                f"{opt} is for single-label files; {args.predictions!r} is multilabel "
                f"({args.y_true_col}_<label> columns): every label is reported one-vs-rest "
                "(to report fewer labels, drop their columns)."
            )
    if args.fold_col not in frame.columns:
        raise UserError(
            f"{args.predictions!r} has no column --fold-col {args.fold_col!r}; its columns are "
            f"{listing(frame.columns)}."
        )
    repeat = _repeat(args, frame)
    frame, dims = _dims(args, frame)
    steps.step("counting")
    cols = {"y_true": args.y_true_col, "y_pred": args.y_pred_col, "fold": args.fold_col}
    ds = frame.cv.counts(**cols, repeat=repeat, dims=dims)
    ds.attrs["source"] = os.path.basename(args.predictions)
    scored = any(str(c).startswith(f"{args.score_col}_") for c in frame.columns)
    return _write(args, ds, _kwargs(opts, args, frame if scored else None, repeat), steps)


def _repeat(args: argparse.Namespace, frame: Any) -> str | None:
    """The repeat column: ``--repeat-col`` when the file has it (its default may be absent)."""
    repeat = args.repeat_col if args.repeat_col in frame.columns else None
    if args.repeat_col != "repeat" and repeat is None:
        raise UserError(
            f"{args.predictions!r} has no column --repeat-col {args.repeat_col!r}; its columns "
            f"are {listing(frame.columns)}."
        )
    return repeat


def _kwargs(
    opts: dict[str, Any], args: argparse.Namespace, scores: Any, repeat: str | None
) -> dict[str, Any]:
    """The report's arguments: the options, the frame with scores (or None) and its columns."""
    cols = {"y_true": args.y_true_col, "fold": args.fold_col, "score": args.score_col}
    return dict(opts, scores=scores, repeat=repeat, **cols)


def _text_output(path: str, format_in: str | None) -> Any:
    """A tool's text output that is no CSV (WEKA's ``-p`` predictions), read; else None."""
    from .. import readers

    fmt = format_in or readers.sniff(path)
    table = os.path.splitext(path)[1].lower() in (".csv", ".parquet", ".pq")
    if fmt in (None, "cvframe") or (table and fmt != "weka-predictions"):  # WEKA's CSV: a preamble
        return None
    try:
        return readers.read(path, format=fmt)
    except readers.ReaderError as exc:
        raise UserError(re.sub(r"\bformat=", "--format-in ", str(exc))) from None


def _from_tool(frame: Any, format_in: str | None) -> Any:
    """A tool's output read by :mod:`cvframe.readers`, or None for a cvframe frame."""
    from .. import readers

    try:
        if format_in is None:
            found = readers.formats_of(frame)
            if len(found) > 1:
                readers.detect(frame)  # raises: mixed tools in one file
            if not found or found == ["cvframe"]:
                return None  # read as before, with --fold-col, --y-true-col, ...
            format_in = found[0]
        if format_in == "cvframe":
            return None
        return readers.read(frame, format=format_in)
    except readers.ReaderError as exc:  # the readers' format= is this command's --format-in
        text = re.sub(r"\bformat=(?=')", "--format-in ", str(exc))
        raise UserError(re.sub(r"\bformat=", "--format-in", text)) from None


def _write(args: argparse.Namespace, ds: Any, kwargs: dict[str, Any], steps: Steps) -> int:
    """Print the report of ``ds``, or write it and the cube to ``--out``."""
    from ..report import report

    steps.step("report")
    if args.out is None:
        text = report(ds, format=args.format, title=args.title, **kwargs)
        steps.close()
        sys.stdout.write(text)
        return 0
    import matplotlib

    matplotlib.use("Agg")
    out = out_dir(args.out)
    ext = {"text": "txt", "json": "json", "html": "html"}[args.format]
    path = os.path.join(out, f"report.{ext}")
    text = report(ds, format=args.format, title=args.title, **kwargs)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    steps.step("writing counts.nc")
    cube = os.path.join(out, "counts.nc")
    from ..io import prepare_for_write

    prepare_for_write(ds).to_netcdf(cube)
    steps.close()
    print(f"wrote {path} and {cube}")
    return 0
