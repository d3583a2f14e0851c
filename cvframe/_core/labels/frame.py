"""The one reader of a predictions frame, on the label policy of :mod:`cvframe._core.labels`.

:func:`parse` turns the frame into plain numpy arrays (:class:`Frame`): fold/repeat group
codes, the classes, and per scored class an "is positive" indicator and float64 scores. The
rules every reader shares: :func:`frame_pos_label` (the positive class, from ``pos_label`` or
the frame's ``attrs``), :func:`multilabel_names` (a multilabel frame's labels: each is scored
one-vs-rest from its ``y_true_<label>`` and ``score_<label>`` columns), :func:`score_column`
(which column holds that class's scores, matched by name, never by position),
:func:`test_rows`, :func:`has_repeat`, :func:`is_dask_frame`. :class:`FrameArgs` names how a
frame is read (its columns, ``labels`` and ``pos_label``); a :class:`Frame` keeps it, and
:func:`agree` holds a parsed frame to the reading a later call asks for. Its checks of
column roles (:func:`one_role`) and of score columns live in :mod:`._frame_checks`.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ...errors import ColumnError, few
from ...schema import FRAME_DIMS, REPEAT, SUBSET
from .. import checks as _checks
from .. import labels as _labels
from ._frame_checks import one_role as one_role  # re-exported: the reader's column-role rule
from ._frame_checks import read_scores, role


@dataclass(frozen=True)
class FrameArgs:
    """How a predictions frame is read: the ``labels=, pos_label=, y_true=, fold=, repeat=,
    score=`` arguments of every score metric, as named fields with their defaults.

    >>> FrameArgs(pos_label="spam").score
    'score'
    """

    labels: Sequence[Hashable] | None = None
    pos_label: Hashable | None = None
    y_true: str = "y_true"
    fold: str = "fold"
    repeat: str | None = "repeat"
    score: str = "score"

    @classmethod
    def of(cls, scope: Mapping[str, Any]) -> FrameArgs:
        """The fields from a caller's ``locals()`` (its parameters of the same names)."""
        return cls(**{f.name: scope[f.name] for f in fields(cls)})


@dataclass
class Frame:
    """What the metrics need from a predictions frame, as plain numpy arrays.

    ``args``: how it was read. ``sorts``: each class's sorts by fold and by repeat (class
    index -> pair), kept when ``keep`` (a frame parsed once for several metrics); ``sums``:
    the per-group sums a dask frame was reduced to, when it was read from them.
    """

    n: int
    fold_codes: np.ndarray  # int64, 0..n_folds-1
    fold_coord: np.ndarray
    rep_codes: np.ndarray | None  # int64, 0..n_reps-1, or None without a repeat column
    rep_coord: np.ndarray | None
    classes: list[Any]  # the class coordinate
    binary: bool
    ys: list[np.ndarray]  # per class: "is positive", bool or int64 0/1
    scores: list[np.ndarray]  # per class: float64 scores
    score_cols: list[str]
    ranges: list[tuple[float, float]]  # per class: (min, max) score
    present_: np.ndarray | None = None  # per (repeat, fold) group: has rows
    multilabel: bool = False  # the classes are the labels of a multilabel frame
    args: FrameArgs = field(default_factory=FrameArgs)
    keep: bool = False
    sorts: dict[int, Any] = field(default_factory=dict, repr=False)
    sums: Any = field(default=None, repr=False)

    @property
    def task(self) -> str:
        """``"binary"``, ``"multiclass"`` (one-vs-all) or ``"multilabel"`` (label by label)."""
        return "multilabel" if self.multilabel else "binary" if self.binary else "multiclass"

    @property
    def fold_keep(self) -> np.ndarray:
        """Which fold coordinates occur in some repeat."""
        return np.asarray(self.present.reshape(self.n_reps, self.n_folds).any(axis=0))

    @property
    def present(self) -> np.ndarray:
        """Which (repeat, fold) groups have rows: a repeat may have fewer folds (not a fold)."""
        if self.present_ is None:
            self.sizes()
        assert self.present_ is not None
        return self.present_

    def sizes(self) -> np.ndarray:
        """Rows per (repeat, fold) group (and which groups are folds, :attr:`present`)."""
        g, n_groups = self.groups(True)
        assert g is not None
        counts = np.bincount(g, minlength=n_groups)
        if self.present_ is None:
            self.present_ = counts > 0
        return counts

    @property
    def n_folds(self) -> int:
        return len(self.fold_coord)

    @property
    def n_reps(self) -> int:
        return 1 if self.rep_coord is None else len(self.rep_coord)

    def groups(self, per_fold: bool) -> tuple[np.ndarray | None, int]:
        """Group id of every row: (repeat, fold) when per_fold, else repeat; and the count."""
        if per_fold:
            if self.rep_codes is None:
                return self.fold_codes, self.n_folds
            return self.rep_codes * self.n_folds + self.fold_codes, self.n_reps * self.n_folds
        return self.rep_codes, self.n_reps


