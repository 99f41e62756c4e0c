// Storing result files in one call: what `infermark results ingest` does, and what the runner calls
// after each row (in-process, no second process or file format in between).
#pragma once

#include <string>
#include <vector>

#include "core/eval_thresholds.hpp"
#include "results/evaluation.hpp"
#include "results/result_files.hpp"
#include "store/result_store.hpp"

namespace infermark::results {

/// Reads every file of `paths` (folders expanded, see ExpandResultPaths) and stores their points
/// under `run` in one transaction. Nothing is stored when any file is unusable: the InputError
/// then lists every problem. An empty `run.run_key` is derived from the points' keys and raw
/// results, so ingesting the same files again is a no-op.
///
/// The runner's use, after a row finished:
/// ```
/// auto store = results::OpenStore(site.database);             // once per sweep
/// results::ReadOptions read;                                    // deployment facts come from
/// read.kind = predicted ? PointKind::kPredicted : PointKind::kMeasured;  // <stem>.row.json
/// results::IngestResultFiles(*store, {sweep_id, label, recipe, host, kVersion, "sweep"},
///                            {plan.result_path}, read);
/// results::WriteReport(*store, {sweep_id}, "report.html", {});  // at the end
/// ```
IngestOutcome IngestResultFiles(ResultStore& store, RunInfo run, const std::vector<std::string>& paths,
                                const ReadOptions& options);

/// Every point of the files of `paths` (folders expanded, see ExpandResultPaths). Throws one
/// InputError listing the problems of every unusable file.
std::vector<Point> ReadResultFiles(const std::vector<std::string>& paths, const ReadOptions& options);

/// The run key `IngestResultFiles` derives for `points` (and `evaluations`, when there are any):
/// `ingest-` and 12 hex digits.
std::string DerivedRunKey(const std::vector<Point>& points, const std::vector<Evaluation>& evaluations = {});

/// Reads the eval folders at or below `paths` (FindEvalFolders: a sweep's `evals/<RESULT_FILENAME>/`
/// folders) and stores their evaluations under `run` in one transaction; nothing is stored when any
/// folder is unusable (the InputError lists every problem). The runner's use after an eval row:
/// `IngestEvalFolders(*store, {sweep_id, …, "sweep"}, {eval_dir}, &thresholds)`.
IngestOutcome IngestEvalFolders(ResultStore& store, RunInfo run, const std::vector<std::string>& paths,
                                const EvalThresholds* thresholds);

}  // namespace infermark::results
