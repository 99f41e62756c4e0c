// The client's schedule on a simulated clock, against a target that answers each request after a
// fixed delay: closed-loop refills at the moment a slot frees, the opening wave, the concurrency
// bound, open-loop pacing with a waiting queue, the duration limit, and the records it leaves.
// The same Dispatcher drives real event loops; here every instant is exact.
#include "loadgen/dispatcher.hpp"

#include <gtest/gtest.h>

#include <map>

#include "sim/sim_executor.hpp"

namespace infermark::loadgen {
namespace {

constexpr std::int64_t kMs = 1'000'000;

// Answers request k after `latency(k)`: one chunk at half the latency, the last at the end.
class DelayTarget final : public Target {
 public:
  DelayTarget(sim::SimExecutor& ex, std::function<std::int64_t(std::size_t)> latency)
      : ex_(ex), latency_(std::move(latency)) {}
  void PreparePhase(std::span<const Prompt>, std::span<const std::size_t> order) override { prepared_ = order.size(); }
  void PrepareOpenPhase(std::size_t slots) override { prepared_ = slots; }
  void Issue(const RequestSpec& spec, RequestTracker& tracker) override {
    const std::int64_t now = ex_.NowNs();
    tracker.Sent(now);
    ++in_flight_;
    max_in_flight_ = std::max(max_in_flight_, in_flight_);
    issued_at_[spec.ordinal] = now;
    const std::int64_t latency = latency_(spec.ordinal);
    ex_.At(0, now + latency / 2, [&tracker, now, latency] {
      Chunk c;
      c.at_ns = now + latency / 2;
      c.tokens_so_far = 1;
      tracker.OnChunk(c);
    });
    ex_.At(0, now + latency, [this, &tracker, now, latency] {
      Chunk c;
      c.at_ns = now + latency;
      c.tokens_so_far = 2;
      tracker.OnChunk(c);
      tracker.Usage(10, 2);
      --in_flight_;
      tracker.Done(RequestEnd{now + latency, "", ""});
    });
  }
  void CancelAll(std::string_view) override {}
  [[nodiscard]] TargetReport Report() const override { return {}; }

  int max_in_flight_ = 0;
  int in_flight_ = 0;
  std::size_t prepared_ = 0;
  std::map<std::size_t, std::int64_t> issued_at_;

