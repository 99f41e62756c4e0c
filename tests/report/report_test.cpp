// The HTML report: self-contained, one pair of charts per scenario, every point drawn with a hover
// title, predicted points with their own marker, time-scaled runs de-scaled and labelled; and the
// round-number axes it draws with.
#include "report/report.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "core/file_io.hpp"
#include "report/nice_axis.hpp"
#include "results/sample_points.hpp"
#include "run_binary.hpp"
#include "text_count.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

RunSummary Summary(std::int64_t id, const std::string& key, const std::vector<Point>& points) {
  RunSummary s;
  s.id = id;
  s.info.run_key = key;
  s.info.label = key;
  s.points = static_cast<int>(points.size());
  for (const auto& p : points) {
    s.predicted_points += p.provenance.kind == PointKind::kPredicted ? 1 : 0;
    s.max_time_scale = std::max(s.max_time_scale, p.provenance.time_scale);
  }
  return s;
}

// A measured sweep (TP8 and TP4, 1k/1k and 8k/1k), its prediction, and a time-scaled sweep on another GPU.
std::vector<ReportRun> SampleRuns() {
  std::vector<Point> measured;
  for (int isl : {1024, 8192}) {
    sample::SampleSpec tp8;
    tp8.isl = isl;
    sample::SampleSpec tp4 = tp8;
    tp4.tp = 4;
    tp4.speed = 0.8;
    for (auto& p : sample::SampleCurve(tp8, {1, 2, 4, 8, 16, 32})) measured.push_back(p);
    for (auto& p : sample::SampleCurve(tp4, {1, 4, 16, 64, 256})) measured.push_back(p);
  }
  sample::SampleSpec predicted_spec;
  predicted_spec.kind = PointKind::kPredicted;
  predicted_spec.speed = 1.1;
  auto predicted = sample::SampleCurve(predicted_spec, {1, 2, 4, 8, 16, 32});
  sample::SampleSpec scaled;
  scaled.hw = "h200";
  scaled.precision = "fp8";
  scaled.time_scale = 20;
  auto scaled_points = sample::SampleCurve(scaled, {1, 4, 16, 64});
  for (auto& p : scaled_points) measured.push_back(p);
  return {ReportRun{Summary(1, "sweep-1", measured), measured, {}},
          ReportRun{Summary(2, "predict-1", predicted), predicted, {}}};
}

TEST(Report, ChartsPointsAndLegends) {
  const auto runs = SampleRuns();
  const std::string html = RenderReport(runs, ReportOptions{});
  // Two scenarios (1k/1k and 8k/1k), two charts each.
  EXPECT_EQ(test::Occurrences(html, "<svg id=\"chart-"), 4u);
  EXPECT_EQ(test::Occurrences(html, "-interactivity\" class=\"chart\""), 2u);
  EXPECT_EQ(test::Occurrences(html, "-e2el\" class=\"chart\""), 2u);
  // Every point on both charts: 26 measured points, 6 predicted.
  EXPECT_EQ(test::Occurrences(html, "class=\"pt measured"), 2u * 26);
  EXPECT_EQ(test::Occurrences(html, "class=\"pt predicted"), 2u * 6);
  // One frontier per series per chart: 1k/1k has 3 series (mi355x measured, mi355x predicted, h200);
  // 8k/1k has 1.
  EXPECT_EQ(test::Occurrences(html, "<path class=\"frontier"), 2u * (3 + 1));
  EXPECT_NE(html.find("mi355x vllm fp4 · measured"), std::string::npos);
  EXPECT_NE(html.find("mi355x vllm fp4 · predicted"), std::string::npos);
  EXPECT_NE(html.find("h200 vllm fp8 · measured (de-scaled ×20)"), std::string::npos);
  EXPECT_NE(html.find("time-scale-note"), std::string::npos);
  // Each group's frontier is named once per chart on the chart itself: 1k/1k has 2 groups, 8k/1k 1.
  EXPECT_EQ(test::Occurrences(html, "class=\"frontier-label\""), 2u * (2 + 1));
  EXPECT_NE(html.find(">h200 vllm fp8</text>"), std::string::npos);
  EXPECT_NE(html.find("Interactivity (median) [tok/s/user]"), std::string::npos);
  EXPECT_NE(html.find("End-to-end latency (median) [s]"), std::string::npos);
  EXPECT_NE(html.find("Token throughput [tok/s/GPU]"), std::string::npos);
  // Hover titles carry the point's identity and de-scaled figures.
  EXPECT_NE(html.find("<title>mi355x vllm fp4  tp8-ep1-dpafalse-pp1-dcp1-pcp1  conc 32\ntok/s/GPU: "),
            std::string::npos);
  const Point& scaled = runs[0].points.back();
  const std::string descaled = "tok/s/GPU: " + std::to_string(DeScaled(scaled).tput_per_gpu).substr(0, 5);
  EXPECT_NE(html.find(descaled), std::string::npos) << descaled;
  // Self-contained: no scripts, no external references.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(test::Occurrences(html, "http"), test::Occurrences(html, "http://www.w3.org/2000/svg"));
  // The table lists every point once.
  EXPECT_EQ(test::Occurrences(html, "<tr class=\"measured"), 26u);
  EXPECT_EQ(test::Occurrences(html, "<tr class=\"predicted"), 6u);
}

