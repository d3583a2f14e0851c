"""Counts cubes from per-sample predictions: :func:`from_predictions` and
:func:`counts_from_frame` (``df.cv.counts()``).

Labels follow :mod:`cvframe._core.labels` (universe, order, binary default, codes); the counting
is :mod:`cvframe.build._kernel` (one ``bincount`` over a combined index).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .._core import checks as _checks
from .._core import labels as _labels
from .._core.labels import frame
from ..errors import ColumnError, CountsError, few
from ..schema import CLASS, CONFUSION, FOLD, FRAME_DIMS, PRED, REPEAT, TRUE, is_lazy, validate
from . import _count, _kernel, _lazy
from .tables import confusion_cube, multilabel_cube

__all__ = ["FRAME_ATTRS", "FRAME_DIMS", "counts_from_frame", "frame_cube", "from_predictions"]

#: Attrs of a predictions frame (set by cross_validate) that the cube keeps.
FRAME_ATTRS = (
    "stratified",
    "splitter",
    "params",
    "model_params",
    "estimators",
    "score_methods",
    "source",
    "resampling",
    "baselines",  # a list of model names: kept as a list of str
    "unstratified_labels",  # the classes a stratified splitter could not put in every fold
)

# --- inputs ------------------------------------------------------------------------------------


def _weights(sample_weight: Any, n: int) -> Any:
    """float64 weights, one per sample, finite and >= 0, not all 0 (dask: checked lazily)."""
    if sample_weight is None:
        return None
    if _labels.is_dask(sample_weight):
        w = sample_weight
        w = w.to_dask_array(lengths=True) if hasattr(w, "to_dask_array") else w
    else:
        if isinstance(sample_weight, (pd.Series, pd.Index, pd.DataFrame)):
            sample_weight = sample_weight.to_numpy()
        try:
            w = np.asarray(sample_weight, dtype="float64")
        except (TypeError, ValueError):
            raise CountsError("sample_weight must be numbers, one per sample.") from None
        if w.ndim == 2 and w.shape[1] == 1:
            w = w[:, 0]
    if w.ndim != 1 or w.shape[0] != n:
        raise CountsError(f"sample_weight has shape {w.shape}; expected ({n},), one per sample.")
    w = _kernel.check_weights(w)
    if not _labels.is_dask(w) and n and not (w > 0).any():
        raise CountsError(
            "sample_weight is 0 for every sample; a cube of weighted counts would hold no "
            "samples. Give the samples that count a positive weight."
        )
    return w


def _code_groups(garr: list[tuple[str, Any]]) -> tuple[list[tuple[Any, int]], dict[str, Any]]:
    """(codes, size) and coordinate of every grouping array (integer ids: counted, not hashed)."""
    gcodes, gcoords = [], {}
    for name, values in garr:
        ranged = _labels.range_codes(values)
        codes, uni = (
            (ranged[0], [_labels.plain(v) for v in ranged[1]])
            if ranged
            else _labels.group_codes(values, name)
        )
        gcodes.append((codes, len(uni)))
        gcoords[name] = uni
    return gcodes, gcoords


# --- the one pass ---------------------------------------------------------------------------------


def build(
    y_true: Any,
    y_pred: Any,
    groups: list[tuple[str, Any]],
    labels: Any,
    pos_label: Any,
    sample_weight: Any,
    attrs: dict[str, Any],
    *,
    pos_from_attr: bool = False,
    beta: float = 1.0,
) -> xr.Dataset:
    """The cube of per-sample labels grouped by ``groups`` (outer to inner dims); a
    multilabel cube's per-sample F sums are at ``beta``."""
    if any(_labels.is_dask(v) for v in (y_true, y_pred, sample_weight, *(g for _, g in groups))):
        lazy = _build_lazy(
            y_true, y_pred, groups, labels, pos_label, sample_weight, attrs, pos_from_attr
        )
        if lazy is not None:
            return lazy
    yt = _labels.as_labels(y_true, "y_true", allow_2d=True)
    yp = _labels.as_labels(y_pred, "y_pred", allow_2d=True)
    garr = [(name, _labels.as_labels(v, name)) for name, v in groups if v is not None]
    named = {"y_true": yt, "y_pred": yp, **dict(garr)}
    n = _kernel.check_lengths({k: int(v.shape[0]) for k, v in named.items()})
    if n == 0:
        raise CountsError("the predictions are empty (0 samples); nothing to count.")
    if labels is not None:
        labels = _labels.check_labels_arg(labels)
    w = _weights(sample_weight, n)
    if getattr(yt, "ndim", 1) == 2 or getattr(yp, "ndim", 1) == 2:
        gcodes, gcoords = _code_groups(garr)
        return multilabel_cube(
            y_true, y_pred, yt, yp, gcodes, gcoords, labels, pos_label, w, attrs, beta
        )
    counted = _count.count(garr, yt, yp, labels, pos_label, w, n, pos_from_attr)
    if counted is not None:
        got = counted
        return confusion_cube(
            got.conf, got.universe, got.pos, list(got.gcoords), got.gcoords, _weighted(attrs, w)
        )
    # weighted labels that need coding: counted per code, as ever (the same float sums)
    gcodes, gcoords = _code_groups(garr)
    universe, pos, (tc, pc) = _count.coded(yt, yp, labels, pos_label, pos_from_attr)
    c = len(universe)
    gshape = [s for _, s in gcodes]
    total = int(np.prod(gshape, dtype=np.int64)) * c * c
    parts = gcodes + [(tc, c), (pc, c)]
    conf = _kernel.blocked_count([a for a, _ in parts], [s for _, s in parts], 0, w, total, n)
    conf = conf.reshape(tuple(gshape) + (c, c))
    return confusion_cube(conf, universe, pos, list(gcoords), gcoords, _weighted(attrs, w))


