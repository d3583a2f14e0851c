"""scikit-learn's cross-validation outputs as cvframe's predictions frame, with the true folds.

Two outputs of scikit-learn hold enough to rebuild every fold's counts without refitting:

- ``cross_validate(est, X, y, return_indices=True, return_estimator=True)``: each fold's
  fitted estimator and its test indices; :func:`from_sklearn_cv` predicts with each fold's own
  estimator on its own test rows (no refitting), with scores from ``predict_proba`` or
  ``decision_function``.
- ``cross_val_predict(est, X, y, cv=splitter)``: the pooled predictions; the fold of every row
  comes from the splitter's ``split`` (:func:`from_cross_val_predict`), which must give the
  same folds again, so a shuffling splitter needs a fixed ``random_state``.

``cross_validate``'s per-fold ``test_score`` table alone (``pd.DataFrame(cv_results)``) holds no
predictions; :func:`read_sklearn` recognises it and says what to save instead.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from .._core import checks as _checks
from .._core import labels as _labels
from ..errors import few
from ._common import ReaderError, predictions, read_table, refuse_other

__all__ = ["COLUMNS", "from_cross_val_predict", "from_sklearn_cv", "looks_like", "read_sklearn"]

#: The columns of ``pd.DataFrame(cross_validate(...))`` (plus ``test_<scorer>`` ones).
COLUMNS = ("fit_time", "score_time")

TOOL = "sklearn"
_SAVE = (
    "keep the dict of cross_validate(..., return_indices=True, return_estimator=True) and "
    "call cvframe.readers.sklearn.from_sklearn_cv(cv_results, X, y), or pass "
    "cross_val_predict's output to from_cross_val_predict(y, y_pred, cv)"
)


def looks_like(df: pd.DataFrame) -> bool:
    """True when the frame is scikit-learn's ``cross_validate`` results as a table.

    Examples
    --------
    >>> import pandas as pd
    >>> looks_like(pd.DataFrame(columns=["fit_time", "score_time", "test_score"]))
    True
    >>> looks_like(pd.DataFrame(columns=["fold", "y_true", "y_pred"]))
    False
    """
    cols = [str(c) for c in getattr(df, "columns", [])]
    return set(COLUMNS) <= set(cols) and any(c.startswith("test_") for c in cols)


def _rows(X: Any, idx: np.ndarray) -> Any:
    """Rows ``idx`` of ``X``: a DataFrame, a sparse matrix or an array-like."""
    if hasattr(X, "iloc"):
        return X.iloc[idx]
    if hasattr(X, "tocsr"):
        return X.tocsr()[idx]
    return np.asarray(X)[idx]


def _positive(classes: list[Hashable], pos_label: Any) -> Hashable:
    if pos_label is not None:
        k = _labels.binary_pos(classes, True, pos_label)
        assert k is not None
        return k
    try:
        pos = _labels.binary_pos(classes, True, None)
    except ValueError:
        pos = None
    # scikit-learn scores the second of its sorted classes (classes_[1]) as positive
    return classes[1] if pos is None else pos


def _scores(est: Any, Xt: Any, classes: list[Hashable], pos: Hashable | None) -> dict[str, Any]:
    """Score columns of one fold's estimator: predict_proba, else decision_function, else none."""
    own = [_labels.plain(c) for c in getattr(est, "classes_", classes)]
    if hasattr(est, "predict_proba"):
        values = np.asarray(est.predict_proba(Xt), dtype=np.float64)
    elif hasattr(est, "decision_function"):
        values = np.asarray(est.decision_function(Xt), dtype=np.float64)
        if values.ndim == 1:  # binary: the score of own[1]
            if pos is None:
                return {}
            return {"score": values if pos == own[1] else -values}
    else:
        return {}
    if pos is not None:
        return {"score": values[:, own.index(pos)]}
    return {
        f"score_{c}": (values[:, own.index(c)] if c in own else np.zeros(len(values)))
        for c in classes
    }


def _repeats(tests: list[np.ndarray]) -> list[int]:
    """Repeat of every fold: a new repeat starts when a fold's rows were tested in this one."""
    rep, out = 0, []
    seen: set[Any] = set()
    for t in tests:
        ids = set(np.asarray(t).tolist())
        if seen & ids:
            rep, seen = rep + 1, set()
        seen |= ids
        out.append(rep)
    return out


