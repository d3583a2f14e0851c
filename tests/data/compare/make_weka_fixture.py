"""Make the WEKA fixture of the corrected repeated k-fold t-test (run from the repo root).

    python tests/data/compare/make_weka_fixture.py

Writes ``counts.csv`` (a seeded cube: 3 models x 10 repeats x 10 folds of 157 samples, so
fold sizes differ: 15 and 16), ``results.arff`` (per-fold F in WEKA's experiment format with
Number_of_training_instances / Number_of_testing_instances) and ``weka_corrected_t.csv``:
the output of WEKA's own ``weka.experiment.PairedCorrectedTTester`` (``WekaCorrectedT.java``
calls its ``calculateStatistics`` for every model against the first). Needs the Debian
``weka`` package (``apt-get install weka``: /usr/share/java/weka.jar) and a JDK.
"""

from __future__ import annotations

import pathlib
import subprocess
import tempfile

import numpy as np
import pandas as pd

HERE = pathlib.Path(__file__).resolve().parent
JAR = "/usr/share/java/weka.jar"
MODELS = {"base": 0.70, "better": 0.76, "same": 0.71}
N, REPEATS, FOLDS = 157, 10, 10


def counts() -> pd.DataFrame:
    rng = np.random.default_rng(2004)
    y = (rng.random(N) < 0.4).astype(int)
    rows = []
    for r in range(REPEATS):
        fold = rng.permutation(np.arange(N) % FOLDS)
        for name, acc in MODELS.items():
            pred = np.where(rng.random(N) < acc, y, 1 - y)
            for k in range(FOLDS):
                t, p = y[fold == k], pred[fold == k]
                rows.append(
                    {
                        "model": name,
                        "repeat": r,
                        "fold": k,
                        "class": 1,
                        "tp": int(((t == 1) & (p == 1)).sum()),
                        "fp": int(((t == 0) & (p == 1)).sum()),
                        "fn": int(((t == 1) & (p == 0)).sum()),
                        "tn": int(((t == 0) & (p == 0)).sum()),
                    }
                )
    return pd.DataFrame(rows)


def arff(df: pd.DataFrame) -> str:
    n_test = df[["tp", "fp", "fn", "tn"]].sum(axis=1)
    f = 2 * df.tp / (2 * df.tp + df.fp + df.fn)
    lines = [
        "@relation results",
        "@attribute Key_Dataset {data}",
        "@attribute Key_Run numeric",
        "@attribute Key_Fold numeric",
        "@attribute Key_Scheme {" + ",".join(MODELS) + "}",
        "@attribute Key_Scheme_options {none}",
        "@attribute Key_Scheme_version_ID {1}",
        "@attribute Number_of_training_instances numeric",
        "@attribute Number_of_testing_instances numeric",
        "@attribute F_measure numeric",
        "@data",
    ]
    for i, row in df.iterrows():
        lines.append(
            f"data,{row['repeat'] + 1},{row['fold'] + 1},{row['model']},none,1,"
            f"{N - n_test[i]},{n_test[i]},{float(f[i])!r}"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    df = counts()
    df.to_csv(HERE / "counts.csv", index=False)
    (HERE / "results.arff").write_text(arff(df))
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            ["javac", "-cp", JAR, "-d", tmp, str(HERE / "WekaCorrectedT.java")], check=True
        )
        out = subprocess.run(
            [
                "java",
                "-cp",
                f"{JAR}:{tmp}",
                "weka.experiment.WekaCorrectedT",
                str(HERE / "results.arff"),
                "F_measure",
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    (HERE / "weka_corrected_t.csv").write_text(out)
    print(out)


if __name__ == "__main__":
    main()
