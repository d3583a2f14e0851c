"""Every plot draws a tidy frame: the frame a user gets (``df.cv.roc()``,
``df.cv.score_rates()``, ``tidy.*_table``) is one the plot accepts, and drawing it gives the
figure the plot draws from the raw data; the tables match their oracles (scores, formulas,
the fold-aggregation engine); ``cost_roc`` has the facets of the other figure-level plots."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import seaborn as sns  # noqa: E402
import xarray as xr  # noqa: E402

import cvframe  # noqa: E402
from cvframe import plot, reduce, scores, tidy  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::cvframe.UndefinedMetricWarning")


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def _binary(n=60, repeats=1, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n * repeats)
    df = pd.DataFrame(
        {
            "repeat": np.repeat(np.arange(repeats), n),
            "fold": np.tile(np.arange(n) % 3, repeats),
            "y_true": y,
            "score": y + rng.normal(0, 1, y.size),
        }
    )
    return df if repeats > 1 else df.drop(columns="repeat")


def _lines(g):
    return [ln.get_xydata().tolist() for ax in g.axes.flat for ln in ax.get_lines()]


# --- the accessor's frames are what the plots draw ------------------------------------------


def test_df_cv_roc_frame_is_drawn_like_the_predictions_frame():
    df = _binary()
    from_frame = plot.roc(df)
    from_points = plot.roc(df.cv.roc())
    assert _lines(from_points) == _lines(from_frame)
    texts = [t.get_text() for t in from_points.ax.get_legend().get_texts()]
    assert texts == ["fold 0", "fold 1", "fold 2", "merged"]  # no AUC column: no AUC text
    with_auc = [t.get_text() for t in plot.roc(tidy.roc_table(df)).ax.get_legend().get_texts()]
    assert with_auc[-1] == f"merged (AUC {scores.auc(df, method='merge').item():.2f})"


def test_df_cv_roc_of_several_models_and_repeats_is_accepted():
    both = pd.concat([_binary(repeats=2).assign(model=m) for m in ("lr", "rf")])
    g = plot.roc(both.cv.roc(), hue="model")
    texts = [t.get_text() for t in g.ax.get_legend().get_texts()]
    assert texts == ["lr", "rf"]


def test_df_cv_score_rates_frame_is_drawn_like_the_predictions_frame():
    df = _binary()
    a, b = plot.score_rates(df), plot.score_rates(df.cv.score_rates())
    assert _lines(a) == _lines(b)
    assert [ax.get_title() for ax in b.axes.flat] == ["false positive rate", "true positive rate"]


@pytest.mark.parametrize("hue", ["fold", "repeat"])
def test_score_rates_draws_what_seaborn_relplot_draws(hue):
    """The lines, colours, legend and layout of seaborn's relplot of the same table (one
    line per fold and repeat), without relplot's passes over every panel."""
    df = _binary(repeats=2)
    g = plot.score_rates(df, hue=hue)
    sr = scores.score_rates(df)
    sr["rate"] = sr["rate"].map({"fpr": "false positive rate", "tpr": "true positive rate"})
    sr[hue] = sr[hue].astype(str)
    other = "fold" if hue == "repeat" else "repeat"
    sr["_unit"] = sr[other].astype(str)
    ref = sns.relplot(
        data=sr, kind="line", x="threshold", y="value", hue=hue, col="rate", units="_unit",
        estimator=None, drawstyle="steps-post", linewidth=1.2, height=3.0, aspect=1.3,
        palette=sns.color_palette("tab10", sr[hue].nunique()), legend="full",
        col_order=["false positive rate", "true positive rate"],
        facet_kws={"margin_titles": False},
    )  # fmt: skip
    ref.set_axis_labels("score threshold", "rate (score >= threshold)")
    for a, b in zip(g.axes.flat, ref.axes.flat, strict=True):
        b.set_title(a.get_title(), fontsize=11)
    ref.tight_layout()

    def drawn(grid):
        return [
            (ln.get_xydata().tolist(), ln.get_color(), ln.get_linewidth(), ln.get_drawstyle())
            for ax in grid.axes.flat
            for ln in ax.get_lines()
            if len(ln.get_xdata())  # relplot adds empty lines for its legend
        ]

    assert drawn(g) == drawn(ref)
    assert [t.get_text() for t in g.legend.get_texts()] == sorted(sr[hue].unique())
    assert g.legend.get_title().get_text() == hue
    np.testing.assert_allclose(g.figure.get_size_inches(), ref.figure.get_size_inches())
    for a, b in zip(g.axes.flat, ref.axes.flat, strict=True):  # left and width: the legend's
        np.testing.assert_allclose(a.get_position().x0, b.get_position().x0, atol=2e-3)
        np.testing.assert_allclose(a.get_position().width, b.get_position().width, atol=2e-3)
    # a later layout (FacetGrid.tight_layout, as the report calls) keeps the legend's room
    before = [ax.get_position().bounds for ax in g.axes.flat]
    g.tight_layout()
    np.testing.assert_allclose([ax.get_position().bounds for ax in g.axes.flat], before)
    r = g.figure.canvas.get_renderer()
    assert max(ax.get_tightbbox(r).x1 for ax in g.axes.flat) <= g.legend.get_window_extent(r).x0


