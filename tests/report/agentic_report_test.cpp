// Agentic points in the report and the CSV export: a section of their own per model (throughput per
// GPU against E2E-normalized and full-response interactivity, Pareto frontiers over valid points,
// offload drawn as a halo, the cache chart against users, a table with the agentic fields), never
// mixed into the fixed-length charts; and the whole round trip from aggregate files to the report.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/file_io.hpp"
#include "report/compare.hpp"
#include "report/report.hpp"
#include "results/result_files.hpp"
#include "results/sample_points.hpp"
#include "run_binary.hpp"
#include "store/ingest.hpp"
#include "test_paths.hpp"
#include "text_count.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

// The `<svg>` element with id `id`.
std::string Svg(const std::string& html, const std::string& id) {
  const std::size_t start = html.find("<svg id=\"" + id + "\"");
  if (start == std::string::npos) return "";
  return html.substr(start, html.find("</svg>", start) - start);
}

// The table row (`<tr …>…</tr>`) holding `needle`.
std::string Row(const std::string& html, const std::string& needle) {
  const std::size_t at = html.find(needle);
  if (at == std::string::npos) return "";
  const std::size_t start = html.rfind("<tr", at);
  return html.substr(start, html.find("</tr>", at) - start);
}

std::vector<ReportRun> Runs() {
  std::vector<Point> points = sample::SampleCurve({}, {1, 4, 16, 64});
  for (Point& p : ReadResultFiles({infermark::test::Fixture("agentic-aggregates")}, ReadOptions{})) {
    points.push_back(std::move(p));
  }
  RunSummary run;
  run.id = 1;
  run.info.run_key = run.info.label = "sweep-1";
  run.points = static_cast<int>(points.size());
  return {ReportRun{run, points, {}}};
}

