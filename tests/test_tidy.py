"""The tidy frames plots and the report draw: exact values against scikit-learn or the
formula, cells that are not folds left out, one warning per call, bias studies read back
from a file."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from sklearn.metrics import confusion_matrix, precision_score, recall_score

import cvframe
from cvframe import diagnostics, tidy
from cvframe.errors import UndefinedMetricWarning


def _binary(tp, fp, fn, tn):
    return cvframe.from_counts(
        {"tp": np.array(tp), "fp": np.array(fp), "fn": np.array(fn), "tn": np.array(tn)},
        task="binary",
        pos_label=1,
    )


def _five_and_ten():
    """A 5-fold and a 10-fold binary cube, and their xr.concat along model (NaN-padded)."""
    rng = np.random.default_rng(5)
    a = _binary(*(rng.integers(3, 20, 5) for _ in range(4)))
    b = _binary(*(rng.integers(3, 20, 10) for _ in range(4)))
    both = xr.concat([a, b], dim=pd.Index(["a", "b"], name="model"), join="outer")
    return a, b, both


def _uneven_repeats():
    """Predictions with 5 folds in repeat 0 and 10 in repeat 1 (zero-padded cube)."""
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 600)
    y_pred = np.where(rng.random(600) < 0.25, 1 - y, y)
    repeat = np.repeat([0, 1], 300)
    fold = np.concatenate([np.arange(300) % 5, np.arange(300) % 10])
    return y, y_pred, fold, repeat


def test_diagnostics_reexports_the_tidy_tables():
    assert diagnostics.fold_table is tidy.fold_table
    assert diagnostics.methods_table is tidy.methods_table


def test_fold_table_leaves_out_padding_of_a_concat():
    a, b, both = _five_and_ten()
    table = tidy.fold_table(both)
    for name, alone in (("a", a), ("b", b)):
        part = table[table.model == name].drop(columns="model").reset_index(drop=True)
        ref = tidy.fold_table(alone)
        assert len(part) == len(ref) == alone.sizes["fold"]
        pd.testing.assert_frame_equal(part, ref, check_dtype=False)


def test_fold_table_has_no_row_for_a_missing_fold_of_a_repeat():
    y, y_pred, fold, repeat = _uneven_repeats()
    ds = cvframe.from_predictions(y, y_pred, fold, repeat=repeat)
    table = tidy.fold_table(ds)
    assert table.groupby("repeat").size().tolist() == [5, 10]
    for (r, f), row in table.set_index(["repeat", "fold"]).iterrows():
        m = (repeat == r) & (fold == f)
        assert row.precision == pytest.approx(precision_score(y[m], y_pred[m]))
        assert row.recall == pytest.approx(recall_score(y[m], y_pred[m]))


def test_fold_aggregates_table1_exact():
    ds = cvframe.datasets.table1()
    t = tidy.fold_aggregates(ds).set_index(["metric", "line"])["value"]
    p = ds.cv.precision().values.ravel()
    r = ds.cv.recall().values.ravel()
    assert t["precision", "pooled"] == pytest.approx(14 / 33)
    assert t["recall", "pooled"] == pytest.approx(14 / 15)
    assert t["precision", "mean of folds"] == pytest.approx(p.mean())
    assert t["recall", "mean of folds"] == pytest.approx(r.mean())
    m = ds.cv.f_methods(zero_division=0.0)
    for name, label in tidy.METHOD_LABELS.items():
        assert t["F", label] == pytest.approx(m[name].item())
    assert list(dict.fromkeys(t.index.get_level_values("line"))) == list(tidy.LINES)


def test_fold_aggregates_mean_over_real_folds_then_repeats():
    y, y_pred, fold, repeat = _uneven_repeats()
    ds = cvframe.from_predictions(y, y_pred, fold, repeat=repeat)
    t = tidy.fold_aggregates(ds).set_index(["metric", "line"])["value"]
    per_repeat, pooled = [], []
    for r in (0, 1):
        folds = np.unique(fold[repeat == r])
        per_repeat.append(
            np.mean(
                [
                    precision_score(
                        y[(repeat == r) & (fold == f)], y_pred[(repeat == r) & (fold == f)]
                    )
                    for f in folds
                ]
            )
        )
        pooled.append(precision_score(y[repeat == r], y_pred[repeat == r]))
    assert t["precision", "mean of folds"] == pytest.approx(np.mean(per_repeat))
    assert t["precision", "pooled"] == pytest.approx(np.mean(pooled))


def test_fold_aggregates_keeps_user_dims():
    a, b, both = _five_and_ten()
    t = tidy.fold_aggregates(both)
    assert list(t.columns) == ["model", "class", "metric", "line", "value"]
    alone = tidy.fold_aggregates(a)
    got = t[t.model == "a"].drop(columns="model").reset_index(drop=True)
    pd.testing.assert_frame_equal(got, alone)


def test_fold_aggregates_take_the_methods_table_given():
    """methods= is used as given (its F lines), with repeats and user dims; a table of
    other rows or lacking a method is refused, naming methods."""
    _, _, both = _five_and_ten()
    m = tidy.methods_table(both)
    pd.testing.assert_frame_equal(tidy.fold_aggregates(both, methods=m), tidy.fold_aggregates(both))
    t = tidy.fold_aggregates(both, methods=m.assign(f_avg=0.25))
    assert (t.loc[t.line == "F_avg", "value"] == 0.25).all()
    assert not (t.loc[t.line != "F_avg", "value"] == 0.25).any()
    with pytest.raises(ValueError, match=r"methods lacks the columns \['f_pr_re'\]"):
        tidy.fold_aggregates(both, methods=m.drop(columns="f_pr_re"))
    with pytest.raises(ValueError, match="methods has other rows than ds"):
        tidy.fold_aggregates(both, methods=m[m.model == "a"])


def test_confusion_table_matches_sklearn():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 300)
    y_pred = np.where(rng.random(300) < 0.3, rng.integers(0, 3, 300), y)
    ds = cvframe.from_predictions(y, y_pred, np.arange(300) % 5)
    for normalize in (None, "true", "pred", "all"):
        t = tidy.confusion_table(ds, normalize=normalize)
        assert list(t.columns) == ["true", "pred", "value"]
        mat = t["value"].to_numpy().reshape(3, 3)
        np.testing.assert_allclose(mat, confusion_matrix(y, y_pred, normalize=normalize))


def test_confusion_table_binary_and_errors():
    t = tidy.confusion_table(cvframe.datasets.table2())
    assert t["true"].tolist() == ["1", "1", "not 1", "not 1"]
    ds = cvframe.datasets.table2()
    expected = [int(ds[v].sum()) for v in ("tp", "fn", "fp", "tn")]
    assert t["value"].tolist() == expected
    with pytest.raises(ValueError, match="normalize='rows'"):
        tidy.confusion_table(ds, normalize="rows")
    counts_only = cvframe.datasets.slides_confusion().drop_vars("confusion")
    with pytest.raises(cvframe.CountsError, match="no 'confusion' variable"):
        tidy.confusion_table(counts_only)
    counts_only.attrs["task"] = "multilabel"  # one 2x2 table (present/absent) per label
    t = tidy.confusion_table(counts_only)
    assert t.columns.tolist() == ["label", "true", "pred", "value"]
    first = t[t["label"] == t["label"].iloc[0]]["value"].tolist()
    label0 = counts_only.isel({"class": 0})
    assert first == [float(label0[v].sum()) for v in ("tp", "fn", "fp", "tn")]


def test_class_averages_are_the_multiclass_functions():
    ds = cvframe.datasets.slides_confusion()
    t = tidy.class_averages(ds, zero_division=0.0)
    mc = cvframe.multiclass
    assert t["macro_f"].iloc[0] == pytest.approx(float(mc.macro(ds, "f", zero_division=0.0)))
    assert t["micro_f"].iloc[0] == pytest.approx(float(mc.micro(ds, "f", zero_division=0.0)))
    assert t["kappa"].iloc[0] == pytest.approx(float(mc.kappa(ds, zero_division=0.0)))
    assert t["accuracy"].iloc[0] == pytest.approx(140 / 200)
    assert tidy.class_averages(cvframe.datasets.table1()) is None


def test_class_averages_mean_over_repeats():
    m0 = [[88, 10, 2], [14, 40, 6], [18, 10, 12]]
    m1 = [[50, 30, 20], [10, 50, 0], [5, 5, 30]]
    labels = ["A", "B", "C"]
    cube = cvframe.from_confusion([[m0], [m1]], labels)  # (repeat, fold, true, pred)
    t = tidy.class_averages(cube, zero_division=0.0)
    singles = [
        tidy.class_averages(cvframe.from_confusion(m, labels), zero_division=0.0) for m in (m0, m1)
    ]
    expected = (singles[0] + singles[1]) / 2
    pd.testing.assert_frame_equal(t[expected.columns], expected, check_dtype=False)
    assert t["accuracy"].iloc[0] == pytest.approx((140 / 200 + 130 / 200) / 2)


def test_over_repeats_mean_and_sd():
    f = pd.DataFrame(
        {
            "repeat": [0, 1, 2, 0, 1, 2],
            "class": ["a"] * 3 + ["b"] * 3,
            "x": [1.0, 2.0, 6.0, 0.0, 0.0, 3.0],
            "y": [1.0] * 6,
        }
    )
    out = tidy.over_repeats(f, ["class"], ["x", "y"])
    assert out["x"].tolist() == [3.0, 1.0]
    assert out["x_sd"].tolist() == pytest.approx(
        [np.std([1, 2, 6], ddof=1), np.std([0, 0, 3], ddof=1)]
    )
    same = tidy.over_repeats(f, ["repeat", "class"], ["x"], has_repeat=False)
    assert same.columns.tolist() == ["repeat", "class", "x"] and len(same) == 6


def test_one_warning_per_call_and_none_for_padding():
    with pytest.warns(UndefinedMetricWarning) as rec:
        tidy.fold_aggregates(cvframe.datasets.table2(), zero_division="warn")
    assert len([w for w in rec if issubclass(w.category, UndefinedMetricWarning)]) == 1
    # padding cells are not folds: no undefined metric is reported for them
    _, _, both = _five_and_ten()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tidy.fold_table(both, zero_division="warn")


def test_partial_nan_cell_is_an_error_naming_the_variable():
    ds = cvframe.datasets.table1().astype(float)
    ds["fp"][0, 0] = np.nan
    with pytest.raises(cvframe.CountsError, match="fp"):
        tidy.fold_table(ds)


# --- bias studies ---------------------------------------------------------------------------


def _study(stratified):
    return xr.Dataset(
        {"rel_bias": (("stratified", "prevalence"), [[0.1, 0.2], [-0.3, -0.4]])},
        coords={"stratified": stratified, "prevalence": [0.01, 0.05]},
    )


@pytest.mark.parametrize(
    "values",
    [
        [True, False],
        ["yes", "no"],
        [b"yes", b"no"],
        ["True", "False"],
        [1, 0],
        np.array([True, False]),
    ],
)
def test_bias_table_reads_stratified_in_every_stored_form(values):
    t = tidy.bias_table(_study(values))
    assert t["stratified"].tolist() == ["stratified"] * 2 + ["unstratified"] * 2
    assert t["rel_bias"].tolist() == [0.1, 0.2, -0.3, -0.4]


def test_bias_table_errors_name_the_argument():
    with pytest.raises(ValueError, match=r"study\['stratified'\] holds 'maybe'"):
        tidy.bias_table(_study(["maybe", "no"]))
    with pytest.raises(ValueError, match="y='bias' is not valid"):
        tidy.bias_table(_study([True, False]), y="bias")
    with pytest.raises(ValueError, match="must be a bias_study Dataset"):
        tidy.bias_table(xr.Dataset())


def test_bias_table_same_from_file_as_in_memory(tmp_path):
    from cvframe.simulation import study_for_netcdf

    study = cvframe.bias_study(prevalence=(0.02, 0.05), f=(0.8,), trials=50, seed=3)
    path = tmp_path / "study.nc"
    study_for_netcdf(study).to_netcdf(path)
    with xr.open_dataset(path) as back:
        from_file = tidy.bias_table(back.load())
    pd.testing.assert_frame_equal(from_file, tidy.bias_table(study), check_dtype=False)
    assert set(from_file["stratified"]) == {"stratified", "unstratified"}


def test_roc_table_carries_each_curves_auc_from_scores():
    from cvframe import scores

    rng = np.random.default_rng(3)
    n = 90
    y = np.tile([0, 1, 2], n // 3)
    raw = rng.normal(0, 1, (n, 3)) + np.eye(3)[y]
    df = pd.DataFrame({"fold": np.arange(n) // 3 % 3, "y_true": y}).join(
        pd.DataFrame(raw, columns=["score_0", "score_1", "score_2"])
    )
    t = tidy.roc_table(df)
    assert list(t.columns) == [*scores.roc(df).columns, "auc"]
    per_fold = scores.auc(df, method="fold")
    merged = scores.auc(df, method="merge")
    for (kind, fold, cls), curve in t.groupby(["kind", "fold", "class"], dropna=False):
        assert curve["auc"].nunique() == 1
        want = (
            merged.sel({"class": cls})
            if kind == "merged"
            else per_fold.sel({"class": cls, "fold": fold})
        )
        assert curve["auc"].iloc[0] == pytest.approx(float(want))
        # the trapezoidal area under the curve's points is its AUC
        assert np.trapezoid(curve["tpr"], curve["fpr"]) == pytest.approx(float(want))