def _frame(
    parts: list[dict[str, Any]], classes: list[Hashable], pos: Hashable | None
) -> pd.DataFrame:
    frame = pd.concat([pd.DataFrame(p) for p in parts], ignore_index=True)
    if "repeat" in frame.columns and frame["repeat"].nunique() == 1:
        frame = frame.drop(columns="repeat")
    task = "binary" if pos is not None else "multiclass"
    return predictions(dict(frame), {}, classes, pos, source=TOOL, task=task)


def from_sklearn_cv(
    cv_results: Mapping[str, Any], X: Any, y: Any, *, pos_label: Any = None
) -> pd.DataFrame:
    """The predictions frame of ``cross_validate(..., return_indices=True, return_estimator=True)``.

    Each fold's own fitted estimator predicts its own test rows (nothing is refitted), so the
    frame's per-fold counts are those behind ``cross_validate``'s ``test_score``.

    Parameters
    ----------
    cv_results : dict
        What ``sklearn.model_selection.cross_validate`` returned, with ``"indices"`` and
        ``"estimator"`` (``return_indices=True, return_estimator=True``).
    X, y : array-like
        The data given to ``cross_validate``.
    pos_label : label, optional
        The positive class of a binary task. Default: 1 for 0/1 labels, True for booleans,
        else scikit-learn's positive class ``classes_[1]``. Recorded in ``attrs["pos_label"]``.

    Returns
    -------
    pandas.DataFrame
        ``repeat`` (when a fold re-tests rows, as ``RepeatedKFold`` does), ``fold`` (0-based,
        the order of ``cv_results``), ``sample`` (row of ``X``), ``y_true``, ``y_pred``, and
        ``score`` (binary) or ``score_<label>`` from ``predict_proba`` or
        ``decision_function``. ``attrs``: ``source="sklearn"``, ``task``, ``pos_label``.

    Raises
    ------
    ReaderError
        ``cv_results`` without ``indices`` or ``estimator`` (naming the argument to set),
        a fold without test rows, ``X``/``y`` of another length than the indices allow.

    Notes
    -----
    ``cross_validate(scoring="f1")["test_score"]`` holds F(i) per fold; its mean (what
    ``cross_val_score(...).mean()`` reports) is F_avg = (1/k) sum_i F(i), and
    ``f1_score(y, cross_val_predict(...))`` is the pooled F_tp,fp. Forman & Scholz (2010),
    "Apples-to-apples in cross-validation studies", SIGKDD Explorations 12(1).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import cross_validate
    >>> X, y = make_classification(100, random_state=0)
    >>> res = cross_validate(LogisticRegression(), X, y, cv=5, scoring="f1",
    ...                      return_indices=True, return_estimator=True)
    >>> frame = from_sklearn_cv(res, X, y)
    >>> f_avg = frame.cv.counts().cv.f_avg().item()  # cross_val_score(...).mean()
    >>> bool(abs(f_avg - res["test_score"].mean()) < 1e-12)
    True
    """
    if not isinstance(cv_results, Mapping):
        raise TypeError(
            f"cv_results must be the dict cross_validate returned, not {type(cv_results).__name__}."
        )
    for key, arg in (("indices", "return_indices"), ("estimator", "return_estimator")):
        if key not in cv_results:
            raise ReaderError(
                f"cv_results has no {key!r}: call cross_validate(..., {arg}=True) "
                "(both return_indices=True and return_estimator=True are needed)."
            )
    tests = list(cv_results["indices"]["test"])
    estimators = list(cv_results["estimator"])
    if len(tests) != len(estimators):
        raise ReaderError(
            f"cv_results has {len(tests)} test index sets but {len(estimators)} estimators; "
            "pass the dict cross_validate returned, unchanged."
        )
    _check_estimators(estimators)
    y_arr = _check_y(y)
    classes = [_labels.plain(c) for c in np.unique(y_arr)]
    pos = _positive(classes, pos_label) if len(classes) <= 2 else None
    if pos_label is not None and len(classes) > 2:
        raise ValueError(
            f"pos_label={pos_label!r} is for binary tasks; y has {len(classes)} classes."
        )
    reps = _repeats(tests)
    fold_no = [i - reps.index(r) for i, r in enumerate(reps)]
    parts = []
    for i, (test, est) in enumerate(zip(tests, estimators, strict=True)):
        test = np.asarray(test)
        if test.size == 0:
            raise ReaderError(f"cv_results' fold {i} has no test rows; a fold tests some rows.")
        if test.max() >= len(y_arr):
            raise ReaderError(
                f"cv_results' fold {i} tests row {int(test.max())}, but y has {len(y_arr)} rows; "
                "pass the X and y given to cross_validate."
            )
        _check_fitted_classes(est, i, classes)
        Xt = _rows(X, test)
        pred = np.asarray(est.predict(Xt))
        _labels.check_classes(pred, f"the predictions of fold {i}'s estimator", _PRED_FIX)
        part: dict[str, Any] = {
            "repeat": reps[i],
            "fold": fold_no[i],
            "sample": test,
            "y_true": y_arr[test],
            "y_pred": pred,
        }
        part.update(_scores(est, Xt, classes, pos))
        parts.append(part)
    return _frame(parts, classes, pos)


