"""A griffe extension (mkdocs.yml, mkdocstrings' ``extensions:``): the reStructuredText bits of
cvframe's numpydoc docstrings, shown as Markdown in the API reference.

- ``:func:`x```, ``:class:``, ``:meth:``, ``:mod:``, ``:data:`` become inline code ``x``
  (``~pkg.mod.name`` shows ``name``, as Sphinx does);
- ``:math:`...``` becomes inline math ``$...$``; a ``.. math::`` directive (on one line or
  with an indented body) becomes a display-math block ``$$ ... $$`` (rendered by MathJax
  through pymdownx.arithmatex), in an ``aligned`` environment when it has ``&`` alignment
  points (as Sphinx wraps it);
- a doctest block (``>>>`` lines and their output, up to a blank line) outside a numpydoc
  ``Examples`` section (which griffe already shows as code) becomes a fenced ``pycon`` code
  block, prompts and output as a console shows them;
- any other line that starts with ``>`` (``>= 1.5`` wrapped onto a new line) keeps its ``>``
  instead of opening a Markdown blockquote.

The docstrings themselves stay numpydoc, as ``help()`` and IDEs show them.
"""

from __future__ import annotations

import inspect
import re
import textwrap
import types
from typing import Any

import griffe

_ROLE = re.compile(r":(?:func|class|meth|mod|data|attr|obj|exc):`~?([^`]+)`")
_TILDE = re.compile(r":(?:func|class|meth|mod|data|attr|obj|exc):`~([^`]+)`")
_MATH = re.compile(r":math:`([^`]+)`")
_DIRECTIVE = re.compile(r"^(?P<indent>[ \t]*)\.\. math::[ \t]*(?P<inline>.*)$")


_TYPE_DOCS = {
    inspect.getdoc(t)
    for t in (str, bytes, int, float, bool, tuple, list, dict, set, frozenset, type(None))
} | {inspect.getdoc(types.UnionType), inspect.getdoc(types.MappingProxyType)}


#: Members of a class that are Python's machinery, not its API.
_PLUMBING = ("__weakref__", "__dict__", "__module__", "__annotations__")


def _role(m: re.Match[str]) -> str:
    return f"`{m[1]}`"


def _tilde(m: re.Match[str]) -> str:
    return f"`{m[1].rsplit('.', 1)[-1]}`"


def _math_blocks(text: str) -> str:
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _DIRECTIVE.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        indent = m["indent"]
        body = [m["inline"]] if m["inline"].strip() else []
        i += 1
        block: list[str] = []
        while i < len(lines) and (
            not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > len(indent)
        ):
            block.append(lines[i])
            i += 1
        while block and not block[-1].strip():
            block.pop()
        body += textwrap.dedent("\n".join(block)).splitlines() if block else []
        body = [b for b in body if b.strip()]
        if any("&" in b for b in body) and not any("\\begin{" in b for b in body):
            # alignment points: Sphinx wraps the block in an environment, MathJax needs one
            body = ["\\begin{aligned}", *body, "\\end{aligned}"]
        out += ["", f"{indent}$$"] + [f"{indent}{b.strip()}" for b in body] + [f"{indent}$$", ""]
    return "\n".join(out)


_BORDER = re.compile(r"^(?P<indent>[ \t]*)=+(?: +=+)+[ \t]*$")


def _cells(line: str, spans: list[tuple[int, int]]) -> list[str]:
    cells = []
    for k, (a, _b) in enumerate(spans):
        end = len(line) if k == len(spans) - 1 else spans[k + 1][0]
        cells.append(line[a:end].strip())
    return cells


def _tables(text: str) -> str:
    """reST simple tables (``=====  =====`` borders) as Markdown tables."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _BORDER.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        indent = m["indent"]
        spans = [(g.start(), g.end()) for g in re.finditer(r"=+", lines[i])]
        segments: list[list[str]] = [[]]
        i += 1
        while i < len(lines) and lines[i].strip():
            if _BORDER.match(lines[i]):
                segments.append([])
            else:
                segments[-1].append(lines[i])
            i += 1
        segments = [seg for seg in segments if seg]
        rows: list[list[str]] = []
        starts: list[bool] = []  # whether a row opens the header's end
        for n, seg in enumerate(segments):
            for line in seg:
                cells = _cells(line, spans)
                if rows and not cells[0] and n == len(segments) - 1:
                    rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells, strict=True)]
                else:
                    rows.append(cells)
                    starts.append(n == 0 and len(segments) > 1)
        header = [r for r, h in zip(rows, starts, strict=True) if h]
        body = [r for r, h in zip(rows, starts, strict=True) if not h]
        head = header[0] if header else [" "] * len(spans)

        def row(cells: list[str], indent: str = indent) -> str:
            return indent + "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

        out += ["", row(head), indent + "|" + " --- |" * len(spans)]
        out += [row(r) for r in body] + [""]
    return "\n".join(out)


_HEADER = re.compile(r"^(?P<name>\S[^\n]*)\n-{3,}[ \t]*$", re.M)
_PROMPT = re.compile(r"^(?P<indent>[ \t]*)>>>(?: |$)")
_QUOTE = re.compile(r"^(?P<indent>[ \t]*)>(?!>>)")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")


def _doctests(text: str) -> str:
    """Doctest blocks outside ``Examples`` sections as fenced ``pycon`` code; a ``>`` that
    starts any other line escaped (Markdown would read it as a blockquote)."""
    lines = text.splitlines()
    out: list[str] = []
    section = ""
    fenced = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if i + 1 < len(lines) and _HEADER.match(f"{line}\n{lines[i + 1]}"):
            section = line.strip()
        if _FENCE.match(line):
            fenced = not fenced
        prompt = _PROMPT.match(line)
        if fenced or section == "Examples":
            out.append(line)
        elif prompt and (not out or not out[-1].strip()):
            indent = prompt["indent"]
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i])
                i += 1
            out += [f"{indent}```pycon", *block, f"{indent}```"]
            continue
        else:
            out.append(_QUOTE.sub(lambda m: f"{m['indent']}\\>", line))
        i += 1
    return "\n".join(out)


def to_markdown(text: str) -> str:
    """Translate the reST roles, math and simple tables of one docstring to Markdown."""
    if "==" in text:
        text = _tables(text)
    text = _TILDE.sub(_tilde, text)
    text = _ROLE.sub(_role, text)
    text = _MATH.sub(lambda m: f"${m[1].strip()}$", text)
    if ".. math::" in text:
        text = _math_blocks(text)
    if ">" in text:
        text = _doctests(text)
    return text


class RstToMarkdown(griffe.Extension):
    """Rewrite every docstring griffe loads (by inspection or from source)."""

    def _fix(self, obj: Any) -> None:
        doc = getattr(obj, "docstring", None)
        if doc is None or not doc.value:
            return
        if obj.is_attribute and doc.value in _TYPE_DOCS:
            obj.docstring = None  # inspection gave the value's type's docstring (tuple's, ...)
        else:
            doc.value = to_markdown(doc.value)

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        self._fix(obj)

    def on_class_members(self, *, cls: Any, **kwargs: Any) -> None:
        """Drop what every Python class has and no reader needs: inspection lists
        ``__weakref__`` ("list of weak references to the object") and ``__dict__`` as
        members of every class without ``__slots__``."""
        for name in _PLUMBING:
            if name in cls.members:
                cls.del_member(name)
