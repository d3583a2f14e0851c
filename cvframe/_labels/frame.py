"""Reading a predictions frame for the score metrics, on the package's one label policy.

:func:`parse` turns the frame into plain numpy arrays (:class:`Frame`): group codes of
``repeat`` and ``fold``, the class universe, one "is positive" indicator and one float64 score
array per scored class. The class universe and its order, the binary ``pos_label`` default,
the integer codes, the ``pos_label`` a :func:`cvframe.cross_validate` frame carries in its
``attrs`` and the fold groups all come from :mod:`cvframe._labels`, so a frame gives the same
classes here as in ``df.cv.counts()``. What is specific to scores lives here: the score columns
(``score`` or ``score_<label>``, matched to the classes by name, never by position), finite
numeric scores, and the warning for hard 0/1 predictions.

:func:`by_frame_dims` computes a metric separately per ``model`` / ``dataset`` / ``subset``
of a stacked frame: their scores are never ranked together.

(Over 400 lines: every check of the frame keeps its own message naming the column; splitting
the checks from the parser they guard would only scatter them.)
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .. import _labels
from ..errors import few, user_stacklevel
from ..schema import FRAME_DIMS

__all__ = ["FRAME_DIMS", "Frame", "by_frame_dims", "is_dask_frame", "parse", "place", "reads_dask"]

#: Columns of a predictions frame that stack independent score sets (never ranked together).


@dataclass
class Frame:
    """What the metrics need from a predictions frame, as plain numpy arrays."""

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

    @property
    def fold_keep(self) -> np.ndarray:
        """Which fold coordinates occur in some repeat."""
        return np.asarray(self.present.reshape(self.n_reps, self.n_folds).any(axis=0))

    @property
    def present(self) -> np.ndarray:
        """Which (repeat, fold) groups have rows: a repeat may have fewer folds (not a fold)."""
        if self.present_ is None:
            g, n_groups = self.groups(True)
            assert g is not None
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


# ------------------------------------------------------------------------------------------
# Columns
# ------------------------------------------------------------------------------------------


def column(df: pd.DataFrame, name: Any, arg: str) -> pd.Series:
    """The column ``name`` passed as argument ``arg``: it must exist and be unique."""
    if name not in df.columns:
        raise ValueError(
            f"{arg}={name!r} is not a column of the predictions frame (columns: "
            f"{few(df.columns)}); pass {arg}= with the name of the column that holds it."
        )
    col = df[name]
    if isinstance(col, pd.DataFrame):
        raise ValueError(
            f"{arg}={name!r} names {col.shape[1]} columns of the predictions frame; column "
            "names must be unique (drop or rename the duplicates)."
        )
    return col


def _check_no_missing(col: pd.Series, arg: str) -> None:
    if isinstance(col.dtype, np.dtype) and col.dtype.kind in "iub":
        return  # numpy ints and bools cannot be missing
    miss = np.asarray(col.isna())
    if miss.any():
        raise ValueError(
            f"{arg} column {col.name!r} has {int(miss.sum())} missing values (None/NaN/NA) at "
            f"rows {few(col.index[miss])}; drop or fill those rows first (nothing is dropped "
            "silently)."
        )


def _int_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Fast codes of integers in a small range: ``(value - lo, lo..hi)`` (absent ones too).

    None when the range is wide (then pandas' hash factorization is used).
    """
    if values.dtype.kind not in "iu" or not len(values):
        return None
    lo, hi = int(values.min()), int(values.max())
    if hi - lo >= 1 << 16 or lo < -(1 << 62) or hi > 1 << 62:
        return None
    off = values if lo == 0 and values.dtype == np.int64 else (values.astype(np.int64) - lo)
    return off, np.arange(lo, hi + 1).astype(values.dtype)


def _factorize(col: pd.Series, arg: str) -> tuple[np.ndarray, np.ndarray]:
    """Codes (int64) and the values they index (a Categorical's categories; maybe unused)."""
    _check_no_missing(col, arg)
    if isinstance(col.dtype, pd.CategoricalDtype):
        return col.cat.codes.to_numpy().astype(np.int64), np.asarray(col.cat.categories)
    values = col.to_numpy()
    fast = _int_codes(values)
    if fast is not None:
        return fast
    codes, uniq = _labels.factorize(_labels.as_labels(col, arg), arg)
    return np.asarray(codes, dtype=np.int64), np.asarray(uniq)


