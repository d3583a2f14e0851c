"""Plots that hold many classes and several models: every plot of a counts cube or a
predictions frame, at 2, 10 and 20 classes x 1 and 3 models, draws no two texts on top of
one another (tick labels, titles, the suptitle, legend texts, cell numbers, axis labels) and
keeps every text inside the figure."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.text import Text  # noqa: E402

import cvframe  # noqa: E402, F401 - registers the accessors
from cvframe import plot, tidy  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings("ignore::cvframe.UndefinedMetricWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
]

CLASSES = (2, 10, 20)
MODELS = (1, 3)


def _frame(classes: int, models: int, seed: int = 0) -> pd.DataFrame:
    """A small predictions frame: 3 folds, a ``model`` column, scores ``score_<label>``."""
    rng = np.random.default_rng(seed)
    n = max(60, 6 * classes)
    parts = []
    for m in range(models):
        y = np.tile(np.arange(classes), n // classes + 1)[:n]
        rng.shuffle(y)
        raw = rng.normal(0, 1.0, (n, classes)) + 1.5 * np.eye(classes)[y]
        df = pd.DataFrame({"fold": np.arange(n) % 3, "y_true": y, "y_pred": raw.argmax(1)})
        for c in range(classes):
            df[f"score_{c}"] = raw[:, c]
        df.insert(0, "model", f"model {m}")
        parts.append(df)
    return pd.concat(parts, ignore_index=True)


def _cube(frame: pd.DataFrame):
    return frame[["model", "fold", "y_true", "y_pred"]].cv.counts()


def _draw(name: str, classes: int, models: int):
    df = _frame(classes, models)
    if name in ("folds", "methods", "confusion"):
        return getattr(plot, name)(_cube(df))
    if name == "calibration":  # probabilities: a softmax of the scores
        cols = [f"score_{c}" for c in range(classes)]
        e = np.exp(df[cols].to_numpy())
        df[cols] = e / e.sum(axis=1, keepdims=True)
    return getattr(plot, name)(df)


PLOTS = (
    "folds",
    "methods",
    "confusion",
    "roc",
    "score_rates",
    "cost_roc",
    "pr_curve",
    "calibration",
)


def _drawn_ticks(fig) -> set[int]:
    """ids of tick labels that matplotlib draws (inside the view limits)."""
    drawn = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis._update_ticks():
                drawn.add(id(tick.label1))
                drawn.add(id(tick.label2))
    return drawn


def _problems(fig) -> list[str]:
    """Every pair of drawn, non-empty texts that overlap (touching is allowed) and every text
    reaching outside the figure."""
    # the layout of a full draw, without painting its pixels (about half of a draw's time):
    # every text lands where fig.canvas.draw() puts it, the same boxes to the last decimal
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    drawn = _drawn_ticks(fig)
    ticks = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                ticks.add(id(tick.label1))
                ticks.add(id(tick.label2))
    texts = []
    for t in fig.findobj(Text):
        if not t.get_visible() or not t.get_text().strip():
            continue
        if id(t) in ticks and id(t) not in drawn:
            continue
        if t.axes is not None and not t.axes.get_visible():
            continue
        texts.append((t.get_text(), t.get_window_extent(renderer)))
    fb = fig.bbox
    tol = 0.5  # px: touching is allowed
    out = []
    for s, bb in texts:
        if bb.x0 < fb.x0 - tol or bb.y0 < fb.y0 - tol or bb.x1 > fb.x1 + tol or bb.y1 > fb.y1 + tol:
            out.append(f"outside the figure: {s!r} {bb.bounds} in {fb.bounds}")
    if len(texts) < 2:
        return out
    box = np.array([[b.x0, b.y0, b.x1, b.y1] for _, b in texts])
    w = np.minimum(box[:, None, 2], box[None, :, 2]) - np.maximum(box[:, None, 0], box[None, :, 0])
    h = np.minimum(box[:, None, 3], box[None, :, 3]) - np.maximum(box[:, None, 1], box[None, :, 1])
    hit = (w > tol) & (h > tol)
    for i, j in zip(*np.nonzero(np.triu(hit, 1)), strict=True):
        s1, s2 = texts[i][0], texts[j][0]
        out.append(f"overlap: {s1!r} and {s2!r} ({w[i, j]:.1f} x {h[i, j]:.1f} px)")
    return out


def _case(name: str, classes: int, models: int):
    """roc, cost_roc and score_rates draw a panel per class (score_rates: per class, model
    and rate); 20 panels and more take 2-15 s to lay out (score_rates at 20 classes x 3
    models: 120 panels sharing their axes, ~12 s), so they run with the slow tests."""
    per_class = {"roc": 1, "cost_roc": 1, "pr_curve": 1, "calibration": 1}.get(name, 0)
    per_class = 2 * models if name == "score_rates" else per_class
    panels = classes * per_class
    if panels >= 20:
        took = "~12 s" if panels > 60 else "2-6 s"
        reason = f"{name} with {panels} panels renders in {took}"
        return pytest.param(name, classes, models, marks=pytest.mark.slow(reason=reason))
    return pytest.param(name, classes, models)


@pytest.mark.parametrize(
    ("name", "classes", "models"),
    [_case(n, c, m) for n in PLOTS for c in CLASSES for m in MODELS],
)
def test_plot_texts_do_not_overlap_and_stay_inside(name, classes, models):
    obj = _draw(name, classes, models)
    fig = obj.figure
    try:
        problems = _problems(fig)
    finally:
        plt.close(fig)
    assert not problems, f"{len(problems)} problems, e.g. " + "; ".join(problems[:5])


def test_confusion_cell_numbers_of_shares_and_large_counts_do_not_overlap():
    cube = _cube(_frame(12, 1))
    for kw in ({"percent": True}, {"normalize": "all", "percent": True}, {"normalize": "pred"}):
        ax = plot.confusion(cube, **kw)
        try:
            assert all(("%" in t.get_text()) == ("percent" in kw) for t in ax.texts)
            assert not _problems(ax.figure)
        finally:
            plt.close(ax.figure)
    table = tidy.confusion_table(cube)
    table["value"] = table["value"] * 123_457 + 9_876_543  # 7-8 digit counts
    ax = plot.confusion(table)
    try:
        shown = [t.get_text() for t in ax.texts if t.get_visible()]
        assert shown and all(len(t) <= 4 for t in shown), shown[:5]  # "9.9M", "10M"
        assert not _problems(ax.figure)
    finally:
        plt.close(ax.figure)


def test_confusion_writes_no_numbers_that_would_not_fit_their_cells():
    table = tidy.confusion_table(_cube(_frame(10, 1)))
    table["value"] = table["value"] * 1000 + 1000  # four digits: ~20 pt at 9 pt
    ax = plot.confusion(table, height=3.0, aspect=1.4)  # cells of ~16 pt
    try:
        assert not [t for t in ax.texts if t.get_visible() and t.get_text()]
        assert not _problems(ax.figure)
    finally:
        plt.close(ax.figure)


def test_roc_legends_lie_outside_the_panels():
    g = plot.roc(_frame(10, 3))
    try:
        g.figure.draw_without_rendering()  # the layout of a draw, no pixels painted
        r = g.figure.canvas.get_renderer()
        legends = [ax.get_legend() for ax in g.axes.flat if ax.get_legend() is not None]
        assert len(legends) == 10
        for ax in g.axes.flat:
            if ax.get_legend() is not None:
                assert ax.get_legend().get_window_extent(r).x0 >= ax.bbox.x1
    finally:
        plt.close(g.figure)


@pytest.mark.parametrize(
    ("values", "normalize", "texts"),
    [
        ([0, 9999, 10_000, 999_999, 3.4e6, np.nan], None, ["0", "9999", "10k", "1M", "3.4M", ""]),
        ([0.0, 0.5, 1.0, 0.123], "true", ["0%", "50%", "100%", "12%"]),
        ([0.0, 0.5, 1.0, 0.123], "all", ["0.00", "0.50", "1.00", "0.12"]),
    ],
)
def test_cell_labels_are_short(values, normalize, texts):
    from cvframe.plot._style import cell_labels

    percent = texts[0].endswith("%")
    assert list(cell_labels(np.array(values, float), normalize, percent)) == texts


def test_the_check_finds_overlapping_texts_and_texts_outside_the_figure():
    fig, ax = plt.subplots(figsize=(3, 2), layout="constrained")
    try:
        assert not _problems(fig)
        ax.text(0.5, 0.5, "a long text", transform=ax.transAxes)
        ax.text(0.52, 0.52, "another", transform=ax.transAxes)
        ax.text(1.2, 0.5, "beyond the right edge", transform=ax.transAxes)
        found = _problems(fig)
        assert any(p.startswith("overlap: 'a long text' and 'another'") for p in found)
        assert any(p.startswith("outside the figure: 'beyond") for p in found)
    finally:
        plt.close(fig)
