"""examples/calibration.py runs headless and shows what docs/calibration.md promises."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_calibration_example_runs_and_separates_ranking_from_calibration(tmp_path):
    env = dict(os.environ, MPLBACKEND="Agg", CVFRAME_PROGRESS="0")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "calibration.py")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    out = proc.stdout
    assert "per-fold AUC identical for both models: True" in out
    rows = {}
    for name in ("calibrated", "miscalibrated"):
        line = re.search(rf"^{name}\s+(.*)$", out, flags=re.M)
        assert line, out
        rows[name] = [float(v) for v in line.group(1).split()]
    # columns: AUC_avg AUC_merge Brier_avg Brier_merge calibration_avg refinement_avg log_loss
    good, bad = rows["calibrated"], rows["miscalibrated"]
    assert good[0] == bad[0]  # AUC_avg equal
    assert bad[1] < good[1] - 0.05  # AUC_merge penalises the miscalibration
    assert bad[2] > 2 * good[2] and bad[3] > 2 * good[3]  # so does the Brier score
    assert bad[4] > 5 * good[4]  # ... through its calibration term
    assert bad[6] > good[6]
