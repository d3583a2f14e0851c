"""Any engine: the cube and every score metric from a GROUP BY, exactly as from the rows.

The oracle is the row-level result of the same frame (``df.cv.counts()``, the score metrics
of the frame itself, which test_scores/test_score_driver hold against scikit-learn): the cube
of a grouped table must be identical count for count, and the metrics of a score-count table
equal to 1e-12. Engines: pandas, pyarrow, DuckDB, polars (in the test extra), dask; Spark
where pyspark and Java run (else skipped, with the reason).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import cvframe
from cvframe import CountsError, scores, sql
from cvframe.build.grouped import as_pandas
from cvframe.errors import ColumnError

duckdb = pytest.importorskip("duckdb", reason="duckdb is not installed (the test extra has it)")
pl = pytest.importorskip("polars", reason="polars is not installed (the test extra has it)")
pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (the io extra has it)")

KEYS = dict(repeat="repeat", dims=["model"])
CLASSES = list(range(10))


def synthetic(n: int, seed: int = 0, classes: int = 10, digits: int = 2) -> pd.DataFrame:
    """Rows of 2 models x 2 repeats x 3 folds with one-vs-all scores of ``digits`` decimals."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, n).astype(np.int8)
    logits = rng.normal(0, 1, (n, classes))
    logits[np.arange(n), y] += 1.0
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    df = pd.DataFrame(
        {
            "model": np.array(["lr", "rf"], dtype=object)[rng.integers(0, 2, n)],
            "repeat": rng.integers(0, 2, n),
            "fold": rng.integers(0, 3, n).astype(np.int8),
            "y_true": y,
            "y_pred": p.argmax(axis=1).astype(np.int8),
        }
    )
    for c in range(classes):
        df[f"score_{c}"] = np.round(p[:, c], digits)
    return df


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return synthetic(6000)


@pytest.fixture(scope="module")
def con(frame):
    c = duckdb.connect()
    c.register("predictions", frame)
    yield c
    c.close()


# --- the cube from a GROUP BY ------------------------------------------------------------------


def test_cube_of_every_engine_equals_the_rows_count_for_count(frame, con):
    ref = frame.cv.counts()
    query = sql.counts("predictions", **KEYS)
    tables = {  # made one at a time: a DuckDB connection serves one open result
        "pandas": lambda: sql.pandas_counts(frame, **KEYS),
        "pandas groupby": lambda: (
            frame.groupby(["model", "repeat", "fold", "y_true", "y_pred"])
            .size()
            .rename("count")
            .reset_index()
        ),
        "duckdb relation": lambda: con.sql(query),
        "duckdb arrow stream": lambda: con.sql(query).arrow(),
        "duckdb pandas": lambda: con.sql(query).df(),
        "polars lazy": lambda: sql.polars_counts(pl.from_pandas(frame).lazy(), **KEYS),
        "polars eager": lambda: sql.polars_counts(pl.from_pandas(frame), **KEYS),
        "pyarrow": lambda: pa.Table.from_pandas(sql.pandas_counts(frame, **KEYS)),
    }
    for name, table in tables.items():
        got = cvframe.from_grouped(table())
        xr.testing.assert_identical(got, ref)
        assert got.tp.dtype == np.int64, name


def test_grouped_result_is_small(frame, con):
    table = con.sql(sql.counts("predictions", **KEYS)).df()
    models, repeats, folds, c = 2, 2, 3, 10
    assert len(table) <= models * repeats * folds * c * c
    assert table["count"].to_numpy().nbytes <= models * repeats * folds * c * c * 8


@pytest.mark.parametrize("pos_label", [None, "b"])
def test_string_binary_and_multiclass_labels(pos_label):
    rows = pd.DataFrame(
        {
            "fold": [0, 0, 0, 1, 1, 1, 1],
            "y_true": ["a", "b", "a", "b", "b", "a", "c"],
            "y_pred": ["a", "a", "b", "b", "b", "a", "a"],
        }
    )
    if pos_label is not None:
        rows = rows[rows.y_true != "c"].assign(y_pred=lambda d: d.y_pred.replace("c", "a"))
    table = rows.groupby(["fold", "y_true", "y_pred"]).size().rename("n").reset_index()
    got = cvframe.from_grouped(table, pos_label=pos_label, count="n")
    xr.testing.assert_identical(got, rows.cv.counts(pos_label=pos_label))


