"""Run every benchmark and print one table of ratios against the yardsticks.

Each ``benchmarks/bench_<name>.py`` exposes ``rows(quick: bool = False, modes=("warm",))
-> list[dict]`` (``modes`` optional: a file without it runs warm only); a row has the keys
``what``, ``cvframe_s`` (seconds, or the row's optional ``unit`` such as "MiB", which then
applies to ``yardstick_s`` too), ``yardstick``, ``yardstick_s``, ``ratio`` (cvframe_s /
yardstick_s unless the goal says otherwise), ``goal``, ``met`` and optionally ``note``,
``mode`` ("warm": in the benchmark's process after a warm-up; "fresh": every run a new
interpreter, as a script or a command meets it), ``engine`` (the engine that ran: numba or
numpy) and ``load`` (the 1-minute load average when the row was measured). This script
imports every such file, calls ``rows(quick, modes)``, and prints ONE table (what | mode |
engine | cvframe | yardstick | ratio | goal | met | load) headed by the machine (CPU model,
cores, RAM, Python and library versions) and the load (``os.getloadavg`` before and after),
and closed by the rows that missed their goal with where their time goes (their notes). A
benchmark that raises, or returns malformed rows, becomes a failed row with the error in its
note: the run goes on.

A full run writes ``benchmarks/results/<YYYY-MM-DD>.md`` and ``.json`` (the committed
results); ``--quick`` (a smoke run: small inputs, best of 1) and ``--only`` write nothing
unless ``--out`` names a file.

Usage::

    python benchmarks/run.py --fresh --warm   # everything, both ways; about an hour on 2 cores
    python benchmarks/run.py --warm           # every row warm only
    python benchmarks/run.py --quick          # a smoke run (warm)
    python benchmarks/run.py --only import    # one file: bench_import.py (repeatable)
    python benchmarks/run.py --quick --out /tmp/bench.md
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib.util
import inspect
import json
import math
import os
import platform
import subprocess
import sys
import time
import traceback
from collections.abc import Sequence
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:  # run as a script from anywhere: the checkout's cvframe
    sys.path.insert(0, ROOT)

KEYS = ("what", "cvframe_s", "yardstick", "yardstick_s", "ratio", "goal", "met")
COLUMNS = ("what", "mode", "engine", "cvframe", "yardstick", "ratio", "goal", "met", "load")
MODES = ("warm", "fresh")


def discover(folder: str = HERE) -> dict[str, str]:
    """The benchmark files of ``folder``: ``{name: path}`` for every ``bench_<name>.py``."""
    found = {}
    for entry in sorted(os.listdir(folder)):
        if entry.startswith("bench_") and entry.endswith(".py"):
            found[entry[len("bench_") : -len(".py")]] = os.path.join(folder, entry)
    return found


def _load(name: str, path: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"_cvframe_bench_{name}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def failed(bench: str, message: str) -> dict[str, Any]:
    """The row that stands for a benchmark that raised or returned malformed rows."""
    return {
        "bench": bench,
        "what": f"{bench}: FAILED",
        "cvframe_s": math.nan,
        "yardstick": "",
        "yardstick_s": math.nan,
        "ratio": math.nan,
        "goal": "",
        "met": False,
        "note": message,
    }


def check_row(row: Any) -> str | None:
    """Why ``row`` breaks the row protocol, or None when it keeps it."""
    if not isinstance(row, dict):
        return f"a row must be a dict, got {type(row).__name__}"
    missing = [k for k in KEYS if k not in row]
    if missing:
        return f"row {row.get('what', '?')!r} lacks {', '.join(missing)}"
    return None


def run_one(
    bench: str, path: str, quick: bool, modes: Sequence[str] = ("warm",)
) -> tuple[list[dict[str, Any]], float]:
    """Rows of one benchmark file (a failed row if it raises) and its wall time; ``modes``
    are passed to a ``rows`` that takes them (else its rows are warm)."""
    t0 = time.perf_counter()
    try:
        rows_of = _load(bench, path).rows
        if "modes" in inspect.signature(rows_of).parameters:
            got = list(rows_of(quick=quick, modes=tuple(modes)))
        else:
            got = [{"mode": "warm", **row} for row in rows_of(quick=quick)]
        problems = [p for p in map(check_row, got) if p]
        if problems:
            raise ValueError("; ".join(problems))
        if not got:
            raise ValueError("rows() returned no rows")
        out = [{"bench": bench, **row} for row in got]
    except Exception as exc:  # reported as a failed row: the other benchmarks still run
        last = traceback.extract_tb(exc.__traceback__)[-1:]
        where = f" ({os.path.basename(last[0].filename)}:{last[0].lineno})" if last else ""
        out = [failed(bench, f"{type(exc).__name__}: {exc}{where}")]
    return out, time.perf_counter() - t0


def _version(module: str) -> str:
    try:
        return str(__import__(module).__version__)
    except Exception:
        return "not installed"


def machine() -> dict[str, Any]:
    """CPU model, cores, RAM, OS, Python and library versions, git commit."""
    cpu = platform.processor() or platform.machine()
    ram_gb = math.nan
    try:
        with open("/proc/cpuinfo") as fh:
            names = [ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")]
        cpu = names[0] if names else cpu
        with open("/proc/meminfo") as fh:
            kb = next(int(ln.split()[1]) for ln in fh if ln.startswith("MemTotal"))
        ram_gb = kb / 1024**2
    except (OSError, StopIteration, ValueError):
        pass
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "ram_gb": round(ram_gb, 1),
        "os": platform.platform(),
        "python": platform.python_version(),
        **{lib: _version(lib) for lib in ("numpy", "pandas", "xarray", "cvframe")},
        "commit": commit,
    }


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, *np_number())) and not isinstance(value, bool)


def np_number() -> tuple[type, ...]:
    """numpy's scalar number type when numpy is loaded (rows may hold numpy scalars)."""
    np = sys.modules.get("numpy")
    return (np.number,) if np is not None else ()


