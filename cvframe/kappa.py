r"""Confusion matrices and Cohen's kappa: pooled or per fold, its chance matrix and its bands.

Read from the ``confusion`` variable of single-label cubes; a fold average of kappa is the
one fold mean (:func:`cvframe.reduce.fold_mean`) over the non-empty matrices.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from . import formulas
from ._core import checks as _checks
from ._core.docs import doc
from ._core.types import Dims, KappaFoldMethod, ZeroDivision
from .errors import CountsError, few
from .reduce import Undefined, fold_mean, warn
from .schema import CONFUSION, PRED, TRUE, check_structure, confusion_of, provenance

__all__ = ["KAPPA_BANDS", "confusion", "kappa", "kappa_band", "kappa_expected"]


def _confusion(
    ds: xr.Dataset, dim: Dims, fill: bool = True
) -> tuple[xr.DataArray, tuple[str, ...]]:
    """The ``confusion`` variable (all-NaN padding matrices as 0 when ``fill``) and ``dim``."""
    if not isinstance(ds, xr.Dataset):
        check_structure(ds)
    if CONFUSION not in ds.data_vars:
        task = ds.attrs.get("task", "unknown")
        raise CountsError(
            f"ds has no {CONFUSION!r} variable (task={task!r}); confusion matrices and kappa "
            "exist only for single-label data. Build the cube with cvframe.from_predictions "
            "or cvframe.from_confusion from single-label y_true/y_pred (multilabel cubes have "
            "no confusion matrix)."
        )
    conf = confusion_of(ds)
    dims = _checks.dims(conf, dim)
    bad = [d for d in dims if d in (TRUE, PRED)]
    if bad:
        raise ValueError(
            f"dim={dim!r} includes {bad}; the confusion matrix keeps its "
            f"{TRUE!r} and {PRED!r} dims (sum them yourself for marginals)."
        )
    return (conf.fillna(0) if fill and conf.dtype.kind == "f" else conf), dims


@doc
def confusion(ds: xr.Dataset, dim: Dims = "fold") -> xr.DataArray:
    r"""The confusion matrix (rows ``true``, columns ``pred``) summed over ``dim``.

    .. math:: N_{jk} = \sum_i N^{(i)}_{jk}

    Parameters
    ----------
    <<ds>>
        It must carry the ``confusion`` variable (single-label data).
    dim : str, sequence of str or None, default "fold"
        The dims to sum over; ``None`` keeps every fold. ``true`` and ``pred`` are kept.

    Returns
    -------
    xarray.DataArray
        int64 over ``(..., true, pred)``.

    Raises
    ------
    CountsError
        When ``ds`` has no ``confusion`` variable (e.g. a multilabel cube).

    Examples
    --------
    >>> import cvframe
    >>> cvframe.datasets.slides_confusion().cv.confusion().values
    array([[88, 10,  2],
           [14, 40,  6],
           [18, 10, 12]])
    """
    conf, dims = _confusion(ds, dim, fill=False)
    return provenance(conf.sum(dims) if dims else conf.copy(), CONFUSION, dims)


def _kappa(conf: xr.DataArray, fill: float) -> tuple[xr.DataArray, xr.DataArray]:
    """Cohen's kappa of every matrix in ``conf``, from integer sums (exact up to the divide).

    kappa = (n·trace − Σ_k r_k c_k) / (n² − Σ_k r_k c_k), the same as (p_o − p_e)/(1 − p_e).
    """
    t = np.asarray(conf[TRUE].values) if TRUE in conf.coords else np.arange(conf.sizes[TRUE])
    p = np.asarray(conf[PRED].values) if PRED in conf.coords else np.arange(conf.sizes[PRED])
    eye = xr.DataArray((t[:, None] == p[None, :]).astype("float64"), dims=(TRUE, PRED))
    x = formulas.as_float(conf)
    n = x.sum((TRUE, PRED))
    trace = (x * eye).sum((TRUE, PRED))
    chance = (x.sum(PRED) * x.sum(TRUE) * eye).sum((TRUE, PRED))
    den = n * n - chance
    return formulas.safe_divide(n * trace - chance, den, fill), den == 0


@doc
def kappa(
    ds: xr.Dataset,
    fold_method: KappaFoldMethod = "tp_fp",
    *,
    dim: Dims = "fold",
    zero_division: ZeroDivision = "warn",
) -> xr.DataArray:
    r"""Cohen's kappa: agreement between truth and prediction beyond chance.

    From a confusion matrix :math:`N` with :math:`n` samples, row sums :math:`r_k` and column
    sums :math:`c_k`:

    .. math:: p_o = \frac{\sum_k N_{kk}}{n},\quad p_e = \frac{\sum_k r_k c_k}{n^2},\qquad
        \kappa = \frac{p_o - p_e}{1 - p_e}

    Parameters
    ----------
    <<ds>>
        It must carry the ``confusion`` variable (single-label data).
    fold_method : {"tp_fp", "avg", None}, default "tp_fp"
        ``"tp_fp"``: kappa of the confusion matrix summed over ``dim`` (pooled);
        ``"avg"``: mean over ``dim`` of per-fold kappa; ``None``: one kappa per fold.
    <<dim>>
    <<zero_division>>
        Kappa is undefined when :math:`p_e = 1` (all samples of one class, all predicted as
        it, so :math:`p_o = 1` too) or for an empty matrix.

    Returns
    -------
    xarray.DataArray
        float64 without ``true``, ``pred`` and (unless ``fold_method=None``) ``dim``.

    Notes
    -----
    Kappa is symmetric in truth and prediction and at most 1; 0 means chance agreement.

    See Also
    --------
    sklearn.metrics.cohen_kappa_score

    References
    ----------
    J. Cohen, "A coefficient of agreement for nominal scales", Educational and Psychological
    Measurement 20(1), 1960.
    <<slides>>

    Examples
    --------
    >>> import cvframe
    >>> round(cvframe.datasets.slides_confusion().cv.kappa().item(), 3)
    0.492
    """
    fold_method = _checks.choice("fold_method", fold_method, ["tp_fp", "avg", None])
    fill = _checks.zero_division(zero_division)
    conf, dims = _confusion(ds, dim)
    val, undefined = _kappa(conf.sum(dims) if fold_method == "tp_fp" else conf, fill)
    what, action = "kappa (p_e = 1 or no samples)", f"set to {fill}"
    items: list[Undefined] = [(undefined, what, action, None)]
    if fold_method == "avg":
        real = conf.sum((TRUE, PRED)) > 0  # an empty matrix is not a fold
        items = [(undefined & real, what, action, real)]
        val, none = fold_mean(val, real, dims, fill)
        items.append((none, "the fold mean (no folds to average)", action, None))
    warn(items, zero_division)
    red = () if fold_method is None else dims
    fm = "none" if fold_method is None else fold_method
    return provenance(val, "kappa", red, fold_method=fm, zero_division=zero_division)


#: The strength-of-agreement bands of kappa: (upper limit, label), the last one open.
KAPPA_BANDS = (
    (0.20, "Poor"),
    (0.40, "Fair"),
    (0.60, "Moderate"),
    (0.80, "Good"),
    (1.00, "Very good"),
)


@doc
def kappa_expected(ds: xr.Dataset, dim: Dims = "fold") -> xr.DataArray:
    r"""The confusion matrix a chance classifier with the same marginals would produce.

    Kappa compares the agreement of a classifier with that of a *random* classifier that
    predicts each class as often as the real one did, independently of the truth. From the
    confusion matrix :math:`N` (summed over ``dim``) with row sums :math:`r_j`, column sums
    :math:`c_k` and :math:`n` samples:

    .. math:: E_{jk} = \frac{r_j\,c_k}{n} = (\text{outer}(r, c) / n)_{jk},\qquad
        \kappa = \frac{\operatorname{tr} N - \operatorname{tr} E}{n - \operatorname{tr} E}

    :math:`\operatorname{tr} E` is the number of agreements expected by chance,
    :math:`\operatorname{tr} N - \operatorname{tr} E` the extra successes and
    :math:`n - \operatorname{tr} E` the largest possible extra successes.

    Parameters
    ----------
    <<ds>>
        It must carry the ``confusion`` variable (single-label data).
    dim : str, sequence of str or None, default "fold"
        The dims the confusion matrix is summed over first; ``None`` gives one chance
        matrix per fold. ``true`` and ``pred`` are kept.

    Returns
    -------
    xarray.DataArray
        float64 over ``(..., true, pred)``: expected counts (an empty matrix, :math:`n = 0`,
        has expected counts 0). Attrs ``method="kappa_expected"`` and ``reduced_dims``.

    Raises
    ------
    CountsError
        When ``ds`` has no ``confusion`` variable (e.g. a multilabel cube).

    See Also
    --------
    kappa, confusion, kappa_band

    References
    ----------
    J. Cohen, "A coefficient of agreement for nominal scales", Educational and Psychological
    Measurement 20(1), 1960.
    <<slides>>

    Examples
    --------
    The slides' random classifier: 60 + 18 + 4 = 82 chance agreements, 140 - 82 = 58 extra
    successes out of at most 200 - 82 = 118, so kappa = 58/118.

    >>> import cvframe
    >>> ds = cvframe.datasets.slides_confusion()
    >>> e = ds.cv.kappa_expected()
    >>> e.values
    array([[60., 30., 10.],
           [36., 18.,  6.],
           [24., 12.,  4.]])
    >>> float(e.sum()), float(e.values.trace())
    (200.0, 82.0)
    """
    conf, dims = _confusion(ds, dim)
    x = formulas.as_float(conf.sum(dims) if dims else conf)
    rows, cols = x.sum(PRED), x.sum(TRUE)
    out = formulas.safe_divide(rows * cols, x.sum((TRUE, PRED)), 0.0)
    out = out.transpose(*x.dims)
    return provenance(out, "kappa_expected", dims)


def _not_text(given: Any, raw: Any) -> None:
    """Refuse text (a str, bytes, or an array holding them) and None as kappa values: numpy
    would read ``"0.5"`` as 0.5 and None as NaN, and the band would hide the mistake."""
    if raw is None:
        raise TypeError(
            "kappa_value=None is not a kappa value; pass a number (float('nan') for an "
            "undefined kappa), an array of numbers or a DataArray (e.g. ds.cv.kappa())."
        )
    arr = np.asarray(raw) if not isinstance(raw, (str, bytes)) else None
    texts: list[Any]
    if arr is None:
        texts = [raw]
    elif arr.dtype.kind in "USO":
        texts = [v for v in arr.ravel().tolist() if isinstance(v, (str, bytes))]
    else:
        texts = []
    if texts:
        shown = f"a DataArray of {given.dtype}" if isinstance(given, xr.DataArray) else repr(given)
        raise TypeError(
            f"kappa_value={shown} is text ({few(texts)}), not a number; kappa_band reads "
            "numbers: convert it first (float(x), or pd.to_numeric for a column)."
        )


@doc
def kappa_band(kappa_value: Any) -> Any:
    r"""The strength of agreement a kappa value stands for (Poor ... Very good).

    ==================  =====================
    kappa               strength of agreement
    ==================  =====================
    :math:`\le 0.20`    Poor
    0.20 -- 0.40        Fair
    0.40 -- 0.60        Moderate
    0.60 -- 0.80        Good
    :math:`> 0.80`      Very good
    ==================  =====================

    Each band includes its upper limit: the slides' table reads "< 0.20, 0.21 -- 0.40, ...,
    0.81 -- 1.00" on two decimals, so 0.20 is Poor, 0.40 Fair, 0.80 Good and any value above
    0.80 Very good. Negative kappa (worse than chance) is Poor; NaN is ``"undefined"``.

    Parameters
    ----------
    kappa_value : float, array-like or xarray.DataArray
        Kappa value(s), each in [-1, 1] or NaN.

    Returns
    -------
    str, numpy.ndarray or xarray.DataArray
        The label(s): a ``str`` for a scalar, an object array of ``str`` for an array, and a
        DataArray with the same dims and coords (``attrs["method"] = "kappa_band"``) for a
        DataArray.

    Raises
    ------
    ValueError
        When a value lies outside [-1, 1] (kappa never does).
    TypeError
        When ``kappa_value`` is not numeric: text (``"0.5"``, an array of strings) is refused
        rather than read as a number, and so is None.

    References
    ----------
    D. G. Altman, *Practical Statistics for Medical Research*, Chapman & Hall, 1991,
    Table 14.8.
    <<slides>>

    Examples
    --------
    >>> import cvframe
    >>> from cvframe.kappa import kappa_band
    >>> kappa_band(58 / 118)
    'Moderate'
    >>> kappa_band([0.0, 0.2, 0.21, 0.8, 0.81, float("nan")]).tolist()
    ['Poor', 'Poor', 'Fair', 'Good', 'Very good', 'undefined']
    >>> kappa_band(cvframe.datasets.slides_confusion().cv.kappa()).item()
    'Moderate'
    """
    is_da = isinstance(kappa_value, xr.DataArray)
    raw = kappa_value.values if is_da else kappa_value
    _not_text(kappa_value, raw)
    try:
        values = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"kappa_value={kappa_value!r} must be a number, an array of numbers or a "
            "DataArray (e.g. ds.cv.kappa())."
        ) from None
    if isinstance(raw, (bool, np.bool_)) or np.asarray(raw).dtype.kind == "b":
        raise TypeError(f"kappa_value={kappa_value!r} must be numeric, not boolean.")
    bad = ~np.isnan(values) & ((values < -1.0 - 1e-12) | (values > 1.0 + 1e-12))
    if bad.any():
        raise ValueError(
            f"kappa_value has {int(bad.sum())} value(s) outside [-1, 1]: "
            f"{few(np.unique(values[bad]).tolist())}; Cohen's kappa lies in [-1, 1]."
        )
    limits = np.asarray([u for u, _ in KAPPA_BANDS[:-1]])
    idx = np.searchsorted(limits, values, side="left")  # kappa <= limit: that band
    idx = np.where(np.isnan(values), len(KAPPA_BANDS), idx)
    labels = np.asarray([lab for _, lab in KAPPA_BANDS] + ["undefined"], dtype=object)[idx]
    if is_da:
        out = xr.DataArray(labels, dims=kappa_value.dims, coords=kappa_value.coords)
        return provenance(out, "kappa_band")
    if values.ndim == 0:
        return str(np.asarray(labels, dtype=object).reshape(()).item())
    return np.asarray(labels, dtype=object).reshape(values.shape)
