#include "report/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "report/nice_axis.hpp"

namespace infermark::results {
namespace {

// Layout in SVG user units; the element scales to its container.
constexpr double kWidth = 760;
constexpr double kHeight = 470;
constexpr double kLeft = 78;
constexpr double kRight = 235;  // legend column
constexpr double kTop = 44;
constexpr double kBottom = 58;

std::string Num(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", v);
  return text;
}

std::string Diamond(double cx, double cy, double r) {
  return "M" + Num(cx) + " " + Num(cy - r) + "L" + Num(cx + r) + " " + Num(cy) + "L" + Num(cx) + " " + Num(cy + r) +
         "L" + Num(cx - r) + " " + Num(cy) + "Z";
}

}  // namespace

std::string EscapeXml(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string RenderSvgChart(const ChartSpec& spec) {
  double x_hi = 0, y_hi = 0;
  for (const auto& s : spec.series) {
    for (const auto& p : s.points) {
      x_hi = std::max(x_hi, p.x_interval ? std::max(p.x, p.x_interval->second) : p.x);
      y_hi = std::max(y_hi, p.y_interval ? std::max(p.y, p.y_interval->second) : p.y);
    }
    for (const auto& b : s.band) y_hi = std::max(y_hi, b.high);
    for (const auto& [x, y] : s.model_band) {
      x_hi = std::max(x_hi, x);
      y_hi = std::max(y_hi, y);
    }
  }
  const NiceAxis xa = MakeNiceAxis(0, x_hi * 1.03, 7);
  const NiceAxis ya = MakeNiceAxis(0, y_hi * 1.03, 6);
  const double plot_w = kWidth - kLeft - kRight;
  const double plot_h = kHeight - kTop - kBottom;
  const auto sx = [&](double x) { return kLeft + (x - xa.min) / (xa.max - xa.min) * plot_w; };
  const auto sy = [&](double y) { return kTop + plot_h - (y - ya.min) / (ya.max - ya.min) * plot_h; };

  std::string svg;
  svg += "<svg id=\"" + EscapeXml(spec.id) + "\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " +
         Num(kWidth) + " " + Num(kHeight) + "\" role=\"img\" aria-label=\"" + EscapeXml(spec.title) + "\">\n";
  svg += "<title>" + EscapeXml(spec.title) + "</title>\n";
  svg += "<text class=\"chart-title\" x=\"" + Num(kLeft) + "\" y=\"24\">" + EscapeXml(spec.title) + "</text>\n";
  svg += "<rect class=\"plot-bg\" x=\"" + Num(kLeft) + "\" y=\"" + Num(kTop) + "\" width=\"" + Num(plot_w) +
         "\" height=\"" + Num(plot_h) + "\"/>\n";
  // Grid and ticks.
  svg += "<g class=\"axis x-axis\">\n";
  for (double t : xa.ticks) {
    const double x = sx(t);
    svg += "<line class=\"grid\" x1=\"" + Num(x) + "\" y1=\"" + Num(kTop) + "\" x2=\"" + Num(x) + "\" y2=\"" +
           Num(kTop + plot_h) + "\"/>";
    svg += "<text class=\"tick\" x=\"" + Num(x) + "\" y=\"" + Num(kTop + plot_h + 18) + "\" text-anchor=\"middle\">" +
           FormatTick(t, xa.step) + "</text>\n";
  }
  svg += "<text class=\"axis-label\" x=\"" + Num(kLeft + plot_w / 2) + "\" y=\"" + Num(kHeight - 14) +
         "\" text-anchor=\"middle\">" + EscapeXml(spec.x_label) + "</text>\n</g>\n";
  svg += "<g class=\"axis y-axis\">\n";
  for (double t : ya.ticks) {
    const double y = sy(t);
    svg += "<line class=\"grid\" x1=\"" + Num(kLeft) + "\" y1=\"" + Num(y) + "\" x2=\"" + Num(kLeft + plot_w) +
           "\" y2=\"" + Num(y) + "\"/>";
    svg += "<text class=\"tick\" x=\"" + Num(kLeft - 8) + "\" y=\"" + Num(y + 4) + "\" text-anchor=\"end\">" +
           FormatTick(t, ya.step) + "</text>\n";
  }
  svg += "<text class=\"axis-label\" transform=\"translate(18 " + Num(kTop + plot_h / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">" + EscapeXml(spec.y_label) + "</text>\n</g>\n";
  svg += "<rect class=\"frame\" x=\"" + Num(kLeft) + "\" y=\"" + Num(kTop) + "\" width=\"" + Num(plot_w) +
         "\" height=\"" + Num(plot_h) + "\"/>\n";

  // Bands under everything: each frontier's spread over its points' repeats.
  for (std::size_t i = 0; i < spec.series.size(); ++i) {
    const ChartSeries& s = spec.series[i];
    if (s.band.size() < 2) continue;
    std::string d;
    for (const BandSample& b : s.band) d += (d.empty() ? "M" : "L") + Num(sx(b.x)) + " " + Num(sy(b.high));
    for (auto b = s.band.rbegin(); b != s.band.rend(); ++b) d += "L" + Num(sx(b->x)) + " " + Num(sy(b->low));
    svg += "<path class=\"frontier-band\" data-series=\"" + std::to_string(i) + "\" d=\"" + d + "Z\" fill=\"" +
           s.color + "\"><title>Frontier band over the repeats (95 % interval of the median): " + EscapeXml(s.label) +
           "</title></path>\n";
  }
  // Model-error bands under the frontiers and markers.
  for (std::size_t i = 0; i < spec.series.size(); ++i) {
    const ChartSeries& s = spec.series[i];
    if (s.model_band.size() < 3) continue;
    std::string d;
    for (const auto& [x, y] : s.model_band) d += (d.empty() ? "M" : "L") + Num(sx(x)) + " " + Num(sy(y));
    svg += "<path class=\"band\" data-series=\"" + std::to_string(i) + "\" d=\"" + d + "Z\" fill=\"" + s.color +
           "\"><title>" + EscapeXml(s.model_band_title) + ": " + EscapeXml(s.label) + "</title></path>\n";
  }
  // Frontiers under the markers, so every marker stays hoverable.
  for (std::size_t i = 0; i < spec.series.size(); ++i) {
    const ChartSeries& s = spec.series[i];
    if (s.frontier.size() < 2) continue;
    std::string d;
    for (const auto& [x, y] : s.frontier) d += (d.empty() ? "M" : "L") + Num(sx(x)) + " " + Num(sy(y));
    svg += "<path class=\"frontier" + std::string(s.predicted ? " predicted" : " measured") +
           (s.dashed ? " dashed" : "") + (s.halo ? " offload" : "") + "\" data-series=\"" + std::to_string(i) +
           "\" d=\"" + d + "\" stroke=\"" + s.color + "\"><title>" + EscapeXml(s.line_title) + ": " +
           EscapeXml(s.label) + "</title></path>\n";
  }
  // Frontier names at their highest-throughput end, turned inwards so they stay inside the plot.
  for (const ChartSeries& s : spec.series) {
    if (s.tag.empty() || s.frontier.empty()) continue;
    const auto top = std::max_element(s.frontier.begin(), s.frontier.end(),
                                      [](const auto& a, const auto& b) { return a.second < b.second; });
    const double x = sx(top->first);
    const bool left_half = x < kLeft + plot_w / 2;
    svg += "<text class=\"frontier-label\" x=\"" + Num(x + (left_half ? 9 : -9)) + "\" y=\"" +
           Num(std::max(kTop + 12, sy(top->second) - 7)) + "\" text-anchor=\"" + (left_half ? "start" : "end") +
           "\" fill=\"" + s.color + "\">" + EscapeXml(s.tag) + "</text>\n";
  }
  for (std::size_t i = 0; i < spec.series.size(); ++i) {
    const ChartSeries& s = spec.series[i];
    svg += "<g class=\"series\" data-series=\"" + std::to_string(i) + "\" data-label=\"" + EscapeXml(s.label) + "\">\n";
    for (const ChartDatum& p : s.points) {
      const double cx = sx(p.x);
      const double cy = sy(p.y);
      // Error bars under the marker: the median's interval on each axis, with caps.
      if (p.y_interval) {
        const double top = sy(p.y_interval->second);
        const double bottom = sy(p.y_interval->first);
        svg += "<path class=\"error-bar y\" d=\"M" + Num(cx) + " " + Num(top) + "V" + Num(bottom) + "M" + Num(cx - 3) +
               " " + Num(top) + "H" + Num(cx + 3) + "M" + Num(cx - 3) + " " + Num(bottom) + "H" + Num(cx + 3) +
               "\" stroke=\"" + s.color + "\"/>";
      }
      if (p.x_interval) {
        const double left = sx(p.x_interval->first);
        const double right = sx(p.x_interval->second);
        svg += "<path class=\"error-bar x\" d=\"M" + Num(left) + " " + Num(cy) + "H" + Num(right) + "M" + Num(left) +
               " " + Num(cy - 3) + "V" + Num(cy + 3) + "M" + Num(right) + " " + Num(cy - 3) + "V" + Num(cy + 3) +
               "\" stroke=\"" + s.color + "\"/>";
      }
      const std::string data = "\" data-x=\"" + Num(p.x) + "\" data-y=\"" + Num(p.y) + "\"";
      if (s.halo) {
        svg += "<circle class=\"halo\" cx=\"" + Num(cx) + "\" cy=\"" + Num(cy) + "\" r=\"" +
               (p.on_front ? "10" : "8.5") + "\" fill=\"" + s.color + "\" stroke=\"" + s.color + "\"/>";
      }
      if (s.predicted) {
        svg += "<path class=\"pt predicted" + std::string(p.on_front ? " front" : "") +
               std::string(p.invalid ? " invalid" : "") + data + " d=\"" + Diamond(cx, cy, p.on_front ? 6.5 : 5.5) +
               "\" stroke=\"" + s.color + "\">";
      } else {
        svg += "<circle class=\"pt measured" + std::string(p.on_front ? " front" : "") +
               std::string(p.invalid ? " invalid" : "") + data + " cx=\"" + Num(cx) + "\" cy=\"" + Num(cy) + "\" r=\"" +
               (p.on_front ? "5" : "3.8") + "\" fill=\"" + s.color + "\">";
      }
      svg += "<title>" + EscapeXml(p.title) + "</title>";
      svg += s.predicted ? "</path>\n" : "</circle>\n";
    }
    svg += "</g>\n";
  }

  // Legend: one row per series, marker and line style as drawn.
  const double lx = kLeft + plot_w + 18;
  double ly = kTop + 6;
  svg += "<g class=\"legend\">\n";
  for (std::size_t i = 0; i < spec.series.size(); ++i) {
    const ChartSeries& s = spec.series[i];
    svg += "<g class=\"legend-item\" data-series=\"" + std::to_string(i) + "\">";
    svg += "<line class=\"frontier" + std::string(s.predicted ? " predicted" : " measured") +
           (s.dashed ? " dashed" : "") + "\" x1=\"" + Num(lx) + "\" y1=\"" + Num(ly) + "\" x2=\"" + Num(lx + 26) +
           "\" y2=\"" + Num(ly) + "\" stroke=\"" + s.color + "\"/>";
    if (s.halo) {
      svg += "<circle class=\"halo\" cx=\"" + Num(lx + 13) + "\" cy=\"" + Num(ly) + "\" r=\"8\" fill=\"" + s.color +
             "\" stroke=\"" + s.color + "\"/>";
    }
    if (s.predicted) {
      svg += "<path class=\"legend-marker predicted\" d=\"" + Diamond(lx + 13, ly, 5.5) + "\" stroke=\"" + s.color +
             "\"/>";
    } else {
      svg += "<circle class=\"legend-marker measured\" cx=\"" + Num(lx + 13) + "\" cy=\"" + Num(ly) +
             "\" r=\"4.5\" fill=\"" + s.color + "\"/>";
    }
    // Long labels wrap at spaces onto lines of about 26 characters (a longer word keeps a line
    // of its own), so two series that differ only at their end stay apart.
    std::vector<std::string> lines;
    for (std::size_t at = 0; at <= s.label.size();) {
      std::size_t end = s.label.find(' ', at);
      if (end == std::string::npos) end = s.label.size();
      const std::string word = s.label.substr(at, end - at);
      if (!lines.empty() && lines.back().size() + 1 + word.size() <= 26) {
        lines.back() += " " + word;
      } else {
        lines.push_back(word);
      }
      at = end + 1;
    }
    svg += "<text class=\"legend-label\" x=\"" + Num(lx + 34) + "\" y=\"" + Num(ly + 4) + "\">" + EscapeXml(lines[0]);
    for (std::size_t l = 1; l < lines.size(); ++l) {
      svg += "<tspan x=\"" + Num(lx + 34) + "\" dy=\"14\">" + EscapeXml(lines[l]) + "</tspan>";
    }
    svg += "</text></g>\n";
    ly += 22 + 14 * static_cast<double>(lines.size() - 1);
  }
  svg += "</g>\n</svg>\n";
  return svg;
}

}  // namespace infermark::results
