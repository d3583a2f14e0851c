"""seaborn plots of cross-validation results; every function returns the Axes or FacetGrid.

The functions take a counts cube, a predictions frame or a tidy frame from the core and only
reshape it for seaborn; every number comes from the core (:mod:`cvframe.reduce`,
:mod:`cvframe.diagnostics`, :mod:`cvframe.scores`, :mod:`cvframe.simulation`). They never call
``plt.show()``: save with ``obj.figure.savefig(path)``. matplotlib and seaborn are imported on
first use.

================================  ==========================================================
``folds(ds)``                     every fold's precision, recall and F per class as points,
                                  each fold aggregation as a marked line
``methods(ds)``                   the five F aggregations side by side, with the spread
                                  across repeats
``confusion(ds)``                 the confusion matrix as a heatmap (counts or normalised)
``roc(df)``                       per-fold ROC curves and the merged one
``score_rates(df)``               per-fold FPR and TPR against the score (paper, Figure 3)
``bias(study)``                   relative bias or std of the five methods (Figures 4-8)
``fold_risk()``                   risk of a fold without positives (Figure 9)
================================  ==========================================================

The accessors expose the cube and frame plots: ``ds.cv.plot.folds()``,
``ds.cv.plot.methods()``, ``ds.cv.plot.confusion()``, ``df.cv.plot.roc()``,
``df.cv.plot.score_rates()``.
"""
from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from . import diagnostics
from ._types import ZeroDivision
from .errors import check_choice
from .reduce import F_METHODS
from .schema import CLASS, CONFUSION, FOLD, PRED, REPEAT, TRUE

__all__ = ["DataFramePlotter", "DatasetPlotter", "bias", "confusion", "fold_risk", "folds",
           "methods", "roc", "score_rates"]

#: Display names of the five F aggregations (the paper's notation).
METHOD_LABELS = {"f_tp_fp": "F_tp,fp", "f_avg": "F_avg", "f_pr_re": "F_pr,re",
                 "f_avg_skip": "~F_avg", "f_pr_re_skip": "~F_pr,re"}
_GROUP = "group"


def _sns() -> Any:
    import seaborn as sns

    return sns


def _plt() -> Any:
    import matplotlib.pyplot as plt

    return plt


def _group_dims(dims: Sequence[Hashable]) -> list[Hashable]:
    """User dims that get their own facet row (model, dataset, ...): not fold/class/repeat."""
    return [d for d in dims if d not in (FOLD, CLASS, REPEAT, TRUE, PRED)]


def _add_group(frame: pd.DataFrame, dims: list[Hashable]) -> str | None:
    """A facet column naming the user-dim cell ("model=LR"), or None when there is none."""
    if not dims:
        return None
    if len(dims) == 1:
        frame[_GROUP] = frame[dims[0]].astype(str)
    else:
        frame[_GROUP] = frame[dims].astype(str).apply(
            lambda r: ", ".join(f"{d}={v}" for d, v in zip(dims, r)), axis=1)
    return _GROUP


def _classes(ds: xr.Dataset) -> list[str]:
    return [str(c) for c in ds.indexes[CLASS]] if CLASS in ds.indexes else \
        [str(i) for i in range(ds.sizes[CLASS])]


def _fold_palette(n: int) -> list[Any]:
    sns = _sns()
    return sns.color_palette("tab10" if n <= 10 else "husl", n)


# --- cube plots ------------------------------------------------------------------------------

