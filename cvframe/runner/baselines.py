"""Checks a run carries with it: dummy baselines on the same folds, and test rows that
duplicate training rows.

``cross_validate(..., baselines=True)`` adds scikit-learn's ``DummyClassifier`` with the
``"prior"`` and ``"stratified"`` strategies as models ``dummy_prior`` and
``dummy_stratified`` (:data:`BASELINES`, also in ``frame.attrs["baselines"]``): a model that
does not beat them has learned nothing from the features. The ``train_duplicate`` column
(:func:`cvframe.runner.twins.train_duplicates`) marks test rows whose feature vector equals a
training row of the same split, exactly or up to a relative 1e-6 per feature: a model tested
on such a row is tested on a sample it has seen (the "twinning" leak), which flatters every
metric.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import few
from ._fit import check_estimator
from .twins import row_hashes, train_duplicates

__all__ = ["BASELINES", "model_name", "row_hashes", "train_duplicates", "with_baselines"]

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
