# Makes the caret fixtures of tests/data/readers/caret/ with R's caret package.
#
#   Rscript make_fixture.R [OUTDIR]      (OUTDIR defaults to this script's directory)
#
# The committed files were made with R 4.2.2 and caret 6.0-93 (Debian bookworm's r-base and
# r-cran-caret); tests/test_readers_caret.py reruns this script when Rscript is present and
# compares its output with them.
#
# Writes, for each fixture, caret's `train(...)$pred` as written by write.csv, and
# caret_reported.csv: the numbers caret itself reports in the same run, in long form
#   fixture, source, resample, class, metric, value
# where source is
#   "confusionMatrix": confusionMatrix(pred$pred, pred$obs, mode = "everything") on the pooled
#                      predictions of the final model (overall Accuracy/Kappa, byClass rows);
#   "resample":        fit$resample, caret's per-resample metrics (summaryFunction below);
#   "results":         fit$results of the chosen tuning value: the mean over resamples that
#                      caret prints by default.
# Fixtures:
#   binary      iris versicolor vs virginica (rows 51-147: folds of unequal size, so pooled
#               and averaged numbers differ; two sepal features), knn, k in {5, 9},
#               5-fold CV repeated twice, savePredictions = "final"  -> pred_binary.csv
#   binary_all  the same run with savePredictions = "all"            -> pred_binary_all.csv
#   multiclass  iris, 3 classes (two sepal features), knn, k = 7, 5-fold CV,
#               savePredictions = "final", multiClassSummary (per resample: the class means
#               Mean_F1, Mean_Precision, ... and AUC, the mean one-vs-rest ROC area)
#                                                                    -> pred_multiclass.csv
suppressPackageStartupMessages(library(caret))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) >= 1) {
  outdir <- args[1]
} else {
  file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  outdir <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "."
}
dir.create(outdir, showWarnings = FALSE, recursive = TRUE)

# caret's own summary functions, per resample: defaultSummary (Accuracy, Kappa),
# twoClassSummary (ROC = AUC, Sens, Spec; needs pROC) and prSummary (AUC = area under the
# precision-recall curve, Precision, Recall, F; needs MLmetrics). Both take the first factor
# level as the positive class.
summary_all <- function(data, lev = NULL, model = NULL) {
  c(defaultSummary(data, lev, model), twoClassSummary(data, lev, model),
    prSummary(data, lev, model))
}

reported <- list()
add <- function(fixture, source, resample, class, metric, value) {
  reported[[length(reported) + 1]] <<- data.frame(
    fixture = fixture, source = source, resample = resample, class = class,
    metric = metric, value = as.numeric(value), stringsAsFactors = FALSE)
}

run <- function(fixture, data, grid, ctrl, file) {
  set.seed(20261123)
  fit <- train(Species ~ ., data = data, method = "knn", tuneGrid = grid, trControl = ctrl,
               metric = "Accuracy")
  pred <- fit$pred
  write.csv(pred, file.path(outdir, file), row.names = FALSE)
  # the final model's predictions (savePredictions = "all" keeps every candidate)
  best <- fit$bestTune
  final <- pred
  for (p in names(best)) final <- final[final[[p]] == best[[p]], ]
  cm <- confusionMatrix(final$pred, final$obs, mode = "everything")
  for (m in c("Accuracy", "Kappa")) add(fixture, "confusionMatrix", "", "", m, cm$overall[[m]])
  by_class <- cm$byClass
  if (is.null(dim(by_class))) {
    for (m in names(by_class)) add(fixture, "confusionMatrix", "", cm$positive, m, by_class[[m]])
  } else {
    for (cl in rownames(by_class)) for (m in colnames(by_class))
      add(fixture, "confusionMatrix", "", sub("^Class: ", "", cl), m, by_class[cl, m])
  }
  rs <- fit$resample
  for (i in seq_len(nrow(rs))) for (m in setdiff(names(rs), "Resample"))
    add(fixture, "resample", rs$Resample[i], "", m, rs[i, m])
  res <- fit$results
  for (p in names(best)) res <- res[res[[p]] == best[[p]], ]
  for (m in setdiff(names(res), names(best))) add(fixture, "results", "", "", m, res[[m]])
  invisible(fit)
}

two <- droplevels(iris[51:147, c("Sepal.Length", "Sepal.Width", "Species")])
ctrl <- function(save) trainControl(method = "repeatedcv", number = 5, repeats = 2,
                                    savePredictions = save, classProbs = TRUE,
                                    summaryFunction = summary_all)
run("binary", two, data.frame(k = c(5, 9)), ctrl("final"), "pred_binary.csv")
run("binary_all", two, data.frame(k = c(5, 9)), ctrl("all"), "pred_binary_all.csv")

three <- iris[, c("Sepal.Length", "Sepal.Width", "Species")]
run("multiclass", three, data.frame(k = 7),
    trainControl(method = "cv", number = 5, savePredictions = "final", classProbs = TRUE,
                 summaryFunction = multiClassSummary),
    "pred_multiclass.csv")

write.csv(do.call(rbind, reported), file.path(outdir, "caret_reported.csv"), row.names = FALSE)
