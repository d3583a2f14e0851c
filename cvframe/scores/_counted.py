r"""Score metrics from per-score counts: a ``GROUP BY`` of the predictions, read exactly.

Every ranking metric, curve and calibration score of a fold is a function of how many
positives and negatives each distinct score has: the rows ``(repeat, fold, class, score,
y_true) -> count`` of a score-count table (:func:`cvframe.sql.score_counts` writes the
query) are the sort of the rows they stand for, run by run. :func:`read` turns such a table
into a :class:`CountedFrame` (a :class:`~cvframe._core.labels.frame.Frame` whose classes
keep their own rows and counts), and :class:`Runs` is one class's runs of tied scores per
group, with the same methods, on the same integers, as the row sort
(:class:`~._rank.Ranked`): AUC (the Mann-Whitney count), DeLong's placements, average
precision, precision at k and the ROC points.

Positions are counted in samples: a run of tied scores that holds ``neg`` negatives and
``pos`` positives spans ``[start, start + neg + pos)``, its negatives first, as in the
packed sort of the rows (the label is the lowest key bit).
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .. import metrics
from .._core import checks as _checks
from .._core import labels as _labels
from .._core.labels import frame as frame_reader
from .._core.labels.frame import Frame, FrameArgs, frame_pos_label, has_repeat
from ..build.grouped import check_count, check_unique_keys, from_grouped
from ..errors import ColumnError, few, user_stacklevel
from ..schema import CLASS, FRAME_DIMS
from ._rank import precision_at, run_delong

__all__ = [
    "COUNTED",
    "CountedFrame",
    "Runs",
    "counted_cube",
    "read",
    "reduced",
    "reduces",
    "score_counts",
]

#: ``attrs`` key of a score-count table: the name of its count column.
COUNTED = "cvframe_score_counts"

_WHAT = "score-count table"


def _group_sums(values: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Exact int64 sums of ``values`` over the runs ``bounds[g]:bounds[g + 1]``."""
    cs = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum(values, out=cs[1:])
    return cs[bounds[1:]] - cs[bounds[:-1]]


