"""Shared look and conventions of the plots: lazy seaborn/matplotlib imports, palettes, the
checks of the seaborn-style arguments (``hue``/``col``/``row``/``classes``), panel titles and
the layout that keeps every label inside the saved figure."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .._core import checks as _checks
from .._core.docs import accessor_doc, register
from .._core.labels import plain
from ..schema import CLASS, COUNTS, FOLD, FRAME_DIMS, PRED, REPEAT, TRUE
from ..tidy import METHOD_LABELS
from ..tidy.curves import in_memory

GROUP = "group"

_LAYOUT = {
    "plot_col_wrap": """\
col_wrap : int, optional
    Panels per row (default: at most 4, balanced); not with ``row``.""",
    "plot_size": """\
height, aspect : float
    Size of each panel (inches; width = height * aspect).""",
    "plot_palette": """\
palette : seaborn palette, optional
    Colours of the ``hue`` levels.""",
}
register(
    {
        "plot_classes": """\
classes : label or list of labels, optional
    Draw only these classes (default all); an unknown class is an error listing the
    valid ones.""",
        **_LAYOUT,
        "plot_layout": "\n".join(_LAYOUT.values()),
    }
)
#: Smallest font size of any text the plots write (points).
MIN_FONT = 9
#: Panels per row of a wrapped grid, at most.
MAX_COLS = 4


def sns() -> Any:
    import seaborn

    return seaborn


def plt() -> Any:
    import matplotlib.pyplot as pyplot

    return pyplot


def group_dims(dims: Sequence[Hashable]) -> list[Hashable]:
    """User dims that get their own facet (model, dataset, ...): not fold/class/repeat."""
    return [d for d in dims if d not in (FOLD, CLASS, REPEAT, TRUE, PRED)]


def add_group(frame: pd.DataFrame, dims: list[Hashable]) -> str | None:
    """A facet column naming the user-dim cell ("model=LR"), or None when there is none."""
    if not dims:
        return None
    if len(dims) == 1:
        frame[GROUP] = frame[dims[0]].astype(str)
    else:
        frame[GROUP] = (
            frame[dims]
            .astype(str)
            .apply(lambda r: ", ".join(f"{d}={v}" for d, v in zip(dims, r, strict=True)), axis=1)
        )
    return GROUP


def fold_palette(n: int) -> list[Any]:
    return sns().color_palette("tab10" if n <= 10 else "husl", n)


def method_palette() -> dict[str, Any]:
    pal = sns().color_palette("colorblind", 7)[2:]
    return dict(zip(METHOD_LABELS.values(), pal, strict=True))


def percent() -> Any:
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(1.0, decimals=None)


# --- data in ----------------------------------------------------------------------------------


def given(
    data: Any, columns: Iterable[str], compute: Callable[[Any], pd.DataFrame], plot: str = ""
) -> pd.DataFrame:
    """The tidy frame a plot draws: ``data`` as it is (a copy) when it is a frame with
    ``columns``, else ``compute(data)``. A dask frame is computed first; with ``plot``
    (``"<plot> <its table>"``: it draws a predictions frame), a non-frame is refused."""
    data = in_memory(data)
    if plot and not isinstance(data, pd.DataFrame):
        name, table = plot.split()
        raise TypeError(
            f"{name} draws a predictions frame with scores (or cvframe.{table} of one); got "
            f"{type(data).__name__}."
        )
    if isinstance(data, pd.DataFrame) and set(columns) <= set(data.columns):
        return data.copy()
    return compute(data)


def cube_of(frame: Any, what: str) -> xr.Dataset:
    """The counts cube to draw: a Dataset as it is, a (filtered) :func:`cvframe.tidy.fold_table`
    frame reshaped back.

    Only a reshape: the rows' ``tp``, ``fp``, ``fn``, ``tn`` go back on their (..., fold,
    class) cells; cells the filter removed are NaN padding, which the core reads as "not a
    fold" (they enter no sum and no mean).
    """
    frame = in_memory(frame)
    if isinstance(frame, xr.Dataset):
        return frame
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(
            f"{what} draws a counts cube (xarray.Dataset) or a cvframe.tidy frame of one; got "
            f"{type(frame).__name__}."
        )
    missing = [c for c in (*COUNTS, FOLD, CLASS) if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{what} draws a counts cube or a cvframe.tidy.fold_table frame; the frame lacks "
            f"the columns {missing}. Pass the cube, or tidy.fold_table(ds) filtered with pandas."
        )
    if frame.empty:
        raise ValueError(f"{what}: the frame has no rows; loosen the filter.")
    cols = list(frame.columns)
    dims = cols[: cols.index(CLASS) + 1]
    ds = xr.Dataset.from_dataframe(frame.set_index(dims)[list(COUNTS)])
    return ds.transpose(*[d for d in dims if d not in (FOLD, CLASS)], FOLD, CLASS)


def column_arg(name: str, value: Any, frame: pd.DataFrame, extra: Iterable[str] = ()) -> Any:
    """``hue``/``col``/``row``/``x`` must name a column of the plotted frame (or be None)."""
    if value is None or value in frame.columns or value in extra:
        return value
    valid = [str(c) for c in frame.columns if not str(c).startswith("_")] + list(extra)
    raise ValueError(
        f"{name}={value!r} is not a column of the plotted frame; pass one of {valid} or None."
    )


def select_classes(frame: pd.DataFrame, classes: Any, column: str = CLASS) -> pd.DataFrame:
    """The rows of the given classes (``classes=``), in the frame's class order."""
    if classes is None:
        return frame
    wanted = [classes] if isinstance(classes, (str, bytes, int, np.integer)) else list(classes)
    present = list(dict.fromkeys(frame[column]))
    by_text = {str(plain(c)): c for c in present}
    picked, unknown = [], []
    for c in wanted:
        if c in present:
            picked.append(c)
        elif str(plain(c)) in by_text:
            picked.append(by_text[str(plain(c))])
        else:
            unknown.append(plain(c))
    if unknown or not wanted:
        shown = [plain(c) for c in present]
        raise ValueError(
            f"classes={unknown if unknown else wanted!r} "
            f"{'are not among' if unknown else 'selects none of'} the classes {shown}; "
            "pass some of them."
        )
    keep = set(picked)
    return frame[frame[column].isin(keep)].reset_index(drop=True)


