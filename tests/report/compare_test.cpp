// Pareto frontiers and run comparison: dominated points leave the frontier, frontiers are read
// between their points and never beyond, and a change is flagged point by point and on the
// frontier only when it lies outside the noise — the points' repeats, else the series' history —
// and is at least the minimum effect; without either it is inconclusive, never a regression
// (`results compare --fail-on regression` exits 3 on a significant regression).
#include "report/compare.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
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

// Each point of `curve` measured three times, throughput and interactivity within ±`spread`.
std::vector<Point> Repeated(std::vector<Point> curve, double spread, int shift = 0) {
  const double f[] = {1.0, 1 - spread, 1 + spread, 1 - spread / 2, 1 + spread / 2};
  for (std::size_t i = 0; i < curve.size(); ++i) {
    const std::size_t a = (i + static_cast<std::size_t>(shift)) % 5;
    curve[i] = sample::WithRepeats(curve[i], {f[a], f[(a + 1) % 5], f[(a + 2) % 5]});
  }
  return curve;
}

TEST(Compare, RepeatsOnBothSidesFlagARealLossWithItsTest) {
  sample::SampleSpec base_spec;
  sample::SampleSpec slower = base_spec;
  slower.speed = 0.90;  // 10 % less throughput at the same interactivity
  const auto baseline = Repeated(sample::SampleCurve(base_spec, {1, 4, 16, 64}), 0.01);
  const auto candidate = Repeated(sample::SampleCurve(slower, {1, 4, 16, 64}), 0.01, 2);
  CompareOptions options;
  const Comparison c = CompareRuns(baseline, candidate, options);
  ASSERT_EQ(c.points.size(), 4u);
  EXPECT_EQ(c.point_regressions, 4);
  EXPECT_GT(c.frontier_regressions, 0);
  const MetricDelta& tput = c.points[0].deltas[0];
  EXPECT_EQ(tput.metric, "tput_per_gpu");
  EXPECT_NEAR(tput.change, -0.10, 0.01);  // the medians of differently drawn repeats
  EXPECT_TRUE(tput.regression);
  EXPECT_EQ(tput.evidence.test, "welch-log");
  EXPECT_LT(*tput.evidence.p_value, 0.001);
  EXPECT_EQ(tput.evidence.baseline_repeats, 3);
  EXPECT_EQ(tput.evidence.candidate_repeats, 3);
  EXPECT_LT(*tput.evidence.high, -0.05);  // the interval lies beyond the minimum effect
  // Interactivity did not change (the same repeats' spread): not flagged.
  EXPECT_NE(c.points[0].deltas[1].evidence.status, ChangeStatus::kRegression);
  // The frontier's noise from the repeats' own frontiers (where at least two reach the sample).
  EXPECT_TRUE(std::any_of(c.frontier.begin(), c.frontier.end(),
                          [](const FrontierSample& s) { return s.regression && s.evidence.test == "welch-log"; }));
  EXPECT_NE(FormatComparison(c, options, false).find("REGRESSION"), std::string::npos);

  // A minimum effect above the loss: a real change, but not one worth reporting.
  options.rules.min_effect = 0.15;
  const Comparison small = CompareRuns(baseline, candidate, options);
  EXPECT_EQ(small.point_regressions, 0);
  EXPECT_EQ(small.frontier_regressions, 0);
}

TEST(Compare, TheSameConfigurationIsNotAChange) {
  // A/A: the same curve, its repeats drawn in another order (2 % spread).
  const auto baseline = Repeated(sample::SampleCurve({}, {1, 4, 16, 64}), 0.02);
  const auto candidate = Repeated(sample::SampleCurve({}, {1, 4, 16, 64}), 0.02, 3);
  const Comparison c = CompareRuns(baseline, candidate, CompareOptions{});
  EXPECT_EQ(c.point_regressions, 0);
  EXPECT_EQ(c.frontier_regressions, 0);
  EXPECT_EQ(c.improvements, 0);
  for (const auto& p : c.points) {
    for (const auto& d : p.deltas) EXPECT_NE(d.evidence.test, "none") << d.metric;
  }
}

TEST(Compare, NoisyRepeatsMakeALossInconclusive) {
  sample::SampleSpec slower;
  slower.speed = 0.90;
  // ±30 % between repeats: a 10 % loss can be neither shown nor ruled out.
  const auto baseline = Repeated(sample::SampleCurve({}, {4, 16}), 0.30);
  const auto candidate = Repeated(sample::SampleCurve(slower, {4, 16}), 0.30, 1);
  const Comparison c = CompareRuns(baseline, candidate, CompareOptions{});
  EXPECT_EQ(c.point_regressions, 0);
  EXPECT_EQ(c.points[0].deltas[0].evidence.status, ChangeStatus::kInconclusive);
}