def folds(ds: xr.Dataset, *, beta: float = 1.0, zero_division: ZeroDivision = 0.0,
          height: float = 3.0, aspect: float = 1.1) -> Any:
    """Every fold's precision, recall and F per class as points; the aggregations as lines.

    One panel per metric (columns) and per model/user-dim cell (rows). Points are the
    per-fold values (all repeats, jittered, coloured by repeat); a short marked line per class
    shows each fold aggregation: for precision and recall the pooled value (sum the counts,
    then divide) and the mean over folds; for F the five methods of
    :func:`cvframe.reduce.f_methods` (mean over repeats when there are repeats). A point far
    from the lines is a fold to look at (see :func:`cvframe.diagnostics.anomalies`).

    Parameters
    ----------
    ds : xarray.Dataset
        A counts cube.
    beta : float, default 1
    zero_division : {"warn", 0.0, 1.0, np.nan}, default 0.0
        Value of undefined per-fold precision or recall (plotted as such).
    height, aspect : float
        Size of each facet (inches; width = height * aspect).

    Returns
    -------
    seaborn.FacetGrid

    Examples
    --------
    >>> import cvframe
    >>> g = cvframe.datasets.table1().cv.plot.folds()
    >>> [ax.get_title() for ax in g.axes.flat]
    ['precision', 'recall', 'F']
    """
    sns, plt = _sns(), _plt()
    from . import reduce

    pf = diagnostics.fold_table(ds, beta=beta, zero_division=zero_division)
    dims = list(pf.columns[:list(pf.columns).index(CLASS) + 1])
    groups = _group_dims(dims)
    pf = pf.rename(columns={"f": "F"})
    pf[CLASS] = pf[CLASS].astype(str)
    long = pf.melt(id_vars=dims, value_vars=["precision", "recall", "F"], var_name="metric",
                   value_name="value")
    row = _add_group(long, groups)

    # the aggregation lines, from the core (per class and user dim; mean over repeats)
    pooled = ds.cv.pooled()
    per_fold_p = reduce.precision(ds, zero_division=zero_division)
    per_fold_r = reduce.recall(ds, zero_division=zero_division)
    fm = reduce.f_methods(ds, beta=beta, zero_division=zero_division)
    lines = {
        "precision": {"pooled": reduce.precision(pooled, zero_division=zero_division),
                      "mean of folds": per_fold_p.mean(FOLD)},
        "recall": {"pooled": reduce.recall(pooled, zero_division=zero_division),
                   "mean of folds": per_fold_r.mean(FOLD)},
        "F": {METHOD_LABELS[m]: fm[m] for m in F_METHODS},
    }
    rows = []
    for metric, named in lines.items():
        for label, da in named.items():
            if REPEAT in da.dims:
                da = da.mean(REPEAT)
            frame = da.rename("value").to_dataframe().reset_index()
            frame["metric"], frame["line"] = metric, label
            rows.append(frame[[*groups, CLASS, "metric", "line", "value"]])
    agg = pd.concat(rows, ignore_index=True)
    agg[CLASS] = agg[CLASS].astype(str)
    _add_group(agg, groups)

    line_names = ["pooled", "mean of folds", *(METHOD_LABELS[m] for m in F_METHODS)]
    # pooling (precision/recall pooled, F_tp,fp) and averaging (mean of folds, F_avg) keep
    # one colour and marker each across the panels
    pal = _method_palette()
    colors = dict(pal, pooled=pal["F_tp,fp"], **{"mean of folds": pal["F_avg"]})
    markers = dict(zip(line_names, ["D", "o", "D", "o", "s", "v", "^"]))
    classes = _classes(ds)
    xpos = {c: i for i, c in enumerate(classes)}
    n_rep = int(long[REPEAT].nunique()) if REPEAT in long.columns else 1
    shades = sns.color_palette("Greys", n_rep + 3)[3:] if n_rep > 1 else ["0.45"]
    g = sns.FacetGrid(long, col="metric", row=row, col_order=["precision", "recall", "F"],
                      height=height, aspect=aspect * max(1.0, len(classes) / 6),
                      sharey=True, margin_titles=row is not None, despine=True)
    # jitter of the fold points: fixed, so the figure is reproducible
    jitter = np.random.default_rng(0).uniform(-0.25, 0.25, len(long))
    long["_x"] = long[CLASS].map(xpos).to_numpy(dtype=float) + jitter
    rep_codes = (pd.factorize(long[REPEAT])[0] if n_rep > 1 else np.zeros(len(long), int))
    long["_shade"] = rep_codes

    def points(data: pd.DataFrame, **_: Any) -> None:
        axis = _plt().gca()
        axis.scatter(data["_x"], data["value"], s=14, alpha=0.75, linewidths=0,
                     c=[shades[i] for i in data["_shade"]], zorder=5)

    g.map_dataframe(points)
    half = 0.38
    # the y axis starts a little below the lowest value (0 when a fold scores 0)
    lowest = np.nanmin(np.concatenate([long["value"].to_numpy(float),
                                       agg["value"].to_numpy(float)]))
    low = max(-0.02, float(np.floor((lowest - 0.05) * 10) / 10)) if np.isfinite(lowest) \
        else -0.02
    for key, ax in g.axes_dict.items():
        metric = key if row is None else key[1]
        sub = agg[agg["metric"] == metric]
        if row is not None:
            sub = sub[sub[_GROUP] == key[0]]
        n_lines = sub["line"].nunique()
        for i, (name, part) in enumerate(sub.groupby("line", sort=False)):
            x = part[CLASS].map(xpos).to_numpy(dtype=float)
            c = colors[name]
            ax.hlines(part["value"], x - half, x + half, colors=[c], linewidth=1.8, zorder=2)
            # markers staggered along the segment: coinciding methods stay visible
            ax.plot(x - half + (i + 0.5) * 2 * half / n_lines, part["value"],
                    marker=markers[name], color=c, markersize=6, markeredgecolor="white",
                    markeredgewidth=0.5, linestyle="none", zorder=6)
        ax.set_xticks(range(len(classes)), classes)
        ax.set_xlim(-0.6, len(classes) - 0.4)
        ax.set_ylim(low, 1.02)
        ax.set_xlabel("class")
        if len(classes) > 8:
            ax.tick_params(axis="x", labelsize=8)
    g.set_ylabels("value")
    if row is None:
        g.set_titles(col_template="{col_name}")
    else:
        g.set_titles(col_template="{col_name}", row_template="{row_name}")
    from matplotlib.lines import Line2D

    names = {"pooled": "pooled / F_tp,fp", "mean of folds": "mean of folds / F_avg",
             **{m: m for m in line_names[3:] if m != "F_avg"}}
    handles = {label: Line2D([], [], color=colors[name], marker=markers[name], linewidth=1.8)
               for name, label in names.items()}
    handles["one fold"] = Line2D([], [], color="0.45", marker="o", linestyle="none",
                                 markersize=5)
    g.add_legend(legend_data=handles, title="aggregation", label_order=list(handles))
    plt.setp(g.legend.get_texts(), fontsize=9)
    return g