# --- cost_roc: the table, the facets, no ax -------------------------------------------------


def test_cost_roc_table_rows_are_the_scores_tables():
    df = _binary(repeats=2)
    t = tidy.cost_roc_table(df, cost_fp=2, cost_fn=1, method="fold")
    assert list(dict.fromkeys(t["part"])) == ["roc", "hull", "optimum"]
    pts = scores.roc(df)
    pts = pts[pts.kind == "fold"]
    np.testing.assert_array_equal(t[t.part == "roc"][["fpr", "tpr"]], pts[["fpr", "tpr"]])
    hull = scores.roc_hull(df, "fold")
    np.testing.assert_array_equal(t[t.part == "hull"][["fpr", "tpr"]], hull[["fpr", "tpr"]])
    op = scores.optimal_operating_point(df, 2, 1, method="fold").to_dataframe().reset_index()
    best = t[t.part == "optimum"]
    np.testing.assert_allclose(best["expected_cost"], op["expected_cost"])
    # the expected cost of each optimum, by its definition c_FN pi (1 - TPR) + c_FP (1 - pi) FPR
    pi = best["prevalence"].to_numpy()
    ec = 1 * pi * (1 - best["tpr"]) + 2 * (1 - pi) * best["fpr"]
    np.testing.assert_allclose(best["expected_cost"], ec)
    assert t.attrs == {"cost_fp": 2.0, "cost_fn": 1.0, "method": "fold"}


def test_cost_roc_draws_its_table_and_the_predictions_frame_alike():
    df = _binary()
    a = plot.cost_roc(df, cost_fp=3, method="fold")
    b = plot.cost_roc(tidy.cost_roc_table(df, cost_fp=3, method="fold"))
    assert isinstance(a, sns.FacetGrid)
    assert _lines(a) == _lines(b)
    stars = [ln for ln in a.ax.get_lines() if ln.get_marker() == "*"]
    assert len(stars) == 3  # one optimum per fold, coloured by fold (the default hue)
    assert len({str(s.get_color()) for s in stars}) == 3


def test_cost_roc_takes_the_facets_of_the_figure_level_plots():
    df = pd.concat([_binary(repeats=2).assign(model=m) for m in ("lr", "rf")])
    g = plot.cost_roc(
        df,
        hue="repeat",
        col="model",
        height=2.5,
        aspect=1.2,
        palette=["red", "blue"],
        linewidth=3,
    )
    assert len(g.axes.flat) == 2
    assert [ax.get_title() for ax in g.axes.flat] == ["model = lr", "model = rf"]
    w, h = g.figure.get_size_inches()
    assert h == pytest.approx(2.5, abs=0.6) and w > h
    thick = [ln for ln in g.axes.flat[0].get_lines() if ln.get_linewidth() == 3]
    assert {matplotlib.colors.to_hex(ln.get_color()) for ln in thick} == {"#ff0000", "#0000ff"}
    g = plot.cost_roc(df, row="model", col_wrap=None, classes=[1])
    assert g.axes.shape == (2, 1)
    with pytest.raises(ValueError, match="col_wrap=2 cannot be combined with row='model'"):
        plot.cost_roc(df, row="model", col="class", col_wrap=2)


