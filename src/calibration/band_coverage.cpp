#include "calibration/band_coverage.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace infermark::calibration {
namespace {

// Counts of measurements inside their band, per family, and the band scopes used.
struct Tally {
  std::size_t points = 0;
  std::size_t inside[3] = {0, 0, 0};
  std::set<std::string> bands;

  void Add(const HeldOutPrediction& h, const BandGroup& group) {
    ++points;
    for (std::size_t i = 0; i < std::size(kBandFamilies); ++i) inside[i] += InsideBand(h, group, kBandFamilies[i]);
    bands.insert(group.Scope());
  }

  [[nodiscard]] CoverageRow Row(const std::string& scope) const {
    CoverageRow row;
    row.scope = scope;
    for (const std::string& b : bands) row.band += (row.band.empty() ? "" : "+") + b;
    row.points = points;
    const double n = points == 0 ? 1.0 : static_cast<double>(points);
    row.throughput = static_cast<double>(inside[0]) / n;
    row.interactivity = static_cast<double>(inside[1]) / n;
    row.latency = static_cast<double>(inside[2]) / n;
    return row;
  }
};

std::vector<CoverageRow> Rows(const std::map<std::string, Tally>& groups, const Tally& all) {
  std::vector<CoverageRow> rows;
  for (const auto& [scope, tally] : groups) rows.push_back(tally.Row(scope));
  rows.push_back(all.Row("all"));
  return rows;
}

bool InProtocols(const HeldOutPrediction& h, std::string_view protocols) {
  return protocols.find(h.protocol) != std::string_view::npos;
}

}  // namespace

bool InsideBand(const HeldOutPrediction& prediction, const BandGroup& group, BandFamily family) {
  // Inside [pred·e^p10, pred·e^p90] exactly when ln(meas/pred) lies in [p10, p90].
  const double r = prediction.Residual(family);
  const ResidualQuantiles& q = group.Of(family);
  return r >= q.p10 && r <= q.p90;
}

std::vector<CoverageRow> BandCoverage(const PredictionBands& bands, const std::vector<HeldOutPrediction>& predictions,
                                      std::string_view protocols) {
  std::map<std::string, Tally> groups;
  Tally all;
  for (const HeldOutPrediction& h : predictions) {
    if (!InProtocols(h, protocols)) continue;
    const BandGroup& group = bands.For(h.framework, h.vendor);
    groups[h.framework + "/" + h.vendor].Add(h, group);
    all.Add(h, group);
  }
  return Rows(groups, all);
}

std::vector<CoverageRow> LeaveKeyOutCoverage(const std::vector<HeldOutPrediction>& predictions,
                                             std::size_t min_residuals) {
  std::set<std::string> keys;
  for (const HeldOutPrediction& h : predictions) {
    if (InProtocols(h, kBandProtocols)) keys.insert(h.hw_key);
  }
  std::map<std::string, Tally> groups;
  Tally all;
  for (const std::string& key : keys) {
    std::vector<HeldOutPrediction> others;
    for (const HeldOutPrediction& h : predictions) {
      if (h.hw_key != key) others.push_back(h);
    }
    const PredictionBands bands = BuildPredictionBands(others, min_residuals);
    for (const HeldOutPrediction& h : predictions) {
      if (h.hw_key != key || !InProtocols(h, kBandProtocols)) continue;
      const BandGroup& group = bands.For(h.framework, h.vendor);
      groups[h.framework + "/" + h.vendor].Add(h, group);
      all.Add(h, group);
    }
  }
  return Rows(groups, all);
}

std::string CoverageTable(const std::vector<CoverageRow>& rows) {
  std::string out =
      "| points of | band | points | tok/s/GPU inside | interactivity inside | E2EL inside |\n"
      "|---|---|---|---|---|---|\n";
  for (const CoverageRow& r : rows) {
    char line[256];
    std::snprintf(line, sizeof line, "| %s | %s | %zu | %.1f %% | %.1f %% | %.1f %% |\n", r.scope.c_str(),
                  r.band.c_str(), r.points, r.throughput * 100, r.interactivity * 100, r.latency * 100);
    out += line;
  }
  return out;
}

std::string BandsTable(const PredictionBands& bands) {
  std::string out = "| band | residuals | tok/s/GPU | interactivity | E2EL |\n|---|---|---|---|---|\n";
  auto range = [](const ResidualQuantiles& q) {
    char text[64];
    std::snprintf(text, sizeof text, "%+.1f %% to %+.1f %%", (std::exp(q.p10) - 1) * 100, (std::exp(q.p90) - 1) * 100);
    return std::string(text);
  };
  std::vector<const BandGroup*> groups;
  for (const BandGroup& g : bands.groups) groups.push_back(&g);
  groups.push_back(&bands.pooled);
  for (const BandGroup* g : groups) {
    out += "| " + g->Scope() + " | " + std::to_string(g->residuals) + " | " + range(g->throughput) + " | " +
           range(g->interactivity) + " | " + range(g->latency) + " |\n";
  }
  return out;
}

bool SameBands(const PredictionBands& a, const PredictionBands& b, double tolerance) {
  auto same_group = [tolerance](const BandGroup& x, const BandGroup& y) {
    if (x.framework != y.framework || x.vendor != y.vendor || x.residuals != y.residuals) return false;
    for (const BandFamily f : kBandFamilies) {
      if (std::fabs(x.Of(f).p10 - y.Of(f).p10) > tolerance || std::fabs(x.Of(f).p90 - y.Of(f).p90) > tolerance)
        return false;
    }
    return true;
  };
  if (a.min_residuals != b.min_residuals || a.groups.size() != b.groups.size()) return false;
  if (!same_group(a.pooled, b.pooled)) return false;
  for (std::size_t i = 0; i < a.groups.size(); ++i) {
    if (!same_group(a.groups[i], b.groups[i])) return false;
  }
  return true;
}

}  // namespace infermark::calibration
