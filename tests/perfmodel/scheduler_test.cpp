// Scheduler properties (rapidcheck): the KV cache is never over-allocated, every admitted request
// finishes with exactly its tokens, admission is FIFO, and spans give the same timeline as
// stepping one pass at a time.
#include "perfmodel/scheduler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "perfmodel/deployment.hpp"
#include "test_paths.hpp"

#ifdef INFERMARK_HAVE_RAPIDCHECK
#include <rapidcheck/gtest.h>
#endif

namespace infermark::perfmodel {
namespace {

const Deployment& SchedulerLlama() {
  static const Deployment d = [] {
    static const EngineData data = LoadEngineData(test::SourcePath("data/engine"));
    DeploymentOptions o;
    o.model = "llama-3.3-70b";
    o.hardware = "h200";
    o.precision = "fp8";
    o.tp = 4;
    return ResolveDeployment(data, o);
  }();
  return d;
}

struct SchedulerRecorder : EventSink {
  std::map<std::uint64_t, int> tokens;
  std::map<std::uint64_t, TimeNs> first, last;
  std::set<std::uint64_t> finished;
  std::vector<std::uint64_t> first_order;
  bool every_step = true;
  void OnChunk(const TokenEvent& e) override {
    tokens[e.id] += e.tokens;
    if (e.first) {
      first[e.id] = e.time;
      first_order.push_back(e.id);
    }
    last[e.id] = e.time;
    if (e.finished) finished.insert(e.id);
  }
  [[nodiscard]] bool WantsEveryStep() const override { return every_step; }
};

struct Case {
  SchedulerConfig config;
  std::vector<Request> requests;
  std::vector<int> arrival_step;  // submit before this plan
};

// Runs a case; checks invariants after every plan. Returns false on a violation.
bool RunCase(const Case& c, std::int64_t max_steps, SchedulerRecorder& rec, std::string* why) {
  const StepTimeModel model(SchedulerLlama());
  Scheduler s(c.config, model);
  std::set<std::uint64_t> admitted_ever;
  std::uint64_t next_expected = 0;
  std::size_t submitted = 0;
  TimeNs now = 0;
  for (int plan_index = 0; plan_index < 1'000'000; ++plan_index) {
    while (submitted < c.requests.size() && c.arrival_step[submitted] <= plan_index) {
      if (!s.Submit(c.requests[submitted], now)) {
        *why = "a request that fits was rejected";
        return false;
      }
      ++submitted;
    }
    if (s.Empty() && submitted == c.requests.size()) return true;
    const StepPlan plan = s.Plan(now, max_steps);
    // Holders of a shared prefix unit each count its blocks: only without sharing can the sum
    // be held to the pool.
    if ((!c.config.prefix_caching && s.BlocksHeld() > c.config.num_blocks) ||
        s.cache().InUse() > s.cache().NumBlocks()) {
      *why = "KV blocks over-allocated";
      return false;
    }
    if (!s.cache().CheckInvariants()) {
      *why = "the KV cache's counts disagree with its units";
      return false;
    }
    if (s.Running() > static_cast<std::size_t>(c.config.max_num_seqs)) {
      *why = "more running sequences than max_num_seqs";
      return false;
    }
    // FIFO: the requests ever admitted are always the earliest ones.
    for (const auto id : s.RunningIds()) admitted_ever.insert(id);
    while (admitted_ever.count(next_expected) != 0) ++next_expected;
    if (!admitted_ever.empty() && *admitted_ever.rbegin() + 1 != next_expected) {
      *why = "a later request was admitted before an earlier one";
      return false;
    }
    now = plan.start + plan.duration;
    s.Complete(rec);
    if (plan.idle && s.Running() == 0 && submitted == c.requests.size() && !s.Empty()) {
      *why = "stalled with waiting requests";
      return false;
    }
  }
  *why = "did not finish";
  return false;
}

// With `prefix`, prompts are cut from three shared documents (hash chains of 8-token blocks), so
// the prefix cache shares, evicts and re-admits units under preemption.
Case SmallCase(int n, int blocks, int block_size, int budget, int max_seqs, int max_prompt, int max_out, unsigned seed,
               bool prefix = false) {
  Case c;
  c.config = SchedulerLlama().scheduler;
  c.config.num_blocks = blocks;
  c.config.block_size = block_size;
  c.config.max_num_batched_tokens = budget;
  c.config.max_num_seqs = max_seqs;
  c.config.prefix_caching = prefix;
  std::uint64_t x = seed * 2654435761u + 1;
  auto rnd = [&](int hi) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return 1 + static_cast<int>((x >> 33) % static_cast<std::uint64_t>(hi));
  };
  for (int i = 0; i < n; ++i) {
    Request r;
    r.id = static_cast<std::uint64_t>(i);
    r.prompt_tokens = rnd(max_prompt);
    r.max_tokens = rnd(max_out);
    if (prefix) {
      auto h = std::make_shared<std::vector<std::uint64_t>>();
      const std::uint64_t doc = static_cast<std::uint64_t>(rnd(3));
      for (int k = 0; k < r.prompt_tokens / 8; ++k) h->push_back(doc * 1000 + std::uint64_t(k));
      r.prefix_blocks = h;
      r.block_tokens = 8;
    }
    c.requests.push_back(r);
    c.arrival_step.push_back(rnd(40) - 1);
  }
  std::sort(c.arrival_step.begin(), c.arrival_step.end());
  return c;
}

TEST(Scheduler, TightCacheForcesPreemptionAndEverythingFinishes) {
  const Case c = SmallCase(40, 24, 16, 64, 8, 100, 60, 7);
  SchedulerRecorder rec;
  std::string why;
  ASSERT_TRUE(RunCase(c, 1, rec, &why)) << why;
  EXPECT_EQ(rec.finished.size(), 40u);
  for (const auto& r : c.requests) EXPECT_EQ(rec.tokens[r.id], r.max_tokens) << "request " << r.id;
}

TEST(Scheduler, SharedPrefixesUnderPreemptionAllFinish) {
  for (const unsigned seed : {1u, 2u, 3u, 4u}) {
    const Case c = SmallCase(40, 40, 16, 64, 8, 150, 60, seed, true);
    SchedulerRecorder rec;
    std::string why;
    ASSERT_TRUE(RunCase(c, seed % 2 == 0 ? 1 : std::numeric_limits<std::int64_t>::max(), rec, &why)) << why;
    EXPECT_EQ(rec.finished.size(), 40u);
    for (const auto& r : c.requests) EXPECT_EQ(rec.tokens[r.id], r.max_tokens) << "request " << r.id;
  }
}

TEST(Scheduler, SpansGiveTheSameTimelineAsSingleSteps) {
  // Arrivals are counted in plans, which spans compress, so everything arrives at once here.
  Case c = SmallCase(30, 4000, 16, 512, 16, 300, 200, 3);
  std::fill(c.arrival_step.begin(), c.arrival_step.end(), 0);
  SchedulerRecorder one, many;
  many.every_step = false;
  std::string why;
  ASSERT_TRUE(RunCase(c, 1, one, &why)) << why;
  ASSERT_TRUE(RunCase(c, std::numeric_limits<std::int64_t>::max(), many, &why)) << why;
  for (const auto& r : c.requests) {
    EXPECT_NEAR(double(one.first[r.id]), double(many.first[r.id]), 1e3 + 1e-6 * double(one.first[r.id]));
    EXPECT_NEAR(double(one.last[r.id]), double(many.last[r.id]), 1e3 + 1e-6 * double(one.last[r.id]));
  }
}

TEST(Scheduler, RejectsWhatCanNeverFit) {
  Case c = SmallCase(1, 4, 16, 64, 8, 10, 10, 1);
  const StepTimeModel model(SchedulerLlama());
  Scheduler s(c.config, model);
  Request r;
  r.prompt_tokens = 100;
  r.max_tokens = 10;
  EXPECT_FALSE(s.Submit(r, 0));
}

TEST(Scheduler, PrefixCachingReusesBlocks) {
  SchedulerConfig config = SchedulerLlama().scheduler;
  config.num_blocks = 1000;
  config.block_size = 16;
  config.prefix_caching = true;
  const StepTimeModel model(SchedulerLlama());
  Scheduler s(config, model);
  Request a;
  a.id = 0;
  a.prompt_tokens = 160;
  a.max_tokens = 2;
  auto hashes = std::make_shared<std::vector<std::uint64_t>>();
  for (std::uint64_t b = 0; b < 10; ++b) hashes->push_back(1000 + b);
  a.prefix_blocks = hashes;
  a.block_tokens = 16;
  Request b = a;
  b.id = 1;
  SchedulerRecorder rec;
  TimeNs now = 0;
  ASSERT_TRUE(s.Submit(a, now));
  while (!s.Empty()) {
    const StepPlan p = s.Plan(now, 1);
    now = p.start + p.duration;
    s.Complete(rec);
  }
  const TimeNs ttft_a = rec.first[0];
  const TimeNs start_b = now;
  ASSERT_TRUE(s.Submit(b, now));
  const StepPlan p = s.Plan(now, 1);
  EXPECT_LT(p.shape.prefill_tokens, 20);  // 9 cached blocks: only the last block is computed
  now = p.start + p.duration;
  s.Complete(rec);
  EXPECT_LT(rec.first[1] - start_b, ttft_a);
}

#ifdef INFERMARK_HAVE_RAPIDCHECK
RC_GTEST_PROP(SchedulerProperties, NoOverAllocationAllFinishFifo, ()) {
  const int n = *rc::gen::inRange(1, 40);
  const int block_size = *rc::gen::element(1, 4, 16, 32);
  const int max_prompt = *rc::gen::inRange(1, 200);
  const int max_out = *rc::gen::inRange(1, 120);
  // At least one request of the largest size must fit, or nothing could ever run.
  const int min_blocks = (max_prompt + max_out + 2) / block_size + 2;
  const int blocks = *rc::gen::inRange(min_blocks, min_blocks * 6);
  const int budget = *rc::gen::inRange(1, 600);
  const int max_seqs = *rc::gen::inRange(1, 32);
  const auto seed = *rc::gen::arbitrary<unsigned>();
  const std::int64_t max_steps = *rc::gen::element<std::int64_t>(1, std::numeric_limits<std::int64_t>::max());
  const bool prefix = *rc::gen::arbitrary<bool>();
  const Case c = SmallCase(n, blocks, block_size, budget, max_seqs, max_prompt, max_out, seed, prefix);
  SchedulerRecorder rec;
  rec.every_step = max_steps == 1;
  std::string why;
  RC_ASSERT(RunCase(c, max_steps, rec, &why));
  RC_ASSERT(rec.finished.size() == c.requests.size());
  for (const auto& r : c.requests) RC_ASSERT(rec.tokens[r.id] == r.max_tokens);
}
#endif

}  // namespace
}  // namespace infermark::perfmodel