def _used(codes: np.ndarray, uniq: np.ndarray) -> np.ndarray:
    return np.bincount(codes, minlength=len(uniq))[: len(uniq)] > 0


def _groups(col: pd.Series, arg: str) -> tuple[np.ndarray, np.ndarray]:
    """Codes and coordinate of a grouping column (fold, repeat): only values that occur.

    Integer groups in a small range take a fast path; everything else (Categoricals, strings,
    wide integers) goes through :func:`cvframe._labels.group_codes`. Order: the used
    categories of a Categorical, else sorted.
    """
    _check_no_missing(col, arg)
    fast = _int_codes(col.to_numpy()) if not isinstance(col.dtype, pd.CategoricalDtype) else None
    if fast is not None:
        off, values = fast
        used = _used(off, values)
        if used.all():
            return off.astype(np.int64, copy=False), values
        lut = np.cumsum(used) - 1
        return lut[off], values[used]
    values = col.array if isinstance(col.dtype, pd.CategoricalDtype) else col
    codes, order = _labels.group_codes(_labels.as_labels(values, arg), arg)
    return np.asarray(codes, dtype=np.int64), _labels.coord(order)


# ------------------------------------------------------------------------------------------
# Scores
# ------------------------------------------------------------------------------------------


def _score_array(col: pd.Series) -> tuple[np.ndarray, float, float]:
    name = col.name
    if col.dtype.kind == "b" or col.dtype == "boolean":
        _check_no_missing(col, "score")
        s = col.to_numpy(dtype=np.float64)
        return s, float(s.min()), float(s.max())
    if not pd.api.types.is_numeric_dtype(col.dtype):
        raise TypeError(
            f"score column {name!r} has dtype {col.dtype}; scores must be numbers "
            "(predict_proba or decision_function values). Convert with "
            f"df[{name!r}].astype(float)."
        )
    s = (
        col.to_numpy()
        if col.dtype == np.float64
        else col.to_numpy(dtype=np.float64, na_value=np.nan)
    )
    lo, hi = (float(s.min()), float(s.max())) if len(s) else (0.0, 0.0)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        bad = ~np.isfinite(s)
        raise ValueError(
            f"score column {name!r} has {int(bad.sum())} NaN or infinite scores at rows "
            f"{few(col.index[bad])} (values {few(np.unique(s[bad]))}); every tested sample "
            "needs a finite score. Drop those rows or fix the model's output."
        )
    return s, lo, hi


def _is_hard(s: np.ndarray, lo: float, hi: float) -> bool:
    return lo == 0.0 and hi == 1.0 and bool(np.all((s == 0.0) | (s == 1.0)))


def _warn_hard(names: list[str]) -> None:
    warnings.warn(
        f"score column(s) {few(names)} hold only the values 0 and 1: they look like hard "
        "predictions, not scores. AUC of hard predictions equals balanced accuracy and "
        "ranking metrics see one big tie; pass predict_proba or decision_function values "
        "for a real ROC.",
        UserWarning,
        stacklevel=user_stacklevel(),
    )


# ------------------------------------------------------------------------------------------
# Labels
# ------------------------------------------------------------------------------------------


def _find(value: Any, universe: list[Any]) -> int:
    """Index of ``value`` among the classes (strings match strings only), else -1."""
    value = _labels.plain(value)
    for i, u in enumerate(universe):
        if isinstance(u, str) == isinstance(value, str) and bool(u == value):
            return i
    return -1


def _default_pos(universe: list[Any]) -> Any:
    """The binary default of :func:`cvframe._labels.binary_pos` ({0, 1}: 1, {False, True}:
    True), or None when the classes have none."""
    try:
        return _labels.binary_pos(universe, True, None)
    except ValueError:
        return None


def _classes(yt: pd.Series, labels: Any) -> tuple[np.ndarray, list[Any]]:
    """Codes of ``y_true`` into the class universe, and the universe (cf. ``counts()``)."""
    raw, uniq = _factorize(yt, "y_true")
    if isinstance(yt.dtype, pd.CategoricalDtype):
        universe, _ = _labels.universe(yt.array, labels=labels)
    else:
        present = uniq[_used(raw, uniq)] if len(uniq) else uniq
        present = np.asarray(_labels.check_unique(present, "y_true"))
        universe, _ = _labels.universe(present, labels=labels)
    codes = _labels.recode(raw, uniq, universe, "y_true")
    return np.asarray(codes), [_labels.plain(u) for u in universe]


