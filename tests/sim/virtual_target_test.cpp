// The performance model as the client's target: requests in flight bounded by the concurrency,
// every request's exact token count, calibration's re-timed traces agreeing with full virtual runs
// on the founding recipe, arrivals meeting the batch at pass boundaries, and the engine's answer
// to a request that cannot fit.
#include "sim/virtual_target.hpp"

#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "agentic/trace_reader.hpp"
#include "loadgen/bench_plan.hpp"
#include "loadgen/run_benchmark.hpp"
#include "perfmodel/engine_data.hpp"
#include "perfmodel/project_engine_data.hpp"
#include "perfmodel/step_time.hpp"
#include "perfmodel/trace.hpp"
#include "sim/predict.hpp"
#include "sim/predict_agentic.hpp"
#include "test_paths.hpp"

namespace infermark::sim {
namespace {

perfmodel::Deployment Resolve(const std::string& model, const std::string& hardware, const std::string& precision,
                              int tp) {
  perfmodel::DeploymentOptions o;
  o.model = model;
  o.hardware = hardware;
  o.precision = precision;
  o.tp = tp;
  return perfmodel::ResolveDeployment(test::ProjectEngineData(), o);
}

TEST(VirtualTarget, KeepsTheConcurrencyInFlightAndEveryTokenArrives) {
  const perfmodel::Deployment d = Resolve("llama-3.3-70b", "h200", "fp8", 4);
  VirtualTargetOptions o;
  o.chunk_times = true;
  const Prediction p = Predict(d, ReferenceClient("llama-3.3-70b", 512, 128, 8, 80, 0), o);
  EXPECT_LE(p.stats.max_running, 8);
  EXPECT_EQ(p.stats.max_running, 8);
  const auto& records = p.result.records;
  ASSERT_EQ(records.size(), 80u);
  EXPECT_EQ(p.result.metrics.completed, 80u);
  EXPECT_TRUE(p.result.verdict.valid);
  for (const auto& r : records) {
    ASSERT_TRUE(r.success) << r.error;
    // One chunk per token (stream interval 1), their counts rising to the output length.
    EXPECT_EQ(r.chunk_ns.size(), static_cast<std::size_t>(r.expected_output_tokens));
    EXPECT_EQ(r.chunk_tokens.back(), static_cast<std::uint32_t>(r.expected_output_tokens));
    EXPECT_EQ(r.server_output_tokens, r.expected_output_tokens);
    EXPECT_EQ(r.server_prompt_tokens, r.prompt_tokens);
    EXPECT_EQ(r.first_chunk_ns, r.chunk_ns.front());
    EXPECT_EQ(r.end_ns, r.chunk_ns.back());
  }
  // Without chunk times the same run has the same TTFT, TPOT and E2EL but records no ITL.
  const Prediction coarse = Predict(d, ReferenceClient("llama-3.3-70b", 512, 128, 8, 80, 0));
  EXPECT_EQ(coarse.result.metrics.ttft.median, p.result.metrics.ttft.median);
  EXPECT_EQ(coarse.result.metrics.tpot.median, p.result.metrics.tpot.median);
  EXPECT_EQ(coarse.result.metrics.e2el.median, p.result.metrics.e2el.median);
  EXPECT_EQ(coarse.result.metrics.itl.count, 0u);
  EXPECT_GT(p.result.metrics.itl.count, 0u);
  EXPECT_EQ(coarse.result.result["infermark"]["server"]["chunk_times"], false);
}

// Calibration re-times a recorded trace thousands of times instead of running the client again:
// on every point of the founding recipe its figures must be the full run's.
TEST(VirtualTarget, RetimedTracesAgreeWithFullRunsOnTheFoundingRecipe) {
  perfmodel::DeploymentOptions o;
  o.model = "amd/MiniMax-M3-MXFP4";
  o.hardware = "mi355x";
  o.precision = "fp4";
  o.block_size = 128;
  o.prefix_caching = false;
  int points = 0;
  for (const auto& [isl, osl] : {std::pair{1024, 1024}, std::pair{8192, 1024}}) {
    for (const auto& [tp, max_conc] : {std::pair{8, 32}, std::pair{4, 256}}) {
      o.tp = tp;
      const perfmodel::Deployment d = perfmodel::ResolveDeployment(test::ProjectEngineData(), o);
      const perfmodel::StepTimeModel model(d);
      for (int conc = 1; conc <= max_conc; conc *= 2) {
        VirtualTargetOptions vo;
        vo.record_trace = true;
        const Prediction full = Predict(d, ReferenceClient(d.model.name, isl, osl, conc, 10 * conc, 0), vo);
        const perfmodel::TraceFigures retimed = perfmodel::RetimeTrace(full.trace, model, d.NumGpus());
        EXPECT_NEAR(retimed.tput_per_gpu, full.figures.tput_per_gpu, 1e-9 * full.figures.tput_per_gpu)
            << isl << " tp" << tp << " c" << conc;
        EXPECT_NEAR(retimed.median_intvty, full.figures.median_intvty, 1e-9 * full.figures.median_intvty)
            << isl << " tp" << tp << " c" << conc;
        EXPECT_NEAR(retimed.median_e2el, full.figures.median_e2el, 1e-9 * full.figures.median_e2el)
            << isl << " tp" << tp << " c" << conc;
        ++points;
      }
    }
  }
  EXPECT_EQ(points, 30);
}

// An open loop's arrivals fall inside runs of decode passes; the target ends each run at the
// next arrival, so a request joins at a pass boundary and timing every chunk (one event per
// pass) or not (one per run) gives the same figures.
TEST(VirtualTarget, ArrivalsMeetTheBatchAtPassBoundaries) {
  const perfmodel::Deployment d = Resolve("llama-3.3-70b", "h200", "fp8", 8);
  loadgen::BenchConfig c = ReferenceClient("llama-3.3-70b", 256, 256, 16, 60, 0);
  c.max_concurrency.reset();
  c.request_rate = 20.0;
  c.burstiness = 1.0;
  VirtualTargetOptions fine;
  fine.chunk_times = true;
  const Prediction a = Predict(d, c, fine);
  const Prediction b = Predict(d, c);
  ASSERT_EQ(a.result.records.size(), 60u);
  for (std::size_t i = 0; i < a.result.records.size(); ++i) {
    const auto& x = a.result.records[i];
    const auto& y = b.result.records[i];
    EXPECT_EQ(x.sent_ns, x.intended_ns);  // sent exactly when due
    EXPECT_EQ(x.intended_ns, y.intended_ns);
    EXPECT_EQ(x.first_chunk_ns, y.first_chunk_ns) << i;
    EXPECT_EQ(x.end_ns, y.end_ns) << i;
  }
  EXPECT_EQ(a.figures.median_intvty, b.figures.median_intvty);
}

TEST(VirtualTarget, ARequestThatCannotFitFailsAsTheEngineAnswersIt) {
  perfmodel::DeploymentOptions o;
  o.model = "llama-3.3-70b";
  o.hardware = "h200";
  o.precision = "fp8";
  o.tp = 8;
  o.max_model_len = 2048;
  const perfmodel::Deployment d = perfmodel::ResolveDeployment(test::ProjectEngineData(), o);
  // Prompts of 1,024–4,096 tokens: some exceed the model length and fail with HTTP 400 before any
  // token; the others are served, and the closed loop goes on past the failures.
  const Prediction p = Predict(d, ReferenceClient("llama-3.3-70b", 4096, 16, 4, 40, 0, 0.25));
  std::size_t failed = 0;
  for (const auto& r : p.result.records) {
    if (r.success) continue;
    ++failed;
    EXPECT_EQ(r.error_kind, "http_status");
    EXPECT_EQ(r.http_status, 400);
    EXPECT_GT(r.prompt_tokens + r.expected_output_tokens, 2048);
  }
  EXPECT_GT(failed, 0u);
  EXPECT_LT(failed, 40u);
  EXPECT_EQ(p.result.records.size(), 40u);
  EXPECT_FALSE(p.result.verdict.valid);  // more than 5 % failed
}

// An agentic session resends its growing conversation each turn: the prompts' prefix identity
// reaches the model's prefix cache through the target, the cache finds what the hash ids say was
// sent before (no more: a unit is cached once computed), and cached turns start sooner.
TEST(VirtualTarget, PromptsCarryTheirPrefixIntoTheModelsCache) {
  agentic::TraceLoad load =
      agentic::ReadTraces(std::string(INFERMARK_SOURCE_DIR) + "/tests/fixtures/agentic-traces/traces.jsonl");
  agentic::TraceCorpus corpus = std::move(load.corpus);
  std::erase_if(corpus.traces, [](const agentic::Trace& t) { return t.id != "trace_0291"; });
  ASSERT_EQ(corpus.traces.size(), 1u);
  agentic::ReplayOptions o;
  o.concurrency = 1;
  o.duration_s = 100'000;
  o.start_min_ratio = 0;
  o.start_max_ratio = 0;
  o.system_idle_gap_cap_s = 0;
  perfmodel::DeploymentOptions d;
  d.model = "llama-3.3-70b";
  d.hardware = "h200";
  d.precision = "fp8";
  d.tp = 8;
  const AgenticPrediction on = PredictAgentic(perfmodel::ResolveDeployment(test::ProjectEngineData(), d), corpus, o);
  d.prefix_caching = false;
  const AgenticPrediction off = PredictAgentic(perfmodel::ResolveDeployment(test::ProjectEngineData(), d), corpus, o);
  std::int64_t theoretical = 0, prompts = 0;
  std::map<std::tuple<int, std::uint32_t, std::uint32_t>, const agentic::ReplayRequest*> first_play_off;
  for (const agentic::ReplayRequest& q : off.run.requests)
    if (q.pass == 0 && q.record.success) first_play_off[{q.subagent, q.turn, q.pass}] = &q;
  double ttft_on = 0, ttft_off = 0;
  int cached_turns = 0;
  for (const agentic::ReplayRequest& r : on.run.requests) {
    if (r.overflow || !r.record.success) continue;
    theoretical += r.theoretical_hit_tokens;
    prompts += r.input_tokens;
    const auto it = first_play_off.find({r.subagent, r.turn, r.pass});
    if (r.pass != 0 || it == first_play_off.end() || r.theoretical_hit_tokens < r.input_tokens / 2) continue;
    ++cached_turns;
    ttft_on += double(*r.record.first_chunk_ns - *r.record.sent_ns);
    ttft_off += double(*it->second->record.first_chunk_ns - *it->second->record.sent_ns);
  }
  EXPECT_GT(on.stats.prefix_hits, 0);
  EXPECT_LE(on.stats.prefix_hits, theoretical);
  EXPECT_GT(double(on.stats.prefix_hits), 0.9 * double(theoretical));
  EXPECT_EQ(on.stats.prefix_queries, prompts);
  EXPECT_EQ(off.stats.prefix_hits, 0);
  ASSERT_GT(cached_turns, 0);
  EXPECT_LT(ttft_on, 0.5 * ttft_off);
}

}  // namespace
}  // namespace infermark::sim
