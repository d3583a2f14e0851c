"""The coverage tables of docs/intervals.md for class averages, labels and metrics of every
class, measured by ``cvframe.coverage_study`` (its class and label designs).

``python docs/coverage_tables.py`` (a few minutes on 2 cores; run it with ``nice``) measures
every table, stores the raw rows in ``benchmarks/results/coverage_classes.csv`` and rewrites
the tables between the page's two markers; ``python docs/coverage_tables.py --render`` only
rewrites the page from the stored rows. ``tests/test_interval_classes.py`` fails when the page
and the stored rows disagree, and checks a few cells against a fresh run.

The grid: 3, 10 and 20 classes (or labels); n = 500, 1000 and 5000; classes five times
smaller from the largest to the smallest; overall accuracy 0.7, 0.9 and 0.97 with errors
spread evenly or to a few neighbouring classes (labels: largest prevalence 5% or 20%,
precision = recall = 0.6 or 0.9 per label); 2000 simulated data sets per cell. The "before"
table re-implements the interval this one replaced (Dirichlet(1/2) on every cell of the
confusion matrix, Monte Carlo) to show what it did.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

import numpy as np
import pandas as pd

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "intervals.md"
STORE = ROOT / "benchmarks" / "results" / "coverage_classes.csv"
BEGIN = "<!-- coverage of class averages: written by docs/coverage_tables.py -->"
END = "<!-- end of the coverage of class averages -->"
TRIALS = 2000
CLASSES = (3, 10, 20)
NS = (500, 1000, 5000)
ACCURACY = (0.7, 0.9, 0.97)
ERRORS = ("uniform", "nearby")
PREVALENCE = (0.05, 0.2)
F = (0.6, 0.9)
AVERAGES = ("macro", "micro", "weighted")
WHOLE = ("mcc", "balanced_accuracy")


def _cvframe():
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import cvframe

    return cvframe


def measure() -> pd.DataFrame:
    """Every row of every table (the heavy part)."""
    cvframe = _cvframe()
    design = {"classes": CLASSES, "n": NS, "trials": TRIALS, "random_state": 2010}
    parts = [
        cvframe.coverage_study(
            metric="f", average=AVERAGES, accuracy=ACCURACY, errors=ERRORS, **design
        ).assign(table="classes")
    ]
    for metric in WHOLE:
        part = cvframe.coverage_study(metric=metric, accuracy=ACCURACY, errors=ERRORS, **design)
        parts.append(part.assign(table="classes"))
    labels = cvframe.coverage_study(
        metric="f", average=AVERAGES, multilabel=True, prevalence=PREVALENCE, f=F, **design
    )
    parts.append(labels.assign(table="labels"))
    parts.append(before())
    return pd.concat(parts, ignore_index=True)


def before(trials: int = 500, draws: int = 500) -> pd.DataFrame:
    """Coverage of the interval the normal approximation replaced: equal-tailed quantiles of
    macro F under Dirichlet(1/2) on every cell of the one-pass confusion matrix (what
    ``interval(average="macro")`` did), and how far the draws' median sat from the
    estimate, in half-widths of the interval."""
    cvframe = _cvframe()
    from cvframe import measure
    from cvframe.intervals import certify

    rows = []
    for classes in CLASSES:
        for acc in ACCURACY:
            design = certify.class_design(classes, 1000, acc, 5.0, "nearby")
            rng = np.random.default_rng(classes * 100 + int(acc * 100))
            sim = design.draw(trials, rng)["confusion"].values[:, 0, 0].astype(float)
            truth = float(cvframe.measure.cube(design.expected(), "f", "tp_fp", "macro").values[0])

            def macro(m: np.ndarray) -> np.ndarray:
                tp = np.diagonal(m, axis1=-2, axis2=-1)
                fn, fp = m.sum(-1) - tp, m.sum(-2) - tp
                tn = m.sum((-2, -1))[..., None] - tp - fp - fn
                cells = {"tp": tp, "fp": fp, "fn": fn, "tn": tn}
                return measure.pooled_counts("f", cells, "macro", 1.0, binary=False)

            est = macro(sim)
            ends = []
            for t0 in range(0, trials, 25):  # 25 trials' draws at a time (memory)
                block = sim[t0 : t0 + 25, None] + 0.5
                g = rng.standard_gamma(block, size=(len(block), draws, classes, classes))
                ends.append(np.quantile(macro(g), [0.025, 0.5, 0.975], axis=1))
            lo, mid, hi = np.concatenate(ends, axis=1)
            new = cvframe.coverage_study(
                classes=classes,
                n=1000,
                accuracy=acc,
                errors="nearby",
                trials=TRIALS,
                random_state=2010,
            ).iloc[0]
            rows.append(
                {
                    "table": "before",
                    "metric": "f",
                    "average": "macro",
                    "classes": classes,
                    "n": 1000,
                    "accuracy": acc,
                    "errors": "nearby",
                    "truth": truth,
                    "trials": trials,
                    "coverage_before": float(((lo <= truth) & (truth <= hi)).mean()),
                    "holds_estimate_before": float(((lo <= est) & (est <= hi)).mean()),
                    "shift_before": float(np.median((mid - est) / ((hi - lo) / 2))),
                    "coverage": new["coverage"],
                    "holds_estimate": new["holds_estimate"],
                }
            )
    return pd.DataFrame(rows)


def timings() -> pd.DataFrame:
    """Seconds of the interval and of its certificate on 2 models at 10 and 100 classes
    (n = 100 per class), best of 3 (not stored: machine-dependent; printed)."""
    cvframe = _cvframe()
    import xarray as xr

    from cvframe.intervals import certify

    rows = []
    for classes in (10, 100):
        design = certify.class_design(classes, 100 * classes, 0.9, 5.0, "nearby")
        conf = design.draw(1, np.random.default_rng(0))["confusion"].values[0, 0, 0]
        cubes = []
        for m in range(2):
            y = np.repeat(np.arange(classes), conf.sum(1))
            pred = np.concatenate([np.repeat(np.arange(classes), row) for row in conf])
            fold = np.random.default_rng(m).permutation(len(y)) % 10
            cubes.append(cvframe.from_predictions(y, pred, fold, labels=list(range(classes))))
        ds = xr.concat(cubes, dim="model").assign_coords(model=["a", "b"])
        for what, kw in (("interval", {}), ("certified interval", {"certify": True})):
            for metric, average in (("f", "macro"), ("mcc", None)):
                best = np.inf
                for _ in range(3):
                    t0 = time.perf_counter()
                    cvframe.interval(ds, metric, average=average, **kw)
                    best = min(best, time.perf_counter() - t0)
                name = f"{average} {metric}" if average else metric
                rows.append({"classes": classes, "what": what, "metric": name, "s": best})
    return pd.DataFrame(rows)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _pivot(rows: pd.DataFrame, index: list[str], columns: list[str]) -> str:
    table = rows.pivot_table(index=index, columns=columns, values="coverage", aggfunc="first")
    head = ["/".join(map(str, index))] + [
        " ".join(str(c) for c in (col if isinstance(col, tuple) else (col,)))
        for col in table.columns
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key, row in table.iterrows():
        key = key if isinstance(key, tuple) else (key,)
        lines.append("| " + " / ".join(map(str, key)) + " | " + " | ".join(map(_pct, row)) + " |")
    return "\n".join(lines)


def render(rows: pd.DataFrame) -> str:
    """The Markdown of every table from the stored rows."""
    out = []
    classes = rows[rows.table == "classes"]
    labels = rows[rows.table == "labels"]
    summary = [
        "| interval | classes or labels | coverage, min - max (%) | cells |",
        "|---|---|---|---|",
    ]
    for name, part, by in (
        *(
            (f"{a} F_tp,fp", classes[(classes.metric == "f") & (classes.average == a)], "classes")
            for a in AVERAGES
        ),
        *((m, classes[classes.metric == m], "classes") for m in WHOLE),
        *((f"multilabel {a} F_tp,fp", labels[labels.average == a], "labels") for a in AVERAGES),
    ):
        for c, cell in part.groupby("classes"):
            lo, hi = cell["coverage"].min(), cell["coverage"].max()
            summary.append(f"| {name} | {c} {by} | {_pct(lo)} - {_pct(hi)} | {len(cell)} |")
    out += [
        f"Coverage (%) at nominal 95%, {TRIALS} simulated data sets per cell (Monte-Carlo "
        "standard error about 0.5 points); "
        + (
            "every interval held its own estimate in every simulated data set."
            if rows["holds_estimate"].min() == 1.0
            else f"the least share of intervals holding their estimate: "
            f"{_pct(rows['holds_estimate'].min())}%."
        ),
        "",
        *summary,
        "",
    ]
    out += [
        "Before: Dirichlet(1/2) on every cell of the confusion matrix (n = 1000, errors to "
        "neighbouring classes; coverage and share of data sets whose interval held its own "
        "estimate, %; the median of the draws minus the estimate, in half-widths), against "
        "the interval now:",
        "",
        "| classes | accuracy | coverage before | holds estimate before | shift before | "
        "coverage now | holds estimate now |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows[rows.table == "before"].itertuples():
        out.append(
            f"| {r.classes} | {r.accuracy:g} | {_pct(r.coverage_before)} | "
            f"{_pct(r.holds_estimate_before)} | {r.shift_before:+.2f} | {_pct(r.coverage)} | "
            f"{_pct(r.holds_estimate)} |"
        )
    out.append("")
    for a in AVERAGES:
        part = classes[(classes.metric == "f") & (classes.average == a)]
        out += [
            f'??? note "{a} F_tp,fp: every cell (rows: classes / n; columns: accuracy, errors)"',
            "",
        ]
        out += [
            "    " + line
            for line in _pivot(part, ["classes", "n"], ["accuracy", "errors"]).splitlines()
        ]
        out.append("")
    for m in WHOLE:
        part = classes[classes.metric == m]
        out += [f'??? note "{m}: every cell (rows: classes / n; columns: accuracy, errors)"', ""]
        out += [
            "    " + line
            for line in _pivot(part, ["classes", "n"], ["accuracy", "errors"]).splitlines()
        ]
        out.append("")
    for a in AVERAGES:
        part = labels[labels.average == a]
        out += [
            f'??? note "multilabel {a} F_tp,fp: every cell '
            '(rows: labels / n; columns: prevalence, F)"',
            "",
        ]
        out += [
            "    " + line
            for line in _pivot(part, ["classes", "n"], ["prevalence", "f"]).splitlines()
        ]
        out.append("")
    return "\n".join(out)


def page(text: str, rendered: str) -> str:
    """The page with the tables between its markers replaced by ``rendered``."""
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{rendered}\n{END}{tail}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--render", action="store_true", help="only rewrite the page")
    parser.add_argument("--timings", action="store_true", help="print the timings only")
    args = parser.parse_args()
    if args.timings:
        print(timings().to_string(index=False))
        return
    if not args.render:
        measure().to_csv(STORE, index=False)
    rows = pd.read_csv(STORE, keep_default_na=False, na_values=[""])
    PAGE.write_text(page(PAGE.read_text(), render(rows)))


if __name__ == "__main__":
    main()
