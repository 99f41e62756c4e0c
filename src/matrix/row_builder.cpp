#include "matrix/row_builder.hpp"

#include <charconv>
#include <utility>

#include "core/diagnostic.hpp"
#include "matrix/generator.hpp"

namespace infermark::matrix {
namespace {

constexpr std::int64_t kAgenticDurationSeconds = 3600;
constexpr std::int64_t kMaxAgenticCpuDramMib = 2'861'022;

// An empty row with room for every field, so building it never reallocates.
// Appends `key` to a row under construction without looking it up first: each builder writes a
// key once, and nlohmann's ordered_map finds keys by a linear scan (a fifth of generating the
// whole catalog's rows went to those scans).
template <typename Value>
void Put(Json& row, const char* key, Value&& value) {
  static_cast<Json::object_t::Container&>(row.get_ref<Json::object_t&>())
      .emplace_back(key, Json(std::forward<Value>(value)));
}

Json NewRow() {
  Json row = Json::object();
  row.get_ref<Json::object_t&>().reserve(32);
  return row;
}

void CommonHead(Json& row, const catalog::MasterEntry& config, const std::string& runner) {
  Put(row, "image", config.image);
  Put(row, "model", config.model);
  Put(row, "model-prefix", config.model_prefix);
  Put(row, "precision", config.precision);
  Put(row, "framework", config.framework);
  Put(row, "runner", runner);
}

// router and kv-p2p-transfer: the point's value when it writes the key (even as null), else the config's.
void AppendComponents(Json& row, const catalog::MasterEntry& config, const catalog::SearchSpaceEntry& point) {
  if (point.router_written) {
    if (point.router) Put(row, "router", point.router->raw);
  } else if (config.router) {
    Put(row, "router", config.router->raw);
  }
  if (point.kv_p2p_transfer_written) {
    if (point.kv_p2p_transfer) Put(row, "kv-p2p-transfer", *point.kv_p2p_transfer);
  } else if (config.kv_p2p_transfer) {
    Put(row, "kv-p2p-transfer", *config.kv_p2p_transfer);
  }
}

// The worker mapping as written, with pp/dcp-size/pcp-size appended when absent.
Json WorkerWithDefaults(const catalog::WorkerConfig& worker) {
  Json out = worker.raw;
  for (const char* key : {"pp", "dcp-size", "pcp-size"}) {
    if (!out.contains(key)) out[key] = 1;
  }
  return out;
}

std::string OffloadSuffix(const catalog::SearchSpaceEntry& point, const std::string& kv_offloading) {
  if (kv_offloading == "none") return "kvnone";
  return "kv" + kv_offloading + "-" + (point.kv_offload_backend ? point.kv_offload_backend->name : std::string());
}

std::string WorkerTag(const catalog::WorkerConfig& w, const char* role) {
  std::string tag = role + std::to_string(w.num_worker) + "x" + std::to_string(w.tp);
  if (w.ep != 1) tag += "ep" + std::to_string(w.ep);
  if (w.dp_attn) tag += "dpa";
  return tag;
}

[[noreturn]] void Fail(const catalog::MasterEntry& config, const std::string& rule) {
  throw InputError(Diagnostic{config.mark, config.key, "", rule});
}

std::int64_t HardwareFact(const catalog::MasterEntry& config, const catalog::RunnerConfig& runners, const char* field) {
  auto it = runners.hardware.find(config.runner);
  if (it == runners.hardware.end()) {
    std::string keys;
    for (const auto& [k, v] : runners.hardware) keys += (keys.empty() ? "" : ", ") + k;
    Fail(config, "runner '" + config.runner + "' requires '" + field +
                     "' in runner hardware metadata (runners.yaml `hardware:`). Available hardware keys: " + keys);
  }
  return std::string_view(field) == "gpus-per-node" ? it->second.gpus_per_node : it->second.available_cpu_dram_mib;
}

// floor(mib * 2^20 * utilization * gpus / gpus_per_node / 1e9), with utilization taken as the
// decimal Python's repr prints, in exact integer arithmetic (the reference uses Decimal).
std::int64_t DramOffloadGb(std::int64_t mib, double utilization, std::int64_t gpus, std::int64_t gpus_per_node) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, utilization, std::chars_format::scientific);
  const std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));
  const std::size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits += c;
  }
  int exponent = 0;
  const char* exp_begin = sci.data() + e + 1;
  if (*exp_begin == '+') ++exp_begin;
  std::from_chars(exp_begin, sci.data() + sci.size(), exponent);
  __extension__ using U128 = unsigned __int128;
  U128 numerator = static_cast<U128>(mib) * 1048576u * std::stoull(digits) * static_cast<U128>(gpus);
  U128 denominator = static_cast<U128>(gpus_per_node) * 1000000000u;
  // utilization = digits * 10^(exponent - (len(digits) - 1))
  int scale = exponent - static_cast<int>(digits.size() - 1);
  for (; scale > 0; --scale) numerator *= 10u;
  for (; scale < 0; ++scale) denominator *= 10u;
  return static_cast<std::int64_t>(numerator / denominator);
}

