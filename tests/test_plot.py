"""Every plot renders to a PNG of sensible size for binary, multiclass, repeated and model-dim
inputs; plots return Axes/FacetGrid and never show; figures are closed after each test
(conftest)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.image as mpimg  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import seaborn as sns  # noqa: E402
import xarray as xr  # noqa: E402

import cvframe  # noqa: E402
from cvframe import plot  # noqa: E402

# module-scoped fixtures: under --dist loadfile one worker runs this file, so they are built once


def _predictions(
    seed: int = 0,
    n: int = 120,
    folds: int = 5,
    repeats: int = 2,
    classes: int = 2,
    models: tuple[str, ...] = (),
) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frames = []
    for m in models or (None,):
        y = rng.integers(0, classes, n * repeats)
        noise = rng.normal(0, 1.0, (y.size, classes))
        raw = noise + 2.0 * np.eye(classes)[y]
        df = pd.DataFrame(
            {
                "repeat": np.repeat(np.arange(repeats), n),
                "fold": np.tile(np.arange(n) % folds, repeats),
                "y_true": y,
                "y_pred": raw.argmax(1),
            }
        )
        if classes == 2:
            df["score"] = raw[:, 1] - raw[:, 0]
        else:
            for c in range(classes):
                df[f"score_{c}"] = raw[:, c]
        if m is not None:
            df.insert(0, "model", m)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


CUBES = {
    "binary": lambda: cvframe.datasets.table2(),
    "multiclass": lambda: cvframe.datasets.slides_confusion(),
    "repeated": lambda: _predictions(classes=3).cv.counts(),
    "model_dim": lambda: _predictions(classes=3, models=("lr", "nb")).cv.counts(),
    "binary_models": lambda: _predictions(models=("lr", "nb", "tree")).cv.counts(),
}


def _png(obj, path, min_px=(180, 180)):
    assert isinstance(obj, (plt.Axes, sns.FacetGrid)), type(obj)
    fig = obj.figure
    fig.savefig(path, dpi=80)
    img = mpimg.imread(path)
    h, w = img.shape[:2]
    assert h >= min_px[0] and w >= min_px[1], (h, w)
    assert h <= 4000 and w <= 4000, (h, w)
    assert img[..., :3].std() > 0.02  # something was drawn
    return img


@pytest.mark.parametrize("name", list(CUBES))
def test_folds_plot(name, tmp_path):
    ds = CUBES[name]()
    g = plot.folds(ds)
    _png(g, tmp_path / "folds.png")
    titles = [ax.get_title() for ax in g.axes[0]]
    assert titles[:3] == ["precision", "recall", "F"] or "precision" in titles[0]
    n_rows = 1 if "model" not in ds.dims else ds.sizes["model"]
    assert g.axes.shape == (n_rows, 3)
    labels = [t.get_text() for t in g.legend.get_texts()]
    assert labels[:2] == ["pooled / F_tp,fp", "mean of folds / F_avg"]


def test_folds_plot_draws_every_fold(tmp_path):
    ds = cvframe.datasets.table1()
    g = plot.folds(ds)
    ax = g.axes_dict["precision"]
    pts = np.concatenate(
        [
            c.get_offsets()[:, 1]
            for c in ax.collections
            if hasattr(c, "get_offsets") and len(c.get_offsets()) and c.get_offsets().shape[0] == 4
        ]
    )
    expected = ds.cv.precision().values.ravel()
    assert sorted(np.round(pts, 6)) == sorted(np.round(expected, 6))


@pytest.mark.parametrize("name", list(CUBES))
def test_methods_plot(name, tmp_path):
    ds = CUBES[name]()
    g = plot.methods(ds)
    _png(g, tmp_path / "methods.png")
    assert [t.get_text() for t in g.legend.get_texts()] == [
        "F_tp,fp",
        "F_avg",
        "F_pr,re",
        "~F_avg",
        "~F_pr,re",
    ]


@pytest.mark.parametrize(
    "name, normalize",
    [
        ("binary", None),
        ("multiclass", "pred"),
        ("repeated", "true"),
        ("model_dim", "all"),
        ("binary_models", "true"),
    ],
)
def test_confusion_plot(name, normalize, tmp_path):
    ds = CUBES[name]()
    out = plot.confusion(ds, normalize=normalize)
    _png(out, tmp_path / "conf.png", min_px=(100, 100))
    if "model" in ds.dims:
        assert isinstance(out, sns.FacetGrid) and len(out.axes.flat) == ds.sizes["model"]
    else:
        assert isinstance(out, plt.Axes)


def test_confusion_values_and_errors():
    ax = plot.confusion(cvframe.datasets.slides_confusion(), normalize="true")
    texts = [t.get_text() for t in ax.texts]
    assert texts[:3] == ["0.88", "0.10", "0.02"]
    with pytest.raises(ValueError, match="normalize='rows' is not valid"):
        plot.confusion(cvframe.datasets.table1(), normalize="rows")
    counts_only = cvframe.datasets.slides_confusion().drop_vars("confusion")
    with pytest.raises(cvframe.CountsError, match="no 'confusion' variable"):
        plot.confusion(counts_only)
    counts_only.attrs["task"] = "multilabel"  # one 2x2 panel (present/absent) per label
    g = plot.confusion(counts_only)
    assert len(g.axes.flat) == counts_only.sizes["class"]


@pytest.mark.parametrize("kw", [dict(repeats=1), dict(classes=3, n=150), dict(models=("lr", "nb"))])
def test_roc_and_score_rates(kw, tmp_path):
    df = _predictions(**kw)
    g = plot.roc(df)
    _png(g, tmp_path / "roc.png")
    assert g.axes.flat[0].get_xlabel() in ("false positive rate", "")
    g2 = plot.score_rates(df)
    _png(g2, tmp_path / "sr.png")


def test_roc_draws_the_merged_curve_in_black():
    df = _predictions(repeats=1).drop(columns="repeat")
    g = df.cv.plot.roc()
    black = [ln for ln in g.ax.get_lines() if ln.get_color() == "black"]
    assert len(black) == 1
    merged = cvframe.scores.roc(df).query("kind == 'merged'")
    np.testing.assert_allclose(black[0].get_xdata(), merged["fpr"])


def test_accessor_namespaces():
    ds = cvframe.datasets.table1()
    assert isinstance(ds.cv.plot, plot.DatasetPlotter)
    # the accessor shows the function's docstring without the ds/df parameter it supplies
    from cvframe._core.docs import accessor_doc

    assert ds.cv.plot.folds.__doc__ == accessor_doc(plot.folds, data=("data",))
    assert "data : xarray.Dataset" not in ds.cv.plot.folds.__doc__
    assert pd.DataFrame().cv.plot.roc.__doc__ == accessor_doc(plot.roc, data=("data",))
    df = _predictions()
    assert isinstance(df.cv.plot, plot.DataFramePlotter)
    assert isinstance(df.cv.plot.score_rates(), sns.FacetGrid)
    with pytest.raises(AttributeError):
        ds.cv.plot.state = 1  # stateless: __slots__


@pytest.fixture(scope="module")
def study():
    return cvframe.bias_study(prevalence=(0.01, 0.03, 0.05), f=(0.7, 0.9), trials=200, seed=1)


@pytest.mark.parametrize(
    "x, y", [("prevalence", "rel_bias"), ("f", "rel_std"), ("prevalence", "p_undefined")]
)
def test_bias_plot(study, x, y, tmp_path):
    g = plot.bias(study, x=x, y=y)
    _png(g, tmp_path / "bias.png")
    assert g.axes.shape[1] == 2  # stratified, unstratified


def test_bias_plot_errors(study):
    with pytest.raises(ValueError, match="y='bias' is not valid"):
        plot.bias(study, y="bias")
    with pytest.raises(ValueError, match="must be a bias_study Dataset"):
        plot.bias(xr.Dataset(), y="rel_bias")


def test_fold_risk_plot(tmp_path):
    ax = plot.fold_risk(n_pos=np.arange(10, 120, 5), trials=(1, 10, 1000))
    _png(ax, tmp_path / "risk.png")
    assert len(ax.get_lines()) >= 3
    y = ax.get_lines()[0].get_ydata()
    expected = cvframe.p_fold_without_positives(np.arange(10, 120, 5))
    np.testing.assert_allclose(y, expected)


def test_plots_never_show(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("plt.show() called")

    monkeypatch.setattr(plt, "show", boom)
    ds = CUBES["model_dim"]()
    plot.folds(ds), plot.methods(ds), plot.confusion(ds)


def test_bias_plot_of_a_study_read_back_from_file(study, tmp_path):
    from cvframe.simulation import study_for_netcdf

    path = tmp_path / "study.nc"
    study_for_netcdf(study).to_netcdf(path)
    with xr.open_dataset(path) as back:
        g_file = plot.bias(back.load())
    g_mem = plot.bias(study)
    assert g_file.axes.shape == g_mem.axes.shape == (2, 2)  # f rows x stratified columns
    assert [ax.get_title().split(" | ")[-1] for ax in g_file.axes[0]] == [
        "stratified",
        "unstratified",
    ]
    for ax_f, ax_m in zip(g_file.axes.flat, g_mem.axes.flat, strict=True):
        ys_f = [tuple(np.round(ln.get_ydata(), 12)) for ln in ax_f.get_lines()]
        ys_m = [tuple(np.round(ln.get_ydata(), 12)) for ln in ax_m.get_lines()]
        assert ys_f == ys_m and len(ys_f) >= 5


def test_folds_plot_of_a_padded_concat_draws_only_real_folds():
    a = cvframe.datasets.table1()
    b = cvframe.datasets.table2().isel(fold=[0, 1])
    both = xr.concat([a, b], dim=pd.Index(["a", "b"], name="model"), join="outer")
    g = plot.folds(both)
    from matplotlib.collections import PathCollection

    n_pts = sum(
        len(c.get_offsets())
        for ax in g.axes[:, 0]
        for c in ax.collections
        if isinstance(c, PathCollection)
    )
    assert n_pts == 4 + 2  # the NaN padding of model b is not drawn


def test_folds_plot_lines_are_the_tidy_values():
    ds = cvframe.datasets.table2()
    g = plot.folds(ds)
    agg = cvframe.tidy.fold_aggregates(ds)
    drawn = sorted(
        round(float(y), 9) for ax in g.axes.flat for ln in ax.get_lines() for y in ln.get_ydata()
    )
    assert drawn == sorted(round(float(v), 9) for v in agg["value"])


def test_folds_plot_draws_the_frames_it_is_given(monkeypatch):
    """A fold table and aggregation lines given are drawn as they are: the same figure as
    from the cube, nothing recomputed; a methods table gives the F lines."""
    ds = cvframe.datasets.table2()
    pf, agg = cvframe.tidy.fold_table(ds), cvframe.tidy.fold_aggregates(ds)

    def drawn(g):
        pts = [np.round(c.get_offsets(), 9).tolist() for ax in g.axes.flat for c in ax.collections]
        return pts, [np.round(ln.get_ydata(), 9).tolist() for ax in g.axes.flat for ln in ax.lines]

    expected = drawn(plot.folds(ds))
    monkeypatch.setattr(cvframe.tidy, "fold_table", None)  # a call would fail
    monkeypatch.setattr(cvframe.tidy, "fold_aggregates", None)
    assert drawn(plot.folds(pf, methods=agg)) == expected
    monkeypatch.undo()
    assert drawn(ds.cv.plot.folds(methods=agg)) == expected
    assert drawn(plot.folds(pf, methods=cvframe.tidy.methods_table(ds))) == expected
    moved = drawn(plot.folds(pf, methods=agg.assign(value=agg["value"] / 2)))
    assert moved[0] == expected[0] and moved[1] != expected[1]
    with pytest.raises(TypeError, match="methods must be a tidy.fold_aggregates"):
        plot.folds(ds, methods=agg.to_numpy())


def _scored_frame() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 80)
    return pd.DataFrame(
        {"fold": np.arange(80) % 4, "y_true": y, "y_pred": y, "score": y + rng.random(80)}
    )


@pytest.mark.parametrize(
    "draw",
    [
        lambda ax: plot.folds(cvframe.datasets.table1(), ax=ax),
        lambda ax: cvframe.datasets.table1().cv.plot.methods(ax=ax),
        lambda ax: plot.roc(_scored_frame(), ax=ax),
        lambda ax: _scored_frame().cv.plot.score_rates(ax=ax),
    ],
    ids=["folds", "methods", "roc", "score_rates"],
)
def test_figure_level_plots_refuse_ax_with_a_clear_error(draw):
    """A figure-level plot is a FacetGrid: ax= is an error naming it, never dropped silently."""
    _, ax = plt.subplots()
    with pytest.raises(TypeError, match=r"is figure-level.*takes no ax=.*col_wrap="):
        draw(ax)
    assert not ax.has_data()
