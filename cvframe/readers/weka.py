"""WEKA's cross-validation outputs: the Experimenter's result file and ``-p`` predictions.

Two formats:

- ``"weka"``: the Experimenter's CSV result file (``weka.experiment.CSVResultListener``), one
  row per dataset x run x fold x scheme, with the confusion counts of the IR class that
  ``weka.experiment.ClassifierSplitEvaluator`` writes (``Num_true_positives``, ...).
  :func:`read_weka_experiment` turns it into the counts cube (dims ``dataset``, ``model``,
  ``repeat``, ``fold``). The Experimenter reports the **mean of the per-fold values** of each
  column (F_avg for ``F_measure``).
- ``"weka-predictions"``: the per-instance predictions of the command line (``-p 0``, with or
  without ``-distribution``; WEKA 3.6 prints a text table, newer WEKA the same columns with
  ``-classifications``). :func:`read_weka_predictions` returns the predictions frame; under
  cross-validation (``-x k``) the fold of each instance is where ``inst#`` restarts at 1.
  The Explorer's summary of a cross-validation is **pooled** over the folds (F_tp,fp).
"""

from __future__ import annotations

import csv
import os
import re
from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .._core import labels as _labels
from ..build import from_confusion, from_counts
from ..kappa import kappa
from . import _common
from ._common import ReaderError

__all__ = [
    "COLUMNS",
    "FORMATS",
    "PREDICTION_COLUMNS",
    "looks_like",
    "looks_like_experiment",
    "looks_like_prediction_text",
    "looks_like_predictions",
    "read_weka_experiment",
    "read_weka_predictions",
]

#: The key columns of the Experimenter's result file (any result producer and evaluator).
KEY_COLUMNS = ("Key_Dataset", "Key_Run", "Key_Fold", "Key_Scheme")
#: The dims of the Experimenter's counts cube, from its key columns.
KEYS = ("dataset", "model", "repeat", "fold")
#: The confusion counts of the IR class, written by ``ClassifierSplitEvaluator``.
COUNT_COLUMNS = {
    "tp": "Num_true_positives",
    "fp": "Num_false_positives",
    "tn": "Num_true_negatives",
    "fn": "Num_false_negatives",
}
#: The columns that identify the Experimenter's result file (format ``"weka"``).
COLUMNS = KEY_COLUMNS + tuple(COUNT_COLUMNS.values())
#: The columns that identify the ``-p`` prediction output (format ``"weka-predictions"``).
PREDICTION_COLUMNS = ("inst#", "actual", "predicted", "error")

_COUNTS_HINT = (
    "these columns are written by weka.experiment.ClassifierSplitEvaluator (the Experimenter's "
    "split evaluator for classifiers, with -C choosing the IR class); a "
    "RegressionSplitEvaluator result file has no confusion counts"
)
_KEYS_HINT = (
    "is this the Experimenter's result file (CSVResultListener, 'Results destination: CSV file')?"
)


def looks_like_experiment(df: pd.DataFrame) -> bool:
    """True when ``df`` has the key columns of WEKA's Experimenter result file.

    Examples
    --------
    >>> import pandas as pd
    >>> looks_like_experiment(pd.DataFrame(columns=["Key_Dataset", "Key_Run", "Key_Fold",
    ...                                             "Key_Scheme", "Percent_correct"]))
    True
    """
    return all(c in df.columns for c in KEY_COLUMNS)


def looks_like_predictions(df: pd.DataFrame) -> bool:
    """True when ``df`` has the columns of WEKA's ``-p`` prediction output.

    Examples
    --------
    >>> import pandas as pd
    >>> looks_like_predictions(pd.DataFrame(columns=["inst#", "actual", "predicted", "error"]))
    True
    """
    return all(c in df.columns for c in PREDICTION_COLUMNS)


def looks_like(df: pd.DataFrame) -> bool:
    """True when ``df`` is either WEKA format (Experimenter result file or ``-p`` predictions).

    Examples
    --------
    >>> import pandas as pd
    >>> looks_like(pd.DataFrame(columns=["pred", "obs", "Resample"]))
    False
    """
    return looks_like_experiment(df) or looks_like_predictions(df)


