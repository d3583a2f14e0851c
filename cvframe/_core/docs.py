"""One docstring mechanism: shared fragments, written once, and their accessor rendering.

A public function writes ``<<token>>`` on a line of its numpydoc docstring; :func:`doc`
replaces the token by the fragment of that name, indented like the token's line. Fragments
are written dedented: the first line at column 0, continuation lines indented by four
spaces relative to it (numpydoc's parameter layout). :func:`accessor_doc` renders the same
docstring for the ``ds.cv`` / ``df.cv`` method: the data parameter (``ds`` / ``df``) is
dropped, because the accessor supplies it. A fragment named for a whole numpydoc section
(``*_parameters``, ``*_references``, ``*_examples``: :func:`section`) brings its heading.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

__all__ = ["FRAGMENTS", "accessor_doc", "doc", "register", "section"]

F = TypeVar("F", bound=Callable[..., Any])

#: Every shared fragment, by token.
FRAGMENTS: dict[str, str] = {
    "ds": """\
ds : xarray.Dataset
    A counts cube (``tp``, ``fp``, ``fn``, ``tn`` over ``(..., fold, class)``).""",
    "dim": """\
dim : str or sequence of str, default "fold"
    The dimension(s) to aggregate over; every other dimension (``class``, ``repeat``,
    ``model``, ...) is kept with its coordinates.""",
    "beta": """\
beta : float, default 1
    Weight of recall relative to precision, a finite number >= 0 (``beta=1`` is F1).""",
    "zero_division": """\
zero_division : {"warn", 0.0, 1.0, np.nan}, default "warn"
    Value of a metric where it is undefined (0/0), with scikit-learn's meaning:
    ``"warn"`` uses 0 and emits one :class:`~cvframe.UndefinedMetricWarning` per call
    with the number of affected cells; a number uses that value silently. On a
    dask-backed cube the cells are not counted (that would compute the cube), so no
    warning is emitted: choose the value explicitly there.""",
    "skip_undefined": """\
skip_undefined : bool, default False
    Average only over the folds where precision and recall are both defined
    (:math:`V^{(i)} = 1`): the paper's tilde methods, which are biased upwards. Under
    ``zero_division="warn"`` one warning says how many folds were skipped.""",
    "reference": """\
G. Forman and M. Scholz, "Apples-to-Apples in Cross-Validation Studies:
   Pitfalls in Classifier Performance Measurement", ACM SIGKDD Explorations 12(1), 2010.""",
    "metric": """\
metric : {"precision", "recall", "f", "accuracy", "jaccard"}, default "f"
    The per-class one-vs-all metric. ``"accuracy"`` of a class is its one-vs-all
    accuracy :math:`(TP + TN)/n` (not the multiclass accuracy; see Notes).""",
    "fold_method": """\
fold_method : {"tp_fp", "avg", "pr_re", None}, default "tp_fp"
    How folds are aggregated: ``"tp_fp"`` sums the counts over ``dim`` and computes the
    metric once; ``"avg"`` is the mean over ``dim`` of per-fold values (undefined ones
    counted as the ``zero_division`` value); ``"pr_re"`` (``metric="f"`` only) is F of the
    means of per-fold precision and recall; ``None`` keeps ``dim`` (one value per fold).""",
    "slides": """\
A. Sperduti et al., "Evaluation of learning" (course slides): macro, micro and
   weighted averages and the kappa statistic of a 3-class confusion matrix.""",
    "frame_params": """\
df : pandas.DataFrame or cvframe.scores.ParsedFrame
    The predictions frame, one row per tested sample, or that frame parsed once by
    :func:`cvframe.scores.parse` for several metrics (its reading is then the parse's).
labels : sequence, optional
    The class universe and its order. Default: the categories of a Categorical
    ``y_true``, else the sorted unique labels. With two or more labels and a
    ``score_<label>`` column for each, the task is scored one-vs-all over all of them.
pos_label : label, optional
    The positive class of a binary task scored by the single ``score`` column (or by
    ``score_<pos_label>``). Labels {0, 1} and {False, True} default to 1/True; any
    other pair needs it (or the frame's ``attrs["pos_label"]``, which
    :func:`cvframe.cross_validate` sets). With more than two labels it scores that one
    class against the rest.
y_true, fold, repeat, score : str
    Column names. ``repeat`` is optional: when the frame has no such column (or
    ``repeat=None``) there is no ``repeat`` dimension. ``score`` names the binary score
    column and is the prefix of the per-class columns ``<score>_<label>``.""",
    "method_params": """\
method : {"avg", "merge", "fold"}
    ``"avg"``: per fold, then the mean over the folds of each repeat; ``"merge"``: once
    over the pooled scores of all folds of a repeat; ``"fold"``: the per-fold values
    (the ``fold`` dimension is kept).
undefined : {"skip", "nan"}
    What an undefined fold does. ``"skip"`` (default): ``"avg"`` averages the defined
    folds only, and undefined cells that remain in the result are NaN; one
    :class:`~cvframe.UndefinedMetricWarning` per call says how many cells were
    undefined and where. ``"nan"``: undefined folds are NaN and make the mean over
    folds NaN, silently.
average : {None, "macro", "weighted"}
    Reduce ``class`` as well: ``"macro"`` is the unweighted mean over classes,
    ``"weighted"`` weights each class by its support (number of positives, pooled over
    the folds of a repeat; per fold for ``method="fold"``). ``None`` keeps ``class``;
    ``result.mean("class")`` is then the macro average. Under ``undefined="skip"``
    classes with an undefined value are left out of the class average.""",
    "score_references": """\
References
----------
.. [1] G. Forman and M. Scholz, "Apples-to-Apples in Cross-Validation Studies: Pitfalls
   in Classifier Performance Measurement", ACM SIGKDD Explorations 12(1), 2010, §2.4
   and §3.2.""",
}