def methods(ds: xr.Dataset, *, beta: float = 1.0, zero_division: ZeroDivision = 0.0,
            errorbar: Any = "sd", height: float = 3.5, aspect: float = 1.3) -> Any:
    """The five F aggregations side by side per class, with their spread across repeats.

    Parameters
    ----------
    ds : xarray.Dataset
        A counts cube; with a ``repeat`` dim each point is the mean over repeats and the bar
        is ``errorbar`` across repeats; user dims (``model``, ...) get a column each.
    beta : float, default 1
    zero_division : {"warn", 0.0, 1.0, np.nan}, default 0.0
    errorbar : seaborn errorbar spec, default "sd"
        Interval across repeats (e.g. ``("pi", 100)`` for min-max, ``("ci", 95)``).
    height, aspect : float

    Returns
    -------
    seaborn.FacetGrid

    Examples
    --------
    >>> import cvframe
    >>> g = cvframe.datasets.table2().cv.plot.methods()
    >>> g.ax.get_ylabel()
    'F'
    """
    sns = _sns()
    mt = diagnostics.methods_table(ds, beta=beta, zero_division=zero_division)
    dims = list(mt.columns[:list(mt.columns).index(CLASS) + 1])
    mt[CLASS] = mt[CLASS].astype(str)
    long = mt.melt(id_vars=dims, value_vars=list(F_METHODS), var_name="method",
                   value_name="F")
    long["method"] = long["method"].map(METHOD_LABELS)
    col = _add_group(long, _group_dims(dims))
    has_rep = REPEAT in long.columns and long[REPEAT].nunique() > 1
    classes = _classes(ds)
    n_col = long[col].nunique() if col else 1
    # many classes: one row per user-dim cell (wide panels); few: side by side
    by_row = col is not None and len(classes) > 4
    g = sns.catplot(data=long, kind="point", x=CLASS, y="F", hue="method",
                    hue_order=list(METHOD_LABELS.values()), order=classes,
                    col=None if by_row else col, row=col if by_row else None,
                    col_wrap=3 if n_col > 3 and not by_row else None, dodge=0.55,
                    linestyle="none",
                    markers=["D", "o", "s", "v", "^"], errorbar=errorbar if has_rep else None,
                    palette=_method_palette(), height=height,
                    aspect=aspect * max(1.0, len(classes) / 4 if by_row else len(classes) / 5),
                    capsize=0.1 if has_rep else 0,
                    err_kws={"linewidth": 1.2})
    g.set_axis_labels("class", "F")
    for axis in g.axes.flat:
        axis.grid(axis="y", alpha=0.3)
    if col:
        g.set_titles("{row_name}" if by_row else "{col_name}")
    if g.legend is not None:
        g.legend.set_title("method" + (f"\n(bars: {errorbar} over\n{long[REPEAT].nunique()} "
                                       "repeats)" if has_rep else ""))
    return g