def _classes(yt: pd.Series, labels: Any) -> tuple[np.ndarray, list[Any]]:
    """Codes of ``y_true`` into the class universe, and the universe (cf. ``counts()``)."""
    _labels.check_no_missing(yt, "y_true")
    if isinstance(yt.dtype, pd.CategoricalDtype):
        raw, uniq = yt.cat.codes.to_numpy(), np.asarray(yt.cat.categories)
        universe, _ = _labels.universe(yt.array, labels=labels)
    else:
        fast = _labels.range_codes(yt.to_numpy())
        raw, uniq = fast or _labels.factorize(_labels.as_labels(yt, "y_true"), "y_true")
        uniq = np.asarray(uniq)
        seen = _labels.check_unique(uniq[_labels.present(raw, len(uniq))], "y_true")
        if labels is None:
            _labels.check_classes(seen, "y_true")
        universe, _ = _labels.universe(np.asarray(seen), labels=labels)
    codes = _labels.recode(raw, uniq, universe, "y_true")
    return np.asarray(codes), [_labels.plain(u) for u in universe]


def frame_pos_label(df: Any, pos_label: Any, labels: Any, universe: Sequence[Hashable]) -> Any:
    """The positive class of a predictions frame: the one resolution of its ``pos_label``.

    ``pos_label``: the element of ``universe`` it names (a ValueError when none). Else the
    frame's ``attrs["pos_label"]`` when it applies
    (:func:`cvframe._core.labels.attrs_pos`); else None.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"y_true": ["a", "b"]})
    >>> df.attrs = {"task": "binary", "pos_label": "a"}
    >>> frame_pos_label(df, None, None, ["a", "b"]), frame_pos_label(df, "b", None, ["a", "b"])
    ('a', 'b')
    """
    if pos_label is None:
        raw = _labels.attrs_pos(getattr(df, "attrs", None), labels)
        return None if raw is None else _labels.pos_from_attrs(raw, universe)
    return _labels.member(pos_label, universe, f"pos_label={_labels.plain(pos_label)!r}")


class ScoreColumn(NamedTuple):
    """Where the positive class's scores are: see :func:`score_column`."""

    name: Hashable  #: the column
    owner: Any  #: the class whose scores the column holds
    complement: bool  #: the positive class's score is ``1 - column`` (a probability)


def _same(a: Any, b: Any) -> bool:
    return _labels.find(a, [b]) == 0


def score_column(
    df: Any, score: Hashable, pos_label: Any, universe: Sequence[Hashable]
) -> ScoreColumn:
    """Which column holds the scores of the positive class ``pos_label``, and whose they are.

    - The column named ``score`` holds the scores of the class the frame's
      ``attrs["pos_label"]`` names (``attrs["task"]`` binary or absent); without it, of
      ``pos_label`` (as scikit-learn's ``roc_curve(y, score, pos_label=...)`` reads it).
    - A column ``<score>_<label>`` holds the scores of ``label``.

    When ``pos_label`` is another class than the one the ``score`` column belongs to, its own
    column ``<score>_<pos_label>`` is used; else, for two classes whose scores are
    probabilities in [0, 1], ``1 - score`` (``complement=True``); else a ValueError naming
    ``pos_label``, the owner and the fix. A class's scores are never read as another's.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"y_true": ["a", "b"], "score": [0.2, 0.9]})
    >>> df.attrs = {"task": "binary", "pos_label": "b"}
    >>> score_column(df, "score", "a", ["a", "b"])
    ScoreColumn(name='score', owner='b', complement=True)
    """
    pos = _labels.plain(pos_label)
    own = f"{score}_{pos}"
    have = df.columns
    if score in have:
        raw = _labels.attrs_pos(getattr(df, "attrs", None))  # no record: the class asked for
        owner = pos if raw is None else _labels.from_attr(raw, list(universe))
        why = "" if raw is None else f"the frame's attrs['pos_label']={raw!r}"
        if _same(owner, pos):
            return ScoreColumn(score, pos, False)
        name: Hashable = score
    else:
        # two classes: the other class's own column can stand in (as 1 - its probability)
        others = [(f"{score}_{c}", c) for c in universe if not _same(c, pos)]
        others = [(n, c) for n, c in others if n in have and len(universe) == 2]
        owner, why = (others[0][1], "") if others else (None, "")
        name = others[0][0] if others else own
    if own in have:
        return ScoreColumn(own, pos, False)
    if owner is None:
        raise ColumnError(
            f"score={score!r} is not a column of the predictions frame (columns: "
            f"{few(have, 8)}); a binary task needs the positive-class score in column "
            f"{score!r} or {own!r}, or pass score= with its name."
        )
    pair = _labels.binary_universe(list(universe), pos)
    lo, hi = _range(df[name])
    if len(pair) == 2 and _labels.find(owner, pair) >= 0 and 0.0 <= lo and hi <= 1.0:
        return ScoreColumn(name, owner, True)
    said = f" ({why})" if why else ""
    known = len(pair) == 2 and _labels.find(owner, pair) >= 0
    raise ValueError(
        f"pos_label={pos!r} asks for the scores of class {pos!r}, but the score column "
        f"{name!r} holds the scores of class {_labels.plain(owner)!r}{said}"
        + (
            f" and they are not probabilities in [0, 1] (range [{lo:g}, {hi:g}]), so 1 - score "
            "is not the other class's score"
            if known
            else f", which is not the other class of {few(pair)}"
        )
        + f". Add a column {own!r} with the scores of class {pos!r}, "
        + (f"pass pos_label={_labels.plain(owner)!r}, " if known else "")
        + "or fix df.attrs['pos_label']."
    )


