"""The one metric table (formulas.METRIC_SPECS) and everything derived from it.

A metric added to the table must have a branch in both passes of the kernel: each spec is
run through the numpy pass and the compiled loop on random counts and compared with
``formulas.metric`` fold by fold (and a fake spec whose code has no branch must fail).
"""

from __future__ import annotations

import typing
import warnings

import numpy as np
import pytest
import xarray as xr

from cvframe import formulas, multiclass, reduce
from cvframe._core import kernel as _kernel
from cvframe._core import types as _types
from cvframe.formulas import METRIC_SPECS, MetricSpec
from cvframe.schema import COUNTS

ENGINES = ("numpy", "numba") if _kernel.have_numba() else ("numpy",)
#: The metrics of one class the compiled loop computes (a metric over every class, such as
#: the error, runs through cvframe.reduce.whole instead).
PER_CLASS = [name for name, spec in METRIC_SPECS.items() if not spec.over_classes]


def _oracle(name: str, counts: list[np.ndarray], beta: float, fill: float) -> dict[str, np.ndarray]:
    """Pooled value and fold means of ``name``, from ``formulas.metric`` and plain numpy."""
    spec = METRIC_SPECS[name]
    tp, fp, fn, tn = (c.astype(float) for c in counts)
    per_fold = formulas.metric(name, tp, fp, fn, tn, beta=beta, fill=fill)
    real = (tp != 0) | (fp != 0) | (fn != 0) | (tn != 0)
    keep = real & ~spec.undefined(tp, fp, fn, tn)
    pooled = formulas.metric(name, *(x.sum(-1) for x in (tp, fp, fn, tn)), beta=beta, fill=fill)
    return {
        "tp_fp": pooled,
        "avg": formulas.safe_divide(np.where(real, per_fold, 0).sum(-1), real.sum(-1), fill),
        "avg_skip": formulas.safe_divide(np.where(keep, per_fold, 0).sum(-1), keep.sum(-1), fill),
    }


def engines_disagree(name: str, seed: int = 0) -> list[str]:
    """The (engine, aggregation) pairs where the kernel differs from the oracle."""
    rng = np.random.default_rng(seed)
    counts = [rng.integers(0, 4, size=(40, 5)) for _ in range(4)]
    counts[0][:3] = counts[1][:3] = 0  # some undefined folds
    for x in counts:
        x[3, 1] = 0  # a missing fold
    want = ("tp_fp", "avg", "avg_skip")
    expected = _oracle(name, counts, 2.0, 0.0)
    bad = []
    for use in ENGINES:
        try:
            got, _ = _kernel.fold_aggregates(*counts, name, want, beta=2.0, use=use)
        except Exception as exc:  # noqa: BLE001 - any failure of an engine is a disagreement
            bad.append(f"{use}: {type(exc).__name__}: {exc}")
            continue
        bad += [f"{use}: {w}" for w in want if not np.allclose(got[w], expected[w], rtol=1e-12)]
    return bad


@pytest.mark.parametrize("name", PER_CLASS)
def test_every_metric_has_a_branch_in_both_engines(name):
    assert engines_disagree(name) == []


@pytest.mark.skipif("numba" not in ENGINES, reason="the compiled loop needs numba")
@pytest.mark.parametrize("name", PER_CLASS)
def test_both_engines_agree_bit_for_bit_on_every_metric(name):
    rng = np.random.default_rng(1)
    counts = [rng.integers(0, 6, size=(30, 7)) for _ in range(4)]
    counts[0][:5] = 0
    out = [_kernel.fold_aggregates(*counts, name, beta=0.5, fill=np.nan, use=u)[0] for u in ENGINES]
    for agg in ("tp_fp", "avg", "avg_skip") + (("pr_re", "pr_re_skip") if name == "f" else ()):
        np.testing.assert_array_equal(out[0][agg], out[1][agg], err_msg=agg)


@pytest.mark.skipif("numba" not in ENGINES, reason="the compiled loop needs numba")
def test_a_metric_without_a_kernel_branch_fails(monkeypatch):
    fake = MetricSpec(
        "fake", "TP", "TP + FP + FN", lambda tp, fp, fn, tn, beta: (tp, tp + fp + fn),
        "TP + FP + FN = 0", ("fake", "fake"), code=99,
    )  # fmt: skip
    monkeypatch.setitem(METRIC_SPECS, "fake", fake)
    bad = engines_disagree("fake")
    assert any(b.startswith("numba") for b in bad), bad


def test_codes_are_distinct_and_the_kernel_table_derives_from_the_specs():
    codes = [METRIC_SPECS[name].code for name in PER_CLASS]
    assert len(set(codes)) == len(codes)
    assert _kernel.METRIC_CODES == {n: METRIC_SPECS[n].code for n in PER_CLASS}
    assert all(name == spec.name for name, spec in METRIC_SPECS.items())


