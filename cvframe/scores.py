"""Score-based metrics under cross-validation: AUC, average precision, precision at k.

Two ways of aggregating a ranking metric over the folds of a cross-validation
(Forman & Scholz 2010, §2.4 and §3.2):

- ``method="avg"`` — compute the metric on every fold's test set, then average the defined
  folds (AUC_avg, the recommended one: it asks the fold models only to *rank* well);
- ``method="merge"`` — pool the scores of all folds of a repeat and compute the metric once
  (AUC_merge: it silently also demands that the fold models be *calibrated* with each other);
- ``method="fold"`` — keep the ``fold`` dimension: the per-fold values themselves.

Every function reads the predictions frame: columns ``fold``, optional ``repeat``,
``y_true`` and either one ``score`` column (binary; higher means more positive) or one
``score_<label>`` column per class (multiclass, one-vs-all). The result is a DataArray over
``class`` (length 1 holding ``pos_label`` for binary tasks) plus ``repeat`` when the frame has a
repeat column; ``fold`` is reduced unless ``method="fold"``.

How it is fast: the scores of one class are packed with their group (repeat and fold) and
their label into one ``uint64`` key — group in the high bits, the order-preserving bit pattern
of the float64 score in the middle, the label in the lowest bit — and sorted once with
``ndarray.sort`` (a SIMD sort of plain integers, not an argsort). Ranks, tie blocks and
per-group sums are then cumulative sums and ``searchsorted`` over that one sorted array; there
is no loop over folds. When the scores span more bits than the key has room for (rare:
scores spreading over hundreds of binary orders of magnitude, or very many folds), the scores
are first replaced by their dense ranks (``np.unique``), which is exact but slower.
"""
from __future__ import annotations

import functools

import sys
import warnings
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
import xarray as xr

from .errors import UndefinedMetricWarning, check_choice, few, user_stacklevel
from .schema import CLASS, FOLD, REPEAT

__all__ = [
    "auc",
    "auc_methods",
    "average_precision",
    "precision_at_k",
    "r_precision",
    "roc",
    "score_rates",
]

Method = Literal["avg", "merge", "fold"]
Undefined = Literal["skip", "nan"]
Average = Literal["macro", "weighted", None]

METHODS = ("avg", "merge", "fold")
UNDEFINED = ("skip", "nan")
AVERAGES = (None, "macro", "weighted")

_SIGN = np.uint64(1 << 63)
_ONE = np.uint64(1)
_LITTLE = sys.byteorder == "little"

_REFS = """
    References
    ----------
    .. [1] G. Forman and M. Scholz, "Apples-to-Apples in Cross-Validation Studies: Pitfalls
       in Classifier Performance Measurement", ACM SIGKDD Explorations 12(1), 2010, §2.4
       and §3.2.
"""

_FRAME_PARAMS = """
    df : pandas.DataFrame
        The predictions frame, one row per tested sample.
    labels : sequence, optional
        The class universe and its order. Default: the categories of a Categorical
        ``y_true``, else the sorted unique labels. With two or more labels and a
        ``score_<label>`` column for each, the task is scored one-vs-all over all of them.
    pos_label : label, optional
        The positive class of a binary task scored by the single ``score`` column (or by
        ``score_<pos_label>``). Labels {0, 1} and {False, True} default to 1/True; any
        other pair needs it. With more than two labels it scores that one class against
        the rest.
    y_true, fold, repeat, score : str
        Column names. ``repeat`` is optional: when the frame has no such column (or
        ``repeat=None``) there is no ``repeat`` dimension. ``score`` names the binary score
        column and is the prefix of the per-class columns ``<score>_<label>``.
"""

_METHOD_PARAMS = """
    method : {"avg", "merge", "fold"}
        ``"avg"``: per fold, then the mean over the folds of each repeat; ``"merge"``: once
        over the pooled scores of all folds of a repeat; ``"fold"``: the per-fold values
        (the ``fold`` dimension is kept).
    undefined : {"skip", "nan"}
        What an undefined fold does. ``"skip"`` (default): ``"avg"`` averages the defined
        folds only, and undefined cells that remain in the result are NaN; one
        :class:`~cvframe.UndefinedMetricWarning` per call says how many cells were
        undefined and where. ``"nan"``: undefined folds are NaN and make the mean over
        folds NaN, silently.
    average : {None, "macro", "weighted"}
        Reduce ``class`` as well: ``"macro"`` is the unweighted mean over classes,
        ``"weighted"`` weights each class by its support (number of positives, pooled over
        the folds of a repeat; per fold for ``method="fold"``). ``None`` keeps ``class``;
        ``result.mean("class")`` is then the macro average. Under ``undefined="skip"``
        classes with an undefined value are left out of the class average.
"""


def _docs(func: Any) -> Any:
    func.__doc__ = (func.__doc__ or "").replace("{frame_params}", _FRAME_PARAMS.strip("\n")) \
        .replace("{method_params}", _METHOD_PARAMS.strip("\n")).replace("{refs}", _REFS)
    return func


# ==========================================================================================
# Reading the predictions frame
# ==========================================================================================

@dataclass
class _Frame:
    """What the metrics need from a predictions frame, as plain numpy arrays."""

    n: int
    fold_codes: np.ndarray          # int64, 0..n_folds-1
    fold_coord: np.ndarray
    rep_codes: np.ndarray | None    # int64, 0..n_reps-1, or None without a repeat column
    rep_coord: np.ndarray | None
    classes: list[Any]              # the class coordinate
    binary: bool
    ys: list[np.ndarray]            # per class: "is positive", bool or int64 0/1
    scores: list[np.ndarray]        # per class: float64 scores
    score_cols: list[str]
    ranges: list[tuple[float, float]]  # per class: (min, max) score
    present_: np.ndarray | None = None  # per (repeat, fold) group: has rows

    @property
    def fold_keep(self) -> np.ndarray:
        """Which fold coordinates occur in some repeat (integer folds are coded lo..hi)."""
        return np.asarray(self.present.reshape(self.n_reps, self.n_folds).any(axis=0))

    @property
    def present(self) -> np.ndarray:
        """Which (repeat, fold) groups have rows (a repeat may have fewer folds)."""
        if self.present_ is None:
            g, n_groups = self.groups(True)
            assert g is not None             # per-fold groups always exist
            self.present_ = np.bincount(g, minlength=n_groups) > 0
        return self.present_

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


def _col(df: pd.DataFrame, name: Any, arg: str) -> pd.Series:
    if name not in df.columns:
        raise ValueError(
            f"{arg}={name!r} is not a column of the predictions frame (columns: "
            f"{few(df.columns)}); pass {arg}= with the name of the column that holds it."
        )
    col = df[name]
    if isinstance(col, pd.DataFrame):
        raise ValueError(f"{arg}={name!r} names {col.shape[1]} columns; column names must be "
                         "unique.")
    return col


def _check_no_missing(col: pd.Series, arg: str) -> None:
    if isinstance(col.dtype, np.dtype) and col.dtype.kind in "iub":
        return                               # numpy ints and bools cannot be missing
    miss = col.isna().to_numpy()
    if miss.any():
        raise ValueError(
            f"{arg} column {col.name!r} has {int(miss.sum())} missing values (None/NaN/NA) at "
            f"rows {few(col.index[miss])}; drop or fill those rows first (nothing is dropped "
            "silently)."
        )


def _check_one_kind(values: Sequence[Any], arg: str) -> None:
    is_str = [isinstance(v, str) for v in values]
    if any(is_str) and not all(is_str):
        strs = [v for v, s in zip(values, is_str) if s]
        others = [v for v, s in zip(values, is_str) if not s]
        raise TypeError(
            f"{arg} mixes string labels {few(strs)} with non-string labels {few(others)}; "
            "use one type for all labels (e.g. convert with .astype(str))."
        )


