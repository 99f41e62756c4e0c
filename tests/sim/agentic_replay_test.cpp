// The agentic client's replay rules, on the virtual clock against a target of fixed latency.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "agentic/replay.hpp"
#include "agentic/trace_reader.hpp"
#include "loadgen/request_tracker.hpp"
#include "sim/sim_executor.hpp"

namespace infermark::agentic {
namespace {

using loadgen::Chunk;
using loadgen::RequestEnd;
using loadgen::RequestSpec;
using loadgen::RequestTracker;

constexpr std::int64_t kS = 1'000'000'000;

// Answers every request after `latency`, its first token at a tenth of it; refuses prompts over
// `context` tokens with the built-in engine's 400.
class FixedTarget final : public loadgen::Target {
 public:
  FixedTarget(sim::SimExecutor& ex, std::int64_t latency, std::int64_t context = 1'000'000'000)
      : ex_(ex), latency_(latency), context_(context) {}
  void PreparePhase(std::span<const loadgen::Prompt>, std::span<const std::size_t>) override {}
  void PrepareOpenPhase(std::size_t slots) override { slots_ = slots; }
  void Issue(const RequestSpec& spec, RequestTracker& tracker) override {
    const std::int64_t now = ex_.NowNs();
    tracker.Sent(now);
    EXPECT_LT(spec.ordinal, slots_);
    ++in_flight_;
    max_in_flight_ = std::max(max_in_flight_, in_flight_);
    output_.push_back(spec.prompt->output_len);
    if (spec.prompt->prompt_len > context_) {
      ex_.Post(0, [this, &tracker, now] {
        --in_flight_;
        tracker.Status(400);
        tracker.Done(RequestEnd{now, "http_status", "HTTP 400: this model's maximum context length is exceeded"});
      });
      return;
    }
    const std::int64_t out = spec.prompt->output_len;
    ex_.At(0, now + latency_ / 10, [&tracker, now, this] {
      Chunk c;
      c.at_ns = now + latency_ / 10;
      c.tokens_so_far = 1;
      tracker.OnChunk(c);
    });
    ex_.At(0, now + latency_, [this, &tracker, now, out] {
      Chunk c;
      c.at_ns = now + latency_;
      c.tokens_so_far = static_cast<std::uint32_t>(out);
      tracker.OnChunk(c);
      tracker.Usage(10, out);
      --in_flight_;
      tracker.Done(RequestEnd{now + latency_, "", ""});
    });
  }
  void CancelAll(std::string_view) override {}
  [[nodiscard]] loadgen::TargetReport Report() const override { return {}; }

  int in_flight_ = 0;
  int max_in_flight_ = 0;
  std::size_t slots_ = 0;
  std::vector<std::int64_t> output_;

 private:
  sim::SimExecutor& ex_;
  std::int64_t latency_;
  std::int64_t context_;
};

TraceCorpus Only(const std::string& id) {
  TraceLoad load = ReadTraces(std::string(INFERMARK_SOURCE_DIR) + "/tests/fixtures/agentic-traces/traces.jsonl");
  TraceCorpus c = std::move(load.corpus);
  std::erase_if(c.traces, [&](const Trace& t) { return t.id != id; });
  return c;
}

ReplayOptions FromTheStart(double duration_s) {
  ReplayOptions o;
  o.concurrency = 1;
  o.duration_s = duration_s;
  o.start_min_ratio = 0;
  o.start_max_ratio = 0;
  o.system_idle_gap_cap_s = 0;
  return o;
}

std::int64_t Sent(const ReplayRequest& r) {
  return *r.record.sent_ns;
}
std::int64_t Done(const ReplayRequest& r) {
  return *r.record.done_ns;
}

TEST(AgenticReplay, RecordedGapsRunFromEachCallsEndToTheNextOnesStart) {
  const TraceCorpus corpus = Only("trace_0291");
  const Trace& t = corpus.traces[0];
  sim::SimExecutor ex;
  FixedTarget target(ex, 2 * kS);
  const ReplayRun run = Replay(corpus, FromTheStart(100'000), nullptr, target, ex);
  std::vector<const ReplayRequest*> parent;
  for (const ReplayRequest& r : run.requests) {
    if (r.subagent < 0 && r.pass == 0) parent.push_back(&r);
  }
  ASSERT_EQ(parent.size(), t.calls.size());
  for (std::size_t j = 1; j < parent.size(); ++j) {
    EXPECT_EQ(parent[j]->turn, j);
    const std::int64_t gap = Sent(*parent[j]) - Done(*parent[j - 1]);
    if (j == 16) {
      // Call 16 waits for agent_001 (it ended before call 16 in the recording) and its gap after it.
      EXPECT_GE(gap, static_cast<std::int64_t>(t.calls[16].think_time * 1e9) - 1);
    } else {
      EXPECT_NEAR(static_cast<double>(gap) / 1e9, t.calls[j].think_time, 1e-6) << "call " << j;
    }
    EXPECT_EQ(parent[j]->record.intended_ns, parent[j]->record.sent_ns);
  }
  // Subagents: spawned after parent call 15 ends, at their recorded offset; agent_001 joins call 16.
  std::map<int, std::vector<const ReplayRequest*>> subs;
  for (const ReplayRequest& r : run.requests) {
    if (r.subagent >= 0 && r.pass == 0) subs[r.subagent].push_back(&r);
  }
  ASSERT_EQ(subs.size(), 2u);
  EXPECT_EQ(subs[0].size(), 5u);
  EXPECT_EQ(subs[1].size(), 7u);
  const double spawn0 = 1148.013 - (1085 + 15.64);
  EXPECT_NEAR(static_cast<double>(Sent(*subs[0][0]) - Done(*parent[15])) / 1e9, spawn0, 1e-6);
  EXPECT_GE(Sent(*parent[16]), Done(*subs[0].back()));
  // Its recorded gap after the subagent is a floor; the parent's own think time may be longer.
  EXPECT_GE(static_cast<double>(Sent(*parent[16]) - Done(*subs[0].back())) / 1e9, 1209 - (1148.013 + 46.656) - 1e-6);
  EXPECT_GT(Done(*subs[1].back()), Sent(*parent[16]));  // agent_002 ran in the background
  EXPECT_EQ(ConversationId(corpus, *subs[0][0]), "trace_0291::sa:agent_001");
  // A subagent's inner calls keep their gaps too.
  EXPECT_NEAR(static_cast<double>(Sent(*subs[0][1]) - Done(*subs[0][0])) / 1e9, 3.0, 1e-6);
}

TEST(AgenticReplay, TheoreticalHitsCountLeadingBlocksSentBeforeInTheSamePlay) {
  const TraceCorpus corpus = Only("trace_0291");
  const Trace& t = corpus.traces[0];
  sim::SimExecutor ex;
  FixedTarget target(ex, kS);
  const ReplayRun run = Replay(corpus, FromTheStart(100'000), nullptr, target, ex);
  ASSERT_GE(run.requests.size(), 2u);
  EXPECT_EQ(run.requests[0].theoretical_hit_tokens, 0);
  // Call 1 extends call 0: all of call 0's 279 blocks are cached.
  const auto h0 = corpus.Hashes(t.calls[0]);
  const auto h1 = corpus.Hashes(t.calls[1]);
  std::size_t lcp = 0;
  while (lcp < h0.size() && lcp < h1.size() && h0[lcp] == h1[lcp]) ++lcp;
  EXPECT_EQ(run.requests[1].theoretical_hit_tokens, static_cast<std::int64_t>(lcp) * 64);
  // The second subagent shares the first's system-prompt blocks.
  for (const ReplayRequest& r : run.requests) {
    if (r.subagent == 1 && r.turn == 0 && r.pass == 0) {
      EXPECT_GT(r.theoretical_hit_tokens, 0);
    }
  }
}

TEST(AgenticReplay, WarmUpPrimesTheStartTurnThenProfilingOpensForAllLanesAtOnce) {
  const TraceCorpus corpus = Only("trace_0291");
  sim::SimExecutor ex;
  FixedTarget target(ex, kS);
  ReplayOptions o = FromTheStart(60);
  o.concurrency = 3;
  o.start_min_ratio = 0.5;
  o.start_max_ratio = 0.5;
  o.warmup_requests_per_lane = 2;
  const ReplayRun run = Replay(corpus, o, nullptr, target, ex);
  std::size_t warm = 0;
  for (const ReplayRequest& r : run.requests) {
    if (!r.warmup) continue;
    ++warm;
    EXPECT_EQ(r.expected_output, 1);
    EXPECT_LE(Done(r), run.window_open_ns);
    EXPECT_GE(r.turn, 7u);  // start turn 10 of 20: calls 7, 8 and 9
    EXPECT_LE(r.turn, 9u);
  }
  EXPECT_EQ(warm, 9u);
  for (const ReplayRequest& r : run.requests) {
    if (!r.warmup && r.pass == 0 && r.subagent < 0) {
      EXPECT_GE(r.turn, 10u);
    }
    if (!r.warmup) {
      EXPECT_GE(Sent(r), run.window_open_ns);
    }
  }
  EXPECT_EQ(run.window_open_ns, 3 * kS);  // three back-to-back warm-ups per lane, lanes in parallel
  for (const ReplayRequest& r : run.requests) {
    if (!r.warmup && r.pass == 0 && r.subagent < 0 && r.turn == 10) {
      EXPECT_EQ(Sent(r), run.window_open_ns);  // each lane's start turn goes out as profiling opens
    }
  }
}

TEST(AgenticReplay, NothingIsSentAfterTheDurationAndLanesRecycleFromTheFirstTurn) {
  const TraceCorpus corpus = Only("trace_0504");  // three calls, the last 3,058 s after the second
  sim::SimExecutor ex;
  FixedTarget target(ex, kS);
  ReplayOptions o = FromTheStart(20'000);
  o.concurrency = 2;
  const ReplayRun run = Replay(corpus, o, nullptr, target, ex);
  EXPECT_GT(run.plays_completed, 2u);
  std::uint32_t max_pass = 0;
  for (const ReplayRequest& r : run.requests) {
    EXPECT_LT(Sent(r), run.duration_end_ns);
    max_pass = std::max(max_pass, r.pass);
    if (r.pass > 0 && r.turn == 0) {
      EXPECT_EQ(r.theoretical_hit_tokens, 0);
    }  // a fresh cache-bust keyspace
  }
  EXPECT_GE(max_pass, 1u);
  EXPECT_LE(target.max_in_flight_, 2);
}

TEST(AgenticReplay, IdleCapsShortenLongGapsPerTreeAndWhenTheSystemIsIdle) {
  const TraceCorpus corpus = Only("trace_0291");  // call 5 waits 528 s after call 4
  const Trace& t = corpus.traces[0];
  ASSERT_DOUBLE_EQ(t.calls[5].think_time, 528.0);
  for (const bool system : {false, true}) {
    sim::SimExecutor ex;
    FixedTarget target(ex, kS);
    ReplayOptions o = FromTheStart(100'000);
    if (system) {
      o.system_idle_gap_cap_s = 10;
    } else {
      o.trace_idle_gap_cap_s = 60;
    }
    const ReplayRun run = Replay(corpus, o, nullptr, target, ex);
    const ReplayRequest& c4 = run.requests[4];
    const ReplayRequest& c5 = run.requests[5];
    ASSERT_EQ(c5.turn, 5u);
    EXPECT_EQ(Sent(c5) - Done(c4), (system ? 10 : 60) * kS);
    if (system) {
      EXPECT_GT(run.idle_shifts, 0u);
    } else {
      EXPECT_EQ(run.idle_shifts, 0u);
    }
  }
}

TEST(AgenticReplay, AnOverflowEndsItsSessionAndIsCounted) {
  const TraceCorpus corpus = Only("trace_0291");
  sim::SimExecutor ex;
  FixedTarget target(ex, kS, 80'000);  // calls past 80k tokens are refused
  const ReplayRun run = Replay(corpus, FromTheStart(5000), nullptr, target, ex);
  EXPECT_GE(run.sessions_ended_by_overflow, 1u);
  std::size_t overflows = 0;
  for (const ReplayRequest& r : run.requests) {
    if (r.pass != 0 || r.subagent >= 0) continue;
    if (r.overflow) ++overflows;
    EXPECT_LE(r.turn, 4u);  // call 4 (81,344 tokens) is the parent's last
  }
  EXPECT_EQ(overflows, 1u);
}

}  // namespace
}  // namespace infermark::agentic