def _method_palette() -> dict[str, Any]:
    sns = _sns()
    pal = sns.color_palette("colorblind", 7)[2:]
    return dict(zip(METHOD_LABELS.values(), pal))


def _binary_confusion(ds: xr.Dataset) -> xr.DataArray:
    """The 2x2 table (rows true, columns predicted) of a binary cube without ``confusion``."""
    pos = ds.attrs.get("pos_label", ds.indexes[CLASS][0] if CLASS in ds.indexes else 1)
    c = ds[["tp", "fp", "fn", "tn"]].isel({CLASS: 0}, drop=True)
    table = xr.concat([xr.concat([c.tp, c.fn], dim=PRED), xr.concat([c.fp, c.tn], dim=PRED)],
                      dim=TRUE)
    labels = [str(pos), f"not {pos}"]
    return table.assign_coords({TRUE: labels, PRED: labels})


def confusion(ds: xr.Dataset, *, normalize: str | None = None, ax: Any = None,
              cmap: str = "Blues", annot: bool | None = None) -> Any:
    """The confusion matrix summed over folds (and repeats) as a heatmap.

    Parameters
    ----------
    ds : xarray.Dataset
        A cube with ``confusion`` (single-label data) or a binary cube (its 2x2 table of
        TP, FN / FP, TN is drawn).
    normalize : {None, "true", "pred", "all"}, default None
        As in :func:`sklearn.metrics.confusion_matrix`: counts, or shares of each true class
        (rows sum to 1), of each predicted class (columns), or of all samples.
    ax : matplotlib Axes, optional
        Draw into it (only without user dims).
    cmap : str, default "Blues"
    annot : bool, optional
        Write the values in the cells; default when there are at most 12 classes.

    Returns
    -------
    matplotlib.axes.Axes, or seaborn.FacetGrid with one panel per user-dim cell
    (``model``, ...).

    Raises
    ------
    CountsError
        A multilabel cube (no ``confusion``): plot its per-class counts with ``folds``.

    Examples
    --------
    >>> import cvframe
    >>> ax = cvframe.datasets.slides_confusion().cv.plot.confusion(normalize="true")
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('predicted', 'true')
    """
    sns = _sns()
    normalize = check_choice("normalize", normalize, [None, "true", "pred", "all"])
    if CONFUSION in ds.data_vars:
        from .multiclass import confusion as conf_of

        dims = [d for d in ds[CONFUSION].dims if d in (FOLD, REPEAT)]
        table = conf_of(ds, dim=dims)
    elif ds.attrs.get("task") == "binary" or ds.sizes.get(CLASS) == 1:
        table = _binary_confusion(ds).sum([d for d in (FOLD, REPEAT) if d in ds.dims])
    else:
        from .errors import CountsError

        raise CountsError("ds has no 'confusion' variable (multilabel or counts-only cube); "
                          "a confusion heatmap needs single-label data. Use plot.folds(ds) "
                          "for the per-class counts.")
    table = table.astype("float64")
    if normalize == "true":
        table = table / table.sum(PRED)
    elif normalize == "pred":
        table = table / table.sum(TRUE)
    elif normalize == "all":
        table = table / table.sum([TRUE, PRED])
    groups = _group_dims(table.dims)
    n = table.sizes[TRUE]
    annot = n <= 12 if annot is None else annot
    fmt = ".2f" if normalize else ".0f"
    label = {None: "count", "true": "share of true class", "pred": "share of predicted class",
             "all": "share of all samples"}[normalize]

    def draw(mat: xr.DataArray, axis: Any, cbar: bool = True) -> None:
        frame = pd.DataFrame(mat.transpose(TRUE, PRED).values,
                             index=[str(v) for v in mat[TRUE].values],
                             columns=[str(v) for v in mat[PRED].values])
        sns.heatmap(frame, ax=axis, cmap=cmap, annot=annot, fmt=fmt, square=True,
                    cbar=cbar, cbar_kws={"label": label, "shrink": 0.8},
                    vmin=0, vmax=1 if normalize else None,
                    annot_kws={"fontsize": 8 if n > 6 else 10})
        axis.set_xlabel("predicted")
        axis.set_ylabel("true")
        axis.tick_params(axis="y", labelrotation=0)

    if not groups:
        if ax is None:
            _, ax = _plt().subplots(figsize=(1.6 + 0.45 * n + 1.5, 1.2 + 0.45 * n))
        draw(table, ax)
        return ax
    stacked = table.stack(_cell=groups)
    cells = pd.DataFrame({_GROUP: [", ".join(map(str, v if isinstance(v, tuple) else (v,)))
                                   for v in stacked.indexes["_cell"]],
                          "_i": range(stacked.sizes["_cell"])})
    g = sns.FacetGrid(cells, col=_GROUP, col_wrap=min(3, len(cells)),
                      height=1.2 + 0.45 * n, aspect=1.2)

    def facet(data: pd.DataFrame, **_: Any) -> None:
        draw(stacked.isel(_cell=int(data["_i"].iloc[0])), _plt().gca())

    g.map_dataframe(facet)
    g.set_titles("{col_name}")
    return g