class Runs:
    """One class's score counts per group as runs of tied scores, sorted by (group, score).

    ``g`` (group of every run, ascending), ``s`` (its score, ascending within a group),
    ``pos`` and ``neg`` (int64 counts, not both 0). Built by :meth:`of`.
    """

    ties = True  #: a run may hold several samples: the tie-aware formulas apply

    def __init__(self, g: np.ndarray, s: np.ndarray, pos: np.ndarray, neg: np.ndarray, k: int):
        self.n_groups = k
        self.g, self.s, self.pos, self.neg = g, s, pos, neg
        self.rb = np.searchsorted(g, np.arange(k + 1)).astype(np.int64)  # runs of each group
        width = pos + neg
        self.start = np.zeros(len(g) + 1, dtype=np.int64)  # sample position of every run
        np.cumsum(width, out=self.start[1:])
        self.cpos = np.zeros(len(g) + 1, dtype=np.int64)  # positives before every run
        np.cumsum(pos, out=self.cpos[1:])
        self.bounds = self.start[self.rb]  # sample position where each group starts
        self.size = np.diff(self.bounds)
        self.n = int(self.start[-1])
        self._auc: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    @classmethod
    def of(cls, g: np.ndarray, k: int, s: np.ndarray, y: np.ndarray, w: np.ndarray) -> Runs:
        """The runs of rows ``(group g, score s, positive y, count w > 0)`` in ``k`` groups:
        rows of equal (group, score) pooled, their positives and negatives summed."""
        order = np.lexsort((s, g))
        g, s, y, w = g[order], s[order], y[order], w[order]
        new = np.ones(len(g), dtype=bool)
        if len(g):
            new[1:] = (g[1:] != g[:-1]) | (s[1:] != s[:-1])
        starts = np.flatnonzero(new)
        wp = np.where(y, w, 0)
        pos = np.add.reduceat(wp, starts) if len(starts) else wp[:0]
        neg = np.add.reduceat(w, starts) - pos if len(starts) else w[:0]
        return cls(g[starts], s[starts], pos.astype(np.int64), neg.astype(np.int64), k)

    # --- positions, as the row sort has them -------------------------------------------------

    @property
    def npos(self) -> np.ndarray:
        return np.diff(self.cpos[self.rb])

    def release(self) -> None:
        """Nothing to drop (the row sort's temporaries have no counterpart)."""

    def blocks(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start, end (exclusive, in samples) and group of every run."""
        return self.start[:-1], self.start[1:], self.g

    def _run(self, idx: np.ndarray) -> np.ndarray:
        """The run that holds each sample position ``idx`` (< n)."""
        return np.searchsorted(self.start, idx, side="right") - 1

    def run_at(self, cut: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Start and end of the run of tied scores holding each position ``cut``."""
        r = self._run(cut)
        return self.start[r], self.start[r + 1]

    def cp_at(self, idx: np.ndarray) -> np.ndarray:
        """Positives among the first ``idx`` samples (a run's negatives come first)."""
        idx = np.asarray(idx, dtype=np.int64)
        r = np.minimum(self._run(np.minimum(idx, max(self.n - 1, 0))), len(self.g) - 1)
        inside = np.clip(idx - self.start[r] - self.neg[r], 0, self.pos[r])
        return np.where(idx >= self.n, self.cpos[-1], self.cpos[r] + inside)

    def block_scores(self, bs: np.ndarray) -> np.ndarray:
        """The score of the runs starting at sample positions ``bs``."""
        return self.s[self._run(bs)]

    # --- the metrics ------------------------------------------------------------------------

    def auc(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(AUC, n_pos, n_neg) per group from twice the Mann-Whitney count, an exact int64
        sum over the runs: :math:`\\sum_j pos_j (2 N^{below}_j + neg_j)`."""
        if self._auc is None:
            cneg = self.start[:-1] - self.cpos[:-1]  # negatives before every run
            below = cneg - (self.bounds - self.cpos[self.rb])[:-1][self.g]
            s2 = _group_sums(self.pos * (2 * below + self.neg), self.rb)
            npos = self.npos
            nneg = self.size - npos
            with np.errstate(invalid="ignore", divide="ignore"):
                value = s2 / (2.0 * npos * nneg)
            value[(npos == 0) | (nneg == 0)] = np.nan
            self._auc = (value, npos, nneg)
        return self._auc

    def delong(self) -> dict[str, np.ndarray]:
        """Per group: AUC, positives and DeLong's variance from the midrank placements of
        every run (Sun & Xu 2014), as :meth:`~._rank.Ranked.delong` reads them off the rows."""
        value, npos, nneg = self.auc()
        bs, be, bg = self.blocks()
        start = self.bounds[bg]
        p_run, n_run = self.pos, self.neg
        p_before = self.cpos[:-1] - self.cpos[self.rb][bg]
        n_before = (bs - start) - p_before
        return run_delong(value, npos, nneg, p_run, n_run, p_before, n_before, bg)

    def average_precision(self) -> tuple[np.ndarray, np.ndarray]:
        """(AP, n_pos) per group, scikit-learn's step-wise definition (tied samples enter
        together): every run with positives adds ``pos * precision`` at its threshold."""
        npos = self.npos
        bs, _, bg = self.blocks()
        ge = self.bounds[bg + 1]
        tp_ge = self.cpos[self.rb][bg + 1] - self.cpos[:-1]  # positives scored >= the run's
        hit = self.pos > 0
        w = self.pos[hit] * (tp_ge[hit] / (ge[hit] - bs[hit]))
        with np.errstate(invalid="ignore", divide="ignore"):
            value = np.bincount(bg[hit], weights=w, minlength=self.n_groups) / npos
        value[npos == 0] = np.nan
        return value, npos

    def precision_at(self, k: np.ndarray) -> np.ndarray:
        """Expected precision among the k top-scored of each group (ties at the cut shared);
        NaN where k < 1 or the group has fewer than k samples."""
        return precision_at(self, k)

    def curve(self) -> dict[str, np.ndarray]:
        """Every run as a ROC point, per group in descending score order."""
        bs, _, bg = self.blocks()
        ge = self.bounds[bg + 1]
        tp = self.cpos[self.rb][bg + 1] - self.cpos[:-1]
        fp = (ge - bs) - tp
        npos = self.npos
        order = np.lexsort((-np.arange(len(bs)), bg))
        return {
            "group": bg[order],
            "threshold": self.s[order],
            "tp": tp[order],
            "fp": fp[order],
            "npos": npos,
            "nneg": self.size - npos,
        }

    def tie_bound(self) -> tuple[np.ndarray, np.ndarray]:
        r"""(bound, n_pos) per group, :math:`\sum_j pos_j\, neg_j / (2 n_+ n_-)`: how far
        the AUC of these runs can be from the AUC of scores that break the ties of every run
        (a run of a binned score holds the samples of its bin). NaN where AUC is undefined."""
        value, npos, nneg = self.auc()
        tied = _group_sums(self.pos * self.neg, self.rb)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(np.isnan(value), np.nan, tied / (2.0 * npos * nneg)), npos


@dataclass
class CountedFrame(Frame):
    """A :class:`~cvframe._core.labels.frame.Frame` read from a score-count table.

    Every class keeps its own rows (a row: a group, a score, whether its samples are
    positive, and their number): ``ys[c]``, ``scores[c]``, ``weights[c]``, ``fold_of[c]`` and
    ``rep_of[c]`` are class ``c``'s. The frame's own ``fold_codes``/``rep_codes`` are the
    first class's (each class's rows count every sample of a group once). ``kept``: the
    runs of each (class, per fold) kept for later metrics (``keep``).
    """

    weights: list[np.ndarray] = field(default_factory=list)
    fold_of: list[np.ndarray] = field(default_factory=list)
    rep_of: list[np.ndarray | None] = field(default_factory=list)
    kept: dict[tuple[int, bool], Runs] = field(default_factory=dict, repr=False)

    def sizes(self) -> np.ndarray:
        """Samples per (repeat, fold) group (and which groups are folds)."""
        g, k = self.class_groups(0, True)
        counts = np.bincount(g, weights=self.weights[0], minlength=k).astype(np.int64)
        if self.present_ is None:
            self.present_ = counts > 0
        return counts

    def class_groups(self, c: int, per_fold: bool) -> tuple[np.ndarray, int]:
        """Group of every row of class ``c``: (repeat, fold) when ``per_fold``, else repeat."""
        fold, rep = self.fold_of[c], self.rep_of[c]
        if per_fold:
            return (fold if rep is None else rep * self.n_folds + fold), self.n_reps * self.n_folds
        return (np.zeros(len(fold), np.int64) if rep is None else rep), self.n_reps

    def runs(self, c: int, per_fold: bool) -> Runs:
        """Class ``c``'s runs of tied scores per group."""
        g, k = self.class_groups(c, per_fold)
        return Runs.of(g, k, self.scores[c], self.ys[c], self.weights[c])