std::int64_t WorkerGpusPerNode(const catalog::MasterEntry& config, const catalog::WorkerConfig& w,
                               std::int64_t gpus_per_node) {
  const std::int64_t per_replica = w.tp * w.pp * w.pcp_size;
  if (per_replica > gpus_per_node) {
    if (per_replica % gpus_per_node != 0) {
      Fail(config, "worker tp*pp*pcp-size=" + std::to_string(per_replica) +
                       " spans multiple nodes but is not a multiple of gpus-per-node=" + std::to_string(gpus_per_node));
    }
    return gpus_per_node;
  }
  if (gpus_per_node % per_replica != 0) {
    Fail(config, "worker tp*pp*pcp-size=" + std::to_string(per_replica) +
                     " does not divide gpus-per-node=" + std::to_string(gpus_per_node) + " evenly");
  }
  return per_replica;
}

std::int64_t TotalCpuDramGb(const catalog::MasterEntry& config, const catalog::RunnerConfig& runners,
                            const catalog::AgenticConfig& scenario, const catalog::SearchSpaceEntry& point) {
  if (point.kv_offloading.value_or("none") != "dram") return 0;
  const std::int64_t mib = std::min(HardwareFact(config, runners, "available-cpu-dram-mib"), kMaxAgenticCpuDramMib);
  const std::int64_t gpus_per_node = HardwareFact(config, runners, "gpus-per-node");
  std::int64_t gpus = 0;
  if (point.prefill) {
    gpus = WorkerGpusPerNode(config, *point.prefill, gpus_per_node);
  } else {
    gpus = point.tp.value_or(0) * point.pp * point.pcp_size;
    if (gpus > gpus_per_node) {
      Fail(config, "tp=" + std::to_string(point.tp.value_or(0)) + " with pp=" + std::to_string(point.pp) +
                       " and pcp-size=" + std::to_string(point.pcp_size) + " requires " + std::to_string(gpus) +
                       " GPUs and exceeds gpus-per-node=" + std::to_string(gpus_per_node) + " for runner '" +
                       config.runner + "'");
    }
  }
  return DramOffloadGb(mib, scenario.dram_utilization.value_or(0.0), gpus, gpus_per_node);
}

}  // namespace

Json SingleNodeRow(const catalog::MasterEntry& config, const std::string& runner, std::int64_t isl, std::int64_t osl,
                   const catalog::SearchSpaceEntry& point, std::int64_t conc, std::optional<std::int64_t> ep) {
  Json row = NewRow();
  CommonHead(row, config, runner);
  Put(row, "isl", isl);
  Put(row, "osl", osl);
  Put(row, "tp", point.tp.value_or(0));
  Put(row, "pp", point.pp);
  Put(row, "dcp-size", point.dcp_size);
  Put(row, "pcp-size", point.pcp_size);
  Put(row, "conc", conc);
  Put(row, "max-model-len", isl + osl + 256);
  Put(row, "ep", ep.value_or(1));
  Put(row, "dp-attn", point.dp_attn.value_or(false));
  Put(row, "spec-decoding", point.spec_decoding);
  Put(row, "exp-name", config.model_prefix + "_" + SeqLenName(isl, osl));
  Put(row, "disagg", config.disagg);
  Put(row, "run-eval", false);
  AppendComponents(row, config, point);
  return row;
}

