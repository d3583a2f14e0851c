"""examples/cost_roc.py runs headless, prints what the cost-sensitive ROC page promises and
saves its three figures."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_cost_roc_example_runs(tmp_path):
    env = dict(os.environ, MPLBACKEND="Agg", CVFRAME_PROGRESS="0")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "cost_roc.py"), str(tmp_path / "out")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    out = proc.stdout
    assert "iso-cost slope m = c_FP/c_FN * N/P" in out
    prevalence = float(re.search(r"prevalence (\d\.\d+)", out).group(1))
    slope = float(re.search(r"N/P = (\d+\.\d+)", out).group(1))
    assert abs(slope - (1 / 5) * (1 - prevalence) / prevalence) < 0.01
    half = float(re.search(r"0\.5 decisions \(mean over folds\):\s+(\d\.\d+)", out).group(1))
    tuned = float(re.search(r"optimal threshold \(mean\):\s+(\d\.\d+)", out).group(1))
    assert tuned <= half  # the cost-optimal thresholds never cost more on their own folds
    for name in ("cost_roc_folds.png", "cost_roc_merged.png", "f_surface.png"):
        assert (tmp_path / "out" / name).stat().st_size > 1000
