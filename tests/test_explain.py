"""explain: which fold aggregation a reported number is, checked against scikit-learn's own."""

from __future__ import annotations

import pathlib
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, f1_score, roc_auc_score
from sklearn.model_selection import (
    RepeatedStratifiedKFold,
    StratifiedKFold,
    cross_val_predict,
    cross_val_score,
)

import cvframe
from cvframe.cli import main
from cvframe.explanation import Explanation, explain

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _folds(cv, X, y):
    fold = np.empty(len(y), dtype=int)
    for i, (_, test) in enumerate(cv.split(X, y)):
        fold[test] = i
    return fold


@pytest.fixture(scope="module")
def binary():
    """A binary task, 5-fold CV with fold sizes 41/41/41/40/40 and a skewed class."""
    X, y = make_classification(203, weights=[0.8], flip_y=0.1, random_state=0)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    model = LogisticRegression()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pred = cross_val_predict(model, X, y, cv=cv)
        proba = cross_val_predict(model, X, y, cv=cv, method="predict_proba")[:, 1]
        f1_mean = cross_val_score(model, X, y, cv=cv, scoring="f1").mean()
    frame = pd.DataFrame({"fold": _folds(cv, X, y), "y_true": y, "y_pred": pred, "score": proba})
    return {"frame": frame, "X": X, "y": y, "cv": cv, "f1_mean": f1_mean, "pred": pred}


def test_cross_val_score_mean_is_f_avg(binary):
    value = f"{binary['f1_mean']:.4f}"
    e = explain(value, binary["frame"])
    assert isinstance(e, Explanation) and str(e) == e.text
    assert list(e.matches["name"]) == ["F_avg"]
    assert e.matches["value"].iloc[0] == pytest.approx(binary["f1_mean"], abs=1e-12)
    assert "cross_val_score(scoring='f1').mean()" in e.text
    pooled = f1_score(binary["y"], binary["pred"])
    assert f"F_tp,fp is {pooled:.4f}" in e.text
    assert e.digits == 4 and e.interval == pytest.approx((float(value) - 5e-5, float(value) + 5e-5))


def test_pooled_f1_of_cross_val_predict_is_f_tp_fp(binary):
    """What WEKA's Explorer reports: F of the predictions of all folds pooled."""
    pooled = f1_score(binary["y"], binary["pred"])
    e = explain(round(pooled, 4), binary["frame"])
    assert list(e.matches["name"]) == ["F_tp,fp"]
    assert "This is the recommended pooled aggregation" in e.text
    assert e.reference == "F_tp,fp"


