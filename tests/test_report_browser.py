"""The HTML report as a person sees it: headless Chromium at 1400 px, screenshots kept.

Three reports (binary; 4 classes with two models; 10 classes with three models; 3 repeats x
5 folds) are rendered, laid out
by Chromium (a probe script added to a copy of the page reads the layout) and screenshotted
to ``test-artifacts/screenshots/`` at the repository root for a reviewer to open. Checked:
the page is shorter than 8,000 px with the per-fold tables collapsed, nothing is wider than
the window, every image is shown at its natural size (so its text keeps its size), the title
is there and the summary (the decision and the headline numbers) is the first section.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cvframe.report import report

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("report_browser")]

WIDTH = 1400
MAX_HEIGHT = 8000
SHOTS = Path(__file__).resolve().parents[1] / "test-artifacts" / "screenshots"

# Added to a copy of the page only (the report itself has no script): the layout as JSON.
PROBE = """<pre id="cvframe-probe">PROBE</pre><script>
const d = document.documentElement;
document.getElementById("cvframe-probe").textContent = JSON.stringify({
  height: d.scrollHeight, width: d.scrollWidth, title: document.title,
  first_section: (document.querySelector("section") || {}).className || null,
  h1: (document.querySelector("h1") || {}).textContent || null,
  details_open: [...document.querySelectorAll("details")].filter(x => x.open).length,
  images: [...document.images].map(i => ({
    shown: i.getBoundingClientRect().width, right: i.getBoundingClientRect().right,
    natural: i.naturalWidth || +i.getAttribute("width")}))
});
</script>"""


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed; CI must install it (.ci/run does)")
    pytest.skip("chromium is not on PATH (apt-get install chromium): no screenshots")


def _flags(profile: Path) -> list[str]:
    return [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
    ]


def _binary(n: int = 200, reps: int = 3, folds: int = 5, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    parts = []
    for r in range(reps):
        s = y + rng.normal(0, 0.9, n)
        parts.append(
            pd.DataFrame(
                {
                    "repeat": r,
                    "fold": rng.permutation(np.arange(n) % folds),
                    "y_true": y,
                    "y_pred": (s > 0.5).astype(int),
                    "score": s,
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def _multiclass(
    n: int = 150,
    k: int = 4,
    reps: int = 3,
    folds: int = 5,
    models: tuple[str, ...] = ("logistic", "tree"),
) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    y = rng.integers(0, k, n)
    parts = []
    for r in range(reps):
        fold = rng.permutation(np.arange(n) % folds)
        for j, model in enumerate(models):
            s = rng.normal(0, 1, (n, k))
            s[np.arange(n), y] += 1.5 - 0.6 * j
            p = np.exp(s) / np.exp(s).sum(1, keepdims=True)
            part = pd.DataFrame(
                {"model": model, "repeat": r, "fold": fold, "y_true": y, "y_pred": p.argmax(1)}
            )
            for c in range(k):
                part[f"score_{c}"] = p[:, c]
            parts.append(part)
    return pd.concat(parts, ignore_index=True)


def _page(kind: str) -> tuple[str, str]:
    import matplotlib

    matplotlib.use("Agg")
    if kind == "binary":
        df = _binary()
        title = "binary screenshot test"
    elif kind == "ten_classes":
        df = _multiclass(n=400, k=10, models=("logistic", "naive_bayes", "tree"))
        title = "10 classes, 3 models: logistic vs naive_bayes vs tree"
    else:
        df = _multiclass()
        title = "multiclass screenshot test: logistic vs tree"
    return report(df.cv.counts(), scores=df, format="html", title=title), title


@pytest.fixture(
    scope="module",
    params=[
        "binary",
        "multiclass",
        pytest.param(
            "ten_classes",
            marks=pytest.mark.slow(
                reason="renders a 10-class, 3-model report with every plot, then two "
                "Chromium runs (~10 s)"
            ),
        ),
    ],
)
def shown(request, tmp_path_factory):
    """(layout probe, screenshot path, title, page) of one report in headless Chromium."""
    browser = _chromium()
    kind = request.param
    page, title = _page(kind)
    tmp = tmp_path_factory.mktemp(f"browser_{kind}")
    probe_page = tmp / "probe.html"
    probe_page.write_text(page.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    flags = _flags(tmp / "profile")
    dom = subprocess.run(
        [browser, *flags, f"--window-size={WIDTH},1000", "--dump-dom", probe_page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    found = re.search(r'<pre id="cvframe-probe">(.*?)</pre>', dom.stdout, re.S)
    assert found, dom.stdout[-2000:]
    import html

    layout = json.loads(html.unescape(found.group(1)))
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / f"report_{kind}.html").write_text(page, encoding="utf-8")
    shot = SHOTS / f"report_{kind}.png"
    height = min(int(layout["height"]) + 40, MAX_HEIGHT + 400)
    clean = tmp / "page.html"
    clean.write_text(page, encoding="utf-8")
    res = subprocess.run(
        [
            browser,
            *flags,
            f"--window-size={WIDTH},{height}",
            f"--screenshot={shot}",
            clean.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    print(f"\nscreenshot of the {kind} report: {shot}")
    return layout, shot, title, page


def test_page_is_short_with_the_fold_tables_collapsed(shown):
    layout, _, _, page = shown
    assert layout["details_open"] == 0 and "<details open" not in page
    assert layout["height"] < MAX_HEIGHT, f"page is {layout['height']} px tall"


def test_nothing_is_wider_than_the_window(shown):
    layout, *_ = shown
    assert layout["width"] <= WIDTH, f"page is {layout['width']} px wide"
    assert layout["images"], "the report has plots"
    for img in layout["images"]:
        assert img["right"] <= WIDTH
        # shown at natural size: the PNG's text keeps its drawn size (>= 11 px)
        assert img["shown"] == pytest.approx(img["natural"], abs=2), img  # + 1 px border


def test_title_and_findings_first(shown):
    layout, _, title, _ = shown
    assert layout["title"] == f"cvframe report: {title}"
    assert layout["h1"] == f"cvframe report: {title}"
    assert layout["first_section"] == "summary"  # the answer first, then the findings


def test_screenshot_is_the_page(shown):
    from PIL import Image

    layout, shot, _, _ = shown
    img = np.asarray(Image.open(shot).convert("L"))
    assert img.shape[1] == WIDTH
    ink = np.flatnonzero((img < 245).any(axis=1))
    assert ink.size and img.std() > 10  # not blank
    # the last drawn row is near the bottom of the laid-out page (nothing cut off)
    assert layout["height"] - 120 <= ink[-1] <= layout["height"] + 40


# --- the first screen of an imbalanced study -----------------------------------------------------

#: The height of the first screen the answer must fit in.
FIRST_SCREEN = 800

# The layout of the first screen: where the answer and the findings are, on the page.
FIRST_PROBE = """<pre id="cvframe-probe">PROBE</pre><script>
const box = s => { const x = document.querySelector(s); if (!x) return null;
  const b = x.getBoundingClientRect(); return [b.top + scrollY, b.bottom + scrollY]; };
