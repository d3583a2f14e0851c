"""Make the WEKA reader fixtures with WEKA itself (run from the repo root).

    python tests/data/readers/weka/make_fixtures.py [OUTDIR]

Needs the Debian ``weka`` package (``apt-get install weka``: /usr/share/java/weka.jar,
WEKA 3.6) and a Java runtime. Writes into OUTDIR (default: this folder):

- ``alpha.arff``, ``beta.arff``: two seeded binary data sets (97 and 83 instances, class
  ``{positive,negative}``: WEKA's IR class, the first class value, is ``positive``);
- ``experiment.csv``: the Experimenter's result file (CSVResultListener) of 3 runs of
  5-fold cross-validation of NaiveBayes, NaiveBayes -K and Logistic on both data sets, one
  ``weka.experiment.Experiment`` command line per scheme, appended under one header (the
  columns are the same for the three schemes);
- ``experiment_means.txt``: the Experimenter's analysis of that file
  (``weka.experiment.PairedCorrectedTTester -V``) for ``F_measure``, ``Percent_correct`` and
  ``Kappa_statistic``: the means of the per-fold values that the Experimenter reports;
- ``predictions_nb_alpha.txt``: ``NaiveBayes -t alpha.arff -x 5 -p 0 -distribution``, the
  per-instance predictions of a 5-fold cross-validation (``inst#`` restarts at 1 per fold);
- ``summary_nb_alpha.txt``: ``NaiveBayes -t alpha.arff -x 5 -i``, the Explorer-style
  summary of the same cross-validation (same seed ``-s 1``, so the same folds);
- ``predictions_nb_beta_test.txt``: ``NaiveBayes -t alpha.arff -T beta.arff -p 0
  -distribution`` (one test set: its fold is given to the reader).
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
JAR = "/usr/share/java/weka.jar"
SCHEMES = [
    ["weka.classifiers.bayes.NaiveBayes"],
    ["weka.classifiers.bayes.NaiveBayes", "--", "-K"],
    ["weka.classifiers.functions.Logistic"],
]
TTEST_COLUMNS = ["F_measure", "Percent_correct", "Kappa_statistic"]


def arff(name: str, seed: int, n: int) -> str:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    x1 = rng.normal(y * 1.0, 1.0)
    x2 = rng.normal(-y * 0.7, 1.0)
    lines = [
        f"@relation {name}",
        "@attribute x1 numeric",
        "@attribute x2 numeric",
        "@attribute class {positive,negative}",
        "@data",
    ]
    lines += [
        f"{a:.4f},{b:.4f},{'positive' if c else 'negative'}"
        for a, b, c in zip(x1, x2, y, strict=True)
    ]
    return "\n".join(lines) + "\n"


def weka(*args: str, cwd: pathlib.Path) -> str:
    return subprocess.run(
        ["java", "-cp", JAR, *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


def main(out: pathlib.Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "alpha.arff").write_text(arff("alpha", 1, 97))
    (out / "beta.arff").write_text(arff("beta", 2, 83))
    parts = []
    for i, scheme in enumerate(SCHEMES):
        part = out / f"_part{i}.csv"
        weka(
            "weka.experiment.Experiment", "-r", "-L", "1", "-U", "3",
            "-T", "alpha.arff", "-T", "beta.arff",
            "-D", f"weka.experiment.CSVResultListener -O {part}",
            "-P", "weka.experiment.CrossValidationResultProducer",
            "--", "-X", "5", "-W", "weka.experiment.ClassifierSplitEvaluator",
            "--", "-W", *scheme,
            cwd=out,
        )  # fmt: skip
        lines = part.read_text().splitlines(keepends=True)
        parts.append(lines if i == 0 else lines[1:])
        part.unlink()
    (out / "experiment.csv").write_text("".join(line for p in parts for line in p))
    # The Experimenter's analysis reads ARFF: convert, then run the corrected t-tester
    # (CSVLoader reads NaiveBayes's empty options '' as missing: name them "none" first).
    (out / "_experiment.csv").write_text(
        (out / "experiment.csv").read_text().replace(",'',", ",'none',")
    )
    arff_text = weka("weka.core.converters.CSVLoader", "_experiment.csv", cwd=out)
    (out / "_experiment.csv").unlink()
    (out / "_experiment.arff").write_text(arff_text)
    header = (out / "experiment.csv").read_text().splitlines()[0].split(",")
    means = []
    for column in TTEST_COLUMNS:
        means.append(f"### {column}\n")
        means.append(
            weka(
                "weka.experiment.PairedCorrectedTTester",
                "-t",
                "_experiment.arff",
                "-D",
                "1",
                "-R",
                "2",
                "-F",
                "3",
                "-G",
                "4,5,6",
                "-c",
                str(header.index(column) + 1),
                "-V",
                "-csv",
                cwd=out,
            )  # fmt: skip
        )
    (out / "_experiment.arff").unlink()
    (out / "experiment_means.txt").write_text("".join(means))
    nb = "weka.classifiers.bayes.NaiveBayes"
    (out / "predictions_nb_alpha.txt").write_text(
        weka(nb, "-t", "alpha.arff", "-x", "5", "-p", "0", "-distribution", cwd=out)
    )
    (out / "summary_nb_alpha.txt").write_text(
        weka(nb, "-t", "alpha.arff", "-x", "5", "-i", cwd=out)
    )
    (out / "predictions_nb_beta_test.txt").write_text(
        weka(nb, "-t", "alpha.arff", "-T", "beta.arff", "-p", "0", "-distribution", cwd=out)
    )


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
