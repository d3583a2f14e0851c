"""The tidy frames of the paper's figures that are not of one experiment: a bias study
(:func:`bias_table`), the risk of a fold without positives (:func:`fold_risk_table`) and the
F-measure surface (:func:`f_surface_table`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .. import formulas, metrics
from .._core import checks as _checks
from .._core.checks import choice
from .._core.docs import doc
from ..errors import few
from ._common import METHOD_LABELS

__all__ = ["SURFACE_AXES", "bias_table", "f_surface_table", "fold_risk_table"]

#: The (x, y) columns of :func:`f_surface_table` by kind.
SURFACE_AXES = {"pr": metrics.REGISTRY["f"].components[::-1], "roc": ("fpr", "tpr")}

_YES = {"yes", "true", "1", "stratified", "y", "t"}
_NO = {"no", "false", "0", "unstratified", "n", "f"}


def _as_bool(value: Any, name: str) -> bool:
    """A boolean coordinate value as stored in memory (bool) or in a file ("yes"/"no", 0/1)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, bytes):
        value = value.decode()
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _YES:
            return True
        if text in _NO:
            return False
    elif isinstance(value, (int, np.integer, float, np.floating)) and value in (0, 1):
        return bool(value)
    raise ValueError(
        f"{name} holds {value!r}; expected booleans or 'yes'/'no' (as "
        "cvframe.bias_study and `cvframe simulate --out` write them)."
    )


def bias_table(study: xr.Dataset, y: str = "rel_bias") -> pd.DataFrame:
    """A bias study (:func:`cvframe.bias_study`) as a long frame for plotting.

    ``stratified`` becomes the labels "stratified" / "unstratified" whether the study holds
    booleans (in memory) or "yes"/"no" strings (read back from the file ``cvframe simulate
    --out`` writes); ``estimator`` gets the paper's names (:data:`METHOD_LABELS`).

    Parameters
    ----------
    study : xarray.Dataset
        Dims among ``stratified``, ``prevalence``, ``f``, ``estimator``.
    y : {"rel_bias", "rel_std", "p_undefined"}, default "rel_bias"
        The variable.

    Returns
    -------
    pandas.DataFrame
        One row per grid point: the study's dims as columns, then ``y``.

    Raises
    ------
    ValueError
        ``y`` not a valid name or not a variable of ``study``; a ``stratified`` value that
        is neither a boolean nor "yes"/"no".

    Examples
    --------
    >>> import xarray as xr
    >>> s = xr.Dataset({"rel_bias": ("stratified", [0.1, -0.2])},
    ...                coords={"stratified": ["yes", "no"]})
    >>> bias_table(s)
         stratified  rel_bias
    0    stratified       0.1
    1  unstratified      -0.2
    """
    y = choice("y", y, ["rel_bias", "rel_std", "p_undefined"])
    if not isinstance(study, xr.Dataset) or y not in study.data_vars:
        raise ValueError(
            f"study must be a bias_study Dataset with a {y!r} variable; got "
            f"{list(getattr(study, 'data_vars', []))!r}."
        )
    frame = study[y].to_dataframe().reset_index()
    keep = [c for c in frame.columns if c in study[y].dims or c == y]
    frame = frame[keep]
    if "stratified" in frame.columns:
        frame["stratified"] = [
            "stratified" if _as_bool(v, "study['stratified']") else "unstratified"
            for v in frame["stratified"]
        ]
    if "estimator" in frame.columns:
        frame["estimator"] = frame["estimator"].map(lambda e: METHOD_LABELS.get(e, e))
    return frame


