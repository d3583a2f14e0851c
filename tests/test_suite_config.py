"""The suite's own configuration: under its default options (pyproject.toml's ``addopts``,
``-n auto --dist loadfile``) each test file runs on one worker, so the expensive
module-scoped fixtures (clusters, the docs site, rendered reports and figures) are built once
per run. Checked by running a small suite of two such files under those options, each
fixture writing a line to a log when it is built; and, the test of the test, the same suite
under ``--dist load`` (tests spread one by one), where a fixture is built once per worker."""

from __future__ import annotations

import os
import pathlib
import shlex
import subprocess
import sys
import tomllib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

#: A test file whose module fixture logs each build; ``{name}`` tells the files apart.
SUITE_FILE = """
import os, time, pytest

@pytest.fixture(scope="module")
def expensive():
    with open(os.environ["BUILD_LOG"], "a") as log:
        log.write("{name}\\n")
    return 1

@pytest.mark.parametrize("i", range(12))
def test_uses_it(expensive, i):
    time.sleep(0.01)
    assert expensive == 1
"""


def addopts() -> list[str]:
    """The suite's default options, as pyproject.toml gives them."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return shlex.split(config["tool"]["pytest"]["ini_options"]["addopts"])


def _dist(opts: list[str]) -> list[str]:
    """The scheduling options among ``opts``: ``--dist`` and its value."""
    i = opts.index("--dist")
    return opts[i : i + 2]


def builds(tmp_path: pathlib.Path, dist: list[str]) -> dict[str, int]:
    """How many times each file's module fixture was built in one run of the small suite
    on two workers under ``dist``."""
    tmp_path.mkdir()
    for name in ("a", "b"):
        (tmp_path / f"test_{name}.py").write_text(SUITE_FILE.replace("{name}", name))
    (tmp_path / "pytest.ini").write_text("[pytest]\n")  # no project options from above
    log = tmp_path / "builds.log"
    # only pytest-xdist among the installed plugins: the others take seconds to load
    env = {**os.environ, "BUILD_LOG": str(log), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    opts = ["-p", "xdist.plugin", "-p", "no:cacheprovider", "-q", "-n", "2", *dist]
    res = subprocess.run(
        [sys.executable, "-m", "pytest", *opts],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    lines = log.read_text().split()
    return {name: lines.count(name) for name in ("a", "b")}


def test_the_suite_keeps_each_file_on_one_worker_by_default():
    opts = addopts()
    assert "-n" in opts and _dist(opts) == ["--dist", "loadfile"], opts


@pytest.mark.slow(reason="two small pytest runs on two workers each (~5 s)")
def test_module_fixtures_are_built_once_under_the_suites_options(tmp_path):
    assert builds(tmp_path / "default", _dist(addopts())) == {"a": 1, "b": 1}
    # the test of the test: spread one by one, each worker builds each file's fixture
    spread = builds(tmp_path / "spread", ["--dist", "load"])
    assert max(spread.values()) > 1, spread
