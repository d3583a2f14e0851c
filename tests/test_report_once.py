"""The report computes once: one HTML page with scores builds each table one time.

Spies count the calls of the functions that build the report's tables, wherever the package
looks them up: every ``cvframe`` module attribute bound to the function is replaced, so a call
from a plot, a diagnostic or the decision counts as much as one from the report itself.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import numpy as np
import pandas as pd
import pytest

import cvframe
from cvframe import reduce, tidy
from cvframe._core.labels import frame as labels_frame
from cvframe.report import html_with_figures, render, report

mpl = pytest.importorskip("matplotlib", reason="the HTML figures need matplotlib")
mpl.use("Agg")


def _spy(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    """Count the calls of ``owner.name`` from every cvframe module that holds it."""
    original = getattr(owner, name)
    calls: list[int] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(*args, **kwargs)

    for mod_name, mod in list(sys.modules.items()):
        if mod_name.split(".")[0] == "cvframe" and getattr(mod, name, None) is original:
            monkeypatch.setattr(mod, name, spy)
    return calls


def _predictions(n: int = 240, k: int = 4, models: tuple[str, ...] = ("m",)) -> pd.DataFrame:
    """A predictions frame: two repeats, probability scores, a ``model`` column if several."""
    rng = np.random.default_rng(0)
    y = (rng.random(n) < 0.2).astype(int)
    parts = []
    for r in range(2):
        fold = rng.permutation(np.arange(n) % k)
        for i, m in enumerate(models):
            sep = 0.2 + 0.05 * i
            s = np.clip(rng.normal(0.5 + np.where(y == 1, sep, -sep), 0.2), 0, 1)
            part = pd.DataFrame(
                {"repeat": r, "fold": fold, "y_true": y, "y_pred": (s > 0.5).astype(int)}
            )
            part["score"] = s
            if len(models) > 1:
                part.insert(0, "model", m)
            parts.append(part)
    return pd.concat(parts, ignore_index=True)


def test_the_report_computes_each_table_once(monkeypatch):
    """HTML (tables only) with scores and three models: one f_methods, one fold table, two
    comparisons (the decision's test of the pooled F it recommends, and of F_avg, its
    labelled second line); the text report of a cube alone: the same."""
    pred = _predictions(models=("a", "b", "c"))
    ds = pred.cv.counts()
    f_methods = _spy(monkeypatch, reduce, "f_methods")
    fold_table = _spy(monkeypatch, tidy, "fold_table")
    compare = _spy(monkeypatch, sys.modules["cvframe.comparison"], "compare")
    page = report(ds, scores=pred, format="html", plots=False)
    assert "Which model is better" in page and "AUC_avg" in page
    assert (len(f_methods), len(fold_table), len(compare)) == (1, 1, 2)
    text = report(cvframe.datasets.table2())
    assert "methods_disagree" in text  # anomalies read the methods the report computed
    assert (len(f_methods), len(fold_table), len(compare)) == (2, 2, 2)


def _html_counts(monkeypatch: pytest.MonkeyPatch) -> tuple[int, int, int]:
    """Calls of f_methods, fold_table and the frame parse for one HTML page with figures."""
    pred = _predictions()
    ds = pred.cv.counts()
    f_methods = _spy(monkeypatch, reduce, "f_methods")
    fold_table = _spy(monkeypatch, tidy, "fold_table")
    parse = _spy(monkeypatch, labels_frame, "parse")
    page, figs = html_with_figures(ds, scores=pred)
    assert [f.name for _, f in figs] == ["folds", "methods", "confusion", "roc"]
    assert page.count("<img") == 4
    return len(f_methods), len(fold_table), len(parse)


def test_one_html_report_with_figures_computes_each_table_once(monkeypatch):
    """The folds plot draws the report's fold table and aggregation lines as they are."""
    assert _html_counts(monkeypatch)[:2] == (1, 1)


