"""How stable a search's choice is: :func:`selection_stability`, the parameters every outer
fold of a nested cross-validation chose (and how often), or the candidates one fitted search's
bootstrap samples choose (its correction of the winner's curse)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..errors import few
from ..runner import param_label
from ..schema import FOLD, REPEAT
from ._frame import param_labels

__all__ = ["selection_stability"]


def _choices(results: Any, n_splits: int | None) -> list[dict[str, Any]]:
    """(model, repeat, fold, params) of every outer split, from any of the accepted inputs."""
    import json

    if isinstance(results, pd.DataFrame):
        raw = results.attrs.get("best_params")
        if raw is None:
            raise ValueError(
                "results has no attrs['best_params']: it is not the frame of "
                "cvframe.cross_validate(search, ...) with a search estimator (PooledSearchCV, "
                "GridSearchCV...). Pass that frame, the fitted searches, or scikit-learn's "
                "cross_validate(search, ..., return_estimator=True)."
            )
        return list(json.loads(raw) if isinstance(raw, str) else raw)
    if isinstance(results, Mapping):
        if "estimator" not in results:
            raise ValueError(
                f"results is a dict with keys {few(list(results))} but no 'estimator'; pass "
                "scikit-learn's cross_validate(search, ..., return_estimator=True)."
            )
        results = results["estimator"]
    searches = list(results)
    bad = [
        i for i, s in enumerate(searches) if not isinstance(getattr(s, "best_params_", None), dict)
    ]
    if bad or not searches:
        raise TypeError(
            f"results holds {len(bad)} entries without best_params_ (at {few(bad)}); pass "
            "fitted searches (PooledSearchCV, GridSearchCV...), one per outer split."
        )
    k = len(searches) if n_splits is None else int(n_splits)
    return [
        {"model": None, "repeat": i // k, "fold": i % k, "params": dict(s.best_params_)}
        for i, s in enumerate(searches)
    ]


def _resampled(search: Any) -> pd.DataFrame:
    """The bootstrap wins of one fitted search (its ``_selection``): one row per candidate
    (a threshold search: per threshold that won at least once)."""
    sel = search._selection
    n = int(sel.summary.get("n_bootstraps", 0)) and len(sel.chosen)
    if hasattr(search, "best_threshold_"):  # the thresholds chosen on the bootstrap samples
        values, counts = np.unique(sel.chosen, return_counts=True)
        table = pd.DataFrame({"choice": values, "count": counts})
        table["chosen"] = np.isclose(table["choice"], search.best_threshold_)
    else:
        params = search.cv_results_["params"]
        table = pd.DataFrame({"choice": param_labels(params)})
        for key in dict.fromkeys(k for p in params for k in p):
            table[f"param_{key}"] = [p.get(key) for p in params]
        table["count"] = np.rint(np.nan_to_num(sel.wins) * n).astype(np.int64)
        table["chosen"] = np.arange(len(params)) == search.best_index_
    table["share"] = table["count"] / n if n else np.nan
    top = int(table["count"].to_numpy().argmax()) if n else 0
    table["most_frequent"] = np.arange(len(table)) == top if n else False
    table.attrs.update(
        most_frequent=table["choice"].iloc[top] if n else None,
        most_frequent_share=float(table["share"].iloc[top]) if n else np.nan,
        chosen_share=float(table.loc[table["chosen"], "share"].sum()) if n else np.nan,
        n_bootstraps=n,
    )
    return table


def selection_stability(results: Any, *, n_splits: int | None = None) -> pd.DataFrame:
    """Which parameters each outer fold of a nested cross-validation chose, and how often;
    or, for one fitted search, how often each candidate wins under resampling.

    In nested cross-validation the search runs again on every outer training set and may
    choose differently each time; when the choice changes from fold to fold, the outer
    score measures the tuning procedure, not one configuration, and "the best parameters"
    are not a finding. For every model, the share of the outer folds that chose each
    candidate:

    .. math:: \\text{share}(c) = \\frac{\\#\\{\\text{outer folds choosing } c\\}}
              {\\#\\{\\text{outer folds}\\}}

    For one fitted :class:`PooledSearchCV` (or :class:`PooledThresholdClassifierCV`), the
    same question without an outer loop: on each bootstrap sample of its out-of-fold
    predictions (those of its correction of the winner's curse, ``best_score_corrected_``)
    the candidate best on the in-bag samples wins; the share of bootstrap samples each
    candidate (threshold) wins. A share of the chosen candidate far below 1 says the choice
    is a coin toss among near-equal candidates.

    Parameters
    ----------
    results : pandas.DataFrame, dict, sequence of fitted searches, or one fitted search
        The frame of ``cvframe.cross_validate(search, X, y, ...)`` (``attrs["best_params"]``,
        one entry per model and outer split), scikit-learn's
        ``cross_validate(search, ..., return_estimator=True)`` dict, or the fitted searches
        themselves (anything with ``best_params_``), one per outer split in split order.
        One fitted PooledSearchCV or PooledThresholdClassifierCV: its bootstrap wins (one
        row per candidate, or per threshold that won; columns ``choice``,
        ``param_<name>``, ``count``, ``share``, ``chosen``, ``most_frequent``; attrs
        ``chosen_share`` and ``n_bootstraps`` too): its ``selection_stability_``.
    n_splits : int, optional
        Outer folds per repeat, for searches given without a frame (default: all one
        repeat).

    Returns
    -------
    pandas.DataFrame
        One row per (``model``, ``repeat``, ``fold``) (``model`` only when the frame has
        several), sorted so: ``choice`` (the candidate's label, as
        :func:`cvframe.runner.param_label` writes it), one ``param_<name>`` column per
        parameter, ``count`` and ``share`` (how many / which share of the model's outer folds
        made the same choice) and ``most_frequent`` (whether it is the model's most frequent
        choice; ties: the first). ``attrs["most_frequent"]`` and
        ``attrs["most_frequent_share"]``: the choice and its share (dicts by model when there
        are several models).

    Raises
    ------
    ValueError
        A frame without ``attrs["best_params"]`` (not a run of a search), a dict without
        ``"estimator"``.
    TypeError
        Entries without ``best_params_``.

    References
    ----------
    G. C. Cawley and N. L. C. Talbot, "On Over-fitting in Model Selection and Subsequent
    Selection Bias in Performance Evaluation", JMLR 11, 2010.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.naive_bayes import GaussianNB
    >>> import cvframe
    >>> from cvframe.search import PooledSearchCV, selection_stability
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> search = PooledSearchCV(GaussianNB(), {"var_smoothing": [1e-9, 1e-2]}, cv=3)
    >>> frame = cvframe.cross_validate(search, X, y, cv=3)
    >>> table = selection_stability(frame)
    >>> table[["fold", "choice", "share"]]
       fold               choice  share
    0     0  var_smoothing=1e-09    1.0
    1     1  var_smoothing=1e-09    1.0
    2     2  var_smoothing=1e-09    1.0
    >>> table.attrs["most_frequent_share"]
    1.0
    """
    if hasattr(results, "_selection"):  # one fitted search: its bootstrap wins
        return _resampled(results)
    picks = _choices(results, n_splits)
    rows = []
    for p in picks:
        row = {"model": p.get("model"), REPEAT: int(p["repeat"]), FOLD: int(p["fold"])}
        row["choice"] = param_label(p["params"])
        row.update({f"param_{k}": v for k, v in p["params"].items()})
        rows.append(row)
    table = pd.DataFrame(rows)
    several = table["model"].nunique(dropna=False) > 1
    by = table["model"].fillna("")
    table["count"] = table.groupby([by, table["choice"]])["choice"].transform("size")
    table["share"] = table["count"] / by.map(by.value_counts())
    top: dict[Any, str] = {}
    for name, part in table.groupby(by, sort=False):
        counts = part["choice"].value_counts(sort=False)
        top[name] = str(counts.idxmax())
    table["most_frequent"] = table["choice"] == by.map(top)
    share = {m: float(table.loc[(by == m) & table.most_frequent, "share"].iloc[0]) for m in top}
    attrs: dict[str, Any] = {"most_frequent": top, "most_frequent_share": share}
    if not several:
        table = table.drop(columns="model")
        attrs = {k: next(iter(v.values())) for k, v in attrs.items()}
    table.attrs.update(attrs)
    return table.reset_index(drop=True)