# --- predictions-frame plots --------------------------------------------------------------------

def _per_model(df: pd.DataFrame, func: Any, by: str | None, **kwargs: Any) -> pd.DataFrame:
    """The scores table per value of ``by``.

    The scores functions already keep ``model``/``dataset``/``subset`` columns apart; only
    another ``by`` column is split here.
    """
    from .build import FRAME_DIMS

    if by is None or by not in df.columns or by in FRAME_DIMS:
        return func(df, **kwargs)
    parts = []
    for key, part in df.groupby(by, sort=False):
        out = func(part.drop(columns=[by]), **kwargs)
        out.insert(0, by, key)
        parts.append(out)
    return pd.concat(parts, ignore_index=True)


def roc(df: pd.DataFrame, *, labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None, y_true: str = "y_true", fold: str = "fold",
        repeat: str | None = "repeat", score: str = "score", by: str | None = "model",
        height: float = 3.5) -> Any:
    """Every fold's ROC curve (thin, coloured by fold) and the merged curve (thick, black).

    The curves come from :func:`cvframe.scores.roc`; a fold curve far from the others, or a
    merged curve below the fold curves (AUC_merge < AUC_avg), says the folds' scores are not
    calibrated with each other (Forman & Scholz 2010, §3.2).

    Parameters
    ----------
    df : pandas.DataFrame
        A predictions frame with scores (see :func:`cvframe.scores.roc`).
    labels, pos_label, y_true, fold, repeat, score :
        As in :func:`cvframe.scores.roc`.
    by : str or None, default "model"
        A column giving one facet row per value (used when the frame has it).
    height : float

    Returns
    -------
    seaborn.FacetGrid
        One panel per class (and per ``by`` value).

    Examples
    --------
    >>> import pandas as pd, cvframe
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...                    "y_true": [0, 0, 1, 1, 0, 1, 0, 1],
    ...                    "score": [0.1, 0.4, 0.35, 0.8, 10.0, 10.5, 10.2, 11.0]})
    >>> g = df.cv.plot.roc()
    >>> g.ax.get_xlabel()
    'false positive rate'
    """
    sns = _sns()
    from . import scores

    rep = repeat if repeat is not None and repeat in df.columns else None
    pts = _per_model(df, scores.roc, by, labels=labels, pos_label=pos_label, y_true=y_true,
                     fold=fold, repeat=rep, score=score)
    pts = pts.rename(columns={fold: FOLD}) if fold in pts.columns else pts
    pts[CLASS] = pts[CLASS].astype(str)
    row = by if by is not None and by in pts.columns else None
    classes = list(dict.fromkeys(pts[CLASS]))
    n_folds = int(pts.loc[pts["kind"] == "fold", FOLD].nunique()) or 1
    fold_values = sorted(pts.loc[pts["kind"] == "fold", FOLD].dropna().unique().tolist())
    palette = dict(zip(fold_values, _fold_palette(n_folds)))
    g = sns.FacetGrid(pts, col=CLASS, row=row, col_order=classes, height=height,
                      aspect=1.0, margin_titles=row is not None,
                      col_wrap=min(5, len(classes)) if row is None and len(classes) > 1 else None)

    def facet(data: pd.DataFrame, **_: Any) -> None:
        axis = _plt().gca()
        axis.plot([0, 1], [0, 1], color="0.8", linestyle=":", linewidth=1)
        keys = ([rep] if rep else []) + [FOLD]
        for key, curve in data[data["kind"] == "fold"].groupby(keys, sort=False):
            f = key[-1] if isinstance(key, tuple) else key
            axis.plot(curve["fpr"], curve["tpr"], color=palette[f], linewidth=1, alpha=0.75,
                      drawstyle="default")
        merged = data[data["kind"] == "merged"]
        for _key, curve in (merged.groupby(rep, sort=False) if rep else [(0, merged)]):
            axis.plot(curve["fpr"], curve["tpr"], color="black", linewidth=2.2)
        axis.set_xlim(-0.02, 1.02)
        axis.set_ylim(-0.02, 1.02)

    g.map_dataframe(facet)
    g.set_axis_labels("false positive rate", "true positive rate")
    if row is None:
        g.set_titles("class {col_name}" if len(classes) > 1 else "")
    else:
        g.set_titles(col_template="class {col_name}", row_template="{row_name}")
    from matplotlib.lines import Line2D

    handles = {}
    if n_folds <= 10:
        handles = {f"fold {f}": Line2D([], [], color=palette[f], linewidth=1)
                   for f in fold_values}
    handles["merged (all folds)"] = Line2D([], [], color="black", linewidth=2.2)
    g.add_legend(legend_data=handles, title="curve", label_order=list(handles))
    return g