// An INVALID point (here the best one of its curve: a starved engine at conc 32) is drawn, faded
// with a red ring and its reasons in its title, but never on a frontier, so a comparison of
// measured with predicted cannot rest on it unseen.
TEST(Report, InvalidPointsAreMarkedAndLeftOutOfFrontiers) {
  auto runs = SampleRuns();
  Point& best = runs[0].points[5];  // 1k/1k tp8 conc 32: the curve's highest throughput
  ASSERT_EQ(best.key.conc, 32);
  const std::string valid_html = RenderReport(runs, ReportOptions{});
  best.provenance.verdict = "INVALID: engine behind its model (p99 2.000 ms)";
  const std::string html = RenderReport(runs, ReportOptions{});
  EXPECT_EQ(test::Occurrences(html, " invalid"), 2u + 1u);  // both charts' markers, and its table row
  EXPECT_NE(html.find("<title>INVALID: engine behind its model (p99 2.000 ms)\nmi355x vllm fp4"), std::string::npos);
  EXPECT_EQ(test::Occurrences(valid_html, " invalid"), 0u);
  // On the valid report the point is on its frontier on both charts; invalid, on neither.
  EXPECT_EQ(test::Occurrences(html, "class=\"pt measured front invalid"), 0u);
  EXPECT_LT(test::Occurrences(html, "class=\"pt measured front"),
            test::Occurrences(valid_html, "class=\"pt measured front"));
  EXPECT_EQ(test::Occurrences(html, "class=\"pt measured"), 2u * 26);  // still drawn
}

// A repeated point is drawn with error bars on both axes (its median's interval) and its series'
// frontier with a band from the repeats' own frontiers; a point measured once has neither.
TEST(Report, RepeatedPointsGetErrorBarsAndTheirFrontierABand) {
  std::vector<Point> points;
  for (auto& p : sample::SampleCurve({}, {1, 4, 16})) points.push_back(sample::WithRepeats(p, {1.0, 0.95, 1.05}));
  sample::SampleSpec once;
  once.hw = "h200";
  for (auto& p : sample::SampleCurve(once, {1, 4, 16})) points.push_back(p);
  const std::string html = RenderReport({ReportRun{Summary(1, "sweep-1", points), points, {}}}, ReportOptions{});
  // Three repeated points on each of the two charts, each with a vertical and a horizontal bar.
  EXPECT_EQ(test::Occurrences(html, "class=\"error-bar y\""), 6u);
  EXPECT_EQ(test::Occurrences(html, "class=\"error-bar x\""), 6u);
  // One band per chart: the repeated series' (the h200 series was measured once).
  EXPECT_EQ(test::Occurrences(html, "class=\"frontier-band\""), 2u);
  EXPECT_NE(html.find("median of 3 repeats, [95 % interval of the median]"), std::string::npos);
  // The hover title gives the interval of tok/s/GPU: three repeats, [min, max].
  const double tput = sample::SamplePoint({}, 4).agg["tput_per_gpu"].get<double>();
  char interval[64];
  std::snprintf(interval, sizeof interval, "tok/s/GPU: %.1f [%.1f, %.1f]", tput, tput * 0.95, tput * 1.05);
  EXPECT_NE(html.find(interval), std::string::npos) << interval;
}

