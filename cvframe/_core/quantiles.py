r"""The confidence level and the t and normal quantiles every interval and test of cvframe
uses: the one check of a ``level=`` argument (:func:`level`) and the one place the quantiles
are computed (from :mod:`scipy.special`, without importing :mod:`scipy.stats`).

>>> round(float(t_quantile(0.95, 9)), 4), round(float(z_quantile(0.95)), 4)
(2.2622, 1.96)
"""

from __future__ import annotations

import warnings
from typing import Any

import xarray as xr

from ..errors import user_stacklevel
from . import checks

__all__ = ["level", "t_quantile", "z_quantile"]

#: The default confidence level of every public function.
LEVEL = 0.95


def level(value: Any, **former: Any) -> float:
    """A ``level=`` argument checked: the confidence level, in (0, 1).

    ``former`` holds the argument's former names, None when not passed: ``alpha`` (the level
    is ``1 - alpha``) and ``ci`` (the level itself) keep working for one release, with a
    :class:`FutureWarning` that names ``level``.

    >>> level(0.9)
    0.9
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     round(level(0.95, alpha=0.1), 10), caught[0].category.__name__
    (0.9, 'FutureWarning')
    """
    given = {name: v for name, v in former.items() if v is not None}
    if len(given) > 1 or (given and value != LEVEL):
        raise TypeError(
            f"pass the confidence level once, as level=; got level={value!r} and "
            f"{', '.join(f'{k}={v!r}' for k, v in given.items())}."
        )
    for name, old in given.items():
        same = "level = 1 - alpha" if name == "alpha" else "the same confidence level"
        warnings.warn(
            f"{name}= is renamed level= ({same}; default {LEVEL}): pass level= instead. "
            f"{name}= stops working in a future release.",
            FutureWarning,
            stacklevel=user_stacklevel(),
        )
        old = checks.real(name, old, 0.0, 1.0, low_open=True, high_open=True)
        value = 1.0 - old if name == "alpha" else old
    return checks.real(
        "level", value, 0.0, 1.0, low_open=True, high_open=True, fix="Pass e.g. level=0.95."
    )


def t_quantile(level: float, df: Any) -> Any:
    r"""The two-sided Student t quantile :math:`t_{\nu,(1+\text{level})/2}` (``df`` broadcasts;
    a DataArray stays one)."""
    from scipy.special import stdtrit  # as scipy.stats.t.ppf computes it

    return xr.apply_ufunc(stdtrit, df, (1 + level) / 2)


def z_quantile(level: float) -> float:
    r"""The two-sided normal quantile :math:`z_{(1+\text{level})/2}`."""
    from scipy.special import ndtri

    return float(ndtri((1 + level) / 2))