def score_rates(df: pd.DataFrame, *, labels: Sequence[Hashable] | None = None,
                pos_label: Hashable | None = None, y_true: str = "y_true", fold: str = "fold",
                repeat: str | None = "repeat", score: str = "score", by: str | None = "model",
                logx: bool = False, height: float = 3.2) -> Any:
    """Each fold's false and true positive rate against the score threshold (Figure 3).

    Curves shifted along the score axis mean the fold models are not calibrated with each
    other: sorting all folds' scores together (AUC_merge) then mixes incomparable scores
    (Forman & Scholz 2010, Figure 3). The rates come from :func:`cvframe.scores.score_rates`.

    Parameters
    ----------
    df : pandas.DataFrame
        A predictions frame with scores.
    labels, pos_label, y_true, fold, repeat, score :
        As in :func:`cvframe.scores.score_rates`.
    by : str or None, default "model"
        A column giving one facet row per value (used when the frame has it).
    logx : bool, default False
        Log-scaled score axis (the paper's figure; needs positive scores).
    height : float

    Returns
    -------
    seaborn.FacetGrid
        Columns "false positive rate" and "true positive rate"; one row per class (and per
        ``by`` value).

    Examples
    --------
    >>> import pandas as pd, cvframe
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...                    "y_true": [0, 0, 1, 1, 0, 1, 0, 1],
    ...                    "score": [0.1, 0.4, 0.35, 0.8, 10.0, 10.5, 10.2, 11.0]})
    >>> g = df.cv.plot.score_rates()
    >>> [ax.get_title() for ax in g.axes.flat]
    ['false positive rate', 'true positive rate']
    """
    sns = _sns()
    from . import scores

    rep = repeat if repeat is not None and repeat in df.columns else None
    sr = _per_model(df, scores.score_rates, by, labels=labels, pos_label=pos_label,
                    y_true=y_true, fold=fold, repeat=rep, score=score)
    sr = sr.rename(columns={fold: FOLD}) if fold in sr.columns else sr
    sr = sr[np.isfinite(sr["threshold"].astype(float))]
    sr["rate"] = sr["rate"].map({"fpr": "false positive rate", "tpr": "true positive rate"})
    sr[CLASS] = sr[CLASS].astype(str)
    rows = [c for c in ((by if by in sr.columns else None),) if c]
    if sr[CLASS].nunique() > 1:
        sr["_row"] = ("class " + sr[CLASS]) if not rows else \
            sr[rows[0]].astype(str) + ", class " + sr[CLASS]
        row: str | None = "_row"
    else:
        row = rows[0] if rows else None
    n_folds = int(sr[FOLD].nunique())
    units = None
    if rep:
        sr["_unit"] = sr[rep].astype(str) + "/" + sr[FOLD].astype(str)
        units = "_unit"
    g = sns.relplot(data=sr, kind="line", x="threshold", y="value", hue=FOLD,
                    col="rate", row=row, units=units, estimator=None,
                    col_order=["false positive rate", "true positive rate"],
                    palette=_fold_palette(n_folds), drawstyle="steps-post", linewidth=1.2,
                    height=height, aspect=1.3, facet_kws={"margin_titles": row is not None},
                    legend="full" if n_folds <= 10 else False)
    g.set_axis_labels("score threshold" + (" (log)" if logx else ""), "rate (score >= threshold)")
    if row is None:
        g.set_titles("{col_name}")
    else:
        g.set_titles(col_template="{col_name}", row_template="{row_name}")
    if logx:
        for axis in g.axes.flat:
            axis.set_xscale("log")
    return g