def _scores(col: pd.Series) -> np.ndarray:
    if col.dtype.kind == "b" or not pd.api.types.is_numeric_dtype(col.dtype):
        raise TypeError(
            f"score column {col.name!r} of the {_WHAT} has dtype {col.dtype}; scores must be "
            "numbers."
        )
    s = col.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(s)
    if bad.any():
        raise ValueError(
            f"score column {col.name!r} of the {_WHAT} has {int(bad.sum())} NaN or infinite "
            f"scores at rows {few(col.index[bad])}; every tested sample needs a finite score. "
            "Drop those rows before the GROUP BY, or fix the model's output."
        )
    return s + 0.0  # -0.0 and 0.0 are one score


def _resolve(
    df: pd.DataFrame, args: FrameArgs, universe: list[Hashable], scored: list[Any] | None
) -> tuple[list[Any], bool]:
    """The scored classes and whether the task is binary (the rules of the row reader)."""
    labels = _labels.attrs_labels(df.attrs, args.labels)
    pos = frame_pos_label(df, args.pos_label, labels, universe)
    try:
        default = _labels.binary_pos(universe, True, None)
    except ValueError:
        default = None
    both = scored is not None and len(universe) == 2 and labels is not None and default is None
    both = both and all(_labels.find(c, scored or []) >= 0 for c in universe)
    if pos is None and scored is not None and len(scored) == 1 and len(universe) <= 2:
        pos = _labels.member(scored[0], universe, f"{CLASS} {scored[0]!r}")
    if pos is None and len(universe) <= 2 and not both:
        pos = default
        if pos is None:
            raise ValueError(
                f"y_true has labels {few(universe)}, not {{0, 1}} or {{False, True}}: pass "
                "pos_label= to say which one is the positive class."
            )
    if pos is not None:
        return [pos], True
    if scored is None:
        raise ColumnError(
            f"the {_WHAT} has no column {CLASS!r} but {len(universe)} labels {few(universe)}: "
            f"a multiclass table needs the class whose score each row holds in column "
            f"{CLASS!r} (one GROUP BY per score column, stacked), or pass pos_label=."
        )
    return list(universe), False


