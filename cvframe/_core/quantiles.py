r"""The t and normal quantiles every interval and test of cvframe uses: the one place they are
computed (from :mod:`scipy.special`, without importing :mod:`scipy.stats`).

>>> round(float(t_quantile(0.95, 9)), 4), round(float(z_quantile(0.95)), 4)
(2.2622, 1.96)
"""

from __future__ import annotations

from typing import Any

import xarray as xr

__all__ = ["t_quantile", "z_quantile"]


def t_quantile(level: float, df: Any) -> Any:
    r"""The two-sided Student t quantile :math:`t_{\nu,(1+\text{level})/2}` (``df`` broadcasts;
    a DataArray stays one)."""
    from scipy.special import stdtrit  # as scipy.stats.t.ppf computes it

    return xr.apply_ufunc(stdtrit, df, (1 + level) / 2)


def z_quantile(level: float) -> float:
    r"""The two-sided normal quantile :math:`z_{(1+\text{level})/2}`."""
    from scipy.special import ndtri

    return float(ndtri((1 + level) / 2))
