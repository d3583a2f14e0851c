"""plan with a pilot frame, with its default classifier, and at sizes it cannot compute."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import cvframe
from cvframe.cli import main
from cvframe.simulation import pilot as _pilot


def _pilot_frame(seed=0, n=1000, pos=35, k=10, repeats=40, precision=0.8, recall=0.35):
    """A pilot of known precision and recall: stratified folds, Bernoulli predictions."""
    rng = np.random.default_rng(seed)
    q = pos * recall * (1 - precision) / (precision * (n - pos))
    y = np.r_[np.ones(pos, int), np.zeros(n - pos, int)]
    parts = []
    for r in range(repeats):
        fold = np.empty(n, int)
        for c in (1, 0):
            idx = rng.permutation(np.flatnonzero(y == c))
            fold[idx] = np.arange(idx.size) % k
        pred = np.where(y == 1, rng.random(n) < recall, rng.random(n) < q).astype(int)
        score = rng.normal(size=n) + 1.5 * y
        parts.append(
            pd.DataFrame(
                {"repeat": r, "fold": fold, "sample": np.arange(n), "y_true": y,
                 "y_pred": pred, "score": score}
            )
        )  # fmt: skip
    df = pd.concat(parts, ignore_index=True)
    df.attrs.update(pos_label=1, stratified="yes")
    return df


def test_pilot_reproduces_its_undefined_folds():
    df = _pilot_frame()
    p = cvframe.plan(pilot=df, trials=2000)
    assert p.assumed == "pilot" and p.design["k"] == 10 and p.design["n"] == 1000
    (prec, rec) = p.pilot["rates"][1]
    assert prec == pytest.approx(0.8, abs=0.05) and rec == pytest.approx(0.35, abs=0.03)
    rep = p.pilot["reproduced"][1]
    assert abs(rep["pilot_share"] - rep["planned"]) <= 3 * rep["se"]
    assert p.overall["report"] == "f_tp_fp"
    assert "Classifier from the pilot frame" in str(p)
    # the plan's own simulation agrees with its exact per-fold probability
    model = cvframe.simulation._model.Model.make(1000, 0.035, 0.8, 10, True, prec, rec)
    sim = cvframe.simulate(prevalence=0.035, n=1000, k=10, trials=4000, seed=1,
                           precision=prec, recall=rec)  # fmt: skip
    undefined = ((sim.tp + sim.fp) == 0) | ((sim.tp + sim.fn) == 0)
    share = float(undefined.mean())
    exact = _pilot.reproduce_check(model, (share, 40_000))
    assert abs(share - exact["planned"]) <= 3 * exact["se"]


def test_pilot_bad_inputs():
    df = _pilot_frame(repeats=2)
    with pytest.raises(ValueError, match="no scores"):
        cvframe.plan(pilot=df.drop(columns="score"))
    with pytest.raises(ValueError, match="one class"):
        cvframe.plan(pilot=df.assign(y_true=0))
    with pytest.raises(ValueError, match="no 'y_pred' column"):
        cvframe.plan(pilot=df.drop(columns="y_pred"))
    with pytest.raises(TypeError, match="predictions frame"):
        cvframe.plan(pilot=[1, 2, 3])
    with pytest.raises(ValueError, match="no pilot"):
        cvframe.plan()


def test_default_classifier_is_said_and_varied():
    p = cvframe.plan({"rare": 35, "common": 965}, trials=2000)
    assert p.assumed == "default"
    assert p.sensitivity["recall"].tolist() == list(_pilot.PLAUSIBLE_RECALLS)
    text = str(p)
    assert "DEFAULT" in text and "recall from 0.3 to 0.9" in text
    low = p.sensitivity.set_index("recall").loc[0.3, "p_some_undefined"]
    assert low > 0.5  # a realistic recall leaves some fold undefined in most studies
    given = cvframe.plan({"rare": 35, "common": 965}, precision=0.8, recall=0.8, trials=2000)
    assert given.assumed == "given" and given.sensitivity.empty


def test_never_any_when_a_plausible_classifier_risks_an_undefined_fold():
    for counts in ({"rare": 100, "common": 900}, {"rare": 60, "common": 940}):
        p = cvframe.plan(counts, trials=2000)
        risky = (p.sensitivity["p_some_undefined"] > _pilot.PLAUSIBLE_RISK).any()
        assert risky and p.overall["report"] != "any"
    q = cvframe.plan({"rare": 100, "common": 900}, precision=0.8, recall=0.8, trials=2000)
    assert q.overall["report"] == "any"  # that one classifier is safe: the old advice
    p = cvframe.plan({"rare": 100, "common": 900}, trials=2000)
    assert "plausible" in p.overall["reason"]
    balanced = cvframe.plan({"a": 500, "b": 500}, trials=2000)
    assert balanced.overall["report"] == "any"


@pytest.mark.parametrize("counts", [{"a": 10**12, "b": 10**13}, {"a": 10**6, "b": 10**7}])
def test_sizes_beyond_the_limit_are_refused_at_once(counts):
    with pytest.raises(ValueError, match=r"MAX_CASES=1,000,000.*subsample"):
        cvframe.plan(counts)


def test_cli_refuses_huge_counts_clearly(capsys):
    assert main(["plan", "--counts", "1000000000000,10000000000000"]) == 2
    err = capsys.readouterr().err
    assert "MAX_CASES" in err and "unexpected" not in err


def test_cli_pilot(tmp_path, capsys):
    path = tmp_path / "pilot.csv"
    _pilot_frame(repeats=3).to_csv(path, index=False)
    assert main(["plan", "--pilot", str(path), "--trials", "1000"]) == 0
    assert "Classifier from the pilot frame" in capsys.readouterr().out
