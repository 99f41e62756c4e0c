// The metrics side of a predicted row: simulated requests become the load generator's request
// records, so the result file of a prediction is computed and written by the same code as a
// measured one (metrics::ComputeMetrics, Judge, BuildResultJson), marked as predicted.
#pragma once

#include <string>

#include "core/json_text.hpp"
#include "runner/virtual_run.hpp"

namespace infermark::runner {

/// The figures a prediction table shows.
struct PredictedFigures {
  double tput_per_gpu = 0;         ///< Total tokens/s per GPU.
  double output_tput_per_gpu = 0;  ///< Output tokens/s per GPU.
  double median_intvty = 0;        ///< Tokens/s per user (1000 / median TPOT ms).
  double median_ttft_s = 0;        ///< Seconds.
  double median_tpot_ms = 0;       ///< Milliseconds.
  double median_e2el_s = 0;        ///< Seconds.
};

/// The result document of `run` (the reference client's format plus infermark's section, with
/// `predicted: true`, the matrix row and the engine's description) and its headline figures.
Json PredictedResultJson(const VirtualRun& run, const VirtualRowSpec& spec, const std::string& model_id,
                         const Json& row, PredictedFigures* figures);

/// Writes a result document as the load generator does (Python's json.dumps text, atomically).
void WritePredictedResult(const std::string& path, const Json& result);

}  // namespace infermark::runner