def test_zero_counts_are_no_samples():
    rows = pd.DataFrame({"fold": [0, 0, 1], "y_true": [1, 0, 1], "y_pred": [1, 0, 0]})
    table = sql.pandas_counts(rows)
    extra = pd.DataFrame({"fold": [2], "y_true": [1], "y_pred": [1], "count": [0]})
    got = cvframe.from_grouped(pd.concat([table, extra], ignore_index=True))
    xr.testing.assert_identical(got, rows.cv.counts())  # fold 2 has no sample: no fold


def test_frame_attrs_travel_as_for_rows():
    rows = pd.DataFrame({"fold": [0, 0, 1, 1], "y_true": [1, 0, 1, 0], "y_pred": [1, 1, 1, 0]})
    rows.attrs = {"stratified": "yes", "splitter": "KFold(2)"}
    table = sql.pandas_counts(rows)
    table.attrs = dict(rows.attrs)
    xr.testing.assert_identical(cvframe.from_grouped(table), rows.cv.counts())


BAD_TABLES = [
    ({"count": [3, -1]}, CountsError, r"count column 'count' has negative values \[-1\]"),
    ({"count": [3.0, 1.5]}, CountsError, r"count column 'count' has fractional values \[1.5\]"),
    ({"count": [3.0, np.nan]}, CountsError, r"count column 'count' has 1 missing values"),
    ({"count": ["3", "1"]}, CountsError, r"count column 'count' has dtype"),
    ({"count": [True, False]}, CountsError, r"count column 'count' has dtype bool"),
]


@pytest.mark.parametrize(("change", "error", "match"), BAD_TABLES)
def test_bad_counts_name_the_column(change, error, match):
    table = pd.DataFrame({"fold": [0, 1], "y_true": [1, 0], "y_pred": [1, 1], "count": [3, 1]})
    with pytest.raises(error, match=match):
        cvframe.from_grouped(table.assign(**change))


def test_missing_count_column_and_duplicate_keys_are_named():
    table = pd.DataFrame({"fold": [0, 0], "y_true": [1, 1], "y_pred": [1, 1], "n": [3, 1]})
    with pytest.raises(ColumnError, match=r"count='count' is not a column.*\['fold'"):
        cvframe.from_grouped(table)
    with pytest.raises(CountsError, match=r"2 rows that share their key in columns \['fold', "):
        cvframe.from_grouped(table, count="n")
    with pytest.raises(ColumnError, match="y_pred"):
        cvframe.from_grouped(table.drop(columns="y_pred"), count="n")
    with pytest.raises(CountsError, match="every count of column 'n' is 0"):
        cvframe.from_grouped(table.iloc[:1].assign(n=0), count="n")
    with pytest.raises(TypeError, match="must be a table"):
        cvframe.from_grouped([1, 2, 3])


# --- the score metrics from per-score counts ----------------------------------------------------


def _same(a, b, tol=1e-12):
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=tol, atol=tol)
    else:
        xr.testing.assert_allclose(a, b, rtol=0, atol=tol)
        assert a.attrs == b.attrs


@pytest.fixture(scope="module")
def counted(frame, con):
    table = con.sql(sql.score_counts("predictions", CLASSES, **KEYS)).df()
    return scores.parse(table, count="count"), scores.parse(frame)


