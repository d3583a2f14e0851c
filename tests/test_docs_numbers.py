"""The numbers the docs state in prose and tables are the numbers the code gives.

A docs page states a number either in a ```python doctest block (checked by
``tests/test_doc_blocks.py``) or in prose and tables; the prose and table numbers are computed
here and the page must contain exactly the rounded text. Exact values come from cvframe's
exact functions (``cvframe.simulation.exact.moments``, ``cvframe.p_fold_without_positives``)
and the datasets of the paper; the one Monte-Carlo table too large to run in a test (10^6
paired trials per cell) is stored below with its seed and the code that made it, and a fresh
small run checks it.
"""

from __future__ import annotations

import math
import pathlib
import re
import warnings

import numpy as np
import pytest

import cvframe
from cvframe.simulation._model import Model
from cvframe.simulation.exact import moments

DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs"
F_GRID = (0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)
MINUS = "\u2212"


def page(name: str) -> str:
    return (DOCS / name).read_text()


def flat(name: str) -> str:
    """A page's text with its line breaks folded to spaces (prose wraps anywhere)."""
    return " ".join(page(name).split())


def signed(x: float, digits: int) -> str:
    """``+0.0123`` / ``−0.0123`` with a typographic minus, as the tables print it."""
    text = f"{x:+.{digits}f}"
    return text.replace("-", MINUS)


@pytest.fixture(scope="module")
def exact_stratified() -> dict[tuple[float, float], dict[str, float]]:
    """The exact moments of the stratified design at 5 % and 25 % positives."""
    return {(p, f): moments(Model.make(1000, p, f, 10, True)) for p in (0.05, 0.25) for f in F_GRID}


# --------------------------------------------------------------------------------------------
# docs/simulation.md: the Figure 8 fidelity note
# --------------------------------------------------------------------------------------------
#: 10^6 paired trials per cell, stratified, n = 1000, k = 10, seed 2010, made by the page's
#: ``paired(prevalence, f, trials=1_000_000)`` (docs/simulation.md, "Fidelity notes") plus the
#: root-mean-square error of F_pr,re on the same trials, all in percent of f:
#: (prevalence, f): (sd F_pr,re - sd F_tp,fp, 2 se, sd F_avg - sd F_tp,fp, 2 se,
#:                   RMSE F_pr,re, 2 se)
PAIRED_1E6 = {
    (0.05, 0.6): (0.3803, 0.0042, 0.3867, 0.0035, 9.8152, 0.0136),
    (0.05, 0.65): (0.2467, 0.0036, 0.3465, 0.0030, 8.6090, 0.0118),
    (0.05, 0.7): (0.1284, 0.0030, 0.3004, 0.0026, 7.4880, 0.0103),
    (0.05, 0.75): (0.0279, 0.0024, 0.2510, 0.0022, 6.4229, 0.0088),
    (0.05, 0.8): (-0.0520, 0.0019, 0.1990, 0.0018, 5.3973, 0.0074),
    (0.05, 0.85): (-0.1083, 0.0014, 0.1463, 0.0014, 4.3915, 0.0060),
    (0.05, 0.9): (-0.1358, 0.0010, 0.0980, 0.0010, 3.3621, 0.0046),
    (0.05, 0.95): (-0.1282, 0.0006, 0.0517, 0.0006, 2.2268, 0.0031),
    (0.25, 0.6): (0.0316, 0.0007, 0.0355, 0.0006, 4.1148, 0.0058),
    (0.25, 0.65): (0.0228, 0.0006, 0.0312, 0.0005, 3.6340, 0.0051),
    (0.25, 0.7): (0.0142, 0.0005, 0.0264, 0.0004, 3.1867, 0.0045),
    (0.25, 0.75): (0.0061, 0.0004, 0.0213, 0.0004, 2.7632, 0.0039),
    (0.25, 0.8): (-0.0012, 0.0004, 0.0161, 0.0003, 2.3537, 0.0033),
    (0.25, 0.85): (-0.0073, 0.0003, 0.0111, 0.0002, 1.9443, 0.0027),
    (0.25, 0.9): (-0.0116, 0.0002, 0.0065, 0.0001, 1.5178, 0.0021),
    (0.25, 0.95): (-0.0125, 0.0001, 0.0027, 0.0001, 1.0266, 0.0014),
}


