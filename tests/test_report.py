"""The report: text, JSON and self-contained HTML; the HTML renders in headless Chromium."""

from __future__ import annotations

import base64
import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import cvframe
from cvframe.report import RECOMMENDATION, report

# module-scoped fixtures: one worker runs this file, so they are built once
pytestmark = pytest.mark.xdist_group("report")


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
    assert "[fold=1, class=1] " in text and "undefined_precision: no predicted positives" in text
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
    assert "mean over 2 repeats" in text and "F_tp,fp sd" in text
    out = json.loads(report(ds, format="json"))
    per_rep = ds.cv.f_tp_fp(zero_division=0.0)
    assert out["methods"][0]["f_tp_fp"] == pytest.approx(float(per_rep.mean()))
    assert out["methods"][0]["f_tp_fp_sd"] == pytest.approx(float(per_rep.std(ddof=1)))


def test_long_per_fold_table_is_capped_with_the_flagged_rows_first():
    base = cvframe.datasets.table2()
    ds = cvframe.datasets.table2().reindex(fold=range(4))
    text = report(ds, max_fold_rows=2)
    assert "Per fold (showing 2 of 4 rows; the row with a finding first" in text
    block = text.split("Per fold (")[1].splitlines()
    # header, then fold 1 (the finding: no predicted positives) first, then fold 0
    assert [line.split()[0] for line in block[1:4]] == ["fold", "1", "0"]
    assert block[4] == ""
    assert base.identical(cvframe.datasets.table2())
    assert "Per fold (all 4 rows" in report(ds)


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
def rendered() -> tuple[str, list]:
    """One page of two cubes (binary with scores, multiclass with two models and scores)
    and its figures, drawn once for the module."""
    import matplotlib

    matplotlib.use("Agg")
    from cvframe.report import html_with_figures

    df, mdf = _frame(), _multi(n=90, reps=2, folds=3)
    cubes = {
        "binary": df.cv.counts(),
        "multiclass": mdf.cv.counts(),
    }
    return html_with_figures(cubes, scores={"binary": df, "multiclass": mdf})


@pytest.fixture(scope="module")
def html_page(rendered) -> str:
    return rendered[0]


def test_html_is_self_contained(html_page):
    assert html_page.startswith("<!DOCTYPE html>")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//|file:)""", html_page)
    assert "<script" not in html_page and "<link" not in html_page
    images = re.findall(
        r'<img alt="[^"]*" width="\d+" height="\d+" src="data:image/png;base64,([A-Za-z0-9+/=]+)"',
        html_page,
    )
    # binary: folds, methods, confusion, roc; multiclass: the same four
    assert len(images) == 8
    for data in images:
        assert base64.b64decode(data)[:8] == b"\x89PNG\r\n\x1a\n"
    # per cube: summary, methods, AUC, per fold (+ class averages for the multiclass one)
    assert html_page.count("<table") >= 2 * 4 + 1
    assert html_page.count('<section class="findings"') == 2


# --- summary, intervals, digits, title --------------------------------------------------------


