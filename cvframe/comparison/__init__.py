"""Paired comparisons of models evaluated on the same cross-validation splits.

:func:`compare` takes the counts cube (tests on per-fold values, and the fold jackknife of a
pooled metric) or the predictions frame (tests that pair every tested sample: the delta
method of a pooled metric such as F_tp,fp, DeLong's test of AUC_merge) and
returns, for every model against a baseline (or every pair), the paired difference, an
interval and a p-value, with attrs saying which test produced it and what it assumes. Every
test is an entry of :data:`REGISTRY` (name, kind, data it reads, assumptions, references,
the function that runs it): :mod:`~cvframe.comparison.fold` (per-fold values, Bayesian),
:mod:`~cvframe.comparison.pooled` (pooled metrics: delta method, fold jackknife, DeLong),
:mod:`~cvframe.comparison.resampling` (bootstrap, permutation, McNemar),
:mod:`~cvframe.comparison.friedman` (across data sets); :mod:`~cvframe.comparison.registry`
holds them and picks one.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .. import metrics
from .._core import checks as _checks
from .._core import labels as _labels
from .._core import quantiles
from ..errors import few
from ..intervals.shared import data_in_memory
from ..schema import CLASS, FOLD, REPEAT
from ._common import FOLD_METRICS, MULTILABEL_METRICS, POOLED_METRICS, Request, Test, result
from .friedman import adjust_classes
from .registry import REGISTRY, TESTS, UNCORRECTED_T, check_fits, check_multilabel, choose

__all__ = [
    "FOLD_METRICS",
    "MULTILABEL_METRICS",
    "POOLED_METRICS",
    "REGISTRY",
    "TESTS",
    "Test",
    "adjust_classes",
    "choose",
    "compare",
]


def compare(
    data: xr.Dataset | pd.DataFrame,
    metric: str = "f_tp_fp",
    *,
    baseline: Hashable | None = None,
    dim: str = "model",
    test: str = "auto",
    level: float = 0.95,
    n_resamples: int = 2000,
    random_state: int | None = None,
    rope: float = 0.01,
    beta: float = 1.0,
    zero_division: Any = "warn",
    average: str | None = "macro",
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    y_pred: str = "y_pred",
    score: str = "score",
    fold: str = "fold",
    repeat: str | None = "repeat",
    sample: str | None = "sample",
    alpha: float | None = None,
) -> xr.Dataset:
    r"""Paired comparison of models tested on the same folds: difference, interval, p-value.

    For every ``dim`` entry (model) against ``baseline`` — or every pair when ``baseline``
    is None — the paired difference ``model - baseline`` of ``metric``: per repeat, its
    mean, a ``level`` interval and a two-sided p-value of the chosen test.

    **Which test for which data.** Every metric of :data:`cvframe.metrics.REGISTRY` names
    the paired test that fits each of its variants (``tests``); ``test="auto"`` runs it,
    reading the design (:func:`choose`): a ``dataset`` dim or column with two or more data
    sets gives ``"friedman"``; a pooled count metric (F_tp,fp, pooled accuracy, MCC...)
    ``"paired_delta"`` on the predictions frame (``"mcnemar"`` for the pooled accuracy of
    one CV run) and ``"fold_jackknife"`` on the counts cube (or a repeated frame without
    ``sample`` ids); AUC_merge ``"delong"`` (the frame only); a per-fold metric
    ``"5x2cv_t"`` on 5 repeats x 2 folds, else ``"corrected_t"``. ``attrs["test"]`` says
    which, ``attrs["reason"]`` why. So ``ds.cv.compare()`` and ``compare(pred)`` with their
    defaults test F_tp,fp, the number the report recommends, each with the test its data
    allow; their type I error and power are measured by :func:`cvframe.power_study`
    (docs: "Error rates"). Refused with the reason: AUC_merge on the cube (it needs the
    scores), ``"friedman"`` with the folds of one data set as blocks, ``"t"`` (the
    uncorrected paired t over the folds: its type I error is far above ``1 - level``,
    Dietterich 1998), a test that does not fit the metric's variant, and unpaired folds
    (fold sizes, supports or sample ids that differ between models).
    Every result has an ``effect_size``: Cohen's :math:`d_z = \bar d / s_d` of the paired
    per-fold differences (fold tests), of the per-data-set differences (Friedman), or the
    difference itself on the metric's scale (resampling tests); ``attrs["effect_size"]``
    says which.

    - per-fold metrics (a count metric's bare name or its ``"_avg"`` name,
      :data:`FOLD_METRICS`: ``"f"``, ``"accuracy"``, ``"precision_avg"``...; on multilabel
      data also :data:`MULTILABEL_METRICS`: ``"f_samples"``, ``"hamming_loss"`` (lower is
      better: a negative difference favours the model)...) on a cube or a frame:
      ``"corrected_t"``, the corrected repeated k-fold t-test (Nadeau & Bengio 2003,
      Bouckaert & Frank 2004; WEKA's ``PairedCorrectedTTester``). With per-fold differences
      :math:`d_{ij}` over :math:`n = k r` folds,

      .. math::

          t = \frac{\bar d}{\sqrt{(1/n + n_{test}/n_{train})\, \hat\sigma^2_d}},
          \qquad \nu = n - 1,

      with :math:`n_{test}/n_{train}` read from the cube: the summed test-fold sizes
      :math:`tp+fp+fn+tn` over the summed training sizes (repeat total minus the fold), as
      WEKA reads them. ``"bayesian"`` (Benavoli et al. 2017): the posterior of the mean
      difference is Student t with the same location, scale and :math:`\nu`; attrs give
      :math:`P(<-rope)`, :math:`P(|\mu| \le rope)`, :math:`P(>rope)`. ``"5x2cv_t"``
      (Dietterich 1998): :math:`t = p_1^{(1)} / \sqrt{\tfrac15 \sum_i s_i^2}` on 5 df;
      ``"5x2cv_f"`` (Alpaydin 1999):
      :math:`f = \sum_{i,j} (p_i^{(j)})^2 / (2 \sum_i s_i^2)` on (10, 5) df — both need
      5 repeats of 2 folds.
    - pooled metrics (:data:`POOLED_METRICS`: ``"f_tp_fp"``, ``"accuracy_pooled"``,
      ``"auc_merge"``...; scikit-learn scorer names such as ``"f1"`` mean them too), with
      :math:`\bar D = \frac1R \sum_r g(T^a_r) - g(T^b_r)` the mean over repeats of the
      difference of the metric :math:`g` of the pooled counts:

      ``"paired_delta"`` (frame): every sample's influence
      :math:`\phi_s = \frac1R \sum_r \nabla g(T^a_r) \cdot t^a_{rs} - \nabla g(T^b_r) \cdot
      t^b_{rs}` (the gradient by central differences, :math:`t_{rs}` the sample's own tp,
      fp, fn, tn) and :math:`\widehat{Var}(\bar D) = \sum_g \frac{n_g}{n_g - 1}
      \sum_{s \in g} (\phi_s - \bar\phi_g)^2` over the true classes :math:`g` (a multilabel
      frame: one stratum); :math:`z = \bar D / \widehat{se}`, normal p-value and interval.
      ``"fold_jackknife"`` (cube): per repeat the delete-one-fold jackknife
      :math:`V_r = \frac{k-1}{k} \sum_j (D_{r,-j} - \bar D_{r,\cdot})^2`;
      :math:`\widehat{Var}(\bar D) = \max(\bar V - (1 - \frac1R) S^2_D, \bar V / R)`
      (:math:`S^2_D` the variance of the repeats' :math:`D_r`), t on Satterthwaite's df in
      :math:`[k - 1, R(k - 1)]`. ``"delong"`` (AUC_merge): DeLong's paired test from the
      placements of :func:`cvframe.scores.ranking.delong_paired_arrays` (one class, one
      repeat: ``pROC::roc.test(paired=TRUE, method="delong")``); class averages and
      repeats enter each sample's influence as above. ``"mcnemar"`` (pooled accuracy of one
      CV run): the exact binomial test of the discordant pairs ``p_value``
      (``p_value_chi2`` and ``statistic``: the chi-square with continuity correction
      :math:`(|b-c|-1)^2/(b+c)`); interval: Wald interval of the paired difference.
      On request: ``"bootstrap"`` resamples the samples within strata fold (of the first
      repeat) x true class, the same draw for both models and every repeat
      (:math:`p = (1 + \#\{|D^* - \hat D| \ge |\hat D|\})/(B + 1)`, percentile interval);
      ``"permutation"`` swaps the two models' predictions of each sample with probability
      1/2 (:math:`p = (1 + \#\{|D^*| \ge |\hat D|\})/(B+1)`, no interval). Both are seeded
      (``random_state``, 0 by default): the same call gives the same p-value.
    - ``"friedman"``, across a ``dataset`` dim (Demšar 2006): one score per model and data
      set (the metric, mean over repeats), ranked per data set (1 = best);
      :math:`\chi^2_F = \frac{12N}{k(k+1)}\left[\sum_j R_j^2 - \frac{k(k+1)^2}{4}\right]`
      (divided by the tie correction, as :func:`scipy.stats.friedmanchisquare`) and
      Iman-Davenport's :math:`F_F`; post-hoc Nemenyi for all pairs, Holm against a
      ``baseline``; the critical difference :math:`CD = q_{level} \sqrt{k(k+1)/(6N)}`.
      Lower-is-better metrics are refused.
    - a metric of every class at once (an ``over_classes`` formula, e.g. Matthews
      correlation) is one value per fold or pooled run, tested as above; on a binary frame
      its negative class counts too.

    Parameters
    ----------
    data : xarray.Dataset or pandas.DataFrame
        The counts cube with a ``dim`` dimension, or the predictions frame with a ``dim``
        column (one row per model and tested sample).
    metric : str, default "f_tp_fp"
        Any name :func:`cvframe.metrics.resolve` takes whose variant has a paired test: one
        of :data:`FOLD_METRICS`, :data:`MULTILABEL_METRICS`, :data:`POOLED_METRICS`, or a
        score metric's fold mean such as ``"auc"``/``"auc_avg"`` (frame and
        ``test="friedman"`` only). A bare name is the per-fold metric.
    baseline : label, optional
        The ``dim`` entry every other one is compared with; None compares all pairs.
    dim : str, default "model"
        The dimension (or frame column) holding the compared models.
    test : str, default "auto"
        One of :data:`TESTS`.
    level : float, default 0.95
        Confidence level of the intervals; ``significant`` is ``p_value < 1 - level``.
    n_resamples : int, default 2000
        Resamples of ``"bootstrap"`` and ``"permutation"`` (100 to 1,000,000).
    random_state : int, optional
        Seed of the resampling tests (written to attrs); None is the fixed default seed 0,
        so the same call gives the same p-value. The other tests draw nothing.
    rope : float, default 0.01
        Half-width of the region of practical equivalence (``"bayesian"``).
    beta : float, default 1
        Weight of recall in F.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default "warn"
        Value of per-fold metrics where they are undefined (see :func:`reduce.aggregate`).
    average : {"macro", "micro", "weighted", None}, default "macro"
        Data with more than one class (multiclass or multilabel): a per-class metric
        (F, precision, recall, specificity, their pooled forms, AUC_merge) is averaged over
        the classes before the models are compared, so there is one comparison per pair of
        models, not one per class (``attrs["average"]`` says which average). None keeps
        the classes (a ``class`` dim; its p-values are Holm-adjusted over every (contrast,
        class) test, the unadjusted ones in ``p_value_raw``) — fold tests only; the
        resampling tests take ``pos_label=`` for one class.
        Accuracy counts every sample once and has no class average. Binary data: ignored.
    pos_label : label, optional
        Positive class of the frame (binary default as in ``df.cv.counts()``); on a
        multiclass frame, the resampling tests compare that class against the rest.
    y_true, y_pred, score, fold, repeat, sample : str
        Column names of the predictions frame; ``sample`` pairs a sample's rows across
        repeats (needed with several repeats by the resampling tests).
    alpha : float, optional
        Deprecated: ``level = 1 - alpha``; warns with a :class:`FutureWarning`.

    Returns
    -------
    xarray.Dataset
        Over ``contrast`` (labels ``"a - b"``, with coordinates ``dim`` and ``baseline``)
        and every kept dim (``class``, ``dataset``, ...): ``difference`` (per repeat, or per
        data set for Friedman), ``mean``, ``low``, ``high``, ``effect_size``,
        ``statistic``, ``p_value``, ``significant`` (and ``p_value_raw`` per class) and the
        test's own variables. ``attrs``: ``test``, ``chosen_by`` (``"auto"`` or
        ``"user"``), ``reason``, ``metric``, ``level``, ``assumes``, ``reference``,
        ``interval``, ``effect_size``, and where they apply ``n_test``/``n_train``,
        ``n_resamples``, ``random_state``, ``correction``.

    Raises
    ------
    ValueError
        Unknown ``metric``/``test``/``average``, ``baseline`` not in ``dim``, NaN or
        infinite scores (naming the column and rows), an unpaired design
        (models tested on different folds: fold sizes, supports or sample ids differ), a
        design the test cannot use (5x2cv without 5 x 2 folds, McNemar on several repeats,
        Friedman without two data sets: folds are not blocks), AUC_merge on a cube, a cube
        without a ``dim`` dimension, ``level`` outside (0, 1), ``test="t"``.
    TypeError
        A ``random_state`` that is not an integer, a ``baseline`` that is not one label.

    References
    ----------
    Nadeau & Bengio (2003); Bouckaert & Frank (2004); Dietterich (1998); Alpaydin (1999);
    McNemar (1947); DeLong, DeLong & Clarke-Pearson (1988); Efron & Stein (1981);
    Satterthwaite (1946); Efron & Tibshirani (1993); Demšar (2006); Benavoli et al. (2017).

    Examples
    --------
    >>> import numpy as np, pandas as pd, xarray as xr, cvframe
    >>> from cvframe.comparison import compare
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200); fold = np.arange(200) % 10
    >>> cubes = [cvframe.from_predictions(y, np.where(rng.random(200) < acc, y, 1 - y), fold)
    ...          for acc in (0.7, 0.9)]
    >>> ds = xr.concat(cubes, dim=pd.Index(["weak", "strong"], name="model"))
    >>> res = compare(ds, "f", baseline="weak")
    >>> res.attrs["test"], res.attrs["chosen_by"], res["contrast"].values.tolist()
    ('corrected_t', 'auto', ['strong - weak'])
    >>> bool(res["mean"].item() > 0), bool(res["p_value"].item() < 0.05)
    (True, True)
    >>> compare(ds, baseline="weak").attrs["test"]  # the pooled F_tp,fp of the cube
    'fold_jackknife'
    """
    level = quantiles.level(level, alpha=alpha)
    random_state = _checks.integer(  # None: the fixed default seed, as interval() has
        "random_state",
        0 if random_state is None else random_state,
        low=0,
        fix="Pass a non-negative integer seed such as 0, or None (the default seed 0).",
    )
    _checks.zero_division(zero_division)
    name, variant, average = _resolve(metric, average)
    test = _checks.choice("test", test, TESTS)
    if isinstance(baseline, (list, tuple, set, dict, np.ndarray, pd.Series, xr.DataArray)):
        raise TypeError(
            f"baseline={few(np.ravel(list(baseline)))} is a {type(baseline).__name__}; pass "
            "one label: the model every other one is compared with (None compares all pairs)."
        )
    if not isinstance(dim, str):
        raise TypeError(f"dim={dim!r} must be the name of the models' dimension, e.g. 'model'.")
    if dim in (FOLD, CLASS, REPEAT):
        raise ValueError(
            f"dim={dim!r} names the cube's own {dim!r} dimension; pass the dimension that holds "
            "the compared models (e.g. dim='model')."
        )
    n_resamples = _checks.integer(
        "n_resamples", n_resamples, low=100, high=10**6, fix="2000 is usually enough."
    )
    cols = {"y_true": y_true, "y_pred": y_pred, "score": score, "fold": fold}
    req = Request(
        metric=metric, test=test, baseline=None if baseline is None else _labels.plain(baseline),
        dim=dim, level=level, n_resamples=n_resamples, random_state=random_state,
        rope=_checks.real("rope", rope, 0), beta=_checks.beta(beta), zero_division=zero_division,
        average=_checks.choice("average", average, metrics.AVERAGES), pos_label=pos_label,
        name=name, variant=variant, cols=cols | {"repeat": repeat, "sample": sample},
        data=data_in_memory(data),
    )  # fmt: skip
    reason = ""
    if req.test == "auto":
        test, reason = choose(req)
        req = replace(req, test=test)
    elif req.test == "t":
        raise ValueError(UNCORRECTED_T)
    check_multilabel(req)
    check_fits(req)
    spec = REGISTRY[req.test]
    out = result(spec.run(req), spec, req)
    out.attrs["chosen_by"] = "auto" if reason else "user"
    out.attrs["reason"] = reason or f"test={req.test!r} was asked for"
    return adjust_classes(out)


def _resolve(metric: Any, average: Any) -> tuple[str, str, Any]:
    """The registry metric, its variant (a bare name is the per-fold metric, its fold mean)
    and the class average (a scorer name's suffix, ``"f1_macro"``, gives it), refused where
    no paired test fits the variant."""
    r = metrics.resolve(metric)
    entry, variant = r.entry, r.variant or "avg"
    if variant not in entry.tests:
        offer = [f"{metrics.spelled(r.metric, v)!r} ({t})" for v, t in entry.tests.items()]
        raise ValueError(
            f"metric={metric!r} asks for {metrics.display(r.metric, variant)}, which no paired "
            f"test of compare fits; pass {' or '.join(offer) or 'another metric'}."
        )
    return r.metric, variant, r.average or average
