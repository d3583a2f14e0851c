"""The parsed predictions frame: read once, split once by its stacked dims, passed by name.

:func:`parse` gives a :class:`ParsedFrame`, which every score metric takes where it takes
the frame: :func:`by_frame_dims` runs the metric per part (per ``model``, ...: their scores
are never ranked together), :func:`read` holds each part to the reading asked for.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import warnings
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, fields
from typing import Any

import pandas as pd
import xarray as xr

from .._core import checks as _checks
from .._core import kernel as _kernel
from .._core import labels as _labels
from .._core.docs import doc, register
from .._core.labels import frame as frame_reader
from .._core.labels.frame import Frame, FrameArgs, agree, is_dask_frame
from ..errors import few, user_stacklevel
from ..schema import FRAME_DIMS
from . import _counted
from ._sums import STATS

__all__ = ["ParsedFrame", "by_frame_dims", "one_parse", "parse", "ranks", "read", "reads_dask"]

_EXAMPLE = """\
Examples
--------
>>> import pandas as pd
>>> from cvframe import scores
>>> df = pd.DataFrame({{"fold": {fold},
...                    "y_true": {y},
...                    "score": {score}}})"""
_EIGHT = dict(fold=[0, 0, 0, 0, 1, 1, 1, 1], y=[0, 0, 1, 1, 0, 1, 0, 1])
register(  # the predictions frames of the examples of every score metric
    {
        "score_examples": _EXAMPLE.format(
            **_EIGHT, score=[0.1, 0.4, 0.35, 0.8, 10.0, 10.5, 10.2, 11.0]
        ),
        "probability_examples": _EXAMPLE.format(
            **_EIGHT, score=[0.1, 0.4, 0.35, 0.8, 0.6, 0.7, 0.65, 0.9]
        ),
        "cost_examples": _EXAMPLE.format(
            fold=[0] * 6, y=[1, 0, 1, 1, 0, 0], score=[0.9, 0.8, 0.7, 0.6, 0.5, 0.1]
        ),
    }
)

_HARD = r"score column\(s\) .* hold only the values 0 and 1"


@dataclass(frozen=True, eq=False)
class ParsedFrame:
    """A predictions frame parsed once by :func:`cvframe.scores.parse`.

    Every score metric of :mod:`cvframe.scores` (and :func:`cvframe.interval`) takes it
    where it takes the frame. ``args`` is how it was read; ``dims`` are the frame's stacked
    columns (``model``, ...) it was split by, ``keys`` their values of every part and
    ``parts`` each part parsed, keeping the sorts of its classes; ``frame`` the rows parsed.
    """

    args: FrameArgs
    dims: tuple[str, ...]
    keys: tuple[tuple[Any, ...], ...]
    parts: tuple[Frame, ...]
    frame: pd.DataFrame

    def __repr__(self) -> str:
        fr = self.parts[0]
        split = f", {'/'.join(self.dims)}: {len(self.parts)} parts" if self.dims else ""
        return f"<ParsedFrame: {len(self.frame)} rows{split}, {fr.task}, classes {few(fr.classes)}>"


def split(df: Any) -> tuple[list[str], list[tuple[Any, ...]], list[Any]]:
    """The stacked dims of a frame (``model``, ``param``, ``dataset``, ``subset``), the key
    of every part and the parts (each with the frame's ``attrs``); none: the frame whole."""
    ok = isinstance(df, pd.DataFrame) and not isinstance(df.columns, pd.MultiIndex)
    dims = [d for d in FRAME_DIMS if ok and d in df.columns]
    if not dims:
        return [], [()], [df]
    for d in dims:
        _labels.check_no_missing(_checks.column(df, d, d), d)
    keys, parts = [], []
    for key, part in df.groupby(dims, sort=True, observed=True):
        keys.append(key if isinstance(key, tuple) else (key,))
        part = part.drop(columns=dims)
        part.attrs = dict(df.attrs)
        parts.append(part)
    return dims, keys, parts


@doc
def parse(
    df: pd.DataFrame,
    *,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
    count: str | None = None,
) -> ParsedFrame:
    r"""A predictions frame parsed once, for every score metric asked of it.

    A score metric given a frame parses it (checks the columns, codes the folds, repeats
    and classes, reads the scores) and sorts each class. Asked for several metrics (AUC_avg,
    AUC_merge, the per-fold AUC, the DeLong interval, the ROC curves, Brier), a frame is
    parsed once here, split once by its ``model`` (``param``, ``dataset``, ``subset``)
    column, and the result goes where the frame goes: each class of each part is sorted
    once (by repeat, the fold in the lowest key bits), the sort every ranking metric and
    curve reads. A dask DataFrame is reduced to its score counts (one pass, see
    ``count``); a parsed frame is returned as it is.

    <<frame_parameters>>
    count : str, optional
        ``df`` is a **score-count table** whose column ``count`` holds how many samples each
        row stands for: one row per (``model``..., ``repeat``, ``fold``, ``class``, distinct
        ``score``, ``y_true``), as ``GROUP BY`` with ``COUNT(*)`` gives it
        (:func:`cvframe.sql.score_counts`). ``class`` names the class whose score the row
        holds (one-vs-all; a binary table may leave it out: its scores are the positive
        class's). Every metric then reads the runs of tied scores the counts describe: AUC,
        average precision, precision at k, the curves, DeLong's variance, Brier and log-loss
        equal those of the rows (see Notes). A table whose ``attrs["cvframe_score_counts"]``
        names its count column is read so without ``count=``, also by every metric.

    Returns
    -------
    ParsedFrame
        ``args`` (how it was read: :class:`~cvframe._core.labels.frame.FrameArgs`),
        ``dims``, ``keys`` and ``parts`` (one parse per model, ...) and ``frame``. A metric
        given it takes its reading: an argument left at its default takes the parse's own,
        one that asks for another reading is a ValueError that says so.

    Warns
    -----
    UserWarning
        When a score column holds only 0 and 1 (hard predictions), once here.

    Notes
    -----
    A score-count table is exact: a fold's ROC, its AUC (twice the Mann-Whitney count, an
    integer), the PR curve and average precision, DeLong's placements (midranks of runs of
    tied scores) and the sums behind Brier and log-loss are functions of the positives and
    negatives of every distinct score, which the table holds. Its size is the number of
    distinct (fold, class, score, label) keys: when most scores are distinct it is as large
    as the rows, and binning the scores first (:func:`cvframe.sql.score_counts` with
    ``digits=``) shrinks it at a known cost: the AUC of the binned scores is within
    :func:`cvframe.scores.auc_tie_bound` of the AUC of the unbinned ones.

    <<score_references>>

    <<score_examples>>
    >>> parsed = scores.parse(df)
    >>> scores.auc(parsed).item(), round(scores.auc(parsed, "merge").item(), 4)
    (0.875, 0.6875)
    >>> scores.roc(parsed, auc=True).auc.nunique()  # the curves read the same sort
    3
    """
    args = FrameArgs.of(locals())
    if isinstance(df, ParsedFrame):
        for fr in df.parts:
            agree(fr, args)
        return df
    if is_dask_frame(df):  # reduced to its score counts: one pass over the partitions
        df = _counted.reduced(df, args)
    if count is not None:
        df = df.copy(deep=False)
        df.attrs = {**df.attrs, _counted.COUNTED: count}
    dims, keys, frames = split(df)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parts = tuple(_one(part, args) for part in frames)
    _rewarn(caught, len(parts), dims)
    for fr in parts:
        fr.keep = True  # later metrics read the sorts of the first
    return ParsedFrame(args, tuple(dims), tuple(keys), parts, df)


def _one(df: Any, args: FrameArgs) -> Frame:
    """One part of a frame parsed: a score-count table (``attrs`` names its count column)
    by :func:`._counted.read`, else by the one frame reader."""
    count = getattr(df, "attrs", {}).get(_counted.COUNTED)
    if count is not None:
        return _counted.read(df, args, count)
    return frame_reader.parse(df, **vars(args))


def read(df: Any, args: FrameArgs, hard_ok: bool = False) -> Frame:
    """The one reading of a predictions frame by a score metric: a part of a
    :class:`ParsedFrame` held to ``args`` (:func:`~cvframe._core.labels.frame.agree`), else
    the frame parsed with ``args``; ``hard_ok``: no warning for hard 0/1 scores, where they
    are meaningful."""
    if isinstance(df, Frame):  # a part of a ParsedFrame (by_frame_dims passes its parts)
        return agree(df, args)
    with warnings.catch_warnings():
        if hard_ok:
            warnings.filterwarnings("ignore", message=_HARD, category=UserWarning)
        fr = _one(df, args)
    if df.attrs.get(STATS):  # a dask frame reduced to per-group sums
        fr.sums = df
    return fr


def one_parse() -> contextlib.nullcontext[None]:
    """Deprecated (a :class:`FutureWarning`; the block shares nothing): parse the frame once
    with :func:`cvframe.scores.parse` and pass the result, which carries its parse and its
    sorts to every metric it is passed to."""
    warnings.warn(
        "scores.one_parse() shares nothing any more and goes in the next release: parse the "
        "frame once, parsed = cvframe.scores.parse(df, ...), and pass parsed where the frame "
        "goes (scores.auc(parsed, 'merge'), cvframe.interval(parsed, 'auc')).",
        FutureWarning,
        stacklevel=user_stacklevel(),
    )
    return contextlib.nullcontext()


def reads_dask(func: Any) -> Any:
    """Mark a metric that reduces a dask DataFrame lazily itself (see :func:`by_frame_dims`)."""
    func.reads_dask = True
    return func


def ranks(func: Any) -> Any:
    """Mark a metric that sorts every class of every part: :func:`by_frame_dims` chooses
    the engine of its sorts for all of them at once (:func:`cvframe._core.kernel.plan`)."""
    func.ranks = True
    return func


def _rank_work(parts: list[Any]) -> int:
    """The scores a ranking metric sorts over ``parts``: rows times score columns."""
    work = 0
    for part in parts:
        if isinstance(part, Frame):
            work += part.n * len(part.scores)
        elif isinstance(part, pd.DataFrame):
            cols = sum(1 for c in part.columns if str(c).startswith("score"))
            work += len(part) * max(cols, 1)
    return work


def by_frame_dims(func: Any) -> Any:
    """Compute per value of the frame's dimension columns (``model``, ``param``, ``dataset``, ...).

    Stacked models, data sets or train/test subsets are never ranked together: the metric runs
    per part (a frame's parts with its ``attrs``, or the parts of a :class:`ParsedFrame`) and
    the results are joined along those dims (or columns of a tidy table); the parts' warnings
    are merged into one per kind.
    """

    @functools.wraps(func)
    def wrapper(df: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(df, ParsedFrame):
            dims, keys, parts = list(df.dims), list(df.keys), list(df.parts)
        else:
            if is_dask_frame(df) and not getattr(func, "reads_dask", False):
                # ranking needs every score of a group in one sort, which its counts give:
                # the frame is reduced to them (one pass over the partitions)
                df = _counted.reduced(df, _frame_args(func, df, args, kwargs))
            dims, keys, parts = split(df)
        if getattr(func, "ranks", False):  # one engine for the sorts of every class and part
            _kernel.plan(_rank_work(parts), "rank")
        if not dims:
            return func(parts[0], *args, **kwargs)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pieces = [func(part, *args, **kwargs) for part in parts]
        _rewarn(caught, len(keys), dims)
        if isinstance(pieces[0], pd.DataFrame):  # tidy tables: the dims as columns, first
            tags = [dict(zip(dims, k, strict=True)) for k in keys]
            out = pd.concat([p.assign(**t) for p, t in zip(pieces, tags, strict=True)])
            out = out.reset_index(drop=True)
            return out[dims + [c for c in out.columns if c not in dims]]
        if len(dims) == 1:
            values = _labels.coord([k[0] for k in keys])  # strings stay object (netCDF-safe)
            dim = pd.Index(values, name=dims[0], dtype=values.dtype)
            out = xr.concat(pieces, dim=dim, join="outer", combine_attrs="override")
        else:
            stacked = xr.concat(pieces, dim="_group", join="outer", combine_attrs="override")
            index = pd.MultiIndex.from_tuples(keys, names=dims)
            coords = xr.Coordinates.from_pandas_multiindex(index, "_group")
            # unstack sorts; keep each dim in the order its groups came (category order)
            order = [_labels.coord(list(dict.fromkeys(ks))) for ks in zip(*keys, strict=True)]
            out = stacked.assign_coords(coords).unstack("_group")
            out = out.reindex(dict(zip(dims, order, strict=True)))
        return out.transpose(*dims, ...)

    return wrapper


def _frame_args(func: Any, df: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> FrameArgs:
    """How a call of ``func`` reads its frame: its frame arguments, given or default."""
    bound = inspect.signature(func).bind(df, *args, **kwargs)
    bound.apply_defaults()
    return FrameArgs.of({f.name: bound.arguments.get(f.name, f.default) for f in fields(FrameArgs)})


def _rewarn(caught: list[warnings.WarningMessage], n_groups: int, dims: list[str]) -> None:
    """Re-emit the parts' warnings, one per category, saying in how many parts they arose."""
    by_cat: dict[type, list[str]] = {}
    for w in caught:
        by_cat.setdefault(w.category, []).append(str(w.message))
    for cat, msgs in by_cat.items():
        note = f" [in {len(msgs)} of {n_groups} {'/'.join(dims)} groups]" if n_groups > 1 else ""
        warnings.warn(msgs[0] + note, cat, stacklevel=user_stacklevel())