def _factorize(col: pd.Series, arg: str, dense: bool = True) -> tuple[np.ndarray, list[Any]]:
    """Integer codes 0..m-1 and the m unique values in first-seen (or category) order.

    Integers in a small range lo..hi are coded as ``value - lo`` in one pass; with
    ``dense=False`` every value of lo..hi becomes a code (absent ones are dropped later, when
    the groups are counted anyway), which saves a pass over the data.
    """
    _check_no_missing(col, arg)
    if isinstance(col.dtype, pd.CategoricalDtype):
        return col.cat.codes.to_numpy().astype(np.int64), list(col.cat.categories)
    values = col.to_numpy()
    if values.dtype.kind in "iu" and len(values):
        lo, hi = int(values.min()), int(values.max())
        if hi - lo < 1 << 20:
            off = values.astype(np.int64) - lo if lo != 0 or values.dtype != np.int64 \
                else values
            if hi - lo <= 1 or (not dense and hi - lo < 1 << 12):
                return off, [values.dtype.type(v) for v in range(lo, hi + 1)]
            present = np.flatnonzero(np.bincount(off, minlength=hi - lo + 1))
            uniques = [values.dtype.type(p + lo) for p in present]
            if len(present) == hi - lo + 1:          # every value in lo..hi occurs
                return off.astype(np.int64, copy=False), uniques
            lut = np.full(hi - lo + 1, -1, dtype=np.int64)
            lut[present] = np.arange(len(present))
            return lut[off], uniques
    codes, uniques = pd.factorize(values)
    return codes.astype(np.int64), list(uniques)


def _sorted_universe(codes: np.ndarray, uniques: list[Any], arg: str
                     ) -> tuple[np.ndarray, list[Any]]:
    _check_one_kind(uniques, arg)
    try:
        order = sorted(range(len(uniques)), key=lambda i: uniques[i])
    except TypeError as exc:
        raise TypeError(f"{arg} values {few(uniques)} cannot be sorted ({exc}); use labels of "
                        "one comparable type.") from None
    if order == list(range(len(order))):
        return codes, list(uniques)
    new = np.empty(len(order), dtype=np.int64)
    new[order] = np.arange(len(order))
    return new[codes], [uniques[i] for i in order]


def _coord(values: list[Any]) -> np.ndarray:
    arr = np.asarray(values)
    if arr.dtype.kind in "USO":
        arr = np.asarray(values, dtype=object)
    return arr


def _score_array(col: pd.Series, arg: str) -> tuple[np.ndarray, float, float]:
    if col.dtype.kind == "b" or col.dtype == "boolean":
        _check_no_missing(col, arg)
        s = col.to_numpy(dtype=np.float64)
        return s, float(s.min()), float(s.max())
    if not pd.api.types.is_numeric_dtype(col.dtype):
        raise TypeError(
            f"{arg} column {col.name!r} has dtype {col.dtype}; scores must be numbers "
            "(predict_proba or decision_function values). Convert with "
            f"df[{col.name!r}].astype(float)."
        )
    if col.dtype == np.float64:
        s = col.to_numpy()
    else:
        s = col.to_numpy(dtype=np.float64, na_value=np.nan)
    lo, hi = (float(s.min()), float(s.max())) if len(s) else (0.0, 0.0)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        bad = ~np.isfinite(s)
        raise ValueError(
            f"{arg} column {col.name!r} has {int(bad.sum())} NaN or infinite scores at rows "
            f"{few(col.index[bad])} (values {few(np.unique(s[bad]))}); every tested sample "
            "needs a finite score. Drop those rows or fix the model's output."
        )
    return s, lo, hi


def _warn_hard(s: np.ndarray, lo: float, hi: float, name: str) -> None:
    if lo == 0.0 and hi == 1.0 and np.all((s == 0.0) | (s == 1.0)):
        warnings.warn(
            f"score column {name!r} holds only the values 0 and 1: it looks like hard "
            "predictions, not scores. AUC of hard predictions equals balanced accuracy and "
            "ranking metrics see one big tie; pass predict_proba or decision_function values "
            "for a real ROC.",
            UserWarning, stacklevel=user_stacklevel(),
        )


def _parse(df: pd.DataFrame, labels: Sequence[Hashable] | None, pos_label: Hashable | None,
           y_true: str, fold: str, repeat: str | None, score: str) -> _Frame:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame of predictions, got {type(df).__name__}.")
    if len(df) == 0:
        raise ValueError("df has no rows; the predictions frame needs one row per tested "
                         "sample.")
    yt = _col(df, y_true, "y_true")
    fcol = _col(df, fold, "fold")
    fold_codes, fold_uniq = _factorize(fcol, "fold", dense=False)
    fold_codes, fold_uniq = _sorted_universe(fold_codes, fold_uniq, "fold")
    rep_codes = rep_coord = None
    if repeat is not None and repeat in df.columns:
        rep_codes, rep_uniq = _factorize(_col(df, repeat, "repeat"), "repeat")
        rep_codes, rep_uniq = _sorted_universe(rep_codes, rep_uniq, "repeat")
        rep_coord = _coord(rep_uniq)

    codes, uniq = _factorize(yt, "y_true")
    if labels is not None:
        universe = list(labels)
        if len(universe) == 0:
            raise ValueError("labels=[] is empty; give the class labels, or labels=None.")
        if len(set(universe)) != len(universe):
            dup = [v for i, v in enumerate(universe) if v in universe[:i]]
            raise ValueError(f"labels has duplicated entries {few(dup)}; list each class once.")
        _check_one_kind(universe, "labels")
    elif isinstance(yt.dtype, pd.CategoricalDtype):
        universe = list(uniq)
    else:
        codes, universe = _sorted_universe(codes, uniq, "y_true")
        uniq = universe
    if labels is not None or isinstance(yt.dtype, pd.CategoricalDtype):
        _check_one_kind(list(uniq) + universe, "y_true")
        pos = {v: i for i, v in enumerate(universe)}
        lut = np.array([pos.get(v, -1) for v in uniq], dtype=np.int64)
        used = np.bincount(codes, minlength=len(uniq)) > 0
        unknown = [v for v, c, u in zip(uniq, lut, used) if c < 0 and u]
        if unknown:
            raise ValueError(
                f"y_true has labels {few(unknown)} that are not in labels={few(universe)}; "
                "every label must be declared (nothing is dropped). Add them to labels=."
            )
        codes = lut[codes] if len(lut) else codes

    prefix = f"{score}_"
    per_class = {c: f"{score}_{c}" for c in universe}
    have_all = all(name in df.columns for name in per_class.values())
    binary_labels = _default_pos_label(universe)
    if pos_label is not None:
        binary = True
    elif len(universe) > 2:
        binary = False
    elif (labels is not None and len(universe) == 2 and have_all
          and (score not in df.columns or binary_labels is None)):
        binary = False           # labels=[a, b] with score_a and score_b: one-vs-all over both
    else:
        binary = True

    if binary:
        if pos_label is None:
            pos_label = binary_labels
            if pos_label is None:
                raise ValueError(
                    f"y_true has labels {few(universe)}, not {{0, 1}} or {{False, True}}: pass "
                    "pos_label= to say which one is the positive class (or labels=[a, b] with "
                    f"columns {score}_a and {score}_b to score both one-vs-all)."
                )
        if pos_label not in universe:
            if labels is not None or len(universe) >= 2:
                raise ValueError(
                    f"pos_label={pos_label!r} is not among the labels {few(universe)}; pass "
                    "one of them."
                )
        if score in df.columns:
            name = score
        elif f"{score}_{pos_label}" in df.columns:
            name = f"{score}_{pos_label}"
        else:
            raise ValueError(
                f"score={score!r} is not a column of the predictions frame (columns: "
                f"{few(df.columns)}); a binary task needs the positive-class score in column "
                f"{score!r} or {score + '_' + str(pos_label)!r}, or pass score= with its name."
            )
        pos_code = universe.index(pos_label) if pos_label in universe else -1
        if pos_code == 1 and len(universe) == 2 and codes.dtype == np.int64:
            y_pos = codes                    # codes are already the 0/1 indicator
        else:
            y_pos = codes == pos_code
        s, lo, hi = _score_array(df[name], "score")
        _warn_hard(s, lo, hi, name)
        return _Frame(len(df), fold_codes, _coord(fold_uniq), rep_codes, rep_coord,
                      [pos_label], True, [y_pos], [s], [name], [(lo, hi)])

    missing = [n for n in per_class.values() if n not in df.columns]
    if missing:
        found = [c for c in df.columns if isinstance(c, str) and c.startswith(prefix)]
        raise ValueError(
            f"score columns {few(missing)} are missing: multiclass scoring needs one column "
            f"{prefix}<label> for every class of {few(universe)} (found {few(found)}). Rename "
            f"the columns, pass labels= to choose the classes, or score= to change the prefix."
        )
    expected = set(per_class.values())
    extra = [c for c in df.columns if isinstance(c, str) and c.startswith(prefix)
             and c not in expected]
    if extra:
        raise ValueError(
            f"score columns {few(extra)} match no class of {few(universe)}; the score columns "
            "must match the labels (columns are matched by name, never by position). Pass "
            "labels= including those classes, or drop the columns."
        )
    ys, scores, names, ranges = [], [], [], []
    for i, c in enumerate(universe):
        name = per_class[c]
        s, lo, hi = _score_array(df[name], "score")
        _warn_hard(s, lo, hi, name)
        ys.append(codes == i)
        scores.append(s)
        names.append(name)
        ranges.append((lo, hi))
    return _Frame(len(df), fold_codes, _coord(fold_uniq), rep_codes, rep_coord,
                  list(universe), False, ys, scores, names, ranges)


