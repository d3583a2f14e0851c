"""Splitters that scikit-learn does not ship: :class:`Bootstrap`, the out-of-bag bootstrap,
with the scikit-learn splitter interface (``split``, ``get_n_splits``), so it works with
:func:`cvframe.cross_validate` and with scikit-learn's own ``cross_val_score``; and
:func:`multilabel_kfold`, folds that stratify every label of a multilabel ``y`` (iterative
stratification, from the ``iterative-stratification`` package)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

__all__ = ["Bootstrap", "multilabel_kfold", "n_samples"]


class Bootstrap:
    """Out-of-bag bootstrap splitter with the scikit-learn splitter interface.

    Each split draws ``n`` training indices uniformly **with replacement** from the ``n``
    samples (duplicates kept, so the training set has size ``n`` and repeats some samples);
    the test set is the out-of-bag samples, those never drawn. The chance that a sample is
    out of bag is ``(1 - 1/n)**n``, about ``e**-1 = 0.368``, so a test set holds about 36.8%
    of the data and the training set about 63.2% distinct samples.

    Parameters
    ----------
    n_splits : int, default 200
        Number of bootstrap draws (splits), ``>= 1``.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None
        Seed of the draws. With an int, ``split`` returns the same splits every time it is
        called on the same data; with a Generator/RandomState each call continues its
        stream, and with ``None`` every call draws afresh (as scikit-learn's
        ``ShuffleSplit(random_state=None)``).

    Notes
    -----
    A draw whose out-of-bag set is empty (every sample drawn at least once; probability about
    ``n * e**-n``, i.e. only for tiny ``n``) is redrawn, since a split without test samples
    cannot be evaluated; the splits are therefore bootstrap samples conditioned on a
    non-empty out-of-bag set. ``n`` must be at least 2.

    Unlike k-fold, the test sets of different splits overlap, so :func:`cvframe.cross_validate`
    records each split as its own ``fold`` (``repeat`` 0): pooling over folds then counts a
    sample once per split in which it was out of bag, never silently merged.

    The training-set error on the bootstrap sample as drawn (duplicates counted) and the
    out-of-bag test error combine into the .632 estimate
    (:func:`cvframe.bootstrap.bootstrap_632`).

    References
    ----------
    Efron, B. & Tibshirani, R. (1997). Improvements on cross-validation: the .632+ bootstrap
    method. JASA 92(438), 548-560.

    Examples
    --------
    >>> import numpy as np
    >>> from cvframe.splits import Bootstrap
    >>> bs = Bootstrap(n_splits=3, random_state=0)
    >>> bs.get_n_splits()
    3
    >>> X = np.zeros((10, 1))
    >>> train, test = next(bs.split(X))
    >>> len(train), bool(np.isin(test, train).any())
    (10, False)
    >>> sorted(set(train) | set(test)) == list(range(10))
    True

    It plugs into scikit-learn directly:

    >>> from sklearn.datasets import load_iris
    >>> from sklearn.model_selection import cross_val_score
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> scores = cross_val_score(DecisionTreeClassifier(random_state=0), X, y,
    ...                          cv=Bootstrap(5, random_state=0))
    >>> scores.shape
    (5,)
    """

    def __init__(self, n_splits: int = 200, random_state: Any = None) -> None:
        self.n_splits = n_splits
        self.random_state = random_state

    def __repr__(self) -> str:
        return f"Bootstrap(n_splits={self.n_splits!r}, random_state={self.random_state!r})"

    # scikit-learn's clone / get_params support, so Bootstrap can sit inside meta-estimators.
    def get_params(self, deep: bool = True) -> dict[str, Any]:
        return {"n_splits": self.n_splits, "random_state": self.random_state}

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        """Return the number of splits, ``n_splits``."""
        self._check_n_splits()
        return int(self.n_splits)

    def split(
        self, X: Any, y: Any = None, groups: Any = None
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(train, test)`` index arrays, one pair per bootstrap draw.

        ``train`` has ``n`` indices drawn with replacement (duplicates kept, in draw order);
        ``test`` holds the out-of-bag indices in increasing order. ``y`` and ``groups`` are
        accepted for interface compatibility and ignored.
        """
        self._check_n_splits()
        n = n_samples(X)
        if n < 2:
            raise ValueError(
                f"Bootstrap needs at least 2 samples, X has {n}; with one sample the "
                "out-of-bag test set is always empty."
            )
        draw = _drawer(self.random_state)
        for _ in range(int(self.n_splits)):
            while True:
                train = draw(n)
                in_bag = np.zeros(n, dtype=bool)
                in_bag[train] = True
                if not in_bag.all():
                    break
            yield train, np.flatnonzero(~in_bag)

    def _check_n_splits(self) -> None:
        k = self.n_splits
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(
                f"n_splits={k!r} is not valid; Bootstrap needs a positive integer number of "
                "draws, e.g. Bootstrap(n_splits=200)."
            )


def _drawer(random_state: Any) -> Any:
    """A function n -> n indices drawn with replacement from range(n)."""
    if isinstance(random_state, np.random.RandomState):
        return lambda n: np.asarray(random_state.randint(0, n, size=n), dtype=np.intp)
    if random_state is None or isinstance(
        random_state, (int, np.integer, np.random.Generator, np.random.SeedSequence)
    ):
        if isinstance(random_state, bool):
            raise ValueError(f"random_state={random_state!r} is not valid; pass an int seed.")
        rng = np.random.default_rng(random_state)
        return lambda n: rng.integers(0, n, size=n).astype(np.intp)
    raise ValueError(
        f"random_state={random_state!r} is not valid; pass an int seed, a "
        "numpy.random.Generator, a numpy.random.RandomState or None."
    )