# --- simulation plots --------------------------------------------------------------------------

def bias(study: xr.Dataset, *, y: str = "rel_bias", x: str = "prevalence",
         height: float = 3.2, aspect: float = 1.2) -> Any:
    """Relative bias or relative std of the five F methods (Forman & Scholz 2010, Figs 4-8).

    Parameters
    ----------
    study : xarray.Dataset
        The result of :func:`cvframe.bias_study` (dims ``stratified``, ``prevalence``,
        ``f``, ``estimator``).
    y : {"rel_bias", "rel_std", "p_undefined"}, default "rel_bias"
    x : {"prevalence", "f"}, default "prevalence"
        The x axis; the other one gets a facet row per value when it has several.
    height, aspect : float

    Returns
    -------
    seaborn.FacetGrid
        One column per ``stratified`` value.

    Examples
    --------
    >>> import numpy as np, xarray as xr, cvframe
    >>> est = ["f_tp_fp", "f_avg", "f_pr_re", "f_avg_skip", "f_pr_re_skip"]
    >>> study = xr.Dataset({"rel_bias": (("stratified", "prevalence", "f", "estimator"),
    ...                                  np.zeros((2, 3, 1, 5)))},
    ...                    coords={"stratified": [True, False],
    ...                            "prevalence": [0.01, 0.02, 0.05], "f": [0.8],
    ...                            "estimator": est})
    >>> g = cvframe.plot.bias(study)
    >>> [ax.get_title() for ax in g.axes.flat]
    ['stratified', 'unstratified']
    """
    sns = _sns()
    y = check_choice("y", y, ["rel_bias", "rel_std", "p_undefined"])
    x = check_choice("x", x, ["prevalence", "f"])
    if not isinstance(study, xr.Dataset) or y not in study.data_vars:
        raise ValueError(f"study must be a bias_study Dataset with a {y!r} variable; got "
                         f"{list(getattr(study, 'data_vars', []))!r}.")
    frame = study[y].to_dataframe().reset_index()
    other = "f" if x == "prevalence" else "prevalence"
    if "stratified" in frame.columns:
        frame["stratified"] = frame["stratified"].map(
            lambda v: "stratified" if bool(v) else "unstratified")
    if "estimator" in frame.columns:
        frame["estimator"] = frame["estimator"].map(lambda e: METHOD_LABELS.get(e, e))
    row = None
    if other in frame.columns and frame[other].nunique() > 1:
        frame["_row"] = f"{other} = " + frame[other].map(lambda v: f"{v:g}")
        row = "_row"
    ylabel = {"rel_bias": "relative bias (mean - f) / f", "rel_std": "relative std (sd / f)",
              "p_undefined": "P(some fold undefined)"}[y]
    hue = "estimator" if "estimator" in frame.columns else None
    g = sns.relplot(data=frame, kind="line", x=x, y=y, hue=hue, style=hue,
                    hue_order=[METHOD_LABELS[m] for m in F_METHODS] if hue else None,
                    markers=True, dashes=False, col="stratified"
                    if "stratified" in frame.columns else None, row=row,
                    palette=_method_palette() if hue else None, height=height,
                    aspect=aspect, facet_kws={"margin_titles": row is not None,
                                              "sharey": y != "rel_bias"})
    xlabel = "prevalence (share of positives)" if x == "prevalence" else "ground-truth F"
    g.set_axis_labels(xlabel, ylabel)
    g.set_titles(col_template="{col_name}", row_template="{row_name}")
    for axis in g.axes.flat:
        if y == "rel_bias":
            axis.axhline(0, color="0.6", linewidth=0.8, zorder=0)
        axis.yaxis.set_major_formatter(_percent())
        if x == "prevalence":
            axis.xaxis.set_major_formatter(_percent())
    return g


def _percent() -> Any:
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(1.0, decimals=None)


