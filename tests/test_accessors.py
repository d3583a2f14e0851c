"""The accessors are facades: every method has a documented function twin and no state."""

from __future__ import annotations

import inspect

import pandas as pd
import pytest
import xarray as xr

import cvframe
from cvframe.accessors import CVDataFrameAccessor, CVDatasetAccessor

PUBLIC_DS = [n for n, v in vars(CVDatasetAccessor).items() if not n.startswith("_") and callable(v)]
PUBLIC_DF = [
    n for n, v in vars(CVDataFrameAccessor).items() if not n.startswith("_") and callable(v)
]


@pytest.mark.parametrize("name", PUBLIC_DS + PUBLIC_DF)
def test_every_accessor_method_has_the_functions_docstring(name):
    cls = CVDatasetAccessor if name in PUBLIC_DS else CVDataFrameAccessor
    method = getattr(cls, name)
    doc = inspect.getdoc(method)
    assert doc and len(doc.splitlines()) > 3, f"{name} has no real docstring"
    sig = inspect.signature(method)
    kinds = {p.kind for p in sig.parameters.values()}
    assert inspect.Parameter.VAR_POSITIONAL not in kinds, f"{name} takes *args"
    assert inspect.Parameter.VAR_KEYWORD not in kinds, f"{name} takes **kwargs"


def test_accessors_hold_no_state_and_do_not_validate_on_init():
    for cls in (CVDatasetAccessor, CVDataFrameAccessor):  # the object is the only field
        assert [s for c in cls.__mro__ for s in vars(c).get("__slots__", ())] == ["_obj"]
        assert not hasattr(cls(xr.Dataset()), "__dict__")
    bad = xr.Dataset({"x": ("fold", [1, 2])})
    acc = bad.cv  # no error on access ...
    with pytest.raises(cvframe.CountsError, match="missing count variable"):
        acc.f_tp_fp()  # ... only from the method
    assert isinstance(pd.DataFrame({"a": [1]}).cv, CVDataFrameAccessor)


@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("f_tp_fp", {}),
        ("f_avg", {"zero_division": 0.0}),
        ("f_pr_re", {"zero_division": 0.0}),
        ("f_methods", {"zero_division": 0.0}),
        ("precision", {"zero_division": 0.0}),
        ("recall", {}),
        ("f", {"zero_division": 0.0}),
        ("specificity", {}),
        ("valid", {}),
        ("pooled", {}),
    ],
)
def test_accessor_equals_function(name, kwargs):
    ds = cvframe.datasets.table2()
    via_acc = getattr(ds.cv, name)(**kwargs)
    via_fn = getattr(cvframe.reduce, name)(ds, **kwargs)
    xr.testing.assert_identical(via_acc, via_fn)


def test_counts_takes_dims_as_documented():
    df = pd.DataFrame(
        {
            "fold": [0, 0, 1, 1] * 2,
            "clf": ["a"] * 4 + ["b"] * 4,
            "y_true": [0, 1, 0, 1] * 2,
            "y_pred": [0, 1, 1, 1, 0, 0, 0, 1],
        }
    )
    ds = df.cv.counts(dims=["clf"])
    assert ds.tp.dims == ("clf", "fold", "class")
    assert ds.tp.sel(clf="a").values.ravel().tolist() == [1, 1]
    assert ds.tp.sel(clf="b").values.ravel().tolist() == [0, 1]
    assert ds.fp.sel(clf="a").values.ravel().tolist() == [0, 1]
    xr.testing.assert_identical(ds, cvframe.build.counts_from_frame(df, dims=["clf"]))


def test_help_shows_the_method_not_the_function():
    ds = cvframe.datasets.table1()
    for method in (ds.cv.f_avg, ds.cv.f_tp_fp, ds.cv.macro):
        assert not hasattr(method, "__wrapped__")
        assert "ds" not in inspect.signature(method).parameters
    assert list(inspect.signature(ds.cv.f_avg).parameters)[:2] == ["beta", "skip_undefined"]
    doc = inspect.getdoc(ds.cv.f_avg)
    params = doc[doc.index("Parameters") : doc.index("Returns")]
    assert "ds : " not in params
    assert params.index("beta :") < params.index("skip_undefined :") < params.index("dim :")


# --- the stored docstrings --------------------------------------------------------------------


def test_stored_docstrings_are_what_the_functions_render_now():
    from cvframe.accessors import generate

    current = generate.render()
    differ = generate.stale(current)
    assert not differ, (
        f"the stored docstrings of {differ} differ from their functions'; run "
        f"`{generate.COMMAND}` and commit cvframe/accessors/docstrings.json"
    )
    assert CVDatasetAccessor.report.__doc__ == current["CVDatasetAccessor"]["report"]


def test_a_stale_docstring_is_named_with_the_command(monkeypatch):
    from cvframe.accessors import _common, generate

    have = {c: dict(d) for c, d in _common.stored().items()}
    have["CVDatasetAccessor"]["f_tp_fp"] += " (changed)"
    del have["CVDataFrameAccessor"]["auc"]
    monkeypatch.setattr(generate, "stored", lambda: have)
    assert generate.stale() == ["CVDataFrameAccessor.auc", "CVDatasetAccessor.f_tp_fp"]
    assert generate.main(["--check"]) == 1


def test_docstrings_are_plain_attributes_read_without_loading_anything():
    for cls in (CVDatasetAccessor, CVDataFrameAccessor):
        for name, member in vars(cls).items():
            if not name.startswith("_") and inspect.isfunction(member):
                assert member.__doc__ and member.__doc__ == getattr(cls, name).__doc__, name


class _Twin:
    """A stand-in accessor whose methods the generator must refuse."""

    def __init__(self, obj):
        self._obj = obj

    def f_tp_fp(self, beta: float = 2.0, *, dim="fold", zero_division="warn"):
        from cvframe import reduce
        from cvframe.accessors._common import args

        return reduce.f_tp_fp(self._obj, **args(locals()))

    def pooled(self, dim="fold", extra=None):
        from cvframe import reduce
        from cvframe.accessors._common import args

        return reduce.pooled(self._obj, **args(locals()))

    def valid(self):
        from cvframe import reduce

        return reduce.valid(self._obj).copy()


def test_the_generator_refuses_a_method_that_is_not_its_functions_call():
    from cvframe.accessors import generate

    func = generate.function_of(_Twin, "f_tp_fp")
    assert func is cvframe.reduce.f_tp_fp
    with pytest.raises(ValueError, match=r"_Twin.f_tp_fp: defaults differ.*'beta': \(2.0, 1.0\)"):
        generate.check_signature(_Twin, "f_tp_fp", func)
    pooled = generate.function_of(_Twin, "pooled")
    with pytest.raises(ValueError, match=r"_Twin.pooled: parameters \['dim', 'extra'\] differ"):
        generate.check_signature(_Twin, "pooled", pooled)
    with pytest.raises(ValueError, match=r"_Twin.valid: its body must end with the one call"):
        generate.function_of(_Twin, "valid")
