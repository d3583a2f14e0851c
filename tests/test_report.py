"""The report: text, JSON and self-contained HTML; the HTML renders in headless Chromium."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest

import cvframe
from cvframe.report import RECOMMENDATION, report


def _frame(seed: int = 0, n: int = 240, folds: int = 4, repeats: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n * repeats)
    score = y + rng.normal(0, 0.8, y.size)
    return pd.DataFrame(
        {
            "repeat": np.repeat(np.arange(repeats), n),
            "fold": np.tile(np.arange(n) % folds, repeats),
            "y_true": y,
            "y_pred": (score > 0.5).astype(int),
            "score": score,
        }
    )


def test_text_report_of_table2():
    text = report(cvframe.datasets.table2())
    assert text.startswith("cvframe report: Forman & Scholz 2010, Table 2")
    # the paper's numbers for Table 2
    for value in ("0.7692", "0.6667", "0.6818", "0.8889", "0.9091"):
        assert value in text
    assert "policy: zero_division=0.0" in text
    assert "[fold=1, class=1] undefined_precision: no predicted positives" in text
    assert text.rstrip().splitlines()[-1] == RECOMMENDATION
    assert "F_tp,fp" in RECOMMENDATION and "unbiased" in RECOMMENDATION


def test_text_report_states_the_policy():
    text = report(cvframe.datasets.table2(), zero_division=np.nan)
    assert "zero_division=nan" in text and "is NaN" in text


def test_json_report_is_machine_readable():
    out = json.loads(report(cvframe.datasets.table2(), format="json"))
    assert out["policy"]["zero_division"] == "0.0"
    m = out["methods"][0]
    assert round(m["f_tp_fp"], 3) == 0.769 and round(m["f_pr_re_skip"], 3) == 0.909
    assert [f["kind"] for f in out["findings"]] == ["undefined_precision", "methods_disagree"]
    assert len(out["per_fold"]) == 4 and out["per_fold"][1]["valid"] is False
    assert out["recommendation"] == RECOMMENDATION


def test_json_nan_becomes_null():
    out = report(cvframe.datasets.table2(), format="json", zero_division=np.nan)
    data = json.loads(out)  # strict JSON: no NaN tokens
    assert not re.search(r":\s*-?(NaN|Infinity)", out)
    assert data["per_fold"][1]["precision"] is None


def test_multiclass_class_averages_match_the_slides():
    out = json.loads(report(cvframe.datasets.slides_confusion(), format="json"))
    avg = out["class_averages"][0]
    # evaluation-of-learning slides: macro F1 0.62, micro 0.70, weighted F1 0.68, kappa 0.492
    assert round(avg["macro_f"], 2) == 0.62
    assert round(avg["micro_f"], 2) == 0.70
    assert round(avg["weighted_f"], 2) == 0.68
    assert round(avg["kappa"], 3) == 0.492


def test_auc_table_matches_sklearn():
    from sklearn.metrics import roc_auc_score

    df = _frame(repeats=1).drop(columns="repeat")
    ds = df.cv.counts()
    out = json.loads(report(ds, scores=df, format="json"))
    folds = [roc_auc_score(g.y_true, g.score) for _, g in df.groupby("fold")]
    assert out["auc"][0]["auc_avg"] == pytest.approx(np.mean(folds))
    assert out["auc"][0]["auc_merge"] == pytest.approx(roc_auc_score(df.y_true, df.score))
    assert "AUC_avg" in report(ds, scores=df)


def test_auc_table_of_bool_labels_keeps_the_bool_positive_class():
    """attrs hold pos_label "True"; the AUC table resolves it against the class coordinate."""
    from sklearn.metrics import roc_auc_score

    df = _frame(repeats=1).drop(columns="repeat").astype({"y_true": bool, "y_pred": bool})
    out = json.loads(report(df.cv.counts(), scores=df, format="json"))
    assert out["attrs"]["pos_label"] is True and out["auc"][0]["class"] is True
    assert out["auc"][0]["auc_merge"] == pytest.approx(roc_auc_score(df.y_true, df.score))


def test_repeats_are_averaged_with_their_sd():
    df = _frame()
    ds = df.cv.counts()
    text = report(ds, scores=df)
    assert "mean over 2 repeats" in text and "f_tp_fp_sd" in text
    out = json.loads(report(ds, format="json"))
    per_rep = ds.cv.f_tp_fp(zero_division=0.0)
    assert out["methods"][0]["f_tp_fp"] == pytest.approx(float(per_rep.mean()))
    assert out["methods"][0]["f_tp_fp_sd"] == pytest.approx(float(per_rep.std(ddof=1)))


def test_long_per_fold_table_is_cut_to_the_flagged_rows():
    base = cvframe.datasets.table2()
    ds = cvframe.datasets.table2().reindex(fold=range(4))
    text = report(ds, max_fold_rows=2)
    assert "Per fold: 4 rows" in text and "showing the 1 rows with a finding" in text
    assert base.identical(cvframe.datasets.table2())


def test_several_cubes_in_one_report():
    cubes = {"t1": cvframe.datasets.table1(), "t2": cvframe.datasets.table2()}
    text = report(cubes)
    assert text.count("cvframe report:") == 2
    out = json.loads(report(cubes, format="json"))
    assert list(out) == ["t1", "t2"]
    with pytest.raises(ValueError, match="scores has names \\['t3'\\]"):
        report(cubes, scores={"t3": _frame()})
    with pytest.raises(TypeError, match="scores must be a mapping"):
        report(cubes, scores=_frame())


def test_bad_arguments():
    ds = cvframe.datasets.table1()
    with pytest.raises(ValueError, match="format='pdf' is not valid; expected one of"):
        report(ds, format="pdf")
    with pytest.raises(ValueError, match="zero_division=7"):
        report(ds, zero_division=7)
    with pytest.raises(ValueError, match="max_fold_rows=-1"):
        report(ds, max_fold_rows=-1)
    with pytest.raises(TypeError, match="scores must be a pandas DataFrame"):
        report(ds, scores=[1, 2])


def test_silent_with_explicit_policy():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report(cvframe.datasets.table2())
        report(cvframe.datasets.slides_confusion(), format="json")


def _undefined(caught) -> list[str]:
    return [
        str(w.message) for w in caught if issubclass(w.category, cvframe.UndefinedMetricWarning)
    ]


@pytest.mark.parametrize("format", ["text", "json"])
def test_zero_division_warn_is_one_warning_per_call(format):
    """The tables warn several times inside; the report says it once, with the counts."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        text = report(cvframe.datasets.table2(), zero_division="warn", format=format)
    messages = _undefined(caught)
    assert len(messages) == 1, messages
    # Table 2: fold 1 has TP = FP = 0 (precision undefined), recall is defined everywhere
    assert "undefined in 1 of 4 cells (fold=[1], class=[1])" in messages[0]
    assert "precision 1" in messages[0] and "recall 0" in messages[0]
    assert "zero_division=" in messages[0]
    assert "warn" in text  # the report states the policy it used


