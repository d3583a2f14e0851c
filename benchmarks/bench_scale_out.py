"""Benchmark: the cube and the score metrics from an engine's GROUP BY, and a dask report.

Part 1 (``--rows``, default 10^7): a predictions frame with 2 models, 2 repeats, 5 folds and
10 classes (int8 labels, one-vs-all scores of 3 decimals). Its counts cube is built

- from the rows (pandas, ``df.cv.counts()``), the yardstick;
- from the ``GROUP BY`` of DuckDB (``cvframe.sql.counts``), of polars (``sql.polars_counts``)
  and of dask (``ddf.cv.counts()``, and ``sql.dask_counts``), each by ``from_grouped``;

and every cube must equal the rows' count for count. Measured: the time of each GROUP BY,
the time after it (``from_grouped`` of the materialised result), and the bytes the result
brings back, against models x repeats x folds x classes^2 x 8 B. Then the score counts of
DuckDB (``cvframe.sql.score_counts``): AUC_avg, AUC_merge and the DeLong interval of
AUC_merge from them against the row-level results (max abs difference, goal <= 1e-12).

Part 2 (``--dask-rows``, default 10^8): the report (text) of a dask frame generated
partition by partition on a ``LocalCluster`` of 2 worker processes x 1 thread (binary, 10
folds, scores of 4 decimals): the cube computed lazily, the scores reduced to their counts;
the peak resident memory of each worker (goal < 1 GiB).

Part 3: the Spark comparison: a skewed-score example whose AUC_merge cvframe gives exactly,
against Spark's ``BinaryClassificationEvaluator`` (``numBins=1000``), reproduced here by
Spark's rule (and checked against Spark itself when pyspark runs).

Usage::

    python benchmarks/bench_scale_out.py                 # 10^7 rows, 10^8 on dask
    python benchmarks/bench_scale_out.py --rows 1000000 --dask-rows 10000000
    python benchmarks/bench_scale_out.py --quick
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository's cvframe

CLASSES, FOLDS, REPEATS, MODELS = 10, 5, 2, 2


def synthetic(rows: int, seed: int = 0) -> pd.DataFrame:
    """Rows of 2 models x 2 repeats x 5 folds, 10 classes, scores of 3 decimals."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, CLASSES, rows).astype(np.int8)
    logits = rng.normal(0, 1, (rows, CLASSES)).astype(np.float32)
    logits[np.arange(rows), y] += 1.5
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    df = pd.DataFrame(
        {
            "model": np.array(["lr", "rf"], dtype=object)[rng.integers(0, MODELS, rows)],
            "repeat": rng.integers(0, REPEATS, rows).astype(np.int8),
            "fold": rng.integers(0, FOLDS, rows).astype(np.int8),
            "y_true": y,
            "y_pred": p.argmax(axis=1).astype(np.int8),
        }
    )
    for c in range(CLASSES):
        df[f"score_{c}"] = np.round(p[:, c].astype(np.float64), 3)
    return df


def _timed(func: Any) -> tuple[Any, float]:
    t0 = time.perf_counter()
    out = func()
    return out, time.perf_counter() - t0


def _bytes(table: pd.DataFrame, count: str = "count") -> tuple[int, int]:
    """Bytes of the count column and of the whole table (keys included, deep)."""
    return int(table[count].to_numpy().nbytes), int(table.memory_usage(deep=True).sum())


