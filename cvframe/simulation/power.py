r"""Error rates measured, not assumed: :func:`power_study` simulates paired cross-validation
studies of two models on the same samples and runs, on each, every test
``cvframe.compare(test="auto")`` picks for the pooled metric (on the predictions frame and on
the counts cube) and for its fold average, counting how often each rejects at the nominal
level: the type I error under a true null (the two models have the same F, or AUC, but
different errors: one cautious, one liberal) and the power when they differ.

The tests are the very functions :func:`cvframe.compare` runs
(:mod:`cvframe.comparison.pooled`), applied to a study axis of numpy arrays; the corrected
t is the formula of :func:`cvframe.intervals.shared.corrected_moments`. :func:`plan_power`
is what :func:`cvframe.plan` reports about the power of a planned design and the size it
needs.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
from scipy.special import ndtr, ndtri

from .. import measure, metrics
from .._core import quantiles
from ..comparison import pooled
from . import _paired
from ._model import as_seed, check_flag, check_int, check_real, grid

__all__ = ["ASSUMES", "TESTS", "power_study", "plan_power", "power_text"]

#: The tests a study runs for each metric: what ``compare(test="auto")`` picks for the
#: pooled metric on the predictions frame, on the counts cube, and for the fold average
#: (``"5x2cv_t"`` instead of ``"corrected_t"`` on 5 repeats of 2 folds).
TESTS = {"count": ("paired_delta", "fold_jackknife", "corrected_t"), "score": ("delong",)}
#: The metric a study simulates of each kind: F (binary, or macro over classes), AUC.
SIMULATED = {kind: metrics.REGISTRY[name] for kind, name in (("count", "f"), ("score", "auc"))}
#: What a study assumes, in words (copied to the result's attrs).
ASSUMES = (
    "n samples of fixed class sizes (class 0 has share prevalence, the other classes share "
    "the rest equally); two fixed classifiers, each a confusion matrix of known population "
    "rates: on class 0 its F and its balance precision/recall (> 1 cautious, < 1 liberal), "
    "on the other classes an accuracy solved so that its macro F is f (model a) or "
    "f + delta (model b), the errors spread evenly; each sample's prediction is the quantile "
    "of a latent normal, correlated rho between the two models, of which a share stability "
    "is the same in every repeat (the rest is drawn again: models refitted on other "
    "training sets); folds stratified (or not) and drawn anew in every repeat. AUC: "
    "binormal scores per class, negatives N(0, 1), positives N(mu, spread^2)."
)
#: Most elements of one (studies, 2, repeats, samples, classes) array in memory.
_BUDGET = 3_000_000


# --- one cell ----------------------------------------------------------------------------------


def _p(stat: np.ndarray, df: Any) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(df), 2 * stats.t.sf(np.abs(stat), df), 2 * ndtr(-np.abs(stat)))


def _ratio_p(mean: np.ndarray, se: np.ndarray, df: Any = np.inf) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        stat = np.where(se > 0, mean / se, np.where(mean == 0, 0.0, np.inf))
    return np.where(np.isnan(se), np.nan, _p(stat, df))


def _fold_average(folds: dict[str, np.ndarray], binary: bool, k: int) -> dict[str, np.ndarray]:
    """The test compare picks for F_avg (macro F_avg of multiclass data): the corrected t on
    the per-fold differences, or Dietterich's 5x2cv t on 5 repeats of 2 folds."""
    per_fold = measure.pooled_counts("f", folds, None if binary else "macro", 1.0, binary)
    d = per_fold[:, 0] - per_fold[:, 1]  # (T, R, K): a - b
    r = d.shape[1]
    if r == 5 and k == 2:
        s2 = ((d - d.mean(-1, keepdims=True)) ** 2).sum(-1)
        return {"mean": d.mean((1, 2)), "p": _ratio_p(d[:, 0, 0], np.sqrt(s2.mean(-1)), 5.0)}
    size = folds["tp"][:, 0, ..., 0] + folds["fp"][:, 0, ..., 0]
    size = size + folds["fn"][:, 0, ..., 0] + folds["tn"][:, 0, ..., 0]  # (T, R, K)
    train = size.sum(-1, keepdims=True) - size
    ratio = size.sum((1, 2)) / train.sum((1, 2))
    flat = d.reshape(len(d), -1)
    m = flat.shape[1]
    se = np.sqrt((1 / m + ratio) * flat.var(-1, ddof=1))
    return {"mean": flat.mean(-1), "p": _ratio_p(flat.mean(-1), se, m - 1.0)}