def test_the_warning_points_at_the_callers_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report(cvframe.datasets.table2(), zero_division="warn")
    assert [w.filename for w in caught] == [__file__]


def test_one_warning_for_several_cubes():
    cubes = {"t1": cvframe.datasets.table1(), "t2": cvframe.datasets.table2()}
    with pytest.warns(
        cvframe.UndefinedMetricWarning, match=r"undefined in 1 of 8 cells \(t2: fold=\[1\]"
    ) as caught:
        report(cubes, zero_division="warn")
    assert len(_undefined(caught)) == 1


def test_warn_without_undefined_cells_is_silent():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report(cvframe.datasets.table1(), zero_division="warn")


@pytest.mark.parametrize("zero_division", [0.0, 1.0, np.nan])
def test_explicit_policy_is_silent(zero_division):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report(cvframe.datasets.table2(), zero_division=zero_division, format="json")


def test_report_draws_the_tidy_tables():
    """The report's numbers are the tidy frames' numbers (computed once, nowhere else)."""
    from cvframe import tidy

    ds = _frame().cv.counts()
    out = json.loads(report(ds, format="json"))
    methods = tidy.over_repeats(
        tidy.methods_table(ds, zero_division=0.0),
        ["class"],
        ["f_tp_fp", "f_avg", "f_pr_re", "f_avg_skip", "f_pr_re_skip"],
    )
    for col in methods.columns.drop("class"):
        assert out["methods"][0][col] == pytest.approx(float(methods[col].iloc[0]))
    per_fold = tidy.fold_table(ds, zero_division=0.0)
    assert [r["f"] for r in out["per_fold"]] == pytest.approx(per_fold["f"].tolist())


