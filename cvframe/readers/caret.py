"""Reader of R caret's saved resampling predictions (``train(...)$pred``).

caret keeps the held-out predictions of every resample when ``trainControl`` is given
``savePredictions = "final"`` (the chosen tuning values only) or ``"all"`` (every candidate);
``fit$pred`` written with ``write.csv`` is one row per (resample, held-out sample[, candidate]):
``pred``, ``obs``, one probability column per class level (``classProbs = TRUE``),
``rowIndex``, the tuning parameters, ``Resample`` and ``weights``. :func:`read_caret` turns it
into cvframe's predictions frame (its docstring maps every column).
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from ..errors import few
from . import _common
from ._common import ReaderError

__all__ = ["COLUMNS", "looks_like", "read_caret"]

#: The columns that identify caret's ``$pred`` (``pred``, ``obs`` and at least one of
#: ``rowIndex`` / ``Resample``).
COLUMNS = ("pred", "obs", "rowIndex", "Resample")

TOOL = "caret"
_WHAT = "caret's `pred`"
#: Columns of caret's ``$pred`` that are neither class probabilities nor tuning parameters.
_KNOWN = ("pred", "obs", "rowIndex", "Resample", "weights")
#: A resample id: "Fold01.Rep1", "Fold1", "Resample01" (boot, LGOCV), "Training010" (timeslice).
_RESAMPLE = re.compile(r"^(?P<kind>Fold|Resample|Training)(?P<num>\d+)(?:\.Rep(?P<rep>\d+))?$")


def looks_like(df: pd.DataFrame) -> bool:
    """True when the frame's columns are caret's ``$pred``: ``pred``, ``obs`` and one of
    ``rowIndex`` / ``Resample``.

    Examples
    --------
    >>> import pandas as pd
    >>> looks_like(pd.DataFrame(columns=["pred", "obs", "rowIndex", "Resample"]))
    True
    >>> looks_like(pd.DataFrame(columns=["y_true", "y_pred", "fold"]))
    False
    """
    cols = {str(c) for c in getattr(df, "columns", [])}
    return {"pred", "obs"} <= cols and bool(cols & {"rowIndex", "Resample"})


def _value(text: str) -> Any:
    """A tuning value read back from its text: an int, a float, or the string."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _resamples(values: pd.Series) -> tuple[np.ndarray, np.ndarray | None, str]:
    """Fold and repeat numbers (as caret wrote them, from 1) from the ``Resample`` column."""
    uniq = pd.unique(values)
    parsed = {}
    for u in uniq:
        m = _RESAMPLE.match(str(u))
        if m is None:
            raise ReaderError(
                f"caret's `Resample` column holds {u!r}, which is not a resample id caret "
                "writes ('Fold01.Rep1', 'Fold01', 'Resample01'); was the column edited?"
            )
        parsed[u] = m
    kinds = {m["kind"] for m in parsed.values()}
    if len(kinds) > 1:
        raise ReaderError(
            f"caret's `Resample` column mixes resample kinds {sorted(kinds)}; one file must hold "
            "one train() run."
        )
    reps = {m["rep"] is not None for m in parsed.values()}
    if len(reps) > 1:
        raise ReaderError(
            "caret's `Resample` column mixes ids with and without '.RepN'; one file must hold "
            "one train() run."
        )
    fold = values.map({u: int(m["num"]) for u, m in parsed.items()}).to_numpy(np.int64)
    repeat = None
    if reps == {True}:
        repeat = values.map({u: int(m["rep"]) for u, m in parsed.items()}).to_numpy(np.int64)
    kind = {"Fold": "cv", "Resample": "resample", "Training": "timeslice"}[kinds.pop()]
    if kind == "cv" and repeat is not None:
        kind = "repeatedcv"
    return fold, repeat, kind


