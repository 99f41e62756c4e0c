// The metric definitions on hand-made request records; every expected number is worked out in
// the comments from the reference's definitions.
#include "metrics/benchmark_metrics.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace infermark::metrics {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kBase = 1'000'000'000'000;

RequestRecord Ok(std::size_t index, std::int64_t sent, std::vector<std::int64_t> chunks_ms,
                 std::optional<std::int64_t> output) {
  RequestRecord r;
  r.index = index;
  r.sent_ns = sent;
  r.intended_ns = sent;
  for (const std::int64_t ms : chunks_ms) r.chunk_ns.push_back(sent + ms * kMs);
  r.first_chunk_ns = r.chunk_ns.front();
  r.first_text_ns = r.chunk_ns.front();
  r.end_ns = r.chunk_ns.back();
  r.done_ns = r.end_ns;
  r.success = true;
  r.prompt_tokens = 10;
  r.server_output_tokens = output;
  return r;
}

std::vector<RequestRecord> HandMade() {
  std::vector<RequestRecord> records;
  // A: TTFT 100, E2EL 200, 4 tokens → TPOT (200 − 100) / 3; ITL 20 30 50; intended 10 ms earlier;
  // first text at 120 (the first chunk was role-only); server counted 11 prompt tokens, not 10.
  RequestRecord a = Ok(0, kBase, {100, 120, 150, 200}, 4);
  a.intended_ns = kBase - 10 * kMs;
  a.first_text_ns = kBase + 120 * kMs;
  a.chunk_tokens = {1, 2, 3, 5};  // the last chunk carried two tokens
  a.server_prompt_tokens = 11;
  a.client_output_tokens = 4;
  records.push_back(a);
  // B: TTFT 50, E2EL 60, 2 tokens → TPOT 10; ITL 10.
  records.push_back(Ok(1, kBase + 5 * kMs, {50, 60}, 2));
  // C: failed.
  RequestRecord c;
  c.index = 2;
  c.sent_ns = kBase;
  c.prompt_tokens = 7;
  c.error_kind = "timeout";
  records.push_back(c);
  // D: TTFT 30 = E2EL, no usage from the server → output 0 (no TPOT), counted by the client as 3.
  RequestRecord d = Ok(3, kBase, {30}, std::nullopt);
  d.client_output_tokens = 3;
  records.push_back(d);
  return records;
}

TEST(BenchmarkMetrics, CompatibleDefinitions) {
  const BenchmarkMetrics m = ComputeMetrics(HandMade(), 2.0);
  EXPECT_EQ(m.completed, 3u);
  EXPECT_EQ(m.failed, 1u);
  EXPECT_EQ(m.total_input, 30);  // successes only
  EXPECT_EQ(m.total_output, 6);  // 4 + 2 + 0
  EXPECT_EQ(m.input_lens, (std::vector<std::int64_t>{10, 10, 7, 10}));
  EXPECT_EQ(m.output_lens, (std::vector<std::int64_t>{4, 2, 0, 0}));
  EXPECT_DOUBLE_EQ(m.request_throughput, 1.5);
  EXPECT_DOUBLE_EQ(m.output_throughput, 3.0);
  EXPECT_DOUBLE_EQ(m.total_token_throughput, 18.0);
  EXPECT_FALSE(m.request_goodput.has_value());

  // TTFT 100 50 30: mean 60, median 50, p90 at index 1.8 → 50 + 0.8·50 = 90.
  EXPECT_NEAR(m.ttft.mean, 60.0, 1e-9);
  EXPECT_NEAR(m.ttft.median, 50.0, 1e-9);
  ASSERT_EQ(m.ttft.percentiles.size(), 3u);
  EXPECT_NEAR(m.ttft.percentiles[0].second, 90.0, 1e-9);
  // TPOT only where output > 1: 33.33… and 10.
  EXPECT_EQ(m.tpot.count, 2u);
  EXPECT_NEAR(m.tpot.mean, (100.0 / 3.0 + 10.0) / 2.0, 1e-9);
  // ITL pooled over requests: 20 30 50 10 → mean 27.5, median 25, p90 index 2.7 → 30 + 0.7·20 = 44.
  EXPECT_EQ(m.itl.count, 4u);
  EXPECT_NEAR(m.itl.mean, 27.5, 1e-9);
  EXPECT_NEAR(m.itl.median, 25.0, 1e-9);
  EXPECT_NEAR(m.itl.percentiles[0].second, 44.0, 1e-9);
  // E2EL 200 60 30.
  EXPECT_NEAR(m.e2el.mean, 290.0 / 3.0, 1e-9);
  // Population std of E2EL: mean 96.67; deviations² 10677.8, 1344.4, 4444.4 → mean 5488.9.
  EXPECT_NEAR(m.e2el.std, 74.087035, 1e-5);
}