def _f_chunk(
    pair: _paired.Pair, t: int, design: dict[str, Any], rng: np.random.Generator
) -> dict[str, dict[str, np.ndarray]]:
    """Every test of the F study on ``t`` simulated studies: mean difference (b - a),
    standard error and p-value per study."""
    c, r, k = pair.classes, design["repeats"], design["k"]
    y = np.repeat(np.arange(c), pair.sizes)
    u = ndtr(_paired.latent(rng, (t, 2, r, len(y)), design["rho"], design["stability"]))
    pred = _paired.predict(pair, y, u)
    fold = _paired.draw_folds(rng, y, t, r, k, design["stratified"])
    binary = c == 2
    per = _paired.sample_counts(y, pred, 1 if binary else c)
    folds = _paired.fold_counts(y, pred, fold, k, 1 if binary else c)
    kw: dict[str, Any] = {"average": None if binary else "macro", "beta": 1.0, "single": True}
    ma, mb = ({key: v[:, i] for key, v in per.items()} for i in (0, 1))  # tested: a - b
    delta = pooled.paired_delta(ma, mb, y, "f", **kw)
    fa, fb = ({key: v[:, i] for key, v in folds.items()} for i in (0, 1))
    present = np.ones(fa["tp"].shape[:-1], dtype=bool)
    jack = pooled.fold_jackknife(fa, fb, present, "f", **kw)
    return {
        "paired_delta": {
            "mean": delta["mean"],
            "se": delta["se"],
            "p": _ratio_p(delta["mean"], delta["se"]),
        },
        "fold_jackknife": {
            "mean": jack["mean"],
            "se": jack["se"],
            "p": _ratio_p(jack["mean"], jack["se"], jack["df"]),
        },
        "fold_average": _fold_average(folds, binary, k),
    }


def _auc_chunk(
    pair: _paired.Pair, t: int, design: dict[str, Any], rng: np.random.Generator
) -> dict[str, dict[str, np.ndarray]]:
    s, positive, y = _paired.auc_scores(pair.sizes, t, design, rng)
    w = np.full(positive.shape[0], 1.0 / positive.shape[0])
    res = pooled.paired_delong(s[:, 0], s[:, 1], positive, y, w)
    return {"delong": {"mean": res["mean"], "se": res["se"], "p": _ratio_p(res["mean"], res["se"])}}


