// A scatter chart with Pareto frontier lines as inline SVG: axes with round ticks and units, a
// legend, and a hover title on every point. Measured and predicted series use different markers;
// a series can draw its markers inside a halo and its line dotted. A point measured several times
// carries error bars (its median's interval on each axis) and a frontier a band over its repeats; a
// predicted frontier can draw a shaded model-error band around its line.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace infermark::results {

/// One marker.
struct ChartDatum {
  double x = 0;           ///< Data x.
  double y = 0;           ///< Data y.
  std::string title;      ///< Hover text (SVG <title>).
  bool on_front = false;  ///< Part of its series' frontier (drawn with a ring).
  bool invalid = false;   ///< Its run was judged INVALID (drawn faded with a red ring, never on a frontier).
  std::optional<std::pair<double, double>> x_interval{};  ///< Repeats: the x median's interval (low, high).
  std::optional<std::pair<double, double>> y_interval{};  ///< Repeats: the y median's interval (low, high).
};

/// The band around a frontier at one x: the repeats' frontiers' interval there.
struct BandSample {
  double x = 0;     ///< Data x (a frontier point's).
  double low = 0;   ///< Lower edge.
  double high = 0;  ///< Upper edge.
};

/// Points of one (run, group, kind) and their frontier.
struct ChartSeries {
  std::string label;               ///< Legend text.
  std::string color;               ///< CSS colour.
  bool predicted = false;          ///< Hollow diamonds and a dashed frontier instead of dots and a solid line.
  std::vector<ChartDatum> points;  ///< Markers.
  std::vector<std::pair<double, double>> frontier;  ///< Frontier polyline, x ascending.
  std::string tag;      ///< Short name written beside the frontier's highest-throughput end (empty: none).
  bool halo = false;    ///< Markers drawn inside a translucent halo (agentic points with KV offloading).
  bool dashed = false;  ///< The line is dotted (e.g. a theoretical figure beside a measured one).
  std::string line_title = "Pareto frontier";  ///< What the line is, in its hover title.
  std::vector<BandSample> band{};              ///< Band around the frontier, x ascending (empty: none).
  /// A shaded area drawn under the frontier (a closed polygon; empty: none): a predicted
  /// frontier's model-error band.
  std::vector<std::pair<double, double>> model_band = {};
  std::string model_band_title = {};  ///< What the area is, in its hover title.
};

/// A whole chart.
struct ChartSpec {
  std::string id;                   ///< Element id (tests and links find the chart by it).
  std::string title;                ///< Heading inside the SVG.
  std::string x_label;              ///< Axis label with unit.
  std::string y_label;              ///< Axis label with unit.
  std::vector<ChartSeries> series;  ///< Drawn in order.
};

/// The chart as one `<svg>` element (viewBox-sized, scales with its container).
std::string RenderSvgChart(const ChartSpec& spec);

/// `text` with &, <, >, " and ' escaped for HTML and SVG.
std::string EscapeXml(const std::string& text);

}  // namespace infermark::results