def exact_rmse(ex: dict[str, float], f: float) -> float:
    """Exact RMSE of F_tp,fp in percent of f."""
    return 100 * math.hypot(ex["f_tp_fp_mean"] - f, ex["f_tp_fp_std"]) / f


def pr_re_lower(cell: tuple[float, float]) -> bool:
    """F_pr,re's spread below F_tp,fp's, resolved (more than two standard errors)."""
    diff, se2 = PAIRED_1E6[cell][:2]
    return diff < 0 and -diff > se2


def fidelity_rows(exact: dict[tuple[float, float], dict[str, float]]) -> list[str]:
    rows = []
    for (p, f), (d_pr, s_pr, d_avg, s_avg, rmse_pr, s_rmse) in PAIRED_1E6.items():
        ex = exact[(p, f)]
        rmse_tp = exact_rmse(ex, f)
        pr = f"{signed(d_pr, 4)} ± {s_pr:.4f}"
        if pr_re_lower((p, f)):
            pr = f"**{pr}**"
        rows.append(
            f"| {round(100 * p)}% | {f:.2f} | {100 * ex['f_tp_fp_std'] / f:.2f} | {pr} "
            f"| {signed(d_avg, 4)} ± {s_avg:.4f} | {rmse_tp:.2f} "
            f"| {signed(rmse_pr - rmse_tp, 3)} ± {s_rmse:.3f} |"
        )
    return rows


def test_fidelity_table_is_the_stored_run_and_the_exact_values(exact_stratified):
    text = page("simulation.md")
    for row in fidelity_rows(exact_stratified):
        assert row in text, row


def test_fidelity_counts_and_ranges(exact_stratified):
    """The prose of the note: 8 of 16 cells, the sizes, the RMSE comparison."""
    text = flat("simulation.md")
    lower = [c for c in PAIRED_1E6 if pr_re_lower(c)]
    assert len(lower) == 8 and (0.25, 0.8) in lower
    assert f"in {len(lower)} of the 16 cells" in text
    # every other cell is resolved the other way: no tie is left at 10^6 trials
    assert all(PAIRED_1E6[c][0] > PAIRED_1E6[c][1] for c in set(PAIRED_1E6) - set(lower))
    at5 = [-PAIRED_1E6[c][0] for c in lower if c[0] == 0.05]
    at25 = [-PAIRED_1E6[c][0] for c in lower if c[0] == 0.25]
    assert f"by {min(at5):.2f}–{max(at5):.2f} points at 5%" in text
    assert f"by {min(at25):.3f}–{max(at25):.3f} point at 25%" in text
    # F_pr,re's own spread at 5 %, F = 0.95, against F_tp,fp's exact one
    ex = exact_stratified[(0.05, 0.95)]
    sd_tp = 100 * ex["f_tp_fp_std"] / 0.95
    share = 100 * PAIRED_1E6[(0.05, 0.95)][0] / sd_tp
    assert f"up to {-share:.1f}% of F_tp,fp's own spread" in text
    # RMSE: within 0.1 point where F_pr,re varies less, and at 25 %; not at 5 % with F <= 0.75
    diff = {c: PAIRED_1E6[c][4] - exact_rmse(exact_stratified[c], c[1]) for c in PAIRED_1E6}
    near = {c for c, d in diff.items() if abs(d) <= 0.1}
    far = set(PAIRED_1E6) - near
    assert far == {(0.05, f) for f in (0.6, 0.65, 0.7, 0.75)}
    assert set(lower) <= near
    lo, hi = min(diff[c] for c in far), max(diff[c] for c in far)
    assert f"{lo:.2f}–{hi:.2f} points higher" in text
    ahead = sorted(c for c, d in diff.items() if d < -PAIRED_1E6[c][5])
    assert ahead == [(0.05, 0.9), (0.05, 0.95), (0.25, 0.9), (0.25, 0.95)]