def _default_pos_label(universe: list[Any]) -> Any:
    if all(isinstance(v, (bool, np.bool_)) for v in universe):
        return next((v for v in universe if v), True)
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
           and v in (0, 1) for v in universe):
        return next((v for v in universe if v == 1), 1)
    return None


# ==========================================================================================
# The numpy core: one packed sort per class
# ==========================================================================================

_MASK = np.uint64((1 << 63) - 1)
_WRAP = 1 << 64


def _bits(x: float) -> int:
    """The IEEE bits of |x| as a Python int (monotone in |x|)."""
    return int(np.array(abs(x), dtype=np.float64).view(np.uint64)) & ((1 << 63) - 1)


@dataclass
class _Packing:
    """How finite float64 scores became small order-preserving integers (and back).

    With M the smallest non-zero magnitude and A the bits of |x|: negative scores map to
    ``L - 1 - (A - M)`` (L slots, ``L = bits(|min|) - M + 1``), zero to ``L`` and positive
    scores to ``L + 1 + (A - M)``. The span is the largest key; scores that share a key are
    exactly equal.
    """

    M: int
    L: int
    span: int

    def decode(self, r: np.ndarray) -> np.ndarray:
        r = np.asarray(r, dtype=np.uint64)
        neg_a = np.uint64((self.M + self.L - 1) % _WRAP) - r
        pos_a = r + np.uint64((self.M - self.L - 1) % _WRAP)
        a = np.where(r < self.L, neg_a, pos_a).view(np.float64)
        return np.where(r < self.L, -a, np.where(r == self.L, 0.0, a))


def _as_int64(v: int) -> np.int64:
    v %= _WRAP
    return np.int64(v - _WRAP if v >= 1 << 63 else v)


def _pack_signed(s: np.ndarray, lo: float, hi: float
                 ) -> tuple[np.ndarray, _Packing, np.ndarray] | None:
    """:func:`_pack` for scores of both signs, without masked (branchy) passes.

    ``|s|`` gives A (and the new array); with ``sign = bits(s) >> 63`` (-1 for negatives),
    ``A ^ sign`` is ``-1 - A`` for negatives, and adding ``sign & (2M - 1)`` and a constant
    moves both signs to the layout of :class:`_Packing`. Returns None when a score is 0
    (the general path handles zeros), else the keys, the packing and a scratch buffer.
    """
    key = np.abs(s)                                 # new array; -0.0 becomes 0.0
    m = _bits(float(key.min()))
    if m == 0:
        return None
    b = key.view(np.int64)
    sign = np.right_shift(s.view(np.int64), 63)     # -1 for negatives, 0 for positives
    np.bitwise_xor(b, sign, out=b)
    big_l = _bits(lo) - m + 1
    np.bitwise_and(sign, _as_int64(2 * m - 1), out=sign)
    np.add(b, sign, out=b)
    u = key.view(np.uint64)
    np.add(u, np.uint64((big_l + 1 - m) % _WRAP), out=u)
    return u, _Packing(m, big_l, big_l + 1 + (_bits(hi) - m)), sign


def _pack(s: np.ndarray, lo: float, hi: float
          ) -> tuple[np.ndarray, _Packing, np.ndarray | None]:
    """Scores as order-preserving uint64 keys 0..span (a new array), in a few in-place passes.

    Only the binary orders of magnitude the data use take key space, so scores crossing
    zero (decision functions) or containing exact zeros (probabilities) stay compact.
    """
    has_neg, has_pos = lo < 0.0, hi > 0.0
    if has_neg and has_pos:
        packed = _pack_signed(s, lo, hi)
        if packed is not None:
            return packed
    key = np.add(s, 0.0).view(np.uint64)            # new array; -0.0 becomes 0.0
    if has_neg:
        np.bitwise_and(key, _MASK, out=key)          # A = bits of |x|
    nz = None
    if lo > 0.0:
        m = _bits(lo)
    elif hi < 0.0:
        m = _bits(hi)
    else:
        m = int(key.min()) if (has_neg and has_pos) else 0
        if m == 0:                                   # exact zeros: find the smallest non-zero
            nz = key != 0
            m = int(np.min(key, where=nz, initial=np.uint64(_WRAP - 1))) if nz.any() else 0
    big_l = _bits(lo) - m + 1 if has_neg else 0
    np.add(key, np.uint64((big_l + 1 - m) % _WRAP), out=key)
    if has_neg:
        np.subtract(np.uint64((2 * big_l) % _WRAP), key, out=key, where=s < 0.0)
    if nz is not None:
        np.copyto(key, np.uint64(big_l), where=~nz)
    span = big_l + 1 + (_bits(hi) - m) if has_pos else big_l - (nz is None)
    return key, _Packing(m, big_l, span), None


