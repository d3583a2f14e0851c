"""The metric registry (cvframe.metrics.REGISTRY) is the only list of metric names.

(a) No module of cvframe/ but cvframe/metrics.py holds a list, tuple, set or dict display with
two or more metric names (registry names, spelled variants, aliases, scikit-learn scorer
names: any string ``metrics.resolve`` accepts); ``__all__`` lists Python names and
``Literal[...]`` types are checked against the registry below. (b) Every entry has a kernel
and an interval and a paired test that exist. (c) The docs table derives from the registry.
Each check has a test of the test. And a metric added to the registry works as a search's
scoring, in explain and in reconcile with no edit there.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import pathlib
import typing
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import zero_one_loss

import cvframe
from cvframe import comparison, formulas, intervals, measure, metrics, multiclass, scores
from cvframe._core import types as _types
from cvframe.reduce import multilabel

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "cvframe"
#: Files whose tables hold metric names for another reason than naming metrics, and why.
ALLOWED = {
    "cvframe/cli/plan.py": "OPTIONS maps plan()'s argument names (f, precision, recall, auc "
    "are the assumed classifier's parameters) to command-line options",
    "cvframe/cli/simulate.py": "OPTIONS maps simulate()'s argument names (f, precision, "
    "recall are the simulated classifier's parameters) to command-line options",
}


# --- (a) no list of metric names outside the registry ------------------------------------------


def _is_metric_name(text: str) -> bool:
    for multi in (False, True):
        try:
            metrics.resolve(text, multilabel=multi)
        except ValueError:
            continue
        return True
    return False


def _exempt(tree: ast.AST) -> set[int]:
    """ids of the nodes that hold Python names or types, not metric names: the value of an
    ``__all__`` assignment and the arguments of ``Literal[...]``."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                out.add(id(node.value))
        if isinstance(node, ast.Subscript):
            name = node.value
            if (isinstance(name, ast.Name) and name.id == "Literal") or (
                isinstance(name, ast.Attribute) and name.attr == "Literal"
            ):
                out.add(id(node.slice))
    return out


def _constant(node: ast.expr) -> bool:
    """A constant, or a tuple/list of constants (what a table of names holds)."""
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(isinstance(e, ast.Constant) for e in node.elts)
    return isinstance(node, ast.Constant)


def listed_names(source: str) -> list[tuple[int, list[str]]]:
    """(line, names) of every list, tuple, set or dict display of ``source`` with two or more
    metric names among its string constants."""
    tree = ast.parse(source)
    exempt = _exempt(tree)
    found = []
    for node in ast.walk(tree):
        if id(node) in exempt:
            continue
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = list(node.elts)
        elif isinstance(node, ast.Dict):  # a table (constant values), not a dict of data
            pairs = [(k, v) for k, v in zip(node.keys, node.values, strict=True) if k is not None]
            items = [k for k, v in pairs if _constant(v)] + [v for v in node.values if _constant(v)]
        else:
            continue
        names = [
            e.value
            for e in items
            if isinstance(e, ast.Constant) and isinstance(e.value, str) and _is_metric_name(e.value)
        ]
        if len(set(names)) >= 2:
            found.append((node.lineno, names))
    return found


def _offenders() -> dict[str, list[tuple[int, list[str]]]]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel == "cvframe/metrics.py":
            continue
        hits = listed_names(path.read_text())
        if hits:
            out[rel] = hits
    return out


def test_no_list_of_metric_names_outside_the_registry():
    found = _offenders()
    new = {f: hits for f, hits in found.items() if f not in ALLOWED}
    lines = [f"{f}:{line}: {names}" for f, hits in new.items() for line, names in hits]
    assert not lines, "lists of metric names outside cvframe/metrics.py:\n" + "\n".join(lines)
    stale = sorted(set(ALLOWED) - set(found))
    assert not stale, f"nothing left to allow in {stale}: remove them from ALLOWED"


def test_the_list_check_flags_a_list_of_names_and_nothing_else():
    flagged = """
SCORINGS = {"f_tp_fp": "f", "accuracy": "accuracy"}
ONE = ("accuracy", "neg_brier_merge")
"""
    clean = """
from typing import Literal
__all__ = ["f", "accuracy", "precision"]
Metric = Literal["precision", "recall"]
ONE_NAME = ("f", "tp_fp", "x")
COLUMNS = {"fold": 1, "class": 2}
metric = "f" if True else "accuracy"
"""
    assert [line for line, _ in listed_names(flagged)] == [2, 3]
    assert listed_names(flagged)[0][1] == ["f_tp_fp", "accuracy", "f", "accuracy"]
    assert listed_names(clean) == []


