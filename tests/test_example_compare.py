"""examples/compare_models.py runs headless and shows the decision it promises."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_compare_models_example(tmp_path):
    env = dict(os.environ, MPLBACKEND="Agg", CVFRAME_PROGRESS="0")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "compare_models.py"), str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "corrected_t on f (model - lr)" in out
    assert "bootstrap on f_tp_fp (model - lr)" in out
    assert "GridSearchCV (mean of per-fold F) picks   {'class_weight': 'balanced'}" in out
    assert "PooledSearchCV (F of pooled folds) picks  {'class_weight': None}" in out
    assert (tmp_path / "differences.png").stat().st_size > 1000