def test_caret_resample_mean_of_accuracy_is_accuracy_avg():
    """caret's printed Accuracy: the mean over repeats x folds of per-fold accuracy."""
    X, y = make_classification(203, random_state=1, flip_y=0.2)
    cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=3, random_state=0)
    rows, per_fold = [], []
    for i, (train, test) in enumerate(cv.split(X, y)):
        model = LogisticRegression().fit(X[train], y[train])
        pred = model.predict(X[test])
        per_fold.append(accuracy_score(y[test], pred))
        rows.append(
            pd.DataFrame({"repeat": i // 5, "fold": i % 5, "y_true": y[test], "y_pred": pred})
        )
    frame = pd.concat(rows, ignore_index=True)
    reported = float(np.mean(per_fold))
    e = explain(reported, frame, "accuracy")
    assert "fold-averaged accuracy, mean over repeats" in list(e.matches["name"])
    assert not any(n.startswith("pooled accuracy") for n in e.matches["name"])
    # the same number, as caret prints it (4 digits, percent)
    e2 = explain(f"{100 * reported:.2f}", frame, "accuracy")
    assert "fold-averaged accuracy, mean over repeats" in list(e2.matches["name"])
    assert "read as" in e2.text


def test_a_number_matching_nothing_says_so_and_names_the_nearest(binary):
    e = explain("0.990", binary["frame"])
    assert e.matches.empty
    assert "matches none of the" in e.text
    nearest = e.candidates.iloc[0]
    assert f"the nearest is {nearest['name']}" in e.text
    assert (e.candidates["distance"].abs().diff().dropna() >= 0).all()


def test_a_coarse_number_matching_two_methods_says_both():
    # table2: F_avg 0.667, F_pr,re 0.682 (zero_division=0): "0.7" cannot tell them apart
    ds = cvframe.datasets.table2()
    e = explain("0.7", ds)
    names = list(e.matches["name"])
    assert {"F_avg", "F_pr,re"} <= set(names)
    for name in names:
        assert name in e.text
    assert "cannot tell them apart" in e.text
    assert "F_tp,fp" in e.text  # 0.769 is outside [0.65, 0.75]: said with its distance


def test_a_cube_where_f_avg_equals_f_pr_re():
    # every fold has the same precision and recall: F_avg == F_pr,re == F_tp,fp exactly
    ds = cvframe.from_counts({"tp": [3, 3], "fp": [1, 1], "fn": [1, 1], "tn": [5, 5]})
    e = explain("0.75", ds)
    assert {"F_tp,fp", "F_avg", "F_pr,re"} <= set(e.matches["name"])
    assert "3 aggregations" in e.text


def test_auc_avg_vs_auc_merge():
    df = pd.DataFrame(
        {
            "fold": [0, 0, 0, 0, 1, 1, 1, 1],
            "y_true": [0, 0, 1, 1, 0, 1, 0, 1],
            "score": [0.1, 0.4, 0.35, 0.8, 10.0, 10.5, 10.2, 11.0],
        }
    )
    per_fold = [roc_auc_score(g.y_true, g.score) for _, g in df.groupby("fold")]
    merged = roc_auc_score(df.y_true, df.score)
    e = explain(f"{np.mean(per_fold):.3f}", df, "auc")
    assert list(e.matches["name"]) == ["AUC_avg"]
    assert f"AUC_merge, is {merged:.3f}" in e.text
    e = explain(f"{merged:.4f}", df, "auc")
    assert list(e.matches["name"]) == ["AUC_merge"]
    assert "WEKA Explorer's ROC Area" in e.text


def test_multiclass_macro_and_weighted():
    X, y = make_classification(240, n_classes=3, n_informative=4, random_state=2, flip_y=0.15)
    cv = StratifiedKFold(5, shuffle=True, random_state=1)
    model = LogisticRegression(max_iter=500)
    pred = cross_val_predict(model, X, y, cv=cv)
    frame = pd.DataFrame({"fold": _folds(cv, X, y), "y_true": y, "y_pred": pred})
    macro_avg = cross_val_score(model, X, y, cv=cv, scoring="f1_macro").mean()
    e = explain(macro_avg, frame)
    assert "macro F_avg" in list(e.matches["name"])
    weighted = f1_score(y, pred, average="weighted")
    e = explain(weighted, frame)
    assert list(e.matches["name"]) == ["weighted F_tp,fp"]
    assert "WEKA Explorer's 'Weighted Avg.'" in e.text


def test_digits_come_from_the_text():
    ds = cvframe.datasets.table2()
    assert explain("0.770", ds).digits == 3
    assert explain(0.77, ds).digits == 2
    assert explain(0.77, ds, digits=3).digits == 3
    assert explain("76.9%", ds).value == pytest.approx(0.769)
    assert list(explain("76.9%", ds).matches["name"]) == ["F_tp,fp"]


def test_repeats_per_repeat_and_mean():
    df = pd.DataFrame(
        {
            "repeat": [0] * 8 + [1] * 8,
            "fold": [0, 0, 0, 0, 1, 1, 1, 1] * 2,
            "y_true": [1, 1, 0, 0, 1, 1, 0, 0] * 2,
            "y_pred": [1, 1, 1, 0, 1, 0, 0, 0] + [1, 1, 0, 0, 1, 1, 0, 0],
        }
    )
    e = explain("1.0", df)
    assert "F_tp,fp, repeat 1" in list(e.matches["name"])
    names = list(e.candidates["name"])
    assert "F_tp,fp, mean over repeats" in names and "F_avg, repeat 0" in names


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (dict(value="abc"), ValueError, "value="),
        (dict(value=150), ValueError, "value="),
        (dict(value=-0.1), ValueError, "value="),
        (dict(value=True), TypeError, "value="),
        (dict(metric="g"), ValueError, "metric="),
        (dict(beta=-1), ValueError, "beta"),
        (dict(digits=-1), ValueError, "digits="),
        (dict(data=[1, 2]), TypeError, "data must be"),
        (dict(metric="auc"), ValueError, "metric='auc'"),
        (dict(pos_label=7), ValueError, "pos_label="),
    ],
)
def test_bad_inputs_name_the_argument(kwargs, error, match):
    args = {"value": "0.5", "data": cvframe.datasets.table2(), **kwargs}
    value, data = args.pop("value"), args.pop("data")
    with pytest.raises(error, match=match):
        explain(value, data, **args)


