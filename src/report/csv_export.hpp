// Points and evaluations as CSV (RFC 4180 quoting) with units in the headers, e.g. `tput_per_gpu [tok/s/GPU]`.
// Figures are de-scaled for time-scaled runs (the `time_scale` column says by how much). Agentic
// points leave isl/osl empty and fill the agentic columns (users, KV offload, host DRAM, duration,
// E2E-normalized and full-response interactivity, cache hit rates as fractions, request counts,
// warnings); fixed-length points leave those empty. Every point fills the power columns its record
// has (`power_valid`, per-GPU power and energy per token when valid; empty without power).
#pragma once

#include <string>
#include <vector>

#include "store/result_store.hpp"

namespace infermark::results {

/// The header line and one line per point of `runs` (each run's points in store order).
std::string ExportCsv(const std::vector<std::pair<RunSummary, std::vector<Point>>>& runs);

/// The header line and one line per evaluation: run, configuration, task, status and reasons,
/// scores and standard errors (empty where there are none, never 0), threshold, verdict, provenance.
std::string ExportEvaluationsCsv(const std::vector<Evaluation>& evaluations);

}  // namespace infermark::results