def _universe(df: pd.DataFrame, y_true: str, args: FrameArgs, scored: Any) -> list[Hashable]:
    labels = _labels.attrs_labels(df.attrs, args.labels)
    col = _checks.column(df, y_true, "y_true", _WHAT)
    _labels.check_no_missing(col, "y_true")
    if labels is not None:
        return _labels.check_labels_arg(labels)
    if isinstance(col.dtype, pd.CategoricalDtype):
        return [_labels.plain(v) for v in col.cat.categories]
    seen = [_labels.observed(_labels.as_labels(col, "y_true"), "y_true")]
    if scored is not None:
        seen.append(np.asarray(scored))
    return _labels.merge(seen, "y_true/class")


def read(df: pd.DataFrame, args: FrameArgs, count: str) -> CountedFrame:
    """Read one part of a score-count table (one model, ...; see :func:`cvframe.scores.parse`).

    Columns: ``fold``, optional ``repeat``, ``class`` (the class whose score the row holds;
    optional for a binary table, whose scores are the positive class's), ``score``, ``y_true``
    and ``count`` (the names of ``args`` and ``count``).
    """
    if not isinstance(df, pd.DataFrame) or isinstance(df.columns, pd.MultiIndex):
        raise TypeError(f"the {_WHAT} must be a DataFrame with flat columns.")
    w = check_count(df, count, _WHAT)
    score = _checks.column(df, args.score, "score", _WHAT)
    keys = [c for c in (args.repeat, args.fold, CLASS, args.score, args.y_true) if c in df]
    check_unique_keys(df, keys, _WHAT)
    keep = w > 0
    if not keep.any():
        raise ValueError(f"every count of column {count!r} is 0; the {_WHAT} counts no samples.")
    df, w = df.loc[keep], w[keep]
    s = _scores(score.loc[keep])
    fc, fk = _labels.column_groups(_checks.column(df, args.fold, "fold", _WHAT), "fold")
    rc = rk = None
    if has_repeat(df, args.repeat):
        rc, rk = _labels.column_groups(df[args.repeat], "repeat")
    scored_col = df[CLASS] if CLASS in df.columns else None
    if scored_col is not None:
        _labels.check_no_missing(scored_col, CLASS)
    scored = None if scored_col is None else _labels.merge([scored_col.unique()], CLASS)
    universe = _universe(df, args.y_true, args, scored)
    classes, binary = _resolve(df, args, universe, scored)
    yt = _labels.codes(_labels.as_labels(df[args.y_true], "y_true"), universe, "y_true")
    own = (
        np.zeros(len(df), np.int64)
        if scored_col is None
        else np.asarray(_labels.codes(_labels.as_labels(scored_col, CLASS), universe, CLASS))
    )
    if binary and scored_col is None:
        s = _owned(df, s, classes[0], universe, args)
    rows = []
    for c in classes:
        k = _labels.find(c, universe)
        sel = own == k if scored_col is not None else np.ones(len(df), bool)
        if not sel.any():
            raise ValueError(
                f"the {_WHAT} has no rows of class {c!r} in column {CLASS!r} (it has "
                f"{few(scored or [])}); every scored class needs the counts of its scores."
            )
        rows.append((sel, np.asarray(yt)[sel] == k))
    _check_totals(df, classes, rows, w, fc, rc, args)
    names = [str(args.score)] if binary else [f"{args.score}_{c}" for c in classes]
    fr = CountedFrame(
        n=int(rows[0][0].sum()),
        fold_codes=fc[rows[0][0]],
        fold_coord=fk,
        rep_codes=None if rc is None else rc[rows[0][0]],
        rep_coord=rk,
        classes=[_labels.plain(c) for c in classes],
        binary=binary,
        ys=[y for _, y in rows],
        scores=[s[sel] for sel, _ in rows],
        score_cols=names,
        ranges=[(float(s[sel].min()), float(s[sel].max())) for sel, _ in rows],
        args=args,
        weights=[w[sel] for sel, _ in rows],
        fold_of=[fc[sel] for sel, _ in rows],
        rep_of=[None if rc is None else rc[sel] for sel, _ in rows],
    )
    fr.sizes()
    return fr


