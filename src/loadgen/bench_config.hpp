// Settings of one load run: the reference client's flags (same names and defaults) plus
// infermark's own. A plain struct, filled from the flags of `infermark bench serve`, by the runner for a row
// (run as that command for a measured row, in process for a predicted one) and by `predict`.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "loadgen/dataset.hpp"
#include "metrics/verdict.hpp"

namespace infermark::loadgen {

/// Everything RunBenchmark needs.
struct BenchConfig {
  // --- the reference's flags ---
  std::string backend = "vllm";         ///< --backend.
  std::string base_url{};               ///< --base-url; empty: http://host:port.
  std::string host = "127.0.0.1";       ///< --host.
  int port = 8000;                      ///< --port.
  std::string endpoint{};               ///< --endpoint; empty: the backend's default (/v1/completions …).
  std::string model{};                  ///< --model (required).
  std::string served_model_name{};      ///< --served-model-name; empty: the model.
  std::string tokenizer{};              ///< --tokenizer: file, folder or HF id; empty: the model.
  std::string dataset_name = "random";  ///< --dataset-name: random or jsonl.
  std::string dataset_path{};           ///< --dataset-path (jsonl).
  RandomDatasetOptions
      random{};  ///< --random-input-len, --random-output-len, --random-range-ratio, --random-prefix-len.
  std::size_t num_prompts = 1000;                                              ///< --num-prompts.
  std::optional<int> max_concurrency{};                                        ///< --max-concurrency; none: unbounded.
  std::optional<double> request_rate{};                                        ///< --request-rate; none: inf.
  double burstiness = 1.0;                                                     ///< --burstiness.
  bool ignore_eos = false;                                                     ///< --ignore-eos.
  int num_warmups = 0;                                                         ///< --num-warmups.
  std::vector<std::string> percentile_metrics{"ttft", "tpot", "itl", "e2el"};  ///< --percentile-metrics.
  std::vector<double> metric_percentiles{90.0, 99.0, 99.9};                    ///< --metric-percentiles.
  std::map<std::string, double> goodput{};                                     ///< --goodput ttft:ms tpot:ms e2el:ms.
  std::uint32_t seed = 0;                                                      ///< --seed.
  int best_of = 1;                                                             ///< --best-of.
  std::optional<int> logprobs{};                                               ///< --logprobs.
  std::vector<std::pair<std::string, std::string>> metadata{};                 ///< --metadata KEY=VALUE.
  bool save_result = false;                                                    ///< --save-result.
  std::string result_dir{};                                                    ///< --result-dir.
  std::string result_filename{};                                               ///< --result-filename.
  bool save_detailed = false;  ///< --save-detailed: per-request arrays and a JSONL of records.
  /// --save-timeline PATH: the requests' compact timeline and latency histograms
  /// (metrics/request_timeline.hpp), what the dashboard's point page draws; empty: none.
  std::string timeline_path{};
  std::vector<std::string> ignored_flags{};  ///< Flags accepted but without effect here (listed in the result).
  // --- infermark's own ---
  std::size_t threads = 1;             ///< --threads: event loops.
  std::vector<int> cpus{};             ///< --cpus: pin loop i to cpus[i % n].
  double duration_s = 0.0;             ///< --duration: stop sending after this many seconds (0: no limit).
  double timeout_s = 0.0;              ///< --timeout: a request silent this long fails as a stall (0: none).
  bool send_token_ids = false;         ///< --send-token-ids: completions prompts as token ids.
  bool continuous_usage_stats = true;  ///< Ask servers for usage on every chunk.
  double drain_s = 5.0;                ///< After a stop signal, wait this long for in-flight requests, then cut.
  metrics::VerdictLimits limits{};     ///< Verdict bounds (--max-send-lag-ms, --max-loop-lag-ms, --min-requests).
  bool progress = false;               ///< Print a live progress line to stderr.
  /// Set (e.g. by a SIGINT handler) to stop sending; checked every few milliseconds. May be null.
  const std::atomic<bool>* stop = nullptr;
};

}  // namespace infermark::loadgen
