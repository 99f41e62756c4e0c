// A small store with known points for the dashboard's tests: two measured nightly runs a week apart
// (mi355x vLLM FP4 20 % slower in the second, each of its points measured three times within ±1 %,
// so the loss is outside the noise; b200 SGLang FP4 1.5x as fast as mi355x in both, measured once), a
// b200 SGLang FP8 MTP series, a dominated mi355x point, measured power on the first night's mi355x
// points, a predicted 8k/1k run, and two evaluations of the second night (mi355x conc 16 passing,
// conc 64 not run).
#pragma once

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "results/sample_points.hpp"
#include "store/result_store.hpp"
#include "store/store_url.hpp"

namespace infermark::dashboard::test {

namespace fs = std::filesystem;

/// Interactivity of a sample point at concurrency `conc` (tok/s/user).
inline double SampleInteractivity(int conc) {
  return 120.0 / std::pow(conc, 0.35);
}
/// Throughput per GPU of a tp8 sample point at `conc` and `speed` (tok/s/GPU).
inline double SampleThroughput(int conc, double speed) {
  return speed * 40.0 * std::pow(conc, 0.8);
}

/// A sample curve dated `date`, with measured power when `power_w` > 0.
inline std::vector<results::Point> DatedCurve(const results::sample::SampleSpec& spec, const std::vector<int>& concs,
                                              const std::string& date, double power_w = 0) {
  std::vector<results::Point> points = results::sample::SampleCurve(spec, concs);
  for (results::Point& p : points) {
    p.provenance.started_at = date + "T02:00:00Z";
    if (power_w > 0) {
      p.agg["power_valid"] = 1;
      p.agg["avg_power_w"] = power_w;
      p.agg["joules_per_output_token"] = power_w / p.agg["output_tput_per_gpu"].get<double>();
    }
  }
  return points;
}

/// `points` each measured three times within ±1 % (their medians unchanged).
inline std::vector<results::Point> Repeated(std::vector<results::Point> points) {
  for (results::Point& p : points) p = results::sample::WithRepeats(p, {1.0, 0.99, 1.01});
  return points;
}

/// Fills the store at `url` (a store URL) with the fixture's three runs.
inline void FillStore(const std::string& url) {
  auto store = results::OpenStoreUrl(url);
  const results::RunInfo night1{"nightly-1", "Nightly 1", "recipes", "ci-host", "0.1.0", "sweep"};
  const results::RunInfo night2{"nightly-2", "Nightly 2", "recipes", "ci-host", "0.1.0", "sweep"};
  const results::RunInfo predicted{"predict-1", "", "recipes", "laptop", "0.1.0", "predict"};
  results::sample::SampleSpec mi355x;
  results::sample::SampleSpec b200;
  b200.hw = "b200";
  b200.framework = "sglang";
  b200.speed = 1.5;
  results::sample::SampleSpec mtp = b200;
  mtp.precision = "fp8";
  mtp.spec_decoding = "mtp";
  const std::vector<int> concs = {1, 4, 16, 64};

  std::vector<results::Point> first = Repeated(DatedCurve(mi355x, concs, "2026-11-01", 700));
  results::sample::SampleSpec slow = mi355x;
  slow.speed = 0.5;
  for (auto& p : DatedCurve(slow, {8}, "2026-11-01")) first.push_back(p);  // dominated by conc 4
  for (auto& p : DatedCurve(b200, concs, "2026-11-01")) first.push_back(p);
  for (auto& p : DatedCurve(mtp, {4, 16}, "2026-11-01")) first.push_back(p);
  store->Ingest(night1, first);

  results::sample::SampleSpec slower = mi355x;
  slower.speed = 0.8;
  std::vector<results::Point> second = Repeated(DatedCurve(slower, concs, "2026-11-08"));
  for (auto& p : DatedCurve(b200, concs, "2026-11-08")) second.push_back(p);
  store->Ingest(night2, second);
  // The second night's accuracy: mi355x conc 16 scored and passing, conc 64 not run.
  store->IngestEvaluations(night2, {results::sample::SampleEvaluation(mi355x, 16, results::EvalStatus::kScored, 0.95),
                                    results::sample::SampleEvaluation(mi355x, 64, results::EvalStatus::kNotRun)});

  results::sample::SampleSpec eight_k = mi355x;
  eight_k.isl = 8192;
  eight_k.kind = results::PointKind::kPredicted;
  store->Ingest(predicted, DatedCurve(eight_k, {4, 16}, "2026-11-09"));
}

/// A fresh temporary folder for one test, removed by the caller.
inline fs::path TempDir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("infermark_dashboard_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace infermark::dashboard::test