def test_reduce_metrics_and_wording_derive_from_the_specs():
    assert reduce.METRICS == tuple(METRIC_SPECS)
    assert reduce.UNDEFINED == {n: s.warning for n, s in METRIC_SPECS.items()}


def test_the_literal_types_list_the_table():
    assert typing.get_args(_types.CellMetric) == tuple(METRIC_SPECS)
    assert typing.get_args(_types.Metric) == multiclass.METRICS
    assert set(multiclass.METRICS) <= set(METRIC_SPECS)


@pytest.mark.parametrize("name", list(METRIC_SPECS))
def test_metric_matches_scikit_learn(name):
    metrics = pytest.importorskip("sklearn.metrics")
    y_true = np.array([1, 1, 1, 0, 0, 0, 0, 1, 0, 1])
    y_pred = np.array([1, 0, 1, 1, 0, 0, 0, 0, 0, 1])
    tp = int(((y_true == 1) & (y_pred == 1)).sum())
    fp = int(((y_true == 0) & (y_pred == 1)).sum())
    fn = int(((y_true == 1) & (y_pred == 0)).sum())
    tn = int(((y_true == 0) & (y_pred == 0)).sum())
    expected = {
        "precision": metrics.precision_score(y_true, y_pred),
        "recall": metrics.recall_score(y_true, y_pred),
        "f": metrics.fbeta_score(y_true, y_pred, beta=2.0),
        "accuracy": metrics.accuracy_score(y_true, y_pred),
        "specificity": metrics.recall_score(y_true, y_pred, pos_label=0),
        "jaccard": metrics.jaccard_score(y_true, y_pred),
        "error": metrics.zero_one_loss(y_true, y_pred),
        "mcc": metrics.matthews_corrcoef(y_true, y_pred),
        "balanced_accuracy": metrics.balanced_accuracy_score(y_true, y_pred),
    }[name]
    counts = (tp, fp, fn, tn)
    if METRIC_SPECS[name].over_classes:  # every class on the last axis
        counts = formulas.both_classes(*([c] for c in counts))
    value = formulas.metric(name, *counts, beta=2.0)
    assert float(value) == pytest.approx(expected, rel=1e-15)


def test_metric_on_data_arrays_and_undefined_cells():
    tp = xr.DataArray([0, 2], dims="fold")
    out = formulas.metric("precision", tp, 0, 1, fill=np.nan)
    assert isinstance(out, xr.DataArray)
    assert np.isnan(out[0]) and out[1] == 1.0


def test_metric_refuses_an_unknown_name_and_a_missing_tn():
    with pytest.raises(ValueError, match="metric='auc'"):
        formulas.metric("auc", 1, 1, 1)
    with pytest.raises(ValueError, match="needs tn"):
        formulas.metric("specificity", 1, 1, 1)
    with pytest.raises(ValueError, match="beta"):
        formulas.metric("f", 1, 1, 1, beta=-1.0)


def test_reduce_warns_with_the_table_wording():
    values = ([0, 2], [0, 1], [3, 0], [1, 1])
    ds = xr.Dataset(
        {v: (("fold", "class"), np.array(x)[:, None]) for v, x in zip(COUNTS, values, strict=True)}
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reduce.aggregate(ds, "precision", None)
    assert any(METRIC_SPECS["precision"].warning[0] in str(w.message) for w in caught)


@pytest.mark.parametrize("bad", [1.5, -0.1])
def test_f_from_rates_checks_data_arrays(bad):
    with pytest.raises(ValueError, match=r"tpr has values \[" + str(bad)):
        formulas.f_from_rates(xr.DataArray([0.5, bad]), 0.1, 0.5)
    with pytest.raises(ValueError, match="fpr"):
        formulas.f_from_rates(0.5, xr.DataArray([bad]), 0.5)


def test_f_from_rates_checks_dask_data_arrays():
    da = pytest.importorskip("dask.array")
    with pytest.raises(ValueError, match="prevalence"):
        formulas.f_from_rates(0.5, 0.1, xr.DataArray(da.from_array(np.array([0.5, 1.0]))))
    lazy = formulas.f_from_rates(xr.DataArray(da.from_array(np.array([0.5, np.nan]))), 0.1, 0.5)
    assert np.isnan(lazy.values[1]) and lazy.values[0] > 0


def test_mirror_roc_refuses_rates_outside_the_unit_interval():
    with pytest.raises(ValueError, match=r"tpr has values \[1.25\]"):
        formulas.mirror_roc(0.5, xr.DataArray([0.5, 1.25]))
    with pytest.raises(ValueError, match="fpr"):
        formulas.mirror_roc(-0.5, 0.5)