_PRED_FIX = (
    "the estimators of cv_results must be classifiers whose predict returns class labels "
    "(a regressor's predictions are not classes)"
)


def _check_y(y: Any) -> np.ndarray:
    """``y`` as 1-D class labels: no missing labels, not a continuous target."""
    y_arr = np.asarray(y)
    if y_arr.ndim == 2 and y_arr.shape[1] == 1:
        y_arr = y_arr[:, 0]
    if y_arr.ndim != 1:
        raise ValueError(f"y must be 1-D class labels, got shape {y_arr.shape}.")
    miss = np.asarray(pd.isna(y_arr), dtype=bool)
    if miss.any():
        raise ValueError(
            f"y has {int(miss.sum())} missing labels (None/NaN) at rows "
            f"{few(np.flatnonzero(miss))}; pass the y given to cross_validate, whose rows all "
            "have a label."
        )
    _labels.check_classes(y_arr, "y")
    return y_arr


def _check_estimators(estimators: list[Any]) -> None:
    """Every fold's estimator is a classifier (a regressor is named as such)."""
    for i, est in enumerate(estimators):
        if _checks.is_regressor(est):
            raise ValueError(
                f"cv_results['estimator'][{i}] is {type(est).__name__}, a regressor, not a "
                "classifier; from_sklearn_cv rebuilds the counts of classifiers (their "
                "predictions are class labels). Cross-validate a classifier."
            )


def _check_fitted_classes(est: Any, i: int, classes: list[Hashable]) -> None:
    """A fold's estimator fitted on at least two classes (else it has no score for the
    others, and its predictions are one class whatever the input)."""
    own = getattr(est, "classes_", None)
    if own is None or len(own) >= 2:
        return
    missing = [c for c in classes if _labels.find(c, [_labels.plain(o) for o in own]) < 0]
    raise ValueError(
        f"cv_results' fold {i}: its estimator was fitted on one class only (classes_="
        f"{few(_labels.plain(o) for o in own)}); its training set held none of "
        f"{few(missing)}, so it cannot score them. Cross-validate with a stratified splitter "
        "(StratifiedKFold, the default of cross_validate for a classifier and an int cv) so "
        "every training set holds every class, or with fewer folds."
    )


