"""Errors that point to the fix.

A method of one accessor asked of the other (``pred.cv.f_tp_fp()``, ``pred.cv.plot.folds()``,
``ds.cv.plot.roc()``, and every other name in the difference of the two classes, their plot
namespaces included) raises an AttributeError naming the object that has it and the call
that gets there; ``dir``, ``hasattr`` and completion still see only what the object has.
An integer-valued regression target is refused as such by ``cross_validate`` before any
advice about splitting, while genuine many-class targets still run.
"""

from __future__ import annotations

import re
import rlcompleter

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import KFold
from sklearn.naive_bayes import GaussianNB
from sklearn.utils.multiclass import type_of_target

import cvframe
from cvframe.accessors import CVDataFrameAccessor, CVDatasetAccessor, _hints
from cvframe.plot import DataFramePlotter, DatasetPlotter


def public(cls: type) -> set[str]:
    return {n for n in dir(cls) if not n.startswith("_")}


# the set differences, computed here from the classes (not from the module under test)
CUBE_ONLY = sorted(public(CVDatasetAccessor) - public(CVDataFrameAccessor))
FRAME_ONLY = sorted(public(CVDataFrameAccessor) - public(CVDatasetAccessor))
CUBE_PLOTS = sorted(public(DatasetPlotter) - public(DataFramePlotter))
FRAME_PLOTS = sorted(public(DataFramePlotter) - public(DatasetPlotter))


@pytest.fixture(scope="module")
def pred() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 60)
    return pd.DataFrame(
        {"fold": np.repeat([0, 1, 2], 20), "y_true": y, "y_pred": y, "score": rng.random(60)}
    )


@pytest.fixture(scope="module")
def ds(pred: pd.DataFrame):
    return pred.cv.counts()


def raised(obj: object, name: str) -> str:
    with pytest.raises(AttributeError) as info:
        getattr(obj, name)
    assert info.value.name == name
    return str(info.value)


def test_the_differences_are_the_known_ones():
    # a test of the test: the parametrized lists are not empty and hold the issue's examples
    assert {"f_tp_fp", "macro", "report"} <= set(CUBE_ONLY)
    assert {"roc", "auc", "counts"} <= set(FRAME_ONLY)
    assert CUBE_PLOTS == ["confusion", "folds", "methods"]
    assert FRAME_PLOTS == ["calibration", "cost_roc", "pr_curve", "roc", "score_rates"]
    assert "compare" not in CUBE_ONLY + FRAME_ONLY and "plot" not in CUBE_ONLY + FRAME_ONLY


@pytest.mark.parametrize("name", CUBE_ONLY)
def test_a_cube_method_asked_of_a_frame_says_build_the_cube(pred, name):
    message = raised(pred.cv, name)
    assert f"{name!r} is not a method of a predictions frame (pred.cv)" in message
    assert "it is a method of the counts cube (ds.cv)" in message
    assert re.search(rf"pred\.cv\.counts\(\)\.cv\.{name}\((scores=pred)?\)$", message), message
    assert not hasattr(pred.cv, name) and name not in dir(pred.cv)


def test_a_cube_method_that_takes_the_scores_gets_the_frame(pred):
    assert raised(pred.cv, "report").endswith("pred.cv.counts().cv.report(scores=pred)")
    assert raised(pred.cv, "f_tp_fp").endswith("pred.cv.counts().cv.f_tp_fp()")


@pytest.mark.parametrize("name", FRAME_ONLY)
def test_a_frame_method_asked_of_a_cube_says_where_the_scores_are(ds, name):
    message = raised(ds.cv, name)
    assert f"{name!r} is not a method of a counts cube (ds.cv)" in message
    assert f"df.cv.{name}()" in message
    if name == "counts":
        assert "it builds one from the predictions frame" in message
    else:  # every other frame method reads the scores
        assert "it needs the predictions frame with scores" in message
    assert not hasattr(ds.cv, name) and name not in dir(ds.cv)


@pytest.mark.parametrize("name", CUBE_PLOTS)
def test_a_cube_plot_asked_of_a_frame(pred, name):
    message = raised(pred.cv.plot, name)
    assert f"{name!r} is not a plot of a predictions frame (pred.cv.plot)" in message
    assert "it is a plot of the counts cube (ds.cv.plot)" in message
    assert message.endswith(f"pred.cv.counts().cv.plot.{name}()")
    assert not hasattr(pred.cv.plot, name) and name not in dir(pred.cv.plot)


@pytest.mark.parametrize("name", FRAME_PLOTS)
def test_a_frame_plot_asked_of_a_cube(ds, name):
    message = raised(ds.cv.plot, name)
    assert f"{name!r} is not a plot of a counts cube (ds.cv.plot)" in message
    scores = "it needs the predictions frame with scores (a cube holds counts only)"
    assert message.endswith(f"{scores}: df.cv.plot.{name}()")
    assert not hasattr(ds.cv.plot, name) and name not in dir(ds.cv.plot)