def test_the_literal_types_equal_the_registry():
    assert typing.get_args(_types.CellMetric) == tuple(formulas.METRIC_SPECS)
    assert typing.get_args(_types.Metric) == multiclass.METRICS
    assert set(typing.get_args(_types.CellMetric)) == {
        m.kernel for m in metrics.by_kind("count").values()
    }


# --- (b) every entry has a kernel, an interval and a test that exist ---------------------------


def registry_problems(registry: dict[str, metrics.Metric]) -> list[str]:
    """What is missing or inconsistent in the entries of ``registry``."""
    out = []
    for name, m in registry.items():
        if m.kind == "count":
            spec = formulas.METRIC_SPECS.get(m.kernel)
            if spec is None:
                out.append(f"{name}: kernel {m.kernel!r} is not a row of METRIC_SPECS")
            elif spec.over_classes != (m.scope == "all" and m.kernel != "accuracy"):
                out.append(f"{name}: scope {m.scope!r} but over_classes={spec.over_classes}")
        elif m.kind == "score":
            if not callable(getattr(scores, m.kernel, None)):
                out.append(f"{name}: kernel {m.kernel!r} is not a function of cvframe.scores")
        elif m.kind == "sample":
            # a function of reduce.multilabel, or one with its average as the suffix
            stem, _, average = m.kernel.rpartition("_")
            if not callable(getattr(multilabel, m.kernel, None)) and not (
                callable(getattr(multilabel, stem, None)) and average in multilabel.JACCARD_AVERAGES
            ):
                out.append(f"{name}: kernel {m.kernel!r} is not a function of reduce.multilabel")
        else:
            out.append(f"{name}: kind {m.kind!r} is not count, score or sample")
        if name != m.name:
            out.append(f"{name}: the entry is named {m.name!r}")
        bad = [v for v in m.variants if v not in metrics.VARIANTS]
        out += [f"{name}: variant {v!r} is not one of metrics.VARIANTS" for v in bad]
        for variant, method in m.intervals.items():
            if variant not in m.variants or method not in intervals.METHODS:
                out.append(f"{name}: interval {variant!r} -> {method!r}")
        for variant, test in m.tests.items():
            if variant not in m.variants or test not in comparison.REGISTRY:
                out.append(f"{name}: test {variant!r} -> {test!r}")
    return out


def test_every_entry_has_a_kernel_an_interval_and_a_test():
    assert registry_problems(metrics.REGISTRY) == []


def test_the_kernel_check_fails_an_entry_without_a_kernel(monkeypatch):
    fake = metrics.Metric("fake", "fake", "count", "no_such_kernel", ("tp_fp", "avg"))
    monkeypatch.setitem(metrics.REGISTRY, "fake", fake)
    assert registry_problems(metrics.REGISTRY) == [
        "fake: kernel 'no_such_kernel' is not a row of METRIC_SPECS"
    ]
    odd = dataclasses.replace(fake, kernel="recall", tests={"tp_fp": "no_such_test"})
    monkeypatch.setitem(metrics.REGISTRY, "fake", odd)
    assert registry_problems(metrics.REGISTRY) == ["fake: test 'tp_fp' -> 'no_such_test'"]


# --- (c) the docs table derives from the registry ----------------------------------------------


