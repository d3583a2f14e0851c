"""Every ```python block of README.md and docs/**/*.md runs, as a reader would paste it.

One test per page. A page's blocks run in page order in ONE namespace (a later block may use
what an earlier one defined, never what another page defined), in a fresh temporary working
directory, headless (MPLBACKEND=Agg), with the figures closed afterwards. A block whose first
line starts with ``>>>`` is a doctest (its printed output is checked, with the options of the
package's doctests); any other block is executed. A block opened with ```python notest is not
run; such blocks are counted and kept rare (shell-dependent or slow code only).
"""

from __future__ import annotations

import contextlib
import doctest
import importlib
import pathlib
import re
import textwrap
from dataclasses import dataclass

import pytest
from threadpoolctl import threadpool_limits

ROOT = pathlib.Path(__file__).resolve().parents[1]

# A fenced block: an opening fence of 3+ backticks (possibly indented, e.g. inside a list)
# with its info string, the body, and a closing fence of the same indentation and length.
FENCE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>`{3,})(?P<info>[^`\n]*)\n"
    r"(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$",
    re.M | re.S,
)
# The options of the package's doctests (pyproject.toml); NUMBER is pytest's flag, checked by
# pytest's output checker.
try:  # pytest's checker understands NUMBER (as in the package's doctests)
    from _pytest.doctest import _get_checker
except ImportError:  # pragma: no cover - a pytest without it: plain doctest checking
    _get_checker = doctest.OutputChecker
DOCTEST_FLAGS = (
    doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS | doctest.register_optionflag("NUMBER")
)
# Most ```python notest blocks the whole documentation may have: skipping is the exception.
MAX_NOTEST = 6


@dataclass(frozen=True)
class Block:
    lineno: int  # 1-based line of the block's first code line in the page
    source: str
    notest: bool

    @property
    def is_doctest(self) -> bool:
        return self.source.lstrip().startswith(">>>")


def python_blocks(text: str) -> list[Block]:
    """The ```python blocks of a markdown text, in page order."""
    blocks = []
    for m in FENCE.finditer(text):
        words = m["info"].strip().split()
        if not words or words[0] != "python":
            continue
        body = m["body"]
        indent = m["indent"]
        if indent:
            body = "".join(
                line[len(indent) :] if line.startswith(indent) else line.lstrip()
                for line in body.splitlines(keepends=True)
            )
        lineno = text.count("\n", 0, m.start("body")) + 1
        blocks.append(Block(lineno, textwrap.dedent(body), "notest" in words[1:]))
    return blocks


def pages() -> list[pathlib.Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _id(page: pathlib.Path) -> str:
    return page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else page.name


def run_page(page: pathlib.Path) -> tuple[int, int]:
    """Run a page's blocks in one namespace; return (blocks run, blocks skipped)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ns: dict = {"__name__": "__main__"}
    ran = skipped = 0
    name = _id(page)
    # One BLAS thread: the examples fit small models, where OpenBLAS threads only contend
    # with the other test workers (10-15x slower on a loaded 2-core machine). The limit
    # reaches only libraries already loaded: load scipy's and scikit-learn's first.
    for module in ("scipy.linalg", "sklearn.linear_model"):
        with contextlib.suppress(ImportError):
            importlib.import_module(module)
    with threadpool_limits(limits=1):
        try:
            for block in python_blocks(page.read_text()):
                if block.notest:
                    skipped += 1
                    continue
                where = f"{name}:{block.lineno}"
                if block.is_doctest:
                    test = doctest.DocTestParser().get_doctest(
                        block.source, ns, where, str(page), block.lineno - 1
                    )
                    out: list[str] = []
                    runner = doctest.DocTestRunner(
                        checker=_get_checker(), optionflags=DOCTEST_FLAGS
                    )
                    result = runner.run(test, out=out.append, clear_globs=False)
                    ns.update(test.globs)  # DocTest runs in a copy of the namespace
                    if result.failed:
                        pytest.fail(f"doctest block at {where} failed:\n" + "".join(out), False)
                else:
                    try:
                        exec(compile(block.source, where, "exec"), ns)
                    except Exception as exc:  # name the block, keep the traceback
                        raise AssertionError(f"block at {where} raised {exc!r}") from exc
                ran += 1
        finally:
            plt.close("all")
    return ran, skipped


#: Pages whose blocks take long, with the reason (the suite lists any test over 10 s without one).
SLOW_PAGES = {"plots.md": "draws every plot type, several at 10 and 20 classes (~12 s)"}


def _marked(page):
    reason = SLOW_PAGES.get(page.name)
    return pytest.param(page, marks=pytest.mark.slow(reason=reason)) if reason else page


@pytest.mark.parametrize("page", [_marked(p) for p in pages()], ids=_id)
def test_page_blocks_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("CVFRAME_PROGRESS", "0")
    run_page(page)


def test_notest_blocks_are_rare_and_counted():
    counts = {
        _id(p): n for p in pages() if (n := sum(b.notest for b in python_blocks(p.read_text())))
    }
    assert sum(counts.values()) <= MAX_NOTEST, counts


def test_runner_finds_blocks_as_written():
    text = (
        "intro\n\n```python\nx = 1\n```\n\n```\nnot python\n```\n\n"
        "- item\n\n    ```python\n    y = x + 1\n    ```\n\n"
        "```python notest\nraise SystemExit\n```\n\n```python\n>>> y\n2\n```\n"
    )
    blocks = python_blocks(text)
    assert [b.source for b in blocks] == [
        "x = 1\n",
        "y = x + 1\n",
        "raise SystemExit\n",
        ">>> y\n2\n",
    ]
    assert [b.notest for b in blocks] == [False, False, True, False]
    assert [b.is_doctest for b in blocks] == [False, False, False, True]
    assert blocks[0].lineno == 4


def test_runner_fails_on_a_wrong_doctest_and_a_raising_block(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bad = tmp_path / "bad.md"
    bad.write_text("```python\n>>> 1 + 1\n3\n```\n")
    with pytest.raises(pytest.fail.Exception, match="doctest block"):
        run_page(bad)
    bad.write_text("```python\nx = 1\n```\n\n```python\nundefined_name\n```\n")
    with pytest.raises(AssertionError, match=r"bad.md:6 raised NameError"):
        run_page(bad)
    ok = tmp_path / "ok.md"
    ok.write_text(
        "```python\nx = 1\n```\n\n```python notest\nboom\n```\n\n```python\n>>> x\n1\n```\n"
    )
    assert run_page(ok) == (2, 1)