def _range(col: Any) -> tuple[float, float]:
    """(min, max) of a numeric score column; (nan, nan) when it is not numeric or empty."""
    if not pd.api.types.is_numeric_dtype(col.dtype) or col.dtype.kind == "b":
        return (0.0, 1.0) if col.dtype.kind == "b" else (np.nan, np.nan)
    lo, hi = col.min(), col.max()
    lo, hi = (v.compute() if hasattr(v, "compute") else v for v in (lo, hi))
    return float(lo), float(hi)


def has_repeat(df: Any, repeat: Hashable | None) -> bool:
    """Whether the frame's rows carry a repeat: the ``repeat`` column is optional under its
    default name ``"repeat"``; a column named otherwise must exist (a ColumnError)."""
    if repeat is None:
        return False
    if repeat != REPEAT:
        _checks.column(df, repeat, "repeat", "predictions frame")
    return repeat in df.columns


def test_rows(df: Any) -> Any:
    """The test rows of a predictions frame, without the ``subset`` column.

    ``cross_validate(return_train=True)`` stacks the ``"train"`` rows under the ``"test"``
    ones; other ``subset`` values are a ValueError. The frame's ``attrs`` are kept.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"fold": [0, 0], "subset": ["test", "train"]})
    >>> test_rows(df)
       fold
    0     0
    """
    if SUBSET not in getattr(df, "columns", ()):
        return df
    col = _checks.column(df, SUBSET, SUBSET, "predictions frame")
    values = col.unique()
    values = values.compute() if hasattr(values, "compute") else values
    bad = [v for v in values if v not in ("test", "train")]
    if bad:
        raise ValueError(
            f"the subset column has values {few(bad)}; a predictions frame marks its rows "
            "'test' or 'train' (cross_validate(return_train=True)). Rename the column if it "
            "means something else, or fix those rows."
        )
    out = df[col == "test"].drop(columns=SUBSET)
    out.attrs = dict(getattr(df, "attrs", None) or {})
    return out


