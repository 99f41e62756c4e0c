// The report draws a predicted frontier inside its model-error band (a shaded polygon through its
// points' optimistic and pessimistic corners), lists each predicted point's band, explains the band
// once, and draws none for a measured frontier or a prediction without bands.
#include <gtest/gtest.h>

#include <cstdio>
#include <regex>

#include "report/report.hpp"
#include "results/sample_points.hpp"

namespace infermark::results {
namespace {

ReportRun BandRun(std::int64_t id, const std::string& key, std::vector<Point> points) {
  ReportRun r;
  r.run.id = id;
  r.run.info.run_key = key;
  r.run.info.label = key;
  r.run.points = static_cast<int>(points.size());
  for (const Point& p : points) r.run.predicted_points += p.provenance.kind == PointKind::kPredicted ? 1 : 0;
  r.points = std::move(points);
  return r;
}

// The corners of the band polygons drawn in `html` (SVG user units), one list per polygon.
std::vector<std::vector<std::pair<double, double>>> BandPolygons(const std::string& html) {
  std::vector<std::vector<std::pair<double, double>>> out;
  const std::regex path(R"re(<path class="band"[^>]* d="([^"]*)Z")re");
  const std::regex corner(R"(([ML])([-\d.]+) ([-\d.]+))");
  const std::sregex_iterator end;
  for (std::sregex_iterator it(html.begin(), html.end(), path); it != end; ++it) {
    const std::string d = (*it)[1].str();
    std::vector<std::pair<double, double>> points;
    for (std::sregex_iterator c(d.begin(), d.end(), corner); c != end; ++c)
      points.emplace_back(std::stod((*c)[2].str()), std::stod((*c)[3].str()));
    out.push_back(std::move(points));
  }
  return out;
}

TEST(PredictionBandReport, APredictedFrontierIsDrawnInItsBand) {
  sample::SampleSpec measured_spec;
  sample::SampleSpec predicted_spec;
  predicted_spec.kind = PointKind::kPredicted;
  std::vector<Point> predicted;
  for (Point& p : sample::SampleCurve(predicted_spec, {1, 4, 16, 64}))
    predicted.push_back(sample::WithPredictionBand(p));
  const std::string html = RenderReport(
      {BandRun(1, "measured", sample::SampleCurve(measured_spec, {1, 4, 16, 64})), BandRun(2, "predicted", predicted)},
      ReportOptions{});
  // One band per chart of the scenario (interactivity and latency), none for the measured curve.
  const auto polygons = BandPolygons(html);
  ASSERT_EQ(polygons.size(), 2u);
  for (const auto& polygon : polygons) {
    // Four frontier points: four optimistic corners out, four pessimistic ones back.
    ASSERT_EQ(polygon.size(), 8u);
    // SVG y grows downwards: every optimistic corner (more throughput) lies above its pessimistic one.
    for (std::size_t i = 0; i < 4; ++i) EXPECT_LT(polygon[i].second, polygon[7 - i].second) << i;
  }
  EXPECT_NE(html.find("Model-error band p10–p90"), std::string::npos);
  EXPECT_NE(html.find("class=\"note band-note\""), std::string::npos);
  // The table's band columns: the conc 4 point's throughput ±10 %.
  const double tput = predicted[1].agg["tput_per_gpu"].get<double>();
  char cell[64];
  std::snprintf(cell, sizeof cell, "<td class=\"band\">%.1f–%.1f</td>", 0.9 * tput, 1.1 * tput);
  EXPECT_NE(html.find(cell), std::string::npos) << cell;
}

TEST(PredictionBandReport, APredictionWithoutBandsGetsNone) {
  sample::SampleSpec predicted_spec;
  predicted_spec.kind = PointKind::kPredicted;
  const std::string html =
      RenderReport({BandRun(1, "predicted", sample::SampleCurve(predicted_spec, {1, 4, 16}))}, ReportOptions{});
  EXPECT_TRUE(BandPolygons(html).empty());
  EXPECT_EQ(html.find("band-note"), std::string::npos);
  EXPECT_EQ(html.find("band p10–p90"), std::string::npos);
}

}  // namespace
}  // namespace infermark::results