def test_one_html_report_with_scores_parses_the_predictions_once(monkeypatch):
    # the score tables, the findings, the AUC_merge interval and the ROC curves read the one
    # parse the report passes them
    assert _html_counts(monkeypatch)[2] == 1


def _rows_and_sorts(monkeypatch: pytest.MonkeyPatch) -> tuple[list[int], list[int]]:
    """Spies on the frame reader (the rows of every parse) and the one sort (its rows)."""
    from cvframe.scores import _keys

    rows: list[int] = []
    sorts: list[int] = []
    parse, sorted_keys = labels_frame.parse, _keys.sorted_keys

    def counting_parse(df: pd.DataFrame, *args: Any, **kwargs: Any) -> Any:
        rows.append(len(df))
        return parse(df, *args, **kwargs)

    def counting_sort(s: np.ndarray, *args: Any, **kwargs: Any) -> Any:
        sorts.append(len(s))
        return sorted_keys(s, *args, **kwargs)

    for owner, name, spy in (
        (labels_frame, "parse", counting_parse),
        (_keys, "sorted_keys", counting_sort),
    ):
        original = getattr(owner, name)
        for mod_name, mod in list(sys.modules.items()):
            if mod_name.split(".")[0] == "cvframe" and getattr(mod, name, None) is original:
                monkeypatch.setattr(mod, name, spy)
    return rows, sorts