def _read_result_file(source: Any, what: str) -> pd.DataFrame:
    """The result file; WEKA quotes strings with ``'`` (``Key_Scheme_options``, ``Summary``)."""
    if isinstance(source, (str, os.PathLike)) and os.fspath(source).lower().endswith(".arff"):
        raise ReaderError(
            f"cannot read {what} {os.fspath(source)!r}: an ARFF file (InstancesResultListener); "
            "save the results as CSV (CSVResultListener, or 'CSV file' as the results "
            "destination in the Experimenter)."
        )
    return _common.read_table(source, what, quotechar="'", escapechar="\\")


def _two_classes(df: pd.DataFrame, ds: xr.Dataset) -> bool:
    """Whether the data had two classes: WEKA's ``Kappa_statistic`` is the kappa of the
    2 x 2 cube ``ds`` (folds in the order of ``df``'s rows). Without it, taken as two."""
    if "Kappa_statistic" not in df.columns:
        return True
    ours = kappa(ds, None, zero_division=0).transpose(*KEYS).values.ravel()
    theirs = pd.to_numeric(df["Kappa_statistic"], errors="coerce").to_numpy(float)
    return bool((np.isnan(theirs) | (np.abs(ours - theirs) < 1e-6)).all())


def _model_names(schemes: pd.Series, options: pd.Series, short: bool) -> pd.Series:
    opts = options.astype(object).where(options.notna(), "").astype(str)
    opts = opts.str.strip().str.strip("'").str.strip()
    names = schemes.astype(str).str.rsplit(".", n=1).str[-1] if short else schemes.astype(str)
    model = (names + " " + opts).str.strip()
    full = (schemes.astype(str) + " " + opts).str.strip()
    if short and model.nunique() != full.nunique():  # two packages' schemes share a name
        return full
    return model