TEST(AgenticReport, DrawnApartWithHaloCacheChartAndTable) {
  const auto runs = Runs();
  const std::string html = RenderReport(runs, ReportOptions{});
  // The fixed-length scenario keeps its two charts and draws only its own four points.
  EXPECT_EQ(test::Occurrences(html, "<svg id=\"chart-"), 2u);
  for (const char* id : {"chart-1-interactivity", "chart-1-e2el"}) {
    const std::string svg = Svg(html, id);
    EXPECT_EQ(test::Occurrences(svg, "class=\"pt "), 4u) << id;
    EXPECT_EQ(svg.find("kvnone"), std::string::npos) << id;
  }
  // One agentic section with its three charts.
  EXPECT_EQ(test::Occurrences(html, "<section class=\"scenario agentic\""), 1u);
  EXPECT_NE(html.find("Qwen/Qwen3.5-397B-A17B-FP8 · agentic coding"), std::string::npos);
  const std::string e2e = Svg(html, "agentic-1-e2e-norm");
  const std::string full = Svg(html, "agentic-1-full-response");
  const std::string cache = Svg(html, "agentic-1-cache");
  ASSERT_FALSE(e2e.empty());
  ASSERT_FALSE(full.empty());
  ASSERT_FALSE(cache.empty());
  EXPECT_NE(e2e.find("E2E-normalized interactivity (P50) [tok/s/user]"), std::string::npos);
  EXPECT_NE(full.find("Full-response interactivity (P50) [tok/s/user]"), std::string::npos);
  EXPECT_NE(cache.find("Users (concurrent sessions)"), std::string::npos);
  EXPECT_NE(cache.find("Cache hit rate [%]"), std::string::npos);
  // Eight agentic points on each throughput chart; series per hardware, framework, precision and offload.
  EXPECT_EQ(test::Occurrences(e2e, "class=\"pt "), 8u);
  EXPECT_EQ(test::Occurrences(full, "class=\"pt "), 8u);
  EXPECT_EQ(test::Occurrences(e2e, "<g class=\"series\""), 3u);
  EXPECT_NE(e2e.find("data-label=\"b300 sglang fp8 kvdram-hicache · measured\""), std::string::npos);
  EXPECT_NE(e2e.find("data-label=\"b300 sglang fp8 kvnone · measured\""), std::string::npos);
  // The x axis is the P50 E2E-normalized interactivity of the record (hicache, 16 users: 43.5).
  EXPECT_NE(e2e.find("data-x=\"43.50\" data-y=\"2610.00\""), std::string::npos);
  EXPECT_NE(full.find("data-x=\"76.52\" data-y=\"2610.00\""), std::string::npos);
  // Offload is drawn with a halo: 2 hicache points on each throughput chart plus the legend marker;
  // theoretical and server series on the cache chart, 2 points each plus their legend markers.
  EXPECT_EQ(test::Occurrences(e2e, "class=\"halo\""), 3u);
  EXPECT_EQ(test::Occurrences(full, "class=\"halo\""), 3u);
  EXPECT_EQ(test::Occurrences(cache, "class=\"halo\""), 6u);
  // The hicache frontiers on both throughput charts and its server line on the cache chart.
  EXPECT_EQ(test::Occurrences(html, "class=\"frontier measured offload\""), 3u);
  // INVALID (64 users failed the gate; h200 at 32 users aiperf's verdict): ringed and off the frontier.
  EXPECT_EQ(test::Occurrences(e2e, "pt measured invalid"), 2u);
  const std::string invalid_row = Row(html, "<td>64</td><td class=\"l\">none</td>");
  EXPECT_NE(invalid_row.find("class=\"measured invalid\""), std::string::npos) << invalid_row;
  EXPECT_EQ(invalid_row.find("E2E-norm."), std::string::npos) << invalid_row;
  EXPECT_NE(invalid_row.find("failed-request threshold"), std::string::npos);
  EXPECT_NE(invalid_row.find("warning: sglang:max_total_num_tokens missing"), std::string::npos);
  // Cache chart: theoretical (dotted) and server-measured rates in percent against users.
  EXPECT_NE(cache.find("data-label=\"b300 sglang fp8 kvnone · theoretical\""), std::string::npos);
  EXPECT_NE(cache.find("data-label=\"b300 sglang fp8 kvdram-hicache · server\""), std::string::npos);
  EXPECT_NE(cache.find("data-x=\"32.00\" data-y=\"90.00\""), std::string::npos);  // hicache 0.66 + 0.24
  EXPECT_NE(cache.find("data-x=\"8.00\" data-y=\"93.00\""), std::string::npos);
  EXPECT_NE(cache.find("frontier measured dashed"), std::string::npos);
  // The table carries the agentic fields.
  const std::string hicache_row = Row(html, "dram (hicache)");
  for (const char* cell : {"<td>1800</td>", "<td>2610.0</td>", "<td>93.0</td>", "<td>90.0</td>", "<td>12.0</td>",
                           "<td>1650000</td>", "<td>1520 / 1696</td>", "<td>780</td>", "<td>1.418</td>"}) {
    EXPECT_NE(hicache_row.find(cell), std::string::npos) << cell << " in " << hicache_row;
  }
}

TEST(AgenticReport, AggregatesToStoreToReportAndCsv) {
  const fs::path dir = fs::temp_directory_path() / ("infermark_agentic_report_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string db = (dir / "s.db").string();
  const std::string html_path = (dir / "r.html").string();
  const auto ingest =
      infermark::test::RunInfermark({"results", "ingest", "--db", db, infermark::test::Fixture("agentic-aggregates")});
  ASSERT_EQ(ingest.exit_code, 0) << ingest.err;
  const auto report = infermark::test::RunInfermark({"report", "--db", db, "-o", html_path});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("(8 points)"), std::string::npos) << report.out;
  const std::string html = ReadFile(html_path);
  EXPECT_EQ(test::Occurrences(html, "<section class=\"scenario agentic\""), 1u);
  EXPECT_EQ(test::Occurrences(html, "<svg id=\"chart-"), 0u);
  EXPECT_EQ(test::Occurrences(Svg(html, "agentic-1-e2e-norm"), "class=\"pt "), 8u);
  EXPECT_NE(html.find("context overflows are 1.4% of responses"), std::string::npos);

  const auto csv = infermark::test::RunInfermark({"results", "export", "--csv", "--db", db});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find(",scenario_type,users,kv_offloading,kv_offload_backend,allocated_cpu_dram_gb [GB],"),
            std::string::npos);
  EXPECT_NE(csv.out.find(",median_e2e_norm_intvty [tok/s/user],"), std::string::npos);
  EXPECT_NE(csv.out.find(",theoretical_cache_hit_rate [fraction],"), std::string::npos);
  EXPECT_EQ(test::Occurrences(csv.out, ",agentic-coding,"), 8u);
  // The hicache point at 16 users: no sequence lengths, its users, offload, DRAM and hit rates.
  const std::size_t at = csv.out.find("agentic-coding,16,dram,hicache,1800,1800,");
  ASSERT_NE(at, std::string::npos) << csv.out;
  const std::size_t start = csv.out.rfind('\n', at) + 1;
  const std::string row = csv.out.substr(start, csv.out.find('\n', at) - start);
  EXPECT_NE(row.find(",tp8-ep1-dpafalse-pp1-dcp1-pcp1,,,16,"), std::string::npos) << row;
  EXPECT_NE(row.find(",0.93,0.9,0.78,0.12,1650000,1696,1520,0,1,780,1.41817,"), std::string::npos) << row;
  fs::remove_all(dir);
}

