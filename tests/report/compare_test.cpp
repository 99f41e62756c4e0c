// Pareto frontiers and run comparison: dominated points leave the frontier, frontiers are read
// between their points and never beyond, and regressions beyond the threshold are flagged point by
// point and on the frontier (`results compare` exits 1 then).
#include "report/compare.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/diagnostic.hpp"
#include "report/pareto.hpp"
#include "results/sample_points.hpp"
#include "run_binary.hpp"
#include "store/result_store.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

TEST(Pareto, KeepsOnlyNonDominatedPoints) {
  // (interactivity, tok/s/GPU): (10, 50) is dominated by (20, 60).
  const std::vector<ChartPoint> pts = {{100, 10, 0}, {50, 40, 1}, {10, 50, 2}, {20, 60, 3}, {50, 30, 4}, {5, 60, 5}};
  const auto front = ParetoFront(pts, XGoal::kMaximize);
  std::vector<std::size_t> idx;
  for (const auto& p : front) idx.push_back(p.index);
  EXPECT_EQ(idx, (std::vector<std::size_t>{3, 1, 0}));  // x ascending: 20, 50, 100

  // Latency axis: less is better.
  const std::vector<ChartPoint> lat = {{1, 10, 0}, {2, 30, 1}, {3, 20, 2}, {4, 50, 3}};
  idx.clear();
  for (const auto& p : ParetoFront(lat, XGoal::kMinimize)) idx.push_back(p.index);
  EXPECT_EQ(idx, (std::vector<std::size_t>{0, 1, 3}));
}

TEST(Pareto, FrontAtInterpolatesInsideOnly) {
  // y = 1000 / x between the points: a power law is followed exactly.
  const std::vector<ChartPoint> front = {{10, 100, 0}, {20, 50, 1}, {40, 25, 2}};
  EXPECT_NEAR(*FrontAt(front, 15), 1000.0 / 15, 1e-9);
  EXPECT_NEAR(*FrontAt(front, 30), 1000.0 / 30, 1e-9);
  EXPECT_DOUBLE_EQ(*FrontAt(front, 40), 25);
  const std::vector<ChartPoint> with_zero = {{0, 100, 0}, {10, 50, 1}};
  EXPECT_DOUBLE_EQ(*FrontAt(with_zero, 5), 75);  // linear where the log is undefined
  EXPECT_FALSE(FrontAt(front, 9.9));
  EXPECT_FALSE(FrontAt(front, 41));
  EXPECT_FALSE(FrontAt({}, 1));
}

TEST(Compare, FlagsRegressionsBeyondTheThreshold) {
  sample::SampleSpec base_spec;
  const auto baseline = sample::SampleCurve(base_spec, {1, 4, 16, 64});
  sample::SampleSpec slower = base_spec;
  slower.speed = 0.90;  // 10 % less throughput at the same interactivity
  auto candidate = sample::SampleCurve(slower, {1, 4, 16, 64});
  CompareOptions options;
  options.threshold = 0.05;
  const Comparison c = CompareRuns(baseline, candidate, options);
  EXPECT_EQ(c.points.size(), 4u);
  EXPECT_EQ(c.point_regressions, 4);
  EXPECT_GT(c.frontier_regressions, 0);
  const MetricDelta& tput = c.points[0].deltas[0];
  EXPECT_EQ(tput.metric, "tput_per_gpu");
  EXPECT_NEAR(tput.change, -0.10, 1e-9);
  EXPECT_TRUE(tput.regression);

  // Within the noise: nothing flagged.
  options.threshold = 0.15;
  const Comparison loose = CompareRuns(baseline, candidate, options);
  EXPECT_EQ(loose.point_regressions, 0);
  EXPECT_EQ(loose.frontier_regressions, 0);

  // Faster is never a regression; a missing point is listed, not flagged.
  sample::SampleSpec faster = base_spec;
  faster.speed = 1.2;
  auto better = sample::SampleCurve(faster, {1, 4, 16});
  options.threshold = 0.05;
  const Comparison up = CompareRuns(baseline, better, options);
  EXPECT_EQ(up.point_regressions, 0);
  EXPECT_EQ(up.frontier_regressions, 0);
  EXPECT_EQ(up.only_baseline.size(), 1u);
  EXPECT_NE(FormatComparison(up, options, false).find("improved"), std::string::npos);
}