def n_values(frame: pd.DataFrame, column: Any) -> int:
    return int(frame[column].nunique(dropna=True)) if column in frame.columns else 0


def default_hue(frame: pd.DataFrame, fallback: str | None) -> str | None:
    """The first stacked dim (model, dataset, ...) with several values, else ``fallback``."""
    for d in FRAME_DIMS:
        if n_values(frame, d) > 1:
            return d
    return fallback


def default_col(frame: pd.DataFrame, used: Sequence[Any]) -> str | None:
    """One panel per class when there are several; else per the next stacked dim."""
    for d in (CLASS, *FRAME_DIMS):
        if d not in used and n_values(frame, d) > 1:
            return d
    return None


def hue_colors(frame: pd.DataFrame, hue: str | None, palette: Any) -> dict[Any, Any]:
    """The colour of every ``hue`` level (in the frame's order) from ``palette``."""
    levels = list(dict.fromkeys(frame[hue].dropna())) if hue else []
    if palette is None:
        colors = fold_palette(max(len(levels), 1))
    elif isinstance(palette, dict):
        colors = [palette[v] for v in levels]
    else:
        colors = sns().color_palette(palette, max(len(levels), 1))
    return dict(zip(levels, colors, strict=False))


def wrap(n_panels: int, col_wrap: int | None, row: Any) -> int | None:
    """``col_wrap`` when given; else at most :data:`MAX_COLS` panels per row, balanced."""
    if row is not None:
        if col_wrap is not None:
            raise ValueError(
                f"col_wrap={col_wrap} cannot be combined with row={row!r} (as in seaborn); "
                "pass one of them."
            )
        return None
    if col_wrap is not None:
        return int(col_wrap)
    if n_panels <= MAX_COLS:
        return None
    rows = math.ceil(n_panels / MAX_COLS)
    return math.ceil(n_panels / rows)


def context(frame: pd.DataFrame, used: Iterable[Any], candidates: Sequence[str]) -> str:
    """ "model = lr | repeat = 0" for the columns among ``candidates`` with one value that no
    facet or hue shows: what the figure is of, for its titles."""
    skip = set(used)
    parts = []
    for c in candidates:
        if c in frame.columns and c not in skip and frame[c].nunique(dropna=True) == 1:
            parts.append(f"{c} = {plain(frame[c].dropna().iloc[0])}")
    return " | ".join(parts)


CONTEXT = (*FRAME_DIMS, REPEAT)


def set_titles(
    g: Any, row: Any, col: Any, ctx: str = "", names: dict[Any, str] | None = None
) -> None:
    """Every panel titled "row = a | col = b" (the facet values); the fixed context ("model =
    lr | repeat = 0") in the panel's title when there is one panel, else above the grid."""
    names = names or {}
    facets = [v for v in (row, col) if v is not None]
    several = len(g.axes.flat) > 1
    for key, ax in g.axes_dict.items():
        keys = key if len(facets) == 2 else (key,)
        parts = []
        for var, value in zip(facets, keys, strict=True):
            label = names.get(var, str(var))
            parts.append(f"{label} = {plain(value)}" if label else str(plain(value)))
        if ctx and not several:
            parts.extend(ctx.split(" | "))
        ax.set_title(_fit(parts, ax), fontsize=11)
    if not g.axes_dict:
        g.ax.set_title(_fit(ctx.split(" | "), g.ax), fontsize=11)
    elif ctx and several:
        g.figure.suptitle(ctx, fontsize=12)