def test_readers_output_as_it_is():
    """A reader's frame (attrs source and pos_label) goes to explain unchanged."""
    df = pd.DataFrame(
        {"fold": [0, 0, 0, 1, 1, 1], "y_true": list("abbaba"), "y_pred": list("abaaba")}
    )
    df.attrs = {"source": "caret", "pos_label": "a"}
    e = explain("0.857", df)
    # pos "a": tp 3 fp 1 fn 0 -> F_tp,fp = 6/7 = 0.857
    assert "F_tp,fp" in list(e.matches["name"])


# --- command line ------------------------------------------------------------------------------


def test_cli_explain_prints_the_paragraph(binary, tmp_path, capsys):
    path = tmp_path / "preds.csv"
    binary["frame"].to_csv(path, index=False)
    code = main(["explain", str(path), "--reported", f"{binary['f1_mean']:.4f}"])
    out = capsys.readouterr().out
    assert code == 0 and "matches F_avg" in out
    code = main(["explain", str(path), "--reported", "0.8", "--metric", "auc"])
    assert code == 0 and "AUC" in capsys.readouterr().out


def test_cli_explain_reads_a_netcdf_cube(tmp_path, capsys):
    from cvframe.io import prepare_for_write

    path = tmp_path / "counts.nc"
    prepare_for_write(cvframe.datasets.table2()).to_netcdf(path)
    assert main(["explain", str(path), "--reported", "0.667"]) == 0
    assert "matches F_avg" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["--reported", "abc"], "--reported 'abc' is not a number"),
        (["--reported", "0.5", "--metric", "auc"], "needs scores"),
        (["--reported", "0.5", "--digits", "x"], "--digits"),
        (["--reported", "0.5", "--beta", "-2"], "--beta"),
    ],
)
def test_cli_explain_user_errors_exit_2_in_one_line(tmp_path, capsys, argv, match):
    path = tmp_path / "p.csv"
    pd.DataFrame({"fold": [0, 0, 1, 1], "y_true": [0, 1, 0, 1], "y_pred": [0, 1, 1, 1]}).to_csv(
        path, index=False
    )
    assert main(["explain", str(path), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and match in err, err


def test_cli_explain_unknown_columns_and_excel(tmp_path, capsys):
    path = tmp_path / "x.csv"
    pd.DataFrame({"a": [1], "b": [2]}).to_csv(path, index=False)
    assert main(["explain", str(path), "--reported", "0.5"]) == 2
    err = capsys.readouterr().err
    assert "'a', 'b'" in err and "--format-in" in err and "format=" not in err
    xlsx = tmp_path / "x.xlsx"
    xlsx.write_bytes(b"PK\x03\x04rest")
    assert main(["explain", str(xlsx), "--reported", "0.5"]) == 2
    err = capsys.readouterr().err
    assert "Excel" in err and "CSV" in err and "x.xlsx" in err


# --- the docs page -----------------------------------------------------------------------------


def test_doc_page_examples_run():
    import doctest
    import re

    text = (ROOT / "docs" / "explain.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if ">>>" in b]
    assert blocks, "explain.md has no runnable example"
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, "explain.md", "explain.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    failures: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)


# --- invariants ------------------------------------------------------------------------------


_fold_counts = st.lists(
    st.tuples(*[st.integers(0, 30)] * 4).filter(lambda c: sum(c) > 0), min_size=2, max_size=6
)


@settings(max_examples=40, deadline=None)
@given(_fold_counts, st.integers(1, 5), st.sampled_from(["f", "accuracy"]))
def test_every_aggregation_rounded_matches_itself_and_matches_lie_in_the_interval(
    folds, digits, metric
):
    tp, fp, fn, tn = (list(x) for x in zip(*folds, strict=True))
    ds = cvframe.from_counts({"tp": tp, "fp": fp, "fn": fn, "tn": tn})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        every = explain("0.5", ds, metric).candidates
        for _, row in every.iterrows():
            text = f"{row['value']:.{digits}f}"
            e = explain(text, ds, metric)
            assert row["name"] in list(e.matches["name"])
            lo, hi = e.interval
            assert ((e.matches["value"] >= lo - 1e-9) & (e.matches["value"] <= hi + 1e-9)).all()
            assert e.digits == digits and len(e.matches) >= 1
            assert "matches none" not in e.text
