"""Docs are part of the work: the site's API reference covers every public module, every page
is in the navigation, every linked page exists, and the site builds with warnings as errors.

The code blocks of the pages are run by tests/test_doc_blocks.py.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import pkgutil
import re
import subprocess
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
        "cvframe.plot.cube.DatasetPlotter",
        "cvframe.plot.frame.DataFramePlotter",
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


@pytest.mark.slow
def test_site_builds_with_warnings_as_errors(tmp_path):
    """The pages and the API reference, strictly; the gallery's examples are not run here
    (CVFRAME_GALLERY=off: they are tested by their own tests, and CI's docs step runs them)."""
    if (
        importlib.util.find_spec("mkdocs") is None
        or importlib.util.find_spec("mkdocstrings") is None
    ):
        pytest.skip('mkdocs is not installed: python -m pip install -e ".[docs]"')
    env = dict(os.environ, CVFRAME_GALLERY="off", NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-5000:]
    site = tmp_path / "site"
    assert (site / "index.html").exists()
    assert (site / "reference" / "reduce.html").exists()
    assert (site / "reference" / "accessors.html").exists()
    gallery = (site / "gallery.html").read_text()
    assert "plots.py" in gallery and "Source of plots.py" in gallery
