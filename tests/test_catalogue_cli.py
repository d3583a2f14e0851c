"""Catalogue of unusual inputs to the command line, one row per case.

A user error exits 2 with ONE line on stderr, in the command line's words (``--pos-label``,
``--labels a,b``, ``--fold-col``; never ``pos_label=``, ``labels=[...]`` or other Python
keyword or list syntax, never a traceback, and never an option its subcommand does not
have), for every subcommand: ``report``, ``explain``, ``simulate``, ``demo``. Inputs that
are unusual but legitimate give the numbers the library gives (checked against
scikit-learn). Most rows run in process through ``cvframe.cli.main``; a few run
``python -m cvframe`` in a subprocess.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import f1_score

from cvframe import cli

ENV = dict(os.environ, MPLBACKEND="Agg", CVFRAME_PROGRESS="0")

#: Library words that must never reach a user of the command line.
PYTHON_WORDS = re.compile(
    r"pos_label|(?<![-\w'\"])(labels|y_true|y_pred|fold|repeat|score|zero_division|"
    r"sample_weight)=|\.astype\(|df\[|Traceback"
)


def _frame(n: int = 200, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = y + rng.normal(0, 0.7, n)
    return pd.DataFrame(
        {"fold": np.arange(n) % 5, "y_true": y, "y_pred": (s > 0.5).astype(int), "score": s}
    )


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("catalogue")
    df = _frame()
    out: dict[str, str] = {}

    def csv(name: str, frame: pd.DataFrame) -> None:
        out[name] = str(d / f"{name}.csv")
        frame.to_csv(out[name], index=False)

    csv("ok", df)
    csv("no_y_true", df.drop(columns="y_true"))
    csv("no_y_pred", df.drop(columns="y_pred"))
    csv("no_fold", df.drop(columns="fold"))
    strings = df.assign(
        y_true=np.where(df.y_true == 1, "spam", "ham"),
        y_pred=np.where(df.y_pred == 1, "spam", "ham"),
    )
    csv("strings", strings)
    nan_true = df.astype({"y_true": float})
    nan_true.loc[3, "y_true"] = np.nan
    csv("nan_true", nan_true)
    nan_pred = df.astype({"y_pred": float})
    nan_pred.loc[4, "y_pred"] = np.nan
    csv("nan_pred", nan_pred)
    nan_fold = df.astype({"fold": float})
    nan_fold.loc[2, "fold"] = np.nan
    csv("nan_fold", nan_fold)
    mixed = df.astype({"y_true": object})
    mixed.loc[3, "y_true"] = "cat"
    csv("mixed", mixed)
    csv("uint64_fold", df.assign(fold=np.uint64(2**63) + df.fold.to_numpy().astype(np.uint64)))
    out["uint64_parquet"] = str(d / "uint64_fold.parquet")
    df.assign(fold=np.uint64(2**63) + df.fold.to_numpy().astype(np.uint64)).to_parquet(
        out["uint64_parquet"]
    )
    hashed = {0: -8070450532247928832, 1: 123456789012345678, 2: -1, 3: 9223372036854775807, 4: 42}
    csv("hashed_fold", df.assign(fold=df.fold.map(hashed)))
    csv("hex_fold", df.assign(fold=df.fold.map(lambda f: f"{(f + 1) * 0x9E3779B97F4A7C15:x}")))
    for name, value in (("nan_score", np.nan), ("inf_score", np.inf)):
        bad = df.copy()
        bad.loc[5, "score"] = value
        csv(name, bad)
    text_score = df.astype({"score": object})
    text_score.loc[5, "score"] = "high"
    csv("text_score", text_score)
    k = np.arange(90)
    csv("multiclass", pd.DataFrame({"fold": k % 3, "y_true": k % 3, "y_pred": (k // 2) % 3}))
    # fold 0 has no predicted positives: precision undefined there
    undefined = df.copy()
    undefined.loc[undefined.fold == 0, "y_pred"] = 0
    csv("undefined", undefined)
    out["empty"] = str(d / "empty.csv")
    open(out["empty"], "w").close()
    out["header_only"] = str(d / "header_only.csv")
    with open(out["header_only"], "w") as fh:
        fh.write("fold,y_true,y_pred\n")
    out["junk_csv"] = str(d / "junk.csv")
    with open(out["junk_csv"], "wb") as fh:
        fh.write(bytes(range(256)) * 10)
    out["junk_parquet"] = str(d / "junk.parquet")
    with open(out["junk_parquet"], "wb") as fh:
        fh.write(b"this is not parquet at all")
    out["dup_parquet"] = str(d / "dup.parquet")
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(
        pa.Table.from_arrays(
            [pa.array(df[c]) for c in df.columns], names=["fold", "y_true", "y_pred", "y_true"]
        ),
        out["dup_parquet"],
    )
    out["txt"] = str(d / "preds.txt")
    df.to_csv(out["txt"], index=False)
    out["dir"] = str(d)
    csv(
        "two_model_cols",
        df.assign(clf=np.where(np.arange(len(df)) % 2, "a", "b"), model="x"),
    )
    out["cube"] = str(d / "cube.nc")
    from cvframe.io import prepare_for_write

    prepare_for_write(df.cv.counts()).to_netcdf(out["cube"])
    out["missing"] = str(d / "nope.csv")
    return out


def _argv(argv: list[str], files: dict[str, str]) -> list[str]:
    return [a.format(**files) for a in argv]


#: Keyword syntax (``name=value``, ``--opt=value``); the debug hint is the one exception.
KEYWORD = re.compile(r"[A-Za-z_]\w*=")
#: A half-open interval; a closed one reads as a Python list and is not allowed.
INTERVAL = re.compile(r"\(\s*[-\w.+]+,\s*[-\w.+]+\s*\]|\[\s*[-\w.+]+,\s*[-\w.+]+\s*\)")


def _options_of() -> dict[str | None, set[str]]:
    """Every option of each subcommand (None: the top-level parser)."""
    parser, subs = cli._build()
    out: dict[str | None, set[str]] = {None: set(parser._option_string_actions)}
    for name, p in subs.items():
        out[name] = set(p._option_string_actions)
    return out


OPTIONS_OF = _options_of()


def _one_error_line(err: str, command: str | None = None, argv: list[str] = ()) -> str:
    """The one line of a user error, checked: CLI words only, options that exist (or that
    the user typed: ``unrecognized arguments: --bogus``)."""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    line = lines[0]
    assert line.startswith("cvframe"), line
    assert not PYTHON_WORDS.search(line), line
    assert not KEYWORD.search(line.replace("CVFRAME_DEBUG=1", "")), line
    no_intervals = INTERVAL.sub("", line)  # (0, 1] and [0, 1) are mathematics
    assert "[" not in no_intervals and "]" not in no_intervals, line
    known = OPTIONS_OF.get(command, OPTIONS_OF[None]) | set(argv)
    for opt in re.findall(r"(?<![\w-])--[a-z][\w-]*", line):
        assert opt in known, f"{opt} is no option of {command}: {line}"
    return line


def _command(argv: list[str]) -> str | None:
    return argv[0] if argv and argv[0] in OPTIONS_OF else None


# (case, argv, words the one line must contain)
ERRORS = [
    # --- report: files ---
    ("missing file", ["report", "{missing}"], ["does not exist"]),
    ("a directory", ["report", "{dir}"], ["is a directory"]),
    ("unknown extension", ["report", "{txt}"], ["unknown format '.txt'"]),
    ("empty csv", ["report", "{empty}"], ["cannot read", "empty.csv"]),
    ("header only", ["report", "{header_only}"], ["has no rows"]),
    ("unreadable csv", ["report", "{junk_csv}"], ["cannot read", "junk.csv"]),
    ("unreadable parquet", ["report", "{junk_parquet}"], ["cannot read", "junk.parquet"]),
    ("duplicated columns", ["report", "{dup_parquet}"], ["dup.parquet", "y_true"]),
    # --- report: columns ---
    ("no y_true column", ["report", "{no_y_true}"], ["--y-true-col 'y_true'"]),
    ("no y_pred column", ["report", "{no_y_pred}"], ["--y-pred-col 'y_pred'"]),
    ("no fold column", ["report", "{no_fold}"], ["--fold-col 'fold'"]),
    (
        "renamed fold column missing",
        ["report", "{ok}", "--fold-col", "split"],
        ["--fold-col 'split'"],
    ),
    ("no repeat column", ["report", "{ok}", "--repeat-col", "rep"], ["--repeat-col 'rep'"]),
    ("no model column", ["report", "{ok}", "--model-col", "clf"], ["--model-col 'clf'"]),
    (
        "--model-col next to a model column",
        ["report", "{two_model_cols}", "--model-col", "clf"],
        ["--model-col 'clf'", "'model'"],
    ),
    ("--dims names no column", ["report", "{ok}", "--dims", "nope"], ["--dims", "'nope'"]),
    ("--dims empty item", ["report", "{ok}", "--dims", "model,"], ["--dims 'model,'"]),
    ("--dims names the labels", ["report", "{ok}", "--dims", "y_true"], ["--dims", "'y_true'"]),
    # --- report: labels ---
    ("string labels without --pos-label", ["report", "{strings}"], ["--pos-label", "ham", "spam"]),
    (
        "--pos-label not a class",
        ["report", "{strings}", "--pos-label", "eggs"],
        ["--pos-label", "eggs"],
    ),
    (
        "--pos-label not a class (int labels)",
        ["report", "{ok}", "--pos-label", "7"],
        ["--pos-label", "7"],
    ),
    (
        "--pos-label for a multiclass file",
        ["report", "{multiclass}", "--pos-label", "1"],
        ["--pos-label"],
    ),
    ("NaN in y_true", ["report", "{nan_true}"], ["--y-true-col 'y_true'", "missing"]),
    ("NaN in y_pred", ["report", "{nan_pred}"], ["--y-pred-col 'y_pred'", "missing"]),
    ("NaN fold id", ["report", "{nan_fold}"], ["--fold-col 'fold'", "missing"]),
    ("mixed label types", ["report", "{mixed}"], ["--y-true-col", "cat"]),
    ("NaN score", ["report", "{nan_score}"], ["--score-col 'score'", "nan"]),
    ("inf score", ["report", "{inf_score}"], ["--score-col 'score'", "inf"]),
    ("non-numeric score", ["report", "{text_score}"], ["--score-col 'score'"]),
    (
        "--labels missing a class",
        ["report", "{multiclass}", "--labels", "0,1"],
        ["--labels 0,1", "(2)"],
    ),
    ("--labels empty item", ["report", "{ok}", "--labels", "0,"], ["--labels '0,'"]),
    ("--labels twice the same", ["report", "{ok}", "--labels", "0,0"], ["--labels", "once"]),
    # --- report: options ---
    ("--out is a file", ["report", "{ok}", "--out", "{ok}"], ["exists and is not a directory"]),
    (
        "bad --zero-division",
        ["report", "{ok}", "--zero-division", "7"],
        ["--zero-division '7'", "warn, 0, 1, nan"],
    ),
    (
        "bad --zero-division word",
        ["report", "{ok}", "--zero-division", "zero"],
        ["--zero-division 'zero'"],
    ),
    ("bad --alpha", ["report", "{ok}", "--alpha", "0"], ["--alpha '0'"]),
    ("bad --tolerance", ["report", "{ok}", "--tolerance", "-1"], ["--tolerance '-1'"]),
    ("bad --max-fold-rows", ["report", "{ok}", "--max-fold-rows", "-1"], ["--max-fold-rows"]),
    ("text --max-fold-rows", ["report", "{ok}", "--max-fold-rows", "x"], ["--max-fold-rows 'x'"]),
    ("bad --format", ["report", "{ok}", "--format", "pdf"], ["--format", "'pdf'"]),
    ("bad --format-in", ["report", "{ok}", "--format-in", "spss"], ["--format-in", "'spss'"]),
    ("--format-in caret on cvframe", ["report", "{ok}", "--format-in", "caret"], ["caret"]),
    ("--format-in mlr3 on cvframe", ["report", "{ok}", "--format-in", "mlr3"], ["mlr3"]),
    ("--format-in weka on cvframe", ["report", "{ok}", "--format-in", "weka"], ["WEKA"]),
    (
        "--format-in sklearn on cvframe",
        ["report", "{ok}", "--format-in", "sklearn"],
        ["scikit-learn"],
    ),
    (
        "--format-in tidymodels on cvframe",
        ["report", "{ok}", "--format-in", "tidymodels"],
        ["tidymodels"],
    ),
    (
        "unknown report option",
        ["report", "{ok}", "--bogus"],
        ["unrecognized arguments: --bogus", "cvframe report --help"],
    ),
    ("missing PREDICTIONS", ["report"], ["PREDICTIONS"]),
    # --- top level ---
    ("unknown subcommand", ["frobnicate"], ["invalid choice: 'frobnicate'"]),
    ("unknown top-level option", ["--bogus"], ["--bogus"]),
    # --- explain ---
    ("explain: missing file", ["explain", "{missing}", "--reported", "0.5"], ["does not exist"]),
    ("explain: no --reported", ["explain", "{ok}"], ["--reported"]),
    ("explain: --reported text", ["explain", "{ok}", "--reported", "abc"], ["--reported 'abc'"]),
    ("explain: --reported negative", ["explain", "{ok}", "--reported", "-3"], ["--reported"]),
    (
        "explain: --digits text",
        ["explain", "{ok}", "--reported", "0.5", "--digits", "x"],
        ["--digits 'x'"],
    ),
    (
        "explain: --digits negative",
        ["explain", "{ok}", "--reported", "0.5", "--digits", "-2"],
        ["--digits"],
    ),
    (
        "explain: --beta negative",
        ["explain", "{ok}", "--reported", "0.5", "--beta", "-1"],
        ["--beta '-1'"],
    ),
    (
        "explain: bad --metric",
        ["explain", "{ok}", "--reported", "0.5", "--metric", "kappa_w"],
        ["--metric", "'kappa_w'"],
    ),
    (
        "explain: --pos-label not a class",
        ["explain", "{ok}", "--reported", "0.5", "--pos-label", "7"],
        ["--pos-label", "7"],
    ),
    (
        "explain: auc without scores",
        ["explain", "{multiclass}", "--reported", "0.5", "--metric", "auc"],
        ["--metric 'auc'", "score"],
    ),
    (
        "explain: --format-in caret on cvframe",
        ["explain", "{ok}", "--reported", "0.5", "--format-in", "caret"],
        ["caret"],
    ),
    (
        "explain: --format-in on a cube",
        ["explain", "{cube}", "--reported", "0.5", "--format-in", "caret"],
        ["--format-in caret"],
    ),
    # --- simulate ---
    ("simulate --k 1", ["simulate", "--quiet", "--trials", "10", "--k", "1"], ["--k 1"]),
    (
        "simulate --k above --n",
        ["simulate", "--quiet", "--trials", "10", "--n", "5"],
        ["--k 10", "--n 5"],
    ),
    (
        "simulate --unstratified --both",
        ["simulate", "--unstratified", "--both"],
        ["--unstratified", "--both"],
    ),
    (
        "simulate --out is a file",
        ["simulate", "--quiet", "--trials", "10", "--out", "{ok}"],
        ["exists and is not a directory"],
    ),
    ("simulate --trials 0", ["simulate", "--no-progress", "--trials", "0"], ["--trials 0"]),
    ("simulate --trials text", ["simulate", "--trials", "many"], ["--trials", "'many'"]),
    (
        "simulate --prevalence 0",
        ["simulate", "--quiet", "--trials", "10", "--prevalence", "0"],
        ["--prevalence 0"],
    ),
    (
        "simulate --prevalence text",
        ["simulate", "--prevalence", "low"],
        ["--prevalence", "'low'"],
    ),
    ("simulate --f 2", ["simulate", "--quiet", "--trials", "10", "--f", "2"], ["--f 2"]),
    ("simulate --seed -1", ["simulate", "--quiet", "--trials", "10", "--seed", "-1"], ["--seed"]),
    (
        "unknown simulate option",
        ["simulate", "--bogus"],
        ["unrecognized arguments: --bogus", "cvframe simulate --help"],
    ),
    # --- demo (every check comes before the fits) ---
    ("demo --repeats 0", ["demo", "--repeats", "0", "--out", "{dir}"], ["--repeats '0'"]),
    ("demo --repeats text", ["demo", "--repeats", "x", "--out", "{dir}"], ["--repeats 'x'"]),
    ("demo --jobs 0", ["demo", "--jobs", "0", "--out", "{dir}"], ["--jobs '0'"]),
    ("demo --out is a file", ["demo", "--out", "{ok}"], ["exists and is not a directory"]),
    (
        "demo --max-fold-rows -1",
        ["demo", "--max-fold-rows", "-1", "--out", "{dir}"],
        ["--max-fold-rows '-1'"],
    ),
    ("unknown demo option", ["demo", "--bogus"], ["unrecognized arguments: --bogus"]),
]


@pytest.mark.parametrize("argv, words", [r[1:] for r in ERRORS], ids=[r[0] for r in ERRORS])
def test_user_error_is_one_line_in_cli_words(files, argv, words, capsys):
    assert cli.main(_argv(argv, files)) == 2
    line = _one_error_line(capsys.readouterr().err, _command(argv), argv)
    for w in words:
        assert w in line, line


#: A few rows end to end in a subprocess (the rest: the same code path, in process).
SUBPROCESS = ["string labels without --pos-label", "unknown report option"]


@pytest.mark.parametrize(
    "argv, words",
    [r[1:] for r in ERRORS if r[0] in SUBPROCESS],
    ids=[r[0] for r in ERRORS if r[0] in SUBPROCESS],
)
def test_user_error_in_a_subprocess(files, argv, words):
    res = subprocess.run(
        [sys.executable, "-m", "cvframe", *_argv(argv, files)],
        capture_output=True,
        text=True,
        timeout=300,
        env=ENV,
    )
    assert res.returncode == 2, (res.stdout, res.stderr)
    line = _one_error_line(res.stderr, _command(argv), argv)
    for w in words:
        assert w in line, line


def test_permission_denied_is_one_line(files, capsys, monkeypatch):
    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setitem(cli._common.READERS, ".csv", denied)
    assert cli.main(["report", files["ok"]]) == 2
    assert "permission denied" in _one_error_line(capsys.readouterr().err, "report")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file_is_one_line(files, tmp_path, capsys):
    path = tmp_path / "locked.csv"
    _frame().to_csv(path, index=False)
    path.chmod(0)
    try:
        assert cli.main(["report", str(path)]) == 2
    finally:
        path.chmod(0o600)
    assert "cannot read" in _one_error_line(capsys.readouterr().err, "report")


# --- unusual but legitimate: the numbers of the library ------------------------------------


def _json_report(capsys, *argv: str) -> dict:
    assert cli.main(["report", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("name", ["uint64_fold", "uint64_parquet", "hashed_fold", "hex_fold"])
def test_fold_ids_of_any_width(files, name, capsys):
    """uint64 ids >= 2**63, hashed signed ids and hex strings: 5 folds, the same numbers."""
    out = _json_report(capsys, files[name])
    df = _frame()
    assert out["dims"]["fold"] == 5
    assert out["methods"][0]["f_tp_fp"] == pytest.approx(f1_score(df.y_true, df.y_pred))
    per_fold = [f1_score(g.y_true, g.y_pred) for _, g in df.groupby("fold")]
    assert out["methods"][0]["f_avg"] == pytest.approx(np.mean(per_fold))
    assert {row["fold"] for row in out["per_fold"]} == set(
        pd.read_parquet(files[name]).fold
        if name.endswith("parquet")
        else pd.read_csv(files[name]).fold
    )


@pytest.mark.parametrize("dtype", [bool, float])
def test_bool_and_float_labels_score_like_counts(dtype, tmp_path, capsys):
    """True/False and 0.0/1.0 labels: the positive class (True, 1.0) in counts and AUC alike."""
    from sklearn.metrics import roc_auc_score

    df = _frame().astype({"y_true": dtype, "y_pred": dtype})
    path = tmp_path / "labels.csv"
    df.to_csv(path, index=False)
    out = _json_report(capsys, str(path))
    assert out["attrs"]["pos_label"] == dtype(1) and type(out["attrs"]["pos_label"]) is dtype
    assert out["methods"][0]["f_tp_fp"] == pytest.approx(f1_score(df.y_true, df.y_pred))
    assert out["auc"][0]["auc_merge"] == pytest.approx(roc_auc_score(df.y_true, df.score))


def test_pos_label_for_string_labels(files, capsys):
    out = _json_report(capsys, files["strings"], "--pos-label", "spam")
    df = pd.read_csv(files["strings"])
    assert out["attrs"]["pos_label"] == "spam"
    assert out["methods"][0]["f_tp_fp"] == pytest.approx(
        f1_score(df.y_true, df.y_pred, pos_label="spam")
    )


def test_labels_gives_a_one_vs_all_report(files, capsys):
    """--labels a,b: both classes, in that order, each F equal to scikit-learn's."""
    assert cli.main(["report", files["strings"], "--labels", "spam,ham", "--format", "json"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    df = pd.read_csv(files["strings"])
    assert [m["class"] for m in out["methods"]] == ["spam", "ham"]
    expected = f1_score(df.y_true, df.y_pred, labels=["spam", "ham"], average=None)
    assert [m["f_tp_fp"] for m in out["methods"]] == pytest.approx(expected)
    # the binary score column cannot score two classes: said in one line, not dropped silently
    warning = captured.err.strip().splitlines()
    assert len(warning) == 1 and "--score-col 'score'" in warning[0]
    assert "no AUC table" in warning[0] and out["auc"] is None


def test_labels_orders_a_multiclass_report(files, capsys):
    out = _json_report(capsys, files["multiclass"], "--labels", "2,0,1")
    assert [m["class"] for m in out["methods"]] == [2, 0, 1]


def test_zero_division_warn_is_one_warning_line(files, capsys):
    assert cli.main(["report", files["undefined"], "--zero-division", "warn"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("cvframe report: warning:") and "undefined" in err[0]
    assert "--zero-division" in err[0] and not PYTHON_WORDS.search(err[0])


def test_explicit_zero_division_is_silent(files, capsys):
    assert cli.main(["report", files["undefined"], "--zero-division", "0"]) == 0
    assert capsys.readouterr().err == ""


def test_translate_rewrites_arguments_as_options():
    from cvframe.cli._common import translate

    opts = {
        "pos_label": "--pos-label",
        "labels": "--labels",
        "y_true": "--y-true-col",
        "fold": "--fold-col",
        "zero_division": "--zero-division",
        "dims": "--dims",
    }
    cols = {"y_true": "label", "fold": "split"}
    assert (
        translate("pos_label=3 is not among the labels [0, 1]; pass one of them.", opts, cols)
        == "--pos-label 3 is not among the labels (0, 1); pass one of them."
    )
    assert translate("or labels=['a', 'b'] for both", opts, cols) == "or --labels a,b for both"
    assert translate("dims=('model', 'seed') kept", opts) == "--dims model,seed kept"
    # a dimension naming a place stays a place, in words; the column argument is its option
    assert (
        translate("fp is negative at fold=[1, 3]; fold='split' is not a column", opts, cols)
        == "fp is negative at fold 1, 3; --fold-col 'split' is not a column"
    )
    assert translate("at repeat=2, class='cat'", opts) == "at repeat 2, class 'cat'"
    assert (
        translate("y_true has missing labels [nan]", opts, cols)
        == "--y-true-col 'label' has missing labels (nan)"
    )
    assert translate("labels has duplicated entries [0]", opts) == (
        "--labels has duplicated entries (0)"
    )
    assert translate("no classes []", opts) == "no classes (none)"
    # hints in Python are left out; the error itself stays
    assert (
        translate(
            "mixed types; use one type (e.g. y.astype(str)). Convert with df['y'].astype(str).",
            opts,
            cols,
        )
        == "mixed types; use one type."
    )
    assert (
        translate("not caret's (cvframe.readers.read detects the format).", opts) == "not caret's."
    )
    assert translate("Pass zero_division= explicitly.", opts) == "Pass --zero-division explicitly."
    # the comparison operator is no keyword
    assert translate("needs n >= 2", opts) == "needs n >= 2"


def test_an_unexpected_error_is_still_one_line(files, capsys, monkeypatch):
    """A bug met on a user's file: one line naming the error, exit 2, no traceback."""

    def boom(*args, **kwargs):
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(cli.report, "read_frame", boom)
    monkeypatch.delenv("CVFRAME_DEBUG", raising=False)
    assert cli.main(["report", files["ok"]]) == 2
    line = _one_error_line(capsys.readouterr().err, "report")
    assert "unexpected RuntimeError: boom" in line and "CVFRAME_DEBUG=1" in line
    monkeypatch.setenv("CVFRAME_DEBUG", "1")
    with pytest.raises(RuntimeError, match="boom"):
        cli.main(["report", files["ok"]])
