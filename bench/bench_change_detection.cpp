// Change detection on data with known truth (issue 34): synthetic series drawn from the noise
// measured on the built-in engine and on the lent GPU, judged by the very rule `results compare`
// uses (report/change_detection.hpp), with fixed seeds so every run prints the same tables.
//
//   1. coverage of the 95 % interval of the median at small N: order statistics against the
//      bootstrap percentile interval (why the repeats carry the former);
//   2. the A/A false-positive rate at alpha 0.05 over 2,000 simulated comparisons per row;
//   3. the detection rate of a 10 % throughput loss, and how many repeats the GPU's noise needs.
//
// Noise models:
// - engine: log-normal with the spread of the repeats in ENGINE_REPEATS (a combined result of
//   `bench serve --repeats`, default tests/fixtures/repeats/engine-demo-point.json: total token
//   throughput of the built-in engine's demo point, measured repeat after repeat);
// - gpu-c4 / gpu-c16: the runs of the lent H100's transformers engine at conc 4 (7 runs) and 16
//   (7 runs) of the peer sessions in tests/fixtures/real-gpu/h100/ (docs/gpu.md, both clients:
//   they agree within 5 % when the engine holds still), resampled as they were measured,
//   bimodal step time included (each run's total token throughput over the runs' median).
//
// Usage: bench_change_detection [ENGINE_REPEATS]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "core/json_text.hpp"
#include "core/numpy_stats.hpp"
#include "core/repeat_stats.hpp"
#include "core/split_mix.hpp"
#include "report/change_detection.hpp"

namespace {

namespace fs = std::filesystem;
using infermark::Json;
using infermark::results::ChangeRules;
using infermark::results::ChangeSample;
using infermark::results::ChangeStatus;
using infermark::results::JudgeChange;

constexpr int kTrials = 2000;

// A deterministic stream of uniform and normal draws.
class Draws {
 public:
  explicit Draws(std::uint64_t seed) : state_(seed) {}
  double Uniform() {
    state_ = infermark::SplitMix64(state_);
    return (static_cast<double>(state_ >> 11) + 0.5) / 9007199254740992.0;
  }
  double Normal() { return std::sqrt(-2 * std::log(Uniform())) * std::cos(2 * M_PI * Uniform()); }
  std::size_t Index(std::size_t n) { return static_cast<std::size_t>(Uniform() * static_cast<double>(n)) % n; }

 private:
  std::uint64_t state_;
};

// A noise model: one measurement's multiplier of the true figure, and the model's true median.
struct Noise {
  std::string name;
  std::function<double(Draws&)> draw;
  double median = 1;
  std::string source;
};

Json ReadJson(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return Json::parse(text.str(), nullptr, false);
}

Noise EngineNoise(const fs::path& file) {
  const Json doc = ReadJson(file);
  std::vector<double> values;
  if (doc.is_object() && doc.contains("infermark")) {
    for (const Json& v : doc["infermark"]["repeats"]["values"]["total_token_throughput"])
      values.push_back(v.get<double>());
  }
  if (values.size() < 2) {
    std::fprintf(stderr, "bench_change_detection: %s holds no repeats of total_token_throughput\n",
                 file.string().c_str());
    std::exit(2);
  }
  std::vector<double> logs;
  for (double v : values) logs.push_back(std::log(v));
  const double mean = infermark::NumpyMean(logs);
  double sq = 0;
  for (double l : logs) sq += (l - mean) * (l - mean);
  const double sigma = std::sqrt(sq / static_cast<double>(logs.size() - 1));
  char source[256];
  std::snprintf(source, sizeof source, "%zu repeats, log sd %.4f (CV %.2f %%), %.1f .. %.1f tok/s", values.size(),
                sigma, 100 * std::sqrt(std::exp(sigma * sigma) - 1), *std::min_element(values.begin(), values.end()),
                *std::max_element(values.begin(), values.end()));
  return {"engine", [sigma](Draws& d) { return std::exp(sigma * d.Normal()); }, 1, source};
}

Noise GpuNoise(const fs::path& dir, int conc) {
  std::vector<double> values;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    const Json doc = ReadJson(entry.path());
    if (!doc.is_object() || !doc.contains("max_concurrency") || !doc["max_concurrency"].is_number()) continue;
    if (!doc.contains("completed") || doc["max_concurrency"].get<int>() != conc) continue;
    // The peer sessions' runs (docs/gpu.md, "The peer client on the same server"), either client.
    if (entry.path().string().find("peer") == std::string::npos) continue;
    values.push_back(doc["total_token_throughput"].get<double>());
  }
  const double median = infermark::NumpyMedian(values);
  std::vector<double> ratios;
  std::string list;
  for (double v : values) {
    ratios.push_back(v / median);
    char one[32];
    std::snprintf(one, sizeof one, "%s%.2f", list.empty() ? "" : " ", v / median);
    list += one;
  }
  char source[256];
  std::snprintf(source, sizeof source, "%zu runs, over their median: %s", values.size(), list.c_str());
  return {"gpu-c" + std::to_string(conc), [ratios](Draws& d) { return ratios[d.Index(ratios.size())]; }, 1, source};
}

