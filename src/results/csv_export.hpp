// Points as CSV (RFC 4180 quoting) with units in the headers, e.g. `tput_per_gpu [tok/s/GPU]`.
// Figures are de-scaled for time-scaled runs (the `time_scale` column says by how much).
#pragma once

#include <string>
#include <vector>

#include "results/result_store.hpp"

namespace infermark::results {

/// The header line and one line per point of `runs` (each run's points in store order).
std::string ExportCsv(const std::vector<std::pair<RunSummary, std::vector<Point>>>& runs);

}  // namespace infermark::results
