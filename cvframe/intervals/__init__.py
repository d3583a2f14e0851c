r"""How sure is the number? :func:`interval` gives every cross-validated number an interval
that says what it estimates, by which method, and with what reference; its coverage is
measured by :func:`cvframe.coverage_study`.

Methods (:data:`METHODS`): ``"posterior"`` and ``"bootstrap"`` for pooled count metrics
(:mod:`._pooled`), ``"delong"`` for AUC_merge (:mod:`._auc`),
``"corrected_t"`` for per-fold aggregations (the correction of
:func:`~cvframe.intervals.shared.corrected_moments`) and ``"nested"`` for nested
cross-validation. Which one fits a metric's aggregation is its registry entry's
(:attr:`cvframe.metrics.Metric.intervals`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd
import xarray as xr

from .. import build, measure, metrics, scores
from .._core import checks as _checks
from .._core import quantiles
from .._core.docs import doc
from .._core.labels.frame import FrameArgs
from .._core.quantiles import z_quantile
from ..errors import few
from ..schema import CLASS, FOLD, FRAME_DIMS, REPEAT
from . import _auc, _fold, _pooled
from . import certify as _certify_mod
from .shared import REFERENCES, Ask, data_in_memory

__all__ = ["METHODS", "REFERENCES", "delong", "interval"]

#: The values ``method=`` takes.
METHODS = ("auto", "posterior", "bootstrap", "delong", "corrected_t", "nested")
#: Methods that stand in for one another: a forced method must be of the family of the one
#: the metric's variant has (:attr:`cvframe.metrics.Metric.intervals`).
_FAMILY = {"posterior": "counts", "bootstrap": "counts", "delong": "scores"}
#: The variants some metric has an interval for, and the spellings of ``fold_method=``.
_VARIANTS = sorted({v for m in metrics.REGISTRY.values() for v in m.intervals})
_POOLED = ("pooled", "tp_fp", "merge", "merged")
FOLD_METHODS = (None, *dict.fromkeys((*_POOLED, *metrics.VARIANTS)))


#: What the interval of each method estimates (``{}`` is the metric's display name).
_ESTIMANDS = {
    "posterior": "{} of these fitted fold models on new samples from the same population "
    "(the population value of the pooled counts), conditional on the training sets",
    "delong": "{} of the merged fold scores on new samples from the same population, "
    "conditional on the fitted fold models",
    "corrected_t": "expected {} of the learning procedure over training sets of this size "
    "(approximate)",
    "nested": "expected {} of the learning procedure fitted on training sets of this size "
    "from this population (nested cross-validation)",
}
_ESTIMANDS["bootstrap"] = _ESTIMANDS["posterior"]


def _resolve(metric: Any, fold_method: Any) -> tuple[str, str]:
    """The registry metric and the variant ``metric`` and ``fold_method`` ask for (default:
    the pooled one), refused where the variant has no interval method."""
    if not isinstance(metric, str):
        raise TypeError(f"metric={metric!r} must be a metric name such as 'f' or 'auc'.")
    asked = _checks.choice("fold_method", fold_method, FOLD_METHODS)
    r = metrics.resolve(metric, variants=_VARIANTS)
    entry = r.entry
    if asked is not None:
        asked = entry.pooled if asked in _POOLED else asked
    if r.variant is not None and asked is not None and r.variant != asked:
        raise ValueError(
            f"metric={metric!r} is {metrics.display(r.metric, r.variant)} but "
            f"fold_method={fold_method!r} asks otherwise; pass metric={r.metric!r} with "
            "fold_method, or the spelled name alone."
        )
    variant = r.variant or asked or entry.pooled
    if variant not in entry.intervals:
        offer = [
            f"fold_method={'None' if v == entry.pooled else repr(v)} "
            f"({metrics.display(r.metric, v)}, method {m!r})"
            for v, m in entry.intervals.items()
        ]
        has = [metrics.display(n, v) for n, e in metrics.REGISTRY.items() for v in e.intervals]
        fix = f"pass {' or '.join(offer)}" if offer else f"intervals exist for {few(has)}"
        raise ValueError(
            f"metric={metric!r}, fold_method={fold_method!r}: "
            f"{metrics.display(r.metric, variant)} has no interval method yet; {fix}."
        )
    return r.metric, variant


def _choose(method: str, metric: str, variant: str, is_frame: bool, average: Any) -> str:
    """The method ``"auto"`` picks (the registry's for the variant), or the forced one
    checked against it."""
    entry = metrics.REGISTRY[metric]
    fits = entry.intervals[variant]
    name = metrics.display(metric, variant)
    if entry.kind == "score" and not is_frame:
        raise ValueError(
            f"metric={metric!r} reads scores: pass the predictions frame (df.cv.interval), not "
            "the counts cube."
        )
    if average is not None and average not in entry.averages and entry.scope == "class":
        raise ValueError(
            f"average={average!r} is not defined for metric={metric!r}; pass one of "
            f"{list(entry.averages)}."
        )
    if method == "auto" or method == fits:
        pass
    elif method == "corrected_t":
        raise ValueError(
            f"method='corrected_t' is an interval over per-fold values, but {name} is pooled "
            "(one value per repeat): pass fold_method='avg' (the fold mean), or use "
            f"method={fits!r} for the pooled metric."
        )
    elif fits == "corrected_t":
        raise ValueError(
            f"method={method!r} is for a pooled metric, but {name} averages per-fold "
            "values: use method='corrected_t', or drop fold_method='avg'."
        )
    elif _FAMILY.get(method) != _FAMILY.get(fits):
        owners = [
            metrics.display(n, v)
            for n, e in metrics.REGISTRY.items()
            for v, m in e.intervals.items()
            if _FAMILY.get(m) == _FAMILY[method]
        ]
        raise ValueError(
            f"method={method!r} is the interval of {', '.join(dict.fromkeys(owners))}; "
            f"{name} takes method={fits!r} (or fold_method='avg' for the corrected t): use "
            "method='auto'."
        )
    if method == "bootstrap" and average is not None:
        raise ValueError(
            f"method='bootstrap' resamples each class's one-vs-all counts and cannot average "
            f"classes (average={average!r}); use method='posterior', or average=None."
        )
    return fits if method == "auto" else method


def _counts_cube(df: pd.DataFrame, args: FrameArgs, y_pred: str = "y_pred") -> xr.Dataset:
    """The counts cube of a frame read as ``args`` says, by the one builder (``model``,
    ``dataset``... as dims)."""
    dims = [d for d in FRAME_DIMS if d in df.columns]
    cols: dict[str, Any] = {"y_true": args.y_true, "y_pred": y_pred, "fold": args.fold}
    cols["repeat"] = args.repeat
    counted = scores.counted_cube(df, args, dims, **cols)  # a score-count table: its samples
    if counted is not None:
        return counted
    return build.counts_from_frame(df, args.labels, args.pos_label, dims=dims, **cols)


def _finish(
    out: xr.Dataset,
    method: str,
    level: float,
    name: tuple[str, str],
    reduced: Sequence[str],
    info: dict[str, Any],
) -> xr.Dataset:
    """The result's attrs; ``name`` is the metric's (spelled name, display name)."""
    for v in out.data_vars.values():
        v.attrs = {}
    out.attrs = {
        "method": method,
        "level": level,
        "estimand": _ESTIMANDS[method].format(name[1]),
        "training_variability": "yes" if method in ("corrected_t", "nested") else "no",
        "reference": REFERENCES[method],
        "metric": name[0],
        "reduced_dims": ",".join(reduced),
        **{k: v for k, v in info.items() if v is not None},
    }
    return out


@doc
def interval(
    data: xr.Dataset | pd.DataFrame | scores.ParsedFrame,
    metric: str = "f",
    *,
    fold_method: str | None = None,
    method: str = "auto",
    level: float = 0.95,
    beta: float = 1.0,
    zero_division: Any = "warn",
    average: str | None = None,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    n_boot: int = 2000,
    random_state: int | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
    certify: bool = False,
) -> xr.Dataset:
    r"""An interval for a cross-validated number that says what it estimates.

    The number follows cvframe's defaults: ``metric="f"`` is F_tp,fp (the counts pooled
    over the folds), ``fold_method="avg"`` F_avg; ``"f_tp_fp"``, ``"f_avg"``,
    ``"accuracy"`` (pooled), ``"accuracy_avg"``, ... spell both at once. On a predictions
    frame ``metric="auc"`` is AUC_merge and ``fold_method="avg"`` AUC_avg (also ``"ap"``,
    ``"brier"`` with ``fold_method="avg"``). ``method="auto"`` picks the method the metric's
    entry of :data:`cvframe.metrics.REGISTRY` gives its aggregation (``intervals``):

    - **pooled count metrics** (F_tp,fp, pooled precision, recall, specificity, accuracy,
      Jaccard, class averages, metrics of every class at once): ``"posterior"``, the
      posterior of the pooled confusion cells (Goutte & Gaussier 2005) under a
      Dirichlet(1/2) prior. F is a monotone function of the Jaccard index
      :math:`J = TP/(TP+FP+FN)`, whose posterior is a Beta, so (``l`` the level)

      .. math:: F \in \left[\frac{2 J_{(1-l)/2}}{1 + J_{(1-l)/2}},\;
                \frac{2 J_{(1+l)/2}}{1 + J_{(1+l)/2}}\right], \qquad
                J \sim \mathrm{Beta}(TP + \tfrac12,\; FP + FN + 1),

      exact quantiles; every metric that is such a function of a share of the cells
      (:attr:`cvframe.formulas.MetricSpec.share`: precision, recall, specificity, accuracy)
      in the same way, and accuracy and every micro average of single-label data by the
      share of correct samples. **Class averages** (macro, weighted), metrics of every
      class at once (Matthews correlation, balanced accuracy, error) and :math:`F_\beta`
      (:math:`\beta \ne 1`) of several classes take the normal approximation of that
      posterior under a prior of vanishing weight, on the logit scale of the metric's range,
      centred on the estimate (Takahashi et al. 2022; Rubin 1981):

      .. math:: g \in a + (b - a)\,\mathrm{expit}\Big(\mathrm{logit}\,u \pm
                \frac{z\,\widehat{se}}{(b-a)\,u(1-u)}\Big), \quad
                u = \frac{\hat g - a}{b - a}, \quad
                \widehat{se}^2 = \frac1n\Big(\sum_j d_j^2 \hat p_j
                - \big(\sum_j d_j \hat p_j\big)^2\Big),

      :math:`d_j = \partial g/\partial p_j` over the cells :math:`p_j` of the one-pass
      confusion matrix (one multinomial of the ``n`` samples), or of each class's
      one-vs-all cells taken as independent where the cube has no ``confusion`` (multilabel
      data); :math:`[a, b]` the metric's range. No pseudo-count per cell: a 10 x 10 matrix
      is not given 45 pseudo-errors. Where the estimate is at an end of its range or no
      error was seen, two pseudo-counts spread over each table's cells give the variance
      and the end at the estimate is the estimate. One table's :math:`F_\beta` or MCC (a
      binary cube) takes ``n_boot`` Monte-Carlo draws of its Dirichlet(1/2) posterior. The
      interval always holds its estimate (an end that passes it, at a level far below 0.95
      or with the mean over repeats, is moved to it). ``"bootstrap"`` (forced) is the
      percentile bootstrap stratified within fold x true class. With repeats the counts of
      **one pass** are used (the per-repeat pooled counts averaged over the repeats): the
      repeats re-test the same samples, so they are not more evidence about the
      population.
    - **AUC_merge** (a frame): ``"delong"``, DeLong's variance (DeLong et al. 1988) from
      the midrank placements of Sun & Xu (2014), on the logit scale,
      :math:`\mathrm{expit}(\mathrm{logit}\,\widehat{A} \pm z\,\widehat{se}/(\widehat A(1 -
      \widehat A)))`; with repeats, the mean AUC and the mean per-repeat variance.
    - **per-fold aggregations** (F_avg, accuracy_avg, AUC_avg, ...): ``"corrected_t"``,
      Nadeau & Bengio's corrected t over the :math:`n = kr` folds of (repeated) CV,

      .. math:: \bar x \pm t_{n-1,\,(1+l)/2}
                \sqrt{\left(\frac1n + \frac{n_{test}}{n_{train}}\right)\hat\sigma^2},

      :math:`n_{test}/n_{train}` from the cube's fold totals (the correction
      :func:`cvframe.compare` uses for ``test="corrected_t"``), clipped to the metric's
      range.
    - ``"nested"`` (forced): nested cross-validation (Bates, Hastie & Tibshirani 2024) from
      ``data.attrs["nested_cv"]``, written by ``cvframe.cross_validate(..., nested=R)``:
      :math:`\widehat{err}_{NCV} - \widehat{bias} \pm z\,\widehat{se}`.

    Parameters
    ----------
    data : xarray.Dataset, pandas.DataFrame or cvframe.scores.ParsedFrame
        The counts cube, or the predictions frame (count metrics build the cube with
        :func:`cvframe.build.counts_from_frame`; score metrics read the scores), or that
        frame parsed once by :func:`cvframe.scores.parse` (its parse and sorts shared).
    metric : str, default "f"
        Any name :func:`cvframe.metrics.resolve` takes whose aggregation has an interval
        method: ``"f"``, ``"precision"``, ``"accuracy"``, ``"jaccard"``, ``"auc"``,
        ``"ap"``, ``"brier"``, ..., optionally with ``"_tp_fp"``/``"_pooled"``/
        ``"_merge"`` or ``"_avg"``, or a scikit-learn scorer name (``"f1"``).
    fold_method : {None, "tp_fp", "pooled", "merge", "avg"}, optional
        None: pooled (merged for scores), unless ``metric`` says ``_avg``; an aggregation
        without an interval method (``"pr_re"``, ``"avg_skip"``) is refused, naming those
        that have one.
    method : {"auto", "posterior", "bootstrap", "delong", "corrected_t", "nested"}
        Each method refuses a design it does not fit, saying why and what to do.
    level : float, default 0.95
        Coverage the interval aims at, in (0, 1).
    beta : float, default 1
        Weight of recall in F.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default "warn"
        Value of an undefined metric in the estimate (see :func:`cvframe.reduce.aggregate`);
        the corrected t refuses folds left undefined (NaN).
    average : {None, "macro", "micro", "weighted"}, optional
        Data with several classes: per class (None) or averaged.
    labels, pos_label : optional
        As in :func:`cvframe.build.counts_from_frame` and :func:`cvframe.scores.auc`.
    n_boot : int, default 2000
        Bootstrap resamples or Monte-Carlo posterior draws (100 to 1,000,000).
    random_state : int, optional
        Seed of the draws (default 0: the interval is reproducible).
    y_true, fold, repeat, score : str
        Column names of the predictions frame (count metrics read ``y_pred``).
    certify : bool, default False
        Also simulate the interval's coverage at this data's own design (its ``n``, class
        sizes, ``k`` and repeats; :mod:`cvframe.intervals.certify`): a fixed classifier
        with the observed confusion rates (the posterior) or binormal scores of the observed
        AUC (DeLong), a few hundred to 2,000 simulated data sets within about 2 s, seeded by
        ``random_state``. Adds ``coverage`` and ``coverage_se`` (its Monte-Carlo standard
        error) over the estimate's dims, and the attrs ``coverage_trials`` and
        ``coverage_design``. The corrected t, nested CV and the bootstrap are refused (they
        depend on variation the data do not show).

    Returns
    -------
    xarray.Dataset
        ``estimate`` (the number cvframe reports: the mean over repeats), ``lower``,
        ``upper`` over every dim not reduced (``model``, ``class`` when per class,
        ``dataset``, ``trial``, ...): ``fold`` and ``repeat`` are reduced, ``class`` when
        averaged. Attrs ``method``, ``level``, ``estimand`` (one sentence),
        ``training_variability`` (``"yes"`` when the interval includes the variation of the
        fitted models over training sets, else ``"no"``: netCDF-safe), ``reference``,
        ``metric``, ``reduced_dims`` and the method's own (``n_test``/``n_train`` of the
        corrected t, ``draws``, ``approximation``...); with ``certify=True`` the
        certificate's ``coverage``, ``coverage_se``, ``coverage_trials`` and
        ``coverage_design``.

    Raises
    ------
    ValueError
        An unknown metric or method; a method forced on a design it does not fit (the
        corrected t on a pooled metric or a single fold or undefined folds, DeLong without
        2 positives and 2 negatives, nested without ``attrs["nested_cv"]``, a score metric
        on a cube).

    Notes
    -----
    The posterior and DeLong intervals are conditional on the fitted fold models (they do
    not include training variability); the corrected t and nested CV aim at the learning
    procedure. Coverage of every method on the simulation model of Forman & Scholz (2010)
    is in the docs page "How sure is the number?" (:func:`cvframe.coverage_study`).

    References
    ----------
    Goutte & Gaussier (2005); Brown, Cai & DasGupta (2001); Takahashi, Yamamoto, Kuchiba &
    Koyama (2022); Rubin (1981); DeLong, DeLong & Clarke-Pearson (1988); Sun & Xu (2014);
    Nadeau & Bengio (2003); Bates, Hastie & Tibshirani (2024).

    Examples
    --------
    >>> import cvframe
    >>> ds = cvframe.datasets.table1()
    >>> iv = cvframe.interval(ds, "f")
    >>> iv.attrs["method"], [round(float(iv[v].item()), 3) for v in ("estimate", "lower", "upper")]
    ('posterior', [0.583, 0.406, 0.728])
    >>> print(iv.attrs["estimand"][:60])
    F_tp,fp of these fitted fold models on new samples from the
    >>> ds.cv.interval("f_avg").attrs["method"]
    'corrected_t'
    >>> sure = cvframe.interval(ds, "f", certify=True)  # coverage simulated at this design
    >>> sure.attrs["coverage_trials"], bool(0.9 < sure.coverage.item() <= 1.0)
    (2000, True)
    """
    level = quantiles.level(level)
    certify = _checks.flag("certify", certify)
    method = _checks.choice("method", method, METHODS)
    n_boot = _checks.integer("n_boot", n_boot, 100, 1_000_000)
    seed = 0 if random_state is None else _checks.integer("random_state", random_state, 0)
    average = _checks.choice("average", average, metrics.AVERAGES)
    if method != "nested" and scores.reduces(data, metric):
        data = scores.parse(data, **vars(FrameArgs.of(locals())))  # its score counts, one pass
    parsed = isinstance(data, scores.ParsedFrame)
    data = data if parsed else data_in_memory(data)
    rows = data.frame if parsed else data  # a parsed frame: its rows
    if method == "nested":
        table, extra = _fold.nested(data, metric, level)
        return _finish(table, "nested", level, (metric, metric), (), extra)
    name, variant = _resolve(metric, fold_method)
    entry = metrics.REGISTRY[name]
    is_frame = isinstance(rows, pd.DataFrame)
    chosen = _choose(method, name, variant, is_frame, average)
    shown = (metrics.spelled(name, variant), metrics.display(name, variant))
    args = data.args if parsed else FrameArgs.of(locals())  # parsed: read as it was
    info: dict[str, Any] = {}
    cert: Any = None
    if certify and chosen not in ("posterior", "delong"):
        raise ValueError(
            f"certify=True simulates the pooled counts of the posterior interval or the "
            f"merged scores of DeLong's; method {chosen!r} ({shown[1]}) is neither (the "
            "corrected t and nested CV depend on how the fitted models vary over training "
            "sets, which the data do not show; the bootstrap resamples folds): pass "
            "certify=False, or method='auto' with the pooled metric (fold_method=None)."
        )
    if chosen == "delong":
        est, lo, hi, info = _auc.frame_interval(data, average, level, args)
        one = info.pop("per_class")
        if certify:
            total = _samples(rows, args, one["auc"])
            cert = _certify_mod.scores(one, total, average, level, est, seed)
    elif entry.kind == "score":
        v = measure.frame(data, name, "fold", "nan", average=average, **vars(args))
        cube = _counts_cube(rows, args, y_pred=args.y_true)
        est, lo, hi, info = _fold.corrected_t(cube, v, shown[1], level, entry.bounds)
    else:
        ds = _counts_cube(rows, args) if is_frame else cast(xr.Dataset, rows)
        if chosen == "corrected_t":
            kw = {"beta": beta, "zero_division": zero_division}
            values = measure.fold_values(ds, name, average, **kw)
            est, lo, hi, info = _fold.corrected_t(ds, values, shown[1], level, entry.bounds)
            info["average"] = str(average if ds.sizes.get(CLASS, 1) > 1 else None)
        else:
            ask = Ask(level, beta, zero_division, average, n_boot, seed)
            est, lo, hi, info = _pooled.interval(ds, name, chosen, ask)
            if certify:
                ask = ask._replace(average=ask.average if ds.sizes.get(CLASS, 1) > 1 else None)
                cert = _certify_mod.counts(ds, name, ask, est, draws="draws" in info)
    out = xr.Dataset({"estimate": est, "lower": lo, "upper": hi})
    if cert is not None:
        out = out.assign(cert[0])
        info.update(cert[1])
    out = out.transpose(*[d for d in FRAME_DIMS if d in out.dims], ...)
    reduced = [d for d in (FOLD, REPEAT) if d in _dims(rows)]
    if CLASS not in out.dims and CLASS in _dims(rows):
        reduced.append(CLASS)
    return _finish(out, chosen, level, shown, reduced, info)


def _samples(rows: pd.DataFrame, args: FrameArgs, like: xr.DataArray) -> xr.DataArray:
    """Tested samples of one pass per kept dim of ``like`` (the frame's rows per dim value
    and repeat, averaged over the repeats; a score-count table's counts of one class),
    counted without parsing the frame again."""
    dims = [d for d in like.dims if d != CLASS and d in rows.columns]
    rep = [args.repeat] if args.repeat is not None and args.repeat in rows.columns else []
    count = rows.attrs.get(scores.COUNTED)  # a score-count table: a row stands for `count`
    if count is not None and count in rows.columns:
        if CLASS in rows.columns:  # every class holds every sample: count one class's
            rows = rows[rows[CLASS] == rows[CLASS].iloc[0]]
        if not dims and not rep:
            return xr.DataArray(float(rows[count].sum()))
        grouped = rows.groupby(dims + rep, sort=False, observed=True)[count]
        size = grouped.sum().astype("float64")
    elif not dims and not rep:
        return xr.DataArray(float(len(rows)))
    else:
        size = rows.groupby(dims + rep, sort=False, observed=True).size().astype("float64")
    if rep:
        size = size.groupby(level=dims, sort=False).mean() if dims else pd.Series([size.mean()])
    if not dims:
        return xr.DataArray(float(size.iloc[0]))
    out = xr.DataArray.from_series(size)
    return out.sel({d: like[d].values for d in dims})


def _dims(data: Any) -> tuple[str, ...]:
    if isinstance(data, xr.Dataset):
        return tuple(map(str, data.dims))
    return (FOLD, CLASS) + ((REPEAT,) if REPEAT in data.columns else ())


def delong(scores: Any, y: Any, *, level: float = 0.95) -> tuple[np.ndarray, ...]:
    r"""AUC and its DeLong interval (logit scale) of every row of a score array.

    The array form of ``interval(frame, "auc")`` for one pass of merged scores: rows are
    independent data sets (e.g. the trials of :func:`cvframe.coverage_study`).

    Parameters
    ----------
    scores : array-like of shape (..., S)
        Scores, higher meaning more positive.
    y : array-like of 0/1 or bool, broadcast with ``scores``
        Whether each sample is positive.
    level : float, default 0.95

    Returns
    -------
    tuple of numpy.ndarray
        ``(estimate, lower, upper)`` of shape ``scores.shape[:-1]``; NaN ends where a row
        has fewer than 2 positives or 2 negatives.

    References
    ----------
    DeLong, DeLong & Clarke-Pearson (1988); Sun & Xu (2014).

    Examples
    --------
    >>> import numpy as np
    >>> est, lo, hi = delong(np.array([0.1, 0.4, 0.35, 0.8, 0.7, 0.2]), [0, 0, 1, 1, 1, 0])
    >>> float(est), bool(lo < est < hi)
    (0.8888888888888888, True)
    """
    level = quantiles.level(level)
    auc, var = _auc.delong_arrays(scores, y)
    lo, hi = _auc.logit_interval(auc, var, z_quantile(level))
    return auc, lo, hi
