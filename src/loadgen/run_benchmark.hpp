// The load generator's entry point: build the dataset, check the server is there, warm up, drive
// the schedule over the HTTP client's event loops, then compute metrics, judge the run and write
// the result file. The runner calls this in-process; `infermark bench serve` is a thin wrapper.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "core/json_text.hpp"
#include "loadgen/bench_config.hpp"
#include "metrics/benchmark_metrics.hpp"
#include "metrics/request_record.hpp"
#include "metrics/verdict.hpp"

namespace infermark::loadgen {

/// The server could not be reached before the run started (nothing was measured).
class ServerUnreachable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What a run produced.
struct BenchResult {
  Json result{};                                  ///< The result document (as written with --save-result).
  metrics::BenchmarkMetrics metrics{};            ///< Its metrics.
  metrics::Verdict verdict{};                     ///< VALID or INVALID with reasons.
  bool complete = true;                           ///< False when a stop signal cut the run short.
  std::vector<metrics::RequestRecord> records{};  ///< Every measured request (warm-ups excluded), in dataset order.
  std::string result_path{};                      ///< Where the result was written; empty when not saved.
  std::size_t dataset_length_mismatches = 0;      ///< Prompts whose text missed its drawn length.
};

/// Runs one benchmark. Throws InputError for unusable settings or files (exit 2) and
/// ServerUnreachable when the server does not answer before the run (exit 1, no result file).
/// Everything that goes wrong during the run is recorded per request instead.
BenchResult RunBenchmark(const BenchConfig& config);

/// The reference's default result file name:
/// `{backend}-{rate}qps[-concurrency{C}]-{model basename}-{date}.json`.
std::string DefaultResultFilename(const BenchConfig& config, const std::string& date);

}  // namespace infermark::loadgen
