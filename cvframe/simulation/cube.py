"""The simulated counts cube: :func:`simulate`.

A simulated experiment is an ordinary counts cube with a ``trial`` dimension, so every
``ds.cv`` method applies to it; how the draws are made (and why they do not depend on
``chunks``) is explained in :mod:`cvframe.simulation._sampler`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import xarray as xr

from ..schema import CLASS, COUNTS, FOLD, TRIAL
from ._model import Model, as_seed, check_int, check_trials, seed_attr
from ._sampler import BLOCK, Sampler, block_arrays

__all__ = ["cube", "simulate"]


def cube(counts: Sequence[Any], t0: int, model: Model, seed: str) -> xr.Dataset:
    """Wrap (trial, fold) arrays of tp, fp, fn, tn as a binary counts cube over (trial, fold,
    class), its trials numbered from ``t0``."""
    dims = (TRIAL, FOLD, CLASS)
    pr = f" (precision={model.precision:.4g}, recall={model.recall:.4g})"
    rates = "" if model.recall_given is None else pr
    data = {v: (dims, x[:, :, None]) for v, x in zip(COUNTS, counts, strict=True)}
    from .._version import __version__

    return xr.Dataset(
        data,
        coords={TRIAL: t0 + np.arange(len(counts[0])), FOLD: np.arange(model.k), CLASS: [1]},
        attrs={
            "task": "binary",
            "pos_label": 1,
            "stratified": "yes" if model.stratified else "no",
            "splitter": (
                f"simulated {'stratified ' if model.stratified else ''}{model.k}-fold "
                f"CV of n={model.n}, {model.pos} positives, f={model.f:g}{rates}"
            ),
            "simulation": (
                f"Forman & Scholz (2010) model: TP ~ Binomial(positives in fold, "
                f"{'f' if model.recall_given is None else 'recall'}), FP ~ Binomial(negatives "
                f"in fold, {'P(1-f)/N' if model.recall_given is None else 'P R (1-Pr)/(Pr N)'}"
                f" = {model.q:.6g})"
            ),
            "sim_n": model.n,
            "sim_prevalence": model.prevalence,
            "sim_f": model.f,
            "sim_precision": model.precision,
            "sim_recall": model.recall,
            "sim_k": model.k,
            "sim_positives": model.pos,
            "seed": seed,
            "cvframe_version": __version__,
        },
    )


def simulate(
    n: int = 1000,
    prevalence: float = 0.05,
    f: float = 0.8,
    k: int = 10,
    trials: int = 100_000,
    stratified: bool = True,
    seed: Any = None,
    chunks: int | None = None,
    *,
    precision: float | None = None,
    recall: float | None = None,
) -> xr.Dataset:
    r"""Simulate ``trials`` repetitions of k-fold cross-validation of a classifier of known F.

    The model of Forman & Scholz (2010, Section 4.2): ``P = round(n * prevalence)`` positives
    (halves round up) and ``N = n - P`` negatives are dealt to ``k`` folds of sizes
    ``n // k`` or ``n // k + 1``; a classifier with ground-truth precision = recall = ``f``
    gives, independently per fold :math:`i`,

    .. math::

        TP_i \sim \mathrm{Bin}(P_i, f), \qquad
        FP_i \sim \mathrm{Bin}\!\left(N_i, \frac{P(1-f)}{N}\right),

    :math:`FN_i = P_i - TP_i`, :math:`TN_i = N_i - FP_i`. A classifier whose precision
    :math:`\pi` and recall :math:`\rho` differ (``precision=``, ``recall=``) has
    :math:`TP_i \sim \mathrm{Bin}(P_i, \rho)` and
    :math:`FP_i \sim \mathrm{Bin}(N_i, P\rho(1-\pi)/(\pi N))`: expected TP
    :math:`P\rho`, expected predicted positives :math:`P\rho/\pi`, ground-truth
    :math:`F = 2\pi\rho/(\pi+\rho)`. Stratified folds spread positives
    and negatives as evenly as possible (each within 1 of the others); unstratified folds are a
    uniformly random partition of the ``n`` cases into folds of the same sizes, so the
    positives per fold follow the multivariate hypergeometric distribution and folds without
    positives occur as they do in reality.

    Parameters
    ----------
    n : int
        Cases in the data set, ``>= 2``.
    prevalence : float
        Share of positives, ``0 < prevalence < 1``, with ``round(n * prevalence) >= 1`` and at
        least one negative.
    f : float
        Ground-truth F-measure (= precision = recall), ``0 < f <= 1``; it also needs
        ``P (1 - f) <= N`` (a precision of ``f`` must be reachable).
    k : int
        Folds, ``2 <= k <= n``.
    trials : int
        Repetitions of the whole cross-validation, ``>= 1``.
    stratified : bool
        Stratified folds (True) or a random partition (False).
    seed : None, int or numpy.random.SeedSequence
        Makes the cube reproducible; ``None`` draws fresh entropy, which is recorded in
        ``attrs["seed"]`` so the cube can still be regenerated.
    chunks : int, optional
        Trials per chunk of a dask-backed (lazy) cube. The values do not depend on
        ``chunks`` (see the module notes).
    precision, recall : float, optional
        Ground-truth precision and recall in ``(0, 1]`` when they differ. One of them: the
        other solves ``2PR/(P + R) = f``. Both: they define the classifier and ``f`` becomes
        ``2PR/(P + R)`` (an ``f`` other than its default that disagrees is an error). A
        classifier with precision < recall makes more false positives than one of the same
        F with precision > recall, and fewer folds without predicted positives.

    Returns
    -------
    xarray.Dataset
        A counts cube: int64 ``tp``, ``fp``, ``fn``, ``tn`` over (``trial``, ``fold``,
        ``class``), ``class`` = ``[1]``, attrs ``task="binary"``, ``pos_label=1``,
        ``stratified`` "yes"/"no", the model parameters (``sim_*``, ``sim_precision`` and
        ``sim_recall`` included) and ``seed``.

    Raises
    ------
    ValueError
        Naming the argument, when one of the conditions above fails.

    Notes
    -----
    Every ``ds.cv`` method applies to the result; ``ds.cv.f_methods(zero_division=0.0)`` gives
    the five estimators per trial. Precision is undefined in a fold with no predicted
    positives and recall in a fold with no positives (unstratified only, or ``k > P``).

    See Also
    --------
    bias_study : the estimators' relative bias and spread over a grid of models.

    References
    ----------
    .. [1] G. Forman and M. Scholz, "Apples-to-Apples in Cross-Validation Studies: Pitfalls in
       Classifier Performance Measurement", ACM SIGKDD Explorations 12(1), 2010, Section 4.

    Examples
    --------
    >>> import cvframe
    >>> ds = cvframe.simulate(n=1000, prevalence=0.05, f=0.8, trials=4, seed=0)
    >>> dict(ds.sizes)
    {'trial': 4, 'fold': 10, 'class': 1}
    >>> (ds.tp + ds.fn).sum("fold").values.ravel().tolist()   # 50 positives in every trial
    [50, 50, 50, 50]
    >>> (ds.tp + ds.fp + ds.fn + ds.tn).isel(trial=0).values.ravel().tolist()
    [100, 100, 100, 100, 100, 100, 100, 100, 100, 100]
    >>> ds = cvframe.simulate(n=1000, prevalence=0.05, precision=0.6, recall=0.9, trials=2000,
    ...                       seed=0)
    >>> round(ds.attrs["sim_f"], 2)
    0.72
    >>> round(float(ds.tp.sum() / (ds.tp + ds.fp).sum()), 1)   # pooled precision near 0.6
    0.6
    """
    model = Model.make(n, prevalence, f, k, stratified, precision, recall)
    trials = check_trials(trials)
    ss = as_seed(seed)
    sampler = Sampler(model, ss)
    seed_str = seed_attr(ss)
    if chunks is not None:
        chunks = check_int("chunks", chunks, 1)
        return _lazy_cube(sampler, trials, chunks, seed_str)
    arr = _blocks(sampler, 0, trials)
    return cube([arr[:, :, i] for i in range(4)], 0, model, seed_str)


def _blocks(sampler: Sampler, t0: int, t1: int) -> np.ndarray:
    """The (trial, fold, tp/fp/fn/tn) counts of trials ``t0..t1``, drawn a block at a time."""
    out = np.empty((t1 - t0, sampler.model.k, 4), dtype=np.int64)
    for s0 in range(t0, t1, BLOCK):
        s1 = min(t1, s0 + BLOCK)
        out[s0 - t0 : s1 - t0] = np.stack(block_arrays(sampler, s0, s1), axis=-1)
    return out


def _lazy_cube(sampler: Sampler, trials: int, chunks: int, seed: str) -> xr.Dataset:
    import dask.array as da

    k = sampler.model.k

    def gen(block: np.ndarray) -> np.ndarray:
        if block.size == 0:
            return np.empty((0, k, 4), dtype=np.int64)
        return _blocks(sampler, int(block[0]), int(block[-1]) + 1)

    idx = da.arange(trials, chunks=chunks, dtype=np.int64)
    arr = idx.map_blocks(
        gen,
        new_axis=[1, 2],
        chunks=(idx.chunks[0], (k,), (4,)),
        dtype=np.int64,
        meta=np.empty((0, 0, 0), dtype=np.int64),
    )
    return cube([arr[:, :, i] for i in range(4)], 0, sampler.model, seed)