def _cell(
    kind: str,
    design: dict[str, Any],
    studies: int,
    level: float,
    seed: np.random.SeedSequence,
    bar: Any,
) -> list[dict[str, Any]]:
    """The rows of one design cell: every test's rejection rate over ``studies`` studies."""
    n, c = design["n"], design["classes"]
    if kind == "count":
        pair = _paired.pair(
            n, design["prevalence"], c, design["f"], design["delta"], design["balance"]
        )
        truth = pair.truth
    else:
        pair = _paired.Pair(
            _paired.class_sizes(n, design["prevalence"], c),
            np.zeros((2, c, c)),
            (0, 0),
            ((0, 0),) * 2,
        )
        truth = (design["auc"] + design["delta"], design["auc"])
        design = dict(design, aucs=truth)
    kept = 1 if c == 2 else c
    chunk = max(1, min(studies, _BUDGET // (2 * design["repeats"] * n * kept)))
    rng = np.random.default_rng(seed)
    parts: dict[str, list[dict[str, np.ndarray]]] = {}
    for t0 in range(0, studies, chunk):
        t = min(chunk, studies - t0)
        step = _f_chunk if kind == "count" else _auc_chunk
        for name, res in step(pair, t, design, rng).items():
            parts.setdefault(name, []).append(res)
        if bar is not None:
            bar.update(t)
    rows = []
    for name, chunks in parts.items():
        p = np.concatenate([x["p"] for x in chunks])
        mean = np.concatenate([x["mean"] for x in chunks])
        ok = np.isfinite(p)
        rate = float((p[ok] < 1 - level).mean()) if ok.any() else math.nan
        test = name if name != "fold_average" else (
            "5x2cv_t" if design["repeats"] == 5 and design["k"] == 2 else "corrected_t"
        )  # fmt: skip
        se = [x["se"] for x in chunks if "se" in x]
        estimand = _estimand(kind, test, c)
        null = design["delta"] == 0 and test not in ("corrected_t", "5x2cv_t")
        row = {
            "metric": estimand,
            "test": test,
            "data": {"paired_delta": "frame", "delong": "frame"}.get(test, "cube"),
            "kind": "type I error" if null else ("power" if design["delta"] else "rejection rate"),
            **{key: v for key, v in design.items() if key not in ("aucs",)},
            "truth_a": truth[0],
            "truth_b": truth[1],
            "studies": int(ok.sum()),
            "rejected": rate,
            "mc_se": math.sqrt(rate * (1 - rate) / max(int(ok.sum()), 1)),
            "mean_difference": float(np.nanmean(mean)),
            "sd_difference": float(np.nanstd(mean, ddof=1)),
            "mean_se": float(np.nanmean(np.concatenate(se))) if se else math.nan,
        }
        if kind == "count":
            row.update(
                precision_a=pair.rates[0][0], recall_a=pair.rates[0][1],
                precision_b=pair.rates[1][0], recall_b=pair.rates[1][1],
            )  # fmt: skip
        rows.append(row)
    return rows


def _estimand(kind: str, test: str, classes: int) -> str:
    """The compared number, as :func:`cvframe.metrics.display` names it."""
    entry = SIMULATED[kind]
    variant = "avg" if test in ("corrected_t", "5x2cv_t") else entry.pooled
    name = metrics.display(entry.name, variant)
    return name if classes == 2 else f"macro {name}"


# --- the study --------------------------------------------------------------------------------


def power_study(
    delta: Any = (0.0, 0.05),
    *,
    metric: str = "f",
    f: float = 0.8,
    balance: Any = (1.25, 0.8),
    auc: float = 0.8,
    spread: Any = (1.0, 2.0),
    n: Any = 1000,
    prevalence: Any = (0.02, 0.05, 0.2, 0.5),
    classes: Any = 2,
    k: Any = (5, 10),
    repeats: Any = (1, 5),
    rho: float = 0.5,
    stability: float = 0.9,
    stratified: bool = True,
    studies: int = 2000,
    level: float = 0.95,
    random_state: Any = 0,
    progress: bool | None = None,
) -> pd.DataFrame:
    r"""Type I error and power of the paired tests of two models, by simulation.

    For every design cell (``delta`` x ``n`` x ``prevalence`` x ``classes`` x ``k`` x
    ``repeats``), ``studies`` simulated cross-validation studies of two models, a and b, on
    the same samples and folds; on each, every test ``cvframe.compare(test="auto")`` picks:

    - ``metric="f"``: the pooled F (F_tp,fp; macro F_tp,fp over ``classes`` > 2) by
      ``"paired_delta"`` (the predictions frame: samples paired) and by
      ``"fold_jackknife"`` (the counts cube: folds paired), and its fold average (F_avg;
      macro F_avg) by ``"corrected_t"`` (``"5x2cv_t"`` on 5 repeats of 2 folds);
    - ``metric="auc"``: AUC_merge (macro over the classes' one-vs-rest AUCs) by
      ``"delong"``.

    The share of studies whose p-value is below ``1 - level`` is the test's type I error
    where the null holds (``delta=0``: the two models have the same population F, or AUC)
    and its power where it does not.

    **The models** (``attrs["assumes"]``). n samples of fixed class sizes: class 0 has
    ``round(n * prevalence)``, the others share the rest equally (``classes=2``: class 0
    is the positive class). Each model is a fixed classifier given by its rates
    :math:`P(\hat y = j \mid y = i)`: on class 0 its F and its ``balance`` = precision /
    recall (1.25 with F = 0.8: precision 0.9, recall 0.72, a cautious model; 0.8: precision
    0.72, recall 0.9, a liberal one), its errors on class 0 spread evenly over the other
    classes; on the other classes an accuracy :math:`a` (errors to class 0 as precision
    demands, the rest spread evenly) solved so that its macro F is ``f`` (model a) or
    ``f + delta`` (model b); with two classes model b's F on the positive class is
    ``f + delta``. The truth is the population value of these rates at the sample's class
    sizes. A sample's prediction is the quantile of a latent normal (its true class first,
    then class 0, then the others), the two models' latents correlated ``rho`` (their
    errors coincide more often than by chance), and a share ``stability`` of its variance
    the same in every repeat (the rest is drawn again in each: the models are refitted on
    other training sets). The folds are stratified (each class dealt round-robin in a
    random order) or a random partition, drawn anew in every repeat. ``metric="auc"``: per
    scored class (the positive class, or every class one-vs-rest) the negatives score
    N(0, 1) and the positives :math:`N(\mu_m, \sigma_m^2)` with :math:`\sigma_m` =
    ``spread`` and :math:`\mu_m = \sqrt{1+\sigma_m^2}\,\Phi^{-1}(AUC_m)`: the same AUC,
    differently shaped ROC curves.

    Not modelled: fold-to-fold differences in the fitted models' thresholds (the per-sample
    tests condition on the fitted models, as McNemar's and DeLong's do), and the variance
    between training sets of the data set's size, which the corrected t's heuristic
    correction is for and which makes it conservative here.

    Parameters
    ----------
    delta : number or list, default (0.0, 0.05)
        Model b's F (or AUC) minus model a's: 0 is the null.
    metric : {"f", "auc"}, default "f"
    f : float, default 0.8
        Model a's population F (binary: of the positive class; else macro F).
    balance : pair of float, default (1.25, 0.8)
        Precision / recall of model a and b on class 0.
    auc : float, default 0.8
        Model a's AUC (``metric="auc"``).
    spread : pair of float, default (1.0, 2.0)
        Standard deviation of the positives' scores of model a and b (``metric="auc"``).
    n, prevalence, classes, k, repeats : number or list
        The grid: samples, share of class 0, classes (2: binary), folds, repeats.
    rho : float, default 0.5
        Correlation of the two models' latents, in [0, 1).
    stability : float, default 0.9
        Share of a sample's latent variance the same in every repeat, in [0, 1].
    stratified : bool, default True
    studies : int, default 2000
        Simulated studies per cell: the Monte-Carlo standard error of a rate near 0.05 is
        about :math:`\sqrt{0.05 \cdot 0.95/	ext{studies}}` (0.005 at 2000).
    level : float, default 0.95
        Nominal level: a test rejects when its p-value is below ``1 - level``.
    random_state : int or numpy.random.SeedSequence, default 0
        Each cell draws from its own stream keyed by its parameters.
    progress : bool, optional
        A progress bar over the studies (default: when the study runs 100,000 or more).

    Returns
    -------
    pandas.DataFrame
        One row per cell and test: ``metric`` (the estimand: ``"F_tp,fp"``,
        ``"macro F_avg"``, ``"AUC_merge"``...), ``test``, ``data`` (``"frame"`` or
        ``"cube"``), ``kind`` (``"type I error"``, ``"power"``, or ``"rejection rate"`` for
        a fold average under the pooled null, where its own expectations may differ), the
        design, ``truth_a``, ``truth_b``, ``studies``, ``rejected`` (the rate),
        ``mc_se`` (its Monte-Carlo standard error), ``mean_difference``,
        ``sd_difference`` (of b - a over the studies), ``mean_se`` (the test's mean standard
        error) and, for F, each model's precision and recall on class 0.
        ``attrs["assumes"]`` states the model.

    Raises
    ------
    ValueError
        A parameter out of range (naming it), or models the rates cannot give (e.g. an F
        and balance that need a recall above 1).

    See Also
    --------
    cvframe.compare : the tests; cvframe.coverage_study : the same for intervals.

    References
    ----------
    G. Forman and M. Scholz, Apples-to-apples in cross-validation studies, ACM SIGKDD
    Explorations 12(1), 2010; T. G. Dietterich, Neural Computation 10(7), 1998 (type I
    error of tests of classifiers, measured by simulation).

    Examples
    --------
    >>> import cvframe
    >>> res = cvframe.power_study(0.0, prevalence=0.2, k=10, repeats=1, studies=200)
    >>> res["test"].tolist(), res["data"].tolist()
    (['paired_delta', 'fold_jackknife', 'corrected_t'], ['frame', 'cube', 'cube'])
    >>> bool((res["rejected"] < 0.15).all())
    True
    """
    from tqdm.auto import tqdm

    kind = _kind(metric)
    level = quantiles.level(level)
    studies = check_int("studies", studies, 1, 10**8)
    strat = check_flag("stratified", stratified)
    rho = float(_real("rho", rho, 0.0, 1.0, closed_low=True))
    stability = float(_real("stability", stability, 0.0, 1.0, closed_low=True, closed_high=True))
    pairs = {"balance": balance, "spread": spread}
    for name, v in pairs.items():
        if np.shape(v) != (2,) or not all(0 < float(x) < math.inf for x in np.ravel(v)):
            raise ValueError(f"{name}={v!r} must be two positive numbers: model a's and b's.")
    base = check_real("f", f, 0.0, 1.0, high_open=False) if kind == "count" else None
    a_auc = check_real("auc", auc, 0.0, 1.0, high_open=True)
    deltas = [float(_real("delta", d, -1.0, 1.0)) for d in grid("delta", delta)]
    ns = [check_int("n", v, 8) for v in grid("n", n)]
    prevs = [
        check_real("prevalence", v, 0.0, 1.0, high_open=True)
        for v in grid("prevalence", prevalence)
    ]
    cs = [check_int("classes", v, 2, 100) for v in grid("classes", classes)]
    ks = [check_int("k", v, 2) for v in grid("k", k)]
    rs = [check_int("repeats", v, 1, 1000) for v in grid("repeats", repeats)]
    cells = list(itertools.product(deltas, ns, prevs, cs, ks, rs))
    root = as_seed(random_state)
    show = studies * len(cells) >= 100_000 if progress is None else bool(progress)
    rows: list[dict[str, Any]] = []
    with tqdm(
        total=studies * len(cells), desc="power_study", unit="study", disable=not show
    ) as bar:
        for d, nv, pv, cv, kv, rv in cells:
            if kv > nv:
                raise ValueError(f"k={kv} is larger than n={nv}; use between 2 and n folds.")
            design = dict(
                delta=d, n=nv, prevalence=pv, classes=cv, k=kv, repeats=rv, rho=rho,
                stability=stability, stratified=strat, f=base, balance=tuple(map(float, balance)),
                auc=a_auc, spread=tuple(map(float, spread)),
            )  # fmt: skip
            if kind == "count":
                design.pop("auc"), design.pop("spread")
            else:
                design.pop("f"), design.pop("balance")
            key = (int(round(d * 1e9)) % 2**32, nv, int(round(pv * 1e12)), cv, kv, rv)
            seed = np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, 29, *key))
            try:
                rows += _cell(kind, design, studies, level, seed, bar)
            except ValueError as err:
                raise ValueError(
                    f"{err} (cell delta={d}, n={nv}, prevalence={pv}, classes={cv})"
                ) from None
    out = pd.DataFrame(rows)
    out.attrs = {"assumes": ASSUMES, "level": level, "metric": SIMULATED[kind].name}
    return out