// `results compare` on agentic points: matched on (scenario, offload mode, users), never with
// fixed-length points or another offload mode, and frontiers read on E2E-normalized interactivity.
TEST(AgenticCompare, MatchesOnTheAgenticKeyOnly) {
  const std::vector<Point> all = Runs()[0].points;
  std::vector<Point> baseline, candidate;
  for (const Point& p : all) {
    // Baseline: fixed points and SGLang without offload; candidate: the same, 10 % slower, plus HiCache.
    if (p.key.Agentic() && p.key.hw != "b300") continue;
    if (p.key.OffloadMode() != "kvdram-hicache") baseline.push_back(p);
    Point slower = p;
    slower.agg["tput_per_gpu"] = p.agg["tput_per_gpu"].get<double>() * 0.9;
    candidate.push_back(slower);
  }
  const Comparison c = CompareRuns(baseline, candidate, CompareOptions{});
  // 4 fixed points and 4 SGLang kvnone points match; the HiCache points are new, not matched to kvnone.
  EXPECT_EQ(c.points.size(), 8u);
  ASSERT_EQ(c.only_candidate.size(), 2u);
  for (const std::string& key : c.only_candidate) EXPECT_NE(key.find("kvdram-hicache"), std::string::npos) << key;
  EXPECT_TRUE(c.only_baseline.empty());
  // Measured once, without history: a 10 % loss is inconclusive, never a regression.
  EXPECT_EQ(c.point_regressions, 0);
  int agentic = 0;
  for (const PointComparison& p : c.points) {
    if (!p.key.Agentic()) {
      EXPECT_EQ(p.deltas[1].metric, "median_intvty");
      continue;
    }
    ++agentic;
    ASSERT_EQ(p.deltas.size(), 6u);
    EXPECT_EQ(p.deltas[1].metric, "median_e2e_norm_intvty");
    EXPECT_EQ(p.deltas[2].metric, "median_full_response_intvty");
    EXPECT_NEAR(p.deltas[0].change, -0.10, 1e-9);
    EXPECT_EQ(p.deltas[0].evidence.status, ChangeStatus::kInconclusive);
    EXPECT_EQ(p.deltas[1].change, 0);
  }
  EXPECT_EQ(agentic, 4);
  // Frontier samples per scenario and group; the agentic ones on the kvnone group only.
  int agentic_samples = 0;
  for (const FrontierSample& s : c.frontier) {
    if (!s.agentic) continue;
    ++agentic_samples;
    EXPECT_EQ(s.scenario, "Qwen/Qwen3.5-397B-A17B-FP8 agentic-coding");
    EXPECT_EQ(s.group, "b300 sglang fp8 kvnone");
    EXPECT_NEAR(s.change, -0.10, 1e-9);
  }
  // Read at the frontier's four points (8 to 64 users: compare, unlike the report, keeps INVALID points).
  EXPECT_EQ(agentic_samples, 4);
  EXPECT_NE(FormatComparison(c, CompareOptions{}, false).find("P50 E2E-normalized interactivity"), std::string::npos);
}

}  // namespace
}  // namespace infermark::results