TEST(Report, EscapesTextFromResults) {
  auto runs = SampleRuns();
  runs[0].run.info.label = "<b>&\"";
  const std::string html = RenderReport(runs, ReportOptions{"a <title>", ""});
  EXPECT_EQ(html.find("<b>&\""), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;&amp;&quot;"), std::string::npos);
  EXPECT_NE(html.find("a &lt;title&gt;"), std::string::npos);
}

TEST(NiceAxis, RoundTicks) {
  const NiceAxis a = MakeNiceAxis(0, 1234, 6);
  EXPECT_EQ(a.step, 250);  // 1234 / 6 = 206 rounds up to 250
  EXPECT_EQ(a.max, 1250);
  EXPECT_EQ(a.ticks.size(), 6u);
  const NiceAxis b = MakeNiceAxis(0.3, 0.92, 5);
  EXPECT_EQ(b.min, 0);
  EXPECT_DOUBLE_EQ(b.step, 0.2);
  EXPECT_DOUBLE_EQ(b.max, 1.0);
  const NiceAxis flat = MakeNiceAxis(5, 5, 5);
  EXPECT_GT(flat.max, flat.min);
  EXPECT_EQ(FormatTick(12500, 2500), "12\u2009500");
  EXPECT_EQ(FormatTick(0.25, 0.05), "0.25");
  EXPECT_EQ(FormatTick(1.5, 0.5), "1.5");
  EXPECT_EQ(FormatTick(0, 0.2), "0.0");
  EXPECT_EQ(FormatTick(7.5, 2.5), "7.5");
}

TEST(ReportCommand, WritesFileFromStore) {
  const fs::path dir = fs::temp_directory_path() / ("infermark_report_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string db = (dir / "r.db").string();
  {
    auto store = OpenStore(db);
    for (const auto& run : SampleRuns()) store->Ingest(run.run.info, run.points);
  }
  const std::string out = (dir / "report.html").string();
  const auto r = infermark::test::RunInfermark({"report", "--db", db, "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = ReadFile(out);
  // Default selection: newest measured and newest predicted run.
  EXPECT_EQ(test::Occurrences(html, "class=\"pt measured"), 2u * 26);
  EXPECT_EQ(test::Occurrences(html, "class=\"pt predicted"), 2u * 6);
  const auto one = infermark::test::RunInfermark({"report", "--db", db, "--run", "predict-1", "-o", out});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(test::Occurrences(ReadFile(out), "class=\"pt measured"), 0u);
  const auto both = infermark::test::RunInfermark({"report", "--db", db, "--run", "sweep-1", "2", "-o", out});
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_EQ(test::Occurrences(ReadFile(out), "class=\"pt predicted"), 2u * 6);
  EXPECT_EQ(test::Occurrences(ReadFile(out), "class=\"pt measured"), 2u * 26);

  // CSV: units in the headers, one line per point, figures de-scaled.
  const auto csv = infermark::test::RunInfermark({"results", "export", "--csv", "--db", db, "--run", "sweep-1"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("run,run_label,kind,model,", 0), 0u);
  EXPECT_NE(csv.out.find(",tput_per_gpu [tok/s/GPU],"), std::string::npos);
  EXPECT_NE(csv.out.find(",median_intvty [tok/s/user],"), std::string::npos);
  EXPECT_NE(csv.out.find(",median_e2el [s],"), std::string::npos);
  EXPECT_EQ(test::Occurrences(csv.out, "\n"), 1u + 26);
  const auto runs = SampleRuns();
  const Point& scaled = runs[0].points.back();  // h200, time scale 20
  char expected[64];
  std::snprintf(expected, sizeof expected, ",20,%.6g", DeScaled(scaled).tput_per_gpu);
  EXPECT_NE(csv.out.find(expected), std::string::npos) << expected;
  EXPECT_EQ(infermark::test::RunInfermark({"results", "export", "--db", db}).exit_code, 2);  // --csv is required

  EXPECT_EQ(infermark::test::RunInfermark({"report", "--db", (dir / "none.db").string()}).exit_code, 2);
  EXPECT_EQ(infermark::test::RunInfermark({"report", "--db", db, "--run", "nope", "-o", out}).exit_code, 2);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace infermark::results
