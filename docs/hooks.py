"""MkDocs hooks of cvframe's documentation site (``hooks:`` in mkdocs.yml).

The example gallery: every ``examples/*.py`` that saves images is run during the build, as
``python examples/NAME.py OUT`` with ``OUT = $CVFRAME_GALLERY/NAME`` (a temporary directory
when ``CVFRAME_GALLERY`` is not set; set it to keep the images), headless and with one BLAS
thread, two examples at a time. The images it writes become ``gallery/NAME/*.png`` of the
site (the HTML pages it writes are linked), and a generated ``gallery.md`` page shows, for
every example, its docstring, its images and its source. A failing example fails the
build. Under ``mkdocs serve`` the examples run once per process; ``CVFRAME_GALLERY=off``
skips them (the gallery then shows the sources only: for a quick preview while editing).

Before the build, every module of cvframe is imported: the API reference reads the docstrings
as the package fills them in at import (shared ``<<token>>`` fragments, the accessors' docs),
and submodules that ``import cvframe`` loads lazily would otherwise be read from source.

Links from a page to ``../examples/NAME.py`` (which work on GitHub) point to the example's
gallery entry in the site.

The math renderer ships with the site: MathJax's browser files (the ``django-static-mathjax``
package of the ``docs`` extra, which holds MathJax without needing Django) are copied to
``javascripts/mathjax/`` of the site, and mkdocs.yml loads them by a relative path, so the
formulas render with no network, from ``file://`` too.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import pathlib
import pkgutil
import posixpath
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
GALLERY = "gallery"
_LINK = re.compile(r"\]\((?:\.\./)+examples/(\w+)\.py\)")
_RUNS: dict[str, list[pathlib.Path]] = {}  # example name -> images, once per process
MATHJAX = "javascripts/mathjax"  # where the site holds MathJax (mkdocs.yml extra_javascript)
# The parts of MathJax's es5/ build the site uses: the TeX-to-HTML component, the fonts of its
# output, and what it loads on demand (TeX extensions, the menu, accessibility).
_MATHJAX_PARTS = ("tex-mml-chtml.js", "input", "output/chtml", "ui", "a11y", "sre", "adaptors")


def draws(path: pathlib.Path) -> bool:
    """Whether an example saves images (and so is run for the gallery)."""
    source = path.read_text()
    return "savefig" in source or ".png" in source


def _out_root() -> pathlib.Path:
    env = os.environ.get("CVFRAME_GALLERY")
    if env:
        return pathlib.Path(env).resolve()
    return pathlib.Path(tempfile.mkdtemp(prefix="cvframe-gallery-"))


def _run(path: pathlib.Path, out: pathlib.Path) -> list[pathlib.Path]:
    out.mkdir(parents=True, exist_ok=True)
    for old in [*out.glob("*.png"), *out.glob("*.html")]:
        old.unlink()
    env = dict(
        os.environ,
        MPLBACKEND="Agg",
        CVFRAME_PROGRESS="0",
        CVFRAME_GALLERY=str(out),
        OMP_NUM_THREADS="1",
        OPENBLAS_NUM_THREADS="1",
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    )
    proc = subprocess.run(
        [sys.executable, str(path), str(out)],
        cwd=out,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0:
        raise PluginError(f"examples/{path.name} failed (gallery):\n{proc.stderr[-3000:]}")
    images = sorted(out.glob("*.png")) + sorted(out.glob("*.html"))
    if not images:
        raise PluginError(f"examples/{path.name} saves images but wrote none into {out}")
    return images


def run_examples() -> dict[str, list[pathlib.Path]]:
    """Run the examples that draw (once per process); return name -> image paths."""
    if os.environ.get("CVFRAME_GALLERY", "").lower() == "off":
        return {}
    todo = [p for p in sorted(EXAMPLES.glob("*.py")) if draws(p) and p.stem not in _RUNS]
    if todo:
        root = _out_root()
        with ThreadPoolExecutor(max_workers=2) as pool:
            results = pool.map(lambda p: _run(p, root / p.stem), todo)
            for path, images in zip(todo, results, strict=True):
                _RUNS[path.stem] = images
    return _RUNS


def _docstring(path: pathlib.Path) -> str:
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    doc = re.sub(r"(\w)::$", r"\1:", doc, flags=re.M)  # reST's literal-block marker
    return doc.replace("``", "`")


def gallery_page(images: dict[str, list[pathlib.Path]]) -> str:
    """The markdown of the gallery page: every example, its images, its source."""
    lines = [
        "# Example gallery",
        "",
        "Every script in `examples/` of the repository, as it runs: the images below were "
        "drawn by running the examples while this site was built (`docs/hooks.py`). Run one "
        "yourself with `python examples/NAME.py [OUTPUT_DIR]`.",
        "",
    ]
    for path in sorted(EXAMPLES.glob("*.py")):
        name = path.stem
        lines += [f"## `{path.name}` {{#{name}}}", "", _docstring(path), ""]
        for image in images.get(name, []):
            if image.suffix == ".html":  # a page the example wrote (an HTML report)
                lines += [f"- [open `{image.name}`]({GALLERY}/{name}/{image.name})", ""]
            else:
                lines += [f"![{name}: {image.stem}]({GALLERY}/{name}/{image.name})", ""]
        source = path.read_text().rstrip("\n")
        lines += [f'??? example "Source of {path.name}"', "", "    ```python"]
        lines += [f"    {line}".rstrip() for line in source.splitlines()]
        lines += ["    ```", ""]
    return "\n".join(lines)


def import_package() -> None:
    """Import every module of cvframe, so that griffe's inspection sees them all."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import cvframe

    for info in pkgutil.walk_packages(cvframe.__path__, "cvframe."):
        if info.name == "cvframe.__main__":
            continue
        module = importlib.import_module(info.name)
        # griffe reads a decorated function's docstring from its __wrapped__ original,
        # which still has the <<token>> lines that @doc filled in on the wrapper.
        for obj in vars(module).values():
            inner = getattr(obj, "__wrapped__", None)
            if callable(obj) and inner is not None and getattr(obj, "__doc__", None):
                inner.__doc__ = obj.__doc__