def _multi(n: int = 180, k: int = 3, reps: int = 3, folds: int = 5, seed: int = 0) -> pd.DataFrame:
    """Two models (b better than a) of a k-class task, with probability scores."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    parts = []
    for r in range(reps):
        fold = rng.permutation(np.arange(n) % folds)
        for j, m in enumerate("ab"):
            s = rng.normal(0, 1, (n, k))
            s[np.arange(n), y] += 1.0 + j
            p = np.exp(s) / np.exp(s).sum(1, keepdims=True)
            part = pd.DataFrame(
                {"model": m, "repeat": r, "fold": fold, "y_true": y, "y_pred": p.argmax(1)}
            )
            for c in range(k):
                part[f"score_{c}"] = p[:, c]
            parts.append(part)
    return pd.concat(parts, ignore_index=True)


def test_summary_shows_the_interval_of_the_recommended_number_not_the_repeat_spread():
    interval = pytest.importorskip("cvframe.intervals").interval
    ds = _frame(repeats=3).cv.counts()
    out = json.loads(report(ds, format="json"))
    assert list(out)[:3] == ["title", "decision", "summary"]  # the answer leads every format
    row = out["summary"][0]
    per_rep = ds.cv.f_tp_fp(zero_division=0.0).squeeze().values
    want = interval(ds, "f", zero_division=0.0).squeeze()
    assert row["metric"] == "F_tp,fp" and row["repeats"] == 3
    assert row["value"] == pytest.approx(float(want["estimate"]))
    assert row["value_ci_low"] == pytest.approx(float(want["lower"]))
    assert row["value_ci_high"] == pytest.approx(float(want["upper"]))
    assert row["interval"] == f"95% {want.attrs['method']}"
    assert row["sd_repeats"] == pytest.approx(per_rep.std(ddof=1))
    assert out["intervals"][row["interval"]].startswith(want.attrs["estimand"])
    assert "not an interval for the metric" in out["spread"]
    lines = report(ds).splitlines()
    first = next(i for i, x in enumerate(lines) if x.startswith("Summary:"))
    assert next(i for i, x in enumerate(lines) if x.startswith("Findings")) > first
    assert first < next(i for i, x in enumerate(lines) if x.startswith("Five aggregations"))
    low, high = float(want["lower"]), float(want["upper"])
    assert f"{float(want['estimate']):.4f} [{low:.4f}, {high:.4f}]" in lines[first + 2]
    assert any("estimates" in x and want.attrs["estimand"][:30] in x for x in lines)
    assert any("not an interval for the metric" in x for x in lines[first:])


def test_summary_shows_auc_merge_with_its_interval_when_scores_are_given():
    interval = pytest.importorskip("cvframe.intervals").interval
    df = _frame(repeats=1)
    ds = df.cv.counts()
    out = json.loads(report(ds, scores=df, format="json"))
    rows = {r["metric"]: r for r in out["summary"]}
    want = interval(df, "auc").squeeze()
    assert rows["AUC_merge"]["value_ci_low"] == pytest.approx(float(want["lower"]))
    assert rows["AUC_merge"]["value_ci_high"] == pytest.approx(float(want["upper"]))
    assert rows["AUC_merge"]["value"] == pytest.approx(float(df.cv.auc("merge").squeeze()))
    assert rows["AUC_merge"]["interval"] in out["intervals"]


def test_class_averages_have_intervals_across_repeats():
    df = _multi()
    ds = df.cv.counts()
    out = json.loads(report(ds, format="json"))
    macro = ds.cv.macro("f", zero_division=0.0)
    s = ds.cv.summary(macro)
    for row in out["class_averages"]:
        m = row["model"]
        assert row["macro_f"] == pytest.approx(float(s["mean"].sel(model=m)))
        assert row["macro_f_ci_low"] == pytest.approx(float(s["ci_low"].sel(model=m)))
        assert row["macro_f_ci_high"] == pytest.approx(float(s["ci_high"].sel(model=m)))
        assert row["macro_f_ci_low"] < row["macro_f"] < row["macro_f_ci_high"]
    summ = {r["model"]: r for r in out["summary"]}
    assert summ["b"]["metric"] == "macro F_tp,fp"
    assert summ["b"]["value"] == pytest.approx(float(s["mean"].sel(model="b")))
    assert out["decision"]["best"] == "b"


def test_every_number_of_a_column_has_the_same_decimals():
    """0.7000 next to 0.5273, never 0.7 (text and HTML); JSON keeps full floats."""
    text = report(cvframe.datasets.table1())
    per_fold = text.split("Per fold (")[1].split("\n\n")[0].splitlines()[1:]
    decimals = {
        len(tok.split(".")[1]) for line in per_fold for tok in re.findall(r"\d+\.\d+", line)
    }
    assert decimals == {3}
    assert "1.000" in text and " 1.0 " not in text
    methods = text.split("Five aggregations")[1].split("\n\n")[0]
    assert {len(t.split(".")[1]) for t in re.findall(r"\d+\.\d+", methods)} == {4}
    page = report(cvframe.datasets.table1(), format="html", plots=False)
    cells = re.findall(r'<td class="num">(\d+\.\d+)</td>', page)
    assert cells and all(len(c.split(".")[1]) in (3, 4) for c in cells)
    assert '<td class="num">1.000</td>' in page
    out = json.loads(report(cvframe.datasets.table1(), format="json"))
    assert out["per_fold"][3]["recall"] == 0.75 and out["per_fold"][2]["precision"] == 4 / 17


def test_title_parameter_and_default():
    ds = _frame(repeats=1).drop(columns="repeat").cv.counts()
    assert "counts cube" not in report(ds)
    assert report(ds).startswith("cvframe report: binary, 4 folds")
    assert report(ds, title="spam filter v2").startswith("cvframe report: spam filter v2\n")
    page = report(ds, format="html", title="spam <v2>", plots=False)
    assert "<title>cvframe report: spam &lt;v2&gt;</title>" in page
    assert ds.cv.report(title="x") == report(ds, title="x")
    with pytest.raises(TypeError, match="title=3 must be a str"):
        report(ds, title=3)
    cubes = {"t1": cvframe.datasets.table1(), "t2": cvframe.datasets.table2()}
    page = report(cubes, format="html", title="both tables", plots=False)
    assert "<h1>cvframe report: both tables</h1>" in page
    assert "t2: Forman &amp; Scholz 2010, Table 2" in page


def test_html_per_fold_table_is_collapsed_capped_and_flags_first():
    ds = cvframe.datasets.table2()
    page = report(ds, format="html", plots=False, max_fold_rows=3)
    part = page.split('<section class="per-fold">')[1]
    assert "<details>" in part and "<details open" not in part
    assert "showing 3 of 4 rows; the 1 with a finding first, highlighted" in part
    rows = re.findall(r"<tr( class=\"hit\")?><td class=\"num\">(\d+)</td>", part)
    assert rows == [(' class="hit"', "1"), ("", "0"), ("", "2")]


def test_html_sections_in_order():
    df = _multi()
    page = report(df.cv.counts(), scores=df, format="html", plots=False)
    order = [
        page.index(f'<section class="{c}"')
        for c in ("summary", "findings", "methods", "class-averages", "auc", "per-fold")
    ]
    assert order == sorted(order)
    assert page.index("Which model is better") < page.index('<section class="findings"')


def test_html_with_figures_returns_the_embedded_pngs(rendered):
    from cvframe.report.html import MAX_WIDTH_PX

    page, figs = rendered
    assert [(cube, f.name) for cube, f in figs if cube == "multiclass"] == [
        ("multiclass", n) for n in ("folds", "methods", "confusion", "roc")
    ]
    embedded = re.findall(r'width="(\d+)" height="(\d+)" src="data:image/png;base64,([^"]+)"', page)
    assert [base64.b64decode(d) for _, _, d in embedded] == [f.png for _, f in figs]
    for (w, h, _), (_, f) in zip(embedded, figs, strict=True):
        assert (int(w), int(h)) == f.size and f.size[0] <= MAX_WIDTH_PX
    assert "one panel per class" in page  # the multiclass ROC


def test_dask_cube_gives_the_same_report():
    pytest.importorskip("dask")
    ds = _multi(n=60, reps=2, folds=3).cv.counts()
    assert report(ds.chunk({"repeat": 1}), format="json") == report(ds, format="json")
    text = report(ds.chunk({"repeat": 1}), max_fold_rows=5)
    assert "Per fold (showing 5 of" in text
    # JSON lists every (model, repeat, fold, class) row whatever the cap
    assert len(json.loads(report(ds, format="json", max_fold_rows=5))["per_fold"]) == 2 * 2 * 3 * 3


def test_a_predictions_frame_in_place_of_the_cube_is_refused_with_the_fix():
    df = pd.DataFrame({"fold": [0, 0, 1, 1], "y_true": [0, 1, 0, 1], "y_pred": [0, 1, 1, 1]})
    with pytest.raises(TypeError, match=r"frame\.cv\.counts\(\)"):
        cvframe.report.report(df)
    with pytest.raises(TypeError, match=r"data\['a'\]"):
        cvframe.report.render({"a": df})
    assert cvframe.report.report(df.cv.counts()).startswith("cvframe report")