def _build_lazy(
    y_true: Any,
    y_pred: Any,
    groups: list[tuple[str, Any]],
    labels: Any,
    pos_label: Any,
    sample_weight: Any,
    attrs: dict[str, Any],
    pos_from_attr: bool,
) -> xr.Dataset | None:
    """The lazy cube of dask inputs (None for multilabel data: counted eagerly).

    Classes come from ``labels=`` or known categories, groups from known categories; what is
    still unknown is found in one pass (the distinct values of every partition).
    """
    garr = [(name, v) for name, v in groups if v is not None]
    named = garr + [("y_true", y_true), ("y_pred", y_pred)]
    weighted = sample_weight is not None
    if weighted:
        named.append(("sample_weight", sample_weight))
    got = _lazy.dask_inputs(named)
    if got is None:
        return None
    parts, cols = got
    if labels is not None:
        labels = _labels.check_labels_arg(labels)
    cats = [_lazy.known_categories(v) for _, v in garr]
    known: dict[int, list[Hashable]] = {i: c for i, c in enumerate(cats) if c is not None}
    universe = labels if labels is not None else _lazy.known_categories(y_true)
    if universe is None and not isinstance(getattr(y_true, "dtype", None), pd.CategoricalDtype):
        universe = _lazy.known_categories(y_pred)
    from_data = False
    wanted = [i for i in range(len(garr)) if i not in known]
    ng = len(garr)
    if universe is None or wanted:
        wanted += [ng, ng + 1]  # the classes (or, when declared, their check) in the same pass
    if wanted:
        found = dict(zip(wanted, _lazy.observed_values(parts, cols, wanted), strict=True))
        for i in (i for i in found if i < ng):
            known[i] = [_labels.plain(u) for u in _labels.check_unique(found[i], garr[i][0])]
        if ng in found:
            ut = _labels.check_unique(found[ng], "y_true")
            up = _labels.check_unique(found[ng + 1], "y_pred")
            if labels is None:
                _labels.check_classes(ut, "y_true")
                _labels.check_classes(up, "y_pred", _labels.PRED_FIX)
            universe, from_data = _count.universe_of(universe, ut, up)
    assert universe is not None
    universe, pos = _count.resolve(universe, from_data, pos_label, pos_from_attr)
    coders = [_lazy.Coder(known[i], name, "values") for i, (name, _) in enumerate(garr)]
    coders += [_lazy.Coder(universe, n, "labels") for n in ("y_true", "y_pred")]
    c = len(universe)
    gshape = tuple(len(known[i]) for i in range(ng))
    conf = _lazy.lazy_counts(parts, cols, coders, weighted).reshape(gshape + (c, c))
    gdims = [name for name, _ in garr]
    gcoords = {name: known[i] for i, (name, _) in enumerate(garr)}
    return confusion_cube(conf, universe, pos, gdims, gcoords, _weighted(attrs, weighted or None))


