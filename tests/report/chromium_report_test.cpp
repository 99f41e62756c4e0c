// The report as a browser sees it: headless Chromium loads the file and dumps the DOM it built,
// which must hold every chart and every point (a malformed document would lose elements); and the
// demo's report by default: the measured sweep beside the prediction of the same rows (not a later
// prediction of other rows), with the tail statistics the host moved marked on their points.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "core/subprocess.hpp"
#include "report/report.hpp"
#include "results/sample_points.hpp"
#include "text_count.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

std::string FindChromium() {
  if (const char* env = std::getenv("INFERMARK_CHROMIUM")) return env;
  for (const char* path : {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}) {
    if (::access(path, X_OK) == 0) return path;
  }
  return "";
}

TEST(ChromiumReport, RenderedDomHoldsChartsAndPoints) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "chromium is not installed (apt-get install chromium, as scripts/setup.sh does; or set "
                    "INFERMARK_CHROMIUM): the report was not rendered in a browser";
  }
  const fs::path dir = fs::temp_directory_path() / ("infermark_chromium_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "profile");
  const std::string db = (dir / "r.db").string();
  int measured = 0, predicted = 0;
  {
    auto store = OpenStore(db);
    std::vector<Point> points;
    for (int tp : {4, 8}) {
      sample::SampleSpec spec;
      spec.tp = tp;
      for (auto& p : sample::SampleCurve(spec, {1, 2, 4, 8, 16, 32, 64})) points.push_back(p);
    }
    measured = static_cast<int>(points.size());
    store->Ingest(RunInfo{"sweep", "", "", "", "", "sweep"}, points);
    sample::SampleSpec spec;
    spec.kind = PointKind::kPredicted;
    spec.time_scale = 10;
    const auto prediction = sample::SampleCurve(spec, {1, 2, 4, 8, 16, 32, 64});
    predicted = static_cast<int>(prediction.size());
    store->Ingest(RunInfo{"predict", "", "", "", "", "predict"}, prediction);
    const std::string html = (dir / "report.html").string();
    ASSERT_EQ(WriteReport(*store, {}, html, ReportOptions{}), measured + predicted);
  }
  // `timeout` bounds a browser that never returns; a profile folder of our own keeps it off $HOME.
  const ProcessResult r = RunCapture({"timeout", "120", chromium, "--headless", "--disable-gpu", "--no-sandbox",
                                      "--user-data-dir=" + (dir / "profile").string(), "--dump-dom",
                                      "file://" + (dir / "report.html").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string& dom = r.out;
  EXPECT_EQ(test::Occurrences(dom, "<svg id=\"chart-"), 2u) << dom.substr(0, 2000);
  EXPECT_EQ(test::Occurrences(dom, "class=\"pt measured"), 2u * static_cast<std::size_t>(measured));
  EXPECT_EQ(test::Occurrences(dom, "class=\"pt predicted"), 2u * static_cast<std::size_t>(predicted));
  EXPECT_EQ(test::Occurrences(dom, "class=\"legend-item\""), 4u);
  EXPECT_EQ(test::Occurrences(dom, "<path class=\"frontier"), 4u);
  EXPECT_NE(dom.find("de-scaled ×10"), std::string::npos);
  EXPECT_EQ(test::Occurrences(dom, "<tr class=\"measured"), static_cast<std::size_t>(measured));
  fs::remove_all(dir);
}

// Chromium's DOM of `html`, or a skip reason.
std::string RenderedDom(const fs::path& dir, const fs::path& html, std::string& skip) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) {
    skip =
        "chromium is not installed (apt-get install chromium, as scripts/setup.sh does; or set "
        "INFERMARK_CHROMIUM): the report was not rendered in a browser";
    return "";
  }
  fs::create_directories(dir / "profile");
  const ProcessResult r =
      RunCapture({"timeout", "120", chromium, "--headless", "--disable-gpu", "--no-sandbox",
                  "--user-data-dir=" + (dir / "profile").string(), "--dump-dom", "file://" + html.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

TEST(ChromiumReport, TheDemosReportPairsItsSweepWithItsPredictionAndMarksTails) {
  const fs::path dir = fs::temp_directory_path() / ("infermark_chromium_demo_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string db = (dir / "r.db").string();
  const fs::path html = dir / "report.html";
  {
    auto store = OpenStore(db);
    // As the demo stores them: the prediction of the founding recipe's rows, the measured sweep of
    // the same rows (time-scaled, each point with its host error), then a prediction of other rows.
    sample::SampleSpec predicted;
    predicted.tp = 4;
    predicted.kind = PointKind::kPredicted;
    store->Ingest(RunInfo{"predict", "", "", "", "", "predict"}, sample::SampleCurve(predicted, {1, 4, 16, 64}));
    sample::SampleSpec measured;
    measured.tp = 4;
    measured.time_scale = 10;
    std::vector<Point> sweep = sample::SampleCurve(measured, {1, 4, 16, 64});
    for (Point& p : sweep) {
      p.provenance.verdict = "VALID";
      p.provenance.host_error =
          Json::parse(R"({"kind": "exact", "figures": {"median_ttft_ms": {"abs": 0.01, "rel": 0.004},
          "total_token_throughput": {"abs": -2.0, "rel": -0.0003}}, "marks": []})");
    }
    // conc 16: its p99 ITL moved 7.2 % by the host, a tail mark; conc 64: its median TTFT moved,
    // INVALID, with the long reason the verdict writes.
    sweep[2].provenance.host_error["marks"] = Json::parse(
        R"json([{"key": "p99_itl_ms", "abs": 0.21, "rel": 0.072, "headline": false,
                 "cause": "engine host (engine passes late, p99 2.100 ms)"}])json");
    sweep[3].provenance.verdict =
        "INVALID: host error: median TTFT +3.21 % (+0.152) against its ideal 4.73, over the 1.00 % tolerance: the "
        "engine's host and the transport +3.10 %, the client's sending +0.11 % (engine passes late, p99 2.000 ms)";
    store->Ingest(RunInfo{"sweep", "", "", "", "", "sweep"}, sweep);
    sample::SampleSpec other;
    other.hw = "mi300x";
    other.kind = PointKind::kPredicted;
    store->Ingest(RunInfo{"predict-other", "", "", "", "", "predict"}, sample::SampleCurve(other, {2, 8}));
    ASSERT_EQ(WriteReport(*store, {}, html.string(), ReportOptions{}), 8);
  }
  std::string skip;
  const std::string dom = RenderedDom(dir, html, skip);
  if (!skip.empty()) GTEST_SKIP() << skip;
  // The sweep and its own prediction, side by side; the later prediction of other rows left out.
  EXPECT_EQ(test::Occurrences(dom, "class=\"pt measured"), 2u * 4u) << dom.substr(0, 2000);
  EXPECT_EQ(test::Occurrences(dom, "class=\"pt predicted"), 2u * 4u);
  EXPECT_EQ(dom.find("mi300x"), std::string::npos);
  // The tail the host moved is marked on its row; the INVALID point's verdict reads short, its
  // whole reason one click away.
  EXPECT_EQ(test::Occurrences(dom, "tails marked: p99_itl +7.20 %"), 1u);
  EXPECT_NE(dom.find("<summary>INVALID: host error: median TTFT +3.21 %</summary>"), std::string::npos);
  EXPECT_NE(dom.find("engine passes late, p99 2.000 ms"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace infermark::results