def fold_risk(n_pos: Any = None, *, n: int = 1000, k: int = 10,
              trials: Sequence[int] = (1, 1000), ax: Any = None) -> Any:
    """Probability that unstratified k-fold CV leaves some fold without positives (Figure 9).

    Values from :func:`cvframe.p_fold_without_positives` (exact), one line per number of
    independent trials (splits, classes or data sets).

    Parameters
    ----------
    n_pos : array-like of int, optional
        Numbers of positives on the x axis (default 10 to 200).
    n, k : int
        Cases and folds.
    trials : sequence of int, default (1, 1000)
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import cvframe
    >>> ax = cvframe.plot.fold_risk(n_pos=[10, 20, 50, 100], n=1000, k=10)
    >>> ax.get_ylabel()
    'P(some fold has no positives)'
    """
    sns = _sns()
    from .simulation import p_fold_without_positives

    n_pos = np.arange(10, 201) if n_pos is None else np.asarray(n_pos)
    frames = []
    for t in trials:
        p = np.asarray(p_fold_without_positives(n_pos, n=n, k=k, trials=t), dtype=float)
        frames.append(pd.DataFrame({"positives": n_pos, "p": np.broadcast_to(p, n_pos.shape),
                                    "trials": f"{t} trial" + ("s" if t != 1 else "")}))
    frame = pd.concat(frames, ignore_index=True)
    if ax is None:
        _, ax = _plt().subplots(figsize=(6, 3.8))
    sns.lineplot(data=frame, x="positives", y="p", hue="trials", style="trials", ax=ax,
                 palette="dark", linewidth=1.8)
    ax.set_xlabel("positives in the data set")
    ax.set_ylabel("P(some fold has no positives)")
    ax.set_title(f"unstratified {k}-fold CV, n = {n}")
    ax.set_ylim(-0.02, 1.02)
    ax.yaxis.set_major_formatter(_percent())
    ax.grid(alpha=0.3)
    return ax


# --- accessor namespaces -----------------------------------------------------------------------

class DatasetPlotter:
    """``ds.cv.plot``: the plots of a counts cube (stateless; see :mod:`cvframe.plot`)."""

    __slots__ = ("_obj",)

    def __init__(self, ds: xr.Dataset) -> None:
        self._obj = ds

    def folds(self, *, beta: float = 1.0, zero_division: ZeroDivision = 0.0,
              height: float = 3.0, aspect: float = 1.1) -> Any:
        return folds(self._obj, beta=beta, zero_division=zero_division, height=height,
                     aspect=aspect)

    def methods(self, *, beta: float = 1.0, zero_division: ZeroDivision = 0.0,
                errorbar: Any = "sd", height: float = 3.5, aspect: float = 1.3) -> Any:
        return methods(self._obj, beta=beta, zero_division=zero_division, errorbar=errorbar,
                       height=height, aspect=aspect)

    def confusion(self, *, normalize: str | None = None, ax: Any = None, cmap: str = "Blues",
                  annot: bool | None = None) -> Any:
        return confusion(self._obj, normalize=normalize, ax=ax, cmap=cmap, annot=annot)

    folds.__doc__ = globals()["folds"].__doc__
    methods.__doc__ = globals()["methods"].__doc__
    confusion.__doc__ = globals()["confusion"].__doc__


class DataFramePlotter:
    """``df.cv.plot``: the plots of a predictions frame with scores (stateless)."""

    __slots__ = ("_obj",)

    def __init__(self, df: pd.DataFrame) -> None:
        self._obj = df

    def roc(self, *, labels: Sequence[Hashable] | None = None,
            pos_label: Hashable | None = None, y_true: str = "y_true", fold: str = "fold",
            repeat: str | None = "repeat", score: str = "score", by: str | None = "model",
            height: float = 3.5) -> Any:
        return roc(self._obj, labels=labels, pos_label=pos_label, y_true=y_true, fold=fold,
                   repeat=repeat, score=score, by=by, height=height)

    def score_rates(self, *, labels: Sequence[Hashable] | None = None,
                    pos_label: Hashable | None = None, y_true: str = "y_true",
                    fold: str = "fold", repeat: str | None = "repeat", score: str = "score",
                    by: str | None = "model", logx: bool = False, height: float = 3.2) -> Any:
        return score_rates(self._obj, labels=labels, pos_label=pos_label, y_true=y_true,
                           fold=fold, repeat=repeat, score=score, by=by, logx=logx,
                           height=height)

    roc.__doc__ = globals()["roc"].__doc__
    score_rates.__doc__ = globals()["score_rates"].__doc__
