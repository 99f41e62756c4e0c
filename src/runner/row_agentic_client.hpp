// The load client of an agentic-coding row, decided once: InferenceX's replay settings
// (benchmark_lib.sh build_replay_cmd: concurrency = the row's users, DURATION from the row,
// warm-up 10 per lane, start turns in [0.25, 0.75], idle gaps capped at 300 s, seed 42) against
// the corpus InferenceX picks for the model (or the site's). A measured row runs it as an
// `infermark bench agentic` child; a predicted row runs the same settings on the virtual clock.
#pragma once

#include <string>
#include <vector>

#include "agentic/agentic_bench.hpp"
#include "matrix/matrix_row.hpp"

namespace infermark::runner {

/// The corpus InferenceX replays for `model_prefix` (its resolve_trace_source): the 393-session
/// corpus for dsv4*, glm5.2*, minimaxm3* and kimik3* models, its 256k variant otherwise.
std::string DefaultTraceSource(const std::string& model_prefix);

/// The replay settings of `row` against `base_url`; `traces` empty: DefaultTraceSource;
/// `duration_s` > 0 replaces the row's duration (shorter sweeps on a laptop; marked unsafe).
agentic::AgenticBenchConfig RowAgenticConfig(const matrix::MatrixRow& row, const std::string& base_url,
                                             const std::string& tokenizer, const std::string& traces,
                                             double duration_s);

/// The `bench agentic` command line that runs `config`, writing `<result_dir>/<result_filename>.json`
/// and aiperf's artifacts into `artifact_dir`; with `timeline`, the calls' timeline there too.
std::vector<std::string> BenchAgenticArgv(const std::string& infermark, const agentic::AgenticBenchConfig& config,
                                          const std::string& result_dir, const std::string& result_filename,
                                          const std::string& artifact_dir, const std::string& timeline = "");

}  // namespace infermark::runner