def read_weka_experiment(
    source: Any,
    *,
    pos_label: Hashable = "positive",
    neg_label: Hashable = "negative",
    short_names: bool = True,
) -> xr.Dataset:
    r"""The counts cube of WEKA's Experimenter result file (one row per fold of a run).

    Each row's ``Num_true_positives``, ``Num_false_positives``, ``Num_true_negatives`` and
    ``Num_false_negatives`` (the IR class's counts of one test fold) become one cell of a
    binary cube with dims ``dataset`` (``Key_Dataset``), ``model`` (``Key_Scheme`` and
    ``Key_Scheme_options``), ``repeat`` (``Key_Run``) and ``fold`` (``Key_Fold``), keeping
    WEKA's 1-based run and fold numbers.

    Parameters
    ----------
    source : str, os.PathLike or pandas.DataFrame
        The CSV result file (``weka.experiment.CSVResultListener``; WEKA quotes strings with
        ``'``) or the already-read frame.
    pos_label : label, default "positive"
        The name of the IR class: the file does not say it. ``ClassifierSplitEvaluator``
        counts for class index ``-C`` (default 1: the **first** value of the class attribute
        in the ARFF header), so pass that value's name.
    neg_label : label, default "negative"
        The name of the other class, for the cube's 2 x 2 ``confusion`` variable (so that
        ``ds.cv.kappa`` works). When the file's ``Kappa_statistic`` shows that the data had
        more than two classes (it is not the kappa of the IR counts), the IR counts are
        one-vs-rest and the cube has no ``confusion`` (no kappa from it).
    short_names : bool, default True
        ``model`` as ``"NaiveBayes -K"`` (class name without package, then the options);
        ``False`` (or two schemes with the same short name) keeps the full class name.

    Returns
    -------
    xarray.Dataset
        The counts cube, ``attrs["source"] = "weka"``. Per fold,
        :math:`\mathrm{F} = 2TP/(2TP+FP+FN)` equals the file's ``F_measure`` and
        ``ds.cv.f_avg(dim="fold")`` averaged over the runs is the Experimenter's mean.

    Raises
    ------
    ReaderError
        A count column is missing (naming it and the evaluator that writes it), a key column
        is missing, a fold of some run/scheme/dataset has no row or no test instance, a key
        repeats, another tool's frame, an Excel or ARFF file.

    References
    ----------
    Hall, M. et al. (2009). The WEKA data mining software: an update. *SIGKDD Explorations*
    11(1), 10-18. Forman, G. & Scholz, M. (2010). Apples-to-apples in cross-validation
    studies. *SIGKDD Explorations* 12(1), 49-57.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"Key_Dataset": "d", "Key_Run": [1, 1], "Key_Fold": [1, 2],
    ...     "Key_Scheme": "weka.classifiers.bayes.NaiveBayes", "Key_Scheme_options": "",
    ...     "Num_true_positives": [3, 4], "Num_false_positives": [1, 0],
    ...     "Num_true_negatives": [5, 5], "Num_false_negatives": [1, 1]})
    >>> ds = read_weka_experiment(rows)
    >>> dict(ds.sizes)["fold"], ds.attrs["source"], str(ds.model.values[0])
    (2, 'weka', 'NaiveBayes')
    >>> round(float(ds.cv.f_tp_fp(dim="fold").squeeze()), 4)
    0.8235
    """
    what = "WEKA's Experimenter result file"
    df = _read_result_file(source, what)
    if looks_like_predictions(df) and not looks_like_experiment(df):
        raise ReaderError(
            f"{what} has the columns of WEKA's -p prediction output ({list(PREDICTION_COLUMNS)}); "
            "read it with read_weka_predictions."
        )
    _common.refuse_other(df, "weka", what, KEY_COLUMNS)
    _common.require(df, KEY_COLUMNS, what, _KEYS_HINT)
    _common.require(df, COUNT_COLUMNS.values(), what, _COUNTS_HINT)
    counts = df[list(COUNT_COLUMNS.values())].apply(pd.to_numeric, errors="coerce")
    cells = counts.isna() | (counts < 0) | (counts % 1 != 0)
    bad = cells.any(axis=1)
    if bad.any():
        col = cells.any().idxmax()
        raise ReaderError(
            f"{what}: column `{col}` has {int(bad.sum())} row(s) that are not counts "
            f"(missing, negative or fractional; first at row {int(np.flatnonzero(bad)[0])}): "
            "did the evaluation of that fold fail?"
        )
    options = df["Key_Scheme_options"] if "Key_Scheme_options" in df else pd.Series("", df.index)
    table = pd.DataFrame(
        {
            "dataset": df["Key_Dataset"].astype(str).to_numpy(),
            "model": _model_names(df["Key_Scheme"], options, short_names).to_numpy(),
            "repeat": pd.to_numeric(df["Key_Run"], errors="raise").astype(np.int64).to_numpy(),
            "fold": pd.to_numeric(df["Key_Fold"], errors="raise").astype(np.int64).to_numpy(),
            "class": pos_label,
        }
    )
    for name, col in COUNT_COLUMNS.items():
        table[name] = counts[col].astype(np.int64).to_numpy()
    keys = list(KEYS)
    dup = table.duplicated(keys, keep=False)
    if dup.any():
        first = table.loc[dup, keys].iloc[0].to_dict()
        raise ReaderError(
            f"{what} has {int(dup.sum())} rows sharing their keys (e.g. {first}): was the same "
            "experiment appended twice to the file?"
        )
    empty = (table[list(COUNT_COLUMNS)].sum(axis=1) == 0).to_numpy()
    if empty.any():
        first = table.loc[empty, keys].iloc[0].to_dict()
        raise ReaderError(
            f"{what}: {int(empty.sum())} fold row(s) have no test instances "
            f"(all four `Num_*` counts are 0, e.g. {first}); a fold without test instances "
            "is not a fold."
        )
    full = pd.MultiIndex.from_product([sorted(table[k].unique()) for k in keys], names=keys)
    missing = full.difference(pd.MultiIndex.from_frame(table[keys]))
    if len(missing):
        d, m, r, k = missing[0]
        raise ReaderError(
            f"{what}: {len(missing)} fold(s) have no row, e.g. Key_Fold={int(k)} of "
            f"Key_Run={int(r)} of {m!r} on Key_Dataset={d!r}: did the experiment stop early? "
            "Rerun it, or keep only the complete runs/schemes."
        )
    table = table.sort_values(keys)
    grid = table.set_index(keys)
    conf = np.stack(
        [np.stack([grid.tp, grid.fn], axis=-1), np.stack([grid.fp, grid.tn], axis=-1)], axis=-2
    ).reshape(*[len(v) for v in full.levels], 2, 2)
    coords = {k: list(v) for k, v in zip(keys, full.levels, strict=True)}
    arr = xr.DataArray(conf, dims=(*keys, "true", "pred"), coords=coords)
    ds = from_confusion(arr, [pos_label, neg_label], pos_label=pos_label)
    if not _two_classes(df.loc[table.index], ds):  # the IR counts are one-vs-rest: no 2 x 2
        ds = from_counts(table, task="binary", pos_label=pos_label)
    ds = ds.transpose(*KEYS, ...)
    ds.attrs["source"] = "weka"
    _labels.write_pos_label(ds, pos_label)
    return ds


