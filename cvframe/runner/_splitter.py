"""The target and the splits of a run.

``y`` is read once (task, class universe in class order, positive class, what is fitted)
through :mod:`cvframe._core.labels`, the policy :func:`cvframe.from_predictions` and the score
functions use. An ``int`` cv is k-fold (stratified or not, repeated with a seed); a splitter
object is used as given; a list of (train, test) pairs is a splitter of its own. The splits
are drawn once and checked, so every model and candidate of the run is fit on the same ones.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._core import labels as _labels
from ..errors import few
from ..splits import Bootstrap, multilabel_kfold


class Target:
    """The validated ``y`` of :func:`cvframe.cross_validate`.

    Attributes: ``task`` (``"binary"``, ``"multiclass"`` or ``"multilabel"``), ``labels``
    (the class universe in class order), ``pos_label`` (binary only), ``series`` (1-D labels
    as given, for ``y_true``) and ``fit_y`` (what the estimator is fitted on and the splitter
    stratifies on). Numbers that look like a regression target (more than 10 distinct
    integers, some in fewer than 5 samples: :func:`_check_not_regression`) are refused before
    any split is drawn.
    """

    def __init__(self, y: Any, n: int, pos_label: Hashable | None) -> None:
        if y is None:
            raise ValueError("y is None; cross_validate needs the class label of every sample.")
        self.series: pd.Series | None = None
        if hasattr(y, "toarray"):  # sparse indicator matrix
            y = y.toarray()
        if isinstance(y, pd.DataFrame) and y.shape[1] > 1:
            self._init_multilabel(y.to_numpy(), list(y.columns), n, pos_label)
            return
        original = y.iloc[:, 0] if isinstance(y, pd.DataFrame) else y
        values = _labels.as_labels(y, "y", allow_2d=True)
        if getattr(values, "ndim", 1) == 2:
            self._init_multilabel(np.asarray(values), list(range(values.shape[1])), n, pos_label)
            return
        if len(values) != n:
            raise ValueError(
                f"X has {n} samples but y has {len(values)}; they must have the same length "
                "(one label per row of X)."
            )
        values = _plain_array(values)
        _check_classes(values)
        if isinstance(values, pd.Categorical):  # its categories are the class universe
            labels, from_data = _labels.universe(values)
            used = np.bincount(values.codes, minlength=len(labels)) > 0
            present = [c for c, u in zip(labels, used, strict=True) if u]
        else:
            labels, from_data = _labels.merge([_labels.observed(values, "y")], "y"), True
            present = labels
        if len(present) < 2:
            raise ValueError(
                f"y has a single class {few(present)}; a classifier needs at least two "
                "(check that y is the class column and that no filter dropped the others)."
            )
        self.labels = list(labels)
        self.task = "binary" if len(labels) == 2 else "multiclass"
        cat = isinstance(values, pd.Categorical)
        if isinstance(original, pd.Series) and len(original) == n and not cat:
            self.series = original.reset_index(drop=True)
        else:
            self.series = pd.Series(values)
        # a Categorical fits on its values' own dtype (int categories stay ints for sklearn)
        self.fit_y = (
            values
            if isinstance(values, np.ndarray)
            else np.asarray(values, dtype=None if cat else object)
        )
        self.pos_label = None
        if pos_label is not None:
            self.pos_label = _labels.binary_pos(self.labels, from_data, pos_label)
        elif self.task == "binary":  # {0, 1}: 1, {False, True}: True, else the last label
            try:
                pos = _labels.binary_pos(self.labels, True, None)
            except ValueError:
                pos = None
            self.pos_label = self.labels[-1] if pos is None else pos

    def _init_multilabel(
        self, arr: np.ndarray, names: list[Any], n: int, pos_label: Hashable | None
    ) -> None:
        _labels.binary_pos([], False, pos_label, multilabel=True)  # pos_label refused
        if arr.shape[0] != n:
            raise ValueError(
                f"X has {n} samples but y has {arr.shape[0]}; they must have the same length "
                "(one label row per row of X)."
            )
        if pd.isna(arr).any():
            raise ValueError(
                f"y has {int(pd.isna(arr).sum())} missing entries; a multilabel indicator "
                "must be 0/1 everywhere."
            )
        vals = np.unique(arr)
        if not set(vals.tolist()) <= {0, 1}:
            raise ValueError(
                f"2-D y must be a 0/1 indicator array for multilabel data; it holds "
                f"{few(v for v in vals if v not in (0, 1))}."
            )
        self.task = "multilabel"
        self.labels = [_labels.plain(c) for c in names]
        self.fit_y = arr.astype(np.int64)
        self.series = None
        self.pos_label = None


def _plain_array(values: Any) -> Any:
    """Labels as scikit-learn's splitters read them: an object array of numbers only as a
    numeric array (else its target type is "unknown" to scikit-learn); bytes, which
    scikit-learn refuses, are an error that says to decode them."""
    if not isinstance(values, np.ndarray):
        return values
    if values.dtype.kind == "S" or (
        values.dtype.kind == "O" and len(values) and isinstance(values[0], bytes)
    ):
        raise ValueError(
            f"y holds bytes labels ({few(pd.unique(values.astype(object))[:3])}), which "
            "scikit-learn's classifiers do not take; decode them first, e.g. "
            "np.char.decode(y) or [v.decode() for v in y]."
        )
    if values.dtype.kind == "O" and len(values):
        kind = pd.api.types.infer_dtype(values, skipna=False)
        if kind in ("integer", "floating", "mixed-integer-float", "boolean"):
            return np.asarray(values.tolist())
    return values


def _check_classes(values: Any) -> None:
    """No missing labels, and labels that are classes, not measurements: neither continuous
    nor a regression target of whole numbers (:func:`_check_not_regression`)."""
    miss = np.asarray(pd.isna(values), dtype=bool)
    if miss.any():
        raise ValueError(
            f"y has {int(miss.sum())} missing labels (None/NaN/NA) at positions "
            f"{few(np.flatnonzero(miss))}; drop those samples or give them a label."
        )
    floats = isinstance(values, np.ndarray) and values.dtype.kind == "f"
    if floats and not np.all(values == np.round(values)):
        bad = values[values != np.round(values)]
        raise ValueError(
            f"y looks continuous: a continuous target ({len(np.unique(values))} distinct "
            f"values, e.g. {few(np.unique(bad))}), not class labels; cross_validate evaluates "
            "classifiers: pass class labels (a regression target needs a regression "
            "evaluation, e.g. scikit-learn's cross_val_score with a regressor)."
        )
    if isinstance(values, np.ndarray) and values.dtype.kind == "O":
        _labels.check_classes(values, "y")  # floats among objects
    _check_not_regression(values)


#: More distinct numbers than this may be a count or a measurement (digits' 10 classes are not).
MAX_NUMERIC_CLASSES = 10
#: A class needs this many samples to be tested in every fold of 5-fold cross-validation.
MIN_CLASS_SIZE = 5


def _check_not_regression(values: Any) -> None:
    """Refuse integer-valued numbers that look like a regression target, not class labels.

    The rule: ``y`` holds numbers (an integer or integer-valued float array; not bool,
    strings or a pandas Categorical), more than :data:`MAX_NUMERIC_CLASSES` distinct values,
    and at least one of them in fewer than :data:`MIN_CLASS_SIZE` samples. A count or a
    measurement (Poisson counts, ages, prices) has rare values in its tails; class codes of
    a real many-class task (digits' 10, or 20 classes of 30 samples) do not. scikit-learn's
    ``type_of_target`` calls any integer-valued ``y`` ``"multiclass"``, so a count would
    otherwise be split by stratified folds as if each number were a class. Class codes that
    break the rule are passed as strings (``y.astype(str)``); labels that are not numbers
    (strings, a Categorical) are never taken for a regression target.
    """
    if not isinstance(values, np.ndarray) or values.dtype.kind not in "iuf":
        return
    numbers, sizes = np.unique(values, return_counts=True)
    rare = sizes < MIN_CLASS_SIZE
    if len(numbers) <= MAX_NUMERIC_CLASSES or not rare.any():
        return
    raise ValueError(
        f"y looks like a regression target ({len(numbers)} distinct numeric values, all "
        f"integers from {numbers[0]} to {numbers[-1]}; {int(rare.sum())} of them in fewer "
        f"than {MIN_CLASS_SIZE} samples: {few(numbers[rare])}), not a classification target: "
        "cross_validate evaluates classifiers of class labels, and a regression target (a "
        "count or a measurement) needs a regression evaluation (e.g. scikit-learn's "
        "cross_val_score with a regressor). The rule: numbers with more than "
        f"{MAX_NUMERIC_CLASSES} distinct values, some in fewer than {MIN_CLASS_SIZE} samples. "
        "If they are class codes, pass them as strings (y.astype(str))."
    )


def many_classes_hint(target: Target) -> str:
    """A hint when ``y`` looks like a count or measurement rather than class labels."""
    if target.task != "multiclass" or len(target.labels) <= 10:
        return ""
    numeric = all(
        isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
        for v in target.labels
    )
    if not numeric:
        return ""
    return (
        f" y has {len(target.labels)} distinct numeric values ({few(target.labels)}): if it "
        "is a count or a measurement (a regression target), cross_validate is the wrong "
        "tool; it evaluates classifiers of class labels."
    )


#: scikit-learn splitters by name (their subclasses count): whether their folds stratify.
STRATIFIED_SPLITTERS = frozenset(
    "StratifiedKFold RepeatedStratifiedKFold StratifiedShuffleSplit StratifiedGroupKFold "
    "MultilabelStratifiedKFold RepeatedMultilabelStratifiedKFold "
    "MultilabelStratifiedShuffleSplit".split()
)
UNSTRATIFIED_SPLITTERS = frozenset(
    "KFold RepeatedKFold ShuffleSplit GroupKFold GroupShuffleSplit LeaveOneOut LeavePOut "
    "LeaveOneGroupOut LeavePGroupsOut PredefinedSplit TimeSeriesSplit".split()
)


def make_splitter(
    cv: Any, repeats: Any, stratified: bool, random_state: Any, target: Target
) -> tuple[Any, str]:
    """The splitter ``cv`` means and whether it stratifies (``"yes"``, ``"no"``, ``"unknown"``)."""
    from sklearn import model_selection as ms

    if isinstance(repeats, bool) or not isinstance(repeats, (int, np.integer)) or repeats < 1:
        raise ValueError(f"repeats={repeats!r} is not valid; pass a positive integer.")
    if isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
        seed = isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool)
        if not (
            random_state is None
            or isinstance(random_state, np.random.RandomState)
            or (seed and 0 <= random_state < 2**32)
        ):
            raise ValueError(
                f"random_state={random_state!r} is not valid; pass an int seed (0 to 2**32 - 1), "
                "a numpy.random.RandomState or None (scikit-learn's splitters take no numpy "
                "Generator)."
            )
        if cv < 2:
            raise ValueError(
                f"cv={cv!r} is not valid; k-fold needs at least 2 folds (cv=10 is usual)."
            )
        if stratified and target.task == "multilabel":  # iterative stratification
            splitter = multilabel_kfold(int(cv), int(repeats), random_state=random_state)
            return splitter, "yes"
        if repeats > 1:
            cls = ms.RepeatedStratifiedKFold if stratified else ms.RepeatedKFold
            splitter = cls(n_splits=int(cv), n_repeats=int(repeats), random_state=random_state)
        else:
            cls = ms.StratifiedKFold if stratified else ms.KFold
            seeded = {} if random_state is None else {"shuffle": True, "random_state": random_state}
            splitter = cls(n_splits=int(cv), **seeded)
        strat = "yes" if stratified else "no"
    elif isinstance(cv, (list, tuple)):
        _reject_extras(cv, repeats, random_state)
        splitter, strat = PairsSplitter(cv), "unknown"
    elif not isinstance(cv, str) and callable(getattr(cv, "split", None)):
        _reject_extras(cv, repeats, random_state)
        names = {c.__name__ for c in type(cv).__mro__}  # subclasses count
        strat = "no" if isinstance(cv, Bootstrap) or names & UNSTRATIFIED_SPLITTERS else "unknown"
        splitter, strat = cv, "yes" if names & STRATIFIED_SPLITTERS else strat
        if strat == "yes" and not stratified:
            raise ValueError(
                f"stratified=False contradicts cv={splitter_repr(cv)}, a stratified "
                "splitter; pass its unstratified counterpart (e.g. KFold) instead."
            )
    else:
        raise TypeError(
            f"cv={cv!r} is neither an int nor a splitter: it has no split(X, y, groups) "
            "method. Pass an int (number of folds), a scikit-learn splitter such as "
            "StratifiedKFold(10), or a list of (train, test) index pairs."
        )
    # a class with fewer samples than stratified folds cannot be in every test fold
    k = splitter.n_splits if isinstance(splitter, ms.StratifiedKFold) else None
    if isinstance(splitter, ms.RepeatedStratifiedKFold):
        k = splitter.cvargs.get("n_splits", 5)
    if k is None or target.series is None:  # multilabel y has no series
        return splitter, strat
    counts = target.series.value_counts()
    counts = counts[counts > 0]  # unused categories are no samples to stratify
    small = counts[counts < k]
    if len(small):
        fewer = (
            f"Use fewer folds (cv={int(counts.min())}), or the" if counts.min() >= 2 else "Use the"
        )
        raise ValueError(
            f"class(es) {few(small.index.tolist())} have only {few(small.tolist())} samples, "
            f"fewer than the {k} stratified folds, so stratification cannot put them in "
            f"every test fold. {fewer} unstratified splitter (stratified=False, or "
            "cv=KFold(...)) and let cvframe count the folds without that class under its "
            "zero_division policy." + many_classes_hint(target)
        )
    return splitter, strat


def _reject_extras(cv: Any, repeats: Any, random_state: Any) -> None:
    if repeats != 1:
        raise ValueError(
            f"repeats={repeats} applies to an int cv only; with cv={splitter_repr(cv)} use a "
            "repeated splitter, e.g. RepeatedStratifiedKFold(n_splits=10, n_repeats="
            f"{repeats})."
        )
    if random_state is not None:
        raise ValueError(
            f"random_state={random_state!r} applies to an int cv only; set the splitter's own "
            "random_state instead."
        )


class PairsSplitter:
    """A list of (train, test) index pairs as a splitter."""

    def __init__(self, pairs: Sequence[Any]) -> None:
        self.pairs = list(pairs)

    def split(self, X: Any, y: Any = None, groups: Any = None) -> Any:
        for i, pair in enumerate(self.pairs):
            if not (isinstance(pair, (list, tuple)) and len(pair) == 2):
                raise ValueError(
                    f"cv[{i}] is {type(pair).__name__}; a list cv must hold (train, test) "
                    "index pairs."
                )
            yield np.asarray(pair[0]), np.asarray(pair[1])

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        return len(self.pairs)

    def __repr__(self) -> str:
        return f"list of {len(self.pairs)} (train, test) pairs"


def splitter_repr(cv: Any) -> str:
    """The splitter on one line, as ``attrs["splitter"]`` and messages show it."""
    if isinstance(cv, (list, tuple)):
        return repr(PairsSplitter(cv))
    return " ".join(repr(cv).split())


def check_groups(groups: Any, n: int) -> np.ndarray | None:
    """``groups`` as one label per sample (None stays None), else a ValueError naming it."""
    if groups is None:
        return None
    g = np.asarray(groups)
    if g.ndim != 1 or len(g) != n:
        raise ValueError(
            f"groups has shape {g.shape} but X has {n} samples; pass one group label per sample."
        )
    miss = np.asarray(pd.isna(g), dtype=bool)
    if miss.any():
        raise ValueError(
            f"groups has {int(miss.sum())} missing values at positions "
            f"{few(np.flatnonzero(miss))}; every sample needs a group label."
        )
    return g


def splits(
    splitter: Any, X: Any, target: Target, groups: Any
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (train, test) index pairs of ``splitter``, checked: integer indices inside ``X``."""
    from sklearn.model_selection._split import GroupsConsumerMixin

    name = splitter_repr(splitter)
    by_group = isinstance(splitter, GroupsConsumerMixin)
    if groups is None and by_group:
        raise ValueError(
            f"cv={name} splits by group and needs groups=: pass one group label per sample "
            "(e.g. the patient or subject id), or use a splitter without groups."
        )
    # splitters known to ignore groups: scikit-learn's, cvframe's and a list of pairs
    ignores = isinstance(splitter, (PairsSplitter, Bootstrap))
    ignores |= type(splitter).__module__.startswith("sklearn.")
    if groups is not None and not by_group and ignores:
        raise ValueError(
            f"groups= is given but cv={name} does not split by group, so samples of one group "
            "would be in both training and test sets. Pass a group splitter (e.g. "
            "GroupKFold(5) or StratifiedGroupKFold(5)) as cv, or drop groups=."
        )
    try:
        pairs = [
            (np.asarray(tr), np.asarray(te)) for tr, te in splitter.split(X, target.fit_y, groups)
        ]
    except ValueError as err:
        hint = _hint(str(err)) + many_classes_hint(target)
        raise ValueError(f"cv={name} could not split the data: {err}{hint}") from err
    if not pairs:
        raise ValueError(f"cv={name} produced no splits; nothing to cross-validate.")
    n = len(target.fit_y)
    for i, (tr, te) in enumerate(pairs):
        for what, idx in (("train", tr), ("test", te)):
            if idx.size and idx.dtype.kind not in "iu":
                kind = "a boolean mask" if idx.dtype.kind == "b" else f"{idx.dtype} values"
                raise ValueError(
                    f"split {i} of cv={name} gives {what} {kind} ({few(idx)}); splits must be "
                    "integer index arrays (np.flatnonzero(mask) turns a mask into one)."
                )
            if idx.size and (idx.min() < 0 or idx.max() >= n):
                bad = idx[(idx < 0) | (idx >= n)]
                raise ValueError(
                    f"split {i} of cv={name} has {what} indices {few(bad)} outside "
                    f"0..{n - 1}; splits must index the rows of X."
                )
        if tr.size == 0:
            raise ValueError(f"split {i} of cv={name} has an empty training set.")
    return pairs


def _hint(msg: str) -> str:
    """What to do about a splitter's own ValueError."""
    if "class" in msg or "member" in msg:
        return (
            " A class is too small for this stratified splitter: use fewer splits or "
            "an unstratified splitter (stratified=False, KFold, ShuffleSplit)."
        )
    if "groups" in msg:
        return " Pass groups= (one group label per sample)."
    if "multilabel" in msg or "target types" in msg:
        return " Use an unstratified splitter (e.g. KFold) for multilabel y."
    return ""


def n_repeats(splitter: Any, n_splits: int) -> int:
    """How many repeats ``n_splits`` splits of ``splitter`` are.

    A splitter with an ``n_repeats`` attribute (scikit-learn's ``Repeated*``) that divides
    ``n_splits`` makes split ``i`` repeat ``i // (n_splits / n_repeats)``; every other
    splitter is one repeat.

    Parameters
    ----------
    splitter : object
        The splitter that produced the splits.
    n_splits : int
        How many splits it produced.

    Returns
    -------
    int

    Examples
    --------
    >>> from sklearn.model_selection import KFold, RepeatedKFold
    >>> n_repeats(RepeatedKFold(n_splits=5, n_repeats=3), 15), n_repeats(KFold(5), 5)
    (3, 1)
    """
    r = getattr(splitter, "n_repeats", None)
    if isinstance(r, (int, np.integer)) and r >= 1 and n_splits % r == 0:
        return int(r)
    return 1


def partition_kind(pairs: list[tuple[np.ndarray, np.ndarray]], n_rep: int, n: int) -> str:
    """``"partition"``, ``"disjoint"`` or ``"overlapping"``: how often a repeat tests a sample."""
    per = len(pairs) // n_rep
    times = np.zeros((n_rep, n), dtype=np.int64)
    for i, (_, te) in enumerate(pairs):
        np.add.at(times[i // per], te, 1)
    return (
        "partition" if (times == 1).all() else "disjoint" if (times <= 1).all() else "overlapping"
    )


def unstratified(pairs: list[tuple[np.ndarray, np.ndarray]], target: Target) -> list[Any]:
    """The classes (labels of a multilabel ``y``) that some test set holds no positive of,
    though the data have some: a stratified splitter could not spread them over the folds
    (fewer positives than folds, or iterative stratification balancing the other labels).

    >>> t = Target(np.array([0, 0, 1, 1, 0, 0]), 6, None)
    >>> unstratified([(np.arange(3, 6), np.arange(3)), (np.arange(3), np.arange(3, 6))], t)
    []
    >>> unstratified([(np.arange(2, 6), np.arange(2)), (np.arange(2), np.arange(2, 6))], t)
    [1]
    """
    if target.task == "multilabel":
        y = np.asarray(target.fit_y, dtype=np.int64)
    else:
        codes = _labels.codes(np.asarray(target.series), target.labels, "y")
        y = np.eye(len(target.labels), dtype=np.int64)[np.asarray(codes, dtype=np.intp)]
    has = y.sum(axis=0) > 0
    lacking = np.zeros(y.shape[1], dtype=bool)
    for _, test in pairs:
        if test.size:
            lacking |= (y[test].sum(axis=0) == 0) & has
    return [label for label, bad in zip(target.labels, lacking, strict=True) if bad]


def check_multilabel_models(models: Any, target: Target) -> None:
    """Refuse, before any fit, a model that cannot fit a multilabel ``y`` (scikit-learn's
    ``target_tags.multi_output`` is False, e.g. ``LogisticRegression``), naming the wrapper
    that can. Older scikit-learn without estimator tags: nothing is checked here."""
    if target.task != "multilabel":
        return
    try:
        from sklearn.utils import get_tags
    except ImportError:  # scikit-learn < 1.6
        return
    bad = []
    for name, est in models:
        try:
            multi = get_tags(est).target_tags.multi_output
        except Exception:  # not a scikit-learn estimator: its own fit decides
            continue
        if not multi:
            bad.append(name if name is not None else type(est).__name__)
    if bad:
        raise ValueError(
            f"estimator(s) {few(bad)} cannot fit a multilabel y ({len(target.labels)} 0/1 "
            "label columns): wrap each in sklearn.multioutput.MultiOutputClassifier(...) "
            "(one model per label) or ClassifierChain(...), or use a model that fits "
            "several labels (KNeighborsClassifier, RandomForestClassifier, MLPClassifier)."
        )
