// The engine side of a predicted row: the engine's virtual-clock records become the metrics
// module's records.
#include "runner/virtual_run.hpp"

#include <memory>

#include "engine/closed_loop.hpp"
#include "engine/deployment.hpp"
#include "engine/engine_data.hpp"
#include "engine/step_time.hpp"

namespace infermark::runner {

struct VirtualEngineCache::Impl {
  struct Entry {
    engine::Deployment deployment;
    std::unique_ptr<engine::StepTimeModel> model;
  };
  std::map<std::string, Entry> entries;
};

VirtualEngineCache::VirtualEngineCache() : impl_(new Impl) {}
VirtualEngineCache::~VirtualEngineCache() {
  delete impl_;
}

VirtualRun VirtualEngineCache::Run(const VirtualRowSpec& s) {
  const std::string key = s.model + "|" + s.hardware + "|" + s.framework + "|" + s.precision + "|" + s.kv_cache_dtype +
                          "|" + std::to_string(s.tp) + "|" + std::to_string(s.ep) + "|" +
                          (s.dp_attention ? "dpa" : "") + "|" + std::to_string(s.max_model_len) + "|" + s.spec_decoding;
  auto it = impl_->entries.find(key);
  if (it == impl_->entries.end()) {
    engine::DeploymentOptions o;
    o.model = s.model;
    o.hardware = s.hardware;
    o.framework = s.framework;
    o.precision = s.precision;
    o.kv_cache_dtype = s.kv_cache_dtype;
    o.tp = s.tp;
    o.ep = s.ep;
    o.dp_attention = s.dp_attention;
    if (s.max_model_len > 0) o.max_model_len = s.max_model_len;
    o.spec_decoding = s.spec_decoding;
    Impl::Entry e;
    e.deployment = engine::ResolveDeployment(engine::DefaultEngineData(), o);
    e.model = std::make_unique<engine::StepTimeModel>(e.deployment);
    it = impl_->entries.emplace(key, std::move(e)).first;
  }
  const engine::Deployment& d = it->second.deployment;
  const engine::Workload w = engine::ReferenceWorkload(s.conc, s.isl, s.osl, s.range_ratio, s.num_prompts);
  engine::ClosedLoopOptions options;
  options.record_chunks = s.record_chunks;
  const engine::ClosedLoopResult r = engine::RunClosedLoop(d.scheduler, *it->second.model, w, options);
  VirtualRun run;
  run.duration_s = static_cast<double>(r.duration_ns) * 1e-9;
  run.num_gpus = d.NumGpus();
  run.description = d.model.name + " " + d.precision.precision + " on " + std::to_string(d.tp) + "x " +
                    d.hardware.name + ", " + d.framework.name + " (factors: " + d.efficiency_source + ")";
  // Virtual time starts at 0, which the records reserve for "never": shift every time by 1 s.
  constexpr std::int64_t kOrigin = 1'000'000'000;
  const auto at = [](std::int64_t t) { return t < 0 ? 0 : t + kOrigin; };
  run.records.reserve(r.records.size());
  for (std::size_t i = 0; i < r.records.size(); ++i) {
    const auto& rec = r.records[i];
    metrics::RequestRecord m;
    m.index = i;
    m.intended_ns = at(rec.intended_send_ns);
    m.sent_ns = at(rec.send_ns);
    m.first_chunk_ns = at(rec.first_chunk_ns);
    m.first_text_ns = m.first_chunk_ns;
    m.end_ns = at(rec.last_chunk_ns);
    m.done_ns = m.end_ns;
    m.success = rec.success;
    m.prompt_tokens = rec.prompt_tokens;
    m.expected_output_tokens = rec.output_tokens;
    m.server_prompt_tokens = rec.prompt_tokens;
    m.server_output_tokens = rec.output_tokens;
    std::uint32_t produced = 0;
    m.chunk_ns.reserve(rec.chunks.size());
    m.chunk_tokens.reserve(rec.chunks.size());
    for (const auto& c : rec.chunks) {
      produced += static_cast<std::uint32_t>(c.tokens);
      m.chunk_ns.push_back(at(c.time_ns));
      m.chunk_tokens.push_back(produced);
    }
    run.records.push_back(std::move(m));
  }
  return run;
}

}  // namespace infermark::runner
