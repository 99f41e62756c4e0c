#include "results/process_settings.hpp"

#include <cctype>
#include <cstdlib>

#include "results/runner_label.hpp"

namespace infermark::results {

const std::vector<ProcessVariable>& ProcessVariables() {
  static const std::vector<ProcessVariable> kVariables = {
      {"RUNNER_TYPE", "Hardware (runner type), written as hw"},
      {"FRAMEWORK", "Serving framework"},
      {"PRECISION", "Weight precision"},
      {"SPEC_DECODING", "Speculative decoding method (none, mtp…)"},
      {"RESULT_FILENAME", "Result file stem (reads STEM.json, writes agg_STEM.json)"},
      {"ISL", "Input sequence length"},
      {"OSL", "Output sequence length"},
      {"DISAGG", "Disaggregated prefill/decode (true/false)"},
      {"MODEL_PREFIX", "Model prefix, written as infmax_model_prefix"},
      {"IMAGE", "Serving image"},
      {"RECIPE_FINGERPRINT", "Recipe fingerprint (default empty)"},
      {"ROUTER_METADATA", "Router as JSON {\"name\":…,\"version\":…}"},
      {"KV_P2P_TRANSFER", "KV transfer mechanism"},
      {"IS_MULTINODE", "Multi-node (prefill/decode worker pools) result (true/false)"},
      {"TP", "Tensor parallelism (single node)"},
      {"EP_SIZE", "Expert parallelism (single node)"},
      {"DP_ATTENTION", "Data-parallel attention (single node; written as given)"},
      {"PP_SIZE", "Pipeline parallelism (single node, default 1)"},
      {"DCP_SIZE", "Decode context parallelism (single node, default 1)"},
      {"PCP_SIZE", "Prefill context parallelism (single node, default 1)"},
      {"PREFILL_GPUS", "Prefill GPUs (multi-node)"},
      {"DECODE_GPUS", "Decode GPUs (multi-node)"},
      {"PREFILL_NUM_WORKERS", "Prefill workers (multi-node)"},
      {"PREFILL_TP", "Prefill tensor parallelism (multi-node)"},
      {"PREFILL_EP", "Prefill expert parallelism (multi-node)"},
      {"PREFILL_DP_ATTN", "Prefill data-parallel attention (multi-node)"},
      {"PREFILL_PP_SIZE", "Prefill pipeline parallelism (multi-node, default 1)"},
      {"PREFILL_DCP_SIZE", "Prefill DCP size (multi-node, default 1)"},
      {"PREFILL_PCP_SIZE", "Prefill PCP size (multi-node, default 1)"},
      {"DECODE_NUM_WORKERS", "Decode workers (multi-node)"},
      {"DECODE_TP", "Decode tensor parallelism (multi-node)"},
      {"DECODE_EP", "Decode expert parallelism (multi-node)"},
      {"DECODE_DP_ATTN", "Decode data-parallel attention (multi-node)"},
      {"DECODE_PP_SIZE", "Decode pipeline parallelism (multi-node, default 1)"},
      {"DECODE_DCP_SIZE", "Decode DCP size (multi-node, default 1)"},
      {"DECODE_PCP_SIZE", "Decode PCP size (multi-node, default 1)"},
      {"PREFILL_HARDWARE", "Prefill hardware (multi-node, with DECODE_HARDWARE)"},
      {"DECODE_HARDWARE", "Decode hardware (multi-node, with PREFILL_HARDWARE)"},
  };
  return kVariables;
}

std::string FlagName(std::string_view variable) {
  std::string flag(variable);
  for (char& c : flag) c = c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return flag;
}

std::optional<std::string> ProcessSettings::Get(std::string_view name) const {
  const auto it = values.find(name);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

void ProcessSettings::Overlay(const ProcessSettings& over) {
  for (const auto& [name, value] : over.values) values[name] = value;
}

ProcessSettings SettingsFromEnvironment() {
  ProcessSettings settings;
  for (const auto& variable : ProcessVariables()) {
    const std::string name(variable.name);
    if (const char* value = std::getenv(name.c_str())) settings.values[name] = value;
  }
  return settings;
}

namespace {

// Matrix rows hold numbers and booleans; the contract holds their text as a shell would export it.
std::optional<std::string> ScalarText(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number_integer()) return std::to_string(value.get<long long>());
  return std::nullopt;
}

}  // namespace

ProcessSettings SettingsFromMatrixRow(const Json& row) {
  static constexpr std::pair<std::string_view, std::string_view> kRowFields[] = {
      {"runner", "RUNNER_TYPE"},
      {"framework", "FRAMEWORK"},
      {"precision", "PRECISION"},
      {"spec-decoding", "SPEC_DECODING"},
      {"isl", "ISL"},
      {"osl", "OSL"},
      {"disagg", "DISAGG"},
      {"model-prefix", "MODEL_PREFIX"},
      {"image", "IMAGE"},
      {"recipe-fingerprint", "RECIPE_FINGERPRINT"},
      {"tp", "TP"},
      {"ep", "EP_SIZE"},
      {"dp-attn", "DP_ATTENTION"},
      {"pp", "PP_SIZE"},
      {"dcp-size", "DCP_SIZE"},
      {"pcp-size", "PCP_SIZE"},
  };
  ProcessSettings settings;
  if (!row.is_object()) return settings;
  for (const auto& [field, variable] : kRowFields) {
    const auto it = row.find(field);
    if (it == row.end()) continue;
    if (auto text = ScalarText(*it)) settings.values[std::string(variable)] = *text;
  }
  // The runner label as the hardware results record (a cluster label's GPU), as the runner's
  // launch environment sets RUNNER_TYPE.
  if (const auto it = settings.values.find("RUNNER_TYPE"); it != settings.values.end()) {
    it->second = HardwareOfLabel(it->second);
  }
  // A multi-node row: its worker pools as the multi-node template exports them, GPUs per pool
  // num-worker·tp·pp·pcp-size (DCP reuses the TP GPUs).
  const auto prefill = row.find("prefill");
  const auto decode = row.find("decode");
  if (prefill == row.end() || decode == row.end() || !prefill->is_object() || !decode->is_object()) return settings;
  settings.values["IS_MULTINODE"] = "true";
  auto pool = [&settings](const Json& worker, const std::string& prefix) {
    static constexpr std::pair<std::string_view, std::string_view> kWorkerFields[] = {
        {"num-worker", "NUM_WORKERS"},
        {"tp", "TP"},
        {"ep", "EP"},
        {"dp-attn", "DP_ATTN"},
        {"pp", "PP_SIZE"},
        {"dcp-size", "DCP_SIZE"},
        {"pcp-size", "PCP_SIZE"},
        {"hardware", "HARDWARE"},
    };
    for (const auto& [field, variable] : kWorkerFields) {
      const auto it = worker.find(field);
      if (it == worker.end()) continue;
      if (auto text = ScalarText(*it)) settings.values[prefix + std::string(variable)] = *text;
    }
    long long gpus = 1;
    for (const char* field : {"num-worker", "tp", "pp", "pcp-size"}) {
      const auto it = worker.find(field);
      if (it != worker.end() && it->is_number_integer()) gpus *= it->get<long long>();
    }
    settings.values[prefix + "GPUS"] = std::to_string(gpus);
  };
  pool(*prefill, "PREFILL_");
  pool(*decode, "DECODE_");
  if (const auto kv = row.find("kv-p2p-transfer"); kv != row.end() && kv->is_string())
    settings.values["KV_P2P_TRANSFER"] = kv->get<std::string>();
  if (const auto router = row.find("router"); router != row.end() && router->is_object())
    settings.values["ROUTER_METADATA"] = router->dump();
  return settings;
}

ProcessSettings SettingsFromResultName(std::string_view stem) {
  // The digits after `_<tag>_` where the tag is a whole `_`-separated part of the name.
  const auto count = [&](std::string_view tag) -> std::optional<std::string> {
    const std::string marker = "_" + std::string(tag) + "_";
    for (std::size_t at = stem.find(marker); at != std::string_view::npos; at = stem.find(marker, at + 1)) {
      std::size_t end = at + marker.size();
      while (end < stem.size() && std::isdigit(static_cast<unsigned char>(stem[end]))) ++end;
      if (end > at + marker.size() && (end == stem.size() || stem[end] == '_' || stem[end] == '.')) {
        return std::string(stem.substr(at + marker.size(), end - at - marker.size()));
      }
    }
    return std::nullopt;
  };
  ProcessSettings settings;
  const auto ctx = count("ctx");
  const auto gen = count("gen");
  if (ctx && gen) {
    settings.values["PREFILL_GPUS"] = *ctx;
    settings.values["DECODE_GPUS"] = *gen;
  } else if (const auto gpus = count("gpus")) {
    settings.values["PREFILL_GPUS"] = *gpus;
    settings.values["DECODE_GPUS"] = "0";
  }
  return settings;
}

}  // namespace infermark::results
