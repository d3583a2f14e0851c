"""Reader of tidymodels' held-out predictions (``collect_predictions()``).

``fit_resamples()`` / ``tune_grid()`` keep the held-out predictions of every resample when
``control_resamples(save_pred = TRUE)`` (``control_grid(save_pred = TRUE)``) is set;
``collect_predictions(res)`` written with ``write.csv`` is one row per (resample, held-out
sample, candidate): ``id`` (``"Fold01"``; with repeats ``id`` is ``"Repeat1"`` and ``id2``
the fold), ``.pred_<level>`` in the factor's level order (the first level is yardstick's
default event), ``.row``, ``.pred_class``, the outcome column named as in the model formula,
``.config`` (the candidate) and the tuning parameters. :func:`read_tidymodels` turns it into
cvframe's predictions frame (``.config`` becomes ``param``).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .._core import checks as _checks
from ..errors import few
from . import _common
from ._common import ReaderError

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


def _outcome(df: pd.DataFrame, truth: str | None, levels: list[str], prob_cols: list[str]) -> str:
    """The outcome column: ``truth`` when given, else the one column of class labels left."""
    if truth is not None:
        _common.require(
            df, [truth], _WHAT, f"truth={truth!r} names no column; pass the outcome's name"
        )
        return truth
    rest = [c for c in df.columns if c not in _KNOWN and c not in prob_cols]
    labelled = [c for c in rest if set(df[c].map(_common.text)) <= set(levels)]
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
    df = _common.own_table(source, _WHAT)
    cols = set(df.columns)
    _common.refuse_other(df, TOOL, _WHAT, COLUMNS)
    if ".pred" in df.columns and ".pred_class" not in df.columns:
        raise ReaderError(
            f"{_WHAT} has a `.pred` column and no `.pred_class`: the predictions of a "
            "regression model (a continuous target), not class labels; cvframe reads the "
            "predictions of a classification model (a factor outcome)."
        )
    _common.require(df, COLUMNS, _WHAT, _SAVE)
    if df.empty:
        raise ReaderError(f"{_WHAT} has no rows; {_SAVE}.")
    prob_cols = {c: c[len(".pred_") :] for c in df.columns if c.startswith(".pred_")}
    prob_cols.pop(".pred_class")
    pred = df[".pred_class"].map(_common.text)
    levels = list(prob_cols.values()) or sorted(set(pred))
    name = _outcome(df, truth, levels, list(prob_cols))
    fix = "drop rows with a missing outcome before resampling, or those predictions"
    _common.no_missing(
        df, ("id", ".pred_class", name, *(["id2"] if "id2" in cols else [])), TOOL, fix
    )
    _common.classes_only(df, (name, ".pred_class"), TOOL, "Resample a classification model")
    obs = df[name].map(_common.text)
    seen, fix = list(dict.fromkeys([*obs, *pred])), "pass truth= with the outcome column's name"
    where = f"tidymodels' `{name}`/`.pred_class`"
    levels, task = _common.class_levels(seen, list(prob_cols.values()), where, fix)
    pos = levels[0 if event_level == "first" else 1] if task == "binary" else None
    out: dict[str, Any] = {}
    if "id2" in cols:
        out["repeat"] = df["id"].map(_common.text).to_numpy()
        out["fold"] = df["id2"].map(_common.text).to_numpy()
    else:
        out["fold"] = df["id"].map(_common.text).to_numpy()
    ordered = [pos, *[c for c in levels if c != pos]] if task == "binary" else levels
    out["y_true"] = pd.Categorical(obs, categories=ordered)
    out["y_pred"] = pd.Categorical(pred, categories=ordered)
    rest: dict[str, Any] = {}
    if ".config" in cols:
        rest["param"] = df[".config"].map(_common.text).to_numpy()
    rest["sample"] = pd.to_numeric(df[".row"], errors="raise").to_numpy()
    frame = _common.predictions(
        out, _common.probabilities(df, prob_cols, TOOL), levels, pos, rest, source=TOOL, task=task
    )
    ids = df[[c for c in ("id", "id2", ".config", ".row") if c in cols]]
    fix = "Keep one row per resample and .row (dplyr::distinct() in R)"
    _common.refuse_duplicates(frame, ["repeat", "fold", "param", "sample"], ids, _WHAT, fix)
    _common.check_resamples(frame, _WHAT, f"{_SAVE}, all of it", ".config")
    return frame
