"""Plan a cross-validation study before fitting: undefined folds, biases, advice.

Run:  python examples/plan.py

1. A rare class (20 positives in 1000 cases), unstratified 10-fold CV: the chance that some
   fold has no positives (exactly ``p_fold_without_positives``), or no predicted positives,
   the bias of each of the five F estimators and of AUC_avg vs AUC_merge, and the advice.
2. The advice as the prevalence grows: fewer folds than positives, stratify, F_tp,fp, then
   any aggregation for a balanced class.
3. Two classifiers of the same F, one liberal (precision < recall, more false positives) and
   one cautious: F_avg favours the liberal one (Forman & Scholz 2010, Section 5).
"""

from __future__ import annotations

import cvframe


def main() -> None:
    plan = cvframe.plan({"rare": 20, "common": 980}, k=10, stratified=False, trials=20_000)
    print(plan)
    exact = cvframe.p_fold_without_positives(20, n=1000, k=10)
    print(f"\nP(some fold without positives) = {exact:.4f} (p_fold_without_positives)\n")

    print("positives  k  stratified  report   reason")
    for pos in (6, 20, 100, 500):
        o = cvframe.plan({"pos": pos, "neg": 1000 - pos}, k=10, trials=20_000).overall
        print(f"{pos:9d} {o['k']:2d}  {o['stratified']!s:10}  {o['report']:8} {o['reason']}")

    print("\nSame F = 0.72, 2% positives, stratified 10-fold CV:")
    for prec, rec in ((0.6, 0.9), (0.9, 0.6)):
        p = cvframe.plan({"rare": 20, "common": 980}, precision=prec, recall=rec, trials=20_000)
        bias = p.estimators.set_index("estimator")["rel_bias"]
        print(
            f"  precision {prec}, recall {rec}: F_avg bias {100 * bias['f_avg']:+.1f}%, "
            f"F_tp,fp bias {100 * bias['f_tp_fp']:+.2f}%"
        )
    print("F_avg favours the classifier that makes more false positives.")


if __name__ == "__main__":
    main()