def test_fidelity_store_agrees_with_a_fresh_small_run():
    """A fresh 50 000-trial paired run lies within its error of the stored 10^6 (5 %, F = 0.9),
    and does not resolve the cell that needs 10^6 trials (25 %, F = 0.80)."""
    trials = 50_000
    scale = math.sqrt(1e6 / trials)  # the stored two standard errors, at 50 000 trials
    diffs = {}
    for p, f in ((0.05, 0.9), (0.25, 0.8)):
        m = cvframe.simulate(prevalence=p, f=f, trials=trials, seed=2010).cv.f_methods(
            zero_division=0.0
        )
        a, b = m.f_tp_fp.values.ravel(), m.f_pr_re.values.ravel()
        diffs[(p, f)] = 100 * (b.std(ddof=1) - a.std(ddof=1)) / f
    stored, se2 = PAIRED_1E6[(0.05, 0.9)][:2]
    assert abs(diffs[(0.05, 0.9)] - stored) < 1.5 * se2 * scale, diffs
    assert abs(diffs[(0.25, 0.8)]) < PAIRED_1E6[(0.25, 0.8)][1] * scale, diffs
    assert "at 50 000 it is within two standard errors of 0" in flat("simulation.md")


def test_fidelity_bias_numbers(exact_stratified):
    text = flat("simulation.md")
    bias = {c: 100 * (ex["f_tp_fp_mean"] - c[1]) / c[1] for c, ex in exact_stratified.items()}
    assert f"at most {max(abs(b) for b in bias.values()):.2f}% in size in these 16 cells" in text
    assert f"({bias[(0.05, 0.8)]:.2f}% at 5%, F = 0.8)".replace("-", MINUS) in text
    # F_pr,re's bias, from the Figure 6 table (Monte Carlo, 100 000 trials)
    tables = _tables(page("simulation.md"))
    fig6_5 = {r[0]: r for r in tables["Figure 6, 5% positives: relative bias (%), stratified"]}
    fig6_25 = {r[0]: r for r in tables["Figure 6, 25% positives: relative bias (%), stratified"]}
    b5, b25 = fig6_5["0.8"][3].split(" ±")[0], fig6_25["0.9"][3].split(" ±")[0]
    assert f"({b5}% at 5%, F = 0.8; {b25}% at 25%, F = 0.9)" in text
    # and the spreads and RMSEs the prose quotes
    sd_tp_95 = 100 * exact_stratified[(0.05, 0.95)]["f_tp_fp_std"] / 0.95
    sd_pr_95 = sd_tp_95 + PAIRED_1E6[(0.05, 0.95)][0]
    assert f"{sd_pr_95:.2f} against {sd_tp_95:.2f} at F = 0.95" in text
    rmse_tp = exact_rmse(exact_stratified[(0.05, 0.9)], 0.9)
    assert f"(5%, F = 0.9: {PAIRED_1E6[(0.05, 0.9)][4]:.2f} against {rmse_tp:.2f})" in text
    fig8 = tables["Figure 8, 5% positives: relative standard deviation (%), stratified"]
    row = {r[0]: r for r in fig8}["0.9"]
    pr_re, tp_fp = row[3].lstrip("+"), row[1].lstrip("+")
    assert f"(5%, F = 0.9: {pr_re} against the exact {tp_fp})" in text


def test_undefined_folds_at_5_and_25_percent(exact_stratified):
    """A fold is undefined in 0.0002-1.35 % of the stratified trials at 5 %, ~never at 25 %."""
    text = flat("simulation.md")
    at5 = [100 * exact_stratified[(0.05, f)]["p_undefined"] for f in F_GRID]
    assert f"{min(at5):.4f}% (F = 0.95) and {max(at5):.2f}% (F = 0.60)" in text
    assert max(100 * exact_stratified[(0.25, f)]["p_undefined"] for f in F_GRID) < 1e-11
    assert "below 10⁻¹¹ %" in text
    assert "no fold is undefined at 5%" not in text


