"""The command line end to end: `python -m cvframe ...` in a subprocess (success paths and user
errors: exit code 2, one line on stderr, no traceback) and `main(argv)` in process."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import cvframe
from cvframe import cli

ENV = dict(os.environ, MPLBACKEND="Agg", CVFRAME_PROGRESS="0")


def run(*args: str, cwd: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cvframe", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=ENV,
        cwd=cwd,
    )


@pytest.fixture(scope="module")
def predictions(tmp_path_factory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("preds")
    rng = np.random.default_rng(0)
    n = 400
    y = rng.integers(0, 2, n)
    score = y + rng.normal(0, 0.7, n)
    df = pd.DataFrame(
        {"fold": np.arange(n) % 5, "y_true": y, "y_pred": (score > 0.5).astype(int), "score": score}
    )
    paths = {"csv": str(d / "preds.csv"), "parquet": str(d / "preds.parquet")}
    df.to_csv(paths["csv"], index=False)
    df.to_parquet(paths["parquet"])
    renamed = df.rename(columns={"fold": "split", "y_true": "label", "y_pred": "guess"})
    renamed["label"] = np.where(renamed["label"] == 1, "spam", "ham")
    renamed["guess"] = np.where(renamed["guess"] == 1, "spam", "ham")
    paths["renamed"] = str(d / "renamed.csv")
    renamed.to_csv(paths["renamed"], index=False)
    paths["nan"] = str(d / "nan.csv")
    bad = df.astype({"y_true": float})
    bad.loc[3, "y_true"] = np.nan
    bad.to_csv(paths["nan"], index=False)
    paths["garbage"] = str(d / "garbage.parquet")
    with open(paths["garbage"], "wb") as fh:
        fh.write(b"this is not parquet at all")
    paths["empty"] = str(d / "empty.csv")
    open(paths["empty"], "w").close()
    paths["txt"] = str(d / "preds.txt")
    df.to_csv(paths["txt"], index=False)
    paths["df"] = df  # type: ignore[assignment]
    return paths


def test_report_text_matches_the_api(predictions):
    res = run("report", predictions["csv"])
    assert res.returncode == 0, res.stderr
    df = predictions["df"]
    f = df.cv.counts().cv.f_tp_fp(zero_division=0.0).item()
    assert f"{f:.4f}" in res.stdout
    assert "AUC_avg" in res.stdout and res.stdout.rstrip().splitlines()[-1].startswith(
        "Recommended: F_tp,fp"
    )


def test_report_json_from_parquet(predictions, capsys):
    assert cli.main(["report", predictions["parquet"], "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["methods"][0]["f_tp_fp"] == pytest.approx(
        predictions["df"].cv.counts().cv.f_tp_fp(zero_division=0.0).item()
    )
    assert out["auc"][0]["auc_avg"] > 0.8


def test_report_html_to_out_dir(predictions, tmp_path, capsys):
    out = tmp_path / "out"
    argv = [
        "report",
        predictions["renamed"],
        "--fold-col",
        "split",
        "--y-true-col",
        "label",
        "--y-pred-col",
        "guess",
        "--pos-label",
        "spam",
        "--format",
        "html",
        "--out",
        str(out),
    ]
    assert cli.main(argv) == 0
    assert "report.html" in capsys.readouterr().out
    html = (out / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "data:image/png;base64," in html
    cube = cvframe.open_dataset(out / "counts.nc")
    assert cube.attrs["pos_label"] == "spam" and cube.sizes["fold"] == 5


def test_help_and_version(capsys):
    assert run("--version").stdout.startswith("cvframe ")
    assert cli.main(["--help"]) == 0
    text = capsys.readouterr().out
    assert "demo" in text and "report" in text
    assert cli.main(["report", "--help"]) == 0
    assert "--fold-col" in capsys.readouterr().out


USER_ERRORS = [
    (["report", "/nonexistent/preds.csv"], "does not exist"),
    (["report", "{csv}", "--fold-col", "nope"], "has no column --fold-col 'nope'"),
    (["report", "{csv}", "--repeat-col", "rep"], "has no column --repeat-col 'rep'"),
    (["report", "{txt}"], "unknown format '.txt'"),
    (["report", "{csv}", "--format", "pdf"], "invalid choice: 'pdf'"),
    (["report", "{csv}", "--zero-division", "7"], "--zero-division '7' is not valid"),
    (["report", "{csv}", "--tolerance", "abc"], "--tolerance 'abc' is not a number"),
    (["report", "{csv}", "--alpha", "1.5"], "--alpha '1.5' must be a finite number > 0 and < 1"),
    (["report", "{garbage}"], "cannot read"),
    (["report", "{empty}"], "cannot read"),
    (["report", "{nan}"], "y_true"),
    (
        [
            "report",
            "{renamed}",
            "--fold-col",
            "split",
            "--y-true-col",
            "label",
            "--y-pred-col",
            "guess",
        ],
        "--pos-label",
    ),
    (
        [
            "report",
            "{renamed}",
            "--fold-col",
            "split",
            "--y-true-col",
            "label",
            "--y-pred-col",
            "guess",
            "--pos-label",
            "eggs",
        ],
        "eggs",
    ),
    (["report", "{csv}", "--out", "{csv}"], "exists and is not a directory"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
]


def _argv(argv, predictions):
    return [a.format(**{k: v for k, v in predictions.items() if k != "df"}) for a in argv]


# end to end in a subprocess: two of them (a file, a bad number); the rest in process below
# (the same code path; tests/test_catalogue_cli.py drives every error path in process)
@pytest.mark.parametrize("argv, message", [USER_ERRORS[0], USER_ERRORS[7]])
def test_user_errors_exit_2_with_one_line(predictions, argv, message):
    res = run(*_argv(argv, predictions))
    assert res.returncode == 2, (res.stdout, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert "Traceback" not in res.stderr
    assert message in lines[0], lines[0]
    assert lines[0].startswith("cvframe")


def test_no_command_prints_help_and_exits_2(capsys):
    assert cli.main([]) == 2
    assert "COMMAND" in capsys.readouterr().out


@pytest.mark.slow(reason="the demo end to end: fits, cubes, report and every figure (~8 s)")
def test_demo_in_process(tmp_path, monkeypatch, capsys):
    """The demo end to end, small (one repeat of 3 folds, digits 0-3 only); the real run is
    timed by benchmarks/bench_demo.py. Every file the demo writes, and the printed report."""
    monkeypatch.setattr(cli.demo, "DEMO_FOLDS", 3)
    monkeypatch.setitem(
        cli.demo.DATA, "digits", ("load_digits", {"n_class": 4}, "digits 0-3 (one-vs-all)")
    )
    out = tmp_path / "demo"
    argv = ["demo", "--out", str(out), "--repeats", "1", "--jobs", "1", "--no-progress"]
    assert cli.main([*argv, "--title", "Demo report"]) == 0
    text = capsys.readouterr().out
    assert "f_tp_fp=0.583, f_avg=0.692, f_pr_re=0.734" in text  # Table 1 teaser
    assert "breast_cancer" in text and "digits" in text
    files = sorted(p.name for p in out.iterdir())
    for name in (
        "breast_cancer.nc",
        "digits.nc",
        "report.html",
        "breast_cancer_folds.png",
        "breast_cancer_methods.png",
        "breast_cancer_confusion.png",
        "digits_folds.png",
        "digits_methods.png",
        "digits_confusion.png",
        "breast_cancer_roc.png",
        "breast_cancer_score_rates.png",
        "fold_risk.png",
    ):
        assert name in files, files
    for name in files:
        if name.endswith(".png"):
            assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
    # the PNG files are the report's own images (drawn once), where the report has them
    page = (out / "report.html").read_text()
    for name in ("breast_cancer_folds.png", "digits_methods.png", "digits_roc.png"):
        assert base64.b64encode((out / name).read_bytes()).decode() in page, name
    cube = cvframe.open_dataset(out / "digits.nc")
    assert set(cube.tp.dims) == {"model", "repeat", "fold", "class"}
    assert cube.sizes["class"] == 4 and cube.sizes["model"] == 3 and cube.sizes["fold"] == 3
    # the cube written is the cube the report used: F_tp,fp is in the printed report
    f = cube.cv.f_tp_fp(zero_division=0.0).sel(model="logistic").mean("repeat")
    assert f"{float(f.sel({'class': 0})):.4f}" in text


def test_demo_without_plots(tmp_path, monkeypatch, capsys):
    """--no-plots: the cubes and an HTML report without images, no PNG."""
    monkeypatch.setattr(cli.demo, "DEMO_FOLDS", 2)
    monkeypatch.setitem(cli.demo.DATA, "digits", ("load_digits", {"n_class": 3}, "digits 0-2"))
    out = tmp_path / "demo"
    argv = ["demo", "--out", str(out), "--repeats", "1", "--jobs", "1", "--no-plots"]
    assert cli.main([*argv, "--max-fold-rows", "0"]) == 0
    capsys.readouterr()
    assert sorted(p.name for p in out.iterdir()) == ["breast_cancer.nc", "digits.nc", "report.html"]
    assert "data:image/png" not in (out / "report.html").read_text()


def test_every_help_shows_its_defaults(capsys):
    """Every option with a default shows it in its subcommand's --help."""
    import argparse

    parser, subs = cli._build()
    assert set(subs) == {"demo", "report", "simulate", "explain", "reconcile", "plan"}
    for name, p in subs.items():
        text = " ".join(p.format_help().split())  # unwrapped
        for action in p._actions:
            if action.default in (None, argparse.SUPPRESS) or action.nargs == 0:
                continue
            shown = f"(default: {action.default})"
            assert shown in text, f"cvframe {name} --help: {action.option_strings} {shown}"
    text = " ".join(subs["simulate"].format_help().split())
    assert "(default: 100000)" in text and "(default: 0.01,0.02,0.05,0.1,0.25)" in text