# --- -p predictions --------------------------------------------------------------------------

_ROW = re.compile(
    r"^\s*(?P<inst>\d+)\s+(?P<actual>\S+)\s+(?P<predicted>\S+)\s+(?P<err>\+\s+)?(?P<dist>\S+)"
)


def looks_like_prediction_text(path: Any) -> bool:
    """True when the file at ``path`` is WEKA's ``-p`` text output (an ``inst#`` header line).

    WEKA 3.6 prints the predictions as a whitespace-aligned table, which no CSV reader
    parses: detect it by its header line before reading the file as CSV.

    Examples
    --------
    >>> looks_like_prediction_text("no/such/file.txt")
    False
    """
    if not isinstance(path, (str, os.PathLike)) or not os.path.isfile(path):
        return False
    head = _common.read_text(path).splitlines()[:50]
    return any(line.split()[:1] == ["inst#"] and "," not in line for line in head)


def _label(token: str) -> tuple[int, str]:
    if str(token).strip() == "?":
        raise ReaderError(
            "WEKA's -p output has a missing class value '?' in `actual` or `predicted`: "
            "unlabelled test instances (or no prediction) cannot be scored; drop those rows."
        )
    index, _, name = str(token).partition(":")
    if not index.isdigit() or not name:
        raise ReaderError(
            f"WEKA's -p output has a class value {token!r} that is not 'index:name' "
            "(e.g. '1:positive'): a regression scheme, or not the output of -p?"
        )
    return int(index), name


def _parse_text(text: str, what: str) -> pd.DataFrame:
    lines = text.splitlines()
    head = next((i for i, line in enumerate(lines) if line.split()[:1] == ["inst#"]), None)
    if head is None:
        raise ReaderError(
            f"{what} has no `inst#` header line: is this the output of a WEKA classifier run "
            "with -p 0 (e.g. java weka.classifiers.bayes.NaiveBayes -t data.arff -x 10 -p 0 "
            "-distribution)?"
        )
    rows = []
    for line in lines[head + 1 :]:
        if not line.strip():
            continue
        m = _ROW.match(line)
        if m is None:
            break
        rows.append((int(m["inst"]), m["actual"], m["predicted"], m["err"] and "+", m["dist"]))
    if not rows:
        raise ReaderError(f"{what} has an `inst#` header but no prediction rows.")
    return pd.DataFrame(rows, columns=[*PREDICTION_COLUMNS, "distribution"])


def _table(rows: list[list[str]]) -> pd.DataFrame:
    """WEKA's predictions table (header row first), the distribution's cells (one per class,
    the header padded or not) joined with commas into one ``distribution`` text per row."""
    names = ["" if c.startswith("Unnamed:") else c for c in (str(c).strip() for c in rows[0])]
    body = [r for r in rows[1:] if any(str(c).strip() for c in r)]
    k = next((i for i, c in enumerate(names) if c in ("distribution", "prediction")), None)
    if k is None:
        return pd.DataFrame([r[: len(names)] for r in body], columns=names)
    width = 1
    while k + width < len(names) and not names[k + width]:
        width += 1
    out = []
    for r in body:
        w = width + max(len(r) - len(names), 0)
        out.append([*r[:k], *[""] * (k - len(r)), ",".join(map(str, r[k : k + w]))])
    return pd.DataFrame(out, columns=[*names[:k], names[k]])


def _read_predictions_table(source: Any, what: str) -> pd.DataFrame:
    if isinstance(source, pd.DataFrame):
        return _table([list(source.columns), *source.astype(str).to_numpy().tolist()])
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        excel = os.path.splitext(path)[1].lower() in _common.EXCEL
        if os.path.isfile(path) and not (excel or _common.file_kind(path) == "excel"):
            text = _common.read_text(path)  # a byte-order mark or UTF-16 (Windows) too
            lines = text.splitlines()
            head = next((i for i, ln in enumerate(lines) if ln.startswith("inst#,")), None)
            if head is not None:  # -classifications ...CSV (WEKA >= 3.7)
                return _table(list(csv.reader(lines[head:])))
            return _parse_text(text, f"{what} {path!r}")
    return _common.read_table(source, what)