Json MultiNodeRow(const catalog::MasterEntry& config, const std::string& runner, std::int64_t isl, std::int64_t osl,
                  const catalog::SearchSpaceEntry& point, const std::vector<std::int64_t>& conc) {
  Json row = NewRow();
  CommonHead(row, config, runner);
  Put(row, "isl", isl);
  Put(row, "osl", osl);
  Put(row, "spec-decoding", point.spec_decoding);
  Put(row, "prefill", WorkerWithDefaults(*point.prefill));
  Put(row, "decode", WorkerWithDefaults(*point.decode));
  Put(row, "conc", conc);
  Put(row, "max-model-len", isl + osl + 256);
  Put(row, "exp-name", config.model_prefix + "_" + SeqLenName(isl, osl));
  Put(row, "disagg", config.disagg);
  Put(row, "run-eval", false);
  AppendComponents(row, config, point);
  return row;
}

void AppendAgenticRows(const catalog::MasterEntry& config, const catalog::RunnerConfig& runners,
                       const catalog::AgenticConfig& scenario, const catalog::SearchSpaceEntry& point,
                       const std::vector<std::int64_t>& conc, const std::vector<std::string>& runner_values,
                       std::vector<Json>& rows) {
  const std::string kv_offloading = point.kv_offloading.value_or("none");
  const std::int64_t dram_gb = TotalCpuDramGb(config, runners, scenario, point);
  if (config.multinode) {
    const std::string suffix = kv_offloading != "none" ? "_" + OffloadSuffix(point, kv_offloading) : "";
    for (const auto& runner : runner_values) {
      for (std::int64_t c : conc) {  // one concurrency per allocation
        Json row = NewRow();
        CommonHead(row, config, runner);
        Put(row, "spec-decoding", point.spec_decoding);
        Put(row, "prefill", WorkerWithDefaults(*point.prefill));
        Put(row, "decode", WorkerWithDefaults(*point.decode));
        Put(row, "conc", Json::array({c}));
        Put(row, "kv-offloading", kv_offloading);
        Put(row, "total-cpu-dram-gb", dram_gb);
        Put(row, "duration", kAgenticDurationSeconds);
        Put(row, "exp-name",
            config.model_prefix + "_" + WorkerTag(*point.prefill, "p") + "_" + WorkerTag(*point.decode, "d") + "_conc" +
                std::to_string(c) + suffix);
        Put(row, "disagg", config.disagg);
        Put(row, "scenario-type", "agentic-coding");
        if (point.kv_offload_backend) Put(row, "kv-offload-backend", point.kv_offload_backend->raw);
        AppendComponents(row, config, point);
        rows.push_back(std::move(row));
      }
    }
    return;
  }
  const std::string tp = std::to_string(point.tp.value_or(0));
  for (std::int64_t c : conc) {
    for (const auto& runner : runner_values) {
      Json row = NewRow();
      CommonHead(row, config, runner);
      Put(row, "tp", point.tp.value_or(0));
      Put(row, "pp", point.pp);
      Put(row, "dcp-size", point.dcp_size);
      Put(row, "pcp-size", point.pcp_size);
      Put(row, "ep", point.ep.value_or(1));
      Put(row, "dp-attn", point.dp_attn.value_or(false));
      Put(row, "spec-decoding", point.spec_decoding);
      Put(row, "conc", c);
      Put(row, "kv-offloading", kv_offloading);
      Put(row, "total-cpu-dram-gb", dram_gb);
      Put(row, "duration", kAgenticDurationSeconds);
      Put(row, "exp-name",
          config.model_prefix + "_tp" + tp + "_conc" + std::to_string(c) + "_" + OffloadSuffix(point, kv_offloading) +
              (point.spec_decoding != "none" ? "_spec-" + point.spec_decoding : ""));
      Put(row, "scenario-type", "agentic-coding");
      if (point.kv_offload_backend) Put(row, "kv-offload-backend", point.kv_offload_backend->raw);
      if (point.hicache_ratio) Put(row, "hicache-ratio", point.hicache_ratio_raw);
      AppendComponents(row, config, point);
      rows.push_back(std::move(row));
    }
  }
}

}  // namespace infermark::matrix