def test_report_model_col_dims_title_and_caps(tmp_path, capsys):
    """--model-col makes a model dim, --dims keeps another column, --title, --max-fold-rows
    and --no-plots reach the report."""
    rng = np.random.default_rng(1)
    n = 240
    y = rng.integers(0, 2, n)
    frames = []
    for clf, noise in (("lr", 0.5), ("nb", 1.0)):
        s = y + rng.normal(0, noise, n)
        frames.append(
            pd.DataFrame(
                {
                    "fold": np.arange(n) % 4,
                    "y_true": y,
                    "y_pred": (s > 0.5).astype(int),
                    "score": s,
                    "clf": clf,
                    "site": np.where(np.arange(n) % 2, "north", "south"),
                }
            )
        )
    df = pd.concat(frames, ignore_index=True)
    path = tmp_path / "two.csv"
    df.to_csv(path, index=False)
    out = tmp_path / "out"
    argv = ["report", str(path), "--model-col", "clf", "--dims", "site", "--no-progress"]
    assert cli.main([*argv, "--format", "json", "--max-fold-rows", "0"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["dims"]["model"] == 2 and got["dims"]["site"] == 2
    renamed = df.rename(columns={"clf": "model"})
    cube = renamed.cv.counts(dims=["model", "site"])
    expected = cube.cv.f_tp_fp(zero_division=0.0)
    f = {(m["model"], m["site"]): m["f_tp_fp"] for m in got["methods"]}
    for m in ("lr", "nb"):
        for site in ("north", "south"):
            want = float(expected.sel(model=m, site=site).squeeze())
            assert f[(m, site)] == pytest.approx(want)
    html_argv = [*argv, "--format", "html", "--title", "Two models", "--no-plots"]
    assert cli.main([*html_argv, "--out", str(out)]) == 0
    capsys.readouterr()
    page = (out / "report.html").read_text()
    assert "Two models" in page and "data:image/png" not in page
    assert cvframe.open_dataset(out / "counts.nc").sizes["model"] == 2


@pytest.mark.parametrize("name", ["csv", "renamed", "nan"])
def test_both_csv_engines_give_the_same_report(predictions, name, monkeypatch, capsys):
    """pyarrow (when installed) and pandas' C engine read the same frame: the same report."""
    pytest.importorskip("pyarrow")
    from cvframe.cli import _common

    path = predictions[name]
    pd.testing.assert_frame_equal(
        _common.read_csv(path, "pyarrow"), _common.read_csv(path, "c"), check_exact=True
    )
    extra = ["--pos-label", "spam", "--y-true-col", "label", "--y-pred-col", "guess"]
    argv = ["report", path, "--format", "json"] + (
        [*extra, "--fold-col", "split"] if name == "renamed" else []
    )
    outs = []
    for engine in ("pyarrow", "c"):
        monkeypatch.setattr(_common, "csv_engine", lambda engine=engine: engine)
        code = cli.main(argv)
        captured = capsys.readouterr()
        outs.append((code, captured.out, captured.err))
    assert outs[0] == outs[1]


def test_pyarrow_falls_back_where_it_reads_differently(tmp_path):
    """Dates stay strings and integers beyond int64 stay uint64, as pandas' C engine reads."""
    pytest.importorskip("pyarrow")
    from cvframe.cli._common import read_csv

    df = pd.DataFrame(
        {
            "fold": np.uint64(2**63) + np.arange(4, dtype=np.uint64),
            "day": ["2020-01-01", "2020-01-02", "2020-01-03", "2020-01-04"],
            "y_true": [0, 1, 0, 1],
        }
    )
    path = tmp_path / "odd.csv"
    df.to_csv(path, index=False)
    got = read_csv(str(path), "pyarrow")
    pd.testing.assert_frame_equal(got, read_csv(str(path), "c"))
    assert got["fold"].dtype == np.uint64 and got["fold"].nunique() == 4


def test_progress_bar_is_forced_or_hidden(predictions, monkeypatch, capsys):
    """CVFRAME_PROGRESS=1 forces the bar on stderr; --no-progress hides it."""
    monkeypatch.setenv("CVFRAME_PROGRESS", "1")
    assert cli.main(["report", predictions["csv"], "--format", "json"]) == 0
    assert "cvframe report" in capsys.readouterr().err
    assert cli.main(["report", predictions["csv"], "--format", "json", "--no-progress"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("argv, message", USER_ERRORS[1:7] + USER_ERRORS[8:])
def test_user_errors_in_process(predictions, argv, message, capsys):
    assert cli.main(_argv(argv, predictions)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and "Traceback" not in err[0]


def test_simulate_takes_precision_and_recall_and_equals_bias_study(capsys):
    argv = ["simulate", "--prevalence", "0.02", "--f", "0.72", "--precision", "0.6"]
    assert cli.main([*argv, "--trials", "500", "--seed", "0", "--no-progress"]) == 0
    out = capsys.readouterr().out
    study = cvframe.bias_study(
        prevalence=0.02, f=0.72, precision=0.6, trials=500, seed=0, progress=False
    )
    f_avg = float(study.rel_bias.sel(estimator="f_avg", stratified=True).squeeze()) * 100
    assert f"{f_avg:+.3f}" in out  # F_avg's exact bias with more false positives
    assert f_avg > 0
    assert cli.main(["simulate", "--precision", "1.5", "--trials", "10"]) == 2
    assert "--precision 1.5" in capsys.readouterr().err
