"""The two models of :func:`cvframe.simulation.power.power_study` and their draws: each model's
confusion rates (:func:`pair`), the latent normals that make their errors correlated and
partly the same in every repeat (:func:`latent`), the folds (:func:`draw_folds`), the
predictions (:func:`predict`), per-sample and per-fold counts (:func:`sample_counts`,
:func:`fold_counts`) and binormal scores (:func:`auc_scores`). Numpy and scipy only."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import brentq
from scipy.special import ndtri

__all__ = [
    "Pair",
    "auc_scores",
    "class_sizes",
    "draw_folds",
    "fold_counts",
    "latent",
    "pair",
    "per_class_f",
    "predict",
    "sample_counts",
]


# --- the two models -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Pair:
    """The two models of a design: class sizes and each model's P(pred | true)."""

    sizes: np.ndarray  # (C,) samples of each class
    rows: np.ndarray  # (2, C, C) P(pred = j | true = i) of model a and b
    truth: tuple[float, float]  # the population F of a and b (class 0 binary; macro else)
    rates: tuple[tuple[float, float], tuple[float, float]]  # (precision, recall) on class 0

    @property
    def classes(self) -> int:
        return len(self.sizes)


def class_sizes(n: int, prevalence: float, classes: int) -> np.ndarray:
    first = int(math.floor(n * prevalence + 0.5))
    rest = n - first
    others = rest // (classes - 1) + (np.arange(classes - 1) < rest % (classes - 1))
    sizes = np.concatenate([[first], others]).astype(np.int64)
    if (sizes < 1).any():
        raise ValueError(
            f"prevalence={prevalence!r} with n={n} and classes={classes} leaves a class "
            f"without samples (sizes {sizes.tolist()}); raise n or the prevalence."
        )
    return sizes


def per_class_f(rows: np.ndarray, priors: np.ndarray) -> np.ndarray:
    """The population F of every class of a confusion matrix of rates."""
    joint = priors[:, None] * rows
    return 2 * np.diag(joint) / (joint.sum(1) + joint.sum(0))


def model(
    f0: float, balance: float, priors: np.ndarray, which: str, target: float | None
) -> tuple[np.ndarray, tuple[float, float]]:
    """One model's rows: class 0 at F ``f0`` with precision/recall ``balance`` (its errors
    spread evenly over the other classes); the other classes' accuracy ``f0`` (``target``
    None) or solved so that the macro F is ``target``, their errors to class 0 as its
    precision demands and the rest spread evenly."""
    c = len(priors)
    precision, recall = f0 * (1 + balance) / 2, f0 * (1 + balance) / (2 * balance)
    p0 = priors[0]
    q = p0 * recall * (1 - precision) / (precision * (1 - p0)) if precision > 0 else 2.0
    if not (0 < precision <= 1 and 0 < recall <= 1 and q <= 1):
        raise ValueError(
            f"model {which}: F={f0:.4g} with balance={balance:.4g} needs precision "
            f"{precision:.4g} and recall {recall:.4g} (and {q:.4g} of the other classes "
            "predicted as class 0); each must be in (0, 1]: change f, delta or balance."
        )
    rows = np.zeros((c, c))
    rows[0, 0], rows[0, 1:] = recall, (1 - recall) / (c - 1)
    if c == 2:
        rows[1] = [q, 1 - q]
        return rows, (precision, recall)

    def fill(acc: float) -> np.ndarray:
        r = rows.copy()
        r[1:, 1:] = (1 - acc - q) / (c - 2)
        r[1:, 0] = q
        np.fill_diagonal(r[1:, 1:], acc)
        return r

    if target is None:
        if f0 > 1 - q:
            raise ValueError(
                f"model {which}: class 0 at F={f0:.4g} (balance {balance:.4g}) takes "
                f"{q:.4g} of every other class, which leaves them an accuracy below "
                f"f={f0:.4g}; lower the prevalence, f or the balance's distance from 1."
            )
        return fill(f0), (precision, recall)

    def gap(acc: float) -> float:
        return float(per_class_f(fill(acc), priors).mean() - target)

    low, high = 1e-9, 1 - q
    if gap(low) > 0 or gap(high) < 0:
        raise ValueError(
            f"model {which}: no accuracy on the other classes gives a macro F of {target:.4g} "
            f"with class 0 at F={f0:.4g} and balance {balance:.4g} (reachable: "
            f"{gap(low) + target:.4g} to {gap(high) + target:.4g}); change f, delta or "
            "balance."
        )
    return fill(brentq(gap, low, high, xtol=1e-14)), (precision, recall)


def pair(n: int, prevalence: float, classes: int, f: float, delta: float, balance: tuple) -> Pair:
    """Model b: class 0 at F ``f``, the other classes solved for the macro F of model a under
    the null (class 0 at F ``f``, the others at accuracy ``f``). Model a: that null model,
    better by ``delta`` (binary: class 0 at F ``f + delta``; else the other classes solved
    for the null macro F plus ``delta``)."""
    sizes = class_sizes(n, prevalence, classes)
    priors = sizes / n  # the rates of the sample, so that the truth is exact at this n
    null = model(f, balance[0], priors, "a", None)
    macro = float(per_class_f(null[0], priors).mean())
    if classes == 2:
        made_a = model(f + delta, balance[0], priors, "a", None)
        made_b = model(f, balance[1], priors, "b", None)
    else:
        made_a = null if delta == 0 else model(f, balance[0], priors, "a", macro + delta)
        made_b = model(f, balance[1], priors, "b", macro)
    rows = np.stack([made_a[0], made_b[0]])
    per = [per_class_f(r, priors) for r in rows]
    truth = tuple(float(p[0] if classes == 2 else p.mean()) for p in per)
    return Pair(sizes, rows, (truth[0], truth[1]), (made_a[1], made_b[1]))


