"""The report's first screen: the answer first in every format (the decision and each
headline number with its interval and method), the findings right after, grouped and with
whatever columns they have; each difference with its interval, test, effect size and a
sentence a reviewer can paste."""

from __future__ import annotations

import importlib
import json

import numpy as np
import pandas as pd
import pytest

import cvframe
from cvframe.comparison import compare
from cvframe.report import headline, render
from cvframe.report.decision import sentence

pytestmark = pytest.mark.xdist_group("report")
content_module = importlib.import_module("cvframe.report.content")


def _frame(accs=(0.8, 0.8), n=300, k=5, reps=2, seed=0, classes=2, scores=False):
    """Models on the same folds; ``accs`` their accuracies."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, n)
    parts = []
    for r in range(reps):
        fold = rng.permutation(np.arange(n) % k)
        for name, a in zip("abc", accs, strict=False):
            pred = np.where(rng.random(n) < a, y, (y + 1) % classes)
            part = pd.DataFrame(
                {"model": name, "repeat": r, "fold": fold, "sample": np.arange(n)}
                | {"y_true": y, "y_pred": pred}
            )
            if scores:
                part["score"] = np.clip(0.25 + 0.5 * pred + rng.normal(0, 0.15, n), 0, 1)
            parts.append(part)
    return pd.concat(parts, ignore_index=True)


def _all(ds, **kw):
    out, _ = render(ds, formats=("text", "json", "html"), plots=False, **kw)
    return out["text"], json.loads(out["json"]), out["html"]


def test_findings_follow_the_answer_with_every_column_they_have(monkeypatch):
    findings = pd.DataFrame(
        {
            "severity": ["error", "warning"],
            "code": ["CV901", "CV902"],
            "fold": [None, 2],
            "class": [1, 1],
            "detail": ["the baseline is not beaten", "class 1 missing from training"],
            "explanation": ["a majority-class guess scores as well", "refit with stratified"],
            "extra_column": ["x1", "x2"],
        }
    )
    monkeypatch.setattr(content_module.diagnostics, "anomalies", lambda *a, **k: findings)
    text, js, page = _all(_frame().cv.counts())
    lines = text.splitlines()
    first = next(i for i, x in enumerate(lines) if x.startswith("Findings"))
    assert first > next(i for i, x in enumerate(lines) if x.startswith("Which model"))
    assert first > next(i for i, x in enumerate(lines) if x.startswith("Summary"))
    block = "\n".join(lines[first : first + 3])
    for cell in ("error", "CV901", "the baseline is not beaten", "extra_column=x1", "refit"):
        assert cell in block
    keys = list(js)
    assert keys[:3] == ["title", "decision", "summary"]
    assert keys.index("findings") > keys.index("summary")
    assert js["findings_all"][0] == {k: v for k, v in findings.iloc[0].items()} | {"fold": None}
    assert set(js["findings_all"][0]) == set(findings.columns)
    grouped = js["findings"][1]
    assert grouped["count"] == 1 and grouped["folds"] == "2" and grouped["code"] == "CV902"
    assert set(grouped) == set(findings.columns) - {"fold"} | {"count", "folds"}
    assert page.index('<section class="summary"') < page.index('<section class="findings"')
    assert "extra_column" in page and "CV902" in page


def test_headline_numbers_have_their_interval_and_method_in_every_format():
    interval = pytest.importorskip("cvframe.intervals").interval
    df = _frame(scores=True, reps=1)
    ds = df.cv.counts()
    text, js, page = _all(ds, scores=df)
    f_iv = interval(ds, "f", zero_division=0.0)
    auc_iv = interval(df, "auc")
    rows = pd.DataFrame(js["summary"])
    for metric, iv in (("F_tp,fp", f_iv), ("AUC_merge", auc_iv)):
        got = rows[rows["metric"] == metric].set_index("model")
        for m in ("a", "b"):
            sel = iv.sel(model=m).squeeze()
            assert got.loc[m, "value_ci_low"] == pytest.approx(float(sel["lower"]))
            assert got.loc[m, "value_ci_high"] == pytest.approx(float(sel["upper"]))
            assert got.loc[m, "interval"] == f"95% {iv.attrs['method']}"
            cell = f"[{float(sel['lower']):.4f}, {float(sel['upper']):.4f}]"
            assert cell in text and cell in page
        assert iv.attrs["method"] in text and iv.attrs["method"] in page
        assert iv.attrs["estimand"][:40] in text and iv.attrs["estimand"][:40] in page


def test_without_an_interval_the_report_says_why(monkeypatch):
    def refuse(*args, **kwargs):
        raise ValueError("this design has no interval")

    monkeypatch.setattr(headline, "interval", refuse)
    text, js, _ = _all(cvframe.datasets.table2())
    assert js["summary"][0]["value_ci_low"] is None
    assert "no interval: this design has no interval" in js["summary"][0]["interval"]
    assert "0.7692" in text


def test_each_difference_has_interval_test_effect_size_and_a_sentence():
    ds = _frame(accs=(0.8, 0.8, 0.95)).cv.counts()
    text, js, page = _all(ds)
    d = js["decision"]
    assert d["best"] == "c" and d["test"] == "fold_jackknife"
    assert "fold jackknife" in d["reason"] and "difference itself" in d["effect_size"]
    res = compare(ds, "f_tp_fp", baseline="c", zero_division=0.0)
    for row in d["rows"]:
        if row["model"] == "c":
            continue
        r = res.sel(contrast=f"{row['model']} - c").squeeze()
        for key, var in (("difference", "mean"), ("low", "low"), ("high", "high")):
            assert row[key] == pytest.approx(float(r[var]))
        assert row["effect_size"] == pytest.approx(float(r["effect_size"]))
        assert "interval excludes 0: this data shows c to be better than" in row["sentence"]
        assert row["sentence"] in text
        assert row["sentence"].replace("'", "&#x27;") in page


def test_the_sentence_when_the_interval_includes_zero():
    ds = _frame(accs=(0.8, 0.8), seed=3).cv.counts()
    _, js, _ = _all(ds)
    d = js["decision"]
    other = next(r for r in d["rows"] if r["model"] != d["best"])
    if other["low"] <= 0 <= other["high"]:
        assert other["sentence"].endswith(
            f"the interval includes 0: this data does not show {d['best']} to be better "
            f"than {other['model']}."
        )
    s = sentence("rf", "lr", "F_avg", 0.01, -0.01, 0.03, 0.3, 0.2, test="corrected_t")
    assert "the interval includes 0: this data does not show lr to be better than rf." in s
    s = sentence("rf", "lr", "F_avg", 0.05, 0.02, 0.08, 0.001, 1.2, test="corrected_t")
    assert "this data shows rf to be better than lr by 0.0200 to 0.0800" in s
    s = sentence("rf", "lr", "F_avg", 0.05, np.nan, np.nan, 0.01, np.nan, test="5x2cv_f")
    assert "no interval" in s


def test_a_multiclass_decision_compares_the_macro_average():
    ds = _frame(accs=(0.6, 0.9), classes=3).cv.counts()
    _, js, _ = _all(ds)
    d = js["decision"]
    assert d["metric"] == "macro F_tp,fp" and d["test"] == "fold_jackknife"
    res = compare(ds, "f_tp_fp", baseline=d["best"], zero_division=0.0, average="macro")
    assert d["second"]["metric"] == "macro F_avg" and d["second"]["test"] == "corrected_t"
    other = next(r for r in d["rows"] if r["model"] != d["best"])
    assert other["difference"] == pytest.approx(float(res["mean"].item()))
    assert other["sentence"]


def test_class_averages_are_labelled_as_spread_not_interval():
    ds = _frame(classes=3).cv.counts()
    text, _, page = _all(ds)
    assert "spread across repeats' partitions, not an interval for the metric" in text
    assert "not an interval for the metric" in page
    assert "t-interval across repeats" not in text


def test_the_findings_read_the_predictions_frame_when_given(monkeypatch):
    seen = {}
    real = content_module.diagnostics.anomalies

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(content_module.diagnostics, "anomalies", spy)
    df = _frame(scores=True, reps=1)
    _all(df.cv.counts(), scores=df)
    assert seen["frame"] is df
    _all(df.cv.counts())
    assert seen["frame"] is None
