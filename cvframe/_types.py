"""Type aliases shared by the public signatures."""
from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Literal, Union

#: One dimension name, several, or None.
Dims = Union[str, Iterable[Hashable], None]
#: scikit-learn's ``zero_division``: "warn" (0 with one warning), 0.0, 1.0 or np.nan.
ZeroDivision = Union[Literal["warn"], float]
FoldMethod = Literal["tp_fp", "avg", "pr_re", None]
Metric = Literal["precision", "recall", "f", "accuracy"]