def n_samples(X: Any) -> int:
    """The number of samples (rows) of ``X``, or a TypeError naming ``X``.

    scikit-learn's count (``shape[0]`` of arrays, frames and sparse matrices, ``len`` of
    lists), shared by the splitters here, :func:`cvframe.cross_validate` and
    :class:`cvframe.search.PooledSearchCV`.

    Parameters
    ----------
    X : array-like of shape (n_samples, ...)

    Returns
    -------
    int

    Examples
    --------
    >>> n_samples(np.zeros((5, 2))), n_samples([[1], [2]])
    (5, 2)
    >>> n_samples(3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: X must be array-like (numpy array, ...) of shape (n_samples, ...); got int.
    """
    from sklearn.utils.validation import _num_samples

    try:
        return int(_num_samples(X))
    except TypeError:
        raise TypeError(
            "X must be array-like (numpy array, pandas DataFrame, sparse matrix or list) "
            f"of shape (n_samples, ...); got {type(X).__name__}."
        ) from None


def multilabel_kfold(n_splits: int = 5, repeats: int = 1, *, random_state: Any = None) -> Any:
    """K-fold splits that stratify every label of a multilabel ``y`` (iterative stratification).

    scikit-learn's stratified splitters need one class per sample; a multilabel ``y`` (a 0/1
    indicator matrix, one column per label) has a set of labels per sample. Iterative
    stratification (Sechidis, Tsoumakas & Vlahavas 2011) fills the folds label by label,
    rarest label first, each sample going to the fold that most lacks its labels, so every
    fold keeps each label's proportion as far as the counts allow. This returns the
    maintained implementation of the ``iterative-stratification`` package (``iterstrat``),
    scikit-learn splitters that :func:`cvframe.cross_validate` and scikit-learn's own
    functions take as ``cv``; ``cross_validate`` uses it for a multilabel ``y`` with an int
    ``cv`` and ``stratified=True``.

    Parameters
    ----------
    n_splits : int, default 5
        Folds per repeat, ``>= 2``.
    repeats : int, default 1
        ``> 1``: ``RepeatedMultilabelStratifiedKFold`` (a new seeded shuffle per repeat).
    random_state : int, numpy RandomState or None
        Seed. With ``repeats=1`` an int shuffles the samples before the folds are filled
        (as ``StratifiedKFold(shuffle=True)``); ``None`` keeps the samples in order and
        breaks the algorithm's ties with seed 0, so the folds are the same on every call
        (as scikit-learn's unshuffled ``StratifiedKFold``).

    Returns
    -------
    iterstrat.ml_stratifiers.MultilabelStratifiedKFold or RepeatedMultilabelStratifiedKFold

    Raises
    ------
    ValueError
        ``n_splits < 2`` or ``repeats < 1``.

    Notes
    -----
    ``split(X, y)`` needs the 2-D 0/1 ``y``. A label with fewer positives than folds cannot
    be in every test fold (and iterative stratification, balancing every label at once, may
    leave a fold without a label's positives even when there are enough); the folds that
    lack it are counted by cvframe under its ``zero_division`` policy, as for a rare class.
    :func:`cvframe.cross_validate` checks its splits: such labels are listed in
    ``attrs["unstratified_labels"]``, ``attrs["stratified"]`` says ``"partial"``, and
    :func:`cvframe.diagnostics.anomalies` reports each (``label_not_stratified``).

    References
    ----------
    Sechidis, K., Tsoumakas, G. & Vlahavas, I. (2011). On the Stratification of Multi-Label
    Data. ECML PKDD 2011, LNCS 6913, 145-158.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_multilabel_classification
    >>> X, Y = make_multilabel_classification(n_samples=200, n_classes=4, random_state=0)
    >>> cv = multilabel_kfold(5, random_state=0)
    >>> folds = [Y[test].mean(axis=0) for _, test in cv.split(X, Y)]
    >>> bool(np.abs(np.array(folds) - Y.mean(axis=0)).max() < 0.05)
    True
    >>> multilabel_kfold(5, repeats=3, random_state=0).get_n_splits()
    15
    """
    from iterstrat.ml_stratifiers import (
        MultilabelStratifiedKFold,
        RepeatedMultilabelStratifiedKFold,
    )

    for arg, value, low in (("n_splits", n_splits, 2), ("repeats", repeats, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{arg}={value!r} is not valid; pass an integer >= {low}.")
    if repeats > 1:
        return RepeatedMultilabelStratifiedKFold(
            n_splits=int(n_splits), n_repeats=int(repeats), random_state=random_state
        )
    if random_state is not None:
        return MultilabelStratifiedKFold(int(n_splits), shuffle=True, random_state=random_state)
    splitter = MultilabelStratifiedKFold(int(n_splits))
    # no shuffle, and the ties of the algorithm broken by a fixed seed: the same folds on
    # every call (scikit-learn refuses a random_state without shuffle at construction only)
    splitter.random_state = 0
    return splitter
