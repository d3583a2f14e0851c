"""The bias study: relative bias and spread of the five F estimators over a grid of designs.

Each grid point's Monte-Carlo trials are the simulated cube of :func:`cvframe.simulate`
reduced by the very cube method a user applies to real folds
(:func:`cvframe.reduce.f_methods`); exact values come from
:func:`cvframe.simulation.exact.moments`. The tasks run on threads of this process, or on dask
(:mod:`cvframe.simulation._scheduler`).
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import xarray as xr

from .. import metrics, reduce
from .._core import kernel as _kernel
from ..errors import few
from ..schema import FOLD
from ._model import (
    REFERENCE,
    Model,
    as_seed,
    check_flag,
    check_int,
    check_real,
    check_trials,
    grid,
    rates,
    seed_attr,
)
from ._sampler import Sampler, block_arrays
from ._scheduler import run
from .cube import cube
from .exact import moments

__all__ = ["ESTIMATORS", "EXACT_ESTIMATORS", "bias_study", "point_seed", "study_for_netcdf"]

#: The five fold aggregations of Forman & Scholz (2010), in the order of their Section 3.
ESTIMATORS = reduce.F_METHODS
#: Estimators whose mean and standard deviation have an exact (summed) value: the pooled F
#: and the mean of per-fold F (:func:`cvframe.simulation.exact.moments`).
EXACT_ESTIMATORS = tuple(metrics.spelled("f", v) for v in ("tp_fp", "avg"))
#: Trials per task of a bias study: large enough that the per-call overhead of the cube methods
#: is small, small enough to keep a task's memory near 100 MB.
STUDY_CHUNK = 1 << 16
#: A study of at least this many trials in all (trials x grid points) is long (a few seconds
#: on one core): it shows a progress bar by default in a terminal or Jupyter.
LONG_TRIALS = 1_000_000
#: The ``description`` of each variable of a bias study.
_NOTES = {
    "rel_bias": "(mean F - f)/f: exact where `exact`, else Monte Carlo",
    "rel_std": "std(F)/f (ddof=1 for Monte Carlo): exact where `exact`",
    "rel_bias_mc": "Monte-Carlo (mean F - f)/f",
    "rel_std_mc": "Monte-Carlo std(F)/f",
    "rel_bias_se": "Monte-Carlo standard error of rel_bias_mc",
    "rel_std_se": "Monte-Carlo standard error of rel_std_mc (delta method)",
    "exact": "rel_bias and rel_std are exact (summed over the model's distributions)",
    "p_undefined": "P(some fold has undefined precision or recall); exact if exact=True",
    "p_undefined_mc": "Monte-Carlo share of trials with an undefined fold",
    "p_undefined_se": "binomial standard error of p_undefined_mc",
    "positives": "positives in the data set, round(n * prevalence)",
    **{
        m: f"ground-truth {m} of the simulated classifier" for m in metrics.REGISTRY["f"].components
    },
}


def point_seed(root: np.random.SeedSequence, model: Model) -> np.random.SeedSequence:
    """The stream of one grid point: keyed by its parameters, not by its place in the grid."""
    key: tuple[int, ...] = (
        int(model.stratified),
        int(round(model.prevalence * 1e12)),
        int(round(model.f * 1e12)),
        model.n,
        model.k,
    )
    if model.recall_given is not None:  # the paper's classifier keeps its streams
        key += (int(round(model.recall * 1e12)), int(round(model.precision * 1e12)))
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, *key))


def _mc_chunk(model: Model, seed: np.random.SeedSequence, t0: int, t1: int) -> np.ndarray:
    """Monte-Carlo sums of one chunk of trials: per estimator [count, S1..S4] of (F - f), and
    the number of trials with an invalid fold. Uses the cube methods on the simulated cube."""
    sampler = Sampler(model, seed)
    small = sampler.counts(t0, t1)  # (tp, fp, pos, neg) in small int dtypes
    tp, fp, pos, _ = small
    # V = 0 somewhere in the trial: no predicted positives (tp = fp = 0) or no positives
    invalid = (((tp == 0) & (fp == 0)) | (pos == 0)).any(axis=1)
    sim = cube(block_arrays(sampler, t0, t1, small), t0, model, seed_attr(seed))
    est = reduce.f_methods(sim, FOLD, zero_division=0.0)
    out = np.zeros((len(ESTIMATORS) + 1, 5))
    for i, name in enumerate(ESTIMATORS):
        x = np.asarray(est[name].values, dtype=float).ravel()
        d = x[np.isfinite(x)] - model.f
        d2 = d * d
        out[i] = (d.size, d.sum(), d2.sum(), (d2 * d).sum(), (d2 * d2).sum())
    out[-1, :2] = (t1 - t0, float(invalid.sum()))
    return out


def _models(
    n: int, k: int, strats: list[Any], prevs: list[Any], fs: list[Any], pr: tuple[Any, Any]
) -> dict[Any, Model]:
    """The model of every grid point; an error names the point."""
    models = {}
    for sv, pv, fv in itertools.product(strats, prevs, fs):
        try:
            models[(sv, pv, fv)] = Model.make(n, pv, fv, k, sv, *pr)
        except ValueError as err:
            where = f"grid point stratified={sv}, prevalence={pv}, f={fv}"
            raise ValueError(f"{err} ({where})") from None
    return models


def _moments(s: np.ndarray, fv: float) -> dict[str, np.ndarray]:
    """Relative bias and std (and their standard errors) per estimator from the Monte-Carlo
    sums ``s`` (rows: estimators; columns: count, S1..S4 of F - f)."""
    cnt = s[:, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        m1 = s[:, 1] / cnt
        raw2, raw3, raw4 = s[:, 2] / cnt, s[:, 3] / cnt, s[:, 4] / cnt
        pvar = np.maximum(raw2 - m1**2, 0.0)
        m4 = raw4 - 4 * m1 * raw3 + 6 * m1**2 * raw2 - 3 * m1**4
        sd = np.sqrt(pvar * cnt / np.maximum(cnt - 1, 1))
        return {
            "rel_bias_mc": m1 / fv,
            "rel_std_mc": sd / fv,
            "rel_bias_se": sd / np.sqrt(cnt) / fv,
            "rel_std_se": np.sqrt(np.maximum(m4 - pvar**2, 0.0) / (4 * pvar * cnt)) / fv,
        }


def bias_study(
    prevalence: Any = (0.01, 0.02, 0.03, 0.04, 0.05),
    f: Any = 0.8,
    stratified: Any = (True, False),
    n: int = 1000,
    k: int = 10,
    trials: int = 100_000,
    exact: bool = True,
    seed: Any = None,
    scheduler: Any = None,
    *,
    chunks: int = STUDY_CHUNK,
    progress: bool | None = None,
    precision: float | None = None,
    recall: float | None = None,
) -> xr.Dataset:
    r"""Relative bias and spread of the five F-measure estimators under simulated CV.

    For every combination of ``stratified``, ``prevalence`` and ``f`` it simulates ``trials``
    repetitions of ``k``-fold CV over ``n`` cases (:func:`simulate`), applies the five fold
    aggregations — the cube method :func:`cvframe.reduce.f_methods` with
    ``zero_division=0.0`` — to every trial and summarises

    .. math::

        \text{rel\_bias} = \frac{\bar F - f}{f}, \qquad
        \text{rel\_std} = \frac{\operatorname{sd}(F)}{f}.

    Exact values replace the Monte-Carlo ones where they are tractable (``exact=True``):
    :math:`F_{tp,fp}` by summing over the binomial distributions of the pooled TP and FP
    (stratification does not change them); :math:`F_{avg}` per fold type, with the
    hypergeometric mixture (and pairwise fold covariances) for unstratified folds; and
    ``p_undefined`` by a product over folds (stratified) or a dynamic programme over the
    random partition (unstratified). :math:`F_{pr,re}` and the skipping methods are Monte Carlo.

    Parameters
    ----------
    prevalence, f : float or sequence of float
        Grid of positive shares and ground-truth F values (see :func:`simulate`).
    stratified : bool or sequence of bool
        Fold allocation(s) to study.
    n, k : int
        Cases and folds.
    trials : int
        Monte-Carlo trials per grid point (generated ``chunks`` at a time, so memory stays
        bounded at any count).
    exact : bool
        Use the exact values where tractable (the Monte-Carlo ones are kept beside them).
    seed : None, int or numpy.random.SeedSequence
        Root seed; each grid point draws from its own stream keyed by its parameters, so a
        point's numbers do not change when the grid around it does, nor with ``chunks`` or
        the scheduler.
    scheduler : None, str or distributed.Client
        ``None`` (or ``"threads"``) runs on threads of this process, one per core, without
        importing dask; ``"sync"`` runs the tasks one after the other in this thread,
        ``"processes"`` on dask's local process scheduler; any other string is a
        ``dask.distributed`` scheduler address (``"tcp://host:8786"``) to run on a cluster;
        a ``Client`` is used as is.
    chunks : int
        Trials per task.
    precision, recall : float, optional
        A classifier whose precision and recall differ (see :func:`simulate`): one of them
        with each ``f`` of the grid (the other solves ``2PR/(P + R) = f``), or both (then
        ``f`` is their F, a one-value grid). The study's ``precision`` and ``recall``
        variables record them per ``f``.
    progress : bool, optional
        A ``tqdm.auto`` progress bar over the tasks (a widget in Jupyter, text on stderr
        elsewhere): ``True`` shows it, ``False`` hides it; ``None`` follows
        ``CVFRAME_PROGRESS`` when set, else shows it in a terminal or Jupyter kernel when the
        study is long: ``LONG_TRIALS`` (10^6) trials or more over the grid.

    Returns
    -------
    xarray.Dataset
        Over (``stratified``, ``prevalence``, ``f``, ``estimator``):

        - ``rel_bias``, ``rel_std`` — exact where ``exact`` is True, else Monte Carlo;
        - ``rel_bias_mc``, ``rel_std_mc`` and their Monte-Carlo standard errors
          ``rel_bias_se``, ``rel_std_se`` (``sd/sqrt(T)`` and the delta-method
          ``sqrt((m4 - sd^4) / (4 sd^2 T))``, over ``f``);
        - ``exact`` (bool) — whether ``rel_bias`` and ``rel_std`` are exact;

        and over (``stratified``, ``prevalence``, ``f``): ``p_undefined`` (share of trials
        with a fold where precision or recall is undefined; exact when ``exact``),
        ``p_undefined_mc``, ``p_undefined_se``; ``positives`` over ``prevalence``. The
        ``stratified`` coordinate holds booleans (write with ``stratified`` mapped to
        "yes"/"no" for netCDF, as ``cvframe simulate`` does). attrs record ``n``, ``k``,
        ``trials``, ``seed`` and ``zero_division``.

    Raises
    ------
    ValueError
        Naming the argument and the grid point when a combination is invalid.

    See Also
    --------
    simulate, cvframe.reduce.f_methods

    References
    ----------
    .. [1] G. Forman and M. Scholz, "Apples-to-Apples in Cross-Validation Studies: Pitfalls in
       Classifier Performance Measurement", ACM SIGKDD Explorations 12(1), 2010, Section 4,
       Figures 4-8.

    Examples
    --------
    >>> import cvframe
    >>> st = cvframe.bias_study(prevalence=0.05, f=0.8, stratified=True, trials=2000,
    ...                         seed=0, progress=False)
    >>> dict(st.rel_bias.sizes)
    {'stratified': 1, 'prevalence': 1, 'f': 1, 'estimator': 5}
    >>> st.exact.sel(stratified=True, prevalence=0.05, f=0.8).values.tolist()
    [True, True, False, False, False]
    >>> round(st.rel_bias.sel(stratified=True, prevalence=0.05, f=0.8,
    ...                       estimator="f_tp_fp").item(), 5)   # exact: tiny
    -0.00023
    """
    prevs = grid("prevalence", prevalence)
    fs = grid("f", f)
    if precision is not None and recall is not None:  # the rates fix F: one grid value
        checked = (check_real("f", fv, 0.0, 1.0, high_open=False) for fv in fs)
        fs = list(dict.fromkeys(rates(fv, precision, recall)[0] for fv in checked))
    strats = grid("stratified", stratified)
    for sv in strats:
        if not isinstance(sv, (bool, np.bool_)):
            raise ValueError(
                f"stratified={few(strats)} has non-boolean values; use True and/or False."
            )
    trials = check_trials(trials)
    chunks = check_int("chunks", chunks, 1)
    exact = check_flag("exact", exact)
    root = as_seed(seed)
    models = _models(n, k, strats, prevs, fs, (precision, recall))
    tasks: list[tuple[Any, ...]] = []
    slots: list[tuple[Any, ...]] = []
    for key, model in models.items():
        ss = point_seed(root, model)
        for t0 in range(0, trials, chunks):
            tasks.append((_mc_chunk, model, ss, t0, min(trials, t0 + chunks)))
            slots.append(("mc", key))
        if exact:
            tasks.append((moments, model))
            slots.append(("exact", key))
    from ..runner import wants_progress

    show = wants_progress(progress, long=trials * len(models) >= LONG_TRIALS)
    # one engine for every chunk: numba is loaded when the study's fold aggregations pay
    # for it (every chunk alone might not), before the tasks start
    _kernel.plan(trials * len(models) * k, "fold")
    results = run(tasks, scheduler, show)

    shape = (len(strats), len(prevs), len(fs))
    sums = {key: np.zeros((len(ESTIMATORS) + 1, 5)) for key in models}
    exacts: dict[Any, dict[str, float]] = {}
    for (kind, key), res in zip(slots, results, strict=True):
        if kind == "mc":
            sums[key] += res
        else:
            exacts[key] = res
    ne = len(ESTIMATORS)
    var = {name: np.full(shape + (ne,), np.nan) for name in _NOTES if name.startswith("rel_")}
    is_exact = np.zeros(shape + (ne,), dtype=bool)
    und = {name: np.full(shape, np.nan) for name in _NOTES if name.startswith("p_undefined")}
    for sv, pv, fv in models:
        idx = (strats.index(sv), prevs.index(pv), fs.index(fv))
        s = sums[(sv, pv, fv)]
        for name, value in _moments(s[:ne], fv).items():
            var[name][idx] = value
        var["rel_bias"][idx] = var["rel_bias_mc"][idx]
        var["rel_std"][idx] = var["rel_std_mc"][idx]
        t_all, t_bad = s[-1, 0], s[-1, 1]
        und["p_undefined"][idx] = und["p_undefined_mc"][idx] = p_mc = t_bad / t_all
        und["p_undefined_se"][idx] = math.sqrt(p_mc * (1 - p_mc) / t_all)
        if exact:
            ex = exacts[(sv, pv, fv)]
            for name in EXACT_ESTIMATORS:
                j = ESTIMATORS.index(name)
                var["rel_bias"][idx + (j,)] = (ex[f"{name}_mean"] - fv) / fv
                var["rel_std"][idx + (j,)] = ex[f"{name}_std"] / fv
                is_exact[idx + (j,)] = True
            und["p_undefined"][idx] = ex["p_undefined"]
    dims = ("stratified", "prevalence", "f", "estimator")
    from .._version import __version__

    data: dict[str, Any] = {name: (dims, arr) for name, arr in (*var.items(), ("exact", is_exact))}
    data.update({name: (dims[:3], arr) for name, arr in und.items()})
    first = {fv: m for (_, _, fv), m in models.items()}
    data["precision"] = (("f",), np.array([first[fv].precision for fv in fs]))
    data["recall"] = (("f",), np.array([first[fv].recall for fv in fs]))
    positives = [int(math.floor(n * p + 0.5)) for p in prevs]
    data["positives"] = (("prevalence",), np.array(positives, dtype=np.int64))
    st = xr.Dataset(data, coords={
        "stratified": np.array(strats, dtype=bool), "prevalence": np.array(prevs, dtype=float),
        "f": np.array(fs, dtype=float), "estimator": list(ESTIMATORS),
    }, attrs={
        "n": int(n), "k": int(k), "trials": trials, "seed": seed_attr(root),
        "zero_division": "0.0", "method": "bias_study",
        "description": "Relative bias (mean - f)/f and relative std sd/f of five "
        "F-measure fold aggregations under simulated k-fold CV.",
        "reference": REFERENCE, "cvframe_version": __version__,
    })  # fmt: skip
    for name, text in _NOTES.items():
        st[name].attrs["description"] = text
    return st


def study_for_netcdf(study: xr.Dataset) -> xr.Dataset:
    """A copy of a :func:`bias_study` result that netCDF can store.

    The boolean ``stratified`` coordinate and ``exact`` variable become "yes"/"no" strings
    marked as booleans (:func:`cvframe.io.prepare_for_write`), which
    :func:`cvframe.open_dataset` turns back into booleans: a study read from a file computes
    and plots exactly like the one in memory.

    >>> import cvframe
    >>> st = cvframe.bias_study(prevalence=0.05, f=0.8, trials=10, seed=0, progress=False)
    >>> study_for_netcdf(st).stratified.values.tolist()
    ['yes', 'no']
    """
    from ..io import prepare_for_write

    return prepare_for_write(study)
