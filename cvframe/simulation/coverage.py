r"""Coverage measured, not assumed: :func:`coverage_study` runs the simulation model of Forman
& Scholz (2010) and counts how often each interval method of :func:`cvframe.interval`
covers the known truth. A simulated cube's ``trial`` dim is one more kept dim of
:func:`cvframe.interval`; AUC's binormal score rows go to :func:`cvframe.intervals.delong`.
"""

from __future__ import annotations

import itertools
import math
import warnings
from typing import Any

import numpy as np
import pandas as pd

from .. import measure, metrics
from .._core import quantiles
from ..errors import UndefinedMetricWarning
from ..intervals import METHODS, certify, delong, interval
from ._model import Model, as_seed, check_flag, check_int, check_real, check_trials, grid
from .cube import simulate
from .study import point_seed

__all__ = ["COUNT_METRICS", "coverage_study"]

#: Count metrics a coverage study measures, by their names with an interval variant (the
#: truth is the formula of the model's expected cells; F, precision, recall: ``f``).
COUNT_METRICS = tuple(
    name
    for m in metrics.by_kind("count").values()
    for name in (m.name, *(metrics.spelled(m.name, v) for v in m.intervals))
)
#: Trials per call of :func:`cvframe.interval` (bounds the memory of bootstrap draws).
CHUNK = {"bootstrap": 500}
_DEFAULT_CHUNK = 20_000
#: A study of at least this many trials in all shows a progress bar by default.
LONG_TRIALS = 1_000_000


def _row(lo: np.ndarray, hi: np.ndarray, truth: float, level: float, **cell: Any) -> dict[str, Any]:
    lo, hi = np.ravel(lo), np.ravel(hi)
    ok = np.isfinite(lo) & np.isfinite(hi)
    t = int(ok.sum())
    c = float(((lo <= truth) & (truth <= hi))[ok].mean()) if t else math.nan
    se = math.sqrt(c * (1 - c) / t) if t else math.nan
    width = float((hi - lo)[ok].mean()) if t else math.nan
    row = dict(cell, truth=truth, level=level, trials=t, coverage=c, coverage_se=se)
    return dict(row, mean_width=width, under_covers=bool(c + 2 * se < level) if t else False)


def _truth(model: Model, metric: str) -> float:
    """The population value of a count metric under the model: its formula of the expected
    cells of the data set (``tp = P recall``, ``fp = N q``)."""
    tp, fp = model.pos * model.recall, model.neg * model.q
    cells = {"tp": tp, "fp": fp, "fn": model.pos - tp, "tn": model.neg - fp}
    counts = {k: np.array([[v]]) for k, v in cells.items()}  # one class: the positive one
    value = measure.pooled_counts(metrics.resolve(metric).metric, counts, None, 1.0, True)
    return round(float(value[0]), 12)


def _counts_cell(
    model: Model, metric: str, method: str, trials: int, level: float, seed: Any, n_boot: int
) -> dict[str, Any]:
    """Coverage of one interval method on one simulated design (all trials at once)."""
    cube = simulate(
        model.n, model.prevalence, model.f, model.k, trials, model.stratified, seed=seed
    )
    step = CHUNK.get(method, _DEFAULT_CHUNK)
    lows, highs, chosen = [], [], method
    zd = 0.0 if metrics.resolve(metric).variant == "avg" else "warn"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for t0 in range(0, trials, step):
            part = cube.isel(trial=slice(t0, t0 + step))
            iv = interval(part, metric, method=method, level=level, zero_division=zd, n_boot=n_boot)
            lows.append(iv["lower"].values)
            highs.append(iv["upper"].values)
            chosen = iv.attrs["method"]
    lo, hi = np.concatenate(lows, axis=0), np.concatenate(highs, axis=0)
    cell = dict(metric=metric, method=chosen, n=model.n, k=model.k, stratified=model.stratified)
    cell.update(prevalence=model.prevalence, f=model.f, positives=model.pos)
    return _row(lo, hi, _truth(model, metric), level, **cell)


