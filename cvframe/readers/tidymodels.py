"""Reader of tidymodels' held-out predictions (``collect_predictions()``).

``fit_resamples()`` / ``tune_grid()`` keep the held-out predictions of every resample when
``control_resamples(save_pred = TRUE)`` (``control_grid(save_pred = TRUE)``) is set;
``collect_predictions(res)`` written with ``write.csv`` is one row per (resample, held-out
sample, candidate) with the columns

- ``id``: the resample, ``"Fold01"`` for ``vfold_cv(v = 10)``; with ``repeats`` ``id`` is
  ``"Repeat1"`` and ``id2`` ``"Fold01"``;
- ``.pred_<level>``: class probabilities, one per outcome level in the factor's level order
  (the first level is yardstick's default event);
- ``.row``: the row of the data; ``.pred_class``: the predicted class;
- the outcome column, named as in the model formula (``Class``, ``Species``, ...);
- ``.config``: the candidate (``"Preprocessor1_Model1"``), and for a tuning grid the tuning
  parameters' own columns.

:func:`read_tidymodels` turns it into cvframe's predictions frame (``.config`` becomes
``param``), which ``frame.cv.counts()`` and the score functions read as they are.

This is an outer layer: nothing in the core imports it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .. import _checks, _labels
from ..errors import few
from ._common import ReaderError, read_table, require

__all__ = ["COLUMNS", "looks_like", "read_tidymodels"]

#: The columns that identify tidymodels' ``collect_predictions()`` of a classification.
COLUMNS = ("id", ".row", ".pred_class")

TOOL = "tidymodels"
_WHAT = "tidymodels' collect_predictions()"
_SAVE = (
    "was `save_pred = TRUE` set in control_resamples()/control_grid()? Write "
    "collect_predictions(res) with write.csv(..., row.names = FALSE)"
)
#: Columns of collect_predictions() that are not the outcome.
_KNOWN = ("id", "id2", "id3", ".row", ".pred_class", ".config", ".iter", ".eval_time", "Unnamed: 0")
#: Signatures of other tools' outputs, so a wrong file is named (checked in order).
_OTHER = (
    ("caret (fit$pred)", ("pred", "obs")),
    ("WEKA (Experimenter results)", ("Key_Run", "Key_Fold")),
    ("WEKA (predictions)", ("inst#", "actual", "predicted")),
    ("mlr3 (predictions)", ("row_ids", "truth", "response")),
    ("scikit-learn (cross_validate results)", ("fit_time", "score_time")),
    ("cvframe (predictions frame)", ("y_true", "y_pred", "fold")),
)


def looks_like(df: pd.DataFrame) -> bool:
    """True when the frame's columns are tidymodels' ``collect_predictions()``.

    Examples
    --------
    >>> import pandas as pd
    >>> looks_like(pd.DataFrame(columns=["id", ".pred_a", ".row", ".pred_class", "y"]))
    True
    >>> looks_like(pd.DataFrame(columns=["row_ids", "truth", "response"]))
    False
    """
    cols = {str(c) for c in getattr(df, "columns", [])}
    return set(COLUMNS) <= cols


def _other_tool(cols: set[str]) -> str | None:
    for name, need in _OTHER:
        if set(need) <= cols:
            return name
    return None


def _text(value: Any) -> str:
    value = _labels.plain(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _outcome(df: pd.DataFrame, truth: str | None, levels: list[str], prob_cols: list[str]) -> str:
    """The outcome column: ``truth`` when given, else the one column of class labels left."""
    if truth is not None:
        require(df, [truth], _WHAT, f"truth={truth!r} names no column; pass the outcome's name")
        return truth
    rest = [c for c in df.columns if c not in _KNOWN and c not in prob_cols]
    labelled = [c for c in rest if set(df[c].map(_text)) <= set(levels)]
    if len(labelled) == 1:
        return labelled[0]
    if not labelled:
        raise ReaderError(
            f"{_WHAT} has no outcome column (a column of the classes {few(levels)} besides "
            f"`.pred_class`; the other columns are {few(rest)}); pass truth= with the "
            "outcome's name, or write the whole collect_predictions(res)."
        )
    raise ReaderError(
        f"{_WHAT} has several columns that could be the outcome: {few(labelled)}; pass truth= "
        "with the outcome's name (the left-hand side of the model formula)."
    )


def _check_resamples(frame: pd.DataFrame) -> None:
    """Every candidate has rows in every resample some candidate has: an empty one is an error."""
    keys = [c for c in ("repeat", "fold") if c in frame.columns]
    have = frame.groupby(keys, sort=True).size().index
    for param, g in (
        frame.groupby("param", sort=True) if "param" in frame.columns else [(None, frame)]
    ):
        seen = set(g.groupby(keys, sort=True).size().index)
        lost = [k for k in have if k not in seen]
        if lost:
            where = f" of .config {param!r}" if param is not None else ""
            raise ReaderError(
                f"{_WHAT}: resample {lost[0]!r}{where} has no rows (other candidates have them; "
                f"{len(lost)} missing); {_SAVE}, all of it."
            )
    if "repeat" in frame.columns:
        per = frame.groupby("repeat", sort=True)["fold"].unique()
        want = set(frame["fold"].unique())
        for rep, folds in per.items():
            lost = sorted(want - set(folds))
            if lost:
                raise ReaderError(
                    f"{_WHAT}: resample {rep}/{lost[0]} has no rows (other repeats have "
                    f"{lost[0]}); {_SAVE}, all of it."
                )


def read_tidymodels(
    source: Any, truth: str | None = None, event_level: str = "first"
) -> pd.DataFrame:
    """The predictions frame of tidymodels' ``collect_predictions()``.

    Parameters
    ----------
    source : str, os.PathLike or pandas.DataFrame
        The CSV written by ``write.csv(collect_predictions(res), ...)`` (see
        ``docs/readers_tidymodels.md``), or the frame already read.
    truth : str, optional
        The outcome column's name. Default: the one column, besides tidymodels' own, whose
        values are all class labels.
    event_level : {"first", "second"}, default "first"
        yardstick's ``event_level``: which level of a binary outcome is the event (positive).
        The level order is that of the ``.pred_<level>`` columns (the factor's levels); without
        them, sorted order (R's default factor levels). Recorded in ``attrs["pos_label"]``.

    Returns
    -------
    pandas.DataFrame
        The predictions frame: ``repeat`` (``id`` of repeated CV), ``fold`` (``id``, or
        ``id2`` with repeats; tidymodels' labels such as ``"Fold01"``), ``y_true``, ``y_pred``
        (Categoricals in the level order), ``score`` (binary: the event's probability) or
        ``score_<level>``, ``param`` (``.config``), ``sample`` (``.row``). ``attrs``:
        ``source="tidymodels"``, ``task``, ``pos_label`` (binary) or ``labels``.

    Raises
    ------
    ReaderError
        A missing column (naming it and ``save_pred``), no or several candidate outcome
        columns (pass ``truth=``), a resample without rows, a table of another tool (naming
        the tool), an Excel file.
    ValueError
        A bad ``event_level``.

    Notes
    -----
    What tidymodels reports: ``collect_metrics(res)`` gives, per ``.config``, the mean over
    resamples of the per-resample metric (``mean``, with ``n`` and ``std_err`` = sd/sqrt(n)),
    i.e. F_avg = (1/k) sum_i F(i) for ``f_meas`` (``frame.cv.counts().cv.f_avg()``); a resample
    whose F is undefined is NA and left out of the mean (the skip variant ~F_avg). Repeated CV
    averages over all repeat x fold resamples. Forman & Scholz (2010), "Apples-to-apples in
    cross-validation studies", SIGKDD Explorations 12(1).

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({
    ...     "id": ["Fold1"] * 3 + ["Fold2"] * 3, ".pred_no": [0.9, 0.2, 0.6, 0.1, 0.7, 0.4],
    ...     ".pred_yes": [0.1, 0.8, 0.4, 0.9, 0.3, 0.6], ".row": [1, 4, 5, 2, 3, 6],
    ...     ".pred_class": ["no", "yes", "no", "yes", "no", "yes"],
    ...     "Class": ["no", "yes", "yes", "yes", "no", "no"], ".config": "Preprocessor1_Model1"})
    >>> frame = read_tidymodels(table, event_level="second")
    >>> frame.attrs["pos_label"], list(frame.columns)
    ('yes', ['fold', 'y_true', 'y_pred', 'score', 'param', 'sample'])
    >>> frame.cv.counts().cv.f_avg().values.ravel().tolist()  # collect_metrics(res) mean
    [0.6666666666666666]
    """
    event_level = _checks.choice("event_level", event_level, ["first", "second"])
    df = source.copy() if isinstance(source, pd.DataFrame) else read_table(source, _WHAT)
    df.columns = [str(c) for c in df.columns]
    cols = set(df.columns)
    if not looks_like(df):
        other = _other_tool(cols)
        if other is not None and not ({".row", ".pred_class"} & cols):
            raise ReaderError(
                f"source looks like {other} output (columns {few(list(df.columns))}), not "
                f"{_WHAT}; read it with that tool's reader (cvframe.readers.read detects the "
                "format)."
            )
        require(df, COLUMNS, _WHAT, _SAVE)
    if df.empty:
        raise ReaderError(f"{_WHAT} has no rows; {_SAVE}.")
    prob_cols = [c for c in df.columns if c.startswith(".pred_") and c != ".pred_class"]
    pred = df[".pred_class"].map(_text)
    levels = [c[len(".pred_") :] for c in prob_cols]
    if not levels:
        levels = sorted(set(pred))
    name = _outcome(df, truth, levels if prob_cols else sorted(levels), prob_cols)
    for c in ("id", ".pred_class", name, *(["id2"] if "id2" in cols else [])):
        bad = df[c].isna()
        if bad.any():
            raise ReaderError(
                f"tidymodels' `{c}` column has {int(bad.sum())} missing values (first at row "
                f"{int(np.flatnonzero(bad.to_numpy())[0])}); drop rows with a missing outcome "
                "before resampling, or those predictions."
            )
    obs = df[name].map(_text)
    seen = list(dict.fromkeys([*obs, *pred]))
    if prob_cols:
        unknown = [s for s in seen if s not in levels]
        if unknown:
            raise ReaderError(
                f"tidymodels' `{name}`/`.pred_class` hold {few(unknown)}, which have no "
                f"`.pred_<level>` column (those are {few(prob_cols)}); pass truth= with the "
                "outcome column's name."
            )
    else:
        levels = sorted(seen)
    if len(levels) < 2:
        raise ReaderError(
            f"tidymodels' `{name}`/`.pred_class` hold one class only ({few(levels)}); a "
            "classification needs two or more."
        )
    task = "binary" if len(levels) == 2 else "multiclass"
    pos = levels[0 if event_level == "first" else 1] if task == "binary" else None

    out: dict[str, Any] = {}
    if "id2" in cols:
        out["repeat"] = df["id"].map(_text).to_numpy()
        out["fold"] = df["id2"].map(_text).to_numpy()
    else:
        out["fold"] = df["id"].map(_text).to_numpy()
    ordered = [pos, *[c for c in levels if c != pos]] if task == "binary" else levels
    out["y_true"] = pd.Categorical(obs, categories=ordered)
    out["y_pred"] = pd.Categorical(pred, categories=ordered)
    probs: dict[str, np.ndarray] = {}
    for c in prob_cols:
        level = c[len(".pred_") :]
        p = pd.to_numeric(df[c], errors="coerce").to_numpy(np.float64)
        if not np.isfinite(p).all():
            bad = df[c].to_numpy()[~np.isfinite(p)][0]
            raise ReaderError(
                f"tidymodels' probability column `{c}` holds {bad!r}; it should hold the "
                f"probability of level {level!r}."
            )
        probs[level] = p
    if probs:
        if task == "binary":
            out["score"] = probs[str(pos)]
        else:
            for level in levels:
                out[f"score_{level}"] = probs[level]
    if ".config" in cols:
        out["param"] = df[".config"].map(_text).to_numpy()
    out["sample"] = pd.to_numeric(df[".row"], errors="raise").to_numpy()
    frame = pd.DataFrame(out)
    _check_resamples(frame)
    frame.attrs.update({"source": TOOL, "task": task})
    if task == "binary":
        frame.attrs["pos_label"] = pos
    else:
        frame.attrs["labels"] = list(levels)
    return frame