def from_cross_val_predict(
    y: Any,
    y_pred: Any,
    cv: Any = None,
    X: Any = None,
    groups: Any = None,
    scores: Any = None,
    *,
    pos_label: Any = None,
) -> pd.DataFrame:
    """The predictions frame of ``cross_val_predict``, with each row's fold from the splitter.

    Parameters
    ----------
    y, y_pred : array-like
        True labels and ``cross_val_predict(est, X, y, cv=cv)``.
    cv : int, splitter or None, default None
        The ``cv`` given to ``cross_val_predict``. An int means what it meant there for a
        classifier: ``StratifiedKFold(cv)`` without shuffling; None (its default) is 5
        folds, ``StratifiedKFold(5)``. A splitter that shuffles must have an integer
        ``random_state``: its ``split`` is called again here.
    X, groups : array-like, optional
        What ``split`` needs (``groups`` for the group splitters; ``X`` only for its length).
    scores : array-like, optional
        ``cross_val_predict(..., method="predict_proba")`` (or ``"decision_function"``): 1-D
        scores of the positive class, or one column per class in sorted label order.
    pos_label : label, optional
        The positive class of a binary task (default as in :func:`from_sklearn_cv`).

    Returns
    -------
    pandas.DataFrame
        ``fold`` (0-based, the order of ``split``), ``sample``, ``y_true``, ``y_pred`` and
        ``score``/``score_<label>`` when ``scores`` is given. ``attrs``: ``source="sklearn"``,
        ``task``, ``pos_label``.

    Raises
    ------
    ValueError
        ``cv`` shuffling without a fixed integer ``random_state`` (naming ``cv``), ``cv``
        whose test sets are not a partition of the rows, ``y_pred``/``scores`` of another
        length than ``y``.

    Notes
    -----
    ``f1_score(y, cross_val_predict(...))`` is the pooled F_tp,fp; the per-fold F(i) and their
    mean F_avg come from the frame's counts. Forman & Scholz (2010), "Apples-to-apples in
    cross-validation studies", SIGKDD Explorations 12(1).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.metrics import f1_score
    >>> from sklearn.model_selection import KFold, cross_val_predict
    >>> X, y = make_classification(100, random_state=0)
    >>> cv = KFold(5, shuffle=True, random_state=0)
    >>> y_pred = cross_val_predict(LogisticRegression(), X, y, cv=cv)
    >>> frame = from_cross_val_predict(y, y_pred, cv)
    >>> ds = frame.cv.counts()
    >>> bool(abs(ds.cv.f_tp_fp().item() - f1_score(y, y_pred)) < 1e-12)
    True
    >>> from_cross_val_predict(y, y_pred, KFold(5, shuffle=True))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: cv=KFold(...) shuffles with random_state=None, ...
    """
    from sklearn.model_selection import check_cv

    y_arr, p_arr = np.asarray(y), np.asarray(y_pred)
    if y_arr.ndim != 1 or p_arr.shape != y_arr.shape:
        raise ValueError(
            f"y and y_pred must be 1-D of one length; got shapes {y_arr.shape} and {p_arr.shape}."
        )
    if isinstance(cv, bool):
        raise ValueError(
            f"cv={cv!r}: pass the cv given to cross_val_predict (an int, a splitter, or None "
            "for its default of 5 folds)."
        )
    splitter = check_cv(5 if cv is None else cv, y_arr, classifier=True)
    name = type(splitter).__name__
    rs = getattr(splitter, "random_state", None)
    shuffles = bool(getattr(splitter, "shuffle", False)) or (
        hasattr(splitter, "random_state") and not hasattr(splitter, "shuffle")
    )
    if shuffles and rs is None:
        raise ValueError(
            f"cv={name}(...) shuffles with random_state=None, so its split() gives other folds "
            "each call and the folds of cross_val_predict cannot be recovered; pass the "
            "splitter with a fixed random_state (the same one given to cross_val_predict)."
        )
    if shuffles and not isinstance(rs, numbers.Integral):
        raise ValueError(
            f"cv={name}(random_state={type(rs).__name__}) draws from a RandomState object, "
            "whose state changes with each split(); pass an integer random_state."
        )
    n = len(y_arr)
    Xs = np.zeros((n, 1)) if X is None else X
    folds = np.full(n, -1, dtype=np.int64)
    for i, (_, test) in enumerate(splitter.split(Xs, y_arr, groups)):
        test = np.asarray(test)
        if test.size == 0:
            raise ValueError(f"cv's fold {i} has no test rows.")
        if (folds[test] >= 0).any():
            raise ValueError(
                f"cv={type(splitter).__name__}: fold {i} re-tests rows of an earlier fold; "
                "cross_val_predict needs test sets that partition the rows."
            )
        folds[test] = i
    if (folds < 0).any():
        untested = few(np.flatnonzero(folds < 0))
        raise ValueError(
            f"cv={type(splitter).__name__} tests no fold for rows {untested}; "
            "cross_val_predict needs test sets that partition the rows."
        )
    for name, arr in (("y", y_arr), ("y_pred", p_arr)):
        if pd.isna(arr).any():
            raise ValueError(
                f"{name} has missing labels (None/NaN) at rows {few(np.flatnonzero(pd.isna(arr)))}"
                "; drop those rows before cross_val_predict (nothing is dropped silently)."
            )
    classes = [_labels.plain(c) for c in np.unique(np.concatenate([y_arr, p_arr]))]
    y_classes = [_labels.plain(c) for c in np.unique(y_arr)]
    if len(classes) > len(y_classes):
        raise ValueError(
            f"y_pred holds classes {few([c for c in classes if c not in y_classes])} that y does "
            "not have: cross_val_predict predicts the classes of y only; pass the y_pred "
            "made from this y."
        )
    pos = _positive(classes, pos_label) if len(classes) <= 2 else None
    out: dict[str, Any] = {"fold": folds, "sample": np.arange(n), "y_true": y_arr, "y_pred": p_arr}
    if scores is not None:
        s = np.asarray(scores, dtype=np.float64)
        if s.shape[0] != n:
            raise ValueError(f"scores has {s.shape[0]} rows; y has {n}.")
        if not np.isfinite(s).all():
            bad = np.flatnonzero(~np.isfinite(s).reshape(n, -1).all(axis=1))
            raise ValueError(
                f"scores has NaN or infinite values at rows {few(bad)}; every tested row needs "
                "a finite score (predict_proba or decision_function)."
            )
        if s.ndim == 1:
            if pos is None:
                raise ValueError(
                    "scores is 1-D but the task is multiclass; pass one column per class "
                    "(method='predict_proba')."
                )
            out["score"] = s
        elif s.shape[1] != len(y_classes):
            raise ValueError(
                f"scores has {s.shape[1]} columns; y has {len(y_classes)} classes "
                f"{few(y_classes)} (one column per class, in sorted order)."
            )
        elif pos is not None:
            out["score"] = s[:, y_classes.index(pos)]
        else:
            for k, c in enumerate(y_classes):
                out[f"score_{c}"] = s[:, k]
    order = np.argsort(folds, kind="stable")
    return _frame([pd.DataFrame(out).iloc[order].to_dict("list")], classes, pos)


