// The prefix cache: hits equal the theoretical hits of the hash ids when nothing is evicted,
// unheld units are evicted least recently used first, held ones never, and the host tier turns a
// GPU miss into a load over the host link that is cheaper than recomputing the prefix.
#include "perfmodel/prefix_cache.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/diagnostic.hpp"
#include "perfmodel/deployment.hpp"
#include "perfmodel/engine_data.hpp"
#include "perfmodel/scheduler.hpp"
#include "test_paths.hpp"

namespace infermark::perfmodel {
namespace {

const Deployment& Llama() {
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

struct Recorder : EventSink {
  std::map<std::uint64_t, TimeNs> first;
  std::set<std::uint64_t> finished;
  void OnChunk(const TokenEvent& e) override {
    if (e.first) first[e.id] = e.time;
    if (e.finished) finished.insert(e.id);
  }
};

// Runs the scheduler until it is empty; returns the clock at the end.
TimeNs Drain(Scheduler& s, Recorder& rec, TimeNs now) {
  for (int i = 0; i < 1'000'000 && !s.Empty(); ++i) {
    const StepPlan p = s.Plan(now, std::numeric_limits<std::int64_t>::max());
    EXPECT_FALSE(p.idle);
    EXPECT_TRUE(s.cache().CheckInvariants());
    now = p.start + p.duration;
    s.Complete(rec);
  }
  EXPECT_TRUE(s.Empty());
  return now;
}

using Hashes = std::shared_ptr<const std::vector<std::uint64_t>>;

Hashes Chain(std::uint64_t session, int n) {
  auto h = std::make_shared<std::vector<std::uint64_t>>();
  for (int k = 0; k < n; ++k) h->push_back((session << 32) | std::uint64_t(k + 1));
  return h;
}

// Sessions of growing turns: each turn's hashes extend the previous turn's, and the prompt ends
// with a partial block, so the whole identity is always usable.
TEST(PrefixCache, HitsEqualTheTheoreticalHitsWithoutEviction) {
  for (const int block_size : {1, 16, 64}) {
    SchedulerConfig config = Llama().scheduler;
    config.block_size = block_size;
    config.num_blocks = 4'000'000 / block_size;  // room for everything: nothing is evicted
    config.prefix_caching = true;
    const StepTimeModel model(Llama());
    Scheduler s(config, model);
    Recorder rec;
    std::set<std::uint64_t> seen;
    std::int64_t theoretical = 0, prompts = 0;
    std::uint64_t id = 0;
    TimeNs now = 0;
    constexpr int kSessions = 6, kTurns = 5, kHashTokens = 64;
    std::map<int, int> length;
    for (int turn = 0; turn < kTurns; ++turn) {
      // A round: one turn of every session at once (sessions share nothing with each other).
      std::vector<std::uint64_t> added;
      for (int session = 0; session < kSessions; ++session) {
        length[session] += 3 + (session * 7 + turn * 5) % 11;
        const Hashes h = Chain(std::uint64_t(session), length[session]);
        std::size_t hit = 0;
        while (hit < h->size() && seen.count((*h)[hit]) != 0) ++hit;
        for (const auto x : *h) added.push_back(x);
        Request r;
        r.id = id++;
        r.prompt_tokens = length[session] * kHashTokens + 17;
        r.max_tokens = 4;
        r.prefix_blocks = h;
        r.block_tokens = kHashTokens;
        theoretical += static_cast<std::int64_t>(hit) * kHashTokens;
        prompts += r.prompt_tokens;
        ASSERT_TRUE(s.Submit(r, now));
      }
      now = Drain(s, rec, now);
      seen.insert(added.begin(), added.end());
    }
    EXPECT_GT(theoretical, 0);
    EXPECT_EQ(s.stats().prefix_hits, theoretical) << "block size " << block_size;
    EXPECT_EQ(s.stats().prefix_queries, prompts);
    EXPECT_EQ(s.stats().prompt_computed, prompts - theoretical);
    EXPECT_EQ(s.stats().host_hits, 0);
    EXPECT_EQ(s.cache().CachedBlocks() * block_size, static_cast<std::int64_t>(seen.size()) * kHashTokens);
  }
}

TEST(PrefixCache, LastTokenIsAlwaysComputed) {
  SchedulerConfig config = Llama().scheduler;
  config.num_blocks = 1000;
  config.block_size = 16;
  const StepTimeModel model(Llama());
  Scheduler s(config, model);
  Recorder rec;
  Request r;
  r.prompt_tokens = 128;  // exactly two 64-token hash blocks
  r.max_tokens = 2;
  r.prefix_blocks = Chain(9, 2);
  r.block_tokens = 64;
  ASSERT_TRUE(s.Submit(r, 0));
  const TimeNs now = Drain(s, rec, 0);
  r.id = 1;
  ASSERT_TRUE(s.Submit(r, now));
  const StepPlan p = s.Plan(now, 1);
  EXPECT_EQ(p.shape.prefill_tokens, 64);  // the second unit ends with the last token: recomputed
  EXPECT_EQ(s.stats().prefix_hits, 64);
}

// Units made directly on a cache: `n` blocks taken, then promoted and released.
UnitId Make(PrefixCache& c, std::uint64_t key, int blocks) {
  TimeNs ready = 0;
  EXPECT_TRUE(c.Allocate(blocks, 0, &ready));
  return c.Promote(key, blocks * 16, blocks, 0);
}

PrefixChain OneUnit(std::uint64_t key) {
  return PrefixChain(std::make_shared<std::vector<std::uint64_t>>(1, key), 32, 16, 64);
}

TEST(PrefixCache, EvictsUnheldUnitsLeastRecentlyReleasedFirst) {
  SchedulerConfig config;
  config.num_blocks = 8;
  config.block_size = 16;
  PrefixCache c(config);
  const PrefixChain a = OneUnit(1), b = OneUnit(2), d = OneUnit(3);
  std::vector<UnitId> ha{Make(c, a.Key(0), 2)}, hb{Make(c, b.Key(0), 2)}, hd{Make(c, d.Key(0), 2)};
  EXPECT_EQ(c.Available(), 2);
  c.Release(hb);  // released order: b, d, a
  c.Release(hd);
  c.Release(ha);
  EXPECT_EQ(c.Available(), 8);
  EXPECT_EQ(c.CachedBlocks(), 6);
  TimeNs ready = 0;
  ASSERT_TRUE(c.Allocate(4, 0, &ready));  // 2 free + the least recently released unit (b)
  EXPECT_EQ(c.Lookup(b, 1).units.size(), 0u);
  EXPECT_EQ(c.Lookup(d, 1).units.size(), 1u);
  EXPECT_EQ(c.Lookup(a, 1).units.size(), 1u);
  // Using d makes it the most recent: a goes next.
  std::vector<UnitId> held;
  c.Acquire(c.Lookup(d, 1), 0, held, &ready);
  c.Release(held);
  ASSERT_TRUE(c.Allocate(2, 0, &ready));
  EXPECT_EQ(c.Lookup(a, 1).units.size(), 0u);
  EXPECT_EQ(c.Lookup(d, 1).units.size(), 1u);
  EXPECT_TRUE(c.CheckInvariants());
}

TEST(PrefixCache, HeldUnitsAreNeverEvicted) {
  SchedulerConfig config;
  config.num_blocks = 6;
  config.block_size = 16;
  PrefixCache c(config);
  const PrefixChain a = OneUnit(1), b = OneUnit(2);
  std::vector<UnitId> ha{Make(c, a.Key(0), 2)}, hb{Make(c, b.Key(0), 2)};
  c.Release(hb);
  // a is held: only the 2 free blocks and b's 2 can be taken.
  EXPECT_EQ(c.Available(), 4);
  TimeNs ready = 0;
  EXPECT_FALSE(c.Allocate(5, 0, &ready));
  ASSERT_TRUE(c.Allocate(4, 0, &ready));
  EXPECT_EQ(c.Available(), 0);
  EXPECT_FALSE(c.Allocate(1, 0, &ready));
  EXPECT_EQ(c.Lookup(a, 1).device_units, 1);
  EXPECT_EQ(c.Lookup(b, 1).units.size(), 0u);
  // A second holder shares the unit; it stays until both let go.
  std::vector<UnitId> again;
  c.Acquire(c.Lookup(a, 1), 0, again, &ready);
  c.Release(ha);
  EXPECT_EQ(c.Available(), 0);
  c.Release(again);
  EXPECT_EQ(c.Available(), 2);
  EXPECT_TRUE(c.CheckInvariants());
}

// A long prompt is computed, pushed out of a small GPU pool by other prompts, and asked again:
// with a host tier it is loaded back at the link's rate, faster than computing it again.
struct HostRun {
  TimeNs cold_ttft = 0, warm_ttft = 0;
  SchedulerStats stats;
};

HostRun RunEvictedPrompt(std::int64_t host_tokens) {
  SchedulerConfig config = Llama().scheduler;
  config.block_size = 16;
  config.num_blocks = 40'000 / 16;
  config.prefix_caching = true;
  config.host_kv_tokens = host_tokens;
  config.host_kv_bytes_per_token = 80e3;
  config.host_link_seconds_per_token = 80e3 / 64e9;
  const StepTimeModel model(Llama());
  Scheduler s(config, model);
  Recorder rec;
  HostRun out;
  Request big;
  big.id = 0;
  big.prompt_tokens = 30'000 + 5;
  big.max_tokens = 2;
  big.prefix_blocks = Chain(1, 30'000 / 64);
  big.block_tokens = 64;
  EXPECT_TRUE(s.Submit(big, 0));
  TimeNs now = Drain(s, rec, 0);
  out.cold_ttft = rec.first[0];
  for (std::uint64_t k = 0; k < 3; ++k) {  // others fill the GPU and evict it
    Request other = big;
    other.id = 10 + k;
    other.prefix_blocks = Chain(100 + k, 30'000 / 64);
    EXPECT_TRUE(s.Submit(other, now));
    now = Drain(s, rec, now);
  }
  big.id = 1;
  EXPECT_TRUE(s.Submit(big, now));
  const TimeNs start = now;
  Drain(s, rec, now);
  out.warm_ttft = rec.first[1] - start;
  out.stats = s.stats();
  return out;
}

TEST(PrefixCache, HostHitIsLoadedOverTheLinkAndBeatsRecompute) {
  const HostRun none = RunEvictedPrompt(0);
  EXPECT_EQ(none.stats.prefix_hits, 0);
  EXPECT_EQ(none.stats.host_hits, 0);
  EXPECT_NEAR(double(none.warm_ttft), double(none.cold_ttft), 0.01 * double(none.cold_ttft));

  const HostRun host = RunEvictedPrompt(1'000'000);
  const std::int64_t units = 30'000 / 64;
  EXPECT_EQ(host.stats.prefix_hits, 0);
  EXPECT_EQ(host.stats.host_hits, units * 64);
  EXPECT_EQ(host.stats.host.onloaded_tokens, units * 64);
  const double load = double(units * 64) * 80e3 / 64e9;
  EXPECT_NEAR(host.stats.host.onload_seconds, load, 1e-9);
  EXPECT_DOUBLE_EQ(host.stats.host.onload_bytes, double(units * 64) * 80e3);
  // Every prompt's units were written to the host as they were computed.
  EXPECT_EQ(host.stats.host.offloaded_tokens, 4 * units * 64);
  EXPECT_GT(host.stats.host.offload_seconds, 0);
  EXPECT_GE(double(host.warm_ttft), load * 1e9);  // the load comes before the first token
  EXPECT_LT(host.warm_ttft, host.cold_ttft / 2);
}

// The host tier's size as each framework states it, over the GPU's host link from the hardware
// data; the other framework's spelling is refused.
TEST(PrefixCache, HostTierSizeFollowsEachFrameworksFlags) {
  const EngineData& data = DefaultEngineData();
  DeploymentOptions o;
  o.model = "llama-3.3-70b";
  o.hardware = "h200";
  o.precision = "fp8";
  o.tp = 4;
  const Deployment plain = ResolveDeployment(data, o);
  EXPECT_EQ(plain.scheduler.host_kv_tokens, 0);
  o.kv_offloading_size_gib = 100;
  o.kv_offloading_backend = "native";
  const Deployment v = ResolveDeployment(data, o);
  const double per_token = v.memory.kv_bytes_per_token * 4;  // every TP rank holds a slice of each token
  EXPECT_DOUBLE_EQ(v.scheduler.host_kv_bytes_per_token, per_token);
  EXPECT_EQ(v.scheduler.host_kv_tokens, static_cast<std::int64_t>(100 * 1073741824.0 / per_token));
  // PCIe Gen5 x16, 64 GB/s per direction per GPU; the four links move their slices at once.
  EXPECT_DOUBLE_EQ(v.hardware.host_link_bytes_per_s, 64e9);
  EXPECT_DOUBLE_EQ(v.scheduler.host_link_seconds_per_token, v.memory.kv_bytes_per_token / 64e9);
  o.prefix_caching = false;
  EXPECT_THROW(ResolveDeployment(data, o), InputError);
  o.prefix_caching.reset();
  o.framework = "sglang";
  EXPECT_THROW(ResolveDeployment(data, o), InputError);  // vLLM's flag on SGLang
  o.kv_offloading_size_gib.reset();
  o.kv_offloading_backend.clear();
  o.hierarchical_cache = true;
  o.hicache_size_gb = 50;  // per rank
  const Deployment g = ResolveDeployment(data, o);
  EXPECT_EQ(g.scheduler.host_kv_tokens, static_cast<std::int64_t>(50e9 * 4 / per_token));
  o.hicache_size_gb.reset();
  o.hicache_ratio = 3;
  const Deployment r = ResolveDeployment(data, o);
  EXPECT_EQ(r.scheduler.host_kv_tokens, 3 * r.scheduler.num_blocks * r.scheduler.block_size);
  o.framework = "vllm";
  EXPECT_THROW(ResolveDeployment(data, o), InputError);  // SGLang's flag on vLLM
  o.framework = "sglang";
  o.model = "deepseek-r1";
  o.hardware = "gb200";
  o.precision = "fp4";
  o.tp = 4;
  const Deployment c2c = ResolveDeployment(data, o);
  EXPECT_DOUBLE_EQ(c2c.hardware.host_link_bytes_per_s, 450e9);
  EXPECT_EQ(c2c.hardware.host_link_kind, "nvlink-c2c");
}

}  // namespace
}  // namespace infermark::perfmodel