def _owned(
    df: pd.DataFrame, s: np.ndarray, pos: Any, universe: list[Hashable], args: FrameArgs
) -> np.ndarray:
    """The scores of a binary table without a class column as the positive class's: its
    ``attrs["pos_label"]`` names the class they belong to (the rule of the row reader); for
    the other class, ``1 - score`` when they are probabilities, else a ValueError."""
    raw = _labels.attrs_pos(df.attrs)
    if raw is None:
        return s
    owner = _labels.from_attr(raw, universe)
    if _labels.find(owner, [pos]) == 0:
        return s
    if s.min() >= 0.0 and s.max() <= 1.0:
        return 1.0 - s
    raise ValueError(
        f"pos_label={pos!r} asks for the scores of class {pos!r}, but column {args.score!r} "
        f"of the {_WHAT} holds those of class {owner!r} (its attrs['pos_label']) and they are "
        f"not probabilities; pass pos_label={owner!r}."
    )


def _check_totals(
    df: pd.DataFrame,
    classes: list[Any],
    rows: list[tuple[np.ndarray, np.ndarray]],
    w: np.ndarray,
    fc: np.ndarray,
    rc: np.ndarray | None,
    args: FrameArgs,
) -> None:
    """Every class's rows count the same samples per (repeat, fold, label): each sample
    has one score of every class."""
    if len(classes) < 2:
        return
    yt = df[args.y_true].to_numpy()
    tables = []
    for sel, _ in rows:
        key = pd.DataFrame({"f": fc[sel], "y": yt[sel], "w": w[sel]})
        if rc is not None:
            key["r"] = rc[sel]
        tables.append(key.groupby([c for c in ("r", "f", "y") if c in key], sort=True)["w"].sum())
    first = tables[0]
    for c, t in zip(classes[1:], tables[1:], strict=True):
        if not t.equals(first):
            diff = t.sub(first, fill_value=0)
            bad = diff[diff != 0].index[:3].tolist()
            raise ValueError(
                f"the {_WHAT} counts other samples for class {c!r} than for class "
                f"{classes[0]!r} (at (repeat, fold, y_true) = {bad}); every sample needs a "
                f"score of every class, each counted once in column {args.score!r}."
            )


def _scored_classes(df: Any, args: FrameArgs) -> list[Any] | None:
    """The classes a predictions frame scores one-vs-all (its ``<score>_<label>`` columns,
    labels of ``y_true``'s kind), or None when it has one ``score`` column (binary)."""
    cols = [str(c) for c in df.columns]
    if args.score in cols:
        return None
    if args.labels is not None:
        return _labels.check_labels_arg(args.labels)
    prefix = f"{args.score}_"
    names = [c[len(prefix) :] for c in cols if c.startswith(prefix)]
    if not names:
        raise ColumnError(
            f"the predictions frame has no column {args.score!r} nor {prefix}<label> columns "
            f"(columns: {few(cols, 10)}); pass score= with the name of its score column(s)."
        )
    kind = df[args.y_true].dtype
    if isinstance(kind, pd.CategoricalDtype):
        return [_labels.plain(c) for c in kind.categories if str(c) in names]
    if kind.kind in "iu":
        return [int(n) for n in names]
    if kind.kind == "b":
        return [n == "True" for n in names]
    return names


def frame_reader_multilabel(df: Any, y_true: str) -> bool:
    """Whether a frame is multilabel (no ``y_true`` column, ``y_true_<label>`` ones)."""
    return frame_reader.multilabel_names(df, y_true) is not None