def _fit(parts: list[str], ax: Any) -> str:
    """The parts joined by " | ", broken into lines that fit the panel's width."""
    width = ax.get_position().width * ax.figure.get_figwidth()
    chars = max(12, int(width * 72 / 6.5))  # ~6.5 pt per character at 11 pt
    lines: list[str] = []
    for part in (p for p in parts if p):
        if lines and len(lines[-1]) + 3 + len(part) <= chars:
            lines[-1] += " | " + part
        else:
            lines.append(part)
    return "\n".join(lines)


def check_single_panel_dims(frame: pd.DataFrame, used: Iterable[Any], dims: Sequence[str]) -> None:
    """Several values of a dim that no facet or hue separates would overdraw one another."""
    skip = set(used)
    for d in dims:
        if d in frame.columns and d not in skip and frame[d].nunique(dropna=True) > 1:
            vals = [plain(v) for v in dict.fromkeys(frame[d].dropna())]
            raise ValueError(
                f"the data has {len(vals)} values of {d!r} ({vals[:6]}) but neither hue, col "
                f"nor row is {d!r}; pass hue={d!r} (or col=/row=), or filter the data to one "
                f"{d} first."
            )


def check_size(height: Any, aspect: Any) -> None:
    """``height`` and ``aspect`` of a panel: finite numbers > 0 (None: the plot's default)."""
    for name, value in (("height", height), ("aspect", aspect)):
        if value is not None:
            fix = "Give the panel's height in inches and its width as height * aspect."
            _checks.real(name, value, 0.0, None, low_open=True, fix=fix)


def figure_level(name: str, kwargs: dict[str, Any], panels: str, height: Any, aspect: Any) -> None:
    """The checks a figure-level plot starts with: the panel size (:func:`check_size`), and
    no ``ax=`` (it is no Axes-level call).

    Figure-level plots return a seaborn FacetGrid and lay out their own panels, like
    ``relplot``/``catplot``; an ``ax`` passed through ``**kwargs`` would otherwise reach a
    matplotlib call as a confusing error, or be dropped silently.
    """
    if "ax" in kwargs:
        raise TypeError(
            f"{name}() is figure-level: it returns a seaborn FacetGrid ({panels}), like "
            "seaborn's relplot/catplot, and takes no ax=. Lay the panels out with col=, row=, "
            "col_wrap=, height= and aspect=, reach them through g.axes, and save with "
            "g.savefig(path); the Axes-level plots that take ax= are confusion (one matrix), "
            "f_surface, fold_risk, differences and critical_difference."
        )
    check_size(height, aspect)


# --- layout -----------------------------------------------------------------------------------


def finish(obj: Any) -> Any:
    """Lay the figure out so that every label lies inside it when saved (any savefig call).

    A FacetGrid gets its ``tight_layout`` (which leaves room for the legend outside); a figure
    made here has constrained layout from the start (:func:`new_axes`), and a figure the caller
    made keeps its own. Fonts below :data:`MIN_FONT` are raised.
    """
    fig = obj.figure
    for text in fig.findobj(lambda a: hasattr(a, "get_fontsize") and hasattr(a, "get_text")):
        if text.get_fontsize() < MIN_FONT:
            text.set_fontsize(MIN_FONT)
    if isinstance(obj, sns().FacetGrid):
        obj.tight_layout()
        _below_suptitle(fig)
    return obj


#: Room kept between texts that the layout moves apart (points).
GAP = 4


def _renderer(fig: Any) -> Any:
    get = getattr(fig.canvas, "get_renderer", None) or getattr(fig, "_get_renderer", None)
    return get() if get is not None else None


def _below_suptitle(fig: Any) -> None:
    """Lower the panels until their titles clear the figure's suptitle (tight_layout
    leaves them touching or overlapping when the panel titles have several lines)."""
    sup = getattr(fig, "_suptitle", None)
    renderer = _renderer(fig)
    if sup is None or not sup.get_visible() or not sup.get_text() or renderer is None:
        return
    bottom = sup.get_window_extent(renderer).y0
    axes = [ax for ax in fig.axes if ax.get_visible()]
    if not axes:
        return
    top = max(ax.get_tightbbox(renderer).y1 for ax in axes)
    gap = GAP * fig.dpi / 72
    if top > bottom - gap:
        shift = (top - bottom + gap) / fig.bbox.height
        fig.subplots_adjust(top=fig.subplotpars.top - shift)