def _scores(dist: pd.Series, predicted: np.ndarray, n_classes: int) -> np.ndarray | None:
    """Per-row class probabilities (rows x classes), or None without -distribution."""
    parts = dist.astype(str).str.replace("*", "", regex=False).str.split(",")
    width = parts.map(len)
    if (width == 1).all():  # -p without -distribution: the predicted class's probability
        if n_classes != 2:
            return None
        p = pd.to_numeric(parts.str[0], errors="coerce").to_numpy(float)
        out = np.empty((len(p), 2))
        first = predicted == 1
        out[:, 0] = np.where(first, p, 1 - p)
        out[:, 1] = 1 - out[:, 0]
        return out
    if width.nunique() != 1:
        raise ReaderError("WEKA's -p output: the `distribution` rows have different lengths.")
    values = pd.to_numeric(pd.Series(np.concatenate(parts.to_list())), errors="coerce")
    if values.isna().any():
        bad = dist[parts.map(lambda r: pd.to_numeric(pd.Series(r), errors="coerce").isna().any())]
        raise ReaderError(
            f"WEKA's -p output has a `distribution` {bad.iloc[0]!r} that is not numbers "
            "(one probability per class, comma-separated): was the file edited?"
        )
    probs = values.to_numpy(float).reshape(len(parts), -1)
    names = [f"distribution[{k}]" for k in range(probs.shape[1])]
    _common.check_rows_sum_to_one(probs, names, "WEKA's -p output")
    return probs


