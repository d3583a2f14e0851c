"""Errors, warnings and the one place their wording lives.

Every message names the argument, shows a few offending values and says the fix.
"""

from __future__ import annotations

import os
import sys
import types
import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = ["ColumnError", "CountsError", "UndefinedMetricWarning", "few", "warn_undefined"]

#: How many offending values an error message shows before it says "... and N more".
SHOW = 5


class CountsError(ValueError):
    """A counts cube (or the data it is built from) breaks the data model.

    Raised by :func:`cvframe.validate` and by every constructor. It is a
    :class:`ValueError`, so ``except ValueError`` catches it.
    """


class ColumnError(KeyError, ValueError):
    """A column named by an argument is not in the frame (a KeyError and a ValueError)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class UndefinedMetricWarning(UserWarning):
    """A metric was undefined somewhere (0/0) and the ``zero_division`` policy was applied.

    Emitted at most once per call, with the number of affected cells. Pass an explicit
    ``zero_division=`` (0.0, 1.0 or ``np.nan``) to silence it.
    """


def few(values: Iterable[Any], show: int = SHOW) -> str:
    """Format up to ``show`` values, then how many more there are.

    >>> few([1, 2, 3, 4, 5, 6, 7], show=3)
    '[1, 2, 3] and 4 more'
    """
    vals = list(values)
    head = ", ".join(repr(v.item() if isinstance(v, np.generic) else v) for v in vals[:show])
    more = len(vals) - show
    return f"[{head}]" + (f" and {more} more" if more > 0 else "")


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning point at the first frame outside cvframe.

    Calls reach the warning through different depths (function or accessor, one metric or
    ``f_methods``); counting frames keeps the reported line the user's own.
    """
    frame: types.FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    return level


def warn_undefined(
    what: str,
    n_cells: int,
    n_total: int,
    where: str = "",
    policy: str = "zero_division",
    action: str = "set to 0.0",
) -> None:
    """Emit the one :class:`UndefinedMetricWarning` of a call.

    Parameters
    ----------
    what : str
        The metric and why it is undefined, e.g. "precision (no predicted positives)".
    n_cells, n_total : int
        How many cells are affected out of how many.
    where : str
        A few of the affected (fold, class) places.
    policy : str
        The argument that controls the behaviour.
    action : str
        What was done instead, e.g. "set to 0.0".
    """
    where = f" ({where})" if where else ""
    msg = f"{what} is undefined in {n_cells} of {n_total} cells{where}; {action}. Pass "
    msg += f"{policy}= explicitly to choose the value and silence this warning."
    warnings.warn(msg, UndefinedMetricWarning, stacklevel=user_stacklevel())