std::vector<double> Sample(const Noise& noise, Draws& d, int n, double scale) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(1000 * scale * noise.draw(d));
  return v;
}

// Rates of a change judgement over kTrials comparisons: the test's p-value below alpha (its size
// in an A/A), flagged (regression or improvement: significant and at least the minimum effect),
// regression only, inconclusive.
struct Rates {
  double significant = 0;
  double flagged = 0;
  double regression = 0;
  double inconclusive = 0;
};

enum class Design { kRepeats, kLookback };

Rates Simulate(const Noise& noise, Design design, int n_base, int n_cand, double shift, std::uint64_t seed) {
  Draws d(seed);
  ChangeRules rules;
  int significant = 0, flagged = 0, regression = 0, inconclusive = 0;
  for (int t = 0; t < kTrials; ++t) {
    ChangeSample base, cand;
    std::vector<double> history;
    if (design == Design::kRepeats) {
      base.repeats = Sample(noise, d, n_base, 1);
      cand.repeats = Sample(noise, d, n_cand, 1 - shift);
      base.value = infermark::NumpyMedian(base.repeats);
      cand.value = infermark::NumpyMedian(cand.repeats);
    } else {
      history = Sample(noise, d, n_base - 1, 1);  // the runs before the baseline
      base.value = Sample(noise, d, 1, 1)[0];
      cand.value = Sample(noise, d, 1, 1 - shift)[0];
    }
    const auto e = JudgeChange(base, cand, history, true, rules);
    significant += e.p_value && *e.p_value < rules.alpha ? 1 : 0;
    flagged += e.status == ChangeStatus::kRegression || e.status == ChangeStatus::kImprovement ? 1 : 0;
    regression += e.status == ChangeStatus::kRegression ? 1 : 0;
    inconclusive += e.status == ChangeStatus::kInconclusive ? 1 : 0;
  }
  return {100.0 * significant / kTrials, 100.0 * flagged / kTrials, 100.0 * regression / kTrials,
          100.0 * inconclusive / kTrials};
}

