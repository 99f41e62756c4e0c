// Agentic replay against a disaggregated deployment on the virtual clock: TTFT carries the KV
// transfer, KV-aware routing sends a conversation's turns back to the workers holding its prefix
// (less prefill compute, and only the KV the decode worker lacks crosses the link), and round
// robin does not.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "agentic/trace_reader.hpp"
#include "perfmodel/disaggregation.hpp"
#include "perfmodel/engine_data.hpp"
#include "sim/predict_agentic.hpp"

namespace infermark::sim {
namespace {

const agentic::TraceLoad& Load() {
  static const agentic::TraceLoad load =
      agentic::ReadTraces(std::string(INFERMARK_SOURCE_DIR) + "/tests/fixtures/agentic-traces/traces.jsonl");
  return load;
}

perfmodel::DisaggDeployment Deployment(int prefill_workers, int decode_workers) {
  perfmodel::DeploymentOptions role;
  role.model = "minimax-m3";
  role.hardware = "mi355x";
  role.framework = "vllm";
  role.precision = "fp4";
  role.tp = 4;
  role.prefix_caching = true;
  perfmodel::DisaggOptions o;
  o.prefill = role;
  o.prefill_workers = prefill_workers;
  o.decode = role;
  o.decode_workers = decode_workers;
  o.kv_transfer = "nixl";
  return perfmodel::ResolveDisaggDeployment(perfmodel::DefaultEngineData(), o);
}

AgenticDisaggPrediction Replay(const perfmodel::DisaggDeployment& d, std::size_t users, RouterPolicy router) {
  agentic::ReplayOptions r;
  r.concurrency = users;
  r.duration_s = 600;
  r.start_min_ratio = 0.25;
  r.start_max_ratio = 0.75;
  r.trace_idle_gap_cap_s = 60;
  return PredictAgenticDisagg(d, Load().corpus, r, router);
}

// TTFTs of the profiled requests that succeeded, in send order.
std::vector<double> Ttfts(const AgenticDisaggPrediction& p) {
  std::vector<double> out;
  for (const auto& q : p.agentic.run.requests) {
    if (q.warmup || !q.record.success || !q.record.first_chunk_ns || !q.record.sent_ns) continue;
    out.push_back(double(*q.record.first_chunk_ns - *q.record.sent_ns) * 1e-9);
  }
  return out;
}

TEST(PredictAgenticDisagg, TtftIncludesTheKvTransfer) {
  // One user: its first requests meet idle workers, so a slower link adds exactly its time to each
  // TTFT (later, a session tree's subagents overlap and the shifted clock changes who waits).
  const perfmodel::DisaggDeployment fast = Deployment(1, 1);
  perfmodel::DisaggDeployment slow = fast;
  slow.backend.overhead_s += 0.25;
  const AgenticDisaggPrediction a = Replay(fast, 1, RouterPolicy::kKvAware);
  const AgenticDisaggPrediction b = Replay(slow, 1, RouterPolicy::kKvAware);
  const std::vector<double> ta = Ttfts(a), tb = Ttfts(b);
  ASSERT_GT(ta.size(), 10u);
  ASSERT_GT(a.transfers.transfers, 10);
  for (std::size_t i = 0; i < 10; ++i) EXPECT_NEAR(tb[i] - ta[i], 0.25, 1e-6) << "request " << i;
  std::vector<double> sa = ta, sb = tb;
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  EXPECT_NEAR(sb[sb.size() / 2] - sa[sa.size() / 2], 0.25, 0.02);
  // And the TTFT is never shorter than the transfer's fixed part.
  for (const double t : ta) EXPECT_GT(t, fast.backend.overhead_s + fast.link.latency_s);
}

TEST(PredictAgenticDisagg, KvAwareRoutingSparesPrefillWorkOverRoundRobin) {
  const perfmodel::DisaggDeployment d = Deployment(2, 2);
  const AgenticDisaggPrediction kv = Replay(d, 8, RouterPolicy::kKvAware);
  const AgenticDisaggPrediction rr = Replay(d, 8, RouterPolicy::kRoundRobin);
  const perfmodel::SchedulerStats& k = kv.agentic.stats;
  const perfmodel::SchedulerStats& r = rr.agentic.stats;
  ASSERT_GT(k.prefix_queries, 0);
  ASSERT_GT(r.prefix_queries, 0);
  // Per prompt token looked up, KV-aware routing finds more of it cached and computes less.
  const double kv_computed = double(k.prompt_computed) / double(k.prefix_queries);
  const double rr_computed = double(r.prompt_computed) / double(r.prefix_queries);
  EXPECT_LT(kv_computed, 0.8 * rr_computed) << kv_computed << " vs " << rr_computed;
  EXPECT_GT(double(k.prefix_hits) / double(k.prefix_queries), double(r.prefix_hits) / double(r.prefix_queries));
  // The decode worker holding a conversation's earlier turns receives the new KV only.
  EXPECT_GT(kv.transfers.reused_tokens, 0);
  EXPECT_LT(double(kv.transfers.tokens), 0.5 * double(kv.transfers.tokens + kv.transfers.reused_tokens));
  EXPECT_EQ(rr.transfers.reused_tokens, 0);
  EXPECT_EQ(kv.agentic.server_report["router"], "kv-aware");
  EXPECT_EQ(rr.agentic.server_report["router"], "round-robin");
}

}  // namespace
}  // namespace infermark::sim
