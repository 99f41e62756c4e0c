#include "agentic/detail/aggregate_identity.hpp"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <optional>

#include "agentic/detail/aggregate_common.hpp"

namespace infermark::agentic {
namespace detail {
namespace {

// An optional component's JSON metadata from the environment: null when unset, empty or "null".
// `optional_version`: {"name"} or {"name", "version"} (the KV offload backend), else exactly
// {"name", "version"} (the router); every value a non-empty string.
Json ComponentMetadata(const std::string& variable, const std::string& raw, bool optional_version) {
  if (raw.empty() || raw == "null") return nullptr;
  Json metadata = Json::parse(raw, nullptr, false);
  if (metadata.is_discarded()) Refuse(variable, variable + " must contain valid JSON");
  const auto keys_are = [&](std::initializer_list<const char*> keys) {
    if (!metadata.is_object() || metadata.size() != keys.size()) return false;
    return std::all_of(keys.begin(), keys.end(), [&](const char* k) { return metadata.contains(k); });
  };
  if (optional_version) {
    if (!keys_are({"name"}) && !keys_are({"name", "version"})) {
      Refuse(variable, variable + " must contain 'name' and optional 'version'");
    }
  } else if (!keys_are({"name", "version"})) {
    Refuse(variable, variable + " must contain exactly 'name' and 'version'");
  }
  for (const auto& [key, value] : metadata.items()) {
    if (!value.is_string() || value.get_ref<const std::string&>().empty()) {
      Refuse(variable, variable + (optional_version ? " values must be non-empty strings"
                                                    : " name and version must be non-empty strings"));
    }
  }
  return metadata;
}

bool EnvTrue(const std::string& value) {
  const std::string v = Lower(value);
  return v == "1" || v == "true" || v == "yes" || v == "on";
}

}  // namespace

Json BackendMetadata(const std::string& raw) {
  return ComponentMetadata("KV_OFFLOAD_BACKEND_METADATA", raw, true);
}

Json RouterMetadata(const std::string& raw) {
  return ComponentMetadata("ROUTER_METADATA", raw, false);
}

Shape GpuShape(const AgenticIdentity& id) {
  Shape s;
  if (!id.is_multinode) {
    if (id.pp <= 0 || id.dcp_size <= 0 || id.pcp_size <= 0) {
      Refuse("PP_SIZE", "PP_SIZE, DCP_SIZE, and PCP_SIZE must be positive integers.");
    }
    s.fields["pp"] = id.pp;
    s.fields["dcp_size"] = id.dcp_size;
    s.fields["pcp_size"] = id.pcp_size;
    s.num_gpus = id.tp * id.pp * id.pcp_size;
    s.tp = id.tp;
    s.ep = id.ep;
    s.dp_attention = id.dp_attention;
    return s;
  }
  AgenticIdentity::Workers p = id.prefill;
  AgenticIdentity::Workers d = id.decode;
  for (std::int64_t v : {p.pp, p.dcp_size, p.pcp_size, d.pp, d.dcp_size, d.pcp_size}) {
    if (v <= 0) Refuse("PREFILL_PP_SIZE", "Multinode PP, DCP, and PCP sizes must be positive integers.");
  }
  if (p.hardware.empty() != d.hardware.empty()) {
    Refuse("PREFILL_HARDWARE", "PREFILL_HARDWARE and DECODE_HARDWARE must be specified together.");
  }
  const std::int64_t num_prefill = p.num_workers * p.tp * p.pp * p.pcp_size;
  const std::int64_t num_decode = d.num_workers * d.tp * d.pp * d.pcp_size;
  s.num_gpus = num_prefill + num_decode;
  if (num_decode <= 0) {
    d.tp = 0;
    d.ep = 0;
    d.pp = 1;
    d.dcp_size = 1;
    d.pcp_size = 1;
  }
  s.tp = p.tp + d.tp;
  s.ep = std::max(p.ep, d.ep);
  s.dp_attention = EnvTrue(p.dp_attention) || EnvTrue(d.dp_attention) ? "true" : "false";
  const auto side = [&](const char* prefix, const AgenticIdentity::Workers& w, std::int64_t gpus, const char* gpu_key) {
    const std::string k = prefix;
    s.fields[k + "_num_workers"] = w.num_workers;
    s.fields[k + "_tp"] = w.tp;
    s.fields[k + "_pp"] = w.pp;
    s.fields[k + "_dcp_size"] = w.dcp_size;
    s.fields[k + "_pcp_size"] = w.pcp_size;
    s.fields[k + "_ep"] = w.ep;
    s.fields[k + "_dp_attention"] = w.dp_attention;
    s.fields[gpu_key] = gpus;
  };
  side("prefill", p, num_prefill, "num_prefill_gpu");
  side("decode", d, num_decode, "num_decode_gpu");
  if (!p.hardware.empty()) {
    s.fields["prefill_hw"] = p.hardware;
    s.fields["decode_hw"] = d.hardware;
  }
  return s;
}

}  // namespace detail

using detail::EnvTrue;
using detail::Refuse;

AgenticIdentity IdentityFromEnvironment(const std::function<std::optional<std::string>(const std::string&)>& lookup) {
  const auto str = [&](const char* name, std::string fallback = {}) {
    const auto v = lookup(name);
    return v && !v->empty() ? *v : fallback;
  };
  const auto integer = [&](const char* name, std::int64_t fallback) -> std::int64_t {
    const auto v = lookup(name);
    if (!v || v->empty()) return fallback;
    std::string s = *v;
    s.erase(0, s.find_first_not_of(" \t"));
    s.erase(s.find_last_not_of(" \t") + 1);
    char* end = nullptr;
    const long long parsed = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0') Refuse(name, "must be a whole number, not '" + *v + "'");
    return parsed;
  };
  AgenticIdentity id;
  id.runner_type = str("RUNNER_TYPE");
  id.conc = integer("CONC", 0);
  id.image = str("IMAGE");
  id.model = str("MODEL");
  id.model_prefix = str("MODEL_PREFIX");
  id.framework = str("FRAMEWORK");
  id.precision = str("PRECISION");
  id.spec_decoding = lookup("SPEC_DECODING").value_or("none");
  id.disagg = EnvTrue(str("DISAGG"));
  id.is_multinode = EnvTrue(str("IS_MULTINODE"));
  id.tp = integer("TP", 1);
  id.ep = integer("EP_SIZE", 1);
  id.dp_attention = lookup("DP_ATTENTION").value_or("false");
  id.pp = integer("PP_SIZE", 1);
  id.dcp_size = integer("DCP_SIZE", 1);
  id.pcp_size = integer("PCP_SIZE", 1);
  const auto workers = [&](const std::string& p) {
    AgenticIdentity::Workers w;
    w.num_workers = integer((p + "_NUM_WORKERS").c_str(), 0);
    w.tp = integer((p + "_TP").c_str(), 0);
    w.pp = integer((p + "_PP_SIZE").c_str(), 1);
    w.dcp_size = integer((p + "_DCP_SIZE").c_str(), 1);
    w.pcp_size = integer((p + "_PCP_SIZE").c_str(), 1);
    w.ep = integer((p + "_EP").c_str(), 1);
    w.dp_attention = lookup(p + "_DP_ATTN").value_or("false");
    w.hardware = str((p + "_HARDWARE").c_str());
    return w;
  };
  id.prefill = workers("PREFILL");
  id.decode = workers("DECODE");
  id.kv_offloading = str("KV_OFFLOADING");
  id.kv_offload_backend = lookup("KV_OFFLOAD_BACKEND").value_or("");
  id.kv_offload_backend_metadata = lookup("KV_OFFLOAD_BACKEND_METADATA").value_or("");
  id.recipe_fingerprint = lookup("RECIPE_FINGERPRINT").value_or("");
  id.router_metadata = lookup("ROUTER_METADATA").value_or("");
  id.kv_p2p_transfer = lookup("KV_P2P_TRANSFER").value_or("");
  id.total_cpu_dram_gb = integer("TOTAL_CPU_DRAM_GB", 0);
  id.result_filename = str("RESULT_FILENAME");
  return id;
}

AgenticIdentity IdentityFromEnvironment() {
  return IdentityFromEnvironment([](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    return v == nullptr ? std::nullopt : std::optional<std::string>(v);
  });
}

}  // namespace infermark::agentic
