// The deployment facts a client result does not carry (hardware, parallelism, sequence lengths…),
// named as InferenceX's environment contract names them (RUNNER_TYPE, TP, EP_SIZE…), so the same
// values can come from the environment, from flags or from a matrix row.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json_text.hpp"

namespace infermark::results {

/// One variable of the processing contract.
struct ProcessVariable {
  std::string_view name;  ///< Environment name, e.g. `EP_SIZE`; the flag is `--ep-size`.
  std::string_view help;  ///< What it means, for `--help`.
};

/// Every variable `results process` reads, in the order the reference documents them.
const std::vector<ProcessVariable>& ProcessVariables();

/// `EP_SIZE` → `ep-size` (the long flag without dashes).
std::string FlagName(std::string_view variable);

/// Variable name → value. Later sources override earlier ones with `Overlay`.
struct ProcessSettings {
  std::map<std::string, std::string, std::less<>> values;  ///< Set variables only.

  /// The value of `name`, if set.
  [[nodiscard]] std::optional<std::string> Get(std::string_view name) const;
  /// Copies every value of `over` into this one (flags over environment, say).
  void Overlay(const ProcessSettings& over);
};

/// The contract's variables that are set in this process's environment.
ProcessSettings SettingsFromEnvironment();

/// The values a matrix row (as `infermark matrix` writes it) implies: runner → RUNNER_TYPE (the
/// label's hardware, HardwareOfLabel: `cluster:mi355x-local` → `mi355x`), tp → TP,
/// ep → EP_SIZE, dp-attn → DP_ATTENTION, and so on; a multi-node row's worker blocks give
/// IS_MULTINODE, PREFILL_* and DECODE_* (GPUs per pool num-worker·tp·pp·pcp-size), kv-p2p-transfer
/// KV_P2P_TRANSFER and router ROUTER_METADATA. Fields the row lacks stay unset.
ProcessSettings SettingsFromMatrixRow(const Json& row);

/// The GPUs of each role a multi-node result file's name gives, as InferenceX's multi-node servers
/// name their files (`<RESULT_FILENAME>_…_gpus_N_ctx_P_gen_D…`): PREFILL_GPUS=P and DECODE_GPUS=D,
/// or PREFILL_GPUS=N and DECODE_GPUS=0 when the name has `_gpus_N` alone (not disaggregated).
/// Empty when `stem` has neither.
ProcessSettings SettingsFromResultName(std::string_view stem);

}  // namespace infermark::results