def read_weka_predictions(
    source: Any,
    fold: Any = None,
    *,
    repeat: Any = None,
    pos_label: Hashable | None = None,
    model: str | None = None,
    dataset: str | None = None,
) -> pd.DataFrame:
    r"""The predictions frame of WEKA's per-instance output (``-p 0 [-distribution]``).

    Parameters
    ----------
    source : str, os.PathLike, pandas.DataFrame, or a list of them
        The saved standard output of a classifier run with ``-p 0`` (WEKA 3.6 text table
        ``inst# actual predicted error distribution``), the CSV of newer WEKA's
        ``-classifications weka.classifiers.evaluation.output.prediction.CSV``, a frame with
        those columns, or a list of per-fold outputs (fold ``1, 2, ...`` in list order, or
        the labels given as ``fold``).
    fold : label, sequence of labels or None
        ``None``: the output of a cross-validation (``-x k``), whose ``inst#`` restarts at 1
        with every test fold; the folds are numbered 1..k in WEKA's order. A label: the one
        test set of a ``-T`` run (an error if ``inst#`` restarts). A sequence: one label per
        source of a list.
    repeat : label, optional
        Adds a ``repeat`` column (e.g. the ``-s`` seed), to stack several runs.
    pos_label : label, optional
        The positive class; default the first class value (index 1), WEKA's IR class.
    model, dataset : str, optional
        Add ``model`` / ``dataset`` columns.

    Returns
    -------
    pandas.DataFrame
        ``fold``, [``repeat``,] ``y_true``, ``y_pred``, ``score`` (binary: the probability
        of ``pos_label``) or ``score_<label>`` per class (multiclass, with
        ``-distribution``), and ``inst`` (WEKA's ``inst#``); ``attrs["source"] = "weka"``
        and ``attrs["pos_label"]``. The Explorer's summary of the same run equals the
        pooled numbers: ``frame.cv.counts().cv.f_tp_fp()`` is its F-Measure.

    Raises
    ------
    ReaderError
        No ``inst#`` header/rows, a class value not ``index:name``, ``fold`` given for an
        output holding several folds, another tool's frame, an Excel file.

    References
    ----------
    Witten, I. H., Frank, E. & Hall, M. A. (2011). *Data Mining: Practical Machine Learning
    Tools and Techniques*, 3rd ed., section 11.1 (command-line options ``-p``, ``-x``).

    Examples
    --------
    >>> import io
    >>> text = '''
    ... === Predictions under cross-validation ===
    ...
    ...  inst#     actual  predicted error distribution
    ...      1 1:positive 1:positive       *0.9,0.1
    ...      2 2:negative 1:positive   +   *0.6,0.4
    ...      1 1:positive 2:negative   +   0.3,*0.7
    ...      2 2:negative 2:negative       0.2,*0.8
    ... '''
    >>> frame = read_weka_predictions(io.StringIO(text))
    >>> frame[["fold", "y_true", "y_pred", "score"]].values.tolist()[1]
    [1, 'negative', 'positive', 0.6]
    >>> frame.attrs["pos_label"]
    'positive'
    """
    what = "WEKA's -p output"
    if isinstance(source, (list, tuple)):
        labels = list(range(1, len(source) + 1)) if fold is None else list(fold)
        if len(labels) != len(source):
            raise ValueError(f"fold has {len(labels)} labels for {len(source)} sources.")
        if not source:
            raise ReaderError(f"{what}: no sources given (an empty list has no folds).")
        parts = [
            read_weka_predictions(s, f, repeat=repeat, pos_label=pos_label, model=model,
                                  dataset=dataset)
            for s, f in zip(source, labels, strict=True)
        ]  # fmt: skip
        seen = {tuple(p.attrs["classes"]) for p in parts}
        if len(seen) != 1:
            raise ReaderError(f"{what}: the per-fold outputs have different classes {seen}.")
        joined = pd.concat(parts, ignore_index=True)
        joined.attrs = dict(parts[0].attrs)
        return joined
    if hasattr(source, "read"):
        df = _parse_text(source.read().removeprefix("\ufeff"), what)
    else:
        df = _read_predictions_table(source, what)
    if looks_like_experiment(df):
        raise ReaderError(
            f"{what}: this is the Experimenter's result file (`Key_Run`, `Key_Fold` columns); "
            "read it with read_weka_experiment."
        )
    _common.refuse_other(df, "weka", what, PREDICTION_COLUMNS)
    _common.require(df, ("inst#", "actual", "predicted"), what, "was -p 0 given to the classifier?")
    if df.empty:
        raise ReaderError(f"{what} has no prediction rows.")
    actual = [_label(t) for t in df["actual"]]
    predicted = [_label(t) for t in df["predicted"]]
    names: dict[int, str] = {}
    for index, name in actual + predicted:
        if names.setdefault(index, name) != name:
            raise ReaderError(
                f"{what}: class index {index} has two names {names[index]!r}, {name!r}."
            )
    inst = pd.to_numeric(df["inst#"], errors="raise").to_numpy(np.int64)
    starts = np.r_[True, inst[1:] <= inst[:-1]]
    n_folds = int(starts.sum())
    if fold is None:
        folds = np.cumsum(starts).astype(np.int64)
    else:
        if n_folds > 1:
            raise ReaderError(
                f"{what} holds {n_folds} test folds (`inst#` restarts {n_folds - 1} times) but "
                f"fold={fold!r} names one: pass fold=None to number them 1..{n_folds}."
            )
        folds = np.full(len(df), fold, dtype=object)
    dist_col = next((c for c in ("distribution", "prediction") if c in df.columns), None)
    pred_index = np.array([i for i, _ in predicted])
    n_classes = max(names)
    probs = None
    if dist_col is not None:
        probs = _scores(df[dist_col], pred_index, n_classes)
        if probs is not None:
            n_classes = max(n_classes, probs.shape[1])
    classes = [names.get(i, str(i)) for i in range(1, n_classes + 1)]
    task = "binary" if len(classes) == 2 else "multiclass"
    pos = _common.positive_class(pos_label, classes, task, what, arg="pos_label")
    out: dict[str, Any] = {"fold": folds}
    if repeat is not None:
        out["repeat"] = repeat
    out["y_true"] = pd.Categorical([n for _, n in actual], categories=classes)
    out["y_pred"] = pd.Categorical([n for _, n in predicted], categories=classes)
    rest = {"model": model, "dataset": dataset, "inst": inst}
    scores = {} if probs is None else dict(zip(classes, probs.T, strict=True))
    rest = {k: v for k, v in rest.items() if v is not None}
    return _common.predictions(
        out, scores, classes, pos, rest, source="weka", task=task, classes=classes
    )


#: Format name -> (detector, reader), for :func:`cvframe.readers.detect` and ``read``.
FORMATS = {
    "weka": (looks_like_experiment, read_weka_experiment),
    "weka-predictions": (looks_like_predictions, read_weka_predictions),
}
