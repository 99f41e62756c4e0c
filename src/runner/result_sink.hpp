// Where a sweep's results go besides their files: each finished row is ingested into the results
// store under one run per sweep (so a resumed sweep adds to the same run), and the report can be
// written from that run when the sweep ends.
#pragma once

#include <memory>
#include <string>

#include "runner/sweep.hpp"
#include "store/result_store.hpp"

namespace infermark::runner {

/// Names the run a sweep's points are stored under.
struct SweepRunInfo {
  std::string database;    ///< Store path.
  std::string run_key;     ///< Natural key (stable across resumes of the same sweep).
  std::string label;       ///< Shown in lists and the report.
  std::string recipe;      ///< Config keys or matrix file.
  bool predicted = false;  ///< Points are predictions (virtual clock).
};

/// The run key of a sweep: `<kind>:<recipe>@<result folder>`.
std::string SweepRunKey(const std::string& kind, const std::string& recipe, const std::string& result_dir);

/// A StoreResult that ingests each row's client result (read from its file) into the store, with
/// the row's deployment facts, the time scale and measured/predicted as provenance. The store is
/// opened on first use and kept open for the sweep.
StoreResult MakeStoreHook(const SweepRunInfo& info);

/// An AttemptSink that stores each attempt at a row under the sweep's run (the store is opened on
/// first use and kept open for the sweep).
AttemptSink MakeAttemptSink(const SweepRunInfo& info);

/// Stores the details the row of `result_path` left (request timeline, logs' tails, GPU telemetry
/// samples; results/point_details.hpp) for point `point_key` of `run`. Parts that cannot be read
/// are left out; returns their messages ("" when none).
std::string StoreRowDetails(results::ResultStore& store, const results::RunInfo& run, const std::string& result_path,
                            const std::string& point_key);

/// Writes the HTML report of the run `info` names to `out_path`; returns the points drawn.
int WriteSweepReport(const SweepRunInfo& info, const std::string& out_path);

}  // namespace infermark::runner
