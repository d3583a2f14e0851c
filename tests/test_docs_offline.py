"""The documentation site as a reader opens it: built once (strictly), then read from disk.

The site must work with no network: MathJax ships with it (docs/hooks.py copies it from the
``docs`` extra) and is loaded by a relative path, so ``file://.../site/index.html`` shows
typeset formulas. When headless Chromium is installed, a page of formulas is opened from
``file://``: the DOM must hold MathJax's output and no raw ``\\(``, and a screenshot is kept
in ``test-artifacts/screenshots/docs_formulas.png`` for a reviewer to look at.

The build needs the ``docs`` extra (``python -m pip install -e ".[docs]"``): without it these
tests skip. The example gallery is not run here (``CVFRAME_GALLERY=off``: the examples have
their own tests and CI's docs step runs them).
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.xdist_group("docs_site")]

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "test-artifacts" / "screenshots"
MATHJAX = "javascripts/mathjax/tex-mml-chtml.js"
FORMULA_PAGE = "reference/formulas.html"
_SCRIPT = re.compile(r"<script\b[^>]*\bsrc=\"([^\"]+)\"")
_DISPLAY = re.compile(r'<div class="arithmatex">(.*?)</div>', re.S)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    for module in ("mkdocs", "mkdocstrings", "material"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f'{module} is not installed: python -m pip install -e ".[docs]"')
    if importlib.util.find_spec("mathjax") is None:
        pytest.skip('MathJax is not installed: python -m pip install -e ".[docs]"')
    out = tmp_path_factory.mktemp("docs") / "site"
    env = dict(os.environ, CVFRAME_GALLERY="off", NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-5000:]
    return out


def _pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


@pytest.mark.slow(reason="builds the whole site (API reference included): about 20 s")
def test_site_builds_with_warnings_as_errors(site):
    assert (site / "index.html").exists()
    assert (site / "reference" / "reduce.html").exists()
    assert (site / "reference" / "accessors.html").exists()
    gallery = (site / "gallery.html").read_text()
    assert "plots.py" in gallery and "Source of plots.py" in gallery


@pytest.mark.slow(reason="builds the whole site (shared with the build test)")
def test_math_renderer_ships_with_the_site_and_no_script_comes_from_the_web(site):
    assert (site / MATHJAX).stat().st_size > 100_000
    fonts = list((site / "javascripts" / "mathjax" / "output" / "chtml" / "fonts").rglob("*.woff"))
    assert fonts, "MathJax's fonts are missing: formulas would show in fallback glyphs"
    with_math = 0
    for page in _pages(site):
        if page.relative_to(site).parts[0] == "gallery":
            continue  # pages an example wrote (the HTML report) are not site pages
        html = page.read_text()
        scripts = _SCRIPT.findall(html)
        web = [s for s in scripts if re.match(r"(https?:)?//", s)]
        assert web == [], f"{page.relative_to(site)} loads scripts from the web: {web}"
        assert not re.search(r"https?://[^\"'\s]*(mathjax|katex)", html, re.I), page.name
        for block in _DISPLAY.findall(html):  # MathJax: "Misplaced &" outside an environment
            if re.search(r"(?<!\\)&amp;", block):
                assert "\\begin{" in block, f"{page.relative_to(site)}: {block[:200]}"
        if 'class="arithmatex"' in html:
            with_math += 1
            mathjax = [s for s in scripts if s.endswith(MATHJAX)]
            assert mathjax, f"{page.relative_to(site)} has formulas but no MathJax"
            assert (page.parent / mathjax[0]).resolve() == (site / MATHJAX).resolve()
    assert with_math >= 10, "the formulas of the API reference are missing"


@pytest.mark.slow(reason="builds the whole site (shared with the build test)")
def test_module_doctests_render_as_code_and_no_docstring_turns_into_a_blockquote(site):
    datasets = (site / "reference" / "datasets.html").read_text()
    assert '<span class="gp">&gt;&gt;&gt; </span>' in datasets  # a console code block
    for page in sorted((site / "reference").glob("*.html")):
        assert "<blockquote" not in page.read_text(), f"{page.name}: a '>' became a quote"


def _chromium_flags(profile: Path) -> tuple[str, list[str]]:
    # the report's browser test finds Chromium (skips without it) and holds its flags
    from test_report_browser import _chromium, _flags

    return _chromium(), [*_flags(profile), "--virtual-time-budget=5000"]


@pytest.mark.slow(reason="builds the site, then renders two pages in headless Chromium")
@pytest.mark.browser
@pytest.mark.parametrize("name", [FORMULA_PAGE, "reference/scores.html"])
def test_formulas_render_from_file_url_without_network(site, tmp_path, name):
    chromium, flags = _chromium_flags(tmp_path / "profile")
    page = site / name
    source = page.read_text()
    formulas = source.count('class="arithmatex"')
    assert formulas >= 10 and "\\(" in source  # arithmatex wrote TeX for MathJax
    url = page.as_uri()
    dom = subprocess.run(
        [chromium, *flags, "--dump-dom", url],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    assert "</html>" in dom, "Chromium did not render the page"
    assert dom.count("<mjx-container") >= formulas, "MathJax did not typeset every formula"
    assert "\\(" not in dom and "\\[" not in dom, "raw TeX left on the page"
    assert "<mjx-merror" not in dom, "MathJax reports a TeX error"
    if name != FORMULA_PAGE:
        return
    SHOTS.mkdir(parents=True, exist_ok=True)
    shot = SHOTS / "docs_formulas.png"
    shot.unlink(missing_ok=True)
    subprocess.run(
        [
            chromium,
            *flags,
            "--window-size=1400,3000",  # the page's first display formula is ~1600 px down
            f"--screenshot={shot}",
            url,
        ],
        capture_output=True,
        timeout=120,
    )
    # An empty white page compresses to a few kB; this page with text and formulas is ~300 kB.
    assert shot.exists() and shot.stat().st_size > 50_000


@pytest.mark.slow(reason="builds the whole site (shared with the build test)")
def test_the_api_pages_leave_out_pythons_plumbing(site):
    for page in sorted((site / "reference").glob("*.html")):
        text = page.read_text()
        assert "__weakref__" not in text, f"{page.name} documents __weakref__"
        assert "list of weak references" not in text, page.name


@pytest.mark.slow(reason="builds the site, then searches it in headless Chromium from disk")
@pytest.mark.browser
def test_search_works_from_disk(site, tmp_path):
    # Material's offline plugin: the index as a script, the search worker through a shim
    index = site / "search" / "search_index.js"
    assert index.exists() and index.read_text().startswith("var __index =")
    assert (site / "javascripts" / "iframe-worker-shim.js").exists()
    chromium, flags = _chromium_flags(tmp_path / "profile")
    flags = [f for f in flags if not f.startswith("--virtual-time-budget")]
    url = (site / "index.html").as_uri() + "?q=bootstrap"
    dom = subprocess.run(
        [chromium, *flags, "--virtual-time-budget=15000", "--dump-dom", url],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    found = re.search(r'md-search-result__meta">(\d+) matching document', dom)
    assert found and int(found.group(1)) > 0, "the search found nothing from file://"
    assert dom.count("md-search-result__item") > 0