def test_cost_roc_refuses_ax_like_the_other_figure_level_plots():
    ax = plt.subplots()[1]
    for call in (
        lambda: plot.cost_roc(_binary(), ax=ax),
        lambda: _binary().cv.plot.cost_roc(ax=ax),
        lambda: plot.roc(_binary(), ax=ax),
    ):
        with pytest.raises(TypeError, match=r"figure-level: it returns a seaborn FacetGrid"):
            call()


def test_cost_roc_bad_data_is_an_error_naming_what_it_draws():
    with pytest.raises(TypeError, match="cost_roc draws a predictions frame"):
        plot.cost_roc(np.zeros(3))
    with pytest.raises(ValueError, match=r"hue='modle' is not a column"):
        plot.cost_roc(_binary(), hue="modle")


# --- f_surface and fold_risk draw their tables ----------------------------------------------


def test_f_surface_table_is_the_f_formula():
    t = tidy.f_surface_table("pr", beta=2.0, resolution=11)
    p, r = t["precision"].to_numpy(), t["recall"].to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        want = np.where(p + r > 0, 5 * p * r / (4 * p + r), 0.0)
    np.testing.assert_allclose(t["f"], want)
    t = tidy.f_surface_table("roc", prevalence=0.2, resolution=5)
    row = t[(t.fpr == 0.25) & (t.tpr == 0.5)]
    prec = 0.2 * 0.5 / (0.2 * 0.5 + 0.8 * 0.25)
    assert row["f"].item() == pytest.approx(2 * prec * 0.5 / (prec + 0.5))
    assert t.attrs == {"kind": "roc", "prevalence": 0.2, "beta": 1.0}


def test_f_surface_draws_its_table():
    a = plot.f_surface("roc", prevalence=0.05, resolution=21)
    b = plot.f_surface(data=tidy.f_surface_table("roc", prevalence=0.05, resolution=21))
    assert a.get_title() == b.get_title() == "F1 at 5% positives"
    assert (a.get_xlabel(), a.get_ylabel()) == (b.get_xlabel(), b.get_ylabel())
    with pytest.raises(ValueError, match="f_surface draws cvframe.tidy.f_surface_table"):
        plot.f_surface(data=pd.DataFrame({"x": [0.1]}))


def test_fold_risk_table_is_p_fold_without_positives():
    pos, trials = np.array([10, 30, 60]), np.array([1, 100])
    p = cvframe.p_fold_without_positives(pos[:, None], n=300, k=5, trials=trials[None, :])
    risk = xr.DataArray(p, coords={"n_pos": pos, "trials": trials}, attrs={"n": 300, "k": 5})
    t = tidy.fold_risk_table(risk)
    assert t["trials"].tolist() == ["1 trial"] * 3 + ["100 trials"] * 3
    np.testing.assert_array_equal(t["p"], p.T.ravel())
    ax = plot.fold_risk(data=t[t.positives > 10])
    assert ax.get_title() == "unstratified 5-fold CV, n = 300"
    assert [len(ln.get_xdata()) for ln in ax.get_lines()[:2]] == [2, 2]
    with pytest.raises(ValueError, match="risk must be a DataArray"):
        tidy.fold_risk_table(risk.rename(n_pos="positives"))
    with pytest.raises(ValueError, match=r"outside \[0, 1\]"):
        tidy.fold_risk_table(risk + 1)
    with pytest.raises(ValueError, match="fold_risk draws cvframe.tidy.fold_risk_table"):
        plot.fold_risk(data=t.drop(columns="p"))


def test_fold_risk_curve_is_p_fold_without_positives_and_the_plot_draws_it():
    from cvframe.simulation import fold_risk_curve

    curve = fold_risk_curve([10, 30, 60], n=300, k=5, trials=(1, 100))
    pos, trials = np.array([10, 30, 60]), np.array([1, 100])
    p = cvframe.p_fold_without_positives(pos[:, None], n=300, k=5, trials=trials[None, :])
    assert curve["positives"].tolist() == [10, 30, 60] * 2 and curve.attrs == {"n": 300, "k": 5}
    np.testing.assert_array_equal(curve["p"], p.T.ravel())
    drawn = plot.fold_risk([10, 30, 60], n=300, k=5, trials=(1, 100))
    given = plot.fold_risk(data=curve)
    for a, b in zip(drawn.get_lines(), given.get_lines(), strict=True):
        np.testing.assert_array_equal(a.get_xydata(), b.get_xydata())
    assert drawn.get_title() == given.get_title() == "unstratified 5-fold CV, n = 300"
    with pytest.raises(ValueError, match="trials"):
        fold_risk_curve([10], trials=(0,))


