#include "perfmodel/disaggregation.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "core/diagnostic.hpp"
#include "core/field_reader.hpp"
#include "core/yaml_node.hpp"
#include "perfmodel/spec_reading.hpp"

namespace infermark::perfmodel {
namespace {

InputError DisaggError(const std::string& field, const std::string& rule) {
  return InputError(Diagnostic{SourceMark{}, "", field, rule});
}

std::string LowerCase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

Deployment ResolveRole(const EngineData& data, const DeploymentOptions& options, const char* role) {
  try {
    return ResolveDeployment(data, options);
  } catch (const InputError& e) {
    throw DisaggError(role, std::string("the ") + role + " worker cannot be deployed: " + e.what());
  }
}

}  // namespace

std::vector<KvTransferBackend> LoadKvTransferFile(const std::string& path) {
  const YamlDocument doc = LoadYamlFile(path);
  std::vector<Diagnostic> problems;
  std::vector<KvTransferBackend> out;
  if (doc.root.kind != YamlKind::kMapping) {
    ReadContext ctx{&doc.file, "", &problems};
    ctx.Report(&doc.root, "", "expected a mapping of KV transfer backend names to their figures");
    throw InputError(problems);
  }
  for (const auto& [key, value] : doc.root.entries) {
    ReadContext ctx{&doc.file, key.text, &problems};
    FieldReader r(ctx, value, "");
    KvTransferBackend b;
    b.name = LowerCase(key.text);
    b.efficiency = Fraction(r, "efficiency", Need::kRequired, 1.0);
    const auto overhead = r.Float("overhead_ms", Need::kRequired);
    if (overhead && !(*overhead >= 0)) ctx.Report(r.Get("overhead_ms"), "overhead_ms", "must be 0 or more");
    b.overhead_s = overhead.value_or(0) * 1e-3;
    b.reasoning = r.String("description", Need::kRequired, 1).value_or("");
    r.RejectUnknown();
    out.push_back(std::move(b));
  }
  if (!problems.empty()) throw InputError(problems);
  return out;
}

const std::vector<KvTransferBackend>& KvTransferBackends() {
  static const std::vector<KvTransferBackend> kBackends =
      LoadKvTransferFile((std::filesystem::path(DefaultEngineData().dir) / "kv_transfer.yaml").string());
  return kBackends;
}

const KvTransferBackend& FindKvTransferBackend(const std::string& name) {
  const std::string key = LowerCase(name);
  std::string known;
  for (const KvTransferBackend& b : KvTransferBackends()) {
    if (b.name == key) return b;
    known += (known.empty() ? "" : ", ") + b.name;
  }
  throw DisaggError("kv-p2p-transfer", "unknown KV transfer backend '" + name + "' (known: " + known + ")");
}

KvLink SelectKvLink(const HardwareSpec& hw, int total_gpus) {
  // A rack-scale NVLink domain (NVL72) holding both roles moves the KV over NVLink; otherwise the
  // roles are on different nodes and the KV crosses the scale-out network.
  if (hw.domain_gpus > 8 && total_gpus <= hw.domain_gpus)
    return KvLink{"nvlink", hw.link_bytes_per_s, hw.allreduce_latency_s};
  return KvLink{hw.scale_out_kind, hw.scale_out_bytes_per_s, hw.scale_out_latency_s};
}

int DisaggDeployment::NumGpus() const {
  return PrefillGpus() + DecodeGpus();
}

double DisaggDeployment::WireSeconds(int prompt_tokens) const {
  // kv_bytes_per_token is what one prefill rank holds of a token (the whole MLA latent, or its
  // share of the KV heads); every rank sends its own over its own link at once. With attention
  // data-parallel a sequence lives on one rank and that rank's link carries it.
  const double bytes = double(prompt_tokens) * prefill.memory.kv_bytes_per_token;
  return bytes / (link.bytes_per_s * backend.efficiency);
}

double DisaggDeployment::TransferSeconds(int prompt_tokens) const {
  return WireSeconds(prompt_tokens) + link.latency_s + backend.overhead_s;
}

std::string DisaggDeployment::Description() const {
  const Deployment& p = prefill;
  return std::to_string(prefill_workers) + "P" + std::to_string(decode_workers) + "D tp" + std::to_string(p.tp) +
         "/tp" + std::to_string(decode.tp) + " " + p.model.name + " " + p.precision.precision + " on " +
         p.hardware.name + ", " + p.framework.name + ", " + backend.name + " over " + link.kind +
         " (factors: " + p.efficiency_source + ")";
}

DisaggDeployment ResolveDisaggDeployment(const EngineData& data, const DisaggOptions& o) {
  if (o.prefill_workers < 1) throw DisaggError("prefill.num-worker", "must be at least 1");
  if (o.decode_workers < 0) throw DisaggError("decode.num-worker", "must be at least 0");
  DisaggDeployment d;
  d.prefill = ResolveRole(data, o.prefill, "prefill");
  // No decode workers: an aggregated multi-node deployment, the prefill pool serving whole requests.
  d.decode = o.decode_workers > 0 ? ResolveRole(data, o.decode, "decode") : d.prefill;
  d.prefill_workers = o.prefill_workers;
  d.decode_workers = o.decode_workers;
  if (d.prefill.hardware.name != d.decode.hardware.name)
    throw DisaggError("decode", "both roles must run on one GPU kind (prefill " + d.prefill.hardware.name +
                                    ", decode " + d.decode.hardware.name + ")");
  if (d.prefill.model.name != d.decode.model.name)
    throw DisaggError("decode", "both roles must serve one model (prefill " + d.prefill.model.name + ", decode " +
                                    d.decode.model.name + ")");
  d.backend = FindKvTransferBackend(o.kv_transfer);
  d.link = SelectKvLink(d.prefill.hardware, d.NumGpus());
  return d;
}

}  // namespace infermark::perfmodel
