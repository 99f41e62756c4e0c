// The HTML report: one self-contained file (inline CSS and SVG, no scripts or external assets)
// with, per scenario (model, ISL/OSL), throughput per GPU against interactivity and against E2E
// latency, one Pareto frontier per (hardware, framework, precision, spec decoding) group, predicted
// points beside measured ones, time-scaled runs de-scaled, and a table of every point. Agentic-coding
// points get a section of their own per model: throughput per GPU against P50 E2E-normalized and
// full-response interactivity (series per hardware, framework, precision and KV offload mode, offload
// drawn as a halo), the prefix-cache hit rate (theoretical and server-measured) against users, and
// a table of their fields. Accuracy evaluations get a section of their own (eval_section.hpp),
// linked from the points of their configuration.
#pragma once

#include <string>
#include <vector>

#include "store/result_store.hpp"

namespace infermark::results {

/// A run and its points, as the report draws them.
struct ReportRun {
  RunSummary run;                       ///< The run.
  std::vector<Point> points;            ///< Its points.
  std::vector<Evaluation> evaluations;  ///< Its accuracy evaluations.
};

/// Report settings.
struct ReportOptions {
  std::string title = "infermark benchmark report";  ///< Page heading.
  std::string store_path;                            ///< Shown in the header (where the data came from).
};

/// The whole HTML document.
std::string RenderReport(const std::vector<ReportRun>& runs, const ReportOptions& options);

/// The runs a report shows when none are named: the newest measured run and the newest predicted
/// run (either may be missing).
std::vector<RunSummary> DefaultReportRuns(ResultStore& store);

/// Loads the runs named by `run_refs` (see ResultStore::FindRun; empty: DefaultReportRuns) from
/// `store` with their evaluations and writes the report to `out_path` atomically. Returns the number
/// of points drawn.
/// Throws InputError when the store has no runs or a ref matches none.
int WriteReport(ResultStore& store, const std::vector<std::string>& run_refs, const std::string& out_path,
                const ReportOptions& options);

}  // namespace infermark::results