def cell_labels(values: np.ndarray, normalize: Any, percent: bool = False) -> np.ndarray:
    """The text of each heatmap cell: a share with two decimals ("0.37") or as a whole
    percent ("37%"), a count in at most four characters ("950", "9999", "12k", "3.4M");
    empty for a missing value."""

    def one(v: float) -> str:
        if not np.isfinite(v):
            return ""
        if normalize:
            return f"{v:.0%}" if percent else f"{v:.2f}"
        if abs(v) < 1e4:
            return f"{v:.0f}"
        for scale, unit in ((1e3, "k"), (1e6, "M"), (1e9, "G")):
            x = v / scale
            short = f"{x:.1f}" if abs(x) < 9.95 else f"{x:.0f}"
            if abs(float(short)) < 1000:
                return short.removesuffix(".0") + unit
        return f"{v:.2g}"

    return np.vectorize(one, otypes=[object])(values)


#: Room between a panel and the legend beside it (points).
BESIDE_AXES = 6


def beside_axes(axis: Any) -> dict[str, Any]:
    """``legend()`` arguments placing a legend to the right of the panel, level with its
    top, so that it covers no curve and no label; the layout makes room for it."""
    from matplotlib.transforms import ScaledTranslation

    shift = ScaledTranslation(BESIDE_AXES / 72, 0, axis.figure.dpi_scale_trans)
    return {
        "loc": "upper left",
        "bbox_to_anchor": (1.0, 1.0),
        "bbox_transform": axis.transAxes + shift,
        "borderaxespad": 0.0,
    }


def grow_for_legends(g: Any) -> None:
    """Make the figure wider by the legends placed :func:`beside_axes` (the widest of each
    column of panels), so that the panels keep their size when the layout makes room (as
    seaborn widens a figure for its legend)."""
    fig = g.figure
    renderer = _renderer(fig)
    if renderer is None:
        return
    cols: dict[float, float] = {}
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is not None:
            key = round(ax.get_position().x0, 3)
            wide = legend.get_window_extent(renderer).width / fig.dpi + BESIDE_AXES / 72
            cols[key] = max(cols.get(key, 0.0), wide)
    if cols:
        fig.set_figwidth(fig.get_figwidth() + sum(cols.values()))


def fit_cells(obj: Any, n_cells: int, shares_in_percent: bool = False) -> Any:
    """Lay the figure out, then fit every heatmap's cell numbers (:func:`fit_cell_texts`);
    the colour bars in percent with ``shares_in_percent``."""
    fig = obj.figure
    meshes = [c for ax in fig.axes for c in ax.collections]
    for bar in (getattr(m, "colorbar", None) for m in meshes if shares_in_percent):
        if bar is not None:
            bar.ax.yaxis.set_major_formatter(percent())
    fig.draw_without_rendering()
    for axis in fig.axes:
        texts = [t for t in axis.texts if t.get_text()]
        fit_cell_texts(axis, texts, n_cells)
    return obj


def fit_cell_texts(axis: Any, texts: Sequence[Any], n_cells: int) -> None:
    """Cell numbers of a heatmap that fit their cells: a smaller font (not below
    :data:`MIN_FONT`), or none at all when the widest does not fit even then."""
    renderer = _renderer(axis.figure)
    if not texts or renderer is None:
        return
    bbox = axis.get_window_extent(renderer)
    cell = min(bbox.width, bbox.height) / max(n_cells, 1)
    room = cell - 2 * axis.figure.dpi / 72  # a point of margin each side
    widest = max(t.get_window_extent(renderer).width for t in texts)
    size = texts[0].get_fontsize()
    if widest > room:
        size = max(MIN_FONT, size * room / widest)
        if widest * size / texts[0].get_fontsize() > room:
            for t in texts:
                t.set_visible(False)
            return
    for t in texts:
        t.set_fontsize(size)


def new_axes(figsize: tuple[float, float]) -> Any:
    """A new figure (constrained layout: nothing clips when saved) and its Axes."""
    _, ax = plt().subplots(figsize=figsize, layout="constrained")
    return ax


# --- the ds.cv.plot / df.cv.plot namespaces -----------------------------------------------------


def as_method(func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` as a method of a plotter namespace: ``self._obj`` is its data argument.

    The method is made from the function, not written again: the same parameters and
    defaults (its ``__signature__``, which ``help`` and ``inspect`` show), the function's
    docstring without its data parameter (:func:`cvframe._core.docs.accessor_doc`), one call.
    """

    def method(self: Any, /, *args: Any, **kwargs: Any) -> Any:
        return func(self._obj, *args, **kwargs)

    params = list(inspect.signature(func).parameters.values())
    this = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
    method.__signature__ = inspect.Signature([this, *params[1:]])  # type: ignore[attr-defined]
    method.__name__ = func.__name__
    method.__doc__ = accessor_doc(func, data=("data", "df"))
    return method