document.getElementById("cvframe-probe").textContent = JSON.stringify({
  lead: box("p.lead"), decision: box("table.decision-table"), headline: box("table.summary-table"),
  findings: box("section.findings"),
  grouped: [...document.querySelectorAll("table.findings-table")].slice(0, 1).map(
    t => t.querySelectorAll("tbody tr").length)[0] || 0,
});
</script>"""


def _imbalanced(n: int = 400, prevalence: float = 0.06, folds: int = 10) -> pd.DataFrame:
    """Three models on 6% positives, 2 repeats x 10 unstratified folds: many folds without a
    predicted positive (undefined precision), some without a positive."""
    rng = np.random.default_rng(0)
    y = (rng.random(n) < prevalence).astype(int)
    parts = []
    for r in range(2):
        fold = rng.permutation(np.arange(n) % folds)
        for model, sep, cut in (
            ("logistic", 1.6, 0.5),
            ("forest", 1.2, 0.75),
            ("boosting", 1.9, 0.6),
        ):
            s = 1 / (1 + np.exp(-(sep * (2 * y - 1) + rng.normal(0, 1.2, n) - 1.5)))
            parts.append(
                pd.DataFrame(
                    {"model": model, "repeat": r, "fold": fold, "y_true": y}
                    | {"y_pred": (s > cut).astype(int), "score": s}
                )
            )
    return pd.concat(parts, ignore_index=True)


def test_the_answer_is_on_the_first_screen_and_the_findings_are_grouped(tmp_path):
    import html
    import warnings

    import matplotlib

    from cvframe.diagnostics import anomalies

    matplotlib.use("Agg")
    browser = _chromium()
    df = _imbalanced()
    ds = df.cv.counts()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        page = report(ds, scores=df, format="html", title="imbalanced: three models", plots=False)
    probe = tmp_path / "probe.html"
    probe.write_text(page.replace("</body>", FIRST_PROBE + "</body>"), encoding="utf-8")
    dom = subprocess.run(
        [
            browser,
            *_flags(tmp_path / "profile"),
            f"--window-size={WIDTH},1000",
            "--dump-dom",
            probe.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    found = re.search(r'<pre id="cvframe-probe">(.*?)</pre>', dom.stdout, re.S)
    assert found, dom.stdout[-2000:]
    at = json.loads(html.unescape(found.group(1)))
    # the decision's lead, its differences and the headline numbers with their intervals
    for part in ("lead", "decision", "headline"):
        assert at[part] is not None and at[part][1] <= FIRST_SCREEN, (part, at)
    assert at["findings"][0] >= at["headline"][1]  # the findings follow the answer
    rows = anomalies(ds, frame=df)
    assert len(rows) > 3 * at["grouped"] and at["grouped"] >= 3  # grouped: a line per kind
    assert "undefined_precision" in page and "folds" in page
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "report_imbalanced.html").write_text(page, encoding="utf-8")
    subprocess.run(
        [
            browser,
            *_flags(tmp_path / "profile2"),
            f"--window-size={WIDTH},{FIRST_SCREEN}",
            f"--screenshot={SHOTS / 'report_imbalanced_first_screen.png'}",
            (tmp_path / "probe.html").as_uri(),
        ],
        capture_output=True,
        timeout=120,
    )