# --------------------------------------------------------------------------------------------
# docs/simulation.md: the exact columns of Figures 4-8 and the undefined-fold table
# --------------------------------------------------------------------------------------------
def _tables(text: str) -> dict[str, list[list[str]]]:
    """Markdown tables under each ``### `` heading: heading -> rows of cells."""
    out: dict[str, list[list[str]]] = {}
    for block in re.split(r"^### ", text, flags=re.M)[1:]:
        if "\n|" not in block:
            continue
        head, _, body = block.partition("\n")
        lines = body.splitlines()
        first = next(i for i, line in enumerate(lines) if line.startswith("|"))
        rows = []
        for line in lines[first:]:  # the first table under the heading, to its end
            if not line.startswith("|"):
                break
            if not line.startswith("|---"):
                rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        out[head.strip()] = rows
    return out


FIGURES = {  # heading prefix -> (stratified, prevalence or None, "rel_bias" or "rel_std")
    "Figure 4:": (True, None, "bias"),
    "Figure 5:": (False, None, "bias"),
    "Figure 6, 1%": (True, 0.01, "bias"),
    "Figure 6, 5%": (True, 0.05, "bias"),
    "Figure 6, 25%": (True, 0.25, "bias"),
    "Figure 7, 1%": (False, 0.01, "bias"),
    "Figure 7, 5%": (False, 0.05, "bias"),
    "Figure 7, 25%": (False, 0.25, "bias"),
    "Figure 8, 1%": (True, 0.01, "std"),
    "Figure 8, 5%": (True, 0.05, "std"),
    "Figure 8, 25%": (True, 0.25, "std"),
}


def test_figure_tables_exact_columns():
    """F_tp,fp and F_avg are exact in Figures 4-8: the printed values are the exact ones."""
    tables = _tables(page("simulation.md"))
    checked = 0
    for prefix, (strat, prev, kind) in FIGURES.items():
        (head,) = [h for h in tables if h.startswith(prefix)]
        header, *rows = tables[head]
        assert header[1:3] == ["f_tp_fp", "f_avg"], head
        for row in rows:
            p, f = (float(row[0]), 0.8) if prev is None else (prev, float(row[0]))
            ex = moments(Model.make(1000, p, f, 10, strat))
            for name, cell in zip(("f_tp_fp", "f_avg"), row[1:3], strict=True):
                value = (ex[f"{name}_mean"] - f) if kind == "bias" else ex[f"{name}_std"]
                want = f"{100 * value / f:+.2f}"
                assert cell == want, (head, row[0], name, cell, want)
                checked += 1
    assert checked == 2 * (5 + 5 + 8 * 9)


def test_undefined_fold_table():
    tables = _tables(page("simulation.md"))
    (head,) = [h for h in tables if h.startswith("Share of trials with an undefined fold")]
    header, *rows = tables[head]
    assert header == ["prevalence", "stratified", "unstratified"]
    assert [float(r[0]) for r in rows] == [0.01, 0.02, 0.03, 0.04, 0.05]
    for row in rows:
        for strat, cell in zip((True, False), row[1:], strict=True):
            p = moments(Model.make(1000, float(row[0]), 0.8, 10, strat))["p_undefined"]
            assert cell == f"{100 * p:.3g}", (row, strat, cell)


# --------------------------------------------------------------------------------------------
# numbers other pages state in prose
# --------------------------------------------------------------------------------------------
def test_multiclass_binary_macro_against_class_mean():
    t1 = cvframe.datasets.table1()
    macro, mean = t1.cv.macro("f", "avg").item(), t1.cv.f_avg().mean("class").item()
    assert abs(macro - mean) > 0.1  # the identity does not hold on a binary cube
    assert f"macro F_avg {macro:.3f} against the positive class's F_avg {mean:.3f}" in flat(
        "multiclass.md"
    )


