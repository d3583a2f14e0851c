"""The measured error rates of the paired tests: writes docs/error_rates.md.

Runs :func:`cvframe.power_study` on the full grid -- prevalence 2 / 5 / 20 / 50 %, k 5 / 10,
repeats 1 / 5, 2 and 10 classes; 4,000 simulated studies per cell under the null, 2,000 under
the alternative -- for F (the pooled F by
the per-sample and the fold-level tests, F_avg by the corrected t) and AUC_merge (DeLong),
under the null and under an alternative, plus the sensitivity of the type I error to what
the simulator assumes; then writes the page's tables between the markers of
``docs/error_rates.md`` (the prose around them is the page's own) and the raw rows to
``benchmarks/results/error_rates.csv``.

Usage::

    nice -n 10 python benchmarks/error_rates.py            # every part (about 1 h on 2 cores)
    nice -n 10 python benchmarks/error_rates.py --part f2  # one part (each under ~15 min)
    python benchmarks/error_rates.py --write               # rewrite the page from the CSVs
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the repository's cvframe

from cvframe.simulation.power import power_study  # noqa: E402

PAGE = ROOT / "docs" / "error_rates.md"
RESULTS = ROOT / "benchmarks" / "results"
GRID = dict(prevalence=(0.02, 0.05, 0.2, 0.5), k=(5, 10), repeats=(1, 5), classes=(2, 10))
STUDIES = 2000
#: Studies per cell under the null: a Monte-Carlo standard error of 0.35 points at 5 %.
NULL_STUDIES = 4000
#: The parts of the study (one process each): F under the null for 2 and for 10 classes,
#: F's power, AUC under the null and its power, the sensitivity table.
PARTS = ("f2", "f10", "fpower", "auc2", "auc10", "aucpower", "extra")
#: The alternatives of the power tables: model a better by this much.
DELTA = {"f": 0.05, "auc": 0.03}
BAND = (0.035, 0.065)


def run_part(part: str) -> pd.DataFrame:
    """The rows of one part of the study."""
    auc_grid = dict(GRID, k=10)  # k does not enter AUC_merge of fixed scorers: one k
    if part in ("f2", "f10"):
        grid = dict(GRID, classes=int(part[1:]))
        return power_study(0.0, **grid, studies=NULL_STUDIES, progress=True)
    if part == "fpower":
        return power_study(DELTA["f"], **GRID, studies=STUDIES, progress=True)
    if part in ("auc2", "auc10"):
        kw = dict(metric="auc", studies=NULL_STUDIES, progress=True)
        return power_study(0.0, **dict(auc_grid, classes=int(part[3:])), **kw)
    if part == "aucpower":
        kw = dict(metric="auc", studies=STUDIES, progress=True)
        return power_study(DELTA["auc"], **auc_grid, **kw)
    cells = dict(prevalence=(0.05, 0.2), k=10, repeats=5, studies=STUDIES, progress=True)
    parts = []
    for label, kw in (
        ("stability 1.0 (the same predictions in every repeat)", dict(stability=1.0)),
        ("stability 0.5 (half the latent drawn again per repeat)", dict(stability=0.5)),
        ("rho 0 (independent errors)", dict(rho=0.0)),
        ("rho 0.9 (nearly the same errors)", dict(rho=0.9)),
        ("identical models (balance 1, 1)", dict(balance=(1.0, 1.0))),
        ("unstratified folds", dict(stratified=False)),
        ("n = 300", dict(n=300)),
        ("n = 5000", dict(n=5000, repeats=1)),
    ):
        classes = (2, 10) if "stability 0.5" in label or "identical" in label else 2
        res = power_study(0.0, classes=classes, **{**cells, **kw})
        parts.append(res.assign(variation=label))
    five = power_study((0.0, DELTA["f"]), prevalence=(0.05, 0.2), k=2, repeats=5,
                       studies=STUDIES, progress=True)  # fmt: skip
    parts.append(five.assign(variation="5 repeats of 2 folds"))
    small = power_study(0.0, metric="auc", n=(1000, 2000), prevalence=0.02, k=10, repeats=1,
                        studies=4 * STUDIES, progress=True)  # fmt: skip
    parts.append(small.assign(variation="DeLong with few positives"))
    return pd.concat(parts, ignore_index=True)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _grid_table(rows: pd.DataFrame, kind: str, tests: list[str]) -> str:
    """One markdown table: a row per cell, a column per test (rate in %)."""
    sel = rows[rows["kind"].isin([kind, "rejection rate"] if kind == "type I error" else [kind])]
    piv = sel.pivot_table(
        index=["classes", "prevalence", "k", "repeats"], columns="test", values="rejected"
    )
    cols = [t for t in tests if t in piv.columns]
    head = "| classes | prevalence | k | repeats | " + " | ".join(f"`{t}`" for t in cols) + " |"
    lines = [head, "|" + "---|" * (4 + len(cols))]
    for (c, p, k, r), vals in piv.iterrows():
        cells = []
        for t in cols:
            v = vals[t]
            mark = "**" if kind == "type I error" and t != "corrected_t" and not (
                BAND[0] <= v <= BAND[1]
            ) else ""  # fmt: skip
            cells.append(f"{mark}{_pct(v)}{mark}")
        lines.append(f"| {c} | {p:g} | {k} | {r} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _summary(f: pd.DataFrame, auc: pd.DataFrame) -> str:
    """The sentences that sum the grid up: each test's range, and where a pooled test has
    less power than the corrected t."""
    out = []
    for rows, tests in ((f, ["paired_delta", "fold_jackknife"]), (auc, ["delong"])):
        for t in tests:
            v = rows[(rows["test"] == t) & (rows["kind"] == "type I error")]["rejected"]
            outside = int(((v < BAND[0]) | (v > BAND[1])).sum())
            out.append(
                f"- `{t}`: type I error {_pct(v.min())} to {_pct(v.max())} % over "
                f"{len(v)} cells ({outside} outside 3.5-6.5 %)."
            )
    pw = f[f["kind"] == "power"].pivot_table(
        index=["classes", "prevalence", "k", "repeats"], columns="test", values="rejected"
    )
    for t in ("paired_delta", "fold_jackknife"):
        worse = pw[pw[t] < pw["corrected_t"]]
        where = ", ".join(
            f"{c} classes / {p:g} / k={k} / {r} repeats" for c, p, k, r in worse.index
        )
        out.append(
            f"- `{t}` has less power than the corrected t on F_avg in {len(worse)} of "
            f"{len(pw)} cells" + (f": {where}." if len(worse) else ".")
        )
    return "\n".join(out)


def _extra_table(extra: pd.DataFrame) -> str:
    keep = extra[extra["kind"] != "power"]
    lines = [
        "| variation | classes | prevalence | k | repeats | test | rate (%) | ± 2 MC se |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for _, r in keep.iterrows():
        lines.append(
            f"| {r['variation']} | {r['classes']} | {r['prevalence']:g} | {r['k']} | "
            f"{r['repeats']} | `{r['test']}` ({r['metric']}) | {_pct(r['rejected'])} | "
            f"{_pct(2 * r['mc_se'])} |"
        )
    power = extra[extra["kind"] == "power"]
    if len(power):
        lines += ["", "5 repeats of 2 folds, power at a difference of 0.05 (%):", ""]
        lines += ["| prevalence | test | power |", "|---|---|---|"]
        for _, r in power.iterrows():
            lines.append(f"| {r['prevalence']:g} | `{r['test']}` | {_pct(r['rejected'])} |")
    return "\n".join(lines)


def write(f: pd.DataFrame, auc: pd.DataFrame, extra: pd.DataFrame) -> None:
    """The tables between the page's ``<!-- name -->`` ... ``<!-- /name -->`` markers."""
    f_tests = ["paired_delta", "fold_jackknife", "corrected_t"]
    tables = {
        "summary": _summary(f, auc),
        "f-null": _grid_table(f, "type I error", f_tests),
        "f-power": _grid_table(f, "power", f_tests),
        "auc-null": _grid_table(auc, "type I error", ["delong"]),
        "auc-power": _grid_table(auc, "power", ["delong"]),
        "extra": _extra_table(extra),
    }
    text = PAGE.read_text()
    for name, table in tables.items():
        start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
        a, b = text.index(start) + len(start), text.index(end)
        text = text[:a] + "\n" + table + "\n" + text[b:]
    PAGE.write_text(text)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", choices=PARTS, action="append")
    p.add_argument("--write", action="store_true", help="only rewrite the page from the CSVs")
    args = p.parse_args(argv)
    RESULTS.mkdir(exist_ok=True)
    if not args.write:
        for part in args.part or PARTS:
            run_part(part).to_csv(RESULTS / f"error_rates_{part}.csv", index=False)
    paths = {k: RESULTS / f"error_rates_{k}.csv" for k in PARTS}
    if all(path.exists() for path in paths.values()):
        got = {k: pd.read_csv(path) for k, path in paths.items()}
        f = pd.concat([got["f2"], got["f10"], got["fpower"]], ignore_index=True)
        auc = pd.concat([got["auc2"], got["auc10"], got["aucpower"]], ignore_index=True)
        write(f, auc, got["extra"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