TEST(BenchmarkMetrics, OwnMetrics) {
  const BenchmarkMetrics m = ComputeMetrics(HandMade(), 2.0);
  // First text: A at 120, B 50, D 30.
  EXPECT_NEAR(m.first_text_ttft.mean, 200.0 / 3.0, 1e-9);
  // From the intended time A's TTFT is 110.
  EXPECT_NEAR(m.intended_ttft.max, 110.0, 1e-9);
  EXPECT_NEAR(m.intended_e2el.max, 210.0, 1e-9);
  // Tokens per chunk only from A: 1 1 1 2.
  EXPECT_EQ(m.requests_with_chunk_usage, 1u);
  EXPECT_EQ(m.tokens_per_chunk.count, 4u);
  EXPECT_DOUBLE_EQ(m.tokens_per_chunk.mean, 1.25);
  EXPECT_DOUBLE_EQ(m.tokens_per_chunk.max, 2.0);
  EXPECT_EQ(m.chunks, 7u);
  EXPECT_EQ(m.server_output_tokens, 6);
  EXPECT_EQ(m.client_output_tokens, 7);
  EXPECT_EQ(m.output_usage_missing, 1u);
  EXPECT_EQ(m.output_token_mismatches, 0u);  // D has no server count to disagree with
  EXPECT_EQ(m.prompt_token_mismatches, 1u);
  EXPECT_EQ(m.prompt_token_difference, 1);
  EXPECT_EQ(m.failures_by_kind.at("timeout"), 1u);
  // Send lag: A 10 ms, the others 0; C was sent (intended unset → not counted).
  EXPECT_EQ(m.send_lag.count, 3u);
  EXPECT_NEAR(m.send_lag.max, 10.0, 1e-9);
}

TEST(BenchmarkMetrics, TimeZeroIsAMomentNotANever) {
  // A virtual clock starts at 0: a request sent there, answered at 0 + 5 ms, intended at 0.
  RequestRecord r = Ok(0, 0, {5, 15}, 2);
  const BenchmarkMetrics m = ComputeMetrics(std::vector<RequestRecord>{r}, 1.0);
  EXPECT_EQ(m.completed, 1u);
  EXPECT_NEAR(m.ttft.median, 5.0, 1e-12);
  EXPECT_EQ(m.send_lag.count, 1u);
  EXPECT_EQ(m.send_lag.max, 0.0);
  EXPECT_EQ(m.intended_ttft.count, 1u);
  // Never sent: no send lag, whatever its intended time.
  RequestRecord unsent;
  unsent.intended_ns = 0;
  unsent.error_kind = "cancelled";
  EXPECT_EQ(ComputeMetrics(std::vector<RequestRecord>{unsent}, 1.0).send_lag.count, 0u);
}

TEST(BenchmarkMetrics, OpeningWaveSendLagIsReportedApart) {
  // Three requests due at the start went out 0, 4 and 8 ms late (the client writing a whole wave);
  // the one that took the first freed slot went out 0.5 ms after it freed.
  std::vector<RequestRecord> records;
  for (int i = 0; i < 3; ++i) {
    RequestRecord r = Ok(static_cast<std::size_t>(i), kBase + i * 4 * kMs, {10, 20}, 2);
    r.intended_ns = kBase;
    r.opening_wave = true;
    records.push_back(r);
  }
  RequestRecord next = Ok(3, kBase + 20 * kMs + kMs / 2, {10, 20}, 2);
  next.intended_ns = kBase + 20 * kMs;
  records.push_back(next);
  const BenchmarkMetrics m = ComputeMetrics(records, 1.0);
  EXPECT_EQ(m.opening_wave_send_lag.count, 3u);
  EXPECT_NEAR(m.opening_wave_send_lag.max, 8.0, 1e-9);
  EXPECT_EQ(m.send_lag.count, 1u);
  EXPECT_NEAR(m.send_lag.max, 0.5, 1e-9);
  // Latencies from the intended time still include the wave's lag.
  EXPECT_NEAR(m.intended_ttft.max, 18.0, 1e-9);
}

TEST(BenchmarkMetrics, GoodputCountsRequestsMeetingEverySlo) {
  MetricsOptions o;
  o.goodput_slo_ms = {{"ttft", 60}};  // B (50) and D (30)
  EXPECT_DOUBLE_EQ(*ComputeMetrics(HandMade(), 2.0, o).request_goodput, 1.0);
  o.goodput_slo_ms = {{"ttft", 60}, {"tpot", 5}};  // D only: its TPOT counts as 0
  EXPECT_DOUBLE_EQ(*ComputeMetrics(HandMade(), 2.0, o).request_goodput, 0.5);
  o.goodput_slo_ms = {{"e2el", 1000}};  // all three successes
  EXPECT_DOUBLE_EQ(*ComputeMetrics(HandMade(), 2.0, o).request_goodput, 1.5);
}

TEST(BenchmarkMetrics, NoSuccessesGiveZerosNotNaN) {
  std::vector<RequestRecord> records(2);
  records[0].error_kind = "reset";
  const BenchmarkMetrics m = ComputeMetrics(records, 1.0);
  EXPECT_EQ(m.completed, 0u);
  EXPECT_EQ(m.ttft.mean, 0.0);
  EXPECT_EQ(m.itl.percentiles[2].second, 0.0);
  EXPECT_EQ(m.failures_by_kind.at("unknown"), 1u);
}

}  // namespace
}  // namespace infermark::metrics
