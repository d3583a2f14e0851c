"""Every runnable example in examples/ runs headless and prints what its docs page promises;
an example that draws writes its images into the directory given as its argument (the docs
site's gallery runs it so: docs/hooks.py)."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

# ova_report.py is run by tests/test_repeats.py.
EXAMPLES = {
    "apples_to_apples.py": [
        "f_tp_fp         0.583",
        "f_avg           0.692",
        "f_pr_re_skip    0.909",
    ],
    "auc_calibration.py": ["AUC_avg  AUC_merge", "AUC_avg is the same for both"],
    "baselines.py": [
        "1 not_better_than_baseline finding(s)",
        "logistic regression beats the baselines: True",
        "1 train_test_gap finding(s)",
        "3 class_missing_from_training finding(s)",
        "5 train_duplicate finding(s)",
    ],
    "calibration_curve.py": ["pooled reliability curve (5 bins)", "Brier per fold"],
    "intervals.py": ["AUC_merge    logistic", "F_avg     0.692  0.000  1.000 corrected_t"],
    "multilabel.py": ["f_samples", "every cvframe number equals scikit-learn's"],
    "plan.py": [
        "P(some fold without positives) = 0.7772",
        "F_avg favours the classifier that makes more false positives.",
    ],
    "plots.py": [],
    "reconcile.py": ["is fold-averaged error", "is pooled accuracy", "is F_avg", "sum of parts"],
    "sklearn_f1.py": ["cross_val_score"],
    "thresholds.py": [
        "pooled choice (max F_tp,fp)",
        "fold-averaged choice (max mean F)",
        "break-even point on the pooled validation folds",
    ],
}


def _draws(name: str) -> bool:
    source = (ROOT / "examples" / name).read_text()
    return "savefig" in source or ".png" in source


#: Examples that take long, with the reason (the suite lists any test over 10 s without one).
SLOW = {"plots.py": "draws every plot of the gallery at full size (~12 s)"}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.slow(reason=SLOW[n])) if n in SLOW else n
        for n in sorted(EXAMPLES)
    ],
)
def test_example_runs(name, tmp_path):
    # one BLAS thread: small fits, where OpenBLAS threads only contend with the other workers
    env = dict(
        os.environ,
        MPLBACKEND="Agg",
        CVFRAME_PROGRESS="0",
        OMP_NUM_THREADS="1",
        OPENBLAS_NUM_THREADS="1",
    )
    out = tmp_path / "gallery"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name), *([str(out)] if _draws(name) else [])],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    for text in EXAMPLES[name]:
        assert text in proc.stdout, (text, proc.stdout[-2000:])
    if _draws(name):  # every image in the directory given, none elsewhere
        assert list(out.glob("*.png")), f"{name} wrote no image into {out}"
        assert not [p for p in tmp_path.rglob("*.png") if p.parent != out]


def test_every_example_is_covered():
    names = {p.name for p in (ROOT / "examples").glob("*.py")}
    # run by their own tests: test_repeats, test_example_calibration, test_example_cost_roc,
    # test_example_compare; report.py (10-20 s) by the docs build, whose gallery runs every
    # example that draws and fails on an error (.ci/run: mkdocs build --strict)
    others = {"ova_report.py", "calibration.py", "cost_roc.py", "compare_models.py", "report.py"}
    assert names == set(EXAMPLES) | others