def mathjax_files() -> dict[str, pathlib.Path]:
    """MathJax's browser files the site ships: site path -> installed file."""
    spec = importlib.util.find_spec("mathjax")
    origin = pathlib.Path(spec.origin) if spec is not None and spec.origin else None
    es5 = origin.parent / "static" / "mathjax" / "es5" if origin else None
    if es5 is None or not (es5 / "tex-mml-chtml.js").is_file():
        raise PluginError(
            "MathJax is not installed (the formulas would not render): "
            'python -m pip install -e ".[docs]" installs it (django-static-mathjax)'
        )
    found = {f"{MATHJAX}/LICENSE": es5.parent / "LICENSE"}  # Apache-2.0: ships with the copy
    for part in _MATHJAX_PARTS:
        root = es5 / part
        for path in [root] if root.is_file() else sorted(root.rglob("*")):
            if path.is_file():
                found[f"{MATHJAX}/{path.relative_to(es5).as_posix()}"] = path
    return found


def on_config(config):
    import_package()
    return config


def on_files(files, config):
    images = run_examples()
    for name, paths in images.items():
        for image in paths:
            files.append(
                File.generated(config, f"{GALLERY}/{name}/{image.name}", abs_src_path=str(image))
            )
    files.append(File.generated(config, "gallery.md", content=gallery_page(images)))
    for uri, path in mathjax_files().items():
        files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files


def on_page_markdown(markdown, page, config, files):
    depth = page.file.src_uri.count("/")
    target = posixpath.join(*([".."] * depth), "gallery.md") if depth else "gallery.md"
    return _LINK.sub(lambda m: f"]({target}#{m[1]})", markdown)