def plain(value: Any) -> Any:
    """``value`` as JSON can hold it: numpy scalars as Python ones, NaN as None."""
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def _num(value: Any, unit: str = "s") -> str:
    if not _is_number(value):
        return _cell(value)
    value = float(value)
    if math.isnan(value):
        return "—"
    if unit == "s" and 0 < value < 0.01:
        return f"{value * 1e3:.3g} ms"
    if unit == "s":
        return f"{value:.3f} s" if value < 10 else f"{value:.1f} s"
    if unit == "x":
        return f"{value:.2f}x"
    return f"{value:.3g} {unit}".strip()


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def table(rows: Sequence[dict[str, Any]]) -> str:
    """The markdown table of ``rows``: what | cvframe | yardstick | ratio | goal | met.

    Notes follow the table as a list, numbered (``[1]`` in the ``what`` cell).
    """
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    dash = "—"
    notes = []
    for row in rows:
        unit = row.get("unit", "s")
        what = _cell(row["what"])
        if row.get("note"):
            notes.append(row["note"])
            what += f" [{len(notes)}]"
        yard = _cell(row["yardstick"])
        if _is_number(row["yardstick_s"]) and not math.isnan(row["yardstick_s"]):
            yard += f" {_num(row['yardstick_s'], unit)}"
        ratio = row["ratio"]
        ratio_s = _num(ratio, "x") if _is_number(ratio) else _cell(ratio)
        cells = [what, _cell(row.get("mode") or dash), _cell(row.get("engine") or dash)]
        cells += [_num(row["cvframe_s"], unit), yard.strip(), ratio_s, _cell(row["goal"])]
        cells.append(dash if row["met"] is None else "yes" if row["met"] else "**no**")
        load = row.get("load")
        cells.append(f"{load:.1f}" if _is_number(load) else dash)
        lines.append("| " + " | ".join(cells) + " |")
    if notes:
        lines.append("")
        lines += [f"- [{i}] {_cell(note)}" for i, note in enumerate(notes, 1)]
    return "\n".join(lines)