def score_counts(
    df: Any,
    *,
    labels: Any = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
    digits: int | None = None,
) -> pd.DataFrame:
    """The score-count table of a predictions frame (pandas or dask), read as counts by
    every score metric; see :func:`cvframe.scores.score_counts`."""
    from .. import sql

    args = FrameArgs(labels, pos_label, y_true, fold, repeat, score)
    if frame_reader_multilabel(df, y_true):
        raise ValueError(
            "this predictions frame is multilabel (y_true_<label> columns): score counts are "
            "for single-label frames; a score metric reads a multilabel frame's rows."
        )
    for name, arg in ((y_true, "y_true"), (fold, "fold")):
        _checks.column(df, name, arg, "predictions frame")
    dims = [d for d in FRAME_DIMS if d in df.columns]
    rep = repeat if has_repeat(df, repeat) and repeat not in dims else None
    classes = _scored_classes(df, args)
    kw: dict[str, Any] = dict(y_true=y_true, fold=fold, repeat=rep, score=score, dims=dims)
    if frame_reader.is_dask_frame(df):
        out = sql.dask_score_counts(df, classes, digits=digits, **kw).compute()
    else:
        out = sql.pandas_score_counts(df, classes, digits=digits, **kw)
    out.attrs = {**dict(getattr(df, "attrs", None) or {}), COUNTED: "count"}
    if digits is None:
        _too_many(out, len(classes or [0]))
    return out


#: Past this many samples, a score-count table of mostly distinct scores earns a warning.
_LARGE = 100_000


def _too_many(table: pd.DataFrame, n_classes: int) -> None:
    """Say so when most scores are distinct (the table nearly as large as the rows), with
    the AUC bound of rounding them to 3 decimals."""
    samples = int(table["count"].sum()) // max(n_classes, 1)
    rows = len(table) / max(n_classes, 1)
    if samples < _LARGE or rows < samples / 2:
        return
    warnings.warn(
        f"the score counts have {rows:.0f} rows per class for {samples} samples: most scores "
        "are distinct, so the table is nearly as large as the predictions. Round the scores "
        "(score_counts(..., digits=3), cvframe.sql.score_counts(..., digits=3)): every AUC "
        "then stays within cvframe.scores.auc_tie_bound of the table of rounded scores of "
        "the exact one.",
        UserWarning,
        stacklevel=user_stacklevel(),
    )


def counted_cube(df: Any, args: FrameArgs, dims: list[str], **cols: Any) -> Any:
    """The counts cube of the samples a score-count table counts (``cols``: the ``y_true``,
    ``y_pred``, ``fold``, ``repeat`` columns of :func:`cvframe.build.counts_from_frame`;
    ``y_pred`` must be ``y_true``: the fold and class totals), by
    :func:`cvframe.build.from_grouped`; None for a frame of rows."""
    count = getattr(df, "attrs", {}).get(COUNTED)
    if count is None:
        return None
    if cols["y_pred"] != cols["y_true"]:
        raise ValueError(
            f"a {_WHAT} holds scores, not predicted labels: the count metrics need the counts "
            "of (y_true, y_pred), cvframe.from_grouped() of cvframe.sql.counts(...)."
        )
    pos = args.pos_label
    if CLASS in df.columns:  # every class's rows count every sample: one class's suffice
        first = df[CLASS].iloc[0]
        if pos is None and df[CLASS].nunique() == 1:
            pos = first
        df = df[df[CLASS] == first]
    keys = list(dict.fromkeys([*dims, cols.get("repeat"), cols["fold"], cols["y_true"]]))
    keys = [k for k in keys if k is not None and k in df.columns]
    table = df.groupby(keys, sort=False, observed=True)[count].sum().reset_index()
    return from_grouped(table, args.labels, pos, count=count, dims=dims, **cols)


def reduced(df: Any, args: FrameArgs) -> Any:
    """A dask frame as a score metric reads it: its score counts (one pass over the
    partitions), or the frame computed when it is multilabel (each label scored from its
    rows)."""
    if frame_reader_multilabel(df, args.y_true):
        return df.compute()
    return score_counts(df, **vars(args))


def reduces(data: Any, metric: Any) -> bool:
    """Whether ``metric`` reads ``data`` from its score counts: a dask frame asked for a
    score metric (one pass over it, not the frame computed)."""
    if not frame_reader.is_dask_frame(data) or not isinstance(metric, str):
        return False
    try:
        return metrics.resolve(metric).entry.kind == "score"
    except ValueError:  # an unknown name: the caller says so
        return False