 private:
  sim::SimExecutor& ex_;
  std::function<std::int64_t(std::size_t)> latency_;
};

std::vector<Prompt> Prompts(std::size_t n) {
  std::vector<Prompt> p(n);
  for (auto& x : p) {
    x.prompt_len = 10;
    x.output_len = 2;
  }
  return p;
}

TEST(Dispatcher, ClosedLoopRefillsTheMomentASlotFrees) {
  sim::SimExecutor ex;
  // Request k takes (k + 1) ms.
  DelayTarget target(ex, [](std::size_t k) { return std::int64_t(k + 1) * kMs; });
  const std::vector<Prompt> prompts = Prompts(10);
  PhaseSpec phase;
  for (std::size_t i = 0; i < 10; ++i) phase.order.push_back(i);
  phase.concurrency = 3;
  Dispatcher d(target, ex, prompts, phase);
  EXPECT_EQ(target.prepared_, 10u);
  d.Start(0);
  ex.RunUntil([&] { return d.Done(); }, {});
  ASSERT_TRUE(d.Done());
  EXPECT_EQ(target.max_in_flight_, 3);
  EXPECT_EQ(d.Sent(), 10u);
  EXPECT_EQ(d.Finished(), 10u);
  EXPECT_EQ(d.Failed(), 0u);
  EXPECT_EQ(d.OutputTokens(), 20);
  const auto records = d.TakeSentRecords();
  ASSERT_EQ(records.size(), 10u);
  // The opening wave: 0, 1, 2 at 0. Request 0 ends at 1 ms and 3 goes out then; 1 ends at 2 ms → 4.
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(records[i].opening_wave);
    EXPECT_EQ(records[i].intended_ns, 0);
  }
  EXPECT_FALSE(records[3].opening_wave);
  EXPECT_EQ(records[3].intended_ns, 1 * kMs);
  EXPECT_EQ(records[3].sent_ns, 1 * kMs);
  EXPECT_EQ(records[4].intended_ns, 2 * kMs);
  for (const auto& r : records) {
    EXPECT_TRUE(r.success) << r.error;
    EXPECT_EQ(r.sent_ns, r.intended_ns);  // a simulated client is never late
    EXPECT_EQ(*r.end_ns - *r.sent_ns, std::int64_t(r.index + 1) * kMs);
    EXPECT_EQ(r.chunk_ns.size(), 2u);
    EXPECT_EQ(r.chunk_tokens, (std::vector<std::uint32_t>{1, 2}));
  }
}

TEST(Dispatcher, OpenLoopPacesArrivalsAndQueuesThemBehindTheBound) {
  sim::SimExecutor ex;
  // Every request takes 10 ms; arrivals every 2 ms; at most 2 in flight.
  DelayTarget target(ex, [](std::size_t) { return 10 * kMs; });
  const std::vector<Prompt> prompts = Prompts(6);
  PhaseSpec phase;
  for (std::size_t i = 0; i < 6; ++i) {
    phase.order.push_back(i);
    phase.offsets.push_back(0.002 * double(i));
  }
  phase.concurrency = 2;
  Dispatcher d(target, ex, prompts, phase);
  d.Start(0);
  ex.RunUntil([&] { return d.Done(); }, {});
  ASSERT_TRUE(d.Done());
  EXPECT_EQ(target.max_in_flight_, 2);
  const auto r = d.TakeSentRecords();
  ASSERT_EQ(r.size(), 6u);
  EXPECT_EQ(r[0].sent_ns, 0);
  EXPECT_EQ(r[1].sent_ns, 2 * kMs);
  // Request 2 arrived at 4 ms but waited for request 0's slot (free at 10 ms).
  EXPECT_EQ(r[2].sent_ns, 10 * kMs);
  EXPECT_EQ(r[2].intended_ns, 10 * kMs);
  EXPECT_EQ(r[3].sent_ns, 12 * kMs);
  for (const auto& x : r) EXPECT_FALSE(x.opening_wave);
}

TEST(Dispatcher, DurationStopsSendingAndInFlightRequestsFinish) {
  sim::SimExecutor ex;
  DelayTarget target(ex, [](std::size_t) { return 10 * kMs; });
  const std::vector<Prompt> prompts = Prompts(100);
  PhaseSpec phase;
  for (std::size_t i = 0; i < 100; ++i) phase.order.push_back(i);
  phase.concurrency = 4;
  phase.duration_s = 0.025;  // refills at 10 and 20 ms; none at 30
  Dispatcher d(target, ex, prompts, phase);
  d.Start(0);
  ex.RunUntil([&] { return d.Done(); }, {});
  ASSERT_TRUE(d.Done());
  EXPECT_EQ(d.Sent(), 12u);
  EXPECT_EQ(d.Finished(), 12u);
  EXPECT_EQ(d.TakeSentRecords().size(), 12u);
}

TEST(Dispatcher, StopSendingEndsAClosedLoopAfterItsInFlightRequests) {
  sim::SimExecutor ex;
  DelayTarget target(ex, [](std::size_t) { return 10 * kMs; });
  const std::vector<Prompt> prompts = Prompts(100);
  PhaseSpec phase;
  for (std::size_t i = 0; i < 100; ++i) phase.order.push_back(i);
  phase.concurrency = 5;
  Dispatcher d(target, ex, prompts, phase);
  d.Start(0);
  ex.At(0, 15 * kMs, [&] { d.StopSending(); });
  ex.RunUntil([&] { return d.Done(); }, {});
  EXPECT_TRUE(d.Done());
  EXPECT_EQ(d.Sent(), 10u);  // the opening five and their refills at 10 ms
  EXPECT_EQ(d.Finished(), 10u);
}

}  // namespace
}  // namespace infermark::loadgen