def _table_script():
    spec = importlib.util.spec_from_file_location("metric_table", ROOT / "docs" / "metric_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_docs_table_is_the_registry():
    script = _table_script()
    text = script.PAGE.read_text()
    assert script.page(text) == text, "docs/metrics.md is stale: run python docs/metric_table.py"


def test_the_docs_table_shows_a_new_entry(monkeypatch):
    script = _table_script()
    fake = dataclasses.replace(metrics.REGISTRY["recall"], name="fake", display="Fake")
    monkeypatch.setitem(metrics.REGISTRY, "fake", fake)
    text = script.PAGE.read_text()
    assert script.page(text) != text and "`fake_tp_fp` pooled Fake" in script.render()


# --- a metric added to the registry reaches every surface --------------------------------------


@pytest.fixture
def new_metrics(monkeypatch):
    """Two entries the package has never seen: a metric of one class (the recall's kernel)
    and a lower-is-better one over every class (the error's kernel, ``over_classes``)."""
    recall = dataclasses.replace(
        metrics.REGISTRY["recall"], name="hit_rate", display="hit rate", scorers={}, tools={}
    )
    miss = dataclasses.replace(
        metrics.REGISTRY["error"], name="miss", display="miss", aliases=(), tools={}
    )
    monkeypatch.setitem(metrics.REGISTRY, "hit_rate", recall)
    monkeypatch.setitem(metrics.REGISTRY, "miss", miss)
    return recall, miss


def _data(seed=0, n=160, classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + rng.normal(scale=1.0, size=n) > 0).astype(int)
    if classes > 2:
        y = y + (X[:, 1] > 0.8)
    return X, y


@pytest.mark.parametrize("classes", [2, 3])
def test_a_new_metric_is_a_search_scoring(new_metrics, classes):
    X, y = _data(classes=classes)
    grid = {"C": [0.01, 1.0]}
    average = None if classes == 2 else "macro"
    for name, want in (("hit_rate", "hit_rate_tp_fp"), ("miss", "neg_miss_tp_fp")):
        search = cvframe.PooledSearchCV(
            LogisticRegression(), grid, scoring=name, average=average, cv=4, refit=False
        ).fit(X, y)
        assert search.scoring_ == want
        frame = search.predictions_
        for i, label in enumerate(search.cube_.param.values):
            part = frame[frame.param == label]
            if name == "miss":  # the pooled error, negated: as scikit-learn's loss scorers
                expected = -zero_one_loss(part.y_true, part.y_pred)
            else:
                expected = measure.cube(part.drop(columns="param").cv.counts(), "recall", "tp_fp")
                expected = float(expected.mean())  # macro over the classes of y
            assert search.cv_results_["pooled_test_score"][i] == pytest.approx(expected)


def test_a_new_metric_tunes_a_threshold(new_metrics):
    X, y = _data(1)
    clf = cvframe.PooledThresholdClassifierCV(LogisticRegression(), scoring="miss", cv=4).fit(X, y)
    assert clf.scoring_ == "neg_miss_tp_fp"
    best = clf.cv_results_.loc[clf.cv_results_["pooled"].idxmax()]
    wrong = (best.fp + best.fn) / (best.tp + best.fp + best.fn + best.tn)
    assert clf.best_score_ == pytest.approx(-wrong)


def test_a_new_metric_is_explained_and_reconciled(new_metrics):
    # folds of 10, 20 and 40 samples: the fold mean of the error is not the pooled error
    ds = cvframe.from_counts(
        {"tp": [3, 8, 10], "fp": [1, 2, 10], "fn": [2, 1, 5], "tn": [4, 9, 15]}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pooled = measure.cube(ds, "recall", "tp_fp").item()
        e = cvframe.explain(f"{pooled:.4f}", ds, "hit_rate")
        assert list(e.matches["name"]) == ["pooled hit rate"]
        avg, pooled = (measure.cube(ds, "error", v).item() for v in ("avg", "tp_fp"))
        e = cvframe.explain(f"{avg:.4f}", ds, "miss")
        assert list(e.matches["name"]) == ["fold-averaged miss"]
        r = cvframe.reconcile(f"{avg:.4f}", f"{pooled:.4f}", ds, "miss")
    assert r.names == ("fold-averaged miss", "pooled miss") and all(r.matched)
    assert r.parts["value"].sum() == pytest.approx(r.gap)
    assert r.parts["part"].iloc[0] == "fold-size weighting"


def test_a_new_metric_is_a_row_of_the_report(new_metrics):
    ds = cvframe.datasets.basili_confusion()
    table = cvframe.tidy.metric_table(ds)
    assert {"hit rate", "miss"} <= set(table["metric"])
    row = table.set_index("metric").loc["hit rate"]
    assert row["average"] == "macro"
    assert row["pooled"] == pytest.approx(measure.cube(ds, "recall", "tp_fp", "macro").item())
    assert "miss" in ds.cv.report()


# --- the error, a registry entry, against scikit-learn -----------------------------------------


@pytest.mark.parametrize("classes", [2, 4])
def test_the_error_is_scikit_learns_zero_one_loss(classes):
    rng = np.random.default_rng(classes)
    y = rng.integers(0, classes, 300)
    pred = np.where(rng.random(300) < 0.7, y, rng.integers(0, classes, 300))
    fold = np.repeat(np.arange(5), 60)
    df = pd.DataFrame({"fold": fold, "y_true": y, "y_pred": pred})
    ds = df.cv.counts()
    per_fold = [zero_one_loss(y[fold == i], pred[fold == i]) for i in range(5)]
    assert measure.cube(ds, "error", "tp_fp").item() == pytest.approx(zero_one_loss(y, pred))
    assert measure.cube(ds, "error", "avg").item() == pytest.approx(np.mean(per_fold))
    assert metrics.resolve("zero_one_loss").metric == "error"


def test_every_metric_of_one_class_has_its_class_averages():
    # specificity among them: the macro mean of each class's true-negative rate
    ds = cvframe.datasets.basili_confusion()
    per_class = measure.cube(ds, "specificity", "tp_fp")
    macro = measure.cube(ds, "specificity", "tp_fp", "macro")
    assert macro.item() == pytest.approx(per_class.mean().item())
    assert {m.kernel for m in metrics.by_kind("count").values() if m.scope == "class"} <= set(
        multiclass.METRICS
    )
