"""Docs are part of the work: the site's API reference covers every public module, every page
is in the navigation, every linked page exists, and the site builds with warnings as errors.

The code blocks of the pages are run by tests/test_doc_blocks.py; the built site (strictly,
formulas rendered from disk) is tested by tests/test_docs_offline.py.
"""

from __future__ import annotations

import importlib
import pathlib
import pkgutil
import re
import sys

import pytest

import cvframe

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
# Pages that are not markdown files on disk: the hook generates the gallery.
GENERATED = {"gallery.md"}


def _nav_pages() -> list[str]:
    """Every page named in mkdocs.yml's nav (read as text: mkdocs.yml has no python tags)."""
    text = (ROOT / "mkdocs.yml").read_text()
    nav = text[text.index("\nnav:") :]
    return re.findall(r"^\s+-\s+(?:[^\n]*?:\s+)?([\w/.-]+\.md)\s*$", nav, re.M)


def _public_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(cvframe.__path__) if m.name[0] != "_")


def test_readme_starts_with_the_two_commands_and_ci_runs_the_second():
    readme = (ROOT / "README.md").read_text().splitlines()
    assert readme[0] == "```bash"
    install_demo, install_test = readme[1], readme[2]
    assert install_demo.endswith("cvframe demo")
    assert readme[3] == "```"
    ci = (ROOT / ".ci" / "run").read_text()
    assert install_test in ci.splitlines()


def test_readme_says_how_to_build_and_open_the_docs_and_ci_builds_them_strictly():
    readme = (ROOT / "README.md").read_text()
    assert 'python -m pip install -e ".[docs]"' in readme
    assert "mkdocs serve" in readme and "site/index.html" in readme
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert 'python -m pip install -e ".[docs]"' in ci
    assert "python -m mkdocs build --strict" in ci
    assert "site/" in (ROOT / ".gitignore").read_text().splitlines()


@pytest.mark.parametrize("name", _public_modules())
def test_every_public_module_has_a_reference_page_in_the_nav(name):
    page = DOCS / "reference" / f"{name}.md"
    assert page.exists(), f"no API reference page for cvframe.{name}: add {page.relative_to(ROOT)}"
    text = page.read_text()
    assert re.search(rf"^::: cvframe\.{name}\b", text, re.M), (
        f"{page.name} renders no cvframe.{name}"
    )
    assert f"reference/{name}.md" in _nav_pages(), f"reference/{name}.md is not in mkdocs.yml nav"


def test_the_accessor_page_renders_ds_cv_df_cv_and_their_plotters():
    text = (DOCS / "reference" / "accessors.md").read_text()
    for target in [
        "cvframe.accessors.CVDatasetAccessor",
        "cvframe.accessors.CVDataFrameAccessor",
        "cvframe.plot.namespaces.DatasetPlotter",
        "cvframe.plot.namespaces.DataFramePlotter",
    ]:
        assert f"::: {target}" in text, target


def test_no_hand_kept_api_page():
    assert not (DOCS / "api.md").exists()
    assert not (DOCS / "gen_api.py").exists()


def test_every_page_is_in_the_nav_and_every_nav_entry_exists():
    nav = _nav_pages()
    assert len(nav) == len(set(nav)), "a page is listed twice in the nav"
    on_disk = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert on_disk - set(nav) == set(), "pages missing from mkdocs.yml nav"
    assert set(nav) - on_disk - GENERATED == set(), "nav entries without a page"


def test_linked_pages_exist():
    for page in [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]:
        for target in re.findall(r"\]\(([^)#]+?)\)", page.read_text()):
            if target.startswith("http"):
                continue
            if page.parent == DOCS and target in GENERATED:
                continue
            assert (page.parent / target).exists(), f"{page.name} links to missing {target}"


def test_gallery_runs_the_examples_that_draw():
    sys.path.insert(0, str(DOCS))
    try:
        hooks = pytest.importorskip("hooks", reason="mkdocs is not installed (the docs extra)")
    finally:
        sys.path.remove(str(DOCS))
    drawing = [p.stem for p in sorted((ROOT / "examples").glob("*.py")) if hooks.draws(p)]
    assert {"plots", "cost_roc", "compare_models"} <= set(drawing)
    page = hooks.gallery_page({"plots": [pathlib.Path("wine_roc.png")]})
    assert "![plots: wine_roc](gallery/plots/wine_roc.png)" in page
    for p in (ROOT / "examples").glob("*.py"):
        assert f"## `{p.name}` {{#{p.stem}}}" in page


