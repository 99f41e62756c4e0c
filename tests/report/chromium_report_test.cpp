// The report as a browser sees it: headless Chromium loads the file and dumps the DOM it built,
// which must hold every chart and every point (a malformed document would lose elements).
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

}  // namespace
}  // namespace infermark::results