METRICS = {
    "auc_avg": lambda d: scores.auc(d),
    "auc_merge": lambda d: scores.auc(d, "merge"),
    "auc_fold": lambda d: scores.auc(d, "fold", undefined="nan"),
    "auc_macro": lambda d: scores.auc(d, "merge", average="macro"),
    "auc_methods": lambda d: scores.auc_methods(d),
    "ap": lambda d: scores.average_precision(d, "merge", average="weighted"),
    "p_at_k": lambda d: scores.precision_at_k(d, 40, "fold"),
    "r_precision": lambda d: scores.r_precision(d),
    "bep": lambda d: scores.break_even_point(d, "fold"),
    "brier": lambda d: scores.brier(d),
    "brier_multiclass": lambda d: scores.brier(d, "merge", average="multiclass"),
    "log_loss": lambda d: scores.log_loss(d, "fold", average="multiclass"),
    "decomposition": lambda d: scores.brier_decomposition(d, bins=5),
    "delong": lambda d: cvframe.interval(d, "auc_merge"),
    "delong_macro": lambda d: cvframe.interval(d, "auc_merge", average="macro"),
    "auc_avg_interval": lambda d: cvframe.interval(d, "auc_avg"),
    "roc": lambda d: scores.roc(d, auc=True),
    "pr_curve": lambda d: scores.pr_curve(d),
    "thresholds": lambda d: scores.metric_at_thresholds(d, "f", [0.1, 0.3]),
    "calibration": lambda d: scores.calibration_curve(d, bins=4),
    "calibration_quantile": lambda d: scores.calibration_curve(d, bins=4, strategy="quantile"),
    "hull": lambda d: scores.roc_hull(d),
}


@pytest.mark.parametrize("name", list(METRICS))
def test_score_counts_give_the_row_level_metrics(counted, name):
    table, rows = counted
    _same(METRICS[name](table), METRICS[name](rows))


def test_every_engine_gives_the_same_score_counts(frame, con):
    duck = con.sql(sql.score_counts("predictions", CLASSES, **KEYS)).df()
    others = [
        sql.polars_score_counts(pl.from_pandas(frame).lazy(), CLASSES, **KEYS).collect(),
        sql.pandas_score_counts(frame, CLASSES, **KEYS),
        scores.score_counts(frame),
    ]
    key = ["model", "repeat", "fold", "class", "score", "y_true"]
    want = duck.sort_values(key, ignore_index=True)
    for table in others:
        got = as_pandas(table).sort_values(key, ignore_index=True)[want.columns]
        assert (got[key + ["count"]].to_numpy() == want[key + ["count"]].to_numpy()).all()


def test_binary_score_counts_with_string_labels():
    rng = np.random.default_rng(3)
    n = 3000
    y = rng.choice(["ham", "spam"], n)
    df = pd.DataFrame(
        {
            "fold": rng.integers(0, 4, n),
            "y_true": y,
            "score": np.round(rng.random(n) * 0.7 + 0.3 * (y == "spam"), 2),
        }
    )
    con = duckdb.connect()
    con.register("p", df)
    table = con.sql(sql.score_counts("p")).df()
    for f in (METRICS["auc_methods"], METRICS["delong"], METRICS["brier"], METRICS["roc"]):
        _same(
            f(scores.parse(table, count="count", pos_label="spam")),
            f(scores.parse(df, pos_label="spam")),
        )
    with pytest.raises(ValueError, match="pass pos_label="):
        scores.parse(table, count="count")


def test_a_marked_table_is_read_as_counts_by_every_metric(frame):
    table = scores.score_counts(frame)
    assert table.attrs["cvframe_score_counts"] == "count"
    _same(scores.auc(table, "merge"), scores.auc(frame, "merge"))
    _same(table.cv.auc_methods(), frame.cv.auc_methods())


BAD_SCORE_TABLES = [
    (lambda t: t.assign(count=-t["count"]), CountsError, "count column 'count' has negative"),
    (lambda t: t.assign(count=t["count"] / 2), CountsError, "count column 'count' has fractional"),
    (lambda t: t.drop(columns="count"), ColumnError, "count='count' is not a column"),
    (lambda t: pd.concat([t, t.iloc[:1]]), CountsError, "share their key in columns"),
    (
        lambda t: t.assign(score=np.where(np.arange(len(t)) == 2, np.nan, t.score)),
        ValueError,
        r"score column 'score' of the score-count table has 1 NaN or infinite scores at rows",
    ),
    (
        lambda t: t.assign(score=t.score.astype(str)),
        TypeError,
        "score column 'score' of the score-count table has dtype",
    ),
    (lambda t: t[t["class"] != 3], ValueError, "no rows of class 3 in column 'class'"),
    (
        lambda t: t[~((t["class"] == 1) & (t.fold == 0) & (t.y_true == 2))],
        ValueError,
        "counts other samples for class 1 than for class 0",
    ),
]