# --- the draws --------------------------------------------------------------------------------


def latent(
    rng: np.random.Generator, shape: tuple[int, ...], rho: float, stability: float
) -> np.ndarray:
    """Standard normal latents (T, 2, R, ...): correlated ``rho`` between the two models,
    a share ``stability`` of the variance the same in every repeat."""
    t, _, r, *rest = shape
    z = rng.standard_normal((t, 2, 1, *rest))
    z[:, 1] = rho * z[:, 0] + math.sqrt(1 - rho**2) * z[:, 1]
    if stability >= 1:
        return np.broadcast_to(z, shape)
    e = rng.standard_normal(shape)
    e[:, 1] = rho * e[:, 0] + math.sqrt(1 - rho**2) * e[:, 1]
    return math.sqrt(stability) * z + math.sqrt(1 - stability) * e


def draw_folds(
    rng: np.random.Generator, y: np.ndarray, t: int, r: int, k: int, stratified: bool
) -> np.ndarray:
    """Fold of every sample (T, R, n): each class dealt round-robin in a random order
    (stratified), or a random partition into folds of sizes n // k (+1)."""
    n = len(y)
    if not stratified:
        return rng.permuted(np.broadcast_to(np.arange(n) % k, (t, r, n)), axis=-1)
    out = np.empty((t, r, n), dtype=np.int64)
    offset = 0
    for c in np.unique(y):
        members = np.flatnonzero(y == c)
        perm = rng.permuted(np.broadcast_to(members, (t, r, len(members))), axis=-1)
        deal = (np.arange(len(members)) + offset) % k
        np.put_along_axis(out, perm, np.broadcast_to(deal, perm.shape), axis=-1)
        offset += len(members)
    return out


def predict(pair: Pair, y: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Predicted classes (T, 2, R, n) from uniforms ``u``: the quantile of each model's row
    of its sample's true class, ordered true class first, then class 0, then the others
    (so that correlated latents make correlated errors)."""
    c = pair.classes
    order = np.array([[i] + [j for j in range(c) if j != i] for i in range(c)])
    order[1:, 1:] = np.array([[0] + [j for j in range(1, c) if j != i] for i in range(1, c)])
    probs = np.take_along_axis(pair.rows, np.broadcast_to(order, pair.rows.shape), axis=-1)
    cum = np.cumsum(probs, axis=-1)[..., :-1]  # (2, C, C-1)
    idx = np.zeros(u.shape, dtype=np.int64)
    for j in range(c - 1):
        idx += u > cum[:, y, j][None, :, None, :]
    return order[y, idx.clip(0, c - 1)] if c > 2 else np.where(idx == 0, y, 1 - y)


def sample_counts(y: np.ndarray, pred: np.ndarray, kept: int) -> dict[str, np.ndarray]:
    """Per-sample one-vs-rest counts (T, 2, R, n, C) of the ``kept`` first classes."""
    cls = np.arange(kept)
    truth = (y[:, None] == cls)[None, None, None]
    said = pred[..., None] == cls
    return {
        "tp": (truth & said).astype(np.float64),
        "fp": (~truth & said).astype(np.float64),
        "fn": (truth & ~said).astype(np.float64),
        "tn": (~truth & ~said).astype(np.float64),
    }


def fold_counts(
    y: np.ndarray, pred: np.ndarray, fold: np.ndarray, k: int, kept: int
) -> dict[str, np.ndarray]:
    """Fold counts (T, 2, R, K, C) of the ``kept`` first classes: one bincount of the
    confusion matrix of every (study, model, repeat, fold)."""
    t, m, r, n = pred.shape
    c = int(max(y.max(), pred.max())) + 1
    cell = (np.arange(t * m * r).reshape(t, m, r, 1) * k + fold[:, None]) * c + y
    conf = np.bincount((cell * c + pred).ravel(), minlength=t * m * r * k * c * c)
    conf = conf.reshape(t, m, r, k, c, c).astype(np.float64)
    tp = np.diagonal(conf, axis1=-2, axis2=-1)
    fn, fp = conf.sum(-1) - tp, conf.sum(-2) - tp
    tn = conf.sum((-2, -1))[..., None] - tp - fn - fp
    return {
        key: v[..., :kept]
        for key, v in zip(("tp", "fp", "fn", "tn"), (tp, fp, fn, tn), strict=True)
    }


def auc_scores(
    sizes: np.ndarray, t: int, design: dict[str, Any], rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Binormal scores (T, 2, R, C', n) of the two models per scored class, the classes'
    membership (C', n) and the true class of every sample."""
    c, r = len(sizes), design["repeats"]
    y = np.repeat(np.arange(c), sizes)
    scored = 1 if c == 2 else c
    positive = y[None, :] == np.arange(scored)[:, None]
    lat = latent(rng, (t, 2, r, scored, len(y)), design["rho"], design["stability"])
    auc = np.array(design["aucs"])
    spread = np.array(design["spread"], dtype=np.float64)
    mu = np.sqrt(1 + spread**2) * ndtri(auc)
    s = np.where(
        positive, mu[None, :, None, None, None] + spread[None, :, None, None, None] * lat, lat
    )
    return s, positive, y