def _auc_cell(
    n: int, k: int, prev: float, auc: float, trials: int, level: float, root: Any, strat: bool
) -> dict[str, Any]:  # the metric whose merged interval is DeLong's: AUC
    """Coverage of the DeLong interval on binormal scores of known AUC."""
    from scipy import stats

    pos = int(math.floor(n * prev + 0.5))
    if pos < 2 or n - pos < 2:
        raise ValueError(
            f"prevalence={prev!r} gives {pos} positives of n={n}; the AUC interval needs "
            "at least 2 positives and 2 negatives."
        )
    d = math.sqrt(2.0) * float(stats.norm.ppf(auc))
    key = (int(round(prev * 1e12)), int(round(auc * 1e12)), n, k)
    rng = np.random.default_rng(np.random.SeedSequence(root.entropy, spawn_key=(7, *key)))
    y = np.arange(n) < pos
    lows, highs = [], []
    for t0 in range(0, trials, 2000):
        s = rng.standard_normal((min(2000, trials - t0), n))
        s[:, y] += d
        _, lo, hi = delong(s, y, level=level)
        lows.append(lo)
        highs.append(hi)
    cell = dict(metric="auc", method="delong", n=n, k=k, stratified=strat, prevalence=prev)
    cell.update(auc=auc, positives=pos)
    return _row(np.concatenate(lows), np.concatenate(highs), auc, level, **cell)


#: Cells of the simulated cubes of a class or label design held at once (bounds the memory
#: of the confusion matrices and their derivatives: a few hundred MB at 100 classes).
CLASS_CHUNK = 4_000_000
#: The averages a class or label design measures (``average=``).
AVERAGES = ("macro", "micro", "weighted")


def _class_seed(root: Any, design: tuple[Any, ...]) -> np.random.SeedSequence:
    """The stream of one class or label design, keyed by its parameters (every metric and
    average of a design sees the same simulated counts)."""
    key = tuple(int(round(float(v) * 1e9)) if not isinstance(v, str) else len(v) for v in design)
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, 11, *key))