@pytest.mark.parametrize(("change", "error", "match"), BAD_SCORE_TABLES)
def test_bad_score_tables_name_the_column(frame, change, error, match):
    table = sql.pandas_score_counts(frame[frame.model == "lr"], CLASSES, repeat="repeat")
    with pytest.raises(error, match=match):
        scores.parse(change(table), count="count")


def test_count_metrics_of_a_score_table_point_to_the_counts_query(frame):
    table = scores.score_counts(frame)
    with pytest.raises(ValueError, match="holds scores, not predicted labels"):
        cvframe.interval(table, "f_avg")


# --- binning and its AUC bound ------------------------------------------------------------------


def test_rounding_moves_the_auc_by_at_most_the_tie_bound():
    rng = np.random.default_rng(11)
    for trial in range(20):
        n = int(rng.integers(50, 400))
        y = (rng.random(n) < rng.uniform(0.1, 0.6)).astype(int)
        s = rng.normal(y * rng.uniform(0, 2), 1.0)
        df = pd.DataFrame({"fold": rng.integers(0, 3, n), "y_true": y, "score": s})
        exact = scores.auc(df, "fold", undefined="nan")
        for d in (0, 1, 2):
            rounded = df.assign(score=df.score.round(d))
            got = scores.auc(rounded, "fold", undefined="nan")
            bound = scores.auc_tie_bound(rounded, "fold", undefined="nan")
            assert bool(((got - exact).fillna(0).__abs__() <= bound.fillna(0) + 1e-15).all()), trial
    distinct = pd.DataFrame({"fold": [0] * 4, "y_true": [0, 1, 0, 1], "score": [1.0, 2, 3, 4]})
    assert float(scores.auc_tie_bound(distinct).item()) == 0.0


def test_tie_bound_of_counts_equals_that_of_rows(frame):
    _same(scores.auc_tie_bound(scores.score_counts(frame)), scores.auc_tie_bound(frame))


def test_too_many_distinct_scores_say_so():
    rng = np.random.default_rng(0)
    n = 120_000
    df = pd.DataFrame(
        {"fold": rng.integers(0, 5, n), "y_true": rng.integers(0, 2, n), "score": rng.random(n)}
    )
    with pytest.warns(UserWarning, match=r"most scores are distinct.*digits=3"):
        scores.score_counts(df)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = scores.score_counts(df, digits=3)
    assert len(table) <= 5 * 1001 * 2
    exact, binned = scores.auc(df, "merge"), scores.auc(table, "merge")
    assert abs((binned - exact).item()) <= scores.auc_tie_bound(table).item()


# --- the SQL --------------------------------------------------------------------------------


def test_sql_refuses_names_the_engines_quote_differently():
    with pytest.raises(ValueError, match="score=\\'my score\\' is not a plain identifier"):
        sql.score_counts("t", score="my score")
    with pytest.raises(ValueError, match="table='select'"):
        sql.counts("select")
    with pytest.raises(ValueError, match='score column="score_o\'brien" is not a plain'):
        sql.score_counts("t", ["o'brien"])
    assert "'spam' AS class" in sql.score_counts("t", ["ham", "spam"])
    with pytest.raises(ValueError, match="digits"):
        sql.score_counts("t", digits=-1)


@pytest.mark.slow(reason="starts a Spark session (a JVM): about 1 to 3 minutes")
def test_spark_sql_and_binning_rule():
    pyspark = pytest.importorskip("pyspark", reason="pyspark is not installed (Spark is optional)")
    import shutil

    if shutil.which("java") is None:
        pytest.skip("Spark needs Java, which is not installed")
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[1]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .getOrCreate()
    )
    try:
        df = synthetic(2000, classes=3)
        spark.createDataFrame(df).createOrReplaceTempView("predictions")
        counts = spark.sql(sql.counts("predictions", **KEYS)).toPandas()
        xr.testing.assert_identical(cvframe.from_grouped(counts), df.cv.counts())
        table = spark.sql(sql.score_counts("predictions", [0, 1, 2], **KEYS)).toPandas()
        _same(scores.auc_methods(scores.parse(table, count="count")), scores.auc_methods(df))
    finally:
        spark.stop()
    assert pyspark is not None