def read_sklearn(source: Any, X: Any = None, y: Any = None) -> pd.DataFrame:
    """Read a scikit-learn output: the ``cross_validate`` dict (with ``X``, ``y``).

    Parameters
    ----------
    source : dict, str, os.PathLike or pandas.DataFrame
        The dict ``cross_validate(..., return_indices=True, return_estimator=True)`` returned
        (read by :func:`from_sklearn_cv`). A table of ``cross_validate``'s per-fold scores
        (``fit_time``, ``score_time``, ``test_score``) holds no predictions and is an error
        that says what to save instead.
    X, y : array-like, optional
        The data given to ``cross_validate``.

    Returns
    -------
    pandas.DataFrame
        The predictions frame (see :func:`from_sklearn_cv`).

    Raises
    ------
    ReaderError
        For the per-fold scores table, or a dict without ``X`` and ``y``.

    Examples
    --------
    >>> import pandas as pd
    >>> read_sklearn(pd.DataFrame({"fit_time": [0.1], "score_time": [0.0],
    ...                            "test_score": [0.9]}))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    cvframe.readers.ReaderError: scikit-learn's cross_validate scores table ...
    """
    if isinstance(source, Mapping):
        if X is None or y is None:
            raise ReaderError(
                "read_sklearn(cv_results) needs X= and y=, the data given to cross_validate."
            )
        return from_sklearn_cv(source, X, y)
    df = read_table(source, "scikit-learn's cross_validate results")
    cols = [str(c) for c in df.columns]
    if not looks_like(df):
        refuse_other(df, TOOL, "scikit-learn's cross_validate results", COLUMNS)
        raise ReaderError(
            f"source (columns {few(cols)}) is not scikit-learn's cross_validate results "
            f"(columns {list(COLUMNS)} and test_<scorer>); {_SAVE}."
        )
    scores = [c for c in cols if c.startswith("test_")]
    raise ReaderError(
        f"scikit-learn's cross_validate scores table ({few(scores)} per fold) holds no "
        "predictions, so no counts can be rebuilt from it (its mean is F_avg when the scorer is "
        f"'f1'); {_SAVE}."
    )