def missed(rows: Sequence[dict[str, Any]]) -> str:
    """The closing note: each row that missed its goal, its ratio and where its time goes
    (the row's note: measured by the benchmark, not fixed text)."""
    lines = []
    for row in rows:
        if row["met"] or row["met"] is None:
            continue
        ratio = row["ratio"]
        ratio_s = _num(ratio, "x") if _is_number(ratio) else _cell(ratio)
        where = _cell(row.get("note") or "no measurement of where the time goes")
        mode = f" ({row['mode']})" if row.get("mode") else ""
        lines.append(f"- {_cell(row['what'])}{mode}: {ratio_s}, goal {_cell(row['goal'])}. {where}")
    if not lines:
        return "Every row met its goal."
    return "\n".join(["## Goals missed, and where their time goes", "", *lines])


def header(
    info: dict[str, Any], load: Sequence[float], quick: bool, modes: Sequence[str] = ("warm",)
) -> str:
    """The lines above the table: date, machine, load and how the rows were run."""
    when = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    libs = ", ".join(f"{k} {info[k]}" for k in ("numpy", "pandas", "xarray", "cvframe"))
    return "\n".join(
        [
            f"# cvframe benchmarks, {when}{' (quick smoke run)' if quick else ''}",
            "",
            f"- machine: {info['cpu']}, {info['cores']} cores, {info['ram_gb']} GB RAM, "
            f"{info['os']}",
            f"- Python {info['python']}; {libs}; commit {info['commit'] or '?'}",
            "- timing: each candidate and its yardstick run in the same rounds (A, B, A, B, "
            "...: benchmarks/_timing.py), the least disturbed run (min) of each in the table, "
            "the medians in the notes",
            f"- modes: {', '.join(modes)} (warm: in the benchmark's process after a warm-up, "
            "numba loaded when installed; fresh: every run a new interpreter that makes the "
            "inputs and times the call, its imports and the engine's load included); engine: "
            "the one that ran; load: the 1-minute load average when the row was measured",
            "- load average (1, 5, 15 min) before: "
            + ", ".join(f"{x:.2f}" for x in load[:3])
            + (("; after: " + ", ".join(f"{x:.2f}" for x in load[3:])) if len(load) > 3 else ""),
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help="a smoke run: small inputs")
    parser.add_argument(
        "--warm", action="store_true", help="rows measured in this process after a warm-up"
    )
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="rows measured in a fresh interpreter per run (as a script or a command meets "
        "them); neither --warm nor --fresh: both (--quick: warm)",
    )
    parser.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help="run only bench_NAME.py (repeatable); default: every bench_*.py",
    )
    parser.add_argument("--out", help="write the table to this .md file (and .json beside it)")
    parser.add_argument("--dir", default=HERE, help=argparse.SUPPRESS)  # tests: a fake folder
    args = parser.parse_args(argv)

    benches = discover(args.dir)
    if args.only:
        unknown = sorted(set(args.only) - set(benches))
        if unknown:
            parser.error(
                f"--only {', '.join(unknown)}: no such benchmark; choose from {', '.join(benches)}"
            )
        benches = {k: v for k, v in benches.items() if k in args.only}

    modes = [m for m in MODES if getattr(args, m)]
    if not modes:
        modes = ["warm"] if args.quick else list(MODES)
    info = machine()
    before = os.getloadavg()
    rows: list[dict[str, Any]] = []
    took: dict[str, float] = {}
    for bench, path in benches.items():
        print(f"running bench_{bench}.py ...", file=sys.stderr, flush=True)
        got, took[bench] = run_one(bench, path, args.quick, modes)
        rows += got
    load = [*before, *os.getloadavg()]

    text = header(info, load, args.quick, modes) + "\n\n" + table(rows) + "\n\n"
    text += missed(rows) + "\n"
    print(text)
    out = args.out
    if out is None and not args.quick and not args.only:
        today = _dt.datetime.now(_dt.UTC).date().isoformat()
        out = os.path.join(HERE, "results", f"{today}.md")
    if out:
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        with open(out, "w") as fh:
            fh.write(text)
        record = {
            "machine": info,
            "load_before": before,
            "load_after": load[3:],
            "quick": args.quick,
            "modes": modes,
            "seconds_per_bench": took,
            "rows": rows,
        }
        with open(os.path.splitext(out)[0] + ".json", "w") as fh:
            json.dump(plain(record), fh, indent=1, default=str)
        print(f"wrote {out}", file=sys.stderr)
    return 0 if all(not r["what"].endswith("FAILED") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