def _class_cell(
    design: certify.Design,
    metric: str,
    average: Any,
    trials: int,
    level: float,
    seed: Any,
    n_boot: int,
) -> dict[str, Any]:
    """Coverage of the posterior interval of ``metric`` (class-averaged by ``average``) on
    one class or label design, its trials drawn in blocks of :data:`CLASS_CHUNK` cells."""

    def compute(sim: Any) -> tuple[Any, Any, Any]:
        iv = interval(sim, metric, average=average, level=level, zero_division=0.0, n_boot=n_boot)
        return iv["estimate"], iv["lower"], iv["upper"]

    truth_of = certify.truth_function(metric, average, 1.0)
    step = max(1, CLASS_CHUNK // design.cells())
    seeds = np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key).spawn(-(-trials // step))
    sums = dict.fromkeys(("coverage", "holds_estimate", "width"), 0.0)
    done, truth = 0, math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for i, t0 in enumerate(range(0, trials, step)):
            res = certify.certificate(design, compute, truth_of, min(step, trials - t0), seeds[i])
            t = int(res["trials"].item())
            for k in sums:
                sums[k] += float(res[k].item()) * t if t else 0.0
            done += t
            truth = float(res["truth"].item())
    c = sums["coverage"] / done if done else math.nan
    se = math.sqrt(c * (1 - c) / done) if done else math.nan
    return {
        "truth": round(truth, 12),
        "level": level,
        "trials": done,
        "coverage": c,
        "coverage_se": se,
        "mean_width": sums["width"] / done if done else math.nan,
        "under_covers": bool(c + 2 * se < level) if done else False,
        "holds_estimate": sums["holds_estimate"] / done if done else math.nan,
    }


def _class_rows(
    metric: str,
    methods: list[str],
    averages: list[Any],
    grids: dict[str, list[Any]],
    multilabel: bool,
    trials: int,
    level: float,
    root: Any,
    n_boot: int,
    bar: Any,
) -> list[dict[str, Any]]:
    """Rows of the class (or label) designs: every cell of ``grids`` x average."""
    if any(m not in ("auto", "posterior") for m in methods):
        raise ValueError(
            f"methods={methods} with classes=: a class or label design measures the "
            "posterior interval ('auto' or 'posterior')."
        )
    entry = metrics.REGISTRY[metrics.resolve(metric).metric]
    if metrics.resolve(metric).variant not in (None, entry.pooled):
        raise ValueError(
            f"metric={metric!r} with classes=: a class or label design measures the pooled "
            "metric's interval; pass the metric without '_avg'."
        )
    whole = entry.scope == "all"
    second = ("prevalence", "f") if multilabel else ("accuracy", "errors")
    rows = []
    for c, nv, imb, a, b in itertools.product(
        grids["classes"], grids["n"], grids["imbalance"], grids[second[0]], grids[second[1]]
    ):
        try:
            design = (
                certify.label_design(c, nv, a, b, imb)
                if multilabel
                else certify.class_design(c, nv, a, imb, b)
            )
        except ValueError as err:
            raise ValueError(f"{err} (cell classes={c}, n={nv}, {second[0]}={a})") from None
        seed = _class_seed(root, (multilabel, c, nv, imb, a, b))
        for avg in [None] if whole else averages:
            cell = _class_cell(design, metric, avg, trials, level, seed, n_boot)
            head = dict(metric=metric, average=avg, method="posterior", n=nv, classes=c)
            head.update({"multilabel": multilabel, "imbalance": imb, second[0]: a, second[1]: b})
            rows.append({**head, **cell})
            bar.update()
    return rows


def _class_grids(
    classes: Any,
    ns: list[int],
    prevs: list[Any],
    fs: list[Any],
    accuracy: Any,
    imbalance: Any,
    errors: Any,
    average: Any,
    multilabel: bool,
    binormal: bool,
    metric: str,
) -> tuple[dict[str, list[Any]], list[Any]]:
    """The checked grids of a class (or label) design and its averages."""
    if binormal:
        raise ValueError(
            f"metric={metric!r} with classes=: a class design measures count metrics; drop "
            "classes= for the binormal AUC design."
        )
    if classes is None:
        raise ValueError("multilabel=True needs classes= (the number of labels, e.g. 10).")
    grids: dict[str, list[Any]] = {
        "classes": [
            check_int("classes", v, 1 if multilabel else 2, 1000) for v in grid("classes", classes)
        ],
        "n": ns,
        "imbalance": [
            check_real("imbalance", v, 0.0, math.inf, high_open=True)
            for v in grid("imbalance", imbalance)
        ],
    }
    if multilabel:
        grids["prevalence"] = [check_real("prevalence", v, 0.0, 1.0, high_open=True) for v in prevs]
        grids["f"] = [check_real("f", v, 0.0, 1.0, high_open=False) for v in fs]
    else:
        grids["accuracy"] = [
            check_real("accuracy", v, 0.0, 1.0, high_open=True) for v in grid("accuracy", accuracy)
        ]
        grids["errors"] = grid("errors", errors)
        bad = [e for e in grids["errors"] if e not in certify.ERRORS]
        if bad:
            raise ValueError(
                f"errors={errors!r} has {bad}; expected some of {list(certify.ERRORS)}."
            )
    averages = grid(
        "average", [average] if average is None or isinstance(average, str) else average
    )
    bad = [a for a in averages if a not in AVERAGES]
    whole = metrics.REGISTRY[metrics.resolve(metric).metric].scope == "all"
    if bad and not whole:
        raise ValueError(
            f"average={average!r} has {bad}; a class design measures a class average: some "
            f"of {list(AVERAGES)} (a metric of every class at once, such as 'mcc', ignores it)."
        )
    return grids, averages


def coverage_study(
    methods: Any = ("auto",),
    *,
    metric: str = "f",
    prevalence: Any = (0.02, 0.05, 0.2),
    f: Any = (0.6, 0.8),
    n: Any = 1000,
    k: Any = 10,
    stratified: bool = True,
    trials: int = 2000,
    level: float = 0.95,
    auc: Any = None,
    random_state: Any = 0,
    progress: bool | None = None,
    n_boot: int = 2000,
    classes: Any = None,
    average: Any = "macro",
    accuracy: Any = (0.7, 0.9, 0.97),
    imbalance: Any = 5.0,
    errors: Any = "uniform",
    multilabel: bool = False,
) -> pd.DataFrame:
    r"""Coverage of interval methods on simulated cross-validation of known truth.

    For every design cell (``n`` x ``k`` x ``prevalence`` x ``f``, or ``auc`` for
    ``metric="auc"``) and method, ``trials`` simulated experiments: the share whose
    interval holds the truth, its Monte-Carlo standard error
    :math:`\sqrt{c(1-c)/\text{trials}}` and the mean width.

    - count metrics (:data:`COUNT_METRICS`: ``"f"``/``"f_tp_fp"``, ``"f_avg"``,
      ``"precision"``, ``"accuracy"``...): the model of :func:`cvframe.simulate` (Forman &
      Scholz 2010, §4.2), a fixed classifier with precision = recall = ``f``; the truth is
      the population value, the metric's formula of the expected cells (``f`` for F,
      precision and recall). For ``"f_avg"`` this shows the corrected t's gap: its
      estimand is the expected per-fold F, below ``f`` where folds hold few positives.
    - ``metric="auc"``: per trial ``P = round(n * prevalence)`` positives scored
      :math:`N(d, 1)` and the negatives :math:`N(0, 1)`, :math:`d = \sqrt2\,\Phi^{-1}(AUC)`;
      the truth is ``auc``; the merged scores of one pass (``k`` does not change AUC_merge
      of a fixed scorer).
    - **class designs** (``classes=``): single-label data of ``classes`` classes whose sizes
      fall geometrically, ``imbalance`` times smaller from the largest to the smallest, a
      fixed classifier of overall accuracy ``accuracy`` (smaller classes less accurate)
      whose errors go evenly to the other classes (``errors="uniform"``) or mostly to
      neighbouring ones (``"nearby"``), :func:`cvframe.intervals.certify.class_design`; the
      one-pass confusion matrix is one multinomial draw per true class (whatever ``k``), and
      the interval is the posterior of ``metric`` averaged by ``average`` (metrics of every
      class at once, such as ``"mcc"``, ignore it). ``multilabel=True``: ``classes``
      independent labels, the most frequent at ``prevalence``, each predicted with
      precision = recall = ``f`` (:func:`cvframe.intervals.certify.label_design`). The
      truth is the metric of the expected counts.

    Parameters
    ----------
    methods : str or sequence of str, default ("auto",)
        Methods of :func:`cvframe.interval` (``"auto"``, ``"posterior"``,
        ``"bootstrap"``, ``"corrected_t"``; ``"delong"`` for AUC).
    metric : str, default "f"
        A count metric with an interval (:data:`COUNT_METRICS`) or the metric whose
        merged interval is DeLong's, ``"auc"``.
    prevalence, f, n, k : number or list
        The grid (``f`` is ignored for ``metric="auc"``).
    stratified : bool, default True
        Stratified folds (the count metrics).
    trials : int, default 2000
        Simulated experiments per cell; the coverage's standard error is about
        :math:`\sqrt{0.05 \cdot 0.95/\text{trials}}` (0.005 at 2000).
    level : float, default 0.95
    auc : number or list, optional
        The AUCs of ``metric="auc"`` (default 0.8 and 0.9).
    random_state : int or numpy.random.SeedSequence, default 0
        Each cell draws from its own stream keyed by its parameters.
    progress : bool, optional
        A progress bar over the cells (default: when the study runs a million trials).
    n_boot : int, default 2000
        Draws of the bootstrap and of the Monte-Carlo posterior (``interval(n_boot=)``).
    classes : int or list, optional
        Classes (or labels, with ``multilabel=True``) of a class design, 2 to 1000 (labels:
        1 to 1000); None: the binary design above.
    average : {"macro", "micro", "weighted"} or list, default "macro"
        The class averages a class design measures.
    accuracy : number or list, default (0.7, 0.9, 0.97)
        Overall accuracy of a class design's classifier, in (0, 1).
    imbalance : number or list, default 5
        Largest class (or label prevalence) over the smallest.
    errors : {"uniform", "nearby"} or list, default "uniform"
        How a class design's errors spread over the other classes.
    multilabel : bool, default False
        Label designs instead of class designs (``prevalence`` and ``f`` their grid).

    Returns
    -------
    pandas.DataFrame
        One row per cell and method: ``metric``, ``method`` (as chosen), ``n``, ``k``,
        ``stratified``, ``prevalence``, ``f`` or ``auc``, ``positives``, ``truth``,
        ``level``, ``trials`` (those with a finite interval), ``coverage``,
        ``coverage_se``, ``mean_width``, ``under_covers`` (coverage + 2 se < level). A
        class design's rows: ``metric``, ``average``, ``method``, ``n``, ``classes``,
        ``multilabel``, ``imbalance``, ``accuracy`` and ``errors`` (labels: ``prevalence``
        and ``f``), then ``truth`` to ``under_covers`` as above and ``holds_estimate`` (the
        share of trials whose interval held its own estimate).

    Raises
    ------
    ValueError
        An unknown metric or method, a design the model refuses (naming the cell), a
        method that does not fit the metric.

    References
    ----------
    G. Forman and M. Scholz, Apples-to-apples in cross-validation studies, ACM SIGKDD
    Explorations 12(1), 2010, §4; the references of :func:`cvframe.interval`.

    Examples
    --------
    >>> import cvframe
    >>> res = cvframe.coverage_study(prevalence=0.05, f=0.8, trials=400)
    >>> res[["method", "positives", "trials"]].values.tolist()
    [['posterior', 50, 400]]
    >>> bool(0.9 < res["coverage"].item() <= 1.0)
    True
    >>> macro = cvframe.coverage_study(classes=10, n=1000, accuracy=0.9, trials=400)
    >>> macro[["classes", "average", "trials", "holds_estimate"]].values.tolist()
    [[10, 'macro', 400, 1.0]]
    """
    from tqdm.auto import tqdm

    methods = [methods] if isinstance(methods, str) else list(methods)
    for m in methods:
        if m not in METHODS or m == "nested":
            raise ValueError(
                f"methods has {m!r}; expected some of {[x for x in METHODS if x != 'nested']}."
            )
    scored = [n for n, m in metrics.REGISTRY.items() if "delong" in m.intervals.values()]
    if not isinstance(metric, str) or metric not in (*COUNT_METRICS, *scored):
        raise ValueError(
            f"metric={metric!r} is not valid; expected one of {[*COUNT_METRICS, *scored]}."
        )
    binormal = metric in scored
    trials = check_trials(trials)
    n_boot = check_int("n_boot", n_boot, 100, 1_000_000)
    level = quantiles.level(level)
    strat = check_flag("stratified", stratified)
    root = as_seed(random_state)
    ns = [check_int("n", v, 4) for v in grid("n", n)]
    ks = [check_int("k", v, 2) for v in grid("k", k)]
    prevs = grid("prevalence", prevalence)
    second = grid("auc", (0.8, 0.9) if auc is None else auc) if binormal else grid("f", f)
    cells = list(itertools.product(ns, ks, prevs, second))
    if binormal and any(m not in ("auto", "delong") for m in methods):
        raise ValueError(
            f"metric={metric!r} is measured with method 'delong' (or 'auto'), not {methods}."
        )
    if classes is not None or check_flag("multilabel", multilabel):
        grids, averages = _class_grids(
            classes,
            ns,
            prevs,
            second,
            accuracy,
            imbalance,
            errors,
            average,
            multilabel,
            binormal,
            metric,
        )
        total = math.prod(len(v) for v in grids.values()) * len(averages)
        show = trials * total >= LONG_TRIALS if progress is None else bool(progress)
        with tqdm(total=total, desc="coverage_study", unit="cell", disable=not show) as bar:
            rows = _class_rows(
                metric, methods, averages, grids, bool(multilabel), trials, level, root, n_boot, bar
            )
        return pd.DataFrame(rows)
    total = len(cells) * len(methods)
    show = trials * total >= LONG_TRIALS if progress is None else bool(progress)
    rows = []
    with tqdm(total=total, desc="coverage_study", unit="cell", disable=not show) as bar:
        for nv, kv, pv, sv in cells:
            if binormal:
                a = check_real("auc", sv, 0.0, 1.0, high_open=True)
                rows.append(_auc_cell(nv, kv, pv, a, trials, level, root, strat))
                bar.update(len(methods))
                continue
            try:
                model = Model.make(nv, pv, sv, kv, strat)
            except ValueError as err:
                raise ValueError(f"{err} (cell n={nv}, k={kv}, prevalence={pv}, f={sv})") from None
            seed = point_seed(root, model)
            for m in methods:
                rows.append(_counts_cell(model, metric, m, trials, level, seed, n_boot))
                bar.update()
    return pd.DataFrame(rows)
