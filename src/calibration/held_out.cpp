#include "calibration/held_out.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "core/csv_line.hpp"
#include "core/diagnostic.hpp"
#include "core/file_io.hpp"
#include "core/numpy_stats.hpp"

namespace infermark::calibration {
namespace {

constexpr const char* kHeader =
    "protocol,fold,model,hw_key,framework,vendor,precision,isl,osl,tp,conc,meas_tput,pred_tput,meas_intvty,"
    "pred_intvty,meas_e2el,pred_e2el";

// A fold's description as one CSV cell: its commas become semicolons, so the file needs no quoting.
std::string FoldCell(std::string text) {
  std::replace(text.begin(), text.end(), ',', ';');
  return text;
}

InputError HeldOutRowError(const std::string& path, int line, const std::string& column, const std::string& rule) {
  return InputError(Diagnostic{SourceMark{path, line, 1}, "", column, rule});
}

}  // namespace

void AppendHeldOut(std::vector<HeldOutPrediction>& out, const char* protocol, const Calibrator& c,
                   const std::vector<Fold>& folds) {
  for (const Fold& f : folds) {
    for (const PointError& e : f.errors) {
      const MeasuredPoint& p = c.points()[e.index];
      HeldOutPrediction h;
      h.protocol = protocol;
      h.fold = f.description;
      h.model = p.model;
      h.hw_key = p.hw_key;
      h.framework = p.framework;
      h.vendor = c.data().FindHardware(p.hardware).vendor;
      h.precision = p.precision;
      h.isl = p.isl;
      h.osl = p.osl;
      h.tp = p.tp;
      h.conc = p.conc;
      h.meas_tput = p.tput_per_gpu;
      h.pred_tput = e.pred_tput;
      h.meas_intvty = p.intvty;
      h.pred_intvty = e.pred_intvty;
      h.meas_e2el = p.e2el;
      h.pred_e2el = e.pred_e2el;
      out.push_back(std::move(h));
    }
  }
}

double HeldOutPrediction::Residual(BandFamily family) const {
  switch (family) {
    case BandFamily::kThroughput:
      return std::log(meas_tput / pred_tput);
    case BandFamily::kInteractivity:
      return std::log(meas_intvty / pred_intvty);
    case BandFamily::kLatency:
      break;
  }
  return std::log(meas_e2el / pred_e2el);
}

std::string HeldOutCsv(const std::vector<HeldOutPrediction>& predictions) {
  std::string csv = std::string(kHeader) + "\n";
  // Ten significant digits: the residuals read back agree with the ones the bands were built from
  // far inside the bands file's six decimals.
  for (const HeldOutPrediction& h : predictions) {
    char numbers[256];
    std::snprintf(numbers, sizeof numbers, "%d,%d,%d,%d,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g", h.isl, h.osl, h.tp,
                  h.conc, h.meas_tput, h.pred_tput, h.meas_intvty, h.pred_intvty, h.meas_e2el, h.pred_e2el);
    csv += h.protocol + "," + FoldCell(h.fold) + "," + h.model + "," + h.hw_key + "," + h.framework + "," + h.vendor +
           "," + h.precision + "," + numbers + "\n";
  }
  return csv;
}

std::vector<HeldOutPrediction> LoadHeldOutCsv(const std::string& path) {
  std::stringstream in(ReadFile(path));
  std::vector<std::string> columns;
  std::vector<HeldOutPrediction> out;
  int line = 0;
  for (std::string text; std::getline(in, text);) {
    ++line;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.empty()) continue;
    std::vector<std::string> cells = SplitCsvLine(text);
    if (columns.empty()) {
      columns = cells;
      if (text != kHeader) throw HeldOutRowError(path, line, "", std::string("the header must be ") + kHeader);
      continue;
    }
    if (cells.size() != columns.size())
      throw HeldOutRowError(
          path, line, "", "expected " + std::to_string(columns.size()) + " cells, got " + std::to_string(cells.size()));
    std::size_t at = 0;
    auto text_cell = [&] { return cells[at++]; };
    auto number = [&](bool positive) {
      const std::string& column = columns[at];
      const std::string& s = cells[at++];
      try {
        std::size_t used = 0;
        const double v = std::stod(s, &used);
        if (used == s.size() && std::isfinite(v) && (!positive || v > 0)) return v;
      } catch (const std::exception&) {
      }
      throw HeldOutRowError(path, line, column,
                            positive ? "must be a number > 0, got '" + s + "'" : "not a number: '" + s + "'");
    };
    HeldOutPrediction h;
    h.line = line;
    h.protocol = text_cell();
    if (h.protocol != "a" && h.protocol != "b" && h.protocol != "c")
      throw HeldOutRowError(path, line, "protocol", "must be a, b or c, got '" + h.protocol + "'");
    h.fold = text_cell();
    h.model = text_cell();
    h.hw_key = text_cell();
    h.framework = text_cell();
    h.vendor = text_cell();
    h.precision = text_cell();
    h.isl = static_cast<int>(number(true));
    h.osl = static_cast<int>(number(true));
    h.tp = static_cast<int>(number(true));
    h.conc = static_cast<int>(number(true));
    h.meas_tput = number(true);
    h.pred_tput = number(true);
    h.meas_intvty = number(true);
    h.pred_intvty = number(true);
    h.meas_e2el = number(true);
    h.pred_e2el = number(true);
    out.push_back(std::move(h));
  }
  if (columns.empty()) throw HeldOutRowError(path, 1, "", "empty: a held-out CSV starts with its header");
  return out;
}

PredictionBands BuildPredictionBands(const std::vector<HeldOutPrediction>& predictions, std::size_t min_residuals) {
  std::map<std::pair<std::string, std::string>, std::vector<const HeldOutPrediction*>> by_group;
  std::vector<const HeldOutPrediction*> all;
  for (const HeldOutPrediction& h : predictions) {
    if (std::string_view(kBandProtocols).find(h.protocol) == std::string_view::npos) continue;
    by_group[{h.framework, h.vendor}].push_back(&h);
    all.push_back(&h);
  }
  auto group_of = [](const std::vector<const HeldOutPrediction*>& members) {
    BandGroup g;
    g.residuals = members.size();
    for (const BandFamily family : kBandFamilies) {
      std::vector<double> r;
      r.reserve(members.size());
      for (const HeldOutPrediction* h : members) r.push_back(h->Residual(family));
      if (!r.empty()) g.Of(family) = ResidualQuantiles{NumpyPercentile(r, 10), NumpyPercentile(r, 90)};
    }
    return g;
  };
  PredictionBands bands;
  bands.min_residuals = min_residuals;
  bands.pooled = group_of(all);
  for (const auto& [key, members] : by_group) {
    if (members.size() < min_residuals) continue;
    BandGroup g = group_of(members);
    g.framework = key.first;
    g.vendor = key.second;
    bands.groups.push_back(std::move(g));
  }
  return bands;
}

}  // namespace infermark::calibration
