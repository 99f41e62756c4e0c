// Options of matrix generation: the flags of InferenceX's generate_sweep_configs.py, as a struct.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace infermark::matrix {

/// How eval rows are chosen and emitted (mutually exclusive --no-evals / --evals-only, plus --all-evals).
struct EvalOptions {
  bool no_evals = false;    ///< Skip eval marking: throughput rows only.
  bool evals_only = false;  ///< Keep only the eval rows, marked `eval-only: true`.
  bool all_evals = false;   ///< Every 8k1k fixed row becomes an eval (implies eval-only rows).
};

/// Flags shared by `full-sweep` and `test-config`.
struct CommonOptions {
  EvalOptions evals;                              ///< Eval selection.
  std::optional<std::string> runner_node_filter;  ///< Expand rows to runners whose name contains this.
  std::vector<std::string> scenario_types;        ///< `fixed-seq-len` and/or `agentic-coding`; empty = both.
};

/// `matrix full-sweep` filters.
struct FullSweepOptions {
  CommonOptions common;                   ///< Shared flags.
  std::vector<std::string> model_prefix;  ///< Config KEY prefixes (not the model-prefix field).
  std::vector<std::string> precision;     ///< Exact precision values.
  std::vector<std::string> framework;     ///< Exact framework values.
  std::vector<std::string> runner_type;   ///< Exact runner labels (each must exist in runners.yaml).
  std::vector<std::string> seq_lens;      ///< `1k1k`, `8k1k`.
  std::int64_t step_size = 2;             ///< Concurrency multiplier (> 1).
  std::optional<std::int64_t> min_conc;   ///< Drop concurrencies below.
  std::optional<std::int64_t> max_conc;   ///< Drop concurrencies above (clamping as the reference does).
  std::optional<std::int64_t> max_tp;     ///< Skip single-node entries with a larger TP.
  std::optional<std::int64_t> max_ep;     ///< Clamp single-node EP.
  bool single_node = false;               ///< Only single-node configs (neither flag = both).
  bool multi_node = false;                ///< Only multi-node configs (neither flag = both).
};

/// `matrix test-config` selection.
struct TestConfigOptions {
  CommonOptions common;                  ///< Shared flags.
  std::vector<std::string> config_keys;  ///< Exact keys or fnmatch globs (`*`, `?`, `[…]`).
  std::vector<std::int64_t> conc;        ///< Keep only these concurrencies.
  std::vector<std::string> seq_lens;     ///< `1k1k`, `8k1k`.
};

}  // namespace infermark::matrix
