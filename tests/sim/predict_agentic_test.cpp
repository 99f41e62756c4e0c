// Agentic points on the virtual clock: the model's prefix cache against the hash-id theory, the
// host tier when the GPU evicts, and the window's server figures through the aggregate's adapters.
#include "sim/predict_agentic.hpp"

#include <gtest/gtest.h>

#include "agentic/agentic_output.hpp"
#include "agentic/aggregate.hpp"
#include "agentic/trace_reader.hpp"
#include "perfmodel/engine_data.hpp"

namespace infermark::sim {
namespace {

struct Figures {
  double theory = 0;
  double gpu = 0;
  double cpu = 0;
  double prompt_total = 0;
  double profiled_input = 0;
};

Figures Predicted(std::size_t users, std::optional<double> host_gib, const std::string& framework = "vllm") {
  static const agentic::TraceLoad load =
      agentic::ReadTraces(std::string(INFERMARK_SOURCE_DIR) + "/tests/fixtures/agentic-traces/traces.jsonl");
  perfmodel::DeploymentOptions o;
  o.model = "minimax-m3";
  o.hardware = "mi355x";
  o.framework = framework;
  o.precision = "fp4";
  o.tp = 4;
  o.prefix_caching = true;
  if (host_gib) {
    if (framework == "sglang") {
      o.hierarchical_cache = true;
      o.hicache_size_gb = *host_gib / 4;
    } else {
      o.kv_offloading_size_gib = *host_gib;
    }
  }
  const perfmodel::Deployment d = perfmodel::ResolveDeployment(perfmodel::DefaultEngineData(), o);
  agentic::ReplayOptions r;
  r.concurrency = users;
  r.duration_s = 3600;
  r.warmup_requests_per_lane = 10;
  r.start_min_ratio = 0.25;
  r.start_max_ratio = 0.75;
  r.trace_idle_gap_cap_s = 300;
  const AgenticPrediction p = PredictAgentic(d, load.corpus, r);
  agentic::AgenticRunView view;
  view.corpus = &load.corpus;
  view.run = &p.run;
  view.server_metrics = p.server_metrics;
  const auto records = agentic::ProfileRecords(view);
  agentic::AgenticArtifacts artifacts;
  artifacts.records = records;
  artifacts.summary = agentic::SummaryOf(view, records);
  artifacts.server_metrics = p.server_metrics;
  agentic::AgenticIdentity id;
  id.conc = static_cast<std::int64_t>(users);
  id.framework = framework;
  id.kv_offloading = host_gib ? "dram" : "none";
  id.kv_offload_backend = host_gib ? (framework == "sglang" ? "hicache" : "native") : "";
  // InferenceX's aggregate wants the backend's metadata with it, as a run records it
  // (StandaloneIdentity fills it from the backend's name).
  if (host_gib) id.kv_offload_backend_metadata = Json{{"name", id.kv_offload_backend}}.dump();
  id.tp = 4;
  const Json agg = agentic::AgenticAggregate(artifacts, id, agentic::ExpectedOutputsOf(load.corpus));
  Figures f;
  f.theory = agg["request_metrics"]["cache"]["theoretical_cache_hit_rate"].get<double>();
  f.gpu = agg["server_metrics"]["cache"]["gpu_cache_hit_rate"].get<double>();
  const Json& cpu = agg["server_metrics"]["cache"]["cpu_cache_hit_rate"];
  f.cpu = cpu.is_number() ? cpu.get<double>() : 0.0;
  f.prompt_total = agg["server_metrics"]["tokens"]["prompt_total"].get<double>();
  for (const auto& rec : records) {
    if (rec.benchmark_phase == "profiling" && rec.error.is_null()) {
      f.profiled_input += rec.Metric("input_sequence_length").value_or(0);
    }
  }
  return f;
}

TEST(PredictAgentic, WithoutEvictionTheModelsHitRateIsTheTheoreticalOne) {
  for (const char* framework : {"vllm", "sglang"}) {
    const Figures f = Predicted(4, std::nullopt, framework);
    EXPECT_GT(f.theory, 0.8) << framework;
    // Equal but for the last token of a fully cached prompt, which is always computed.
    EXPECT_NEAR(f.gpu, f.theory, 0.002) << framework;
    EXPECT_EQ(f.cpu, 0) << framework;
    EXPECT_EQ(f.prompt_total, f.profiled_input) << framework;  // the window's counters, not the run's
  }
}

TEST(PredictAgentic, WhenTheGpuEvictsTheHostTierServesWhatItLost) {
  const Figures gpu_only = Predicted(32, std::nullopt);
  const Figures with_host = Predicted(32, 1000.0);
  EXPECT_LT(gpu_only.gpu, gpu_only.theory - 0.05);  // 32 long sessions do not fit the GPU pool
  EXPECT_GT(with_host.cpu, 0.01);
  EXPECT_GT(with_host.gpu + with_host.cpu, gpu_only.gpu + 0.01);
  EXPECT_LE(with_host.gpu + with_host.cpu, with_host.theory + 0.002);
}

}  // namespace
}  // namespace infermark::sim
