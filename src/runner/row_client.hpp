// The load client of a row, decided once: InferenceX's benchmark_serving settings for the row
// (random prompts of the row's lengths, range ratio 0.8, conc × prompts-per-conc prompts after
// conc × warmups-per-conc warm-ups, a closed loop at the row's concurrency, ignore_eos, every
// percentile metric, the result saved under RESULT_FILENAME). A measured row runs it as an
// `infermark bench serve` child process; a predicted row runs the same settings in process on
// the virtual clock.
#pragma once

#include <string>
#include <vector>

#include "loadgen/bench_config.hpp"
#include "matrix/matrix_row.hpp"
#include "runner/row_plan.hpp"

namespace infermark::runner {

/// The client settings of `row` against `base_url`, saving `<result_dir>/<result_filename>.json`;
/// `tokenizer` empty: the row's model id.
/// Applies what the sweep's options say about every row's client (the host-error tolerance).
void ApplyClientOptions(loadgen::BenchConfig& config, const PlanOptions& options);

loadgen::BenchConfig RowClientConfig(const matrix::MatrixRow& row, const std::string& base_url, int prompts_per_conc,
                                     int warmups_per_conc, const std::string& result_dir,
                                     const std::string& result_filename, const std::string& tokenizer);

/// The `bench serve` command line that runs `config` with the binary `infermark`.
std::vector<std::string> BenchServeArgv(const std::string& infermark, const loadgen::BenchConfig& config);

}  // namespace infermark::runner
