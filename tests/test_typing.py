"""Lint and types are configured once, for CI and pre-commit, and CI runs them first.

mypy itself is not run here: CI's lint-and-types step runs ``python -m mypy cvframe`` before
the test suite (asserted below), and pre-commit runs it on every commit (asserted below). A
second, cold-cache mypy run inside the suite only held one of the two test workers for a
minute and could fail only where CI had already failed.
"""

from __future__ import annotations

import os
import re
import tomllib

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _read(name: str) -> str:
    with open(os.path.join(ROOT, name)) as fh:
        return fh.read()


PYPROJECT = tomllib.loads(_read("pyproject.toml"))


def test_ruff_and_mypy_are_configured():
    tool = PYPROJECT["tool"]
    assert tool["ruff"]["line-length"] == 100
    assert sorted(tool["ruff"]["lint"]["select"]) == sorted(["F", "E", "W", "I", "UP", "B"])
    assert "format" in tool["ruff"]
    assert tool["mypy"]["warn_unused_ignores"] is True


def test_the_test_extra_brings_the_lint_tools_and_xdist():
    extras = PYPROJECT["project"]["optional-dependencies"]

    def names(extra: str) -> set[str]:
        out = set()
        for req in extras[extra]:
            m = re.fullmatch(r"cvframe\[(.*)\]", req)
            if m:
                for sub in m.group(1).split(","):
                    out |= names(sub.strip())
            else:
                out.add(re.split(r"[<>=\[ ]", req)[0].lower())
        return out

    assert {"ruff", "mypy", "pytest", "pytest-xdist"} <= names("test")
    assert re.search(
        r"(^|\s)-n\s*(auto|\d+)", PYPROJECT["tool"]["pytest"]["ini_options"]["addopts"]
    )


def test_ci_runs_lint_and_types_before_the_readme_test_command():
    ci = _read(".ci/run").splitlines()
    readme_test = _read("README.md").splitlines()[2]
    at = {line: i for i, line in enumerate(ci)}
    assert readme_test in at
    for step in (
        "python -m ruff check cvframe tests",
        "python -m ruff format --check cvframe tests",
        "python -m mypy cvframe",
    ):
        found = [i for line, i in at.items() if line == step or line.startswith(step + " ")]
        assert found and min(found) < at[readme_test], step


def test_pre_commit_runs_ruff_format_and_mypy():
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load(_read(".pre-commit-config.yaml"))
    hooks = {hook["id"]: hook for repo in config["repos"] for hook in repo["hooks"]}
    assert {"ruff-check", "ruff-format", "mypy"} <= set(hooks)
    assert "mypy" in hooks["mypy"]["entry"] and hooks["mypy"]["pass_filenames"] is False