def parse(
    df: pd.DataFrame,
    labels: Sequence[Hashable] | None,
    pos_label: Hashable | None,
    y_true: str,
    fold: str,
    repeat: str | None,
    score: str,
) -> Frame:
    """Read and check a predictions frame (see the module docstring)."""
    args = FrameArgs(labels, pos_label, y_true, fold, repeat, score)
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame of predictions, got {type(df).__name__}.")
    if isinstance(df.columns, pd.MultiIndex):
        raise ValueError(
            f"df has MultiIndex columns {few(df.columns, 3)}; the predictions frame needs flat "
            "column names (y_true, fold, score, ...). Flatten them first, e.g. "
            "df.columns = ['_'.join(map(str, c)) for c in df.columns]."
        )
    if len(df) == 0:
        raise ValueError("df has no rows; the predictions frame needs one row per tested sample.")
    what = "predictions frame"
    ml_names = multilabel_names(df, y_true)
    for arg, col in (("y_true", y_true), ("fold", fold), ("repeat", repeat), ("score", score)):
        if col in FRAME_DIMS and col not in df.columns:
            raise ValueError(
                f"{arg}={col!r} names a column that is a dim of every result: {few(FRAME_DIMS)} "
                f"columns split the frame into parts before each part is read, so {col!r} "
                f"cannot also be read as {role(arg)}. Pass {arg}= with the column that holds "
                f"{role(arg)}."
            )
    rep_col = repeat if has_repeat(df, repeat) else None
    one_role(
        [
            ("y_true", y_true if ml_names is None else None, False),
            ("fold", fold, True),
            ("repeat", rep_col, True),
            ("score", score if score in df.columns else None, False),
        ]
    )
    if ml_names is None:
        yt = _checks.column(df, y_true, "y_true", what)
    fc, fk = _labels.column_groups(_checks.column(df, fold, "fold", what), "fold")
    rc = rk = None  # the repeat's codes and coordinate
    if has_repeat(df, repeat):
        rc, rk = _labels.column_groups(_checks.column(df, repeat, "repeat", what), "repeat")
    if ml_names is not None:
        classes, ys, cols = _multilabel(df, ml_names, labels, pos_label, y_true, score)
        arrays, ranges = read_scores(df, cols, False)
        return Frame(
            len(df), fc, fk, rc, rk, classes, False, ys, arrays, cols, ranges, None, True, args
        )
    labels = _labels.attrs_labels(df.attrs, labels)
    codes, universe = _classes(yt, labels)
    pos_label = frame_pos_label(df, pos_label, labels, universe)
    try:
        default = _labels.binary_pos(universe, True, None)  # {0, 1}: 1, {False, True}: True
    except ValueError:
        default = None
    # labels=[a, b] with columns score_a and score_b: one-vs-all over both
    both = labels is not None and all(f"{score}_{c}" in df.columns for c in universe)
    both = both and len(universe) == 2 and (score not in df.columns or default is None)
    if pos_label is None and len(universe) <= 2 and not both:
        pos_label = default
        if pos_label is None:
            raise ValueError(
                f"y_true has labels {few(universe)}, not {{0, 1}} or {{False, True}}: pass "
                "pos_label= to say which one is the positive class (or labels=[a, b] with "
                f"columns {score}_a and {score}_b to score both one-vs-all)."
            )
    if pos_label is not None:
        sc = score_column(df, score, pos_label, universe)
        classes, ys = [pos_label], [codes == _labels.find(pos_label, universe)]
        names: list[Hashable] = [sc.name]
    else:
        classes, ys = list(universe), [codes == i for i in range(len(universe))]
        names = list(_class_columns(df, score, universe))
    arrays, ranges = read_scores(df, names, pos_label is not None and sc.complement)
    cols, binary = [str(n) for n in names], pos_label is not None
    return Frame(len(df), fc, fk, rc, rk, classes, binary, ys, arrays, cols, ranges, args=args)


def agree(fr: Frame, asked: FrameArgs) -> Frame:
    """``fr`` when ``asked`` is the reading it was parsed with, else a ValueError naming the
    argument. An argument left at its default takes the parse's own; ``labels`` may also
    name the classes it read, ``pos_label`` its positive class, and ``repeat=None`` a frame
    read without a repeat column."""
    read_as = {"labels": fr.classes, "pos_label": fr.classes[0] if fr.binary else None}
    read_as["repeat"] = None if fr.rep_coord is None else fr.args.repeat
    for f in fields(FrameArgs):
        want, have = getattr(asked, f.name), getattr(fr.args, f.name)
        default = want is f.default or (isinstance(want, str) and want == f.default)
        if not (default or _same_arg(want, have) or _same_arg(want, read_as.get(f.name))):
            raise ValueError(
                f"{f.name}={want!r} asks for another reading of this parsed predictions "
                f"frame, which was parsed with {f.name}={have!r}. Leave {f.name} out, or "
                f"parse the frame again: cvframe.scores.parse(df, {f.name}={want!r})."
            )
    return fr


def _same_arg(a: Any, b: Any) -> bool:
    """Whether two values of an argument are the same (label sequences element by element)."""
    if a is None or b is None:
        return a is b
    if isinstance(a, str) or np.ndim(a) == 0:
        return _labels.find(a, [b]) == 0
    if isinstance(b, str) or np.ndim(b) == 0 or len(a) != len(b):
        return False
    return all(_labels.find(x, [y]) == 0 for x, y in zip(a, b, strict=True))


