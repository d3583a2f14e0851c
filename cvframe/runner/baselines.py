"""Checks a run carries with it: dummy baselines on the same folds, and test rows that
duplicate training rows.

``cross_validate(..., baselines=True)`` adds scikit-learn's ``DummyClassifier`` with the
``"prior"`` and ``"stratified"`` strategies as models ``dummy_prior`` and
``dummy_stratified`` (:data:`BASELINES`, also in ``frame.attrs["baselines"]``): a model that
does not beat them has learned nothing from the features. The ``train_duplicate`` column
(:func:`train_duplicates`) marks test rows whose feature vector equals a training row of the
same split: a model tested on such a row is tested on a sample it has seen (the "twinning"
leak), which flatters every metric.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..errors import few
from ._fit import check_estimator

__all__ = ["BASELINES", "model_name", "train_duplicates", "with_baselines"]

#: The model names of the baselines, in the order they are added.
BASELINES = ("dummy_prior", "dummy_stratified")


def model_name(estimator: Any) -> str:
    """The name of a single estimator once it shares the ``model`` column with baselines:
    its class name in lower case, as scikit-learn's ``make_pipeline`` names its steps.

    >>> from sklearn.linear_model import LogisticRegression
    >>> model_name(LogisticRegression())
    'logisticregression'
    """
    return type(estimator).__name__.lower()


def with_baselines(estimator: Any, param_grid: Any, random_state: Any) -> tuple[Any, Any]:
    """``estimator`` as a list of ``(name, model)`` pairs with the two dummy classifiers
    appended, and ``param_grid`` keyed by model name (a single estimator is named by
    :func:`model_name`). A user's model named like a baseline raises."""
    from sklearn.dummy import DummyClassifier

    if isinstance(estimator, Mapping):
        pairs = list(estimator.items())
    elif isinstance(estimator, (list, tuple)):
        pairs = list(estimator)
    else:
        check_estimator(estimator)
        name = model_name(estimator)
        pairs = [(name, estimator)]
        param_grid = None if param_grid is None else {name: param_grid}
    names = [p[0] if isinstance(p, tuple) and len(p) == 2 else None for p in pairs]
    clash = [n for n in names if isinstance(n, str) and n in BASELINES]
    if clash:
        raise ValueError(
            f"estimator has a model named {few(clash)}, a name that baselines=True gives "
            f"to scikit-learn's DummyClassifier ({', '.join(BASELINES)}); rename the model "
            "or pass baselines=False."
        )
    seed = random_state if isinstance(random_state, (int, np.integer)) else 0
    dummies = [
        (BASELINES[0], DummyClassifier(strategy="prior")),
        (BASELINES[1], DummyClassifier(strategy="stratified", random_state=seed)),
    ]
    return pairs + dummies, param_grid


def baseline_scores(name: str | None, scores: Any) -> Any:
    """The ``scores`` argument for model ``name``: a baseline has ``predict_proba`` only, so
    a named method other than it becomes ``predict_proba`` for the baselines."""
    if name in BASELINES and isinstance(scores, str) and scores not in ("auto",):
        return "predict_proba"
    return scores


def row_hashes(X: Any) -> tuple[np.ndarray | None, str]:
    """One 64-bit hash per row of ``X`` (pandas' ``hash_pandas_object``, index ignored), or
    None with the reason when ``X`` is not a dense table (sparse matrices, ragged lists)."""
    if hasattr(X, "toarray") or hasattr(X, "tocsr"):
        return None, "skipped: X is a sparse matrix (its rows are not hashed)"
    try:
        table = (
            X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X).reshape(len(X), -1))
        )
        return pd.util.hash_pandas_object(table, index=False).to_numpy(), "computed"
    except (TypeError, ValueError) as err:
        return None, f"skipped: the rows of X could not be hashed ({type(err).__name__})"


def train_duplicates(
    X: Any, splits: list[tuple[np.ndarray, np.ndarray]], return_train: bool
) -> tuple[np.ndarray | None, str]:
    """The ``train_duplicate`` column of one (model, candidate) block of the frame, and how
    it was made (``"computed"`` or why it was skipped).

    Rows are hashed once and the hashes numbered (``pandas.factorize``); per split the
    training rows' numbers are marked in a boolean table and each test row looks its number
    up: O(n) per split, no sort. Train rows (with
    ``return_train``) are False. Equal rows have equal hashes; two different rows share a
    64-bit hash with probability about ``2**-64`` per pair, which is ignored.

    >>> import numpy as np
    >>> X = np.array([[0, 1], [0, 1], [2, 3], [4, 5]])
    >>> splits = [(np.array([0, 2]), np.array([1, 3]))]
    >>> col, how = train_duplicates(X, splits, False)
    >>> col.tolist(), how
    ([True, False], 'computed')
    """
    h, how = row_hashes(X)
    if h is None:
        return None, how
    codes, uniques = pd.factorize(h)  # equal rows, equal codes 0..u-1
    seen = np.zeros(len(uniques), dtype=bool)
    parts = []
    for tr, te in splits:  # O(n) per split: mark the training rows' codes, look up the test's
        seen[:] = False
        seen[codes[tr]] = True
        parts.append(seen[codes[te]])
    if return_train:
        parts += [np.zeros(tr.size, dtype=bool) for tr, _ in splits]
    return np.concatenate(parts), how
