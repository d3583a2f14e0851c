"""The winner's curse on null data, and its correction: the table of docs/choosing.md.

Every one of 20 candidates has the same true F (precision = recall = 0.6, so F = 0.6); their
out-of-fold predictions are simulated directly (no model is fitted): a positive is predicted
positive with probability = recall, a negative with the false-positive rate that gives the
precision, and the candidates' errors are correlated through a shared latent variable
(Gaussian copula, correlation ``rho``; candidates of one grid make similar mistakes). Each
simulated search reports the naive score (the best candidate's pooled F, what ``best_score_``
reports) and the BBC-CV corrected score with its 95 % interval
(:func:`cvframe.search.curse.selection_corrected`, what ``PooledSearchCV`` reports as
``selection_corrected_``); the paper's percentile interval of the out-of-bag scores is shown
beside it.

Run: python benchmarks/winners_curse.py [--searches 500] [--n 2000] [--write]
(``--write`` puts the table into docs/choosing.md between its markers).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import pandas as pd

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:  # run as a script from anywhere: the checkout's cvframe
    sys.path.insert(0, ROOT)

DOC = os.path.join(ROOT, "docs", "choosing.md")
START, END = "<!-- curse-table:start -->", "<!-- curse-table:end -->"


def null_frame(
    rng: np.random.Generator,
    n: int,
    prevalence: float,
    candidates: int = 20,
    precision: float = 0.6,
    recall: float = 0.6,
    rho: float = 0.5,
    folds: int = 5,
) -> tuple[pd.DataFrame, float]:
    """Out-of-fold predictions of ``candidates`` equally good classifiers, and their true F."""
    from scipy.special import ndtri

    y = rng.random(n) < prevalence
    fpr = prevalence * recall * (1 - precision) / (precision * (1 - prevalence))
    z = np.sqrt(rho) * rng.standard_normal((n, 1))
    z = z + np.sqrt(1 - rho) * rng.standard_normal((n, candidates))
    cut = np.where(y, ndtri(recall), ndtri(fpr))[:, None]
    pred = (z < cut).astype(np.int64)
    frame = pd.DataFrame(
        {
            "param": np.repeat([f"c{c:02d}" for c in range(candidates)], n),
            "sample": np.tile(np.arange(n), candidates),
            "fold": np.tile(np.arange(n) % folds, candidates),
            "y_true": np.tile(y.astype(np.int64), candidates),
            "y_pred": pred.T.ravel(),
        }
    )
    return frame, 2 * precision * recall / (precision + recall)


def study(
    prevalences: tuple[float, ...] = (0.01, 0.1, 0.3),
    searches: int = 500,
    n: int = 2000,
    rho: float = 0.5,
    seed: int = 0,
    n_bootstraps: int = 1000,
) -> pd.DataFrame:
    """One row per (prevalence, simulated search)."""
    import warnings

    from cvframe.search.curse import selection_corrected

    rows = []
    for prev in prevalences:
        rng = np.random.default_rng([seed, int(round(prev * 1e6))])
        for s in range(searches):
            frame, truth = null_frame(rng, n, prev, rho=rho)
            if frame["y_true"].sum() == 0:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = selection_corrected(
                    frame, "f1", n_bootstraps=n_bootstraps, random_state=[seed, s]
                )
            oob = out.oob[np.isfinite(out.oob)]
            lo, hi = np.quantile(oob, [0.025, 0.975]) if oob.size else (np.nan, np.nan)
            rows.append(
                {
                    "prevalence": prev,
                    "truth": truth,
                    "naive": out.naive,
                    "corrected": out.score,
                    "covered": out.low <= truth <= out.high,
                    "width": out.high - out.low,
                    "percentile_covered": lo <= truth <= hi,
                    "percentile_width": hi - lo,
                }
            )
    return pd.DataFrame(rows)


def table(df: pd.DataFrame) -> pd.DataFrame:
    """The summary: biases with their Monte-Carlo errors, coverages, widths."""
    out = []
    for prev, g in df.groupby("prevalence"):
        k = len(g)
        nb = g.naive - g.truth
        cb = g.corrected - g.truth
        out.append(
            {
                "positives": f"{100 * prev:g} %",
                "searches": k,
                "naive bias": f"{nb.mean():+.4f} ± {nb.std() / np.sqrt(k):.4f}",
                "corrected bias": f"{cb.mean():+.4f} ± {cb.std() / np.sqrt(k):.4f}",
                "corrected / naive": f"{cb.mean() / nb.mean():+.0%}",
                "coverage (95 %)": f"{g.covered.mean():.1%}",
                "width": f"{g.width.mean():.3f}",
                "BBC percentile coverage": f"{g.percentile_covered.mean():.1%}",
                "percentile width": f"{g.percentile_width.mean():.3f}",
            }
        )
    return pd.DataFrame(out)


def markdown(df: pd.DataFrame) -> str:
    """A pipe table of ``df`` (no tabulate needed)."""
    head = "| " + " | ".join(map(str, df.columns)) + " |"
    rule = "|" + "|".join(" --- " for _ in df.columns) + "|"
    body = ["| " + " | ".join(map(str, row)) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, rule, *body])


def write(text: str, path: str = DOC) -> None:
    """Put ``text`` between the table markers of ``path``."""
    with open(path, encoding="utf-8") as fh:
        page = fh.read()
    head, rest = page.split(START, 1)
    _, tail = rest.split(END, 1)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(f"{head}{START}\n{text}\n{END}{tail}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--searches", type=int, default=500)
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--rho", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--write", action="store_true")
    parser.add_argument(
        "--prevalence", type=float, action="append", help="run only these (default 1/10/30 %%)"
    )
    parser.add_argument("--save", help="also save the simulated searches to this CSV")
    parser.add_argument("--load", nargs="*", help="tabulate saved CSVs instead of simulating")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    if args.load:
        df = pd.concat([pd.read_csv(f) for f in args.load], ignore_index=True)
    else:
        prevs = tuple(args.prevalence or (0.01, 0.1, 0.3))
        df = study(prevs, searches=args.searches, n=args.n, rho=args.rho, seed=args.seed)
    if args.save:
        df.to_csv(args.save, index=False)
    tab = table(df)
    print(f"{time.perf_counter() - t0:.0f} s", file=sys.stderr)
    text = markdown(tab)
    note = (
        f"\n\n{len(df) // df.prevalence.nunique()} simulated searches per row, "
        f"n = {args.n} samples, 20 candidates "
        f"of true F = 0.6 (precision = recall = 0.6), correlation {args.rho} between the "
        f"candidates' errors, 1000 bootstrap samples, seed {args.seed} "
        "(`python benchmarks/winners_curse.py --write`). ± is one Monte-Carlo standard error."
    )
    print(text + note)
    if args.write:
        write(text + note)


if __name__ == "__main__":
    main()