def _checked(cube: xr.Dataset) -> xr.Dataset:
    """The cube, validated; a lazy cube is checked when computed. An unweighted single-label
    cube holds the invariants by construction (int64 counts of one confusion array: ``tp +
    fp + fn + tn`` is the fold's row count for every class, ``sum(fp) == sum(fn)``), so it
    skips the re-check, which costs more than labelling the cube."""
    conf = cube.variables.get(CONFUSION)  # a Variable: no DataArray built to ask
    if conf is not None and conf.dtype == np.int64 and cube.attrs.get("weighted") != "yes":
        return cube
    return cube if is_lazy(cube) else validate(cube)


def _weighted(attrs: dict[str, Any], w: Any) -> dict[str, Any]:
    """The cube's attrs: weighted counts say so."""
    return {**attrs, "weighted": "yes"} if w is not None else attrs


def from_predictions(
    y_true: Any,
    y_pred: Any,
    fold: Any,
    repeat: Any = None,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    sample_weight: Any = None,
) -> xr.Dataset:
    r"""Count every fold's one-vs-all outcomes from per-sample predictions.

    One pass over the data: labels, folds and repeats become integer codes, combined into one
    index :math:`((r \cdot K + i) \cdot C + t) \cdot C + p` and counted by one ``bincount``;
    ``tp``, ``fp``, ``fn``, ``tn`` follow from the per-fold confusion matrices.

    Parameters
    ----------
    y_true, y_pred : array-like, Series or dask array
        1-D labels (binary or multiclass; a column vector ``(n, 1)`` is 1-D), or 2-D 0/1
        indicator arrays (n_samples, n_classes) for multilabel data (a DataFrame's column
        names become the classes).
    fold : array-like
        The test fold of each sample. Only fold ids that occur are folds (an unused
        category of a Categorical is not); ids may be of any integer width, or strings.
    repeat : array-like, optional
        The repeat of each sample (repeated CV); becomes the ``repeat`` dim.
    labels : sequence, optional
        The class universe and order. Classes named here but absent from the data stay in
        the cube with zero counts; a label outside it is an error. Default: the categories
        of a pandas Categorical, else the sorted unique labels.
    pos_label : label, optional
        The positive class of a binary task. Labels {0, 1} / {False, True} default to 1 /
        True; any other pair of labels needs it (or ``labels=[a, b]`` for a one-vs-all cube
        over both). It must be one of the labels and is refused for more than two.
    sample_weight : array-like, optional
        Per-sample weights, finite and >= 0: the counts become float64 weighted sums (attr
        ``weighted="yes"``). A zero weight never deletes a class or a fold (they stay, with
        zero counts); weights that are 0 for every sample are an error. A count whose
        samples all weigh 0 is exactly 0.

    Returns
    -------
    xarray.Dataset
        The counts cube: int64 ``tp``, ``fp``, ``fn``, ``tn`` over ``([repeat,] fold,
        class)``, and ``confusion`` over ``([repeat,] fold, true, pred)`` for single-label
        data. Binary cubes hold only the positive class in ``class``.

    Raises
    ------
    CountsError
        Inputs of different lengths, missing labels, mixed label types, labels outside
        ``labels``, bad weights, non-0/1 multilabel values, empty input. On dask inputs the
        value checks (weights, indicators, labels outside ``labels`` not seen while
        labelling the cube) run when the cube is computed.

    Notes
    -----
    Dask inputs (1-D dask arrays, dask Series, columns of a dask DataFrame) give a lazy cube:
    one task per partition codes that partition and counts it with one ``bincount``, and the
    count vectors are summed; computing the cube reads every partition once. The classes
    and folds label the cube, so they must be known first: classes from ``labels=`` or from
    categoricals with known categories (unused categories included), folds and repeats from
    categoricals with known categories. What is still unknown is found in ONE pass over the
    data (the distinct values of every partition, computed together) when the cube is
    built. Series are joined side by side first, so a partition they share is computed
    once. 2-D (multilabel) dask inputs are counted with :func:`dask.array.bincount`.

    See Also
    --------
    sklearn.metrics.multilabel_confusion_matrix : the same counts, one fold at a time.

    Examples
    --------
    >>> import cvframe
    >>> ds = cvframe.from_predictions([1, 0, 1, 1, 0, 0], [1, 0, 0, 1, 1, 0],
    ...                              fold=[0, 0, 0, 1, 1, 1])
    >>> ds.tp.values.ravel().tolist(), ds.fp.values.ravel().tolist()
    ([1, 1], [0, 1])
    >>> round(ds.cv.f_tp_fp().item(), 3)
    0.667
    """
    if fold is None:
        raise TypeError(
            "fold is None; pass the test fold of each sample (e.g. "
            "fold=np.zeros(n) for a single train/test split)."
        )
    if repeat is not None and _same_array(repeat, fold):
        raise ValueError(
            "repeat and fold are the same array; one column cannot be two dims (each repeat "
            "would hold one fold, and a fold average would be reported as a pooled value). "
            "Pass repeat= with the repeat of each sample, or leave it out for one repeat."
        )
    cube = build(
        y_true, y_pred, [(REPEAT, repeat), (FOLD, fold)], labels, pos_label, sample_weight, {}
    )
    return _checked(cube)