TEST(Compare, WithoutRepeatsOrHistoryALossIsInconclusive) {
  sample::SampleSpec slower;
  slower.speed = 0.9;
  const auto baseline = sample::SampleCurve({}, {1, 4, 16, 64});
  const Comparison c = CompareRuns(baseline, sample::SampleCurve(slower, {1, 4, 16, 64}), CompareOptions{});
  EXPECT_EQ(c.point_regressions, 0);
  EXPECT_EQ(c.frontier_regressions, 0);
  const MetricDelta& tput = c.points[0].deltas[0];
  EXPECT_EQ(tput.evidence.status, ChangeStatus::kInconclusive);
  EXPECT_EQ(tput.evidence.test, "none");
  EXPECT_FALSE(tput.evidence.p_value);
  // A change below the minimum effect is not worth reporting, noise estimate or not.
  slower.speed = 0.98;
  const Comparison small = CompareRuns(baseline, sample::SampleCurve(slower, {1, 4, 16, 64}), CompareOptions{});
  EXPECT_EQ(small.points[0].deltas[0].evidence.status, ChangeStatus::kUnchanged);
  EXPECT_EQ(small.inconclusive, 0);
}

TEST(Compare, TheSeriesHistoryJudgesPointsWithoutRepeats) {
  // Six earlier runs within ±1 % of each other, then the baseline; the candidate loses 10 %.
  std::vector<std::vector<Point>> history;
  for (const double speed : {1.0, 1.01, 0.99, 1.005, 0.995, 1.0}) {
    sample::SampleSpec s;
    s.speed = speed;
    history.push_back(sample::SampleCurve(s, {4, 16}));
  }
  sample::SampleSpec slower;
  slower.speed = 0.9;
  const auto baseline = sample::SampleCurve({}, {4, 16});
  const Comparison c = CompareRuns(baseline, sample::SampleCurve(slower, {4, 16}), CompareOptions{}, history);
  EXPECT_EQ(c.point_regressions, 2);
  const ChangeEvidence& e = c.points[0].deltas[0].evidence;
  EXPECT_EQ(e.test, "lookback-log");
  EXPECT_EQ(e.history, 7);
  EXPECT_GT(c.frontier_regressions, 0);
  // Only the last history_runs runs are read, and never another kind of point (predictions).
  CompareOptions short_lookback;
  short_lookback.history_runs = 1;  // with the baseline: two values, too few for a lookback
  EXPECT_EQ(CompareRuns(baseline, sample::SampleCurve(slower, {4, 16}), short_lookback, history).point_regressions, 0);
  sample::SampleSpec predicted;
  predicted.kind = PointKind::kPredicted;
  std::vector<std::vector<Point>> predictions(6, sample::SampleCurve(predicted, {4, 16}));
  EXPECT_EQ(
      CompareRuns(baseline, sample::SampleCurve(slower, {4, 16}), CompareOptions{}, predictions).point_regressions, 0);
}