def engines(rows: int) -> dict[str, Any]:
    """Part 1: the cube of every engine against the rows', and the DuckDB score counts."""
    import dask.dataframe as dd
    import duckdb
    import polars as pl
    import xarray as xr

    import cvframe
    from cvframe import scores, sql

    df = synthetic(rows)
    keys = dict(repeat="repeat", dims=["model"])
    ref, t_rows = _timed(df.cv.counts)
    out: dict[str, Any] = {"rows": rows, "rows_s": t_rows, "engines": {}}
    bound = MODELS * REPEATS * FOLDS * CLASSES**2 * 8
    con = duckdb.connect()
    con.register("predictions", df)
    pl_df = pl.from_pandas(df)
    ddf = dd.from_pandas(df, npartitions=max(1, rows // 1_000_000))
    grouped = {
        "duckdb": lambda: con.sql(sql.counts("predictions", **keys)).arrow().read_all(),
        "polars": lambda: sql.polars_counts(pl_df.lazy(), **keys).collect(),
        "dask (sql.dask_counts)": lambda: sql.dask_counts(ddf, **keys).compute(),
    }
    for name, run in grouped.items():
        table, t_group = _timed(run)
        cube, t_after = _timed(lambda table=table: cvframe.from_grouped(table))
        _, t_after = _timed(lambda table=table: cvframe.from_grouped(table))  # warm
        xr.testing.assert_identical(cube, ref)
        pdt = cvframe.build.grouped.as_pandas(table)
        count_bytes, all_bytes = _bytes(pdt)
        out["engines"][name] = {
            "group_by_s": t_group,
            "after_s": t_after,
            "result_rows": len(pdt),
            "count_bytes": count_bytes,
            "table_bytes": all_bytes,
            "bound_bytes": bound,
            "equal": True,
        }
    lazy, t_build = _timed(lambda: ddf.cv.counts(labels=list(range(CLASSES))))
    cube, t_compute = _timed(lazy.compute)
    xr.testing.assert_identical(cube, ref)
    out["engines"]["dask (ddf.cv.counts)"] = {"group_by_s": t_build + t_compute, "equal": True}
    # the score counts of DuckDB against the rows
    q = sql.score_counts("predictions", list(range(CLASSES)), **keys)
    table, t_group = _timed(lambda: con.sql(q).df())
    parsed, t_parse = _timed(lambda: scores.parse(table, count="count"))
    rows_parsed, t_rows_parse = _timed(lambda: scores.parse(df))
    got, t_got = _timed(lambda: (scores.auc_methods(parsed), cvframe.interval(parsed, "auc_merge")))
    want, t_want = _timed(
        lambda: (scores.auc_methods(rows_parsed), cvframe.interval(rows_parsed, "auc_merge"))
    )
    diff = {
        "auc_avg": float(abs(got[0].auc_avg - want[0].auc_avg).max()),
        "auc_merge": float(abs(got[0].auc_merge - want[0].auc_merge).max()),
        "delong_lower": float(abs(got[1].lower - want[1].lower).max()),
        "delong_upper": float(abs(got[1].upper - want[1].upper).max()),
    }
    out["scores"] = {
        "group_by_s": t_group,
        "table_rows": len(table),
        "table_bytes": _bytes(table)[1],
        "parse_s": t_parse,
        "metrics_s": t_got,
        "rows_parse_s": t_rows_parse,
        "rows_metrics_s": t_want,
        "max_abs_diff": diff,
    }
    return out


# --- part 2: the report of a 10^8-row dask frame -------------------------------------------------

CHUNK = 1_000_000


def make_part(i: int, rows: int, chunk: int) -> pd.DataFrame:
    """Partition ``i`` of a binary study: 10 folds (categorical), scores of 4 decimals."""
    m = min(chunk, rows - i * chunk)
    rng = np.random.default_rng(1000 + i)
    y = (rng.random(m) < 0.2).astype(np.int8)
    s = np.round(1.0 / (1.0 + np.exp(-(rng.normal(0, 1, m) + 1.2 * y - 1.0))), 4)
    fold = pd.Categorical.from_codes(rng.integers(0, 10, m).astype(np.int8), range(10))
    return pd.DataFrame(
        {"fold": fold, "y_true": y, "y_pred": (s >= 0.5).astype(np.int8), "score": s}
    )


def _peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def dask_report(rows: int, workers: int = 2) -> dict[str, Any]:
    """Part 2 (run in a fresh process: the workers' peaks are theirs alone)."""
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    import cvframe

    meta = make_part(0, 0, CHUNK).iloc[:0]
    n_parts = -(-rows // CHUNK)
    ddf = dd.from_map(make_part, range(n_parts), rows=rows, chunk=CHUNK, meta=meta)
    with (
        LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
            memory_limit="2GiB",
        ) as cluster,
        Client(cluster) as client,
    ):  # fmt: skip
        t0 = time.perf_counter()
        cube = ddf.cv.counts(labels=[0, 1])
        text = cvframe.report.report(cube, scores=ddf)
        took = time.perf_counter() - t0
        peaks = list(client.run(_peak_rss).values())
    part = int(make_part(0, rows, CHUNK).memory_usage(deep=True).sum())
    return {
        "rows": rows,
        "partitions": n_parts,
        "workers": workers,
        "report_s": took,
        "peak_worker_bytes": max(peaks),
        "partition_bytes": part,
        "report_lines": len(text.splitlines()),
        "auc_line": next((ln for ln in text.splitlines() if "AUC_merge" in ln), ""),
    }


# --- part 3: Spark's 1,000 bins -----------------------------------------------------------------


def spark_binned_auc(score: np.ndarray, y: np.ndarray, num_bins: int = 1000) -> float:
    """AUC as Spark's ``BinaryClassificationMetrics(numBins)`` computes it on one partition.

    Spark (mllib/evaluation/BinaryClassificationMetrics.scala): count positives and
    negatives per distinct score, sort by score descending; when ``numBins > 0`` and
    ``grouping = distinct // numBins >= 2``, merge every ``grouping`` consecutive distinct
    scores into one point (the counts summed, the score of the first); the ROC is (0, 0),
    the cumulative (FPR, TPR) of every point, (1, 1); the area is the trapezoid sum
    (``AreaUnderCurve.of``).
    """
    values, inv = np.unique(score, return_inverse=True)
    pos = np.bincount(inv, weights=y, minlength=len(values))[::-1]
    tot = np.bincount(inv, minlength=len(values))[::-1]
    neg = tot - pos
    grouping = len(values) // num_bins if num_bins > 0 else 0
    if grouping >= 2:
        starts = np.arange(0, len(values), grouping)
        pos, neg = np.add.reduceat(pos, starts), np.add.reduceat(neg, starts)
    tpr = np.concatenate([[0.0], np.cumsum(pos) / pos.sum(), [1.0]])
    fpr = np.concatenate([[0.0], np.cumsum(neg) / neg.sum(), [1.0]])
    return float(np.sum((fpr[1:] - fpr[:-1]) * (tpr[1:] + tpr[:-1]) / 2.0))


def skewed(n: int = 200_000, seed: int = 7) -> pd.DataFrame:
    """A skewed-score example: 5 folds, 2% positives; the easy negatives (90%) have
    continuous scores near 0, every one distinct, while the positives and the hard negatives
    share 40 score levels at the top (a calibrated tree ensemble's steps). Nearly all the
    distinct scores are in the bulk, where nothing is ranked that matters."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.02).astype(np.int8)
    easy = (y == 0) & (rng.random(n) < 0.92)
    bulk = rng.uniform(0.0, 0.05, n)  # distinct, below every level
    level = np.clip(np.round(rng.normal(18 + 8 * y, 6, n)), 0, 39)
    top = 0.5 + level / 80.0  # 40 levels in [0.5, 0.99]
    s = np.where(easy, bulk, top)
    return pd.DataFrame({"fold": rng.integers(0, 5, n), "y_true": y, "score": s})


def spark_comparison(check_spark: bool = False) -> dict[str, Any]:
    from cvframe import scores

    df = skewed()
    exact = float(scores.auc(df, "merge").item())
    spark = spark_binned_auc(df.score.to_numpy(), df.y_true.to_numpy())
    out = {"rows": len(df), "distinct_scores": int(df.score.nunique()), "auc_merge": exact}
    out["spark_1000_bins"] = spark
    out["difference"] = spark - exact
    for d in (2, 3, 4):
        rounded = df.assign(score=df.score.round(d))
        out[f"digits_{d}"] = {
            "auc": float(scores.auc(rounded, "merge").item()),
            "bound": float(scores.auc_tie_bound(rounded).item()),
            "rows": len(scores.score_counts(rounded)),
        }
    if check_spark:
        out["spark_itself"] = _spark_auc(df)
    return out


def _spark_auc(df: pd.DataFrame) -> float | None:
    """Spark's own BinaryClassificationEvaluator (numBins=1000) on one partition."""
    try:
        from pyspark.ml.evaluation import BinaryClassificationEvaluator
        from pyspark.sql import SparkSession
    except ImportError:
        return None
    spark = (
        SparkSession.builder.master("local[1]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .getOrCreate()
    )
    try:
        sdf = spark.createDataFrame(
            df.assign(label=df.y_true.astype(float))[["score", "label"]]
        ).coalesce(1)
        ev = BinaryClassificationEvaluator(rawPredictionCol="score", labelCol="label")
        return float(ev.evaluate(sdf))
    finally:
        spark.stop()


def rows(quick: bool = False) -> list[dict[str, Any]]:
    """Rows of the benchmark table (see the module docstring)."""
    n = 200_000 if quick else 10_000_000
    m = engines(n)
    out = []
    for name, e in m["engines"].items():
        if "after_s" not in e:
            continue
        out.append(
            {
                "what": f"cube from the GROUP BY of {name}, {n:.0e} rows: after the GROUP BY",
                "cvframe_s": e["after_s"],
                "yardstick": "0.1 s",
                "yardstick_s": 0.1,
                "ratio": e["after_s"] / 0.1,
                "goal": "<= 0.1 s, the cube equal to the rows' count for count",
                "met": e["after_s"] <= 0.1 and e["equal"],
                "note": f"GROUP BY {e['group_by_s']:.2f} s; count column {e['count_bytes']} B "
                f"(bound {e['bound_bytes']} B), table {e['table_bytes']} B",
            }
        )
    worst = max(m["scores"]["max_abs_diff"].values())
    out.append(
        {
            "what": f"AUC_avg, AUC_merge, DeLong from DuckDB score counts, {n:.0e} rows",
            "cvframe_s": m["scores"]["parse_s"] + m["scores"]["metrics_s"],
            "yardstick": "the same from the rows",
            "yardstick_s": m["scores"]["rows_parse_s"] + m["scores"]["rows_metrics_s"],
            "ratio": None,
            "goal": "max abs difference <= 1e-12",
            "met": worst <= 1e-12,
            "note": f"max abs difference {worst:.1e}; {m['scores']['table_rows']} rows",
        }
    )
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--dask-rows", type=int, default=100_000_000)
    parser.add_argument("--part", choices=("engines", "dask", "spark", "all"), default="all")
    parser.add_argument("--spark", action="store_true", help="also run Spark itself")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        for row in rows(quick=True):
            print(row)
        return
    result: dict[str, Any] = {}
    if args.part in ("engines", "all"):
        result["engines"] = engines(args.rows)
    if args.part == "dask":
        result["dask"] = dask_report(args.dask_rows)
    elif args.part == "all":  # a fresh process: the workers' peaks are theirs alone
        out = subprocess.run(
            [sys.executable, __file__, "--part", "dask", "--dask-rows", str(args.dask_rows),
             "--json"],
            check=True, capture_output=True, text=True,
        ).stdout  # fmt: skip
        result["dask"] = json.loads(out.strip().splitlines()[-1])["dask"]
    if args.part in ("spark", "all"):
        result["spark"] = spark_comparison(args.spark)
    print(json.dumps(result, indent=None if args.json else 1, default=float))


if __name__ == "__main__":
    main()