def _same_array(a: Any, b: Any) -> bool:
    """Whether two inputs are one array: the same object or the same memory (a frame's column
    read twice), never by comparing values."""
    if a is b:
        return True
    if _labels.is_dask(a) or _labels.is_dask(b):
        return False
    a = a.to_numpy() if isinstance(a, (pd.Series, pd.Index)) else a
    b = b.to_numpy() if isinstance(b, (pd.Series, pd.Index)) else b
    if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)) or a.shape != b.shape:
        return False
    return a.size > 0 and a.ctypes.data == b.ctypes.data and a.strides == b.strides


def counts_from_frame(
    df: pd.DataFrame,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    *,
    y_true: str = "y_true",
    y_pred: str = "y_pred",
    fold: str = "fold",
    repeat: str | None = "repeat",
    sample_weight: str | None = None,
    dims: Sequence[str] | None = None,
) -> xr.Dataset:
    """The counts cube of a predictions frame (one row per tested sample).

    Parameters
    ----------
    df : pandas.DataFrame or dask.dataframe.DataFrame
        Columns ``fold``, ``y_true``, ``y_pred``, optional ``repeat`` (names configurable
        below) and optional dimension columns. A multilabel frame holds
        ``y_true_<label>`` / ``y_pred_<label>`` indicator columns instead (as
        :func:`cvframe.cross_validate` writes them); a binary frame's ``attrs["pos_label"]``
        is used when ``pos_label`` is not given (read against the frame's labels, so a
        stored ``"True"`` is the label ``True``).
    labels, pos_label : see :func:`from_predictions`.
    y_true, y_pred, fold : str
        Column names.
    repeat : str or None, default "repeat"
        Column of the repeat; under its default name used when the frame has it, under
        another name it must be a column.
    sample_weight : str, optional
        Column of per-sample weights.
    dims : sequence of str, optional
        Further columns that become dims of the cube (kept by every reduction). Default: those
        of ``"model"``, ``"param"``, ``"dataset"``, ``"subset"`` that the frame has;
        ``dims=[]`` for none.

    Returns
    -------
    xarray.Dataset
        The counts cube; the frame's attrs named in ``FRAME_ATTRS`` (``stratified``,
        ``splitter``, the parameter grid's ``params``, ...) are copied to its attrs. A dask
        DataFrame gives a lazy cube (see :func:`from_predictions`, Notes).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"fold": [0, 0, 1, 1], "y_true": ["a", "b", "b", "c"],
    ...                    "y_pred": ["a", "b", "c", "c"]})
    >>> ds = df.cv.counts()
    >>> ds.tp.sum("fold").values.tolist()
    [1, 1, 1]
    """
    return frame_cube(
        df, labels, pos_label, y_true=y_true, y_pred=y_pred, fold=fold, repeat=repeat,
        sample_weight=sample_weight, dims=dims,
    )  # fmt: skip


