"""Every accessor method against its function twin, from a registry built from ``__all__``.

``ds.cv.<name>`` is the twin of ``<name>`` in the cube modules (reduce, multiclass, repeats,
bootstrap, diagnostics, report), ``df.cv.<name>`` of ``<name>`` in ``cvframe.scores`` and
``df.cv.counts`` of ``cvframe.build.counts_from_frame``. For each pair: the twin exists both
ways, the method has the function's parameters (names and defaults) minus the data argument,
its documentation speaks of the method's parameters (never of ``ds``/``df``), every argument
reaches the function unchanged, and both give the identical result and the same warnings.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import cvframe
from cvframe.accessors import CVDataFrameAccessor, CVDatasetAccessor

DS_MODULES = ("reduce", "multiclass", "repeats", "bootstrap", "diagnostics", "report")
DF_MODULES = ("scores",)
RENAMED = {
    ("df", "counts"): ("build", "counts_from_frame"),
    # a cube function (first parameter ds) that lives with the score metrics it complements
    ("ds", "expected_cost"): ("scores", "expected_cost"),
    # compare takes a cube or a predictions frame: a twin on both accessors
    ("ds", "compare"): ("comparison", "compare"),
    ("df", "compare"): ("comparison", "compare"),
    # interval takes a cube or a predictions frame: a twin on both accessors
    ("ds", "interval"): ("intervals", "interval"),
    ("df", "interval"): ("intervals", "interval"),
    # the multilabel metrics of a frame: the cube's, with the per-sample F at any beta
    ("df", "multilabel_metrics"): ("measure", "multilabel_metrics_from_frame"),
}
# Public functions of a cube or score module that are deliberately not methods, with the reason.
NO_TWIN = {
    "fold_dims": "the check of dim= every aggregation shares, not a metric",
    "read_counts": "how every aggregation reads the counts, not a metric",
    "no_information_rate": "a building block of bootstrap_632(plus=True)",
    "fold_table": "a long frame for plots and the report, not a metric of the cube",
    "methods_table": "a long frame for plots and the report, not a metric of the cube",
    "parse": "the predictions frame parsed once for several metrics, not a metric",
    "group_findings": "groups a findings table for reading, not a metric of the cube",
}
DATA = {"ds": "ds", "df": "df"}
# Functions whose data argument has another name (compare's ``data``: a cube or a frame).
DATA_NAMED = {"compare": "data", "interval": "data"}


def _data(kind: str, name: str) -> str:
    return DATA_NAMED.get(name, DATA[kind])


MISSING: list[str] = []


def _module(name: str) -> Any:
    try:
        return importlib.import_module(f"cvframe.{name}")
    except ModuleNotFoundError as exc:  # reported by test_every_module_of_the_registry_exists
        if exc.name != f"cvframe.{name}":
            raise
        MISSING.append(name)
        return None


def _functions(modules: tuple[str, ...], first: str) -> dict[str, Callable[..., Any]]:
    """The public functions of ``modules`` (from ``__all__``) whose first parameter is ``first``."""
    out: dict[str, Callable[..., Any]] = {}
    for modname in modules:
        mod = _module(modname)
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name)
            if not inspect.isfunction(obj):
                continue
            params = list(inspect.signature(obj).parameters)
            if not params or params[0] != first:
                continue
            assert out.get(name, obj) is obj, f"two different public functions named {name}"
            out[name] = obj
    return out


def _methods(cls: type) -> list[str]:
    return [n for n, v in vars(cls).items() if not n.startswith("_") and inspect.isfunction(v)]


def _registry() -> dict[tuple[str, str], Callable[..., Any]]:
    reg: dict[tuple[str, str], Callable[..., Any]] = {}
    for kind, modules in (("ds", DS_MODULES), ("df", DF_MODULES)):
        for name, func in _functions(modules, DATA[kind]).items():
            if name not in NO_TWIN:
                reg[(kind, name)] = func
    for (kind, name), (modname, fname) in RENAMED.items():
        reg[(kind, name)] = getattr(_module(modname), fname)
    return reg


REGISTRY = _registry()
CLASSES = {"ds": CVDatasetAccessor, "df": CVDataFrameAccessor}
PAIRS = sorted(REGISTRY)
IDS = [f"{kind}.cv.{name}" for kind, name in PAIRS]


def _method(kind: str, name: str) -> Callable[..., Any]:
    return getattr(CLASSES[kind], name)


def _params(func: Callable[..., Any], drop_first: bool = True) -> dict[str, Any]:
    params = list(inspect.signature(func).parameters.values())[1 if drop_first else 0 :]
    return {p.name: p.default for p in params}


# --- the registry is complete both ways ----------------------------------------------------


def test_every_module_of_the_registry_exists():
    assert not MISSING, f"modules named by the registry are missing: {MISSING}"


def test_registry_sees_the_known_twins():
    assert {
        ("ds", "f_tp_fp"),
        ("ds", "macro"),
        ("ds", "summary"),
        ("ds", "report"),
        ("df", "auc"),
        ("df", "counts"),
    } <= set(REGISTRY)


@pytest.mark.parametrize("kind", ["ds", "df"])
def test_every_method_has_a_function_twin(kind):
    orphans = [n for n in _methods(CLASSES[kind]) if (kind, n) not in REGISTRY]
    assert not orphans, f"{kind}.cv methods without a public function twin: {orphans}"


@pytest.mark.parametrize("kind", ["ds", "df"])
def test_every_function_has_a_method_twin(kind):
    missing = [n for k, n in REGISTRY if k == kind and not hasattr(CLASSES[kind], n)]
    assert not missing, f"public functions without a {kind}.cv twin: {missing}"


# --- signature and documentation -----------------------------------------------------------


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_method_has_the_functions_parameters_and_defaults(pair):
    kind, name = pair
    method, func = _method(kind, name), REGISTRY[pair]
    assert next(iter(inspect.signature(func).parameters)) == _data(kind, name)
    got, want = _params(method), _params(func)
    assert sorted(got) == sorted(want), f"{kind}.cv.{name}: parameters differ"
    differ = {n: (got[n], want[n]) for n in want if got[n] is not want[n] and got[n] != want[n]}
    assert not differ, f"{kind}.cv.{name}: defaults differ (method, function): {differ}"
    assert not hasattr(method, "__wrapped__"), "help() would show the function's signature"


def _documented(doc: str) -> list[list[str]]:
    """The entries of the numpydoc Parameters section of ``doc``, each a list of names."""
    m = re.search(
        r"^([ \t]*)Parameters\n\1-+\n(.*?)(?:\n\s*\n\1\S[^\n]*\n\1-+\n|\Z)",
        doc,
        re.MULTILINE | re.DOTALL,
    )
    if m is None:
        return []
    indent = m.group(1)
    entries = []
    for line in m.group(2).split("\n"):
        if line.startswith(indent) and line[len(indent) : len(indent) + 1].strip():
            head = line.strip().split(" : ")[0]
            entries.append([n.strip().lstrip("*") for n in head.split(",")])
    return entries


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_method_documents_its_own_parameters_in_its_order(pair):
    kind, name = pair
    method = _method(kind, name)
    doc = inspect.getdoc(method) or ""
    assert doc.splitlines()[0] == (inspect.getdoc(REGISTRY[pair]) or "").splitlines()[0]
    params = list(_params(method))
    entries = _documented(doc)
    documented = {n for entry in entries for n in entry}
    assert not documented & {"ds", "df"}, f"{kind}.cv.{name} documents its data argument"
    assert documented <= set(params), (
        f"{kind}.cv.{name} documents parameters it does not take: "
        f"{sorted(documented - set(params))}"
    )
    assert set(params) <= documented, (
        f"{kind}.cv.{name} takes undocumented parameters: {sorted(set(params) - documented)}"
    )
    positions = [min(params.index(n) for n in entry) for entry in entries]
    assert positions == sorted(positions), (
        f"{kind}.cv.{name}: parameters documented in another order than the method's: "
        f"{entries} vs {params}"
    )


@pytest.mark.parametrize(
    "name", sorted(n for k, n in REGISTRY if k == "ds" and ("df", n) in REGISTRY)
)
def test_a_name_on_both_accessors_takes_the_cubes_arguments_alike(name):
    """One name, one set of arguments: the frame's method takes every argument of the cube's,
    with its default, in its order (then the frame's columns)."""
    cube, frame = (inspect.signature(_method(k, name)).parameters for k in ("ds", "df"))
    shared = [p for p in frame.values() if p.name in cube]
    assert list(cube.values()) == shared[: len(cube)], f"ds.cv.{name} vs df.cv.{name}"


def test_help_shows_the_methods_signature():
    ds = cvframe.datasets.table1()
    sig = inspect.signature(ds.cv.f_avg)
    assert list(sig.parameters)[:2] == ["beta", "skip_undefined"]
    text = pydoc_text(ds.cv.f_avg)
    assert "f_avg(beta: 'float' = 1.0, skip_undefined" in text, text[:300]
    assert "\n    ds : " not in text


def pydoc_text(obj: Any) -> str:
    import pydoc

    return pydoc.render_doc(obj, renderer=pydoc.plaintext)


# --- every argument reaches the function ---------------------------------------------------


class _Sentinel:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_every_argument_is_forwarded_unchanged(pair, monkeypatch):
    kind, name = pair
    func = REGISTRY[pair]
    calls: list[inspect.BoundArguments] = []

    def recorder(*args: Any, **kwargs: Any) -> str:
        calls.append(inspect.signature(func).bind(*args, **kwargs))
        return "recorded"

    for modname, mod in list(sys.modules.items()):
        if modname.split(".")[0] == "cvframe" and getattr(mod, func.__name__, None) is func:
            monkeypatch.setattr(mod, func.__name__, recorder)
    obj = xr.Dataset() if kind == "ds" else pd.DataFrame()
    sentinels = {p: _Sentinel(p) for p in _params(_method(kind, name))}
    assert getattr(obj.cv, name)(**sentinels) == "recorded"
    assert len(calls) == 1, f"{kind}.cv.{name} did not call {func.__module__}.{func.__name__}"
    got = calls[0].arguments
    assert got[_data(kind, name)] is obj
    wrong = {p: got.get(p, "<default>") for p, s in sentinels.items() if got.get(p) is not s}
    assert not wrong, f"{kind}.cv.{name} passed other values: {wrong}"


# --- identical results on real data --------------------------------------------------------


def _frame(classes: list[str], seed: int, subset: str | None = None) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = 2 * 3 * 12
    y_true = rng.choice(classes, n)
    noisy = rng.random(n) < 0.35
    y_pred = np.where(noisy, rng.choice(classes, n), y_true)
    df = pd.DataFrame(
        {
            "repeat": np.repeat([0, 1], n // 2),
            "fold": np.tile(np.repeat([0, 1, 2], 12), 2),
            "y_true": y_true,
            "y_pred": y_pred,
        }
    )
    if len(classes) == 2:
        df["score"] = np.where(y_true == classes[1], 0.6, 0.4) + rng.normal(0, 0.3, n)
    else:
        for c in classes:
            df[f"score_{c}"] = np.where(y_true == c, 0.6, 0.4) + rng.normal(0, 0.3, n)
    if subset is not None:
        df["subset"] = subset
    return df


DATASETS = {
    "binary": (["0", "1"], {"pos_label": "1"}),
    "three_classes": (["a", "b", "c"], {}),
}
# Arguments a call needs; everything else at its default.
REQUIRED: dict[tuple[str, str], dict[str, Any]] = {("df", "precision_at_k"): {"k": 3}}


@functools.cache
def _inputs(which: str) -> dict[str, Any]:
    classes, frame_kwargs = DATASETS[which]
    df = _frame(classes, seed=len(classes))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = df.cv.counts(**frame_kwargs)
        both = pd.concat([_frame(classes, 1, "test"), _frame(classes, 2, "train")])
        ds_subset = both.cv.counts(**frame_kwargs)
    return {"df": df, "ds": ds, "ds_subset": ds_subset, "frame_kwargs": frame_kwargs}


def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = fn(*args, **kwargs)
        except Exception as exc:  # the same error both ways is parity too
            out = (type(exc), str(exc))
    return out, [f"{w.category.__name__}: {w.message}" for w in caught]


def _assert_same(a: Any, b: Any) -> None:
    assert type(a) is type(b)
    if isinstance(a, xr.DataArray | xr.Dataset):
        xr.testing.assert_identical(a, b)
    elif isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b)
        assert a.attrs == b.attrs
    else:
        assert a == b


@pytest.mark.parametrize("which", sorted(DATASETS))
@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_method_and_function_give_the_identical_result(pair, which):
    kind, name = pair
    data = _inputs(which)
    obj = data["ds_subset"] if name == "bootstrap_632" else data[kind]
    kwargs = dict(REQUIRED.get(pair, {}))
    if kind == "df":
        accepted = _params(_method(kind, name))
        kwargs.update({k: v for k, v in data["frame_kwargs"].items() if k in accepted})
    via_method, warned_m = _call(getattr(obj.cv, name), **kwargs)
    via_function, warned_f = _call(REGISTRY[pair], obj, **kwargs)
    assert not (isinstance(via_method, tuple) and via_method[:1] == (TypeError,)), via_method
    _assert_same(via_method, via_function)
    assert warned_m == warned_f
