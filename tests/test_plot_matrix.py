"""The plot matrix: every plot x (binary, multiclass, repeats, model dim, dask, tidy frame) x
(``ax=`` where axes-level; ``col``/``hue``/``col_wrap``/``classes`` where figure-level)
renders, honours the argument, keeps every label inside the saved figure and writes no
text below 9 pt. Tiny data (3 folds, ~60 rows), built once per module."""

from __future__ import annotations

import io
import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import seaborn as sns  # noqa: E402
import xarray as xr  # noqa: E402
from matplotlib.text import Text  # noqa: E402

import cvframe  # noqa: E402
from cvframe import plot, tidy  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::cvframe.UndefinedMetricWarning")


def _frame(classes: int, repeats: int = 1, models: tuple[str, ...] = (), seed: int = 0):
    rng = np.random.default_rng(seed)
    n = 60
    parts = []
    for m in models or (None,):
        y = np.tile(np.arange(classes), n * repeats // classes + 1)[: n * repeats]
        rng.shuffle(y)
        raw = rng.normal(0, 1.0, (y.size, classes)) + 1.5 * np.eye(classes)[y]
        df = pd.DataFrame(
            {
                "repeat": np.repeat(np.arange(repeats), n),
                "fold": np.tile(np.arange(n) % 3, repeats),
                "y_true": y,
                "y_pred": raw.argmax(1),
            }
        )
        if classes == 2:
            df["score"] = raw[:, 1] - raw[:, 0]
        else:
            for c in range(classes):
                df[f"score_{c}"] = raw[:, c]
        if repeats == 1:
            df = df.drop(columns="repeat")
        if m is not None:
            df.insert(0, "model", m)
        parts.append(df)
    return pd.concat(parts, ignore_index=True)


@pytest.fixture(scope="module")
def data():
    dd = pytest.importorskip("dask.dataframe")
    frames = {
        "binary": _frame(2),
        "multiclass": _frame(3),
        "repeats": _frame(2, repeats=2),
        "model": _frame(3, models=("lr", "nb")),
    }
    out = {f"{k}_df": v for k, v in frames.items()}
    out.update({k: v.cv.counts() for k, v in frames.items()})
    out["dask"] = out["multiclass"].chunk({"fold": 1})
    out["dask_df"] = dd.from_pandas(frames["binary"], npartitions=2)
    return out


# --- checks -----------------------------------------------------------------------------------


def _saved_inside(obj) -> None:
    """Render (as savefig without bbox_inches does), then the tight box of every artist, the
    texts included, lies inside the figure; no visible text is below 9 pt."""
    fig = obj.figure
    # the layout savefig renders (layout engines run here too), without painting the pixels:
    # the same boxes as fig.canvas.draw() in about half its time
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    box = fig.get_tightbbox(renderer)  # inches
    w, h = fig.get_size_inches()
    tol = 0.02
    assert box.x0 >= -tol and box.y0 >= -tol, (box, w, h)
    assert box.x1 <= w + tol and box.y1 <= h + tol, (box, w, h)
    fb = fig.bbox
    ticks = {
        id(label)
        for ax in fig.axes
        for axis in (ax.xaxis, ax.yaxis)
        for tick in axis.get_major_ticks() + axis.get_minor_ticks()
        for label in (tick.label1, tick.label2)
    }
    for t in fig.findobj(Text):
        if id(t) in ticks:
            continue  # in the tight box when drawn (ticks outside the view are not drawn)
        if not t.get_visible() or not t.get_text().strip() or not t.get_in_layout():
            continue
        bb = t.get_window_extent(renderer)
        if bb.width == 0:
            continue
        assert bb.x0 >= fb.x0 - 2 and bb.x1 <= fb.x1 + 2, (t.get_text(), bb, fb)
        assert bb.y0 >= fb.y0 - 2 and bb.y1 <= fb.y1 + 2, (t.get_text(), bb, fb)
        assert t.get_fontsize() >= 9, (t.get_text(), t.get_fontsize())
    assert fig.dpi == 100
    assert fig.get_size_inches()[0] * fig.dpi <= 1700  # bounded width


def _legend_texts(obj) -> list[str]:
    legends = list(obj.figure.legends)
    axes = obj.axes.flat if isinstance(obj, sns.FacetGrid) else [obj]
    legends += [ax.get_legend() for ax in axes if ax.get_legend() is not None]
    return [t.get_text() for lg in legends for t in lg.get_texts()]


def _grid(obj, n_axes: int, col_wrap: int | None = None) -> None:
    assert isinstance(obj, sns.FacetGrid), type(obj)
    axes = [ax for ax in obj.figure.axes if ax.get_visible() and ax in list(obj.axes.flat)]
    assert len(axes) == n_axes
    if col_wrap is not None:
        xs = {round(ax.get_position().x0, 3) for ax in axes}
        ys = {round(ax.get_position().y0, 3) for ax in axes}
        assert len(xs) == min(col_wrap, n_axes)
        assert len(ys) == math.ceil(n_axes / col_wrap)


def _new_ax():
    return plt.subplots(figsize=(5, 4), layout="constrained")[1]


def _study():
    est = ["f_tp_fp", "f_avg", "f_pr_re", "f_avg_skip", "f_pr_re_skip"]
    rng = np.random.default_rng(0)
    return xr.Dataset(
        {
            "rel_bias": (
                ("stratified", "prevalence", "f", "estimator"),
                rng.normal(0, 0.1, (2, 3, 2, 5)),
            )
        },
        coords={
            "stratified": [True, False],
            "prevalence": [0.01, 0.02, 0.05],
            "f": [0.6, 0.8],
            "estimator": est,
        },
    )


def _compare_result():
    rank = xr.DataArray([1.2, 2.1, 2.7], dims="model", coords={"model": ["a", "b", "c"]})
    return xr.Dataset(
        {
            "rank": rank,
            "critical_difference": 1.0,
            "rank_difference": ("contrast", [0.9, 1.5]),
            "low": ("contrast", [-0.1, 0.5]),
            "high": ("contrast", [1.9, 2.5]),
            "p_value": ("contrast", [0.1, 0.01]),
            "significant": ("contrast", [False, True]),
        },
        coords={"contrast": ["b - a", "c - a"]},
        attrs={"test": "friedman", "level": 0.95},
    )


# --- the matrix -------------------------------------------------------------------------------
# (id, draw(data) -> obj, check(obj, data))


def _is_ax(ax):
    def check(obj, d):
        assert obj is ax

    return check


AXES_LEVEL = {
    "confusion-binary-ax": lambda d, ax: plot.confusion(d["binary"], ax=ax),
    "confusion-multiclass-ax": lambda d, ax: plot.confusion(
        d["multiclass"], normalize="true", ax=ax
    ),
    "confusion-model-sel-ax": lambda d, ax: plot.confusion(d["model"].sel(model="lr"), ax=ax),
    "confusion-dask-ax": lambda d, ax: plot.confusion(d["dask"], ax=ax),
    "confusion-tidy-ax": lambda d, ax: plot.confusion(
        tidy.confusion_table(d["model"], normalize="true").query("model == 'nb'"), ax=ax
    ),
    "fold_risk-ax": lambda d, ax: plot.fold_risk(n_pos=[10, 20, 40], trials=(1, 10), ax=ax),
    "f_surface-ax": lambda d, ax: plot.f_surface("pr", ax=ax, resolution=41),
    "differences-ax": lambda d, ax: plot.differences(_compare_result(), ax=ax),
    "critical_difference-ax": lambda d, ax: plot.critical_difference(_compare_result(), ax=ax),
}


@pytest.mark.parametrize("name", list(AXES_LEVEL))
def test_axes_level_draws_on_the_given_ax(name, data):
    ax = _new_ax()
    out = AXES_LEVEL[name](data, ax)
    assert out is ax
    assert ax.has_data() or ax.texts or ax.collections or ax.images
    _saved_inside(out)


@pytest.mark.parametrize("name", ["confusion-binary", "differences"])
def test_axes_level_without_ax_makes_a_figure_that_does_not_clip(name, data):
    draw = {
        "confusion-binary": lambda: plot.confusion(data["binary"]),
        "differences": lambda: plot.differences(_compare_result()),
    }[name]
    out = draw()
    assert isinstance(out, plt.Axes)
    _saved_inside(out)


def test_confusion_with_ax_and_several_models_is_an_error(data):
    with pytest.raises(ValueError, match=r"ax= takes one confusion matrix but the data has 2"):
        plot.confusion(data["model"], ax=_new_ax())


FIGURE_LEVEL = {
    # folds
    "folds-binary": (lambda d: plot.folds(d["binary"]), dict(n=3)),
    "folds-multiclass-col_wrap": (
        lambda d: plot.folds(d["multiclass"], col_wrap=2),
        dict(n=3, wrap=2),
    ),
    "folds-repeats-hue": (
        lambda d: plot.folds(d["repeats"], hue="fold"),
        dict(n=3, legend=["fold 0", "fold 2"]),
    ),
    "folds-model-col": (
        lambda d: d["model"].cv.plot.folds(col="model"),
        dict(n=6, titles=["model = lr"]),
    ),
    "folds-dask": (lambda d: plot.folds(d["dask"]), dict(n=3)),
    "folds-tidy-filtered": (
        lambda d: plot.folds(tidy.fold_table(d["model"]).query("model == 'nb' and fold != 0")),
        dict(n=3),
    ),
    # methods
    "methods-binary": (
        lambda d: plot.methods(d["binary"]),
        dict(n=1, legend=["F_tp,fp", "~F_pr,re"]),
    ),
    "methods-multiclass-col_wrap": (
        lambda d: plot.methods(d["multiclass"], col="method", hue=None, col_wrap=2),
        dict(n=5, wrap=2),
    ),
    "methods-repeats": (lambda d: d["repeats"].cv.plot.methods(errorbar=("pi", 100)), dict(n=1)),
    "methods-model-hue": (
        lambda d: plot.methods(d["model"], hue="model"),
        dict(n=5, legend=["lr", "nb"]),
    ),
    "methods-model-col": (
        lambda d: plot.methods(d["model"], col="model"),
        dict(n=2, titles=["model = nb"]),
    ),
    "methods-dask-kind": (lambda d: plot.methods(d["dask"], kind="bar"), dict(n=1)),
    "methods-tidy": (
        lambda d: plot.methods(tidy.methods_table(d["model"]).query("model == 'lr'")),
        dict(n=1, titles=["model = lr"]),
    ),
    # confusion over several panels
    "confusion-model-col_wrap": (
        lambda d: plot.confusion(d["model"], col_wrap=1),
        dict(n=2, wrap=1),
    ),
    # roc
    "roc-binary": (
        lambda d: plot.roc(d["binary_df"]),
        dict(n=1, legend=["fold 0 (AUC", "merged (AUC"]),
    ),
    "roc-multiclass-col_wrap": (
        lambda d: plot.roc(d["multiclass_df"], col_wrap=2),
        dict(n=3, wrap=2),
    ),
    "roc-multiclass-classes": (
        lambda d: d["multiclass_df"].cv.plot.roc(classes=[2]),
        dict(n=1, titles=["class = 2"]),
    ),
    "roc-one-panel-context": (
        lambda d: plot.roc(d["repeats_df"].query("repeat == 1").assign(model="lr")),
        dict(n=1, titles=["model = lr", "repeat = 1"]),
    ),
    "roc-repeats-hue": (
        lambda d: plot.roc(d["repeats_df"], hue="repeat"),
        dict(n=1, legend=["0:", "1:"]),
    ),
    "roc-model": (lambda d: plot.roc(d["model_df"]), dict(n=3, legend=["lr:", "nb:"])),
    "roc-model-row": (
        lambda d: plot.roc(d["model_df"], hue="fold", row="model", col="class"),
        dict(n=6, titles=["model = nb | class = 2"]),
    ),
    "roc-dask": (lambda d: plot.roc(d["dask_df"]), dict(n=1, legend=["merged (AUC"])),
    "roc-tidy-filtered": (
        lambda d: plot.roc(tidy.roc_table(d["model_df"]).query("model == 'lr' and `class` != 0")),
        dict(n=2, titles=["class = 1"]),
    ),
    # score_rates
    "score_rates-binary": (
        lambda d: plot.score_rates(d["binary_df"]),
        dict(n=2, legend=["0", "2"]),
    ),
    "score_rates-multiclass-classes": (
        lambda d: plot.score_rates(d["multiclass_df"], classes=[0, 2]),
        dict(n=4),
    ),
    "score_rates-repeats-hue": (
        lambda d: d["repeats_df"].cv.plot.score_rates(hue="repeat"),
        dict(n=2, legend=["0", "1"]),
    ),
    "score_rates-rate-not-faceted-is-an-error": (
        lambda d: plot.score_rates(d["model_df"], classes=[1], col="model", hue="fold", col_wrap=1),
        dict(n=0, error="neither hue, col nor row is 'rate'"),
    ),
    "score_rates-model-row": (
        lambda d: plot.score_rates(d["model_df"], classes=[1], row="model"),
        dict(n=4, titles=["model = nb | true positive rate"]),
    ),
    "score_rates-dask": (lambda d: plot.score_rates(d["dask_df"]), dict(n=2)),
    # cost_roc
    "cost_roc-multiclass-col_wrap": (
        lambda d: plot.cost_roc(d["multiclass_df"], col_wrap=2),
        dict(n=3, wrap=2),
    ),
    "cost_roc-binary": (lambda d: plot.cost_roc(d["binary_df"]), dict(n=1)),
    "cost_roc-multiclass-classes": (
        lambda d: d["multiclass_df"].cv.plot.cost_roc(classes=[2]),
        dict(n=1, titles=["class = 2"]),
    ),
    "cost_roc-dask": (lambda d: plot.cost_roc(d["dask_df"], method="fold"), dict(n=1)),
    "cost_roc-model-hue": (
        lambda d: plot.cost_roc(d["model_df"], classes=[0]),
        dict(n=1, legend=["lr", "nb", "optimal point"]),
    ),
    "cost_roc-model-col": (
        lambda d: plot.cost_roc(d["model_df"], classes=[0], col="model", aspect=1.2),
        dict(n=2, titles=["model = nb"]),
    ),
    "cost_roc-repeats-row": (
        lambda d: plot.cost_roc(d["repeats_df"], method="fold", row="repeat", hue="fold"),
        dict(n=2, titles=["repeat = 1"], legend=["fold 0", "fold 2"]),
    ),
    "cost_roc-tidy-filtered": (
        lambda d: plot.cost_roc(tidy.cost_roc_table(d["multiclass_df"]).query("`class` != 1")),
        dict(n=2, titles=["class = 2"]),
    ),
    # bias
    "bias-default": (lambda d: plot.bias(_study()), dict(n=4, legend=["F_tp,fp", "~F_avg"])),
    "bias-col_wrap": (
        lambda d: plot.bias(tidy.bias_table(_study()).query("f == 0.8"), col_wrap=1),
        dict(n=2, wrap=1),
    ),
    "bias-hue": (
        lambda d: plot.bias(
            tidy.bias_table(_study()).query("prevalence == 0.02"),
            x="f",
            hue="stratified",
            col="estimator",
            col_wrap=3,
        ),
        dict(n=5, wrap=3, legend=["stratified", "unstratified"]),
    ),
}


@pytest.mark.parametrize("name", list(FIGURE_LEVEL))
def test_figure_level_honours_the_facets(name, data):
    draw, want = FIGURE_LEVEL[name]
    if "error" in want:
        with pytest.raises(ValueError, match=want["error"]):
            draw(data)
        return
    g = draw(data)
    _grid(g, want["n"], want.get("wrap"))
    texts = _legend_texts(g)
    for needle in want.get("legend", []):
        assert any(needle in t for t in texts), (needle, texts)
    titles = [ax.get_title() for ax in g.axes.flat]
    for needle in want.get("titles", []):
        assert any(needle in t for t in titles), (needle, titles)
    _saved_inside(g)


def test_facetgrid_savefig_and_figure_savefig_give_the_same_image(data):
    import matplotlib.image as mpimg

    g = plot.roc(data["model_df"])
    a, b = io.BytesIO(), io.BytesIO()
    g.figure.savefig(a, format="png")
    g.savefig(b, format="png", dpi=100)  # seaborn's: bbox_inches="tight"
    a.seek(0), b.seek(0)
    img_a, img_b = mpimg.imread(a), mpimg.imread(b)
    # nothing sticks out of the laid-out figure: the tight crop is not larger
    assert img_b.shape[0] <= img_a.shape[0] + 2 and img_b.shape[1] <= img_a.shape[1] + 2


def test_roc_legend_auc_is_the_scores_auc(data):
    df = data["binary_df"]
    g = plot.roc(df)
    texts = _legend_texts(g)
    per_fold = cvframe.scores.auc(df, method="fold").values.ravel()
    merged = cvframe.scores.auc(df, method="merge").item()
    assert texts == [f"fold {i} (AUC {a:.2f})" for i, a in enumerate(per_fold)] + [
        f"merged (AUC {merged:.2f})"
    ]


def test_classes_unknown_is_an_error_listing_the_valid_ones(data):
    with pytest.raises(ValueError, match=r"classes=\[8\] are not among the classes \[0, 1, 2\]"):
        plot.roc(data["multiclass_df"], classes=[8])
    with pytest.raises(ValueError, match=r"classes=\['x'\] are not among"):
        plot.folds(data["multiclass"], classes=["x"])


def test_facet_argument_not_a_column_is_an_error(data):
    with pytest.raises(ValueError, match=r"hue='modle' is not a column of the plotted frame"):
        plot.roc(data["model_df"], hue="modle")
    with pytest.raises(ValueError, match=r"col_wrap=2 cannot be combined with row='model'"):
        plot.roc(data["model_df"], row="model", col="class", col_wrap=2)
    with pytest.raises(ValueError, match=r"2 values of 'model' .* neither hue, col nor row"):
        plot.roc(data["model_df"], hue="fold")


def test_accessors_take_the_same_arguments_as_the_functions():
    import inspect

    for cls, names in (
        (plot.DatasetPlotter, ("folds", "methods", "confusion")),
        (plot.DataFramePlotter, ("roc", "score_rates", "cost_roc")),
    ):
        for name in names:
            f = inspect.signature(getattr(plot, name)).parameters
            m = inspect.signature(getattr(cls, name)).parameters
            want = [(p.name, p.default, p.kind) for p in list(f.values())[1:]]
            got = [(p.name, p.default, p.kind) for p in list(m.values())[1:]]
            assert got == want, name