void CoverageTable(const std::vector<Noise>& models) {
  std::printf(
      "\n1. Coverage of the 95 %% interval of the median (%d samples per cell; the interval must hold the "
      "noise model's true median)\n\n",
      kTrials);
  std::printf(
      "| noise | N | order statistics: stated | achieved | bootstrap percentile (2,000 resamples): stated | "
      "achieved |\n|---|---:|---:|---:|---:|---:|\n");
  for (const Noise& noise : models) {
    for (const int n : {3, 5, 10}) {
      Draws d(1000 + static_cast<std::uint64_t>(n));
      int order = 0, boot = 0;
      double stated = 0;
      for (int t = 0; t < kTrials; ++t) {
        const std::vector<double> v = Sample(noise, d, n, 1);
        const infermark::MedianInterval o = infermark::MedianWithInterval(v, 0.95);
        const infermark::MedianInterval b =
            infermark::BootstrapMedianInterval(v, 0.95, 2000, static_cast<std::uint64_t>(t) * 7919 + 1);
        stated = o.confidence;
        const double truth = 1000 * noise.median;
        order += o.low <= truth && truth <= o.high ? 1 : 0;
        boot += b.low <= truth && truth <= b.high ? 1 : 0;
      }
      std::printf("| %s | %d | %.1f %% | %.1f %% | 95.0 %% | %.1f %% |\n", noise.name.c_str(), n, 100 * stated,
                  100.0 * order / kTrials, 100.0 * boot / kTrials);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const fs::path root = INFERMARK_SOURCE_DIR;
  const fs::path engine_file = argc > 1 ? fs::path(argv[1]) : root / "tests/fixtures/repeats/engine-demo-point.json";
  const fs::path gpu = root / "tests/fixtures/real-gpu/h100";
  const std::vector<Noise> models = {EngineNoise(engine_file), GpuNoise(gpu, 4), GpuNoise(gpu, 16)};
  std::printf("Noise models (total token throughput of one measurement over the truth):\n\n");
  for (const Noise& m : models) std::printf("- %s: %s\n", m.name.c_str(), m.source.c_str());

  CoverageTable(models);

  std::printf(
      "\n2. A/A: the same configuration on both sides, %d comparisons per row, alpha 0.05, minimum effect 5 %%"
      "\n\n| noise | evidence | p < alpha | flagged (regression or improvement) | of which regression | "
      "inconclusive |\n|---|---|---:|---:|---:|---:|\n",
      kTrials);
  struct Row {
    const char* label;
    Design design;
    int base;
    int cand;
  };
  const Row rows[] = {{"repeats 3 / 3 (Welch on logs)", Design::kRepeats, 3, 3},
                      {"repeats 5 / 5 (Welch on logs)", Design::kRepeats, 5, 5},
                      {"repeats 5 / 1 (prediction)", Design::kRepeats, 5, 1},
                      {"no repeats, history of 10 runs (lookback)", Design::kLookback, 10, 1},
                      {"no repeats, no history", Design::kLookback, 1, 1}};
  std::uint64_t seed = 1;
  for (const Noise& noise : models) {
    for (const Row& r : rows) {
      const Rates a = Simulate(noise, r.design, r.base, r.cand, 0, seed++);
      std::printf("| %s | %s | %.2f %% | %.2f %% | %.2f %% | %.1f %% |\n", noise.name.c_str(), r.label, a.significant,
                  a.flagged, a.regression, a.inconclusive);
    }
  }

  std::printf(
      "\n3. A real 10 %% throughput loss: how often it is flagged as a regression (%d comparisons per row)\n\n"
      "| noise | evidence | detected (regression) | inconclusive |\n|---|---|---:|---:|\n",
      kTrials);
  for (const Noise& noise : models) {
    for (const Row& r : rows) {
      const Rates a = Simulate(noise, r.design, r.base, r.cand, 0.10, seed++);
      std::printf("| %s | %s | %.1f %% | %.1f %% |\n", noise.name.c_str(), r.label, a.regression, a.inconclusive);
    }
  }
  std::printf(
      "\nRepeats per side the GPU's noise needs (10 %% loss):\n\n| noise | repeats per side | detected |\n"
      "|---|---:|---:|\n");
  for (const Noise& noise : {models[1], models[2]}) {
    for (const int n : {5, 10, 20, 40}) {
      const Rates a = Simulate(noise, Design::kRepeats, n, n, 0.10, seed++);
      std::printf("| %s | %d | %.1f %% |\n", noise.name.c_str(), n, a.regression);
    }
  }
  return 0;
}
