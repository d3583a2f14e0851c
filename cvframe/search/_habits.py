"""What a search takes the way ``GridSearchCV`` takes it: several scorings at once (a list or
a dict, ranked by the one ``refit`` names), ``refit`` as a scoring's name or a callable, and a
grid over estimators whose candidates score with different methods; and what it refuses, with
the reason (``scoring=None``, a scorer object, a ``refit`` naming a metric that is not scored).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from sklearn.base import clone

from .. import metrics
from ..errors import few
from . import _frame
from ._frame import Scoring

__all__ = [
    "SINGLE",
    "best_index",
    "candidate_method",
    "is_multimetric",
    "refit_key",
    "scorings",
]

#: The key of the one scoring of a single-metric search (``mean_test_score``, ...), as
#: scikit-learn names it.
SINGLE = "score"


def is_multimetric(scoring: Any) -> bool:
    """Whether ``scoring`` asks for several metrics: a list, tuple or set of names, or a dict
    of name -> scoring (scikit-learn's multi-metric evaluation)."""
    return isinstance(scoring, (list, tuple, set, frozenset, Mapping))


def _one(name: Any, given: Any, average: str | None, multilabel: bool) -> Any:
    """One scoring resolved: a callable of the cube as it is, a name in the registry."""
    if given is None:
        raise ValueError(
            f"{name}=None: in GridSearchCV it means the estimator's own score method, which "
            "scores one fold at a time; a pooled search needs a metric name. Pass "
            "'accuracy' (what a classifier's score computes), 'f_tp_fp' (the default) or "
            "another name of cvframe.metrics.REGISTRY."
        )
    score_func = getattr(given, "_score_func", None)
    if callable(given) and score_func is not None:  # a scikit-learn scorer (make_scorer)
        stem = getattr(score_func, "__name__", "").removesuffix("_score")
        hint = ""
        try:
            hint = f" ({stem!r} is the pooled {metrics.resolve(stem).entry.display})"
        except ValueError:
            pass
        raise TypeError(
            f"{name}={given!r} is a scikit-learn scorer: it scores one test fold at a time, "
            f"so it cannot rank by the pooled folds. Pass the metric's name{hint}, or a "
            "callable of the counts cube such as lambda ds: ds.cv.kappa()."
        )
    if callable(given):
        return given
    return _frame.scoring(given, average, multilabel)  # a non-name raises, listing the names


def scorings(scoring: Any, average: str | None, multilabel: bool) -> dict[str, Any]:
    """Every scoring of a search by its key: ``{"score": ...}`` for one scoring; the names of
    a list (``["f1", "roc_auc"]``) or the keys of a dict (``{"f": "f1", "auc": "roc_auc"}``)
    for several. Each value is a :class:`._frame.Scoring` or a callable of the cube."""
    if not is_multimetric(scoring):
        return {SINGLE: _one("scoring", scoring, average, multilabel)}
    if isinstance(scoring, Mapping):
        pairs = list(scoring.items())
        bad = [k for k, _ in pairs if not isinstance(k, str) or not k]
        if bad:
            raise ValueError(
                f"scoring has keys {few(bad)}; the keys of a dict scoring are non-empty names "
                "(they name the cv_results_ columns: mean_test_<key>, ...)."
            )
    else:
        names = list(scoring)
        bad = [s for s in names if not isinstance(s, str)]
        if bad:
            raise ValueError(
                f"scoring is a {type(scoring).__name__} holding {few(bad)}; a list of "
                "scorings holds names ('f1', 'roc_auc'); pass a dict {name: callable} for "
                "callables."
            )
        twice = sorted({s for s in names if names.count(s) > 1})
        if twice:
            raise ValueError(f"scoring names {few(twice)} twice; name every metric once.")
        pairs = [
            (s, s) for s in (sorted(names) if isinstance(scoring, (set, frozenset)) else names)
        ]
    if not pairs:
        raise ValueError(
            "scoring is empty; pass one name ('f_tp_fp'), or several as a list or dict."
        )
    return {key: _one(f"scoring[{key!r}]", value, average, multilabel) for key, value in pairs}


def _names_of(s: Any) -> set[str]:
    """The metric a scoring ranks by, in the spellings a ``refit`` may give."""
    if isinstance(s, Scoring):
        return {s.name, s.metric}
    return set()


def refit_key(refit: Any, resolved: dict[str, Any], multimetric: bool) -> str | None:
    """The key of the scoring that picks ``best_index_`` (None: no best candidate, a
    multi-metric search with ``refit=False``, or a callable ``refit`` that picks it)."""
    if callable(refit):
        return None
    if isinstance(refit, (bool, np.bool_)):
        if not multimetric:
            return SINGLE
        if refit:
            raise ValueError(
                f"refit=True with several scorings ({few(list(resolved))}): name the one that "
                f"picks the best candidate, e.g. refit={next(iter(resolved))!r}, or pass "
                "refit=False (then cv_results_ has every ranking and there is no "
                "best_estimator_), as GridSearchCV asks."
            )
        return None
    if not isinstance(refit, str):
        raise TypeError(
            f"refit={refit!r} must be True, False, the name of a scoring or a callable of "
            "cv_results_ returning the best index (as in GridSearchCV)."
        )
    if refit in resolved:
        return refit
    try:
        wanted = metrics.resolve(refit).metric
    except ValueError:
        wanted = None
    hits = [k for k, s in resolved.items() if wanted is not None and wanted in _names_of(s)]
    if len(hits) == 1:
        return hits[0]
    keys = list(resolved)
    if multimetric:
        raise ValueError(
            f"refit={refit!r} is not one of the scorings {few(keys)}; pass one of those keys "
            "(the scoring that picks the best candidate) or refit=False."
        )
    named = resolved[SINGLE].name if isinstance(resolved[SINGLE], Scoring) else "a callable"
    raise ValueError(
        f"refit={refit!r} names another metric than scoring ({named}); a single-metric search "
        f"ranks by its scoring. To rank by {refit!r}, pass scoring={refit!r}; to see both, "
        f"pass scoring=[{named!r}, {refit!r}] and refit={refit!r}."
    )


def best_index(refit: Any, results: dict[str, Any], key: str | None) -> int | None:
    """The best candidate: rank 1 by the pooled score of ``key`` (the first on ties), or what
    a callable ``refit`` returns for ``cv_results_``; None without one."""
    if callable(refit):
        index = refit(results)
        n = len(results["params"])
        if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
            raise TypeError(
                f"refit returned {index!r}; a callable refit returns the index of the best "
                f"candidate, an int in [0, {n - 1}]."
            )
        if not 0 <= int(index) < n:
            raise IndexError(
                f"refit returned {int(index)}; there are {n} candidates (0 to {n - 1})."
            )
        return int(index)
    if key is None:
        return None
    return int(np.argmin(results[f"rank_test_{key}"]))


def candidate_method(
    base: Any, params: dict[str, Any], probabilities: bool, scoring: Any, label: str
) -> str:
    """The method whose output is a candidate's score: ``predict_proba``, else (for a ranking
    metric) ``decision_function``, read on the candidate itself, so a grid over estimators
    scores each as it can, as ``GridSearchCV``'s scorers do."""
    est = clone(base).set_params(**clone(params, safe=False)) if params else base
    wanted = ("predict_proba",) if probabilities else ("predict_proba", "decision_function")
    for m in wanted:
        if hasattr(est, m):
            return m
    needs = "predict_proba" if probabilities else "predict_proba nor decision_function"
    which = f"the candidate {label} ({type(est).__name__})" if params else type(est).__name__
    fix = (
        "use a count scoring such as 'f_tp_fp'"
        if not params
        else "drop it from the grid, or use a count scoring such as 'f_tp_fp'"
    )
    raise ValueError(
        f"scoring={scoring!r} needs scores, but {which} has "
        f"{'no' if probabilities else 'neither'} {needs}; {fix}."
    )