def frame_cube(
    df: pd.DataFrame,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    *,
    y_true: str = "y_true",
    y_pred: str = "y_pred",
    fold: str = "fold",
    repeat: str | None = "repeat",
    sample_weight: str | None = None,
    dims: Sequence[str] | None = None,
    beta: float = 1.0,
) -> xr.Dataset:
    """:func:`counts_from_frame` whose multilabel cube sums the per-sample F at ``beta``."""
    lazy = frame.is_dask_frame(df) and getattr(df, "ndim", 1) == 2
    if not isinstance(df, pd.DataFrame) and not lazy:
        raise TypeError(f"df must be a pandas or dask DataFrame, got {type(df).__name__}.")
    fattrs: dict[str, Any] = dict(getattr(df, "attrs", None) or {})
    if isinstance(df.columns, pd.MultiIndex):
        raise ValueError(
            "df has MultiIndex columns; flatten them first (e.g. "
            "df.columns = ['_'.join(map(str, c)) for c in df.columns])."
        )
    extra = [d for d in FRAME_DIMS if d in df.columns] if dims is None else _dims_arg(df, dims)
    pos_from_attr = pos_label is None and _labels.attrs_pos(fattrs, labels) is not None
    if pos_from_attr:
        pos_label = _labels.attrs_pos(fattrs, labels)
    multi = _multilabel_columns(df, y_true, y_pred) if y_true not in df.columns else None
    wanted = {"y_true": y_true, "y_pred": y_pred} if multi is None else {}
    wanted["fold"] = fold
    if sample_weight is not None:
        wanted["sample_weight"] = sample_weight
    for arg, name in wanted.items():
        _checks.column(df, name, arg)
    rep = repeat if frame.has_repeat(df, repeat) else None
    if rep is not None and rep == REPEAT and rep in extra:
        rep = None  # dims=["repeat"] names the repeat column: one dim, read once
    frame.one_role(
        [("dims" if dims is not None else str(d), d, True) for d in extra]
        + [(arg, name, arg == "fold") for arg, name in wanted.items()]
        + [("repeat", rep, True)]
    )
    groups: list[tuple[str, Any]] = [(str(d), _checks.column(df, d, "dims")) for d in extra]
    if rep is not None:
        groups.append((REPEAT, _checks.column(df, repeat, "repeat")))
    groups.append((FOLD, df[fold]))
    attrs = {
        k: [str(v) for v in fattrs[k]] if isinstance(fattrs[k], list) else str(fattrs[k])
        for k in FRAME_ATTRS
        if k in fattrs
    }
    if multi is not None:
        true_cols, pred_cols, names = multi
        attr_labels = fattrs.get("labels")
        if labels is None:
            known = list(attr_labels) if attr_labels is not None else []
            labels = known if [str(k) for k in known] == names else names
        yt, yp = (
            df[c].to_dask_array(lengths=True) if lazy else df[c].to_numpy()
            for c in (true_cols, pred_cols)
        )
    else:
        yt, yp = df[y_true], df[y_pred]
        labels = _labels.attrs_labels(fattrs, labels)
    weight = None if sample_weight is None else df[sample_weight]
    cube = build(
        yt, yp, groups, labels, pos_label, weight, attrs, pos_from_attr=pos_from_attr, beta=beta
    )
    return _checked(cube)


def _dims_arg(df: pd.DataFrame, dims: Any) -> list[Hashable]:
    if isinstance(dims, str):
        dims = [dims]
    try:
        out = list(dims)
    except TypeError:
        raise TypeError(
            f"dims={dims!r} must be a list of column names, e.g. dims=['model']."
        ) from None
    missing = [d for d in out if d not in df.columns]
    if missing:
        raise ColumnError(
            f"dims={out!r}: column(s) {few(missing)} not in the frame; its "
            f"columns are {few(df.columns, 12)}."
        )
    reserved = [d for d in out if d in (FOLD, CLASS, TRUE, PRED)]
    if reserved:
        raise ValueError(
            f"dims={out!r} names {few(reserved)}, which are dims the cube "
            "already has; name other columns."
        )
    if len(set(out)) != len(out):
        raise ValueError(f"dims={out!r} names a column twice; name each once.")
    return out


def _multilabel_columns(
    df: pd.DataFrame, y_true: str, y_pred: str
) -> tuple[list[str], list[str], list[str]] | None:
    """Multilabel frames hold one ``y_true_<label>`` and ``y_pred_<label>`` column per label."""
    names = frame.multilabel_names(df, y_true)
    if names is None:
        return None
    true_cols = [f"{y_true}_{n}" for n in names]
    pred_cols = [f"{y_pred}_{n}" for n in names]
    missing = [c for c in pred_cols if c not in df.columns]
    if missing:
        raise ColumnError(
            f"multilabel frame has {few(true_cols)} but lacks {few(missing)}; "
            "every y_true_<label> column needs its y_pred_<label> column."
        )
    return true_cols, pred_cols, names