@pytest.mark.parametrize("classes", [2, 3])
def test_an_html_report_of_three_models_parses_each_row_once_and_sorts_once(monkeypatch, classes):
    """The frame is split by model once, each part parsed once and each class of each part
    sorted once: AUC_avg, AUC_merge, the Brier score, the per-fold AUC of the findings, the
    DeLong interval of the headline and the ROC curves of the page all read that sort."""
    if classes == 2:
        pred = _predictions(models=("a", "b", "c"))
    else:
        one = _multiclass(classes=classes)
        pred = pd.concat([one.assign(model=m) for m in "abc"], ignore_index=True)
    ds = pred.cv.counts()
    rows, sorts = _rows_and_sorts(monkeypatch)
    page, figs = html_with_figures(ds, scores=pred)
    assert "roc" in [f.name for _, f in figs] and "AUC_merge" in page
    assert sum(rows) <= 2 * len(pred)  # the bound; in fact once:
    assert rows == [len(pred) // 3] * 3
    n_classes = 1 if classes == 2 else classes
    assert sorts == [len(pred) // 3] * (3 * n_classes)  # one per class and model


def test_render_computes_once_for_every_format(monkeypatch):
    """render: the text, JSON and HTML of one computation, each what report gives."""
    pred = _predictions(models=("a", "b"))
    ds = pred.cv.counts()
    expected = {f: report(ds, scores=pred, format=f, plots=False) for f in ("text", "json", "html")}
    f_methods = _spy(monkeypatch, reduce, "f_methods")
    out, figs = render(ds, formats=("text", "json", "html"), scores=pred, plots=False)
    assert out == expected and figs == [] and len(f_methods) == 1
    assert render(ds, formats="json")[0].keys() == {"json"}
    with pytest.raises(ValueError, match="formats"):
        render(ds, formats=["text", "pdf"])
    with pytest.raises(ValueError, match="formats is empty"):
        render(ds, formats=[])


def test_anomalies_read_the_methods_they_are_given():
    """anomalies(methods=...) uses the given table (and its zero_division), not its own."""
    ds = cvframe.datasets.table2()
    alone = cvframe.diagnostics.anomalies(ds)
    given = cvframe.diagnostics.anomalies(ds, methods=tidy.methods_table(ds, zero_division=0.0))
    pd.testing.assert_frame_equal(alone, given)
    # with zero_division=1 the undefined fold counts as F=1: the methods agree more closely
    m1 = tidy.methods_table(ds, zero_division=1.0)
    spread = float(m1[list(reduce.F_METHODS)].max(axis=1).iloc[0]) - float(
        m1[list(reduce.F_METHODS)].min(axis=1).iloc[0]
    )
    detail = cvframe.diagnostics.anomalies(ds, methods=m1, tolerance=0.01)["detail"].iloc[-1]
    assert f"spread {spread:.3f}" in detail
    with pytest.raises(ValueError, match=r"methods lacks the columns \['f_avg'\]"):
        cvframe.diagnostics.anomalies(ds, methods=m1.drop(columns="f_avg"))


def _multiclass(n: int = 300, k: int = 3, classes: int = 3) -> pd.DataFrame:
    """Two repeats of k folds, ``score_<c>`` columns with ties, one model."""
    rng = np.random.default_rng(1)
    y = rng.integers(0, classes, n)
    parts = []
    for r in range(2):
        noise = np.round(rng.normal(0, 1, (n, classes)), 1)
        noise[np.arange(n), y] += 1.0
        part = pd.DataFrame({"repeat": r, "fold": rng.permutation(np.arange(n) % k), "y_true": y})
        part["y_pred"] = noise.argmax(1)
        for c in range(classes):
            part[f"score_{c}"] = noise[:, c]
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


@pytest.mark.parametrize("classes", [2, 3])
def test_the_report_sorts_each_class_once(monkeypatch, classes):
    """AUC_avg, AUC_merge, the per-fold AUC of the findings and the DeLong interval of the
    headline read one sort of each class (the sort entry point counts its calls; the
    compiled engine: tests/test_report_sorts.py)."""
    from cvframe.scores import _keys

    pred = _predictions() if classes == 2 else _multiclass(classes=classes)
    ds = pred.cv.counts()
    sorts = _spy(monkeypatch, _keys, "sorted_keys")
    parse = _spy(monkeypatch, labels_frame, "parse")
    page = report(ds, scores=pred, format="json")
    n_classes = 1 if classes == 2 else classes
    assert len(sorts) == n_classes and len(parse) == 1
    assert "95% delong" in page and "auc_merge" in page
    # the same numbers as the public function alone (sorting on its own)
    out = json.loads(page)
    head = next(r for r in out["summary"] if r["metric"] == "AUC_merge")
    iv = cvframe.interval(pred, "auc", average=None if classes == 2 else "macro")
    assert head["value"] == iv.estimate.item()
    assert head["value_ci_low"] == pytest.approx(iv.lower.item(), abs=1e-12)
    assert head["value_ci_high"] == pytest.approx(iv.upper.item(), abs=1e-12)
    assert len(sorts) == 2 * n_classes  # the interval alone: one sort of each class


def test_worse_than_random_reads_the_reports_per_fold_auc(monkeypatch):
    """The report hands its per-fold AUC to anomalies: the findings are those of the frame
    read again, and the frame is not sorted for them."""
    pred = _predictions(n=120, models=("a", "b"))
    flip = pred["model"] == "b"
    pred.loc[flip, "score"] = 1.0 - pred.loc[flip, "score"]  # model b ranks backwards
    ds = pred.cv.counts()
    alone = cvframe.diagnostics.anomalies(ds, frame=pred)
    assert (alone["kind"] == "worse_than_random").sum() > 0
    fold_auc = cvframe.scores.auc(pred, "fold", undefined="nan")
    calls = _spy(monkeypatch, cvframe.scores, "auc")
    given = cvframe.diagnostics.anomalies(ds, frame=pred, fold_auc=fold_auc)
    pd.testing.assert_frame_equal(alone, given)
    assert calls == []
    # a baseline's folds are left out of the given table too
    pred.attrs["baselines"] = ["b"]
    alone = cvframe.diagnostics.anomalies(ds, frame=pred)
    given = cvframe.diagnostics.anomalies(ds, frame=pred, fold_auc=fold_auc)
    pd.testing.assert_frame_equal(alone, given)
    assert (given["kind"] == "worse_than_random").sum() == 0
