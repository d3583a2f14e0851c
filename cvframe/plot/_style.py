"""Shared look of the plots: lazy seaborn/matplotlib imports, palettes, facet labels."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import pandas as pd

from ..schema import CLASS, FOLD, PRED, REPEAT, TRUE
from ..tidy import METHOD_LABELS

GROUP = "group"


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