class _Ranked:
    """One class's scores sorted by (group, score, label) in a single packed uint64 sort.

    ``key = group << (sb + 1) | (score bits - min) << 1 | label``: groups are contiguous
    (``bounds[g]:bounds[g + 1]``), scores ascend within a group, and within a run of tied
    scores the negatives come before the positives.
    """

    def __init__(self, s: np.ndarray, lo: float, hi: float, y: np.ndarray,
                 g: np.ndarray | None, n_groups: int):
        n = len(s)
        gbits = int(n_groups - 1).bit_length()
        key, self.packing, scratch = _pack(s, lo, hi)
        sbits = int(self.packing.span).bit_length()
        self.uniques: np.ndarray | None = None
        if gbits + sbits + 1 > 64:           # too wide: exact dense ranks instead
            del key, scratch
            scratch = None
            self.uniques, inv = np.unique(s + 0.0, return_inverse=True)
            key = inv.astype(np.uint64).reshape(-1)
            sbits = int(len(self.uniques) - 1).bit_length()
        self.sbits = sbits
        self.shift = sbits + 1
        np.left_shift(key, _ONE, out=key)
        # labels 0/1 as int64 (y_true itself, often) or bool; same-dtype ops are fastest
        np.bitwise_or(key, y.view(np.uint64) if y.dtype == np.int64 else y, out=key)
        if gbits:
            assert g is not None             # several groups need group ids
            if scratch is None:
                scratch = np.empty(n, dtype=np.uint64)
            gk = scratch.view(np.uint64)
            np.left_shift(g.view(np.uint64), np.uint64(self.shift), out=gk)
            np.bitwise_or(key, gk, out=key)
        self._scratch = scratch              # reused by the tie check
        key.sort()
        self.key = key
        self.n = n
        self.n_groups = n_groups
        if n_groups == 1:
            self.bounds = np.array([0, n], dtype=np.int64)
        else:
            starts = np.arange(n_groups, dtype=np.uint64) << np.uint64(self.shift)
            self.bounds = np.append(np.searchsorted(key, starts), n).astype(np.int64)
        self.size = np.diff(self.bounds)
        self._y: np.ndarray | None = None
        self._pos_idx: np.ndarray | None = None
        self._cp: np.ndarray | None = None
        self._blocks: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._ties: bool | None = None

    # --- per-element views ------------------------------------------------------------
    @property
    def y(self) -> np.ndarray:
        """Sorted labels as bool (``flatnonzero`` is several times faster on bool)."""
        if self._y is None:
            if _LITTLE:                      # the lowest byte of every key, as bool
                self._y = (self.key.view(np.uint8)[::8] & np.uint8(1)).view(np.bool_)
            else:
                self._y = (self.key & _ONE).astype(np.bool_)
        return self._y

    @property
    def pos_idx(self) -> np.ndarray:
        if self._pos_idx is None:
            self._pos_idx = np.flatnonzero(self.y)
        return self._pos_idx

    @property
    def npos(self) -> np.ndarray:
        return np.diff(np.searchsorted(self.pos_idx, self.bounds))

    @property
    def cp(self) -> np.ndarray:
        """cp[i] = number of positives among the first i sorted elements (length n + 1)."""
        if self._cp is None:
            cp = np.empty(self.n + 1, dtype=np.int64)
            cp[0] = 0
            np.cumsum(self.y, out=cp[1:])
            self._cp = cp
        return self._cp

    def cp_at(self, idx: np.ndarray) -> np.ndarray:
        """Number of positives among the first ``idx`` sorted elements (few lookups)."""
        return np.searchsorted(self.pos_idx, idx)

    @property
    def ties(self) -> bool:
        """Whether two elements of one group share a score (then runs need care)."""
        if self._ties is None:
            self._ties = False
            if self.n >= 2:
                out = None if self._scratch is None else self._scratch.view(np.uint64)[1:]
                d = np.subtract(self.key[1:], self.key[:-1], out=out)
                close = d <= _ONE
                del d, out
                if close.any():
                    cand = np.flatnonzero(close)
                    self._ties = bool(np.any((self.key[cand] >> _ONE)
                                             == (self.key[cand + 1] >> _ONE)))
        return self._ties

    def blocks(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Runs of equal (group, score): start, end (exclusive) and group of every run."""
        if self._blocks is None:
            z = self.key >> _ONE
            new = np.empty(self.n, dtype=bool)
            new[0] = True
            np.not_equal(z[1:], z[:-1], out=new[1:])
            del z
            bs = np.flatnonzero(new)
            be = np.append(bs[1:], self.n)
            bg = np.searchsorted(self.bounds, bs, side="right") - 1
            self._blocks = (bs, be, bg)
        return self._blocks

    def block_scores(self, bs: np.ndarray) -> np.ndarray:
        """The score value of the runs starting at ``bs``."""
        r = (self.key[bs] >> _ONE) & np.uint64((1 << self.sbits) - 1)
        if self.uniques is not None:
            return self.uniques[r.astype(np.int64)]
        return self.packing.decode(r)

    # --- metrics per group --------------------------------------------------------------
    def _rank_sums(self) -> tuple[np.ndarray, np.ndarray]:
        """Per group: the number of positives and the sum of their sorted positions."""
        pos = self.pos_idx
        csum = np.concatenate([[0], np.cumsum(pos, dtype=np.int64)])
        pb = np.searchsorted(pos, self.bounds)
        return np.diff(pb), csum[pb[1:]] - csum[pb[:-1]]

    def auc(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(AUC, n_pos, n_neg) per group; AUC is NaN where n_pos or n_neg is 0."""
        ties = self.ties
        npos, sum_idx = self._rank_sums()
        nneg = self.size - npos
        # positives' count of negatives before them in their group (tied negatives included)
        s2 = 2 * (sum_idx - npos * self.bounds[:-1]) - npos * (npos - 1)
        if ties:
            bs, be, bg = self.blocks()
            cp = self.cp
            pb_ = cp[be] - cp[bs]
            corr = pb_ * (be - bs - pb_)     # tied (positive, negative) pairs per run
            s2 = s2 - np.bincount(bg, weights=corr, minlength=self.n_groups).astype(np.int64)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = s2 / (2.0 * npos * nneg)
        value[(npos == 0) | (nneg == 0)] = np.nan
        return value, npos, nneg

    def average_precision(self) -> tuple[np.ndarray, np.ndarray]:
        """(AP, n_pos) per group, scikit-learn's step-wise definition; NaN without positives."""
        npos = self.npos
        if self.ties:
            bs, be, bg = self.blocks()
            cp = self.cp
            ge = self.bounds[bg + 1]
            tp_ge = cp[ge] - cp[bs]          # positives scored >= this run's score
            npos_b = cp[be] - cp[bs]
            hit = npos_b > 0
            w = npos_b[hit] * (tp_ge[hit] / (ge[hit] - bs[hit]))
            bg = bg[hit]
        else:                                # every run is one element: only positives count
            pi = self.pos_idx
            pb = np.searchsorted(pi, self.bounds)
            bg = np.repeat(np.arange(self.n_groups), np.diff(pb))
            # positives at or above this one / samples at or above this one
            w = (pb[bg + 1] - np.arange(len(pi))) / (self.bounds[bg + 1] - pi)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = np.bincount(bg, weights=w, minlength=self.n_groups) / npos
        value[npos == 0] = np.nan
        return value, npos

    def precision_at(self, k: np.ndarray) -> np.ndarray:
        """Expected precision among the k top-scored of each group (ties at the cut shared).

        NaN where k < 1 or the group has fewer than k samples.
        """
        k = np.broadcast_to(np.asarray(k, dtype=np.int64), (self.n_groups,))
        ok = (k >= 1) & (k <= self.size)
        out = np.full(self.n_groups, np.nan)
        if not ok.any():
            return out
        ge = self.bounds[1:][ok]
        cut = ge - k[ok]
        if not self.ties:
            out[ok] = (self.cp_at(ge) - self.cp_at(cut)) / k[ok]
            return out
        bs, be, _ = self.blocks()
        b = np.searchsorted(bs, cut, side="right") - 1
        s0, e0 = bs[b], be[b]
        c_ge, c_e0, c_s0 = self.cp_at(ge), self.cp_at(e0), self.cp_at(s0)
        out[ok] = ((c_ge - c_e0) + (c_e0 - c_s0) * (e0 - cut) / (e0 - s0)) / k[ok]
        return out

    def curve(self) -> dict[str, np.ndarray]:
        """Every run as a ROC point, per group in descending score order."""
        bs, be, bg = self.blocks()
        cp = self.cp
        ge = self.bounds[bg + 1]
        tp = cp[ge] - cp[bs]
        fp = (ge - bs) - tp
        npos = self.npos
        nneg = self.size - npos
        order = np.lexsort((-np.arange(len(bs)), bg))
        return {"group": bg[order], "threshold": self.block_scores(bs[order]),
                "tp": tp[order], "fp": fp[order], "npos": npos, "nneg": nneg}


# ==========================================================================================
# From per-group numbers to labeled results
# ==========================================================================================

def _per_group(fr: _Frame, per_fold: bool, fn: Any) -> list[Any]:
    g, n_groups = fr.groups(per_fold)
    out = []
    for s, (lo, hi), y in zip(fr.scores, fr.ranges, fr.ys):
        ranked = _Ranked(s, lo, hi, y, g, n_groups)
        if per_fold and fr.present_ is None:
            fr.present_ = ranked.size > 0
        out.append(fn(ranked))
        del ranked
    return out


def _cube(fr: _Frame, per_fold: bool, per_class: list[np.ndarray]) -> xr.DataArray:
    """Stack per-class group arrays into a DataArray over (repeat?, fold?, class)."""
    arr = np.stack(per_class, axis=-1).astype(np.float64)
    dims: list[str] = []
    coords: dict[str, Any] = {}
    shape: list[int] = []
    if fr.rep_coord is not None:
        dims.append(REPEAT)
        coords[REPEAT] = fr.rep_coord
        shape.append(fr.n_reps)
    if per_fold:
        dims.append(FOLD)
        coords[FOLD] = fr.fold_coord[fr.fold_keep]
        shape.append(fr.n_folds)
    dims.append(CLASS)
    coords[CLASS] = _coord(fr.classes)
    shape.append(len(fr.classes))
    arr = arr.reshape(shape)
    if per_fold:
        arr = arr[..., fr.fold_keep, :]
    return xr.DataArray(arr, dims=dims, coords=coords)


def _present(fr: _Frame) -> np.ndarray:
    return fr.present


def _where(mask: xr.DataArray) -> str:
    idx = np.argwhere(np.asarray(mask))
    parts = []
    for axis, dim in enumerate(mask.dims):
        coord = mask[dim].values
        vals = list(dict.fromkeys(coord[i] for i in idx[:, axis]))
        parts.append(f"{dim}={few(vals)}")
    return ", ".join(parts)


def _reduce(fr: _Frame, value: xr.DataArray, support: xr.DataArray,
            present: xr.DataArray | None, method: str, undefined: str,
            average: str | None, per_fold: bool) -> tuple[xr.DataArray, list[str]]:
    reduced: list[str] = []
    if method == "avg":
        assert present is not None           # "avg" works per fold
        valid = present.broadcast_like(value)
        if undefined == "skip":
            result = value.where(valid).mean(FOLD, skipna=True)
        else:
            result = value.where(valid, 0.0).sum(FOLD, skipna=False) / valid.sum(FOLD)
        support = support.where(valid, 0).sum(FOLD)
        reduced.append(FOLD)
    else:
        result = value
        if per_fold and present is not None:
            result = value.where(present.broadcast_like(value))
    if average is not None:
        skip = undefined == "skip"
        if average == "macro":
            result = result.mean(CLASS, skipna=skip)
        else:
            w = support.where(result.notnull(), 0) if skip else support
            tot = w.sum(CLASS)
            result = (result * w).sum(CLASS, skipna=skip) / tot.where(tot > 0)
        reduced.append(CLASS)
    return result, reduced


def _finish(fr: _Frame, value: xr.DataArray, support: xr.DataArray, *, metric: str,
            why: str, method: str, undefined: str, average: str | None,
            per_fold: bool, extra: dict[str, Any] | None = None) -> xr.DataArray:
    """Apply the fold reduction, the undefined policy, the class average and the attrs."""
    undefined_cells = value.isnull()
    if per_fold:
        pres = fr.present.reshape(fr.n_reps, fr.n_folds)[:, fr.fold_keep]
        present = xr.DataArray(pres.reshape(value.shape[:-1]), dims=value.dims[:-1])
        undefined_cells = undefined_cells & present
    n_undef = int(undefined_cells.sum())
    with warnings.catch_warnings():      # all-NaN slices are counted in our one warning
        warnings.simplefilter("ignore", RuntimeWarning)
        result, reduced = _reduce(fr, value, support, present if per_fold else None,
                                  method, undefined, average, per_fold)
    if n_undef and undefined == "skip":
        total = int(present.sum()) * len(fr.classes) if per_fold else value.size
        action = ("skipped in the mean over folds" if method == "avg"
                  else "left as NaN")
        warnings.warn(
            f"{metric} ({why}) is undefined in {n_undef} of {total} cells "
            f"({_where(undefined_cells)}); {action}. Pass undefined='nan' to get NaN "
            "instead and silence this warning.",
            UndefinedMetricWarning, stacklevel=user_stacklevel(),
        )
    attrs = {
        "metric": metric, "method": method, "undefined": undefined,
        "average": "none" if average is None else average,
        "reduced_dims": ",".join(reduced), "n_undefined": n_undef,
        "task": "binary" if fr.binary else "multiclass",
        "score_columns": ",".join(fr.score_cols),
    }
    attrs.update(extra or {})
    result.attrs = attrs
    result.name = metric
    return result


def _check(method: str, undefined: str, average: str | None) -> None:
    check_choice("method", method, METHODS)
    check_choice("undefined", undefined, UNDEFINED)
    check_choice("average", average, AVERAGES)


def _support(fr: _Frame, per_fold: bool, npos: list[np.ndarray]) -> xr.DataArray:
    return _cube(fr, per_fold, [n.astype(np.float64) for n in npos])


# ==========================================================================================
# Public functions
# ==========================================================================================

def _by_frame_dims(func: Any) -> Any:
    """Compute per value of the frame's dimension columns (``model``, ``dataset``, ``subset``).

    A predictions frame may stack several models, data sets or the train and test subsets
    (``cross_validate(return_train=True)``); their scores must never be ranked together. The
    frame is split on those columns (a handful of groups, not folds or classes), the metric is
    computed per group, and the results are joined along the same dims (DataArrays and
    Datasets) or columns (tidy tables). Warnings of the groups are merged into one per kind.
    """
    from .build import FRAME_DIMS

    @functools.wraps(func)
    def wrapper(df: Any, *args: Any, **kwargs: Any) -> Any:
        dims = [d for d in FRAME_DIMS if isinstance(df, pd.DataFrame) and d in df.columns]
        if not dims:
            return func(df, *args, **kwargs)
        for d in dims:
            _check_no_missing(df[d], d)
        keys, pieces = [], []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for key, part in df.groupby(dims, sort=True, observed=True):
                keys.append(key if isinstance(key, tuple) else (key,))
                pieces.append(func(part.drop(columns=dims), *args, **kwargs))
        _rewarn(caught, len(keys), dims)
        if isinstance(pieces[0], pd.DataFrame):
            parts = [p.assign(**dict(zip(dims, k))) for p, k in zip(pieces, keys)]
            out = pd.concat(parts, ignore_index=True)
            return out[dims + [c for c in out.columns if c not in dims]]
        if len(dims) == 1:
            values = _coord([_plain(k[0]) for k in keys])  # strings stay object (netCDF-safe)
            dim = pd.Index(values, name=dims[0], dtype=values.dtype)
            out = xr.concat(pieces, dim=dim, join="outer", combine_attrs="override")
        else:
            stacked = xr.concat(pieces, dim="_group", join="outer", combine_attrs="override")
            index = pd.MultiIndex.from_tuples(keys, names=dims)
            stacked = stacked.assign_coords(
                xr.Coordinates.from_pandas_multiindex(index, "_group"))
            out = stacked.unstack("_group")
        return out.transpose(*dims, ...)

    return wrapper


def _rewarn(caught: list[warnings.WarningMessage], n_groups: int, dims: list[str]) -> None:
    """Re-emit the groups' warnings, one per category, saying in how many groups they arose."""
    by_cat: dict[type, list[str]] = {}
    for w in caught:
        by_cat.setdefault(w.category, []).append(str(w.message))
    for cat, msgs in by_cat.items():
        note = f" [in {len(msgs)} of {n_groups} {'/'.join(dims)} groups]" if n_groups > 1 else ""
        warnings.warn(msgs[0] + note, cat, stacklevel=user_stacklevel())


@_docs
@_by_frame_dims
def auc(df: pd.DataFrame, method: Method = "avg", undefined: Undefined = "skip", *,
        average: Average = None, labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None, y_true: str = "y_true", fold: str = "fold",
        repeat: str | None = "repeat", score: str = "score") -> xr.DataArray:
    r"""Area under the ROC curve per fold, averaged over folds (AUC_avg) or merged (AUC_merge).

    For one fold (or, with ``method="merge"``, for the pooled folds of one repeat) with
    :math:`n_1` positives and :math:`n_0` negatives, AUC is the Mann–Whitney statistic

    .. math:: AUC = \frac{1}{n_1 n_0} \sum_{i \in +} \sum_{j \in -}
              \left([s_i > s_j] + \tfrac12 [s_i = s_j]\right),

    ties counting one half. :math:`AUC_{avg} = \frac1k \sum_i AUC^{(i)}` over the folds of a
    repeat; :math:`AUC_{merge}` is the AUC of all folds' scores sorted together, which also
    penalises fold models that are not calibrated with each other (Forman & Scholz 2010,
    §3.2: 92% AUC_avg vs 80% AUC_merge on the same folds).

    Parameters
    ----------
    {frame_params}
    {method_params}

    Returns
    -------
    xarray.DataArray
        Over ``class`` (length 1 holding ``pos_label`` when binary), plus ``repeat`` when the
        frame has a repeat column, plus ``fold`` for ``method="fold"``; without ``class``
        when ``average`` is given. Attrs record ``metric``, ``method``, ``undefined``,
        ``average``, ``reduced_dims`` and ``n_undefined``.

    Raises
    ------
    ValueError
        A missing column, NaN or infinite scores, score columns that do not match the labels
        (missing or extra ``score_<label>``; columns are matched by name), labels outside
        ``labels``, binary labels other than {0, 1}/{False, True} without ``pos_label``.
    TypeError
        Non-numeric scores, labels mixing strings and numbers.

    Warns
    -----
    UndefinedMetricWarning
        Once per call under ``undefined="skip"`` when a fold (or a pooled repeat) has no
        positives or no negatives for a class: AUC is undefined there (never 0 or 0.5).
    UserWarning
        When a score column holds only 0 and 1 (hard predictions): AUC then equals the
        balanced accuracy.

    Notes
    -----
    One packed ``uint64`` sort per class (group, score and label in one key), then
    tie-aware rank sums per group: no loop over folds.

    See Also
    --------
    auc_methods : both aggregations side by side.
    sklearn.metrics.roc_auc_score : the same number for one fold.

    {refs}
    Examples
    --------
    >>> import pandas as pd
    >>> from cvframe import scores
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...                    "y_true": [0, 0, 1, 1, 0, 1, 0, 1],
    ...                    "score": [0.1, 0.4, 0.35, 0.8, 10.0, 10.5, 10.2, 11.0]})
    >>> scores.auc(df).item()
    0.875
    >>> scores.auc(df, method="fold").values.ravel().tolist()
    [0.75, 1.0]
    >>> round(scores.auc(df, method="merge").item(), 4)
    0.6875
    """
    _check(method, undefined, average)
    fr = _parse(df, labels, pos_label, y_true, fold, repeat, score)
    per_fold = method != "merge"
    res = _per_group(fr, per_fold, lambda r: r.auc())
    value = _cube(fr, per_fold, [r[0] for r in res])
    support = _support(fr, per_fold, [r[1] for r in res])
    return _finish(fr, value, support, metric="auc",
                   why="no positives or no negatives for a class", method=method,
                   undefined=undefined, average=average, per_fold=per_fold)


@_docs
@_by_frame_dims
def auc_methods(df: pd.DataFrame, undefined: Undefined = "skip", *, average: Average = None,
                labels: Sequence[Hashable] | None = None, pos_label: Hashable | None = None,
                y_true: str = "y_true", fold: str = "fold", repeat: str | None = "repeat",
                score: str = "score") -> xr.Dataset:
    r"""AUC_avg and AUC_merge side by side.

    ``auc_avg`` is the mean of the per-fold AUCs; ``auc_merge`` the AUC of all folds' scores
    of a repeat sorted together (see :func:`auc`). They differ when the fold models are not
    calibrated with each other: AUC_merge < AUC_avg signals scores shifted between folds.

    Parameters
    ----------
    {frame_params}
    undefined : {"skip", "nan"}
        As in :func:`auc`; at most one warning per variable.
    average : {None, "macro", "weighted"}
        As in :func:`auc`.

    Returns
    -------
    xarray.Dataset
        Variables ``auc_avg`` and ``auc_merge`` over ``class`` (plus ``repeat``).

    {refs}
    Examples
    --------
    >>> import pandas as pd
    >>> from cvframe import scores
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...                    "y_true": [0, 0, 1, 1, 0, 1, 0, 1],
    ...                    "score": [0.1, 0.4, 0.35, 0.8, 10.0, 10.5, 10.2, 11.0]})
    >>> ds = scores.auc_methods(df)
    >>> float(ds.auc_avg.item()), round(float(ds.auc_merge.item()), 4)
    (0.875, 0.6875)
    """
    kw = dict(undefined=undefined, average=average, labels=labels, pos_label=pos_label,
              y_true=y_true, fold=fold, repeat=repeat, score=score)
    ds = xr.Dataset({"auc_avg": auc(df, "avg", **kw), "auc_merge": auc(df, "merge", **kw)})
    ds.attrs = {"metric": "auc", "undefined": undefined,
                "average": "none" if average is None else average}
    return ds


@_docs
@_by_frame_dims
def average_precision(df: pd.DataFrame, method: Method = "avg", undefined: Undefined = "skip",
                      *, average: Average = None, labels: Sequence[Hashable] | None = None,
                      pos_label: Hashable | None = None, y_true: str = "y_true",
                      fold: str = "fold", repeat: str | None = "repeat",
                      score: str = "score") -> xr.DataArray:
    r"""Average precision per fold, averaged over folds, or merged.

    scikit-learn's step-wise definition: with thresholds at the distinct scores in
    decreasing order, :math:`AP = \sum_n (R_n - R_{n-1}) P_n`, where :math:`P_n, R_n` are
    the precision and recall of predicting positive every sample scored at least the n-th
    threshold (all tied samples enter together). A fold without positives has undefined AP;
    a fold without negatives has AP = 1.

    Parameters
    ----------
    {frame_params}
    {method_params}

    Returns
    -------
    xarray.DataArray
        As :func:`auc`.

    See Also
    --------
    sklearn.metrics.average_precision_score : the same number for one fold.

    {refs}
    Examples
    --------
    >>> import pandas as pd
    >>> from cvframe import scores
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...                    "y_true": [0, 0, 1, 1, 0, 1, 0, 1],
    ...                    "score": [0.1, 0.4, 0.35, 0.8, 10.0, 10.5, 10.2, 11.0]})
    >>> scores.average_precision(df, method="fold").values.ravel().round(4).tolist()
    [0.8333, 1.0]
    """
    _check(method, undefined, average)
    fr = _parse(df, labels, pos_label, y_true, fold, repeat, score)
    per_fold = method != "merge"
    res = _per_group(fr, per_fold, lambda r: r.average_precision())
    value = _cube(fr, per_fold, [r[0] for r in res])
    support = _support(fr, per_fold, [r[1] for r in res])
    return _finish(fr, value, support, metric="average_precision",
                   why="no positives for a class", method=method, undefined=undefined,
                   average=average, per_fold=per_fold)


@_docs
@_by_frame_dims
def precision_at_k(df: pd.DataFrame, k: int, method: Method = "avg",
                   undefined: Undefined = "skip", *, average: Average = None,
                   labels: Sequence[Hashable] | None = None, pos_label: Hashable | None = None,
                   y_true: str = "y_true", fold: str = "fold", repeat: str | None = "repeat",
                   score: str = "score") -> xr.DataArray:
    r"""Precision among the k top-scored samples of each fold, averaged over folds.

    :math:`P@k = \frac{1}{k} \#\{\text{positives among the } k \text{ highest scores}\}`.
    When the k-th place falls inside a run of tied scores, the run contributes its
    positives in proportion to the places it takes (the expected value under random
    tie-breaking). A fold with fewer than k samples is undefined.

    Parameters
    ----------
    {frame_params}
    k : int
        How many top-scored samples, >= 1.
    {method_params}

    Returns
    -------
    xarray.DataArray
        As :func:`auc`; attrs also record ``k``.

    {refs}
    Examples
    --------
    >>> import pandas as pd
    >>> from cvframe import scores
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...                    "y_true": [0, 0, 1, 1, 0, 1, 0, 1],
    ...                    "score": [0.1, 0.4, 0.35, 0.8, 10.0, 10.5, 10.2, 11.0]})
    >>> scores.precision_at_k(df, 2, method="fold").values.ravel().tolist()
    [0.5, 1.0]
    """
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k={k!r} is not valid; k must be an integer >= 1 (how many "
                         "top-scored samples).")
    _check(method, undefined, average)
    fr = _parse(df, labels, pos_label, y_true, fold, repeat, score)
    per_fold = method != "merge"
    res = _per_group(fr, per_fold, lambda r: (r.precision_at(np.int64(k)), r.npos))
    value = _cube(fr, per_fold, [r[0] for r in res])
    support = _support(fr, per_fold, [r[1] for r in res])
    return _finish(fr, value, support, metric="precision_at_k",
                   why=f"fewer than k={k} samples in the fold", method=method,
                   undefined=undefined, average=average, per_fold=per_fold,
                   extra={"k": int(k)})


@_docs
@_by_frame_dims
def r_precision(df: pd.DataFrame, method: Method = "avg", undefined: Undefined = "skip", *,
                average: Average = None, labels: Sequence[Hashable] | None = None,
                pos_label: Hashable | None = None, y_true: str = "y_true", fold: str = "fold",
                repeat: str | None = "repeat", score: str = "score") -> xr.DataArray:
    r"""R-precision (the precision-recall break-even point) per fold, averaged over folds.

    With R positives in the fold, R-precision is :math:`P@R`: the share of positives among
    the R top-scored samples, where precision equals recall. Ties at the cut are shared as
    in :func:`precision_at_k`. A fold without positives is undefined.

    Parameters
    ----------
    {frame_params}
    {method_params}

    Returns
    -------
    xarray.DataArray
        As :func:`auc`.

    {refs}
    Examples
    --------
    >>> import pandas as pd
    >>> from cvframe import scores
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...                    "y_true": [0, 0, 1, 1, 0, 1, 0, 1],
    ...                    "score": [0.1, 0.4, 0.35, 0.8, 10.0, 10.5, 10.2, 11.0]})
    >>> scores.r_precision(df, method="fold").values.ravel().tolist()
    [0.5, 1.0]
    """
    _check(method, undefined, average)
    fr = _parse(df, labels, pos_label, y_true, fold, repeat, score)
    per_fold = method != "merge"

    def one(r: _Ranked) -> tuple[np.ndarray, np.ndarray]:
        npos = r.npos
        return r.precision_at(npos), npos

    res = _per_group(fr, per_fold, one)
    value = _cube(fr, per_fold, [r[0] for r in res])
    support = _support(fr, per_fold, [r[1] for r in res])
    return _finish(fr, value, support, metric="r_precision",
                   why="no positives for a class", method=method, undefined=undefined,
                   average=average, per_fold=per_fold)


# ------------------------------------------------------------------------------------------
# Tidy curves for plots
# ------------------------------------------------------------------------------------------

def _curves(fr: _Frame, per_fold: bool) -> list[dict[str, np.ndarray]]:
    return _per_group(fr, per_fold, lambda r: r.curve())


def _label_col(coord: np.ndarray, codes: np.ndarray) -> Any:
    """Column of coordinate values taken at ``codes``; -1 gives a missing value."""
    arr = pd.array(coord) if coord.dtype != object else pd.array(list(coord))
    return arr.take(codes, allow_fill=True)


@_docs
@_by_frame_dims
def roc(df: pd.DataFrame, undefined: Undefined = "skip", *,
        labels: Sequence[Hashable] | None = None, pos_label: Hashable | None = None,
        y_true: str = "y_true", fold: str = "fold", repeat: str | None = "repeat",
        score: str = "score") -> pd.DataFrame:
    r"""Tidy ROC points of every fold, plus the merged curve of each repeat.

    For each fold and class, one point per distinct score t in decreasing order:
    :math:`FPR(t) = FP(s \ge t) / n_0`, :math:`TPR(t) = TP(s \ge t) / n_1`, preceded by the
    point (0, 0) at threshold +inf — scikit-learn's ``roc_curve(..., drop_intermediate=False)``.
    The trapezoidal area under each fold's points is its AUC.

    Parameters
    ----------
    {frame_params}
    undefined : {"skip", "nan"}
        Curves of folds without positives or without negatives: ``"skip"`` leaves them out
        with one :class:`~cvframe.UndefinedMetricWarning`; ``"nan"`` keeps their points with
        NaN rates, silently.

    Returns
    -------
    pandas.DataFrame
        Columns ``kind`` (``"fold"`` for a fold's curve, ``"merged"`` for the pooled curve of
        a repeat), ``repeat`` (when the frame has one), ``fold`` (missing, ``<NA>``, on merged
        rows), ``class``, ``threshold``, ``fpr``, ``tpr``. Rows are ordered by kind, repeat,
        fold, class and decreasing threshold, ready for ``seaborn.lineplot(x="fpr",
        y="tpr", hue="fold")``.

    See Also
    --------
    sklearn.metrics.roc_curve

    {refs}
    Examples
    --------
    >>> import pandas as pd
    >>> from cvframe import scores
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...                    "y_true": [0, 0, 1, 1, 0, 1, 0, 1],
    ...                    "score": [0.1, 0.4, 0.35, 0.8, 10.0, 10.5, 10.2, 11.0]})
    >>> pts = scores.roc(df)
    >>> pts[pts.kind == "fold"].query("fold == 0")[["threshold", "fpr", "tpr"]].values.tolist()
    [[inf, 0.0, 0.0], [0.8, 0.0, 0.5], [0.4, 0.5, 0.5], [0.35, 0.5, 1.0], [0.1, 1.0, 1.0]]
    """
    check_choice("undefined", undefined, UNDEFINED)
    fr = _parse(df, labels, pos_label, y_true, fold, repeat, score)
    frames = []
    n_undef, total, where = 0, 0, []
    for kind, per_fold in (("fold", True), ("merged", False)):
        present = _present(fr) if per_fold else np.ones(fr.n_reps, dtype=bool)
        for ci, cur in enumerate(_curves(fr, per_fold)):
            npos, nneg = cur["npos"], cur["nneg"]
            bad = present & ((npos == 0) | (nneg == 0))
            n_undef += int(bad.sum())
            total += int(present.sum())
            if bad.any():
                where += [_place(fr, per_fold, g, fr.classes[ci]) for g in np.flatnonzero(bad)]
            keep_g = present & ~bad if undefined == "skip" else present
            gs = np.flatnonzero(keep_g)
            grp = np.concatenate([gs, cur["group"]])
            thr = np.concatenate([np.full(len(gs), np.inf), cur["threshold"]])
            tp = np.concatenate([np.zeros(len(gs), np.int64), cur["tp"]])
            fp = np.concatenate([np.zeros(len(gs), np.int64), cur["fp"]])
            first = np.concatenate([np.zeros(len(gs)), np.ones(len(cur["group"]))])
            seq = np.concatenate([np.zeros(len(gs)), np.arange(1, len(cur["group"]) + 1)])
            sel = keep_g[grp]
            order = np.lexsort((seq[sel], first[sel], grp[sel]))
            grp, thr, tp, fp = (a[sel][order] for a in (grp, thr, tp, fp))
            with np.errstate(invalid="ignore", divide="ignore"):
                fpr = fp / nneg[grp].astype(np.float64)
                tpr = tp / npos[grp].astype(np.float64)
            frames.append(_tidy(fr, per_fold, kind, grp, ci,
                                {"threshold": thr, "fpr": fpr, "tpr": tpr}))
    if n_undef and undefined == "skip":
        _warn_curves("ROC curve", n_undef, total, where)
    out = pd.concat(frames, ignore_index=True)
    keys = ["kind"] + [c for c in (REPEAT, FOLD) if c in out.columns]
    out = out.sort_values(keys, kind="stable", ignore_index=True)
    out.attrs = {"undefined": undefined}
    return out


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _place(fr: _Frame, per_fold: bool, g: int | np.integer, cls: Any) -> str:
    parts = []
    if fr.rep_coord is not None:
        r = g // fr.n_folds if per_fold else g
        parts.append(f"repeat={_plain(fr.rep_coord[r])!r}")
    if per_fold:
        parts.append(f"fold={_plain(fr.fold_coord[g % fr.n_folds])!r}")
    else:
        parts.append("merged")
    parts.append(f"class={_plain(cls)!r}")
    return " ".join(parts)


def _warn_curves(what: str, n: int, total: int, where: list[str]) -> None:
    warnings.warn(
        f"{what} (no positives or no negatives for a class) is undefined in {n} of {total} "
        f"curves ({few(where)}); left out. Pass undefined='nan' to keep them with NaN rates "
        "and silence this warning.",
        UndefinedMetricWarning, stacklevel=user_stacklevel(),
    )


def _tidy(fr: _Frame, per_fold: bool, kind: str | None, grp: np.ndarray, ci: int,
          cols: dict[str, np.ndarray]) -> pd.DataFrame:
    data: dict[str, Any] = {}
    if kind is not None:
        data["kind"] = np.full(len(grp), kind, dtype=object)
    if fr.rep_coord is not None:
        rep = grp // fr.n_folds if per_fold else grp
        data[REPEAT] = _label_col(fr.rep_coord, rep)
    fcodes = grp % fr.n_folds if per_fold else np.full(len(grp), -1)
    data[FOLD] = _label_col(fr.fold_coord, fcodes)
    data[CLASS] = np.full(len(grp), fr.classes[ci], dtype=object) \
        if isinstance(fr.classes[ci], str) else np.full(len(grp), fr.classes[ci])
    data.update(cols)
    return pd.DataFrame(data)


@_docs
@_by_frame_dims
def score_rates(df: pd.DataFrame, undefined: Undefined = "skip", *,
                labels: Sequence[Hashable] | None = None, pos_label: Hashable | None = None,
                y_true: str = "y_true", fold: str = "fold", repeat: str | None = "repeat",
                score: str = "score") -> pd.DataFrame:
    r"""Each fold's false and true positive rate against the score threshold (Figure 3).

    For every fold, class and distinct score t: :math:`FPR(t) = FP(s \ge t)/n_0` and
    :math:`TPR(t) = TP(s \ge t)/n_1`. Folds whose curves are shifted along the score axis
    are not calibrated with each other — the reason AUC_merge falls below AUC_avg
    (Forman & Scholz 2010, Figure 3 and §3.2).

    Parameters
    ----------
    {frame_params}
    undefined : {"skip", "nan"}
        As in :func:`roc`.

    Returns
    -------
    pandas.DataFrame
        Long format: columns ``repeat`` (when present), ``fold``, ``class``, ``threshold``,
        ``rate`` (``"fpr"`` or ``"tpr"``) and ``value``; ready for
        ``seaborn.relplot(x="threshold", y="value", hue="fold", col="rate", kind="line")``.

    {refs}
    Examples
    --------
    >>> import pandas as pd
    >>> from cvframe import scores
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...                    "y_true": [0, 0, 1, 1, 0, 1, 0, 1],
    ...                    "score": [0.1, 0.4, 0.35, 0.8, 10.0, 10.5, 10.2, 11.0]})
    >>> sr = scores.score_rates(df)
    >>> sr[(sr.fold == 1) & (sr.rate == "tpr")][["threshold", "value"]].values.tolist()
    [[11.0, 0.5], [10.5, 1.0], [10.2, 1.0], [10.0, 1.0]]
    """
    check_choice("undefined", undefined, UNDEFINED)
    fr = _parse(df, labels, pos_label, y_true, fold, repeat, score)
    present = _present(fr)
    frames, where, n_undef, total = [], [], 0, 0
    for ci, cur in enumerate(_curves(fr, True)):
        npos, nneg = cur["npos"], cur["nneg"]
        bad = present & ((npos == 0) | (nneg == 0))
        n_undef += int(bad.sum())
        total += int(present.sum())
        where += [_place(fr, True, g, fr.classes[ci]) for g in np.flatnonzero(bad)]
        keep = (present & ~bad if undefined == "skip" else present)[cur["group"]]
        grp = cur["group"][keep]
        with np.errstate(invalid="ignore", divide="ignore"):
            fpr = cur["fp"][keep] / nneg[grp].astype(np.float64)
            tpr = cur["tp"][keep] / npos[grp].astype(np.float64)
        thr = cur["threshold"][keep]
        for rate, val in (("fpr", fpr), ("tpr", tpr)):
            frames.append(_tidy(fr, True, None, grp, ci, {
                "threshold": thr, "rate": np.full(len(grp), rate, dtype=object),
                "value": val}))
    if n_undef and undefined == "skip":
        _warn_curves("score-rate curve", n_undef, total, where)
    out = pd.concat(frames, ignore_index=True)
    keys = [c for c in (REPEAT, FOLD) if c in out.columns]
    out = out.sort_values(keys + ["rate"], kind="stable", ignore_index=True)
    out.attrs = {"undefined": undefined}
    return out