def multilabel_names(df: Any, y_true: str = "y_true") -> list[str] | None:
    """The label names of a multilabel predictions frame, None for a single-label one.

    A multilabel frame (as :func:`cvframe.cross_validate` writes it) has no ``y_true`` column
    but one ``<y_true>_<label>`` and one ``<y_pred>_<label>`` 0/1 column per label (and
    ``score_<label>`` columns with scores).

    >>> import pandas as pd
    >>> multilabel_names(pd.DataFrame(columns=["fold", "y_true_a", "y_true_b", "y_pred_a"]))
    ['a', 'b']
    >>> multilabel_names(pd.DataFrame(columns=["fold", "y_true", "y_pred"])) is None
    True
    """
    cols = getattr(df, "columns", ())
    if y_true in cols:
        return None
    prefix = f"{y_true}_"
    names = [c[len(prefix) :] for c in cols if isinstance(c, str) and c.startswith(prefix)]
    return names or None


def _multilabel(
    df: pd.DataFrame,
    names: list[str],
    labels: Sequence[Hashable] | None,
    pos_label: Hashable | None,
    y_true: str,
    score: str,
) -> tuple[list[Any], list[np.ndarray], list[str]]:
    """The labels, per label "is positive" and the ``score_<label>`` column of every label of
    a multilabel frame (each label scored one-vs-rest, as a binary problem)."""
    if pos_label is not None:
        raise ValueError(
            f"pos_label={pos_label!r} is for single-label frames; this frame is multilabel "
            f"({y_true}_<label> columns {few(names)}): every label is scored as its own binary "
            "problem. Drop pos_label (or select one label with labels=[...])."
        )
    known = df.attrs.get("labels")
    classes = list(known) if known is not None and [str(k) for k in known] == names else names
    keep = list(range(len(names)))
    if labels is not None:
        asked = [str(c) for c in labels]
        bad = [c for c in asked if c not in names]
        if bad:
            raise ValueError(f"labels {few(bad)} are not labels of the frame {few(classes)}.")
        keep = [names.index(c) for c in asked]
    cols = [f"{score}_{names[j]}" for j in keep]
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise ColumnError(
            f"this multilabel frame has no score column(s) {few(missing)}; scoring a multilabel "
            f"frame needs one {score}_<label> column per label (cross_validate writes them from "
            "predict_proba or decision_function). Without scores, count metrics still work: "
            "df.cv.counts(), df.cv.multilabel_metrics()."
        )
    ys = []
    for j in keep:
        col = df[f"{y_true}_{names[j]}"]
        _labels.check_no_missing(col, f"{y_true}_{names[j]}")
        v = col.to_numpy()
        if not np.isin(v, (0, 1)).all():
            raise ValueError(
                f"column {y_true}_{names[j]!r} holds {few(pd.unique(v[~np.isin(v, (0, 1))]))}; "
                "a multilabel frame's indicator columns must be 0/1."
            )
        ys.append(v.astype(bool))
    return [classes[j] for j in keep], ys, cols


def _class_columns(df: pd.DataFrame, score: str, universe: list[Any]) -> list[str]:
    """The ``<score>_<label>`` column of every class (one-vs-all), matched by name."""
    prefix = f"{score}_"
    per_class = [f"{prefix}{c}" for c in universe]
    missing = [n for n in per_class if n not in df.columns]
    found = [c for c in df.columns if isinstance(c, str) and c.startswith(prefix)]
    if missing:
        raise ValueError(
            f"score columns {few(missing)} are missing: multiclass scoring needs one column "
            f"{prefix}<label> for every class of {few(universe)} (found {few(found)}). Rename "
            f"the columns, pass labels= to choose the classes, or score= to change the prefix."
        )
    extra = [c for c in found if c not in set(per_class)]
    if extra:
        raise ValueError(
            f"score columns {few(extra)} match no class of {few(universe)}; the score columns "
            "must match the labels (columns are matched by name, never by position). Pass "
            "labels= including those classes, or drop the columns."
        )
    return per_class


def place(fr: Frame, per_fold: bool, g: int | np.integer, cls: Any) -> str:
    """A group and class as the user reads it: ``repeat=0 fold=3 class='a'``."""
    parts = [f"fold={_labels.plain(fr.fold_coord[g % fr.n_folds])!r}" if per_fold else "merged"]
    if fr.rep_coord is not None:
        parts.insert(
            0, f"repeat={_labels.plain(fr.rep_coord[g // fr.n_folds if per_fold else g])!r}"
        )
    return " ".join([*parts, f"class={_labels.plain(cls)!r}"])


def is_dask_frame(df: Any) -> bool:
    """True for a dask DataFrame or Series (not a dask array): the one lazy-frame test."""
    return _labels.is_dask(df) and hasattr(df, "divisions")
