"""Benchmark: a counts cube from a dask DataFrame, computed on a two-worker cluster.

The predictions frame is generated partition by partition (``dask.dataframe.from_map``: 10
classes, 10 folds, ``--chunk`` rows per partition), so no process ever holds the whole frame.
Measured:

- building the cube (``counts_from_frame``): lazy, nothing computed when the classes are
  given (``labels=``) and the fold column is a categorical with known categories;
- ``cube.compute()`` on a ``distributed.LocalCluster`` with 2 single-threaded worker
  processes, against the yardstick of computing every partition once (``len`` of each);
- the peak resident memory of each worker process (``ru_maxrss``), against the size of
  one partition: memory is bounded by the chunk size, not by the rows.

``quick=True`` uses the threaded scheduler on 2*10^5 rows (no cluster start-up).

Usage::

    python benchmarks/bench_dask.py                      # 10^7 rows, 2 workers
    python benchmarks/bench_dask.py --rows 100000000     # 10^8 rows
    python benchmarks/bench_dask.py --quick
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

CLASSES = 10
FOLDS = 10
CHUNK = 1_000_000


def make_part(i: int, rows: int, chunk: int) -> pd.DataFrame:
    """Partition ``i``: its own seed, int8 labels, a categorical fold with known categories."""
    m = min(chunk, rows - i * chunk)
    rng = np.random.default_rng(i)
    y = rng.integers(0, CLASSES, m).astype(np.int8)
    noise = rng.integers(0, CLASSES, m).astype(np.int8)
    yp = np.where(rng.random(m) < 0.7, y, noise)
    fold = pd.Categorical.from_codes(rng.integers(0, FOLDS, m).astype(np.int8), range(FOLDS))
    return pd.DataFrame({"y_true": y, "y_pred": yp, "fold": fold})


def frame(rows: int, chunk: int) -> Any:
    import dask.dataframe as dd

    meta = make_part(0, 0, chunk).iloc[:0]
    n_parts = -(-rows // chunk)
    return dd.from_map(make_part, range(n_parts), rows=rows, chunk=chunk, meta=meta)


def _peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def measure(rows: int, chunk: int, workers: int, quick: bool = False) -> dict[str, Any]:
    import dask

    from cvframe.build import counts_from_frame

    ddf = frame(rows, chunk)
    t0 = time.perf_counter()
    cube = counts_from_frame(ddf, labels=list(range(CLASSES)))
    t_build = time.perf_counter() - t0
    part_bytes = int(make_part(0, rows, chunk).memory_usage(deep=True).sum())
    if quick:
        with dask.config.set(scheduler="threads", num_workers=workers):
            counts_from_frame(frame(2 * chunk, chunk), labels=list(range(CLASSES))).compute()
            t0 = time.perf_counter()
            got = cube.compute()
            t_cube = time.perf_counter() - t0
            t0 = time.perf_counter()
            ddf.map_partitions(len).compute()
            t_read = time.perf_counter() - t0
        peaks = [_peak_rss()]
    else:
        from distributed import Client, LocalCluster

        with (
            LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
            ) as cluster,
            Client(cluster) as client,
        ):
            counts_from_frame(frame(2 * chunk, chunk), labels=list(range(CLASSES))).compute()
            t0 = time.perf_counter()
            ddf.map_partitions(len).compute()
            t_read = time.perf_counter() - t0
            t0 = time.perf_counter()
            got = cube.compute()
            t_cube = time.perf_counter() - t0
            peaks = list(client.run(_peak_rss).values())
    assert int(got.confusion.sum()) == rows
    return {
        "rows": rows,
        "workers": workers,
        "partitions": ddf.npartitions,
        "build_s": t_build,
        "compute_s": t_cube,
        "one_pass_s": t_read,
        "peak_worker_bytes": max(peaks),
        "partition_bytes": part_bytes,
    }


def rows(quick: bool = False) -> list[dict[str, Any]]:
    """Rows of the benchmark table (see the module docstring)."""
    n, chunk = (200_000, 50_000) if quick else (10_000_000, CHUNK)
    if quick:
        m = measure(n, chunk, workers=2, quick=True)
    else:  # a fresh process: workers forked from a process that ran other benchmarks would
        # count its memory in their peak
        out = subprocess.run(
            [sys.executable, __file__, "--rows", str(n), "--chunk", str(chunk), "--json"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        m = json.loads(out.strip().splitlines()[-1])
    where = "threads" if quick else "LocalCluster 2 worker processes x 1 thread"
    ratio = m["compute_s"] / m["one_pass_s"]
    mib = m["peak_worker_bytes"] / 2**20
    return [
        {
            "what": f"dask cube, {n:.0e} rows, {m['partitions']} partitions: compute ({where})",
            "cvframe_s": m["compute_s"],
            "yardstick": "computing every partition once",
            "yardstick_s": m["one_pass_s"],
            "ratio": ratio,
            "goal": "<= 2x one pass over the partitions",
            "met": ratio <= 2.0,
            "note": f"building the cube took {m['build_s']:.3f} s and computed nothing",
        },
        {
            "what": f"dask cube, {n:.0e} rows: peak memory per worker",
            "cvframe_s": mib,
            "yardstick": "one partition in memory",
            "yardstick_s": m["partition_bytes"] / 2**20,
            "ratio": m["peak_worker_bytes"] / m["partition_bytes"],
            "goal": "bounded by the chunk size, not by the rows",
            "met": None if quick else mib < 1024,
            "unit": "MiB",
            "note": "peak RSS of a worker process, with its Python and imports; quick mode "
            "runs in this process",
        },
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--chunk", type=int, default=CHUNK)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true", help="print the measurement as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        for row in rows(quick=True):
            print(row)
        return
    m = measure(args.rows, args.chunk, args.workers)
    if args.json:
        print(json.dumps(m))
        return
    print(
        f"rows={m['rows']:,} partitions={m['partitions']} workers={m['workers']} "
        f"build={m['build_s']:.3f}s compute={m['compute_s']:.2f}s "
        f"one pass={m['one_pass_s']:.2f}s "
        f"peak/worker={m['peak_worker_bytes'] / 2**20:.0f} MiB "
        f"partition={m['partition_bytes'] / 2**20:.1f} MiB"
    )


if __name__ == "__main__":
    main()
