"""What every test of :func:`cvframe.compare` shares: the checked request, the registry entry
of a test, the metric it compares (resolved in :data:`cvframe.metrics.REGISTRY` and computed
through :mod:`cvframe.measure`), the contrasts (which model minus which) and the result
Dataset.

On data with more than one class a per-class metric is averaged over the classes
(``average=``, macro by default), so one comparison answers "which model is better".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import xarray as xr

from .. import build, measure, metrics, scores
from .._core import labels as _labels
from .._core.labels import frame as frame_reader
from ..errors import few
from ..intervals.shared import whole
from ..schema import CLASS, REPEAT


def _spellings(kind: str, variant: str) -> dict[str, str]:
    """Every metric of ``kind`` with a paired test for ``variant``: its name and the name
    spelling the variant -> the metric."""
    return {
        key: m.name
        for m in metrics.by_kind(kind).values()
        if variant in m.tests
        for key in (m.name, metrics.spelled(m.name, variant))
    }


#: Metrics with one value per fold (tested by the fold tests): name -> registry metric.
FOLD_METRICS = _spellings("count", "avg")
#: Multilabel metrics with one value per fold (:mod:`cvframe.reduce.multilabel`, from the
#: per-sample sums of a multilabel cube; ``hamming_loss``: lower is better): name -> metric.
MULTILABEL_METRICS = _spellings("sample", "avg")


def arrays(metric: str) -> Any:
    """The weighted array form of a score metric, ``cvframe.scores.<kernel>_arrays(scores,
    y, weights=)`` (:func:`cvframe.scores.auc_arrays`), which the resampling tests compute on
    every resample; None where the metric has none."""
    return getattr(scores, f"{metrics.REGISTRY[metric].kernel}_arrays", None)


#: Metrics computed once on the pooled predictions (no per-fold values), tested by
#: resampling the tested samples (a score metric needs its weighted array form).
POOLED_METRICS = tuple(
    metrics.spelled(m.name, m.pooled)
    for m in metrics.REGISTRY.values()
    if m.kind != "sample" and m.pooled in m.tests and (m.kind == "count" or arrays(m.name))
)


@dataclass(frozen=True)
class Request:
    """The arguments of one :func:`cvframe.compare` call, checked; ``name`` and ``variant``
    are the registry metric and the fold aggregation ``metric`` resolves to."""

    metric: str
    test: str
    baseline: Any
    dim: str
    level: float
    n_resamples: int
    random_state: int | None
    rope: float
    beta: float
    zero_division: Any
    average: str | None
    pos_label: Any
    name: str  # the registry metric
    variant: str  # its fold aggregation: "avg" (per fold), "tp_fp" or "merge" (pooled)
    cols: dict[str, Any] = field(default_factory=dict)  # y_true, y_pred, score, fold, ...
    data: Any = None  # a counts cube (computed) or a predictions frame (pandas, test rows)

    @property
    def is_frame(self) -> bool:
        return not isinstance(self.data, xr.Dataset)

    @property
    def entry(self) -> metrics.Metric:
        return metrics.REGISTRY[self.name]

    @property
    def shown(self) -> str:
        """How a sentence names the compared metric: ``F_avg``, ``pooled accuracy``."""
        return metrics.display(self.name, self.variant)


@dataclass
class Outcome:
    """What a test computed: variables over ``contrast``, the models, the contrast pairs and
    the attrs the test adds."""

    out: dict[str, xr.DataArray]
    models: list[Any]
    ia: list[int]
    ib: list[int]
    info: dict[str, Any]


@dataclass(frozen=True)
class Test:
    """One entry of the registry of tests (:data:`cvframe.comparison.REGISTRY`): the value of
    ``test=``; its ``kind`` ("fold", "bayesian", "jackknife", "delta-method", "paired ROC",
    "resampling", "paired-count", "ranking over data sets"); the ``data`` it reads ("cube",
    "frame" or "datasets"); what it ``assumes`` and its ``reference`` (both copied to the
    result's attrs); ``run(request) -> Outcome``; whether it tests a ``pooled`` metric (True),
    per-fold values (False) or either (None: across data sets); the metric ``kinds`` it takes;
    and, for a test of the frame, the test that stands in for it on the counts cube
    (``on_cube``, "" for none)."""

    name: str
    kind: str
    data: str
    assumes: str
    reference: str
    run: Callable[[Request], Outcome]
    pooled: bool | None = False
    kinds: tuple[str, ...] = ("count", "sample")
    on_cube: str = ""


def fold_values(ds: xr.Dataset, req: Request) -> xr.DataArray:
    """Per-fold metric values of the request (NaN where a cell is not a fold)."""
    kw = {"beta": req.beta, "zero_division": req.zero_division}
    return measure.fold_values(ds, req.name, req.average, **kw)


def dataset_scores(ds: xr.Dataset, req: Request) -> xr.DataArray:
    """One score per model and data set (and kept dims such as class): mean over repeats."""
    kw = {"beta": req.beta, "zero_division": req.zero_division}
    val = measure.cube(ds, req.name, req.variant, req.average, **kw)
    return val.mean(REPEAT) if REPEAT in val.dims else val


def average_info(classes: Any, req: Request) -> dict[str, str]:
    """The attrs that say how the classes of multiclass data were compared (empty for one)."""
    classes = [str(c) for c in np.asarray(classes).tolist()]
    if len(classes) < 2:
        return {}
    if whole(req.name) == "correct":
        return {"average": f"none ({req.entry.display} counts every sample once)"}
    if whole(req.name) == "all":
        return {"average": f"none ({req.entry.display} is one value over every class)"}
    if req.entry.kind == "sample":
        return {"average": "none (a multilabel metric over every sample and label)"}
    if req.average is None:
        how = "compared per class (p-values Holm-adjusted over the classes and contrasts)"
    else:
        how = f"per-class values averaged ({req.average}) before the comparison"
    return {"average": str(req.average), "classes": f"{len(classes)} classes {few(classes)}: {how}"}


def frame_counts(
    req: Request, df: Any, fold: str, repeat: str | None, dims: list[str]
) -> tuple[xr.Dataset, int | None]:
    """The counts cube of a predictions frame, and which of its classes ``pos_label`` asks to
    compare against the rest (None: all; a frame with more than two labels keeps every class
    and the asked one is selected after, except for accuracy)."""
    pos = req.pos_label
    names = frame_reader.multilabel_names(df, req.cols["y_true"])
    if names is not None and pos is not None:
        raise ValueError(
            f"pos_label={pos!r} is for single-label frames; this frame is multilabel "
            f"({req.cols['y_true']}_<label> columns {few(names)}): compare the labels averaged "
            "(average='macro', 'micro', 'weighted'), per label (average=None), or a multilabel "
            f"metric ({', '.join(map(repr, metrics.by_kind('sample')))})."
        )
    if pos is not None:
        yt, yp = (df[req.cols[k]].to_numpy() for k in ("y_true", "y_pred"))
        pos = pos if len(_labels.universe(yt, yp)[0]) <= 2 else None
    kw = {k: req.cols[k] for k in ("y_true", "y_pred")}
    cube = build.counts_from_frame(df, pos_label=pos, fold=fold, repeat=repeat, dims=dims, **kw)
    classes = [_labels.plain(c) for c in cube[CLASS].values]
    if req.pos_label is None or len(classes) < 2 or whole(req.name):
        return cube, None
    asked = frame_reader.frame_pos_label(req.data, req.pos_label, None, classes)
    return cube, _labels.find(asked, classes)


def pairs(models: Sequence[Any], baseline: Any, dim: str) -> tuple[list[int], list[int]]:
    """Index pairs (a, b) of every contrast ``a - b``: each model vs ``baseline``, or all pairs."""
    if len(models) < 2:
        raise ValueError(
            f"dim={dim!r} holds {len(models)} {dim}(s) {few(models)}; a comparison needs at "
            "least two."
        )
    n = len(models)
    if baseline is None:
        both = [(j, i) for i in range(n) for j in range(i + 1, n)]
        return [a for a, _ in both], [b for _, b in both]
    plain = [_labels.plain(m) for m in models]
    hits = [i for i, m in enumerate(plain) if isinstance(m, str) == isinstance(baseline, str)]
    hits = [i for i in hits if plain[i] == baseline]
    if not hits:
        raise ValueError(
            f"baseline={baseline!r} is not a {dim} of the data; the {dim}s are {few(plain)}."
        )
    return [i for i in range(n) if i != hits[0]], [hits[0]] * (n - 1)


def diff(da: xr.DataArray, dim: str, ia: list[int], ib: list[int]) -> xr.DataArray:
    """``da[a] - da[b]`` of every contrast, along a new ``contrast`` dim."""
    a, b = (da.isel({dim: i}).drop_vars(dim, errors="ignore") for i in (ia, ib))
    return a.rename({dim: "contrast"}) - b.rename({dim: "contrast"})


#: The result's variables in this order first (the estimates, then the test), then the
#: test's own.
_ESTIMATES = ("difference", "mean", "low", "high", "effect_size")
_ORDER = (*_ESTIMATES, "statistic", "df", "p_value", "significant")


def result(res: Outcome, test: Test, req: Request) -> xr.Dataset:
    """The Dataset :func:`~cvframe.compare.compare` returns, with the attrs that say what it is."""
    out = res.out
    names = [k for k in _ORDER if k in out] + [k for k in out if k not in _ORDER]
    ds = xr.Dataset({k: out[k] for k in names})
    a, b = ([_labels.plain(res.models[i]) for i in side] for side in (res.ia, res.ib))
    contrast = np.array([f"{x} - {y}" for x, y in zip(a, b, strict=True)], dtype=object)
    coords = {req.dim: ("contrast", _labels.coord(a)), "baseline": ("contrast", _labels.coord(b))}
    ds = ds.assign_coords({"contrast": contrast, **coords})
    difference = f"{req.dim} - baseline (> 0: the {req.dim} scores higher)"
    ds.attrs = {
        "test": test.name,
        "metric": req.metric,
        "level": req.level,
        "difference": difference,
        "baseline": "all pairs" if req.baseline is None else str(req.baseline),
        "assumes": test.assumes,
        "reference": test.reference,
        **{k: "None" if v is None else v for k, v in res.info.items()},
    }
    # a difference says so wherever it goes (summary() copies these as result_*)
    tag = {"method": "difference", "metric": req.metric, "difference": difference}
    for name in ("difference", "mean", "low", "high"):
        if name in ds:
            ds[name].attrs = {**tag, "test": test.name}
    return ds
