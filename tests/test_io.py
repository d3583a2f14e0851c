"""Persistence: lossless netCDF4 and Zarr round trips, stale encodings, the golden file."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import cvframe

GOLDEN = os.path.join(os.path.dirname(__file__), "data", "golden_cube_v0.1.0.nc")


def _cubes():
    rng = np.random.default_rng(7)
    y = rng.choice(["ant", "bee", "cat"], 90)
    yp = np.where(rng.random(90) < 0.6, y, rng.choice(["ant", "bee", "cat"], 90))
    multi = cvframe.from_predictions(
        y, yp, np.tile(np.arange(3), 30), repeat=np.repeat([0, 1, 2], 30)
    )
    multi.attrs.update(stratified="yes", splitter="StratifiedKFold(n_splits=3)")
    binary = cvframe.from_predictions(y == "ant", yp == "ant", np.tile(np.arange(3), 30))
    ml = cvframe.from_predictions(
        rng.integers(0, 2, (40, 3)),
        rng.integers(0, 2, (40, 3)),
        rng.integers(0, 4, 40),
        labels=["x", "y", "z"],
    )
    return {
        "multiclass": multi,
        "binary_bool": binary,
        "multilabel": ml,
        "table2": cvframe.datasets.table2(),
    }


def _assert_same(back, ds):
    xr.testing.assert_identical(back, ds)
    for name in ds.variables:  # assert_identical does not compare dtypes
        assert back[name].dtype == ds[name].dtype, name
    assert back.attrs == ds.attrs


@pytest.mark.parametrize("name", ["multiclass", "binary_bool", "multilabel", "table2"])
@pytest.mark.parametrize("engine", ["netcdf4", "h5netcdf"])
def test_netcdf_round_trip_is_lossless(tmp_path, name, engine):
    pytest.importorskip(engine if engine != "netcdf4" else "netCDF4")
    ds = _cubes()[name]
    path = tmp_path / "cube.nc"
    ds.to_netcdf(path, engine=engine)
    back = cvframe.open_dataset(path)
    _assert_same(back, ds)
    xr.testing.assert_identical(
        back.cv.f_methods(zero_division=0), ds.cv.f_methods(zero_division=0)
    )


@pytest.mark.parametrize("name", ["multiclass", "multilabel"])
def test_zarr_round_trip_is_lossless(tmp_path, name):
    pytest.importorskip("zarr")
    ds = _cubes()[name]
    path = tmp_path / "cube.zarr"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zarr v3's note about consolidated metadata
        ds.to_zarr(path)
    _assert_same(cvframe.open_dataset(path), ds)


def test_results_survive_round_trip_and_rewrite(tmp_path):
    ds = _cubes()["multiclass"]
    ds.to_netcdf(tmp_path / "a.nc")
    back = cvframe.open_dataset(tmp_path / "a.nc")
    assert all(not back[v].encoding for v in back.variables)  # stale encodings dropped
    res = back.cv.f_tp_fp(zero_division=0)
    res.to_netcdf(tmp_path / "res.nc")
    again = xr.open_dataarray(tmp_path / "res.nc")
    xr.testing.assert_identical(again.load(), res)


def test_golden_file_from_release_0_1_0_still_loads():
    ds = cvframe.open_dataset(GOLDEN)
    cvframe.validate(ds)
    assert ds.tp.dims == ("repeat", "fold", "class")
    assert ds["class"].values.tolist() == ["ant", "bee", "cat"]
    assert ds.tp.dtype == np.int64
    assert ds.tp.values.tolist() == [
        [[0, 4, 4], [5, 2, 3], [6, 1, 1]],
        [[1, 3, 5], [3, 1, 3], [2, 4, 2]],
    ]
    assert ds.attrs["task"] == "multiclass" and ds.attrs["stratified"] == "no"
    # pooled counts are what the stored confusion matrices imply
    assert int(ds.confusion.sum()) == 60
    np.testing.assert_array_equal(
        ds.tp.sum("class"), np.trace(ds.confusion.values, axis1=-2, axis2=-1)
    )


def test_attrs_are_netcdf_safe_types():
    for ds in _cubes().values():
        for key, value in ds.attrs.items():
            assert isinstance(value, (str, int, float)), (key, value)
    assert isinstance(_cubes()["binary_bool"].attrs["pos_label"], str)


def test_categorical_frame_labels_survive(tmp_path):
    cat = pd.CategoricalDtype(["lo", "mid", "hi"], ordered=True)
    df = pd.DataFrame(
        {
            "fold": [0, 0, 1, 1],
            "y_true": pd.Series(["lo", "hi", "mid", "lo"], dtype=cat),
            "y_pred": pd.Series(["lo", "mid", "mid", "hi"], dtype=cat),
        }
    )
    ds = df.cv.counts()
    assert ds["class"].values.tolist() == ["lo", "mid", "hi"]
    ds.to_netcdf(tmp_path / "c.nc")
    back = cvframe.open_dataset(tmp_path / "c.nc")
    assert back["class"].values.tolist() == ["lo", "mid", "hi"]


def test_open_dataset_says_what_it_reads(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"path=.*nope.nc' does not exist"):
        cvframe.open_dataset(tmp_path / "nope.nc")
    text = tmp_path / "notes.nc"
    text.write_text("hello")
    with pytest.raises(ValueError, match=r"neither a netCDF4 file nor a Zarr store"):
        cvframe.open_dataset(text)
    with pytest.raises(TypeError, match=r"path must be a file name or path, got NoneType"):
        cvframe.open_dataset(None)


def test_open_dataset_gives_python_scalars_in_attrs(tmp_path):
    ds = cvframe.from_predictions([0, 1, 1, 0], [0, 1, 0, 0], [0, 0, 1, 1])
    path = tmp_path / "cube.nc"
    ds.to_netcdf(path)
    back = cvframe.open_dataset(path)
    assert back.attrs["pos_label"] == 1 and type(back.attrs["pos_label"]) is int
