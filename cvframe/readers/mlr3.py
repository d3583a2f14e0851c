"""Reader of R mlr3's resampling and benchmark predictions.

mlr3 keeps the held-out predictions of every resampling iteration in a ``ResampleResult``
(``rr$predictions()``) and of a benchmark in its ``bmr$score()`` table. Written with ``fwrite``
/ ``write.csv`` after ``as.data.table(prediction)`` plus the iteration index, the table has one
row per (iteration, held-out sample): ``iteration`` (1, 2, ...; repeated CV numbers them
``1 .. folds * repeats``, repeat by repeat), ``row_ids`` (``row_id`` before mlr3 0.11.0),
``truth``, ``response``, ``prob.<class>`` in the task's class order (the positive class
first), and for a benchmark ``task_id`` and ``learner_id``. :func:`read_mlr3` turns it into
cvframe's predictions frame.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..errors import few
from . import _common
from ._common import ReaderError

__all__ = ["COLUMNS", "looks_like", "read_mlr3"]

#: The columns that identify mlr3's classification predictions.
COLUMNS = ("row_ids", "truth", "response")

TOOL = "mlr3"
_WHAT = "mlr3's predictions"
_SAVE = (
    "write rbindlist(lapply(seq_len(rr$iters), function(i) cbind(iteration = i, "
    "as.data.table(rr$predictions()[[i]])))) with fwrite"
)


def looks_like(df: pd.DataFrame) -> bool:
    """True when the frame's columns are mlr3's predictions: ``row_ids``, ``truth``, ``response``.

    (``row_id`` instead of ``row_ids``: mlr3 before 0.11.0.)

    Examples
    --------
    >>> import pandas as pd
    >>> looks_like(pd.DataFrame(columns=["iteration", "row_ids", "truth", "response"]))
    True
    >>> looks_like(pd.DataFrame(columns=["pred", "obs", "Resample"]))
    False
    """
    cols = {str(c) for c in getattr(df, "columns", [])}
    return {"truth", "response"} <= cols and bool(cols & {"row_ids", "row_id"})


def _check_iterations(frame: pd.DataFrame, iteration: np.ndarray, by: list[str]) -> None:
    """Every group (task, learner) has rows in each iteration 1..n: an empty one is an error."""
    groups = frame[by].astype(str).agg("/".join, axis=1) if by else pd.Series("", frame.index)
    expected = set(range(1, int(iteration.max()) + 1))
    for key, idx in groups.groupby(groups, sort=True).groups.items():
        seen = set(iteration[frame.index.get_indexer(idx)].tolist())
        lost = sorted(expected - seen)
        if lost:
            where = f" of {key}" if key else ""
            raise ReaderError(
                f"mlr3's iteration {lost[0]}{where} has no rows (iterations {few(lost)} are "
                f"missing out of 1..{max(expected)}); every resampling iteration tests some "
                f"rows: {_SAVE}, with all iterations."
            )


def read_mlr3(source: Any, positive: Any = None, *, folds: int | None = None) -> pd.DataFrame:
    """The predictions frame of mlr3's per-iteration predictions (resample or benchmark).

    Parameters
    ----------
    source : str, os.PathLike or pandas.DataFrame
        The CSV written by ``fwrite`` / ``write.csv`` (see the module docs and
        ``docs/readers_mlr3.md``), or the frame already read. Columns ``iteration``,
        ``row_ids``, ``truth``, ``response``, optional ``prob.<class>``, and for a benchmark
        ``task_id`` and ``learner_id``.
    positive : label, optional
        The positive class of a binary task (mlr3's ``task$positive``). Default: the first
        class of the task, which mlr3 writes first among the ``prob.<class>`` columns; without
        probability columns the first in sorted order (R's default factor levels). Recorded in
        ``attrs["pos_label"]``.
    folds : int, optional
        The number of folds of a repeated CV (``rsmp("repeated_cv", folds = k)``): iteration
        ``i`` is fold ``(i - 1) %% k + 1`` of repeat ``(i - 1) %/% k + 1``, as mlr3's
        ``$folds()`` and ``$repeats()`` say. Default: each iteration is one fold.

    Returns
    -------
    pandas.DataFrame
        The predictions frame: ``repeat`` (with ``folds``), ``fold`` (1-based, as mlr3),
        ``y_true``, ``y_pred`` (Categoricals in the task's class order), ``score`` (binary,
        the positive class's probability) or ``score_<class>``, ``dataset`` (``task_id``),
        ``model`` (``learner_id``), ``sample`` (``row_ids``). ``attrs``: ``source="mlr3"``,
        ``task``, ``pos_label`` (binary) or ``labels``.

    Raises
    ------
    ReaderError
        A missing column (naming it and how to write it), an iteration without rows, a table
        of another tool (naming the tool), an Excel file, a bad ``positive`` or ``folds``.

    Notes
    -----
    What mlr3 reports: ``rr$aggregate(msr("classif.fbeta"))`` has ``average = "macro"`` by
    default, the mean over iterations of the per-iteration score, F_avg =
    (1/k) sum_i F(i) (``frame.cv.counts().cv.f_avg()``); ``average = "micro"`` scores the
    pooled predictions of all iterations, F_tp,fp (``.cv.f_tp_fp()``). Forman & Scholz (2010),
    "Apples-to-apples in cross-validation studies", SIGKDD Explorations 12(1).

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({
    ...     "iteration": [1, 1, 1, 2, 2, 2], "row_ids": [1, 4, 5, 2, 3, 6],
    ...     "truth": ["yes", "no", "yes", "no", "yes", "no"],
    ...     "response": ["yes", "no", "no", "no", "yes", "yes"],
    ...     "prob.yes": [0.9, 0.2, 0.4, 0.1, 0.8, 0.6], "prob.no": [0.1, 0.8, 0.6, 0.9, 0.2, 0.4]})
    >>> frame = read_mlr3(table)
    >>> frame.attrs["pos_label"], list(frame.columns)
    ('yes', ['fold', 'y_true', 'y_pred', 'score', 'sample'])
    >>> frame.cv.counts().cv.f_avg().item()  # rr$aggregate(msr("classif.fbeta"))
    0.6666666666666666
    """
    df = _common.own_table(source, _WHAT)
    if "row_id" in df.columns and "row_ids" not in df.columns:
        df = df.rename(columns={"row_id": "row_ids"})  # mlr3 before 0.11.0
    cols = set(df.columns)
    _common.refuse_other(df, TOOL, "mlr3's predictions", COLUMNS)
    _common.require(
        df, COLUMNS, _WHAT, f"was predict_type set and the table written whole? {_SAVE}"
    )
    hint = "as.data.table(rr$prediction()) pools the iterations and drops them; " + _SAVE
    _common.require(df, ["iteration"], _WHAT, hint)
    if df.empty:
        raise ReaderError(f"{_WHAT} have no rows; {_SAVE}.")
    fix = "drop those rows (a learner that failed to predict) or use a fallback learner"
    _common.no_missing(df, ("iteration", "truth", "response"), TOOL, fix)
    _common.classes_only(df, ("truth", "response"), TOOL, "Write the predictions of a classif task")
    truth = df["truth"].map(_common.text)
    response = df["response"].map(_common.text)
    prob_cols = {c: c[len("prob.") :] for c in df.columns if c.startswith("prob.")}
    seen, fix = list(dict.fromkeys([*truth, *response])), "write all of as.data.table(prediction)"
    levels, task = _common.class_levels(
        seen, list(prob_cols.values()), "mlr3's `truth`/`response`", fix
    )
    pos = _common.positive_class(
        positive, levels, task, "mlr3's `truth`", " (the task's $positive)"
    )
    iteration = _common.numbers(df, "iteration", TOOL, "the iteration (1, 2, ...)", integer=True)
    if (iteration < 1).any():
        raise ReaderError(
            f"mlr3's `iteration` column holds {int(iteration.min())}; mlr3 numbers iterations "
            "from 1."
        )
    by = [c for c in ("task_id", "learner_id") if c in cols]
    _check_iterations(df, iteration, by)
    out: dict[str, Any] = {}
    if folds is not None:
        if isinstance(folds, bool) or not isinstance(folds, (int, np.integer)) or folds < 2:
            raise ReaderError(f"folds={folds!r} must be the number of folds, an integer >= 2.")
        n_iter = int(iteration.max())
        if n_iter % folds:
            raise ReaderError(
                f"folds={folds} does not divide the {n_iter} iterations of mlr3's predictions; "
                "pass the resampling's `folds` (rr$resampling$param_set$values$folds)."
            )
        out["repeat"] = (iteration - 1) // folds + 1
        out["fold"] = (iteration - 1) % folds + 1
    else:
        out["fold"] = iteration
    ordered = [pos, *[c for c in levels if c != pos]] if task == "binary" else levels
    out["y_true"] = pd.Categorical(truth, categories=ordered)
    out["y_pred"] = pd.Categorical(response, categories=ordered)
    rest: dict[str, Any] = {}
    if "task_id" in cols:
        rest["dataset"] = df["task_id"].map(_common.text).to_numpy()
    if "learner_id" in cols:
        rest["model"] = df["learner_id"].map(_common.text).to_numpy()
    rest["sample"] = _common.numbers(df, "row_ids", TOOL, "the row of the task", integer=True)
    if "weights" in cols:
        rest["weights"] = pd.to_numeric(df["weights"], errors="raise").to_numpy(np.float64)
    probs = _common.probabilities(df, prob_cols, TOOL)
    frame = _common.predictions(out, probs, levels, pos, rest, source=TOOL, task=task)
    ids = df[[c for c in ("task_id", "learner_id", "iteration", "row_ids") if c in cols]]
    fix = "Keep one row per iteration and row_ids (unique() in R)"
    _common.refuse_duplicates(
        frame, ["dataset", "model", "repeat", "fold", "sample"], ids, _WHAT, fix
    )
    return frame