def test_the_issues_three_calls(pred, ds):
    with pytest.raises(AttributeError, match=re.escape("pred.cv.counts().cv.f_tp_fp()")):
        pred.cv.f_tp_fp()
    with pytest.raises(AttributeError, match=re.escape("pred.cv.counts().cv.plot.folds()")):
        pred.cv.plot.folds()
    with pytest.raises(
        AttributeError, match=re.escape("with scores (a cube holds counts only): df.cv.plot.roc()")
    ):
        ds.cv.plot.roc()


@pytest.mark.parametrize("where", ["pred.cv", "ds.cv", "pred.cv.plot", "ds.cv.plot"])
def test_any_other_name_keeps_pythons_message_and_suggestion(pred, ds, where):
    obj = eval(where, {"pred": pred, "ds": ds})
    with pytest.raises(AttributeError) as info:
        obj.f_tp_fpp  # noqa: B018
    assert str(info.value) == f"{type(obj).__name__!r} object has no attribute 'f_tp_fpp'"
    assert info.value.name == "f_tp_fpp" and info.value.obj is obj  # "Did you mean" reads these
    assert not hasattr(obj, "_private") and not hasattr(obj, "__array__")


def test_a_property_that_raises_keeps_its_own_error(ds, monkeypatch):
    monkeypatch.setattr(CVDatasetAccessor, "plot", property(lambda self: self._obj.no_such))
    with pytest.raises(AttributeError, match="'Dataset' object has no attribute 'no_such'"):
        ds.cv.plot  # noqa: B018 - not "'CVDatasetAccessor' object has no attribute 'plot'"


def test_dir_and_completion_list_only_what_the_object_has(pred, ds):
    assert public(type(pred.cv)) == {n for n in dir(pred.cv) if not n.startswith("_")}
    complete = rlcompleter.Completer({"pred": pred, "ds": ds})
    names = lambda text: {complete.complete(text, i) for i in range(50)} - {None}  # noqa: E731
    assert names("pred.cv.f_") == set()  # no cube method offered on a frame
    assert names("ds.cv.f_tp") == {"ds.cv.f_tp_fp("}
    assert names("pred.cv.ro") == {"pred.cv.roc(", "pred.cv.roc_hull("}
    assert names("ds.cv.plot.r") == set() and names("pred.cv.plot.f") == set()


def test_a_method_added_later_gets_its_hint(monkeypatch):
    monkeypatch.setattr(_hints, "HINTS", {})

    class Cube:
        def f_new(self):  # a method only the cube has
            return 1

        def __getattr__(self, name):
            raise _hints.missing(self, name)

    class Frame:  # no f_new
        def __getattr__(self, name):
            raise _hints.missing(self, name)

    _hints.link(Cube, Frame)
    with pytest.raises(AttributeError, match=re.escape("pred.cv.counts().cv.f_new()")):
        Frame().f_new  # noqa: B018
    assert Cube().f_new() == 1


# --- a regression target is not a classification target ----------------------------------------


def X_of(n: int) -> np.ndarray:
    return np.random.default_rng(1).normal(size=(n, 3))


@pytest.mark.parametrize(
    "kwargs", [{}, {"stratified": False}, {"cv": KFold(5)}, {"cv": 3, "repeats": 2}]
)
@pytest.mark.parametrize("as_float", [False, True])
def test_poisson_counts_are_refused_before_any_splitter_advice(kwargs, as_float):
    y = np.random.default_rng(0).poisson(20, 500)
    assert type_of_target(y) == "multiclass"  # scikit-learn alone calls it classes
    n = len(np.unique(y))
    with pytest.raises(ValueError) as info:
        cvframe.cross_validate(
            GaussianNB(), X_of(500), y * 1.0 if as_float else y, progress=False, **kwargs
        )
    message = str(info.value)
    assert message.startswith(f"y looks like a regression target ({n} distinct numeric values")
    assert "not a classification target" in message
    assert "stratif" not in message and "fold" not in message  # no advice about splitting


@pytest.mark.parametrize(
    "y, ok",
    [
        (np.repeat(np.arange(11), 5), True),  # 11 classes of 5 samples: the smallest allowed
        (np.r_[np.repeat(np.arange(10), 5), 10, 10, 10, 10], False),  # an 11th value, 4 samples
        (np.r_[np.repeat(np.arange(9), 5), 9, 9], True),  # 10 values: never a count
        (np.repeat(np.arange(20), 25) + 1000, True),  # 20 classes coded 1000..1019
        (np.random.default_rng(0).poisson(20, 500).astype(str), True),  # codes given as text
    ],
)
def test_the_rule_at_its_edges(y, ok):
    def run() -> pd.DataFrame:
        return cvframe.cross_validate(
            GaussianNB(), X_of(len(y)), y, cv=2, stratified=False, progress=False
        )

    if ok:
        assert run()["y_true"].nunique() == len(np.unique(y))
    else:
        with pytest.raises(ValueError, match=r"y looks like a regression target \(11 distinct"):
            run()


def test_digits_ten_classes_still_run():
    datasets = pytest.importorskip("sklearn.datasets")
    X, y = datasets.load_digits(return_X_y=True)
    frame = cvframe.cross_validate(GaussianNB(), X, y, cv=3, progress=False)
    assert frame.attrs["labels"] == list(range(10)) and len(frame) == len(y)