def _pos_label(df: pd.DataFrame, pos_label: Any, labels: Any, universe: list[Any]) -> Any:
    """``pos_label`` as the class it names; a frame's ``attrs["pos_label"]`` when not given.

    As in ``df.cv.counts()``: a binary :func:`cvframe.cross_validate` frame records its
    positive class in ``attrs``; it applies when neither ``pos_label`` nor ``labels`` is given.
    """
    if pos_label is None:
        if labels is None and df.attrs.get("task") == "binary" and "pos_label" in df.attrs:
            pos = _labels.from_attr(df.attrs["pos_label"], universe)
            if _find(pos, universe) < 0:
                raise ValueError(
                    f"the frame's attrs['pos_label']={pos!r} is not among the labels "
                    f"{few(universe)} of y_true; pass pos_label= (one of them) explicitly."
                )
            return pos
        return None
    k = _find(pos_label, universe)
    if k < 0:
        raise ValueError(
            f"pos_label={_labels.plain(pos_label)!r} is not among the labels {few(universe)}; "
            "pass one of them."
        )
    return universe[k]


# ------------------------------------------------------------------------------------------
# The frame
# ------------------------------------------------------------------------------------------


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
    yt = column(df, y_true, "y_true")
    fold_codes, fold_coord = _groups(column(df, fold, "fold"), "fold")
    rep_codes = rep_coord = None
    if repeat is not None and repeat in df.columns:
        rep_codes, rep_coord = _groups(column(df, repeat, "repeat"), "repeat")

    codes, universe = _classes(yt, labels)
    pos_label = _pos_label(df, pos_label, labels, universe)
    per_class = {c: f"{score}_{c}" for c in universe}
    have_all = all(name in df.columns for name in per_class.values())
    default = _default_pos(universe)
    if pos_label is not None:
        binary = True
    elif len(universe) > 2:
        binary = False
    elif (
        labels is not None
        and len(universe) == 2
        and have_all
        and (score not in df.columns or default is None)
    ):
        binary = False  # labels=[a, b] with score_a and score_b: one-vs-all over both
    else:
        binary = True

    if binary:
        if pos_label is None:
            pos_label = default
            if pos_label is None:
                raise ValueError(
                    f"y_true has labels {few(universe)}, not {{0, 1}} or {{False, True}}: pass "
                    "pos_label= to say which one is the positive class (or labels=[a, b] with "
                    f"columns {score}_a and {score}_b to score both one-vs-all)."
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
        pos_code = _find(pos_label, universe)
        y_pos = codes == pos_code
        s, lo, hi = _score_array(column(df, name, "score"))
        if _is_hard(s, lo, hi):
            _warn_hard([name])
        return Frame(
            len(df),
            fold_codes,
            fold_coord,
            rep_codes,
            rep_coord,
            [pos_label],
            True,
            [y_pos],
            [s],
            [name],
            [(lo, hi)],
        )

    prefix = f"{score}_"
    missing = [n for n in per_class.values() if n not in df.columns]
    if missing:
        found = [c for c in df.columns if isinstance(c, str) and c.startswith(prefix)]
        raise ValueError(
            f"score columns {few(missing)} are missing: multiclass scoring needs one column "
            f"{prefix}<label> for every class of {few(universe)} (found {few(found)}). Rename "
            f"the columns, pass labels= to choose the classes, or score= to change the prefix."
        )
    expected = set(per_class.values())
    extra = [
        c for c in df.columns if isinstance(c, str) and c.startswith(prefix) and c not in expected
    ]
    if extra:
        raise ValueError(
            f"score columns {few(extra)} match no class of {few(universe)}; the score columns "
            "must match the labels (columns are matched by name, never by position). Pass "
            "labels= including those classes, or drop the columns."
        )
    ys, arrays, names, ranges, hard = [], [], [], [], []
    for i, c in enumerate(universe):
        name = per_class[c]
        s, lo, hi = _score_array(column(df, name, "score"))
        if _is_hard(s, lo, hi):
            hard.append(name)
        ys.append(codes == i)
        arrays.append(s)
        names.append(name)
        ranges.append((lo, hi))
    if hard:
        _warn_hard(hard)
    return Frame(
        len(df),
        fold_codes,
        fold_coord,
        rep_codes,
        rep_coord,
        list(universe),
        False,
        ys,
        arrays,
        names,
        ranges,
    )


def place(fr: Frame, per_fold: bool, g: int | np.integer, cls: Any) -> str:
    """A group and class as the user reads it: ``repeat=0 fold=3 class='a'``."""
    parts = []
    if fr.rep_coord is not None:
        r = g // fr.n_folds if per_fold else g
        parts.append(f"repeat={_labels.plain(fr.rep_coord[r])!r}")
    if per_fold:
        parts.append(f"fold={_labels.plain(fr.fold_coord[g % fr.n_folds])!r}")
    else:
        parts.append("merged")
    parts.append(f"class={_labels.plain(cls)!r}")
    return " ".join(parts)


# ------------------------------------------------------------------------------------------
# Frames that stack models, data sets or subsets
# ------------------------------------------------------------------------------------------


def is_dask_frame(df: Any) -> bool:
    """True for a dask DataFrame (classic dask or dask-expr)."""
    return type(df).__module__.split(".")[0] in ("dask", "dask_expr") and hasattr(df, "npartitions")


def reads_dask(func: Any) -> Any:
    """Mark a metric that reduces a dask DataFrame lazily itself (see :func:`by_frame_dims`)."""
    func.reads_dask = True
    return func


def by_frame_dims(func: Any) -> Any:
    """Compute per value of the frame's dimension columns (``model``, ``param``, ``dataset``, ...).

    A predictions frame may stack several models, data sets or the train and test subsets
    (``cross_validate(return_train=True)``); their scores must never be ranked together. The
    frame is split on those columns (a handful of groups, not folds or classes), the metric is
    computed per group, and the results are joined along the same dims (DataArrays and
    Datasets) or columns (tidy tables). Warnings of the groups are merged into one per kind.
    The frame's ``attrs`` (a ``pos_label`` recorded by ``cross_validate``) go with every part.
    """

    @functools.wraps(func)
    def wrapper(df: Any, *args: Any, **kwargs: Any) -> Any:
        if is_dask_frame(df) and not getattr(func, "reads_dask", False):
            # ranking needs all scores of a group in one sort: the frame is computed here
            df = df.compute()
        ok = isinstance(df, pd.DataFrame) and not isinstance(df.columns, pd.MultiIndex)
        dims = [d for d in FRAME_DIMS if ok and d in df.columns]
        if not dims:
            return func(df, *args, **kwargs)
        for d in dims:
            _check_no_missing(column(df, d, d), d)
        keys, pieces = [], []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for key, part in df.groupby(dims, sort=True, observed=True):
                keys.append(key if isinstance(key, tuple) else (key,))
                part = part.drop(columns=dims)
                part.attrs = dict(df.attrs)
                pieces.append(func(part, *args, **kwargs))
        _rewarn(caught, len(keys), dims)
        if isinstance(pieces[0], pd.DataFrame):
            parts = [
                p.assign(**dict(zip(dims, k, strict=True)))
                for p, k in zip(pieces, keys, strict=True)
            ]
            out = pd.concat(parts, ignore_index=True)
            return out[dims + [c for c in out.columns if c not in dims]]
        if len(dims) == 1:
            values = _labels.coord([k[0] for k in keys])  # strings stay object (netCDF-safe)
            dim = pd.Index(values, name=dims[0], dtype=values.dtype)
            out = xr.concat(pieces, dim=dim, join="outer", combine_attrs="override")
        else:
            stacked = xr.concat(pieces, dim="_group", join="outer", combine_attrs="override")
            index = pd.MultiIndex.from_tuples(keys, names=dims)
            stacked = stacked.assign_coords(xr.Coordinates.from_pandas_multiindex(index, "_group"))
            out = stacked.unstack("_group")
            # unstack sorts; keep each dim in the order its groups came (category order)
            out = out.reindex(
                {
                    d: _labels.coord(list(dict.fromkeys(k[i] for k in keys)))
                    for i, d in enumerate(dims)
                }
            )
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