def test_multiclass_which_average_numbers():
    ds = cvframe.datasets.slides_confusion()
    support = (ds.tp + ds.fn).sum("fold").values.tolist()
    text = flat("multiclass.md")
    assert f"classes of {support[0]}, {support[1]} and {support[2]} samples" in text
    macro, micro = ds.cv.macro("f").item(), ds.cv.micro("f").item()
    assert f"macro F is {macro:.2f} and micro F {micro:.2f}" in text
    c = int(ds.tp.sel({"class": "C"}).sum()), int((ds.tp + ds.fn).sel({"class": "C"}).sum())
    assert f"the smallest class, C, is the one with the poor F (recall {c[0]}/{c[1]})" in text
    assert min(support) == support[2] and int(np.argmin(ds.cv.f_tp_fp().values)) == 2


def test_explain_table2_fold_count():
    n = cvframe.datasets.table2().sizes["fold"]
    assert n == 4
    assert f"the {n} folds of the paper's Table 2" in page("explain.md")
    assert "3 folds of the paper's Table 2" not in page("explain.md")


def test_f_values_of_a_fold_with_three_positives():
    def f(tp: int, fp: int) -> float:
        return 2 * tp / (2 * tp + fp + (3 - tp))

    no_fp = ", ".join(f"{f(t, 0):.2g}" for t in range(4))
    one_fp = ", ".join(f"{f(t, 1):.2g}" for t in range(4))
    no_fp, one_fp = (s.rsplit(", ", 1) for s in (no_fp, one_fp))
    text = flat("comparing_models.md")
    assert f"no false positive has an F of {no_fp[0]} or {no_fp[1]}" in text
    assert f"one false positive more and it is {one_fp[0]} or {one_fp[1]}" in text


def test_why_f_ratios():
    m = cvframe.datasets.table1().cv.f_methods(zero_division=0)
    m2 = cvframe.datasets.table2().cv.f_methods(zero_division=0)
    text = flat("why_f_is_ambiguous.md")
    ratio1 = (m.f_pr_re / m.f_tp_fp).item()
    assert f"= {ratio1:.2f} × F<sub>tp,fp</sub>" in text
    ratio2 = (m2.f_pr_re_skip / m2.f_pr_re).item()
    assert f"from the counts the ratio is {ratio2:.2f}" in text
    assert f"F<sub>avg</sub> down to {m2.f_avg.item():.3f}" in text
    assert f"reports {m2.f_avg_skip.item():.3f} and {m2.f_pr_re_skip.item():.3f}" in text
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        precision = cvframe.datasets.table1().cv.precision(zero_division=0.0)
    assert f"13 false positives (precision {100 * precision.values.ravel()[2]:.0f}%)" in text


WEKA = pathlib.Path(__file__).resolve().parent / "data" / "readers" / "weka"


def _scheme(key: str) -> str:
    """The page's name of a scheme in the Experimenter's key line."""
    if "Logistic" in key:
        return "Logistic"
    return "NaiveBayes -K" if "-K" in key else "NaiveBayes"


def test_readers_weka_experimenter_means_are_the_files():
    """The F_measure means the page quotes are the Analyse tab's output saved with the data."""
    lines = (WEKA / "experiment_means.txt").read_text().splitlines()
    keys = dict(line.split(",", 1) for line in lines[:30] if line.startswith("["))
    header = next(line for line in lines if line.startswith("Dataset,")).split(",")
    alpha = next(line for line in lines if line.startswith("alpha,")).split(",")
    values = {_scheme(keys[col]): alpha[i] for i, col in enumerate(header) if col in keys}
    assert len(values) == 3
    text = flat("readers_weka.md")
    assert (
        f"it prints {values['NaiveBayes']} for NaiveBayes, {values['NaiveBayes -K']} for "
        f"NaiveBayes -K and {values['Logistic']} for Logistic" in text
    )