def test_repeats_with_their_own_fold_ids_are_not_padded_folds():
    """Fold ids unique across repeats: each repeat's missing ids are not folds scoring 0."""
    n = 100
    y = np.arange(n) % 2
    df = pd.DataFrame(
        {
            "repeat": np.repeat([0, 1], n),
            "fold": np.r_[np.arange(n) % 5, 5 + np.arange(n) % 5],
            "y_true": np.r_[y, y],
            "y_pred": np.r_[y, y],
        }
    )
    out = json.loads(report(df.cv.counts(), format="json"))
    assert out["methods"][0]["f_avg"] == 1.0 and out["methods"][0]["f_pr_re"] == 1.0
    assert len(out["per_fold"]) == 10 and out["findings"] == []


def test_bad_numeric_arguments_name_themselves():
    ds = cvframe.datasets.table1()
    with pytest.raises(ValueError, match="alpha=1.5"):
        report(ds, alpha=1.5)
    with pytest.raises(ValueError, match="tolerance=-1"):
        report(ds, tolerance=-1)
    with pytest.raises(TypeError, match="beta='2'"):
        report(ds, beta="2")
    with pytest.raises(TypeError, match="plots=1"):
        report(ds, plots=1)
    with pytest.raises(TypeError, match="max_fold_rows=2.5"):
        report(ds, max_fold_rows=2.5)


def test_accessor_delegates():
    ds = cvframe.datasets.table1()
    assert ds.cv.report(format="json") == report(ds, format="json")


# --- HTML -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def html_page() -> str:
    import matplotlib

    matplotlib.use("Agg")
    df = _frame()
    cubes = {
        "binary": df.cv.counts(),
        "multiclass": cvframe.datasets.slides_confusion(),
        "table2": cvframe.datasets.table2(),
    }
    return report(cubes, scores={"binary": df}, format="html")


def test_html_is_self_contained(html_page):
    assert html_page.startswith("<!DOCTYPE html>")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//|file:)""", html_page)
    assert "<script" not in html_page and "<link" not in html_page
    images = re.findall(
        r'<img alt="[^"]*" src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html_page
    )
    # binary: folds, methods, confusion, roc; multiclass: 3; table2: 3
    assert len(images) == 10
    for data in images:
        assert base64.b64decode(data)[:8] == b"\x89PNG\r\n\x1a\n"
    assert html_page.count("<table") >= 3 * 3
    assert "undefined_precision" in html_page


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.mark.browser
def test_html_renders_in_headless_chromium(html_page, tmp_path):
    browser = _chromium()
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; CI must install it (.ci/run does)")
        pytest.skip("chromium not installed (apt-get install chromium); required in CI")
    page = tmp_path / "report.html"
    page.write_text(html_page, encoding="utf-8")
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
        "--disable-dev-shm-usage",
        "--enable-logging=stderr",
        "--v=0",
        f"--user-data-dir={tmp_path / 'profile'}",
    ]
    url = page.as_uri()
    dom = subprocess.run(
        [browser, *flags, "--dump-dom", url], capture_output=True, text=True, timeout=120
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    html = dom.stdout
    # the DOM the browser built: the tables with their rows and the images with data
    assert html.count("<table") >= 9
    assert "undefined_precision" in html and "F_tp,fp" in html
    imgs = re.findall(r'<img[^>]*src="data:image/png;base64,([^"]+)"', html)
    assert len(imgs) == 10 and all(len(d) > 1000 for d in imgs)
    assert "Uncaught" not in dom.stderr and ":CONSOLE" not in dom.stderr
    shot = tmp_path / "shot.png"
    res = subprocess.run(
        [browser, *flags, f"--screenshot={shot}", "--window-size=1200,2000", url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    import matplotlib.image as mpimg

    img = mpimg.imread(shot)
    assert img.shape[:2] == (2000, 1200)
    assert img[..., :3].std() > 0.05  # not a blank page
