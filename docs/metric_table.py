"""The table of docs/metrics.md, rendered from the metric registry (cvframe.metrics.REGISTRY).

``python docs/metric_table.py`` rewrites the table between the page's two markers;
``tests/test_metric_registry.py`` fails when the page and the registry disagree, so a metric
added to the registry shows on the site once this is run.
"""

from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "metrics.md"
BEGIN = "<!-- the registry's table: written by docs/metric_table.py -->"
END = "<!-- end of the registry's table -->"
_COLUMNS = (
    "name",
    "kind",
    "variants (display name: interval, paired test)",
    "range",
    "other names",
)


def _variant(metrics, m, variant: str) -> str:
    interval = m.intervals.get(variant, "none")
    test = m.tests.get(variant, "none")
    shown = metrics.display(m.name, variant)
    return f"`{metrics.spelled(m.name, variant)}` {shown}: {interval}, {test}"


def _names(m) -> str:
    other = [*m.aliases, *m.scorers, *m.multilabel_scorers]
    return ", ".join(f"`{n}`" for n in dict.fromkeys(other)) or "-"


def render() -> str:
    """The Markdown table of every entry of the registry."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from cvframe import metrics

    lines = [
        "| " + " | ".join(_COLUMNS) + " |",
        "|" + "---|" * len(_COLUMNS),
    ]
    for m in metrics.REGISTRY.values():
        low, high = m.bounds
        direction = "higher is better" if m.higher_is_better else "lower is better"
        kind = m.kind + (", over every class" if m.scope == "all" else "")
        cells = (
            f"`{m.name}` ({m.display})",
            kind,
            "<br>".join(_variant(metrics, m, v) for v in m.variants),
            f"[{low:g}, {high:g}], {direction}",
            _names(m),
        )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def page(text: str) -> str:
    """``text`` (the page) with the table between its markers rendered anew."""
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{render()}{END}{tail}"


if __name__ == "__main__":
    PAGE.write_text(page(PAGE.read_text()))
