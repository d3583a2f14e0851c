"""The candidates of a parameter grid and their labels (:func:`param_label`); the values behind
the labels travel as JSON in ``attrs["params"]`` (netCDF-safe) and :func:`read_params` reads
them back."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._core import labels as _labels
from ..errors import few

__all__ = ["AS_GIVEN", "param_label", "read_params"]

#: The ``param`` label of a model run with its parameters as given (no grid, or ``{}``).
AS_GIVEN = "(as given)"

Models = list[tuple[str | None, Any]]
Grids = list[list[tuple[str | None, dict[str, Any]]]]


def grids_of(param_grid: Any, models: Models, several: bool) -> Grids:
    """Per model, its candidates ``[(label, params)]`` in grid order (``[(None, {})]``: none).

    ``several``: ``estimator`` named several models, so ``param_grid`` maps names to grids.
    """
    if param_grid is None:
        return [[(None, {})] for _ in models]
    if not several:
        return [candidates(param_grid, models[0][1], "param_grid")]
    names = [name for name, _ in models]
    if not isinstance(param_grid, Mapping) or not set(param_grid) <= set(names):
        keys = list(param_grid) if isinstance(param_grid, Mapping) else param_grid
        raise ValueError(
            f"param_grid={keys!r} does not name the models; with several models param_grid "
            f"maps model names {few(names)} to grids, e.g. param_grid={{{names[0]!r}: "
            "{'C': [0.1, 1.0]}} (a model without a grid runs as given)."
        )
    return [
        candidates(param_grid[name], est, f"param_grid[{name!r}]")
        if name in param_grid
        else [(AS_GIVEN, {})]
        for name, est in models
    ]


def candidates(grid: Any, estimator: Any, arg: str) -> list[tuple[str | None, dict[str, Any]]]:
    """The candidates of one grid as ``[(label, params)]``, checked against ``estimator``."""
    from sklearn.model_selection import ParameterGrid

    if isinstance(grid, (str, bytes)) or not isinstance(grid, (Mapping, list, tuple)):
        raise TypeError(
            f"{arg}={grid!r} must be a dict of parameter lists or a list of such dicts, as for "
            "scikit-learn's ParameterGrid, e.g. {'C': [0.1, 1.0]}."
        )
    try:
        candidates = list(ParameterGrid(grid))
    except (TypeError, ValueError) as err:
        raise type(err)(f"{arg}: {err}") from None
    if not candidates:
        raise ValueError(f"{arg}={grid!r} holds no candidate; give at least one.")
    valid = set(estimator.get_params(deep=True)) if hasattr(estimator, "get_params") else set()
    unknown = sorted({k for c in candidates for k in c} - valid)
    if unknown:
        raise ValueError(
            f"{arg} names parameter(s) {few(unknown)} that {type(estimator).__name__} does not "
            f"have; its parameters are {few(sorted(valid), 12)}."
        )
    out: list[tuple[str | None, dict[str, Any]]] = [(param_label(p), p) for p in candidates]
    labels = [label for label, _ in out]
    if len(set(labels)) < len(labels):
        twice = next(lb for i, lb in enumerate(labels) if lb in labels[:i])
        raise ValueError(
            f"{arg} gives the candidate {twice!r} twice; each candidate must appear once "
            "(and parameter values must have distinct reprs)."
        )
    return out


def _value_text(v: Any) -> str:
    v = _labels.plain(v)
    if isinstance(v, (type, type(len))) or (callable(v) and hasattr(v, "__qualname__")):
        return getattr(v, "__qualname__", repr(v))
    return " ".join(repr(v).split())


def param_label(params: Mapping[str, Any]) -> str:
    """The readable label of one candidate: ``name=repr(value)``, names sorted, comma-joined.

    Numpy scalars are shown as the Python values they hold, estimators as their one-line
    repr, functions and classes by name. A candidate without parameters (the estimator as
    given) is ``"(as given)"``. These labels are the ``param`` coordinates of
    :func:`cross_validate` with ``param_grid=``.

    Parameters
    ----------
    params : mapping of str to object
        One candidate of a parameter grid, e.g. an element of scikit-learn's ``ParameterGrid``.

    Returns
    -------
    str

    Examples
    --------
    >>> import numpy as np
    >>> param_label({"penalty": "l2", "C": np.float64(0.1)})
    "C=0.1, penalty='l2'"
    >>> param_label({})
    '(as given)'
    """
    if not isinstance(params, Mapping):
        raise TypeError(f"params={params!r} must be a mapping of parameter names to values.")
    if not params:
        return AS_GIVEN
    return ", ".join(f"{k}={_value_text(params[k])}" for k in sorted(params))


def _jsonable(v: Any) -> Any:
    v = _labels.plain(v)
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, Mapping) and all(isinstance(k, str) for k in v):
        return {k: _jsonable(x) for k, x in v.items()}
    if isinstance(v, np.ndarray):
        return [_jsonable(x) for x in v.tolist()]
    return _value_text(v)


def read_params(obj: Any) -> dict[str, dict[str, Any]]:
    """The parameter values behind the ``param`` labels: ``{label: {name: value}}``.

    :func:`cross_validate` with ``param_grid=`` stores them as a JSON string in
    ``attrs["params"]`` (netCDF-safe, so it survives a cube written to disk); this reads
    them back from a predictions frame, a counts cube or a result carrying those attrs.
    Values that are not JSON (estimators, functions) come back as their label text, and
    tuples as lists.

    Parameters
    ----------
    obj : pandas.DataFrame, xarray.Dataset or xarray.DataArray
        Anything with ``attrs["params"]`` written by :func:`cross_validate`.

    Returns
    -------
    dict
        Label -> parameters, in grid order.

    Raises
    ------
    ValueError
        ``obj`` has no ``attrs["params"]``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from cvframe.runner import cross_validate
    >>> X, y = load_iris(return_X_y=True)
    >>> frame = cross_validate(GaussianNB(), X, y, cv=3, param_grid={"var_smoothing": [1e-9, 1e-6]})
    >>> list(frame["param"].cat.categories)
    ['var_smoothing=1e-09', 'var_smoothing=1e-06']
    >>> read_params(frame)["var_smoothing=1e-06"]
    {'var_smoothing': 1e-06}
    """
    attrs = getattr(obj, "attrs", None)
    if not isinstance(attrs, Mapping) or "params" not in attrs:
        raise ValueError(
            f"obj ({type(obj).__name__}) has no attrs['params']; it is written by "
            "cvframe.cross_validate(..., param_grid=...)."
        )
    return dict(json.loads(str(attrs["params"])))


def grid_attrs(models: Models, grids: Grids, methods: list[str | None]) -> dict[str, str]:
    """The netCDF-safe (JSON string) attrs of a run with several models or a grid."""
    out: dict[str, str] = {}
    if models[0][0] is not None:
        out["estimators"] = json.dumps(
            {str(name): " ".join(repr(est).split()) for name, est in models}
        )
        out["score_methods"] = json.dumps(
            {str(name): m or "none" for (name, _), m in zip(models, methods, strict=True)}
        )
    if grids[0][0][0] is not None:
        params: dict[str, Any] = {}
        for label, p in (c for grid in grids for c in grid):
            params.setdefault(str(label), {k: _jsonable(p[k]) for k in sorted(p)})
        out["params"] = json.dumps(params)
        if models[0][0] is not None:
            names = [str(name) for name, _ in models]
            per = {n: [str(lb) for lb, _ in grid] for n, grid in zip(names, grids, strict=True)}
            out["model_params"] = json.dumps(per)
    return out


def chosen_attrs(
    models: Models, grids: Grids, results: list[list[dict[str, Any]]], k: int
) -> dict[str, str]:
    """``attrs["best_params"]`` (JSON) when the estimators are searches: the parameters each
    one chose on each outer split (``best_params_``), which ``selection_stability`` reads."""
    names = [name for (name, _), grid in zip(models, grids, strict=True) for _ in grid]
    picked = [
        {
            "model": None if name is None else str(name),
            "repeat": i // k,
            "fold": i % k,
            "params": {key: _jsonable(v) for key, v in sorted(o["best_params"].items())},
        }
        for name, res in zip(names, results, strict=True)
        for i, o in enumerate(res)
        if o.get("best_params") is not None
    ]
    return {"best_params": json.dumps(picked)} if picked else {}
