"""Reader of R caret's saved resampling predictions (``train(...)$pred``).

caret keeps the held-out predictions of every resample when ``trainControl`` is given
``savePredictions = "final"`` (the chosen tuning values only) or ``"all"`` (every candidate);
``fit$pred`` written with ``write.csv`` is one row per (resample, held-out sample[, candidate])
with the columns

- ``pred``, ``obs``: predicted and true class (factor labels);
- one column per class level, named by the level, holding its class probability (only with
  ``classProbs = TRUE``), in the order of the factor levels;
- ``rowIndex``: the row of the training data;
- the tuning parameters (``k``, ``mtry``, ``C``, ``sigma``, ...; ``parameter = "none"`` for a
  model without tuning parameters);
- ``Resample``: ``"Fold03.Rep2"`` (repeated CV), ``"Fold03"`` (CV), ``"Resample07"``
  (bootstrap, leave-group-out);
- ``weights`` when case weights were given.

:func:`read_caret` turns it into cvframe's predictions frame, which ``frame.cv.counts()`` and
the score functions read as they are.

This is an outer layer: nothing in the core imports it.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from .. import _labels
from ..errors import few
from ..runner import param_label
from ._common import ReaderError, read_table, require

__all__ = ["COLUMNS", "looks_like", "read_caret"]

#: The columns that identify caret's ``$pred`` (``pred``, ``obs`` and at least one of
#: ``rowIndex`` / ``Resample``).
COLUMNS = ("pred", "obs", "rowIndex", "Resample")

TOOL = "caret"
#: Columns of caret's ``$pred`` that are neither class probabilities nor tuning parameters.
_KNOWN = ("pred", "obs", "rowIndex", "Resample", "weights")
#: A resample id: "Fold01.Rep1", "Fold1", "Resample01" (boot, LGOCV), "Training010" (timeslice).
_RESAMPLE = re.compile(r"^(?P<kind>Fold|Resample|Training)(?P<num>\d+)(?:\.Rep(?P<rep>\d+))?$")
#: The first columns write.csv writes for the row names (row.names = TRUE, its default).
_ROWNAMES = ("", "Unnamed: 0")
#: Signatures of other tools' outputs, so a wrong file is named (checked in order).
_OTHER = (
    ("WEKA (Experimenter results)", ("Key_Run", "Key_Fold")),
    ("WEKA (predictions)", ("inst#", "actual", "predicted")),
    ("mlr3", ("row_ids", "truth", "response")),
    ("tidymodels", (".row", ".pred_class")),
    ("tidymodels", ("id", ".row")),
    ("cvframe / scikit-learn (predictions frame)", ("y_true", "y_pred", "fold")),
)


#: The tools' names of the format ids of :func:`cvframe.readers.detect`.
_NAMES = {
    "weka": "WEKA (Experimenter results)",
    "weka-predictions": "WEKA (predictions)",
    "sklearn": "scikit-learn",
    "cvframe": "cvframe (predictions frame)",
}


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


def _other_tools(df: pd.DataFrame) -> list[str]:
    """The other formats whose columns ``df`` has (by their readers' ``looks_like``)."""
    from . import formats_of  # the package's detection; loaded when a frame is read

    found = [f"{_NAMES.get(f, f)} (format={f!r})" for f in formats_of(df) if f != TOOL]
    if not found:
        cols = set(df.columns)
        found = [name for name, need in _OTHER if set(need) <= cols][:1]
    return found


def _read(source: Any) -> pd.DataFrame:
    """``source`` as a DataFrame (a frame is copied: the reader renames its columns)."""
    if isinstance(source, pd.DataFrame):
        return source.copy()
    return read_table(source, "caret's `pred`")


def _text(value: Any) -> str:
    """A cell as caret printed it (numbers from a DataFrame in their shortest form)."""
    value = _labels.plain(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _value(text: str) -> Any:
    """A tuning value read back from its text: an int, a float, or the string."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _numbers(df: pd.DataFrame, column: str, meaning: str) -> np.ndarray:
    """A numeric column of caret's table, or an error naming it."""
    try:
        return pd.to_numeric(df[column], errors="raise").to_numpy()
    except (ValueError, TypeError):
        bad = df[column][pd.to_numeric(df[column], errors="coerce").isna()]
        raise ReaderError(
            f"caret's `{column}` column holds {bad.iloc[0]!r}, not a number; it should hold "
            f"{meaning}."
        ) from None


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
        declared = [_text(c) for c in obs.cat.categories]
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
    if not prob_cols:
        # without classProbs the factor order is not in the file: R's default order is sorted
        return sorted(seen), []
    missing = [s for s in seen if s not in prob_cols]
    if missing:
        raise ReaderError(
            f"caret's `pred` has probability columns {few(prob_cols)} but none for the classes "
            f"{few(missing)} seen in `obs`/`pred`; write the whole fit$pred (classProbs = TRUE "
            "writes one column per class level)."
        )
    return prob_cols, prob_cols


def _check_resamples(frame: pd.DataFrame) -> None:
    """Every candidate has rows in every resample, and resample numbers have no gaps."""
    keys = ["repeat", "fold"] if "repeat" in frame.columns else ["fold"]
    have = frame.groupby(keys, sort=True).size().index
    if "repeat" in frame.columns:
        folds_per_rep = {r: {f for rr, f in have if rr == r} for r, _ in have}
        every = set().union(*folds_per_rep.values())
        for r, got in folds_per_rep.items():
            lost = sorted(every - got)
            if lost:
                raise ReaderError(
                    f"caret's `Resample` column has no rows for folds {lost} of repeat {r} "
                    f"(other repeats have them: e.g. 'Fold{lost[0]}.Rep{r}' is missing); write "
                    "the whole fit$pred."
                )
        reps = sorted(folds_per_rep)
        lost_r = sorted(set(range(1, max(reps) + 1)) - set(reps))
        if lost_r:
            raise ReaderError(
                f"caret's `Resample` column has no rows for repeats {lost_r}; write the whole "
                "fit$pred."
            )
        numbers = sorted(every)
    else:
        numbers = sorted(set(have))
    lost_f = sorted(set(range(1, max(numbers) + 1)) - set(numbers))
    if lost_f:
        raise ReaderError(
            f"caret's `Resample` column has no rows for resamples {lost_f} (numbers run to "
            f"{max(numbers)}); write the whole fit$pred."
        )
    if "param" in frame.columns:
        every_pair = set(map(tuple, frame[keys].drop_duplicates().to_numpy().tolist()))
        for p, part in frame.groupby("param", sort=False):
            got = set(map(tuple, part[keys].drop_duplicates().to_numpy().tolist()))
            lost = sorted(every_pair - got)
            if lost:
                raise ReaderError(
                    f"caret's `pred` has no rows of tuning candidate {p!r} in resamples "
                    f"{few(lost)}; write the whole fit$pred."
                )


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
    df = _read(source)
    if len(df.columns) and str(df.columns[0]) in _ROWNAMES:
        df = df.drop(columns=df.columns[0])
    df.columns = [str(c) for c in df.columns]
    cols = set(df.columns)
    other = _other_tools(df)
    if other and not {"pred", "obs"} & cols:
        raise ReaderError(
            f"source looks like the output of {' / '.join(other)} (columns "
            f"{few(list(df.columns))}), not caret's fit$pred; read it with that tool's reader "
            "(cvframe.readers.read detects the format)."
        )
    if other:
        raise ReaderError(
            f"source has caret's `pred`/`obs` columns and also those of {' / '.join(other)} "
            f"({few(list(df.columns))}): are outputs of different tools mixed in one file? "
            "Save caret's fit$pred in its own file."
        )
    if not looks_like(df) or not {"pred", "obs"} <= cols:
        require(
            df,
            ["pred", "obs"],
            "caret's `pred`",
            "write the whole fit$pred of a classification train() with write.csv",
        )
    require(
        df,
        ["Resample"],
        "caret's `pred`",
        'was `savePredictions` set in trainControl (savePredictions = "final" or "all")? '
        'Leave-one-out CV (method = "LOOCV") writes no fold ids; use method = "cv"',
    )
    if df.empty:
        raise ReaderError("caret's `pred` has no rows; write the whole fit$pred.")
    for c in ("pred", "obs", "Resample"):
        bad = df[c].isna()
        if bad.any():
            raise ReaderError(
                f"caret's `{c}` column has {int(bad.sum())} missing values (first at row "
                f"{int(np.flatnonzero(bad.to_numpy())[0])}); caret writes no missing {c}."
            )
    obs = df["obs"].map(_text)
    pred = df["pred"].map(_text)
    seen = list(dict.fromkeys([*obs, *pred]))
    levels, prob_cols = _levels(df, seen)
    param_cols = [c for c in df.columns if c not in _KNOWN and c not in levels]
    if len(levels) < 2:
        raise ReaderError(
            f"caret's `obs`/`pred` hold one class only ({few(levels)}); a classification needs "
            "two or more."
        )
    task = "binary" if len(levels) == 2 else "multiclass"
    if positive is not None:
        if task != "binary":
            raise ReaderError(
                f"positive={positive!r} applies to a binary task; this one has "
                f"{len(levels)} classes {few(levels)}."
            )
        if _text(positive) not in levels:
            raise ReaderError(
                f"positive={positive!r} is not a class of caret's `obs` {few(levels)}; pass one "
                "of them."
            )
        pos = _text(positive)
    else:
        pos = levels[0]

    fold, repeat, kind = _resamples(df["Resample"])
    out: dict[str, Any] = {}
    if repeat is not None:
        out["repeat"] = repeat
    out["fold"] = fold
    out["y_true"] = pd.Categorical(obs, categories=levels)
    out["y_pred"] = pd.Categorical(pred, categories=levels)
    probs: dict[str, np.ndarray] = {}
    for c in prob_cols:
        p = pd.to_numeric(df[c], errors="coerce").to_numpy(np.float64)
        bad = ~np.isfinite(p) & df[c].notna().to_numpy()
        if bad.any():
            raise ReaderError(
                f"caret's `{c}` column holds {df[c].to_numpy()[bad][0]!r}, not a number; it "
                f"should hold the probability of class {c!r}."
            )
        probs[c] = p
    if probs:
        if task == "binary":
            out["score"] = probs[pos]
        else:
            for c in levels:
                out[f"score_{c}"] = probs[c]
    if param_cols == ["parameter"] and (df["parameter"].map(_text) == "none").all():
        param_cols = []  # caret's placeholder of a model without tuning parameters
    if param_cols:
        texts = df[param_cols].map(_text)
        out["param"] = [
            param_label({k: _value(v) for k, v in zip(param_cols, row, strict=True)})
            for row in texts.itertuples(index=False, name=None)
        ]
    if model is not None:
        out["model"] = model
    if "rowIndex" in cols:
        out["sample"] = _numbers(df, "rowIndex", "the row of the training data")
    if "weights" in cols:
        out["weights"] = _numbers(df, "weights", "the case weight").astype(np.float64)
    frame = pd.DataFrame(out)
    _check_resamples(frame)
    frame.attrs.update({"source": TOOL, "task": task, "resampling": kind})
    if task == "binary":
        frame.attrs["pos_label"] = pos
    else:
        frame.attrs["labels"] = list(levels)
    return frame
