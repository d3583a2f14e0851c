"""The confusion matrix of a counts cube as a heatmap (``confusion``), summed over folds:
axes-level for one matrix, figure-level (one panel per model, ...) for several; it draws
:func:`cvframe.tidy.confusion_table`."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import pandas as pd

from .. import tidy
from .._core.docs import doc
from ..schema import PRED, TRUE
from . import _style

__all__ = ["confusion"]


@doc
def confusion(
    data: Any,
    *,
    normalize: str | None = None,
    classes: Sequence[Hashable] | Hashable | None = None,
    ax: Any = None,
    col: str | None = None,
    col_wrap: int | None = None,
    height: float | None = None,
    aspect: float | None = None,
    cmap: str = "Blues",
    annot: bool | None = None,
    percent: bool = False,
    **kwargs: Any,
) -> Any:
    """The confusion matrix summed over folds (and repeats) as a heatmap.

    **Axes-level** for one matrix (a cube without user dims, or one model selected): draws
    on ``ax`` (or a new figure) and returns the Axes. **Figure-level** for a cube with user
    dims (``model``, ...): one panel per cell (``col``), returning the FacetGrid. The values
    are :func:`cvframe.tidy.confusion_table`.

    Parameters
    ----------
    data : xarray.Dataset or pandas.DataFrame
        A cube with ``confusion`` (single-label data), a binary cube (its 2x2 table of
        TP, FN / FP, TN is drawn) or a multilabel cube (one 2x2 panel per label, present /
        absent), or its :func:`cvframe.tidy.confusion_table` filtered with pandas.
    normalize : {None, "true", "pred", "all"}, default None
        As in :func:`sklearn.metrics.confusion_matrix`: counts, or shares of each true class
        (rows sum to 1), of each predicted class (columns), or of all samples (ignored for
        a confusion_table frame, which is drawn as it is).
    classes : label or list of labels, optional
        Rows and columns of only these classes (default all).
    ax : matplotlib Axes, optional
        Draw into it; only for one matrix (select one model first, e.g.
        ``ds.sel(model="lr")``, or leave ``ax=None`` for a grid).
    col : str, optional
        The user dim giving the panels (default: the user-dim cell).
    <<plot_col_wrap>>
    height : float, optional
        Size of a panel (inches); default grows with the number of classes.
    aspect : float, optional
        Width of a panel over its height (width = height * aspect); default leaves room
        for the colour bar (1.25 in a grid).
    cmap : str, default "Blues"
    annot : bool, optional
        Write the values in the cells; default when there are at most 12 classes. Counts
        of 10,000 and more are written short ("12k", "3.4M"); the font shrinks to fit the
        cells (not below 9 pt), and no values are written when even then they would overlap.
    percent : bool, default False
        Shares as whole percents ("37%", colour bar in percent); without ``normalize``,
        the percent of each row (``normalize="true"``).
    **kwargs
        Passed to :func:`seaborn.heatmap`.

    Returns
    -------
    matplotlib.axes.Axes or seaborn.FacetGrid
        The Axes for one matrix, the FacetGrid for several.

    Raises
    ------
    CountsError
        A multiclass cube from counts (no ``confusion``): plot its counts with ``folds``.
    ValueError
        ``ax`` given for several matrices.

    Examples
    --------
    >>> import cvframe
    >>> ax = cvframe.datasets.slides_confusion().cv.plot.confusion(normalize="true")
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('predicted', 'true')
    """
    seaborn = _style.sns()
    normalize = "true" if percent and normalize is None else normalize
    table = _style.given(
        data,
        (TRUE, PRED, "value"),
        lambda d: tidy.confusion_table(_style.cube_of(d, "confusion"), normalize=normalize),
    )
    _style.check_size(height, aspect)
    if classes is not None:
        table = _style.select_classes(table, classes, column=TRUE)
        table = table[table[PRED].isin(set(table[TRUE]))].reset_index(drop=True)
    groups = _style.group_dims([c for c in table.columns if c not in ("value", TRUE, PRED)])
    n = table[TRUE].nunique()
    annot = n <= 12 if annot is None else annot
    fmt = ".2f" if normalize else ".0f"
    label = {
        None: "count",
        "true": "share of true class",
        "pred": "share of predicted class",
        "all": "share of all samples",
    }[normalize]
    side = 1.2 + 0.45 * n if height is None else height

    def draw(part: pd.DataFrame, axis: Any, title: str = "") -> None:
        rows, cols = pd.unique(part[TRUE]), pd.unique(part[PRED])
        mat = part.pivot(index=TRUE, columns=PRED, values="value").reindex(index=rows, columns=cols)
        mat.index = [str(v) for v in mat.index]
        mat.columns = [str(v) for v in mat.columns]
        own = annot and "fmt" not in kwargs
        kw = {
            "cmap": cmap,
            "annot": _style.cell_labels(mat.to_numpy(float), normalize, percent) if own else annot,
            "fmt": "" if own else fmt,
            "square": True,
            "cbar_kws": {"label": label, "shrink": 0.8},
            "vmin": 0,
            "vmax": 1 if normalize else None,
            "annot_kws": {"fontsize": 9 if n > 6 else 10},
        } | kwargs
        seaborn.heatmap(mat, ax=axis, **kw)
        axis.set_xlabel("predicted")
        axis.set_ylabel("true")
        axis.tick_params(axis="y", labelrotation=0)
        if title:
            axis.set_title(title, fontsize=11)

    cells = (
        [
            ", ".join(f"{d} = {v}" for d, v in zip(groups, key, strict=True))
            for key in table[groups].drop_duplicates().itertuples(index=False)
        ]
        if groups
        else []
    )
    if len(cells) <= 1:
        if ax is None:
            width = side * aspect if aspect is not None else 1.6 + 0.45 * n + 1.5
            ax = _style.new_axes((width, side))
        draw(table, ax, cells[0] if cells else "")
        return _style.fit_cells(_style.finish(ax), n, percent)
    if ax is not None:
        raise ValueError(
            f"ax= takes one confusion matrix but the data has {len(cells)} ({cells[:4]}); "
            f"select one first (e.g. ds.sel({groups[0]}=...)) or leave ax=None for a grid "
            "with one panel per cell (col=)."
        )
    _style.column_arg("col", col, table, [_style.GROUP])
    col = col or (str(groups[0]) if len(groups) == 1 else _style.GROUP)
    if col == _style.GROUP:
        table[_style.GROUP] = [
            ", ".join(map(str, v)) for v in table[groups].itertuples(index=False)
        ]
    _style.check_single_panel_dims(
        table, [col, *(groups if col == _style.GROUP else [])], [str(d) for d in groups]
    )
    panels = list(dict.fromkeys(table[col]))
    g = seaborn.FacetGrid(
        pd.DataFrame({col: panels}),
        col=col,
        col_wrap=_style.wrap(len(panels), col_wrap, None) or len(panels),
        height=side,
        aspect=1.25 if aspect is None else aspect,
    )
    for value, axis in g.axes_dict.items():
        draw(table[table[col] == value], axis)
    _style.set_titles(g, None, col, "", names={_style.GROUP: ""})
    return _style.fit_cells(_style.finish(g), n, percent)
