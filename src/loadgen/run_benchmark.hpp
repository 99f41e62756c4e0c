// The load generator's run, the same for every target: warm-ups, the measured window driven by
// its schedule (dispatcher.hpp), then metrics, the verdict and the result document. A measured
// run drives an HTTP server on the client's event loops (RunHttpBenchmark); a predicted run
// drives the performance model on a virtual clock (src/sim/) through this same function.
#pragma once

#include <string>
#include <vector>

#include "core/json_text.hpp"
#include "loadgen/bench_plan.hpp"
#include "loadgen/executor.hpp"
#include "loadgen/target.hpp"
#include "metrics/benchmark_metrics.hpp"
#include "metrics/request_record.hpp"
#include "metrics/verdict.hpp"

namespace infermark::loadgen {

/// What a run produced.
struct BenchResult {
  Json result{};                                  ///< The result document (the reference's keys, then infermark's).
  metrics::BenchmarkMetrics metrics{};            ///< Its metrics.
  metrics::Verdict verdict{};                     ///< VALID or INVALID with reasons.
  bool complete = true;                           ///< False when a stop signal cut the run short.
  std::vector<metrics::RequestRecord> records{};  ///< Every measured request (warm-ups excluded), in dataset order.
  std::size_t dataset_length_mismatches = 0;      ///< Prompts whose text missed its drawn length.
};

/// Runs `plan` against `target` on `executor`. Everything that goes wrong during the run is
/// recorded per request; only a fault of infermark itself throws.
BenchResult RunBenchmark(const BenchPlan& plan, Target& target, Executor& executor);

/// Checks `config`, builds its plan and runs it against the HTTP server it names. Throws
/// InputError for unusable settings or files (exit 2) and ServerUnreachable when the server does
/// not answer before the run (exit 1, no result).
BenchResult RunHttpBenchmark(const BenchConfig& config);

/// The reference's default result file name:
/// `{backend}-{rate}qps[-concurrency{C}]-{model basename}-{date}.json`.
std::string DefaultResultFilename(const BenchConfig& config, const std::string& date);

}  // namespace infermark::loadgen
