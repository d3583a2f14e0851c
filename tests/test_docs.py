"""Docs are part of the work: the API page is current and every linked page exists."""

from __future__ import annotations

import pathlib
import re
import runpy

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_api_page_is_current():
    gen = runpy.run_path(str(ROOT / "docs" / "gen_api.py"))
    assert (ROOT / "docs" / "api.md").read_text() == gen["render"](), (
        "docs/api.md is stale: run python docs/gen_api.py"
    )


def test_readme_starts_with_the_two_commands_and_ci_runs_the_second():
    readme = (ROOT / "README.md").read_text().splitlines()
    assert readme[0] == "```bash"
    install_demo, install_test = readme[1], readme[2]
    assert install_demo.endswith("cvframe demo")
    assert readme[3] == "```"
    ci = (ROOT / ".ci" / "run").read_text()
    assert install_test in ci.splitlines()


def test_linked_pages_exist():
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#]+?)\)", page.read_text()):
            if target.startswith("http"):
                continue
            assert (page.parent / target).exists(), f"{page.name} links to missing {target}"


def test_api_page_shows_the_accessor_methods_as_they_are_called():
    text = (ROOT / "docs" / "api.md").read_text()
    assert "### `ds.cv.f_avg(beta: 'float' = 1.0, skip_undefined: 'bool' = False, *, dim:" in text
    heads = [line for line in text.splitlines() if line.startswith(("### `ds.cv.", "### `df.cv."))]
    assert heads and not [h for h in heads if "(ds:" in h or "(df:" in h or "(self" in h]


def test_api_page_lists_every_public_module_and_package():
    import pkgutil

    import cvframe

    text = (ROOT / "docs" / "api.md").read_text()
    for info in pkgutil.iter_modules(cvframe.__path__):
        if not info.name.startswith("_"):
            kind = " (package)" if info.ispkg else ""
            assert f"### `cvframe.{info.name}`{kind}\n" in text, info.name