def _levels(df: pd.DataFrame, seen: list[str]) -> tuple[list[str], list[str]]:
    """The class levels in R's factor order, and the class-probability columns."""
    obs = df["obs"]
    named = [c for c in df.columns if c not in _KNOWN]
    if isinstance(obs.dtype, pd.CategoricalDtype):
        # a factor read with its levels (e.g. pyreadr of an .rds): R's level order itself
        declared = [_common.text(c) for c in obs.cat.categories]
        if set(seen) <= set(declared):
            prob_cols = [c for c in declared if c in named]
            if prob_cols and len(prob_cols) < len(declared):
                lost = [c for c in declared if c not in prob_cols]
                raise ReaderError(
                    f"caret's `pred` has probability columns {few(prob_cols)} but none for "
                    f"the classes {few(lost)}; write the whole fit$pred (classProbs = TRUE "
                    "writes one column per class level)."
                )
            return declared, prob_cols
    prob_cols = [c for c in named if c in seen]
    fix = "write the whole fit$pred (classProbs = TRUE writes one column per class level)"
    levels, _ = _common.class_levels(seen, prob_cols, "caret's `obs`/`pred`", fix)
    return levels, prob_cols


def read_caret(
    source: Any,
    *,
    positive: Hashable | None = None,
    model: str | None = None,
) -> pd.DataFrame:
    """Read caret's saved resampling predictions (``fit$pred``) as a predictions frame.

    Column mapping:

    ============================  ====================================================
    caret                         predictions frame
    ============================  ====================================================
    ``Resample`` "Fold03.Rep2"    ``fold`` = 3, ``repeat`` = 2 (caret's numbers, from 1)
    ``Resample`` "Fold03"         ``fold`` = 3 (no ``repeat`` column)
    ``Resample`` "Resample07"     ``fold`` = 7 (bootstrap / leave-group-out resamples)
    ``obs``, ``pred``             ``y_true``, ``y_pred`` (Categoricals in level order)
    class-probability columns     ``score`` = P(positive class) (binary), else
                                  ``score_<level>`` per level
    tuning-parameter columns      ``param``: ``"k=5"``, ``"C=1, sigma=0.1"``
    ``rowIndex``                  ``sample``
    ``weights``                   ``weights`` (pass ``sample_weight="weights"`` to
                                  ``counts``)
    ============================  ====================================================

    The level order is the order of the class-probability columns (caret writes them in
    factor-level order); without them (``classProbs = FALSE``) it is the sorted labels, R's
    default factor order; a Categorical ``obs`` (a factor read from an ``.rds``) gives it.
    A model without tuning parameters (caret's ``parameter = "none"``) gets no ``param``
    column.

    Parameters
    ----------
    source : str, path or pandas.DataFrame
        The CSV written by ``write.csv(fit$pred, "pred.csv", row.names = FALSE)`` (a
        row-names first column, write.csv's default, is dropped), or that table already read.
    positive : label, optional
        The positive class of a binary task. Default: the first factor level, as caret's
        ``confusionMatrix`` and ``twoClassSummary`` use. Recorded in ``attrs["pos_label"]``.
    model : str, optional
        A ``model`` column of this value (caret's ``$pred`` does not name the method), to stack
        several fits with ``pd.concat``.

    Returns
    -------
    pandas.DataFrame
        Columns ``fold``, ``repeat`` (repeated CV only), ``y_true``, ``y_pred``, ``score`` or
        ``score_<level>`` (when caret saved class probabilities), ``param`` (when tuned),
        ``model`` (when given), ``sample``. ``attrs``: ``source="caret"``, ``task``,
        ``pos_label`` (binary) or ``labels``, ``resampling`` (``"repeatedcv"``, ``"cv"``,
        ``"resample"``, ``"timeslice"``).

    Raises
    ------
    cvframe.readers.ReaderError
        (a ValueError) A missing column (naming it and the ``trainControl`` setting that
        writes it), a resample of no rows, a frame of another tool (naming the tool), a
        spreadsheet, a ``positive`` that is not a class.

    Notes
    -----
    caret reports by default the mean over resamples of the per-resample Accuracy and Kappa
    (``fit$results``): ``frame.cv.counts().cv.accuracy(how="avg", dim=["repeat", "fold"])``.
    ``confusionMatrix(fit$pred$pred, fit$pred$obs)`` pools every held-out prediction:
    ``accuracy(how="pooled", dim=["repeat", "fold"])``.

    References
    ----------
    M. Kuhn, "Building predictive models in R using the caret package", Journal of
    Statistical Software 28(5), 2008.

    Examples
    --------
    >>> import pandas as pd
    >>> from cvframe.readers.caret import read_caret
    >>> pred = pd.DataFrame({
    ...     "pred": ["yes", "no", "yes", "no"], "obs": ["yes", "no", "no", "no"],
    ...     "yes": [0.9, 0.2, 0.6, 0.4], "no": [0.1, 0.8, 0.4, 0.6],
    ...     "rowIndex": [1, 2, 3, 4], "k": [5, 5, 5, 5],
    ...     "Resample": ["Fold1.Rep1", "Fold1.Rep1", "Fold2.Rep1", "Fold2.Rep1"]})
    >>> frame = read_caret(pred)
    >>> frame[["repeat", "fold", "y_true", "score", "param"]].head(2)
       repeat  fold y_true  score param
    0       1     1    yes    0.9   k=5
    1       1     1     no    0.2   k=5
    >>> frame.attrs["pos_label"]
    'yes'
    >>> float(frame.cv.counts().cv.accuracy(how="pooled", dim=["repeat", "fold"]).item())
    0.75
    """
    df = _common.own_table(source, _WHAT)
    cols = set(df.columns)
    _common.refuse_other(df, TOOL, "caret's fit$pred", ("pred", "obs"))
    if not looks_like(df) or not {"pred", "obs"} <= cols:
        _common.require(
            df, ["pred", "obs"], _WHAT, "write the whole fit$pred of a classification train()"
        )
    hint = 'was `savePredictions` set in trainControl (savePredictions = "final" or "all")? '
    hint += 'Leave-one-out CV (method = "LOOCV") writes no fold ids; use method = "cv"'
    _common.require(df, ["Resample"], _WHAT, hint)
    if df.empty:
        raise ReaderError(f"{_WHAT} has no rows; write the whole fit$pred.")
    _common.no_missing(
        df, ("pred", "obs", "Resample"), TOOL, "caret writes no missing values there"
    )
    _common.classes_only(df, ("obs", "pred"), TOOL, "Write the fit$pred of a classification")
    obs = df["obs"].map(_common.text)
    pred = df["pred"].map(_common.text)
    levels, prob_cols = _levels(df, list(dict.fromkeys([*obs, *pred])))
    param_cols = [c for c in df.columns if c not in _KNOWN and c not in levels]
    task = "binary" if len(levels) == 2 else "multiclass"
    pos = _common.positive_class(positive, levels, task, "caret's `obs`")
    fold, repeat, kind = _resamples(df["Resample"])
    out: dict[str, Any] = {} if repeat is None else {"repeat": repeat}
    out["fold"] = fold
    out["y_true"] = pd.Categorical(obs, categories=levels)
    out["y_pred"] = pd.Categorical(pred, categories=levels)
    probs = _common.probabilities(df, {c: c for c in prob_cols}, "caret")
    rest: dict[str, Any] = {}
    if param_cols == ["parameter"] and (df["parameter"].map(_common.text) == "none").all():
        param_cols = []  # caret's placeholder of a model without tuning parameters
    if param_cols:
        from ..runner import param_label  # (the runner loads only for a tuned model)

        texts = df[param_cols].map(_common.text)
        rest["param"] = [
            param_label({k: _value(v) for k, v in zip(param_cols, row, strict=True)})
            for row in texts.itertuples(index=False, name=None)
        ]
    if model is not None:
        rest["model"] = model
    if "rowIndex" in cols:
        rest["sample"] = _common.numbers(df, "rowIndex", TOOL, "the row of the training data")
    if "weights" in cols:
        rest["weights"] = _common.numbers(df, "weights", TOOL, "the case weight").astype(np.float64)
    frame = _common.predictions(
        out, probs, levels, pos, rest, source=TOOL, task=task, resampling=kind
    )
    ids = df[[c for c in ("Resample", *param_cols, "rowIndex") if c in cols]]
    fix = "Keep one row per resample and rowIndex (e.g. unique(fit$pred) in R)"
    _common.refuse_duplicates(frame, ["repeat", "fold", "param", "sample"], ids, _WHAT, fix)
    fix = "write the whole fit$pred"
    _common.check_resamples(frame, _WHAT, fix, "tuning candidate", numbered=True)
    return frame
