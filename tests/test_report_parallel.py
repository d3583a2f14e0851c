"""The report's plots drawn in forked processes are the plots drawn in process.

``render(..., n_jobs=2)`` draws each plot in a forked process and returns its PNG bytes; with
one core, without the ``fork`` start method, or when a process dies, the plots are drawn in
process. The PNGs are byte for byte the same either way, and the same as a
``savefig(bbox_inches="tight")`` per resolution tried (what the report did before it measured
the area without saving).
"""

from __future__ import annotations

import io
import multiprocessing
import os
import warnings

import numpy as np
import pandas as pd
import pytest

import cvframe
from cvframe.cli import demo
from cvframe.report import _common, html, render

mpl = pytest.importorskip("matplotlib", reason="the HTML figures need matplotlib")
mpl.use("Agg")
pytest.importorskip("seaborn", reason="the report's plots need seaborn")

fork = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="needs the fork start method"
)


def _predictions() -> pd.DataFrame:
    """Three classes, two repeats of 3 folds, probability scores per class."""
    rng = np.random.default_rng(1)
    n, k = 90, 3
    parts = []
    for r in range(2):
        y = rng.integers(0, k, n)
        s = rng.dirichlet(np.ones(k), n) + np.eye(k)[y]
        s /= s.sum(axis=1, keepdims=True)
        part = pd.DataFrame(
            {"repeat": r, "fold": rng.permutation(np.arange(n) % 3), "y_true": y}
        ).assign(y_pred=s.argmax(axis=1))
        for c in range(k):
            part[f"score_{c}"] = s[:, c]
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def _fake_drawn(p: html._Plot) -> html.Figure:
    return html.Figure(p.name, p.caption, p.name.encode())


@fork
@pytest.mark.slow(reason="draws four report plots twice, in process and forked (~3 s)")
def test_forked_plots_are_byte_for_byte_the_plots_drawn_here(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    pred = _predictions()
    cubes = {"three": pred.cv.counts()}
    here = render(cubes, scores={"three": pred}, max_fold_rows=5)
    calls = []
    original = html.forked
    monkeypatch.setattr(html, "forked", lambda *a: calls.append(a[2]) or original(*a))
    there = render(cubes, scores={"three": pred}, max_fold_rows=5, n_jobs=2)
    assert calls == [2]  # the plots were drawn by two forked processes
    names = [(c, f.name) for c, f in there[1]]
    assert names == [("three", "folds"), ("three", "methods"), ("three", "confusion")] + [
        ("three", "roc")
    ]
    assert there == here  # text, HTML page and every PNG's bytes


@pytest.mark.parametrize("why", ["one core", "no fork", "n_jobs=1", "not Agg"])
def test_without_cores_fork_or_agg_the_plots_are_drawn_here(monkeypatch, why):
    monkeypatch.setattr(os, "cpu_count", lambda: 1 if why == "one core" else 2)
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["fork", "spawn"])
    if why == "no fork":
        monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    if why == "not Agg":
        monkeypatch.setattr(mpl, "get_backend", lambda: "TkAgg")
    monkeypatch.setattr(html, "_drawn", _fake_drawn)

    def refuse(*args):
        raise AssertionError("no process may be forked")

    monkeypatch.setattr(html, "forked", refuse)
    n_jobs = 1 if why == "n_jobs=1" else -1
    assert html.plot_workers(n_jobs, 2) == 1
    cubes = {"a": cvframe.datasets.table2(), "b": cvframe.datasets.table1()}
    pages, figs = render(cubes, n_jobs=n_jobs)
    assert [(c, f.png) for c, f in figs] == [
        (c, name) for c in "ab" for name in (b"folds", b"methods", b"confusion")
    ]
    assert pages["html"].count("<img") == 6


def _parallel(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["fork", "spawn"])
    monkeypatch.setattr(mpl, "get_backend", lambda: "agg")
    monkeypatch.setattr(html, "_drawn", _fake_drawn)


@pytest.mark.parametrize("dies", [False, True])
def test_the_largest_cube_is_drawn_first_and_a_dead_process_leaves_the_plots_here(
    monkeypatch, dies
):
    """The cube with the most classes goes first, its plots in page order, each handed on as
    its content is computed; the figures come back to their cubes in page order; a process
    that dies leaves every plot to this one."""
    _parallel(monkeypatch)
    order = []

    def fake(fn, items, workers):
        assert workers == 2 and not isinstance(items, list)  # handed on as they come
        out = []
        for p in items:
            order.append(p.name)
            out.append(fn(p))
        return None if dies else out

    monkeypatch.setattr(html, "forked", fake)
    pred = _predictions()
    cubes = {"one": cvframe.datasets.table2(), "three": pred.cv.counts()}
    _, figs = render(cubes, scores={"three": pred}, n_jobs=-1)
    assert order == ["folds", "methods", "confusion", "roc", "folds", "methods", "confusion"]
    assert [(c, f.png) for c, f in figs] == [
        ("one", b"folds"),
        ("one", b"methods"),
        ("one", b"confusion"),
        ("three", b"folds"),
        ("three", b"methods"),
        ("three", b"confusion"),
        ("three", b"roc"),
    ]


