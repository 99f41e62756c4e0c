// Host error on hand-made timelines whose ideal is known: a clean run has none, a late pass moves
// exactly the statistics it touched, a late send moves throughput through the closed loop's refills
// and is the client's, and a server without a model clock is judged on the client's share alone.
#include "metrics/host_error.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <vector>

namespace infermark::metrics {
namespace {

constexpr std::int64_t kHostErrorMs = 1'000'000;

// One successful request of `chunks` chunks, `gap` apart after a first chunk `ttft` after its
// arrival in the model; `scale` modelled ns per real ns. Its measured times equal the model's
// (arrival at the send), plus `late` on every chunk from `late_from` on.
RequestRecord Request(std::size_t index, std::int64_t sent, std::int64_t ttft, std::int64_t gap, int chunks,
                      double scale = 1.0, std::int64_t late = 0, int late_from = 1 << 30) {
  RequestRecord r;
  r.index = index;
  r.intended_ns = sent;
  r.sent_ns = sent;
  r.success = true;
  r.prompt_tokens = 100;
  r.server_output_tokens = chunks;
  const auto model_of = [&](std::int64_t real_after_send) {
    return static_cast<std::int64_t>(std::llround(static_cast<double>(sent + real_after_send) * scale));
  };
  r.model_arrival_ns = model_of(0);
  for (int k = 0; k < chunks; ++k) {
    const std::int64_t after = ttft + k * gap;
    r.chunk_ns.push_back(sent + after + (k >= late_from ? late : 0));
    r.chunk_model_ns.push_back(model_of(after));
  }
  r.first_chunk_ns = r.chunk_ns.front();
  r.model_first_chunk_ns = r.chunk_model_ns.front();
  r.end_ns = r.chunk_ns.back();
  r.model_end_ns = r.chunk_model_ns.back();
  r.done_ns = r.end_ns;
  r.model_done_ns = r.model_end_ns;
  return r;
}

// The reported figures and their host error, over a window starting at 0.
HostError ErrorOf(const std::vector<RequestRecord>& records, double scale = 1.0, std::optional<int> gpus = {}) {
  std::int64_t end = 0;
  for (const auto& r : records) end = std::max(end, *r.done_ns);
  const double duration = static_cast<double>(end) / 1e9;
  HostErrorOptions o;
  o.model_time_scale = scale;
  o.gpus = gpus;
  return ComputeHostError(records, ComputeMetrics(records, duration), duration, o);
}

TEST(HostError, ACleanRunHasNone) {
  std::vector<RequestRecord> records;
  for (std::size_t i = 0; i < 6; ++i)
    records.push_back(
        Request(i, static_cast<std::int64_t>(i) * 40 * kHostErrorMs, 30 * kHostErrorMs, 10 * kHostErrorMs, 8));
  const HostError h = ErrorOf(records, 1.0, 8);
  EXPECT_EQ(h.kind, HostErrorKind::kExact);
  EXPECT_EQ(h.exact_requests, 6u);
  ASSERT_FALSE(h.figures.empty());
  for (const auto& [key, e] : h.figures) EXPECT_NEAR(e.abs, 0.0, 1e-9) << key;
  ASSERT_NE(h.Find("tput_per_gpu"), nullptr);
  ASSERT_NE(h.Find("p99.9_itl_ms"), nullptr);
  ASSERT_NE(h.Find("median_intvty"), nullptr);
}

TEST(HostError, ALatePassMovesWhatItTouchedAndNothingElse) {
  // Request 2's chunks from the 5th on went out 100 ms late (the engine's host stalled); the model
  // says when they were due. Its TTFT did not move; its E2EL, the ITL tail and throughput did.
  std::vector<RequestRecord> clean, stalled;
  for (std::size_t i = 0; i < 4; ++i) {
    const std::int64_t sent = static_cast<std::int64_t>(i) * 5 * kHostErrorMs;
    clean.push_back(Request(i, sent, 30 * kHostErrorMs, 10 * kHostErrorMs, 20));
    stalled.push_back(
        Request(i, sent, 30 * kHostErrorMs, 10 * kHostErrorMs, 20, 1.0, i == 2 ? 100 * kHostErrorMs : 0, 4));
  }
  const HostError h = ErrorOf(stalled);
  const double clean_duration = static_cast<double>(*clean[3].done_ns) / 1e9;
  const BenchmarkMetrics ideal = ComputeMetrics(clean, clean_duration);
  const FigureError& ttft = *h.Find("median_ttft_ms");
  EXPECT_NEAR(ttft.abs, 0.0, 1e-9);
  const FigureError& e2el_max = *h.Find("p99_e2el_ms");
  EXPECT_NEAR(e2el_max.ideal, ideal.e2el.percentiles[1].second, 1e-9);
  EXPECT_GT(e2el_max.abs, 50.0);  // ms
  const FigureError& itl_p99 = *h.Find("p99_itl_ms");
  EXPECT_NEAR(itl_p99.ideal, 10.0, 1e-9);
  EXPECT_GT(*itl_p99.rel, 1.0);
  // The stalled request ends 100 ms later but request 3 (sent 5 ms after it) ended 5 ms after it
  // ideally, so the window grew by 95 ms.
  const FigureError& out = *h.Find("output_throughput");
  EXPECT_NEAR(out.ideal, ideal.output_throughput, 1e-9);
  EXPECT_NEAR(*out.rel, clean_duration / (clean_duration + 0.095) - 1.0, 1e-9);
  // None of it was the client's: its sends were on time.
  EXPECT_NEAR(out.client_abs, 0.0, 1e-9);
  EXPECT_NEAR(e2el_max.client_abs, 0.0, 1e-9);
}

TEST(HostError, ALateRefillIsTheClientsAndDelaysNothingAfterItIdeally) {
  // A closed loop on one slot: each request is sent the moment the one before ended; the client
  // sent the third 50 ms late. The engine served it as usual from its arrival, so every latency
  // stands, but the window (and so throughput) took 50 ms longer than the plan.
  std::vector<RequestRecord> records;
  std::int64_t t = 0;
  for (std::size_t i = 0; i < 5; ++i) {
    const std::int64_t intended = t;
    const std::int64_t sent = t + (i == 2 ? 50 * kHostErrorMs : 0);
    RequestRecord r = Request(i, sent, 20 * kHostErrorMs, 5 * kHostErrorMs, 10);
    r.intended_ns = intended;
    if (i > 0) r.freed_by = i - 1;
    t = *r.done_ns;
    records.push_back(r);
  }
  const HostError h = ErrorOf(records);
  EXPECT_NEAR(h.Find("median_ttft_ms")->abs, 0.0, 1e-9);
  EXPECT_NEAR(h.Find("p99_e2el_ms")->abs, 0.0, 1e-9);
  const double reported = static_cast<double>(t) / 1e9;
  EXPECT_NEAR(h.ideal_duration_s, reported - 0.050, 1e-9);
  const FigureError& req = *h.Find("request_throughput");
  EXPECT_NEAR(*req.rel, (reported - 0.050) / reported - 1.0, 1e-9);
  EXPECT_NEAR(req.client_abs, req.abs, 1e-9);
}

TEST(HostError, AScaledEngineIsMeasuredOnItsDeScaledModelClock) {
  // At time scale 10 the model's spans are ten times the real ones; a 1 ms late first chunk is a
  // 1 ms host error in real time whatever the scale.
  std::vector<RequestRecord> records;
  for (std::size_t i = 0; i < 3; ++i) {
    RequestRecord r =
        Request(i, static_cast<std::int64_t>(i) * 100 * kHostErrorMs, 10 * kHostErrorMs, 2 * kHostErrorMs, 6, 10.0);
    records.push_back(r);
  }
  for (auto& c : records[1].chunk_ns) c += kHostErrorMs;
  records[1].first_chunk_ns = records[1].chunk_ns.front();
  records[1].end_ns = records[1].chunk_ns.back();
  records[1].done_ns = records[1].end_ns;
  const HostError h = ErrorOf(records, 10.0);
  EXPECT_EQ(h.kind, HostErrorKind::kExact);
  EXPECT_NEAR(h.Find("mean_ttft_ms")->abs, 1.0 / 3.0, 1e-6);
  EXPECT_NEAR(h.Find("median_ttft_ms")->ideal, 10.0, 1e-6);
  EXPECT_NEAR(h.Find("median_itl_ms")->abs, 0.0, 1e-6);
}

TEST(HostError, WithoutAModelClockOnlyTheClientsShareIsKnown) {
  std::vector<RequestRecord> records;
  std::int64_t t = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    const std::int64_t sent = t + (i == 1 ? 20 * kHostErrorMs : 0);
    RequestRecord r = Request(i, sent, 20 * kHostErrorMs, 5 * kHostErrorMs, 10, 1.0, i == 3 ? 30 * kHostErrorMs : 0, 2);
    r.intended_ns = t;
    if (i > 0) r.freed_by = i - 1;
    r.model_arrival_ns.reset();
    r.chunk_model_ns.clear();
    t = *r.done_ns;
    records.push_back(r);
  }
  const HostError h = ErrorOf(records, 1.0);
  EXPECT_EQ(h.kind, HostErrorKind::kClient);
  EXPECT_EQ(h.exact_requests, 0u);
  // The server's slow chunks are the server's figures: no error on the latencies.
  EXPECT_NEAR(h.Find("p99_itl_ms")->abs, 0.0, 1e-9);
  // The late send is the client's: 20 ms of the window.
  EXPECT_NEAR(h.ideal_duration_s, static_cast<double>(t) / 1e9 - 0.020, 1e-9);
  // With a model clock of 0 (max speed) the run is judged the same way.
  records[0].model_arrival_ns = 0;
  EXPECT_EQ(ErrorOf(records, 0.0).kind, HostErrorKind::kClient);
}

TEST(HostError, HeadlineFiguresAreThePlottedOnes) {
  for (const char* key :
       {"tput_per_gpu", "output_tput_per_gpu", "input_tput_per_gpu", "total_token_throughput", "output_throughput",
        "input_throughput", "median_ttft_ms", "median_tpot_ms", "median_itl_ms", "median_e2el_ms", "median_intvty"}) {
    EXPECT_TRUE(IsHeadlineFigure(key)) << key;
  }
  for (const char* key : {"p99_ttft_ms", "mean_ttft_ms", "p90_intvty", "request_throughput", "std_itl_ms"}) {
    EXPECT_FALSE(IsHeadlineFigure(key)) << key;
  }
  EXPECT_TRUE(IsUnjudgedFigure("std_e2el_ms"));
  EXPECT_FALSE(IsUnjudgedFigure("p99_e2el_ms"));
}

}  // namespace
}  // namespace infermark::metrics
