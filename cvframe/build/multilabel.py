"""Multilabel metrics of a predictions frame: the frame's per-sample outcomes summed per fold
(:func:`cvframe.build.predictions.frame_cube`, at any ``beta``), then the cube's metrics
(:func:`cvframe.reduce.multilabel_metrics`)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import pandas as pd
import xarray as xr

from .._core.docs import doc
from .._core.types import ZeroDivision
from ..reduce import multilabel
from .predictions import frame_cube

__all__ = ["multilabel_metrics"]


@doc
def multilabel_metrics(
    df: pd.DataFrame,
    fold_method: multilabel.MLFoldMethod = "tp_fp",
    *,
    beta: float = 1.0,
    zero_division: ZeroDivision = "warn",
    labels: Sequence[Hashable] | None = None,
    y_true: str = "y_true",
    y_pred: str = "y_pred",
    fold: str = "fold",
    repeat: str | None = "repeat",
    sample_weight: str | None = None,
    dims: Sequence[str] | None = None,
) -> xr.Dataset:
    r"""Every multilabel metric of a multilabel predictions frame, aggregated over folds.

    The frame's ``y_true_<label>`` / ``y_pred_<label>`` indicator columns (as
    :func:`cvframe.cross_validate` writes them) are counted per fold with the per-sample
    outcomes at ``beta`` (:func:`cvframe.build.counts_from_frame` sums them at
    :math:`\beta = 1`), then scored by :func:`cvframe.reduce.multilabel_metrics`:
    ``f_samples``, ``f_macro``, ``f_micro``, ``jaccard_samples``, ``jaccard_macro``,
    ``jaccard_micro``, ``subset_accuracy``, ``hamming_loss``.

    Parameters
    ----------
    df : pandas.DataFrame or dask.dataframe.DataFrame
        A multilabel predictions frame: ``fold``, optional ``repeat`` and dimension columns,
        one ``y_true_<label>`` and one ``y_pred_<label>`` 0/1 column per label.
    <<ml_fold_method>>
    <<beta>>
        The per-sample F (:math:`F_{\beta}` of each sample's labels) and macro/micro F.
    <<zero_division>>
    labels : sequence, optional
        The labels, in the order of the indicator columns (default: their names).
    y_true, y_pred, fold : str
        Column names (the indicator columns are ``<y_true>_<label>``).
    repeat : str or None, default "repeat"
        Column of the repeat, when the frame has it.
    sample_weight : str, optional
        Column of per-sample weights (every mean becomes a weighted mean).
    dims : sequence of str, optional
        Further columns kept as dims (default: ``model``, ``param``, ``dataset``, ``subset``
        when present).

    Returns
    -------
    xarray.Dataset
        One float64 variable per metric over the kept dims (``fold`` too when
        ``fold_method=None``).

    Raises
    ------
    ValueError
        A frame that is not multilabel (no ``y_true_<label>`` columns) or a bad argument.

    See Also
    --------
    cvframe.reduce.multilabel_metrics : the same on a cube (``ds.cv.multilabel_metrics()``).
    sklearn.metrics.fbeta_score : ``average="samples"``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 1],
    ...                    "y_true_a": [1, 1, 0, 0], "y_true_b": [0, 1, 1, 0],
    ...                    "y_pred_a": [1, 1, 0, 0], "y_pred_b": [1, 1, 0, 0]})
    >>> m = df.cv.multilabel_metrics(beta=2.0, zero_division=1.0)
    >>> round(m.f_samples.item(), 4)  # (5/6 + 1 + 0 + 1) / 4
    0.7083
    """
    if y_true in df.columns:  # a single-label frame (a multilabel one has y_true_<label>)
        raise ValueError(
            f"df is not a multilabel predictions frame: it has a {y_true!r} column; a "
            f"multilabel frame has one {y_true}_<label> and one {y_pred}_<label> 0/1 column per "
            "label. For single-label data use df.cv.counts().cv.macro() / .micro() / .accuracy()."
        )
    cube = frame_cube(
        df, labels, None, y_true=y_true, y_pred=y_pred, fold=fold, repeat=repeat,
        sample_weight=sample_weight, dims=dims, beta=beta,
    )  # fmt: skip
    return multilabel.multilabel_metrics(
        cube, fold_method, "fold", beta=beta, zero_division=zero_division
    )