def _kind(metric: Any) -> str:
    """The kind of the simulated metric ``metric`` names (F or AUC, any of their names)."""
    try:
        entry = metrics.get(metric) if isinstance(metric, str) else None
    except ValueError:
        entry = None
    kinds = [k for k, m in SIMULATED.items() if m is entry]
    if not kinds:
        names = ", ".join(repr(m.name) for m in SIMULATED.values())
        raise ValueError(
            f"metric={metric!r} is not simulated; pass {names} (or another name of one: "
            "'f1', 'f_tp_fp', 'roc_auc')."
        )
    return kinds[0]


def _real(
    name: str, value: Any, low: float, high: float, *, closed_low: bool = False,
    closed_high: bool = False,
) -> float:  # fmt: skip
    """A finite number in the interval (``closed_*``: the bound itself allowed)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={value!r} must be a number.") from None
    if isinstance(value, bool) or not math.isfinite(v):
        raise ValueError(f"{name}={value!r} must be a finite number.")
    ok_low = v >= low if closed_low else v > low
    ok_high = v <= high if closed_high else v < high
    if not (ok_low and ok_high):
        lo, hi = "[" if closed_low else "(", "]" if closed_high else ")"
        raise ValueError(f"{name}={value!r} must be in {lo}{low:g}, {high:g}{hi}.")
    return v


# --- the plan's power --------------------------------------------------------------------------

#: Simulated studies of each power estimate of :func:`plan_power` (Monte-Carlo standard
#: error about 0.009 at a power of 0.8).
PLAN_STUDIES = 2000


def check_power_args(delta: Any, power: Any) -> tuple[float, float]:
    """``delta`` in (0, 1) and ``power`` in (0, 1), or a ValueError naming the argument."""
    d = _real("delta", delta, 0.0, 1.0)
    p = _real("power", power, 0.0, 1.0)
    return d, p


def plan_power(
    *,
    delta: float,
    power: float,
    metric: str,
    n: int,
    prevalence: float,
    classes: int,
    k: int,
    repeats: int,
    stratified: bool,
    f: float,
    balance: float,
    auc: float,
    studies: int = PLAN_STUDIES,
    level: float = 0.95,
    random_state: Any = 0,
) -> dict[str, Any]:
    r"""The power of the pooled test at a planned design, and the n it needs for ``power``.

    Two models whose pooled F (``metric="f"``) or AUC_merge (``"auc"``) differ by ``delta``:
    model b the planned classifier (its F ``f`` and precision/recall ``balance`` on the
    planned class, or its AUC), model a the same better by ``delta`` (:func:`power_study`
    with ``balance=(balance, balance)``, ``rho=0.5``, ``stability=0.9``). The power is that
    of the test ``compare`` runs on the predictions frame (``"paired_delta"``, or
    ``"delong"``), with that of the cube's ``"fold_jackknife"`` beside it for F. The n for
    ``power``: :math:`n^* = n\,(s\,(z_{(1+level)/2} + z_{power}) / \delta)^2`, with
    :math:`s` the simulated standard deviation of the estimated difference at ``n`` (it
    shrinks as :math:`1/\sqrt n`), then simulated at :math:`n^*`; when that power misses
    ``power`` by more than 0.02, one step :math:`n^* (z_{(1+level)/2} + z_{power})^2 /
    (z_{(1+level)/2} + \Phi^{-1}(\hat p))^2` and a second simulation.

    Returns
    -------
    dict
        ``test``, ``power`` and ``power_se`` at ``n``; ``cube_test``, ``cube_power``;
        ``n_needed``, ``power_at_n_needed`` and its ``_se``; ``studies``, ``delta``,
        ``target``, ``level``, ``assumes``; ``call``: the :func:`power_study` arguments
        that reproduce ``power`` (``n=n_needed`` for the check).
    """
    call: dict[str, Any] = dict(
        metric=metric, n=n, prevalence=prevalence, classes=classes, k=k, repeats=repeats,
        stratified=stratified, studies=studies, level=level, random_state=random_state,
        progress=False,
    )  # fmt: skip
    kind = _kind(metric)
    if kind == "count":
        call.update(f=f, balance=(balance, balance))
    else:
        call.update(auc=auc, spread=(1.0, 1.0))
    main = TESTS[kind][0]
    res = power_study(delta, **call)
    row = res[res["test"] == main].iloc[0]
    cube = res[res["test"] == "fold_jackknife"]
    z = float(ndtri((1 + level) / 2) + ndtri(power))
    need = n * (float(row["sd_difference"]) * z / delta) ** 2
    low = max(2 * k, int(math.ceil(max(classes, 2) / max(min(prevalence, 1 - prevalence), 1e-9))))
    n_needed = max(low, int(math.ceil(need)))
    check = power_study(delta, **dict(call, n=n_needed))
    hit = check[check["test"] == main].iloc[0]
    got = float(hit["rejected"])
    if abs(got - power) > 0.02 and 0 < got < 1:  # one secant step on the sqrt(n) scale
        za = float(ndtri((1 + level) / 2))
        n_needed = max(low, int(math.ceil(n_needed * (z / (za + float(ndtri(got)))) ** 2)))
        check = power_study(delta, **dict(call, n=n_needed))
        hit = check[check["test"] == main].iloc[0]
    return {
        "metric": str(row["metric"]),
        "test": main,
        "delta": delta,
        "target": power,
        "level": level,
        "n": n,
        "power": float(row["rejected"]),
        "power_se": float(row["mc_se"]),
        "cube_test": "fold_jackknife" if len(cube) else None,
        "cube_power": float(cube["rejected"].iloc[0]) if len(cube) else None,
        "n_needed": n_needed,
        "power_at_n_needed": float(hit["rejected"]),
        "power_at_n_needed_se": float(hit["mc_se"]),
        "studies": studies,
        "assumes": ASSUMES,
        "call": dict(call, delta=delta),
    }


def power_text(p: dict[str, Any]) -> list[str]:
    """The plan's lines about power (what :func:`plan_power` found)."""
    cube = (
        f"; on the counts cube alone ({p['cube_test']}) {p['cube_power']:.2f}"
        if p.get("cube_test")
        else ""
    )
    return [
        "",
        f"Power to tell two models apart by {p['delta']:g} in {p['metric']} "
        f"({p['studies']} simulated studies each, level {p['level']:g}):",
        f"  at n={p['n']}: {p['power']:.2f} ± {2 * p['power_se']:.2f} with the per-sample "
        f"paired test ({p['test']}){cube}.",
        f"  n for {p['target']:.0%} power: {p['n_needed']} (simulated there: "
        f"{p['power_at_n_needed']:.2f} ± {2 * p['power_at_n_needed_se']:.2f}).",
        "  Assumes: the better model is the planned classifier plus delta, with the same "
        "balance of precision and recall; errors correlated 0.5 between the models "
        "(cvframe.power_study states the model).",
    ]