TEST(Compare, FrontierRegressionWithoutMatchingPoints) {
  // The candidate ran other concurrencies: no point matches, yet its frontier is 20 % lower.
  const auto baseline = sample::SampleCurve({}, {1, 4, 16, 64});
  sample::SampleSpec slow;
  slow.speed = 0.8;
  const auto candidate = sample::SampleCurve(slow, {2, 8, 32});
  const Comparison c = CompareRuns(baseline, candidate, CompareOptions{});
  EXPECT_TRUE(c.points.empty());
  EXPECT_GT(c.frontier_regressions, 0);
  for (const FrontierSample& s : c.frontier) EXPECT_LT(s.change, -0.05);
}

TEST(Compare, TimeScaledRunsCompareDeScaled) {
  const auto baseline = sample::SampleCurve({}, {1, 4, 16});
  sample::SampleSpec scaled;
  scaled.time_scale = 25;  // stored 25x faster, same modelled hardware
  const Comparison c = CompareRuns(baseline, sample::SampleCurve(scaled, {1, 4, 16}), CompareOptions{});
  EXPECT_EQ(c.point_regressions, 0);
  for (const auto& p : c.points) {
    for (const auto& d : p.deltas) EXPECT_NEAR(d.change, 0, 1e-9) << d.metric;
  }
}

TEST(Compare, ThresholdSyntax) {
  EXPECT_DOUBLE_EQ(ParseThreshold("5%"), 0.05);
  EXPECT_DOUBLE_EQ(ParseThreshold("0.05"), 0.05);
  EXPECT_DOUBLE_EQ(ParseThreshold("2.5"), 0.025);
  EXPECT_THROW(ParseThreshold("-1"), InputError);
  EXPECT_THROW(ParseThreshold("five"), InputError);
}

TEST(CompareCommand, ExitCodes) {
  const fs::path dir = fs::temp_directory_path() / ("infermark_compare_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string db = (dir / "r.db").string();
  {
    auto store = OpenStore(db);
    store->Ingest(RunInfo{"base", "", "", "", "", ""}, sample::SampleCurve({}, {1, 4, 16}));
    sample::SampleSpec slow;
    slow.speed = 0.9;
    store->Ingest(RunInfo{"slow", "", "", "", "", ""}, sample::SampleCurve(slow, {1, 4, 16}));
    store->Ingest(RunInfo{"same", "", "", "", "", ""}, sample::SampleCurve({}, {1, 4, 16}));
  }
  const auto regressed =
      infermark::test::RunInfermark({"results", "compare", "--db", db, "--baseline", "base", "--candidate", "slow"});
  EXPECT_EQ(regressed.exit_code, 1) << regressed.out << regressed.err;
  EXPECT_NE(regressed.out.find("REGRESSION"), std::string::npos) << regressed.out;
  const auto noise = infermark::test::RunInfermark(
      {"results", "compare", "--db", db, "--baseline", "base", "--candidate", "slow", "--threshold", "15%"});
  EXPECT_EQ(noise.exit_code, 0) << noise.out;
  const auto latest =
      infermark::test::RunInfermark({"results", "compare", "--db", db, "--baseline", "base"});  // vs "same"
  EXPECT_EQ(latest.exit_code, 0) << latest.out;
  EXPECT_NE(latest.out.find("candidate: run 3"), std::string::npos) << latest.out;
  const auto missing = infermark::test::RunInfermark({"results", "compare", "--db", db, "--baseline", "nope"});
  EXPECT_EQ(missing.exit_code, 2);
  const auto no_db =
      infermark::test::RunInfermark({"results", "compare", "--db", (dir / "none.db").string(), "--baseline", "1"});
  EXPECT_EQ(no_db.exit_code, 2);
  EXPECT_FALSE(fs::exists(dir / "none.db"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace infermark::results
