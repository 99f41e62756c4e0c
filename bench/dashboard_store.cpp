// A results store at the dashboard's scale, for the page benchmark (bench/dashboard_page.mjs) and for
// trying the dashboard by hand: N generated points (generated_points.hpp: 720 series of 10
// concurrencies a night), one row attempt per point with failures of every class (3 %) and attempts
// the host spoiled (1 %), and, for the last night's points of the first model, sequence, framework
// and precision (8 GPUs x 10 concurrencies), a point page's worth of details each: a request timeline
// of 10 requests per unit of concurrency (5,120 at concurrency 512), 8 GPUs x 1,200 telemetry samples
// of 7 fields, the logs' tails; and a GSM8K evaluation with its 1,319 samples for two concurrencies
// of each of those GPUs.
// Usage: dashboard_store --out PATH [--points N]   (default 100,000; PATH must not exist)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "generated_points.hpp"
#include "metrics/request_timeline.hpp"
#include "store/result_store.hpp"

namespace {

using namespace infermark;
using bench::Clock;

constexpr int kDetailSamples = 1200;  // 20 minutes at 1 Hz
constexpr int kEvalDocuments = 1319;  // GSM8K's test set

std::string Stem(int m, int h, int f, int p, int s, int c) {
  return "gen_m" + std::to_string(m) + "_" + bench::kHardware[h] + "_" + bench::kFrameworks[f] + "_" +
         bench::kPrecisions[p] + "_s" + std::to_string(s) + "_conc" + std::to_string(c);
}

// The requests of a closed-loop run at `conc`: ten per slot, each slot sending when its last ended.
std::string Timeline(const results::Point& point, int conc) {
  const double ttft_ms = point.agg["median_ttft"].get<double>() * 1000;
  const double tpot_ms = point.agg["median_tpot"].get<double>() * 1000;
  const int osl = point.agg["osl"].get<int>();
  std::vector<metrics::RequestRecord> records;
  std::vector<std::int64_t> slot_free(static_cast<std::size_t>(conc), 0);
  for (int i = 0; i < 10 * conc; ++i) {
    const std::size_t slot = static_cast<std::size_t>(i % conc);
    metrics::RequestRecord r;
    r.index = static_cast<std::size_t>(i);
    r.intended_ns = slot_free[slot];
    r.sent_ns = slot_free[slot] + 50'000;
    const double jitter = 0.8 + 0.4 * ((i * 7919) % 100) / 100.0;
    r.first_chunk_ns = *r.sent_ns + static_cast<std::int64_t>(ttft_ms * jitter * 1e6);
    std::int64_t t = *r.first_chunk_ns;
    for (int k = 0; k < osl; ++k) {
      r.chunk_ns.push_back(t);
      t += static_cast<std::int64_t>(tpot_ms * (0.9 + 0.2 * ((k * 31 + i) % 10) / 10.0) * 1e6);
    }
    r.end_ns = r.chunk_ns.back();
    r.done_ns = r.end_ns;
    r.success = true;
    r.server_output_tokens = osl;
    slot_free[slot] = *r.done_ns;
    records.push_back(std::move(r));
  }
  return metrics::RequestTimelineJsonl(records, 1.77e9);
}

results::PointDetails Details(const results::Point& point, int conc) {
  results::PointDetails d;
  d.timeline = Timeline(point, conc);
  d.server_log_tail = "INFO engine ready\nINFO 10 x " + std::to_string(conc) + " requests served\n";
  d.client_log_tail = "============ Serving Benchmark Result ============\nVerdict: VALID\n";
  for (int g = 0; g < 8; ++g) {
    results::GpuSeries s;
    s.gpu = std::to_string(g);
    s.start_unix = 1.77e9;
    std::vector<std::optional<double>> power, temperature, sm, mem, util, mem_util, used;
    for (int k = 0; k < kDetailSamples; ++k) {
      const double load = k < 60 ? 0.1 : 0.85 + 0.1 * std::sin(k / 30.0 + g);
      s.t_s.push_back(k);
      power.emplace_back(150 + 750 * load + g);
      temperature.emplace_back(40 + 35 * load);
      sm.emplace_back(1200 + 900 * load);
      mem.emplace_back(2619);
      util.emplace_back(std::round(100 * load));
      mem_util.emplace_back(std::round(60 * load));
      used.emplace_back(70000 + 5000 * load);
    }
    s.fields = {{"power_w", power},        {"temperature_c", temperature}, {"sm_clock_mhz", sm},
                {"memory_clock_mhz", mem}, {"gpu_util_pct", util},         {"memory_util_pct", mem_util},
                {"memory_used_mib", used}};
    d.gpus.push_back(std::move(s));
  }
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::string out;
  int total = 100'000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--out") out = argv[i + 1];
    if (flag == "--points") total = std::atoi(argv[i + 1]);
  }
  if (out.empty() || std::filesystem::exists(out)) {
    std::fprintf(stderr, "usage: dashboard_store --out NEW_PATH [--points N]\n");
    return 2;
  }
  const auto start = Clock::now();
  auto store = results::OpenStore(out);
  constexpr int kSeries = 5 * 8 * 3 * 2 * 3;
  const int nights = std::max(1, (total + kSeries * 10 - 1) / (kSeries * 10));
  int made = 0;
  long long attempts_made = 0;
  for (int night = 0; night < nights && made < total; ++night) {
    const results::RunInfo run{"nightly-" + std::to_string(night + 1), "", "generated", "bench", "0.1.0", "sweep"};
    std::vector<results::Point> points;
    std::vector<results::RowAttempt> attempts;
    for (int m = 0; m < 5; ++m)
      for (int h = 0; h < 8; ++h)
        for (int f = 0; f < 3; ++f)
          for (int p = 0; p < 2; ++p)
            for (int s = 0; s < 3; ++s)
              for (int c : bench::kConcs) {
                if (made++ >= total) continue;
                results::Point point = bench::MakePoint(m, h, f, p, s, c, night);
                const std::string stem = Stem(m, h, f, p, s, c);
                point.provenance.source_path = "/generated/" + stem + ".json";
                results::RowAttempt a;
                a.result_filename = stem;
                a.runner_label = bench::kHardware[h];
                a.hw = bench::kHardware[h];
                a.executor = "local";
                a.target = "engine";
                a.host = std::string(bench::kHardware[h]) + "-node-" + std::to_string(made % 4);
                a.model = bench::kModels[m];
                a.framework = bench::kFrameworks[f];
                a.precision = bench::kPrecisions[p];
                a.isl = bench::kSequences[s].first;
                a.osl = bench::kSequences[s].second;
                a.conc = c;
                a.started_at = point.provenance.started_at;
                a.duration_s = 60 + c / 4.0;
                if (made % 33 == 0) {
                  // A failure first (of a class chosen by the row), then the attempt that gave the point.
                  results::RowAttempt failed = a;
                  failed.outcome = results::AttemptOutcome::kFailed;
                  failed.failure = static_cast<results::FailureClass>(1 + (made / 33) % 7);
                  failed.reason = std::string("generated ") + results::FailureClassName(failed.failure) + " failure";
                  failed.client_log_tail = "client: connection refused\n";
                  failed.server_log_tail = "server: exiting\n";
                  attempts.push_back(failed);
                  a.attempt = 2;
                } else if (made % 97 == 0) {
                  results::RowAttempt spoiled = a;
                  spoiled.outcome = results::AttemptOutcome::kRetried;
                  spoiled.reason = "run judged INVALID by the load generator: client saturated";
                  attempts.push_back(spoiled);
                  a.attempt = 2;
                }
                a.outcome = results::AttemptOutcome::kCompleted;
                attempts.push_back(a);
                points.push_back(std::move(point));
              }
    store->Ingest(run, points);
    store->IngestAttempts(run, attempts);
    attempts_made += static_cast<long long>(attempts.size());
    if (night + 1 < nights && made < total) continue;
    // The last night: details of one curve per GPU, and evaluations with samples.
    int detailed = 0;
    std::vector<results::Evaluation> evaluations;
    for (const results::Point& point : points) {
      const results::PointKey& k = point.key;
      if (k.model != bench::kModels[0] || k.isl != 1024 || k.osl != 1024 || k.framework != bench::kFrameworks[0] ||
          k.precision != bench::kPrecisions[0])
        continue;
      store->StorePointDetails(run, k.Canonical(), Details(point, static_cast<int>(k.conc)));
      ++detailed;
      if (k.conc == 64 || k.conc == 256) {
        results::Evaluation e;
        e.key = k;
        e.task = "gsm8k";
        e.metric = "exact_match,strict-match";
        e.score = 0.9 - 0.0001 * static_cast<double>(k.conc);
        e.score_stderr = 0.008;
        e.n = kEvalDocuments;
        e.threshold = 0.85;
        e.passed = true;
        e.eval_concurrency = k.conc;
        e.raw_json = "{\"generated\": \"" + e.EvalKey() + "\"}";
        evaluations.push_back(e);
      }
    }
    store->IngestEvaluations(run, evaluations);
    for (const results::Evaluation& e : evaluations) {
      std::vector<results::StoredEvalSample> samples;
      for (int d = 0; d < kEvalDocuments; ++d) {
        results::StoredEvalSample s;
        s.doc_id = d;
        s.question = "Generated question " + std::to_string(d) + ": how many tokens per second does the GPU serve?";
        s.response = "Reasoning about question " + std::to_string(d) + "...\n#### " + std::to_string(d % 97);
        s.strict_answer = std::to_string(d % 97);
        s.flexible_answer = s.strict_answer;
        s.correct = d % 10 != 0;
        s.flexible_correct = s.correct;
        s.target = "#### " + std::to_string(*s.correct ? d % 97 : d % 97 + 1);
        samples.push_back(s);
      }
      store->StoreEvalSamples(run, e.EvalKey(), samples);
    }
    std::printf("details for %d points, %zu evaluations with %d samples each (night %d)\n", detailed,
                evaluations.size(), kEvalDocuments, night + 1);
  }
  std::printf("%s: %d points, %lld row attempts in %d runs, %.1f s\n", out.c_str(), std::min(made, total),
              attempts_made, nights, bench::Seconds(start));
  return 0;
}