# A path in the repository a page may cite: examples/x.py, tests/..., benchmarks/...,
# cvframe/..., docs/..., .ci/... (not inside a URL: no "/" or word character before it).
_CITED = re.compile(
    r"(?<![\w/.-])(?:\.\./)*((?:examples|tests|benchmarks|cvframe|docs|\.ci)/[\w./<>*-]*[\w>*])"
)


def _cited(text: str) -> set[str]:
    return {m for m in _CITED.findall(text)}


def test_cited_paths_are_found_in_text():
    text = (
        "see [x](../examples/plots.py), `tests/test_io.py`, benchmarks/run.py and "
        "`benchmarks/bench_<name>.py`; not https://github.com/o/cvframe/blob/main/x.py"
    )
    assert _cited(text) == {
        "examples/plots.py",
        "tests/test_io.py",
        "benchmarks/run.py",
        "benchmarks/bench_<name>.py",
    }


def test_no_page_cites_a_file_that_is_not_in_the_repository():
    for page in [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]:
        for path in sorted(_cited(page.read_text())):
            # placeholders (bench_<name>.py, bench_*.py) must match at least one file
            pattern = re.sub(r"<[^>]*>", "*", path)
            found = list(ROOT.glob(pattern)) if "*" in pattern else [ROOT / pattern]
            assert any(p.exists() for p in found), (
                f"{page.relative_to(ROOT)} cites {path}, which is not in the repository"
            )


def test_the_home_page_installs_from_a_clone_not_from_a_package_index():
    """cvframe is not published on PyPI: ``pip install "cvframe[all]"`` would fail."""
    text = (DOCS / "index.md").read_text()
    assert 'python -m pip install -e ".[all]"' in text
    assert not re.search(r"pip install\s+[\"']?cvframe\b", text)
    assert "python -m http.server -d site" in text  # search needs a server


def _griffe_rst():
    pytest.importorskip("griffe", reason="griffe is not installed (the docs extra)")
    sys.path.insert(0, str(DOCS))
    try:
        return importlib.import_module("griffe_rst")
    finally:
        sys.path.remove(str(DOCS))


def test_module_doctests_become_console_code_and_examples_sections_stay_griffes():
    to_markdown = _griffe_rst().to_markdown
    doc = (
        "Small cubes.\n\n>>> import cvframe\n>>> sorted(cvframe.datasets.NAMES)\n"
        "['table1', 'table2']\n\nExamples\n--------\n>>> 1 + 1\n2\n"
    )
    out = to_markdown(doc).splitlines()
    assert out[2:7] == [
        "```pycon",
        ">>> import cvframe",
        ">>> sorted(cvframe.datasets.NAMES)",
        "['table1', 'table2']",
        "```",
    ]
    assert out[-4:] == ["Examples", "--------", ">>> 1 + 1", "2"]  # griffe's own code block


def test_a_line_starting_with_greater_than_keeps_it():
    to_markdown = _griffe_rst().to_markdown
    doc = "Parameters\n----------\neps : float\n    as in scikit-learn\n    >= 1.5. A number."
    out = to_markdown(doc)
    assert "    \\>= 1.5. A number." in out.splitlines()
    markdown = pytest.importorskip("markdown", reason="Python-Markdown is not installed")
    html = markdown.markdown("as in scikit-learn\n\\>= 1.5.")
    assert "&gt;= 1.5." in html and "<blockquote" not in html


def test_display_math_with_alignment_points_gets_an_environment():
    to_markdown = _griffe_rst().to_markdown
    out = to_markdown(".. math::\n\n   BS &= a\n   + b\n\nText").splitlines()
    assert out[out.index("$$") :][:5] == [
        "$$",
        "\\begin{aligned}",
        "BS &= a",
        "+ b",
        "\\end{aligned}",
    ]
    plain = to_markdown(".. math:: a = b").splitlines()
    assert "\\begin{aligned}" not in plain and "a = b" in plain
