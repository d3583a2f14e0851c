"""The command line end to end: `python -m cvframe ...` in a subprocess (success paths and user
errors: exit code 2, one line on stderr, no traceback) and `main(argv)` in process."""

from __future__ import annotations

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


def test_report_json_from_parquet(predictions):
    res = run("report", predictions["parquet"], "--format", "json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["methods"][0]["f_tp_fp"] == pytest.approx(
        predictions["df"].cv.counts().cv.f_tp_fp(zero_division=0.0).item()
    )
    assert out["auc"][0]["auc_avg"] > 0.8


def test_report_html_to_out_dir(predictions, tmp_path):
    out = tmp_path / "out"
    res = run(
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
    )
    assert res.returncode == 0, res.stderr
    html = (out / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "data:image/png;base64," in html
    cube = cvframe.open_dataset(out / "counts.nc")
    assert cube.attrs["pos_label"] == "spam" and cube.sizes["fold"] == 5


def test_help_and_version():
    res = run("--help")
    assert res.returncode == 0 and "demo" in res.stdout and "report" in res.stdout
    res = run("report", "--help")
    assert res.returncode == 0 and "--fold-col" in res.stdout
    assert run("--version").stdout.startswith("cvframe ")


USER_ERRORS = [
    (["report", "/nonexistent/preds.csv"], "does not exist"),
    (["report", "{csv}", "--fold-col", "nope"], "has no column --fold-col 'nope'"),
    (["report", "{csv}", "--repeat-col", "rep"], "has no column --repeat-col 'rep'"),
    (["report", "{txt}"], "unknown format '.txt'"),
    (["report", "{csv}", "--format", "pdf"], "invalid choice: 'pdf'"),
    (["report", "{csv}", "--zero-division", "7"], "--zero-division='7' is not valid"),
    (["report", "{csv}", "--tolerance", "abc"], "--tolerance='abc' is not a number"),
    (["report", "{csv}", "--alpha", "1.5"], "--alpha='1.5' must be a finite number"),
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


# end to end in a subprocess: the first eight (every kind: file, column, format, numbers,
# unreadable, bad labels); the rest in process (same code path, faster)
@pytest.mark.parametrize("argv, message", USER_ERRORS[:8] + USER_ERRORS[8:9] + USER_ERRORS[10:11])
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


def test_demo_in_process(tmp_path, monkeypatch, capsys):
    """The demo end to end with one repeat (the full run is timed in docs/cli.md)."""
    monkeypatch.setattr(cli.demo, "DEMO_REPEATS", 1)
    out = tmp_path / "demo"
    assert cli.main(["demo", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "f_tp_fp=0.583, f_avg=0.692, f_pr_re=0.734" in text  # Table 1 teaser
    assert "cvframe report: breast_cancer" in text and "cvframe report: digits" in text
    files = sorted(p.name for p in out.iterdir())
    for name in (
        "breast_cancer.nc",
        "digits.nc",
        "report.html",
        "breast_cancer_folds.png",
        "digits_methods.png",
        "digits_confusion.png",
        "breast_cancer_roc.png",
        "breast_cancer_score_rates.png",
        "fold_risk.png",
    ):
        assert name in files
    cube = cvframe.open_dataset(out / "digits.nc")
    assert set(cube.tp.dims) == {"model", "repeat", "fold", "class"}
    assert cube.sizes["class"] == 10 and cube.sizes["model"] == 3
    # the cube written is the cube the report used: F_tp,fp is in the printed report
    f = cube.cv.f_tp_fp(zero_division=0.0).sel(model="logistic").mean("repeat")
    assert f"{float(f.sel({'class': 0})):.4f}" in text


@pytest.mark.parametrize("argv, message", USER_ERRORS[9:10] + USER_ERRORS[11:])
def test_user_errors_in_process(predictions, argv, message, capsys):
    assert cli.main(_argv(argv, predictions)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and "Traceback" not in err[0]