TEST(Compare, FrontierRegressionWithoutMatchingPoints) {
  // The candidate ran other concurrencies: no point matches, yet its frontier is 20 % lower, and
  // both runs' points were repeated.
  const auto baseline = Repeated(sample::SampleCurve({}, {1, 4, 16, 64}), 0.01);
  sample::SampleSpec slow;
  slow.speed = 0.8;
  const auto candidate = Repeated(sample::SampleCurve(slow, {2, 8, 32}), 0.01, 1);
  const Comparison c = CompareRuns(baseline, candidate, CompareOptions{});
  EXPECT_TRUE(c.points.empty());
  EXPECT_GT(c.frontier_regressions, 0);
  for (const FrontierSample& s : c.frontier) EXPECT_LT(s.change, -0.05);
  // Read at chosen interactivities only.
  CompareOptions at;
  at.interactivities = {40, 60};
  const Comparison chosen = CompareRuns(baseline, candidate, at);
  ASSERT_EQ(chosen.frontier.size(), 2u);
  EXPECT_EQ(chosen.frontier[0].interactivity, 40);
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

TEST(Compare, MinEffectSyntax) {
  EXPECT_DOUBLE_EQ(ParseMinEffectPercent("5"), 0.05);
  EXPECT_DOUBLE_EQ(ParseMinEffectPercent("5%"), 0.05);
  EXPECT_DOUBLE_EQ(ParseMinEffectPercent("2.5"), 0.025);
  EXPECT_DOUBLE_EQ(ParseMinEffectPercent("0.5"), 0.005);
  EXPECT_THROW(ParseMinEffectPercent("-1"), InputError);
  EXPECT_THROW(ParseMinEffectPercent("five"), InputError);
  EXPECT_THROW(ParseMinEffectPercent("100"), InputError);
}

TEST(CompareCommand, ExitCodesAndTheMarkdownSummary) {
  const fs::path dir = fs::temp_directory_path() / ("infermark_compare_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string db = (dir / "r.db").string();
  {
    auto store = OpenStore(db);
    store->Ingest(RunInfo{"base", "", "", "", "", ""}, Repeated(sample::SampleCurve({}, {1, 4, 16}), 0.01));
    sample::SampleSpec slow;
    slow.speed = 0.9;
    store->Ingest(RunInfo{"slow", "", "", "", "", ""}, Repeated(sample::SampleCurve(slow, {1, 4, 16}), 0.01, 1));
    store->Ingest(RunInfo{"same", "", "", "", "", ""}, Repeated(sample::SampleCurve({}, {1, 4, 16}), 0.01, 2));
    store->Ingest(RunInfo{"once", "", "", "", "", ""}, sample::SampleCurve(slow, {1, 4, 16}));
  }
  const auto compare = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"results", "compare", "--db", db, "--baseline", "base"};
    args.insert(args.end(), extra.begin(), extra.end());
    return infermark::test::RunInfermark(args);
  };
  // A significant regression: reported, and exit 3 only when asked to fail on it.
  const auto shown = compare({"--candidate", "slow"});
  EXPECT_EQ(shown.exit_code, 0) << shown.out << shown.err;
  EXPECT_NE(shown.out.find("REGRESSION"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("welch-log p="), std::string::npos) << shown.out;
  const auto gated = compare({"--candidate", "slow", "--fail-on", "regression"});
  EXPECT_EQ(gated.exit_code, 3) << gated.out;
  // The summary for a pull request: the regression with its test, p-value and repeats.
  const auto md = compare({"--candidate", "slow", "--fail-on", "regression", "--format", "markdown"});
  EXPECT_EQ(md.exit_code, 3) << md.out;
  EXPECT_NE(md.out.find("## infermark: performance comparison"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find(":x:"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("### Significant changes"), std::string::npos);
  EXPECT_NE(md.out.find("| tput_per_gpu |"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("| **-"), std::string::npos) << md.out;  // a regression's change in bold
  EXPECT_NE(md.out.find("| welch-log |"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("| 3 / 3 |"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("### Frontier shift"), std::string::npos);
  EXPECT_NE(md.out.find("### Evaluations that failed their gate"), std::string::npos);
  // A/A: exit 0 with the gate on.
  const auto same = compare({"--candidate", "same", "--fail-on", "regression", "--format", "markdown"});
  EXPECT_EQ(same.exit_code, 0) << same.out;
  EXPECT_NE(same.out.find(":white_check_mark: **No significant regression.**"), std::string::npos) << same.out;
  // No repeats on the candidate side and no history: a prediction test against the baseline's
  // repeats (one side repeated) finds the loss at each concurrency alone (p 0.006-0.013), but with
  // 2 degrees of freedom that is not enough among the comparison's 19 tests: adjusted, inconclusive.
  const auto once = compare({"--candidate", "once", "--fail-on", "regression"});
  EXPECT_EQ(once.exit_code, 0) << once.out;
  EXPECT_NE(once.out.find("inconclusive  prediction-log p=0.012 (adjusted 0.083 of 19)"), std::string::npos)
      << once.out;
  const auto alone = compare({"--candidate", "once", "--fail-on", "regression", "--multiple-tests", "none"});
  EXPECT_EQ(alone.exit_code, 3) << alone.out;
  EXPECT_NE(alone.out.find("REGRESSION    prediction-log p=0.012,"), std::string::npos) << alone.out;
  // The newest other run is the default candidate.
  const auto latest = compare({});
  EXPECT_NE(latest.out.find("candidate: run 4"), std::string::npos) << latest.out;
  // Bad input: exit 2.
  EXPECT_EQ(compare({"--candidate", "nope"}).exit_code, 2);
  EXPECT_EQ(compare({"--min-effect-percent", "x"}).exit_code, 2);
  EXPECT_EQ(compare({"--fail-on", "always"}).exit_code, 2);
  const auto no_db =
      infermark::test::RunInfermark({"results", "compare", "--db", (dir / "none.db").string(), "--baseline", "1"});
  EXPECT_EQ(no_db.exit_code, 2);
  EXPECT_FALSE(fs::exists(dir / "none.db"));
  fs::remove_all(dir);
}

TEST(CompareCommand, PointsWithoutRepeatsOrHistoryAreInconclusiveNeverARegression) {
  const fs::path dir = fs::temp_directory_path() / ("infermark_compare_once_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string db = (dir / "r.db").string();
  {
    auto store = OpenStore(db);
    store->Ingest(RunInfo{"base", "", "", "", "", ""}, sample::SampleCurve({}, {1, 4, 16}));
    sample::SampleSpec slow;
    slow.speed = 0.8;
    store->Ingest(RunInfo{"slow", "", "", "", "", ""}, sample::SampleCurve(slow, {1, 4, 16}));
  }
  const auto r = infermark::test::RunInfermark({"results", "compare", "--db", db, "--baseline", "base", "--candidate",
                                                "slow", "--fail-on", "regression", "--format", "markdown"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("### Inconclusive"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("measure with `--repeats`"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace infermark::results
