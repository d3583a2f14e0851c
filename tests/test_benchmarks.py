"""benchmarks/run.py: one table from every bench file's rows; a failing bench is a failed row.

Runs on fake bench files (cheap); the real benchmarks are run by hand or by the lead
(``python benchmarks/run.py``), never timed in the test suite.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import math
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "benchmarks")


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"_test_{name}", os.path.join(BENCH, name))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses read their module's namespace
    spec.loader.exec_module(module)
    return module


run = _load("run.py")

ROW = {
    "what": "thing | with a bar",
    "cvframe_s": 0.5,
    "yardstick": "floor",
    "yardstick_s": 0.25,
    "ratio": 2.0,
    "goal": "<= 2x floor",
    "met": True,
}


@pytest.fixture
def fake_benches(tmp_path):
    (tmp_path / "bench_ok.py").write_text(
        f"def rows(quick=False):\n    return [{ROW!r}, dict({ROW!r}, what='second', met=False,"
        " note='why not')]\n"
    )
    (tmp_path / "bench_boom.py").write_text("def rows(quick=False):\n    raise OSError('disk')\n")
    (tmp_path / "bench_bad.py").write_text("def rows(quick=False):\n    return [{'what': 'x'}]\n")
    (tmp_path / "helper.py").write_text("raise SystemExit('not a bench file: never imported')\n")
    return tmp_path


@pytest.mark.parametrize("name", sorted(run.discover()))
def test_every_bench_file_has_rows_and_runs_standalone(name):
    with open(run.discover()[name]) as fh:
        tree = ast.parse(fh.read())
    funcs = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert "rows" in funcs, f"bench_{name}.py has no rows(quick=False)"
    assert [a.arg for a in funcs["rows"].args.args] in (["quick"], ["quick", "modes"])
    assert any(  # `if __name__ == "__main__":` keeps `python benchmarks/bench_x.py` working
        isinstance(node, ast.If) and "__main__" in ast.unparse(node.test) for node in tree.body
    )


def test_the_suite_finds_the_benchmarks():
    assert {"import", "compare", "search"} <= set(run.discover())


def test_table_has_the_columns_and_numbered_notes():
    rows = [ROW, dict(ROW, what="slow", ratio=math.nan, met=False, note="see profile")]
    text = run.table(rows)
    lines = text.splitlines()
    assert lines[0] == "| what | mode | engine | cvframe | yardstick | ratio | goal | met | load |"
    assert lines[2] == (
        r"| thing \| with a bar | — | — | 0.500 s | floor 0.250 s | 2.00x | <= 2x floor | yes | — |"
    )
    assert (
        lines[3] == "| slow [1] | — | — | 0.500 s | floor 0.250 s | — | <= 2x floor | **no** | — |"
    )
    fresh = run.table([dict(ROW, mode="fresh", engine="numba", load=1.5)]).splitlines()[2]
    assert fresh.startswith(r"| thing \| with a bar | fresh | numba | 0.500 s |")
    assert fresh.endswith("| yes | 1.50 |") or fresh.endswith("| yes | 1.5 |")
    assert lines[-1] == "- [1] see profile"


def test_failing_and_malformed_benches_are_failed_rows(fake_benches):
    rows = {}
    for name, path in run.discover(str(fake_benches)).items():
        got, _ = run.run_one(name, path, quick=True)
        rows[name] = got
    assert sorted(rows) == ["bad", "boom", "ok"]
    assert [r["what"] for r in rows["ok"]] == [ROW["what"], "second"]
    (boom,) = rows["boom"]
    assert boom["what"] == "boom: FAILED" and boom["met"] is False
    assert "OSError: disk" in boom["note"] and "bench_boom.py:2" in boom["note"]
    (bad,) = rows["bad"]
    assert "lacks cvframe_s, yardstick" in bad["note"]


def test_main_prints_one_table_and_writes_md_and_json(fake_benches, tmp_path, capsys):
    out = tmp_path / "res" / "run.md"
    code = run.main(["--quick", "--dir", str(fake_benches), "--out", str(out)])
    assert code == 1  # a bench failed
    printed = capsys.readouterr().out
    assert printed.count("| what | mode | engine | cvframe |") == 1
    assert "cores" in printed and "load average" in printed and "numpy" in printed
    assert out.read_text() in printed
    record = json.loads(out.with_suffix(".json").read_text())
    assert record["quick"] is True and len(record["load_after"]) == 3
    assert [r["bench"] for r in record["rows"]] == ["bad", "boom", "ok", "ok"]
    assert record["rows"][0]["cvframe_s"] is None  # NaN is written as null


def test_only_picks_one_file_and_rejects_unknown_names(fake_benches, capsys):
    assert run.main(["--quick", "--dir", str(fake_benches), "--only", "ok"]) == 0
    assert "FAILED" not in capsys.readouterr().out
    with pytest.raises(SystemExit):
        run.main(["--dir", str(fake_benches), "--only", "nope"])
    assert "choose from bad, boom, ok" in capsys.readouterr().err


def test_quick_and_only_write_no_results_file(fake_benches, monkeypatch, tmp_path):
    monkeypatch.setattr(run, "HERE", str(tmp_path))
    run.main(["--quick", "--dir", str(fake_benches), "--only", "ok"])
    assert not (tmp_path / "results").exists()


def test_missed_rows_close_the_table_with_where_their_time_goes():
    rows = [ROW, dict(ROW, what="slow", ratio=3.1, met=False, note="range check 40% of it")]
    text = run.missed(rows)
    assert text.splitlines()[0] == "## Goals missed, and where their time goes"
    assert text.splitlines()[-1] == "- slow: 3.10x, goal <= 2x floor. range check 40% of it"
    assert run.missed([ROW]) == "Every row met its goal."


timing = _load("_timing.py")


def test_interleaved_alternates_the_candidates_in_each_round():
    calls = []
    t = timing.interleaved({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, 3)
    assert calls == ["a", "b"] + ["a", "b"] * 3  # one warm-up each, then A, B rounds
    assert len(t["a"]["runs"]) == 3 and t.min("a") <= t.median("a")
    assert "a median" in t.spread()


@pytest.mark.parametrize("name", ["auc", "build", "demo", "import", "search", "simulation"])
def test_benchmarks_against_a_timed_yardstick_time_both_in_the_same_rounds(name):
    with open(run.discover()[name]) as fh:
        source = fh.read()
    # interleaved() directly, or a Case that _timing.measure times interleaved
    assert "interleaved(" in source or "Case(" in source, (
        f"bench_{name}.py times its yardstick in other rounds"
    )