def _twice_and_warn(x: int) -> int:
    warnings.warn(f"drawn {x}", UserWarning, stacklevel=1)
    return 2 * x


def _fail(x: int) -> int:
    raise ValueError(f"no plot for {x}")


def _die(x: int) -> int:
    os._exit(3)


@fork
def test_forked_keeps_the_order_raises_warnings_and_errors_here_and_survives_a_death():
    with pytest.warns(UserWarning) as caught:
        assert _common.forked(_twice_and_warn, [1, 2, 3], 2) == [2, 4, 6]
    assert sorted(str(w.message) for w in caught) == ["drawn 1", "drawn 2", "drawn 3"]
    with pytest.raises(ValueError, match="no plot for 1"):
        _common.forked(_fail, [1], 2)
    assert _common.forked(_die, [1, 2], 2) is None


def test_fork_workers(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["fork"])
    assert [_common.fork_workers(n, 8) for n in (1, 2, 4, -1)] == [1, 2, 2, 2]
    assert _common.fork_workers(-1, 1) == 1
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    assert _common.fork_workers(-1, 8) == 1


@pytest.mark.parametrize(
    ("n_jobs", "error", "match"),
    [(0, ValueError, "n_jobs=0"), (-2, ValueError, "n_jobs=-2"), (1.5, TypeError, "n_jobs=")]
    + [(True, TypeError, "n_jobs=True")],
)
def test_bad_n_jobs_is_refused_with_the_fix(n_jobs, error, match):
    with pytest.raises(error, match=match) as info:
        render(cvframe.datasets.table2(), formats=["text"], n_jobs=n_jobs)
    assert "-1" in str(info.value) or "bool" in str(info.value)


def _fake_fit(name: str, repeats: int, n_jobs: int, show) -> pd.DataFrame:
    return pd.DataFrame({"data": [name], "jobs": [n_jobs]})


@pytest.mark.parametrize("jobs", [1, -1])
def test_demo_frames_call_ready_as_each_data_set_is_fitted(monkeypatch, jobs):
    """Forked or not, ``ready`` sees every data set's frame once (the extra plots start on
    breast cancer's), and the frames come back in the data sets' order."""
    if jobs != 1 and "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("needs the fork start method")
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(demo, "_fit_one", _fake_fit)
    seen = []
    frames = demo._frames(1, jobs, False, lambda name, frame: seen.append((name, len(frame))))
    assert sorted(seen) == [("breast_cancer", 1), ("digits", 1)]
    assert list(frames) == ["breast_cancer", "digits"]
    assert [f["data"].iloc[0] for f, _ in frames.values()] == ["breast_cancer", "digits"]
    assert {int(f["jobs"].iloc[0]) for f, _ in frames.values()} == {1}  # one core each


def _old_png(fig, max_px):
    """What the report saved before: ``savefig(bbox_inches="tight")`` at each resolution tried."""
    dpi = html.DPI

    def save(dpi):
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
        return buf.getvalue(), int.from_bytes(buf.getvalue()[16:20], "big")

    png, width = save(dpi)
    for _ in range(4):
        if width <= max_px:
            break
        dpi = max(dpi * 0.995 * max_px / width, html._MIN_DPI)
        png, width = save(dpi)
    return html._small(png)


@pytest.mark.parametrize("layout", [None, "constrained"])
@pytest.mark.parametrize("inches", [4, 14])
def test_the_png_is_what_savefig_tight_writes(layout, inches):
    """Measured without saving, saved once: the bytes of saving "tight" at every resolution
    (a figure too wide at 100 dpi is saved at a lower one; a layout engine is honoured)."""
    import matplotlib.pyplot as plt

    def figure():
        fig, ax = plt.subplots(figsize=(inches, 2.5), layout=layout)
        ax.plot([0, 1, 2], [2, 0, 1], label="a line")
        ax.set_title("a title that reaches the edge " * (inches // 4))
        ax.legend(loc="center left", bbox_to_anchor=(1, 0.5))
        return fig

    new = html._png(figure(), max_px=1200)
    old = _old_png(figure(), max_px=1200)
    assert new == old
    assert html.Figure("", "", new).size[0] <= 1200