# --- sizes and layout -----------------------------------------------------------------------


def test_confusion_takes_aspect():
    ds = cvframe.datasets.slides_confusion()
    ax = plot.confusion(ds, height=3, aspect=2)
    assert tuple(ax.figure.get_size_inches()) == pytest.approx((6, 3))
    both = xr.concat([ds, ds], dim=pd.Index(["lr", "rf"], name="model"))
    g = both.cv.plot.confusion(height=3, aspect=1.5)
    assert isinstance(g, sns.FacetGrid)
    w, h = g.figure.get_size_inches()
    assert w / h == pytest.approx(2 * 1.5, rel=0.15)


@pytest.mark.parametrize("data", ["predictions", "points"])
def test_three_inch_binary_roc_keeps_its_y_label_inside(data):
    df = _binary()
    g = plot.roc(df if data == "predictions" else df.cv.roc(), height=3)
    fig = g.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    label = g.ax.yaxis.label.get_window_extent(renderer)
    box = fig.bbox
    assert fig.get_size_inches()[1] == pytest.approx(3)
    assert box.x0 <= label.x0 and label.x1 <= box.x1
    assert box.y0 <= label.y0 and label.y1 <= box.y1


# --- tidy's fold aggregates are the engine's ------------------------------------------------


def test_fold_aggregates_are_reduce_aggregate():
    ds = cvframe.datasets.table1()
    t = tidy.fold_aggregates(ds).set_index(["metric", "line"])["value"]
    for metric in ("precision", "recall"):
        pooled = reduce.aggregate(ds, metric, "tp_fp").item()
        avg = reduce.aggregate(ds, metric, "avg").item()
        assert t[(metric, "pooled")] == pooled
        assert t[(metric, "mean of folds")] == avg
    assert t[("F", "F_pr,re")] == reduce.f_pr_re(ds).item()


def test_fold_aggregates_and_class_averages_average_the_repeats():
    one = cvframe.datasets.slides_confusion()
    other = one.copy(deep=True)
    other["tp"] = other["tp"] + 1
    ds = xr.concat([one, other], dim="repeat")
    t = tidy.fold_aggregates(ds, zero_division=0.0)
    got = t[(t.metric == "recall") & (t.line == "pooled")]["value"].to_numpy()
    per_repeat = reduce.aggregate(ds, "recall", "tp_fp", zero_division=0.0)
    np.testing.assert_allclose(got, per_repeat.mean("repeat").values)
    avg = tidy.class_averages(ds, zero_division=0.0)
    assert list(avg.columns)[0] == "macro_f"
    micro = cvframe.multiclass.micro(ds, "f", zero_division=0.0).mean("repeat").item()
    assert avg["micro_f"].item() == pytest.approx(micro)


def test_df_cv_roc_with_auc_is_drawn_with_the_aucs_of_scores():
    df = _binary(repeats=2)
    g = plot.roc(df.cv.roc(auc=True))
    texts = [t.get_text() for t in g.ax.get_legend().get_texts()]
    folds = scores.auc(df, method="fold").values.ravel()
    merged = scores.auc(df, method="merge").values.ravel()
    mean_sd = f"{folds.mean():.2f} ± {folds.std(ddof=1):.2f}"
    assert texts[0] == f"6 folds (AUC {mean_sd})"
    assert texts[1] == f"merged (AUC {merged.mean():.2f} ± {merged.std(ddof=1):.2f}, 2 repeats)"


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: plot.confusion(cvframe.datasets.slides_confusion(), aspect=0), "aspect=0"),
        (lambda: plot.cost_roc(_binary(), height=-1), "height=-1"),
        (lambda: plot.roc(_binary(), aspect=float("nan")), "aspect=nan"),
        (lambda: plot.folds(cvframe.datasets.table1(), height=0), "height=0"),
    ],
)
def test_panel_size_not_a_positive_number_is_an_error_naming_it(call, match):
    with pytest.raises(ValueError, match=match + r" must be in \(0, inf\)"):
        call()