def fold_risk_table(risk: xr.DataArray) -> pd.DataFrame:
    """The risk that unstratified k-fold CV leaves a fold without positives, long, for plotting.

    Parameters
    ----------
    risk : xarray.DataArray
        Probabilities of :func:`cvframe.p_fold_without_positives` over the dim ``n_pos``
        (positives in the data set) and, optionally, ``trials`` (independent splits), with
        those values as coordinates; attrs ``n`` and ``k`` (cases and folds) are kept.

    Returns
    -------
    pandas.DataFrame
        Columns ``positives``, ``trials`` ("1 trial", "1000 trials", ...) and ``p``, one row
        per grid point (the trials in the order given); attrs ``n``, ``k``.

    Raises
    ------
    ValueError
        ``risk`` is not a DataArray over ``n_pos`` (and ``trials``) or holds a value outside
        [0, 1].

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from cvframe import p_fold_without_positives
    >>> pos, trials = np.array([10, 50]), np.array([1, 10])
    >>> p = p_fold_without_positives(pos[:, None], trials=trials[None, :])
    >>> risk = xr.DataArray(p, coords={"n_pos": pos, "trials": trials}, attrs={"n": 1000, "k": 10})
    >>> fold_risk_table(risk).round(3)
       positives     trials      p
    0         10    1 trial  1.000
    1         50    1 trial  0.044
    2         10  10 trials  1.000
    3         50  10 trials  0.364
    """
    dims = set(getattr(risk, "dims", ()))
    if not isinstance(risk, xr.DataArray) or "n_pos" not in dims or dims - {"n_pos", "trials"}:
        raise ValueError(
            "risk must be a DataArray of p_fold_without_positives over the dims 'n_pos' (and "
            f"'trials'), with their values as coordinates; got dims {sorted(map(str, dims))}."
        )
    p = risk.values.astype(float)
    bad = p[~((p >= 0) & (p <= 1))]
    if bad.size:
        raise ValueError(
            f"risk holds values outside [0, 1] ({few(bad)}); pass the probabilities "
            "p_fold_without_positives returns."
        )
    if "trials" not in dims:
        risk = risk.expand_dims(trials=[1])
    frame = risk.transpose("trials", "n_pos").rename("p").to_dataframe().reset_index()
    frame["trials"] = [f"{t} trial" + ("s" if t != 1 else "") for t in frame["trials"]]
    frame = frame.rename(columns={"n_pos": "positives"})[["positives", "trials", "p"]]
    frame.attrs = {k: risk.attrs[k] for k in ("n", "k") if k in risk.attrs}
    return frame


@doc
def f_surface_table(
    kind: str = "roc", prevalence: float = 0.1, beta: float = 1.0, *, resolution: int = 301
) -> pd.DataFrame:
    r"""The F-measure over a grid of precision x recall or FPR x TPR, long, for plotting.

    - ``kind="pr"``: :math:`F_\beta = (1+\beta^2) P R / (\beta^2 P + R)` over recall (x)
      and precision (y) (:func:`cvframe.formulas.f_from_pr`);
    - ``kind="roc"``: F over the false (x) and true (y) positive rate at the prevalence
      :math:`\pi`, with precision :math:`\pi\,TPR / (\pi\,TPR + (1-\pi)FPR)`
      (:func:`cvframe.formulas.f_from_rates`).

    Parameters
    ----------
    kind : {"roc", "pr"}, default "roc"
    prevalence : float in (0, 1), default 0.1
        The share of positives (``kind="roc"`` only).
    beta : float, default 1
    resolution : int, default 301
        Grid points per axis, evenly spaced in [0, 1].

    Returns
    -------
    pandas.DataFrame
        Columns ``recall``, ``precision``, ``f`` (``kind="pr"``) or ``fpr``, ``tpr``, ``f``
        (``kind="roc"``), one row per grid point; attrs ``kind``, ``prevalence``, ``beta``.

    References
    ----------
    <<reference>>
    (There: Figure 1.)

    Examples
    --------
    >>> t = f_surface_table("roc", prevalence=0.5, resolution=3)
    >>> t[(t.fpr == 0.5) & (t.tpr == 1.0)]
       fpr  tpr         f
    7  0.5  1.0  0.8
    """
    kind = choice("kind", kind, tuple(SURFACE_AXES))
    b = _checks.beta(beta)
    pi = _checks.real("prevalence", prevalence, 0.0, 1.0, low_open=True, high_open=True)
    n = _checks.integer("resolution", resolution, low=3)
    grid = np.linspace(0.0, 1.0, n)
    x, y = (a.ravel() for a in np.meshgrid(grid, grid))
    z = formulas.f_from_pr(y, x, b) if kind == "pr" else formulas.f_from_rates(y, x, pi, b)
    xname, yname = SURFACE_AXES[kind]
    frame = pd.DataFrame({xname: x, yname: y, "f": np.asarray(z, dtype=float)})
    frame.attrs = {"kind": kind, "prevalence": pi, "beta": b}
    return frame
