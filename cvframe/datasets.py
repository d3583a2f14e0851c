"""Small named example cubes, shared by doctests, tests, docs and the demo.

Folds are numbered by the ``fold`` coordinate, 0..k-1, as in every cube; the paper numbers
the folds of its Tables 1 and 2 from 1 to 4, so the paper's fold i is ``fold=i-1`` here.

>>> import cvframe
>>> sorted(cvframe.datasets.NAMES)
['basili_confusion', 'slides_confusion', 'table1', 'table2']
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from .build import from_confusion, from_counts

__all__ = ["NAMES", "basili_confusion", "load", "slides_confusion", "table1", "table2"]


def _paper_table(
    negatives: list[int], positives: list[int], tp: list[int], fp: list[int], source: str
) -> xr.Dataset:
    neg, pos, tp_, fp_ = (np.asarray(a, dtype=np.int64) for a in (negatives, positives, tp, fp))
    ds = from_counts(
        {"tp": tp_, "fp": fp_, "fn": pos - tp_, "tn": neg - fp_}, task="binary", pos_label=1
    )
    ds.attrs.update(stratified="yes", source=f"Forman & Scholz 2010, {source}")
    return ds


def _confusion(matrix: list[list[int]], labels: list[str], source: str) -> xr.Dataset:
    ds = from_confusion(matrix, labels)
    ds.attrs["source"] = source
    return ds


def table1() -> xr.Dataset:
    """Forman & Scholz (2010), Table 1: 4-fold stratified CV, 1% positives out of 1504.

    F_tp,fp = 28/48 = 0.583, F_avg = 0.692, F_pr,re = 0.734; ``fold=2`` (the paper's third
    fold) has 13 false positives.

    >>> table1().tp.values.ravel().tolist(), table1().fp.values.ravel().tolist()
    ([3, 4, 4, 3], [0, 1, 13, 5])
    >>> table1().fold.values.tolist()
    [0, 1, 2, 3]
    """
    return _paper_table([373, 372, 372, 372], [3, 4, 4, 4], [3, 4, 4, 3], [0, 1, 13, 5], "Table 1")


def table2() -> xr.Dataset:
    """Forman & Scholz (2010), Table 2: ``fold=1`` predicts no positives (undefined precision).

    F_tp,fp = 0.769, F_avg = 0.667, F_pr,re = 0.682, ~F_avg = 0.889, ~F_pr,re = 0.909.

    >>> table2().tp.values.ravel().tolist()
    [2, 0, 4, 4]
    >>> int(table2().tp.sel(fold=1).item() + table2().fp.sel(fold=1).item())
    0
    """
    return _paper_table([372, 372, 372, 372], [4, 4, 4, 4], [2, 0, 4, 4], [0, 0, 0, 0], "Table 2")


def slides_confusion() -> xr.Dataset:
    """The 3-class confusion matrix of the evaluation-of-learning slides (one fold).

    Rows are true A, B, C; columns predicted: [[88, 10, 2], [14, 40, 6], [18, 10, 12]].
    Macro P/R/F1 = 0.67/0.62/0.62, micro = 0.70, weighted = 0.69/0.70/0.68, kappa = 0.492.

    >>> int(slides_confusion().confusion.sum())
    200
    """
    source = "evaluation-of-learning slides, multiclass averaging example"
    return _confusion([[88, 10, 2], [14, 40, 6], [18, 10, 12]], ["A", "B", "C"], source)


def basili_confusion() -> xr.Dataset:
    """The 3-class confusion matrix of the Basili & Filice slides: accuracy 125/150 = 0.8333.

    >>> int(basili_confusion().tp.sum())
    125
    """
    matrix = [[38, 12, 0], [5, 43, 2], [6, 0, 44]]
    return _confusion(matrix, ["a", "b", "c"], "Basili & Filice, performance evaluation slides")


NAMES = {
    "table1": table1,
    "table2": table2,
    "slides_confusion": slides_confusion,
    "basili_confusion": basili_confusion,
}


def load(name: str) -> xr.Dataset:
    """The example cube called ``name`` (one of :data:`NAMES`).

    >>> load("table1").sizes["fold"]
    4
    """
    try:
        return NAMES[name]()
    except KeyError:
        raise ValueError(
            f"name={name!r} is not an example cube; expected one of {sorted(NAMES)}."
        ) from None