_TOKEN = re.compile(r"^(?P<indent>[ \t]*)<<(?P<name>\w+)>>[ \t]*$", re.MULTILINE)
_INLINE = re.compile(r"<<(\w+)>>")


def register(fragments: Mapping[str, str]) -> None:
    """Add module-specific fragments (token -> dedented text); a token keeps one text."""
    for name, text in fragments.items():
        name = name.strip("<>")
        text = textwrap.dedent(text).strip("\n")
        if name in FRAGMENTS and FRAGMENTS[name] != text:
            raise ValueError(f"docstring fragment <<{name}>> is already registered")
        FRAGMENTS[name] = text


def section(title: str, *names: str) -> str:
    """The fragments ``names`` as a numpydoc section headed ``title`` (e.g. "References")."""
    return "\n".join([title, "-" * len(title), *(FRAGMENTS[name] for name in names)])


FRAGMENTS["frame_parameters"] = section("Parameters", "frame_params")


def render(text: str) -> str:
    """Replace every ``<<token>>`` line of ``text`` by its fragment, indented like the token."""

    def one(m: re.Match[str]) -> str:
        name = m.group("name")
        if name not in FRAGMENTS:
            raise KeyError(f"unknown docstring fragment <<{name}>>")
        return textwrap.indent(FRAGMENTS[name], m.group("indent"))

    out = _TOKEN.sub(one, text)
    left = _INLINE.findall(out)
    if left:
        raise KeyError(f"docstring fragment(s) {left} must stand alone on their line")
    return out


def doc(func: F) -> F:
    """Decorator: render the shared fragments of ``func``'s docstring in place."""
    func.__doc__ = render(func.__doc__ or "")
    return func


_PARAM_HEAD = re.compile(r"^(?P<indent>[ \t]*)Parameters\n(?P=indent)-+\n", re.MULTILINE)


def accessor_doc(func: Callable[..., Any], data: tuple[str, ...] = ("ds", "df")) -> str:
    """``func``'s docstring as the accessor method's: without its data parameter.

    The first entry of the Parameters section is dropped when its name is one of ``data``
    (``ds`` or ``df``, possibly grouped as ``ds, other : ...``), with its description.
    """
    text = func.__doc__ or ""
    head = _PARAM_HEAD.search(text)
    if head is None:
        return text
    indent, start = head.group("indent"), head.end()
    lines = text[start:].split("\n")
    first = lines[0]
    names = [n.strip() for n in first.strip().split(" : ")[0].split(",")]
    if not first.startswith(indent) or first.startswith(indent + " ") or names[0] not in data:
        return text
    end = 1
    while end < len(lines) and lines[end].startswith(indent + " "):
        end += 1
    kept = []
    if names[1:] and " : " in first:  # "ds, other : ..." keeps "other : ..."
        kept = [f"{indent}{', '.join(names[1:])} : {first.split(' : ', 1)[1]}", *lines[1:end]]
    return text[:start] + "\n".join(kept + lines[end:])
