// Generated points for the dashboard's benchmarks: 720 series (5 models, 8 GPUs, 3 frameworks, 2
// precisions, 3 sequences) of 10 concurrencies, one run per night, every point a full processed
// record with power, shaped like a real sweep (throughput up and interactivity down as concurrency
// rises; series differ by speed; each night a little slower).
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "core/json_text.hpp"
#include "store/result_store.hpp"

namespace infermark::bench {

using Clock = std::chrono::steady_clock;

inline const char* const kModels[] = {"amd/MiniMax-M3-MXFP4", "deepseek-ai/DeepSeek-R1", "moonshotai/Kimi-K2.5",
                                      "openai/gpt-oss-120b", "Qwen/Qwen3-235B"};
inline const char* const kHardware[] = {"mi355x", "mi325x", "mi300x", "b200", "h200", "h100", "gb200", "b300"};
inline const char* const kFrameworks[] = {"vllm", "sglang", "trt"};
inline const char* const kPrecisions[] = {"fp4", "fp8"};
inline const std::pair<int, int> kSequences[] = {{1024, 1024}, {8192, 1024}, {1024, 8192}};
inline const int kConcs[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};

inline double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// One processed record at `conc` with figures shaped like a real sweep (throughput up, interactivity
// down as concurrency rises), scaled per series so series differ.
inline results::Point MakePoint(int model, int hw, int fw, int prec, int seq, int conc, int night) {
  const double speed = 1.0 + 0.15 * hw + 0.1 * fw + 0.3 * prec - 0.01 * night;
  const double tput = speed * 40.0 * std::pow(conc, 0.8);
  const double intvty = 120.0 / std::pow(conc, 0.35);
  const auto [isl, osl] = kSequences[seq];
  Json agg = Json::object();
  agg["hw"] = kHardware[hw];
  agg["conc"] = conc;
  agg["image"] = std::string(kFrameworks[fw]) + ":nightly";
  agg["model"] = kModels[model];
  agg["framework"] = kFrameworks[fw];
  agg["precision"] = kPrecisions[prec];
  agg["spec_decoding"] = "none";
  agg["disagg"] = false;
  agg["isl"] = isl;
  agg["osl"] = osl;
  agg["is_multinode"] = false;
  agg["tp"] = 8;
  agg["ep"] = 1;
  agg["dp_attention"] = "false";
  agg["tput_per_gpu"] = tput;
  agg["output_tput_per_gpu"] = tput * osl / (isl + osl);
  agg["input_tput_per_gpu"] = tput * isl / (isl + osl);
  agg["median_ttft"] = 0.2 * std::sqrt(conc);
  agg["p99_ttft"] = 0.5 * std::sqrt(conc);
  agg["median_tpot"] = 1.0 / intvty;
  agg["median_intvty"] = intvty;
  agg["median_e2el"] = osl / intvty;
  // The tails the charts' percentile control reads (latencies in seconds, interactivity 1/TPOT).
  agg["p90_ttft"] = 0.35 * std::sqrt(conc);
  agg["p90_tpot"] = 1.15 / intvty;
  agg["p99_tpot"] = 1.4 / intvty;
  agg["p90_intvty"] = intvty / 1.15;
  agg["p99_intvty"] = intvty / 1.4;
  agg["median_itl"] = 1.0 / intvty;
  agg["p90_itl"] = 1.3 / intvty;
  agg["p99_itl"] = 2.0 / intvty;
  agg["p90_e2el"] = 1.15 * osl / intvty;
  agg["p99_e2el"] = 1.4 * osl / intvty;
  agg["power_valid"] = 1;
  agg["avg_power_w"] = 700.0 + 50 * hw;
  agg["joules_per_output_token"] = (700.0 + 50 * hw) / (tput * osl / (isl + osl));
  results::Point p;
  p.key = results::KeyFromAgg(agg, "generated");
  p.agg = agg;
  p.raw_json = DumpJson(agg);
  p.provenance.image = agg["image"];
  p.provenance.engine_flags = "--tp 8";
  p.provenance.host = "bench";
  p.provenance.infermark_version = "0.1.0";
  char date[32];
  std::snprintf(date, sizeof date, "2026-%02d-%02dT01:00:00Z", 1 + night / 28, 1 + night % 28);
  p.provenance.started_at = date;
  return p;
}

// Ingests `total` points as nightly runs of every series; returns the seconds it took.
inline double Fill(results::ResultStore& store, int total) {
  const auto start = Clock::now();
  constexpr int kSeries = 5 * 8 * 3 * 2 * 3;  // 720 series x 10 concurrencies per night
  const int nights = std::max(1, (total + kSeries * 10 - 1) / (kSeries * 10));
  int made = 0;
  for (int night = 0; night < nights && made < total; ++night) {
    std::vector<results::Point> points;
    for (int m = 0; m < 5; ++m)
      for (int h = 0; h < 8; ++h)
        for (int f = 0; f < 3; ++f)
          for (int p = 0; p < 2; ++p)
            for (int s = 0; s < 3; ++s)
              for (int c : kConcs) {
                if (made++ >= total) continue;
                points.push_back(MakePoint(m, h, f, p, s, c, night));
              }
    store.Ingest({"nightly-" + std::to_string(night + 1), "", "generated", "bench", "0.1.0", "sweep"}, points);
  }
  return Seconds(start);
}

}  // namespace infermark::bench
