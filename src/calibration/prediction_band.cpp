#include "calibration/prediction_band.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <regex>

#include "core/diagnostic.hpp"
#include "core/field_reader.hpp"
#include "core/yaml_node.hpp"
#include "perfmodel/engine_data.hpp"

namespace infermark::calibration {
namespace {

constexpr const char* kFamilyNames[] = {"throughput", "interactivity", "latency"};

// One `{p10: …, p90: …}` mapping of log residuals: finite, p10 <= p90.
ResidualQuantiles ReadQuantiles(FieldReader& parent, const char* key) {
  ResidualQuantiles q;
  const YamlNode* node = parent.Mapping(key, Need::kRequired);
  if (node == nullptr) return q;
  FieldReader r(parent.context(), *node, parent.PathOf(key));
  const std::optional<double> p10 = r.Float("p10", Need::kRequired);
  const std::optional<double> p90 = r.Float("p90", Need::kRequired);
  r.RejectUnknown();
  if (!p10 || !p90) return q;
  if (!std::isfinite(*p10) || !std::isfinite(*p90) || *p10 > *p90) {
    r.context().Report(node, parent.PathOf(key), "p10 and p90 must be finite with p10 <= p90 (ln measured/predicted)");
    return q;
  }
  q.p10 = *p10;
  q.p90 = *p90;
  return q;
}

// The residual count and the three families' quantiles of one group mapping.
void ReadGroupFigures(FieldReader& r, BandGroup& g) {
  g.residuals = static_cast<std::size_t>(r.Int("residuals", Need::kRequired, 1).value_or(0));
  for (std::size_t i = 0; i < std::size(kBandFamilies); ++i) g.Of(kBandFamilies[i]) = ReadQuantiles(r, kFamilyNames[i]);
}

std::string FormatGroupFigures(const BandGroup& g, const char* indent) {
  std::string out = std::string(indent) + "residuals: " + std::to_string(g.residuals) + "\n";
  for (std::size_t i = 0; i < std::size(kBandFamilies); ++i) {
    const ResidualQuantiles& q = g.Of(kBandFamilies[i]);
    char line[160];
    std::snprintf(line, sizeof line, "%s%s: {p10: %.6f, p90: %.6f}\n", indent, kFamilyNames[i], q.p10, q.p90);
    out += line;
  }
  return out;
}

}  // namespace

const ResidualQuantiles& BandGroup::Of(BandFamily family) const {
  switch (family) {
    case BandFamily::kThroughput:
      return throughput;
    case BandFamily::kInteractivity:
      return interactivity;
    case BandFamily::kLatency:
      break;
  }
  return latency;
}

ResidualQuantiles& BandGroup::Of(BandFamily family) {
  return const_cast<ResidualQuantiles&>(static_cast<const BandGroup&>(*this).Of(family));
}

std::string BandGroup::Scope() const {
  return framework.empty() ? "pooled" : framework + "/" + vendor;
}

const BandGroup& PredictionBands::For(const std::string& framework, const std::string& vendor) const {
  for (const BandGroup& g : groups) {
    if (g.framework == framework && g.vendor == vendor) return g;
  }
  return pooled;
}

Band BandOf(double value, const ResidualQuantiles& q, bool reciprocal) {
  // measured/predicted = e^r, so the measurement of a reciprocal figure is predicted·e^−r.
  if (reciprocal) return Band{value * std::exp(-q.p90), value * std::exp(-q.p10)};
  return Band{value * std::exp(q.p10), value * std::exp(q.p90)};
}

std::optional<KeyFamily> FamilyOfResultKey(std::string_view key) {
  // A level of the distribution (mean, median, a percentile), never its spread (std).
  static const std::regex level(R"((mean|median|p\d+(\.\d+)?)_(ttft_ms|e2el_ms|tpot_ms|itl_ms|intvty))");
  static const std::regex throughput(R"([a-z_]*throughput)");
  const std::string k(key);
  if (std::regex_match(k, throughput)) return KeyFamily{BandFamily::kThroughput, false};
  std::smatch m;
  if (!std::regex_match(k, m, level)) return std::nullopt;
  const std::string what = m[3].str();
  if (what == "ttft_ms" || what == "e2el_ms") return KeyFamily{BandFamily::kLatency, false};
  if (what == "intvty") return KeyFamily{BandFamily::kInteractivity, false};
  return KeyFamily{BandFamily::kInteractivity, true};
}

Json ResultBandJson(const Json& result, const BandGroup& group) {
  Json quantiles = Json::object();
  for (std::size_t i = 0; i < std::size(kBandFamilies); ++i) {
    const ResidualQuantiles& q = group.Of(kBandFamilies[i]);
    quantiles[kFamilyNames[i]] = Json{{"p10", q.p10}, {"p90", q.p90}};
  }
  Json figures = Json::object();
  if (result.is_object()) {
    for (auto it = result.begin(); it != result.end(); ++it) {
      // A figure the run did not record (ITL without chunk times) reads 0: it has no band.
      if (!it->is_number() || !(it->get<double>() > 0)) continue;
      const std::optional<KeyFamily> f = FamilyOfResultKey(it.key());
      if (!f) continue;
      const Band b = BandOf(it->get<double>(), group.Of(f->family), f->reciprocal);
      figures[it.key()] = Json{{"band_p10", b.p10}, {"band_p90", b.p90}};
    }
  }
  return Json{{"scope", group.Scope()},
              {"residuals", group.residuals},
              {"quantiles", std::move(quantiles)},
              {"figures", std::move(figures)}};
}

PredictionBands LoadPredictionBands(const std::string& path) {
  const YamlDocument doc = LoadYamlFile(path);
  std::vector<Diagnostic> problems;
  ReadContext ctx{&doc.file, "", &problems};
  FieldReader r(ctx, doc.root, "");
  PredictionBands bands;
  bands.path = path;
  bands.min_residuals = static_cast<std::size_t>(r.Int("min_residuals", Need::kRequired, 1).value_or(0));
  if (const YamlNode* pooled = r.Mapping("pooled", Need::kRequired)) {
    FieldReader p(ctx, *pooled, "pooled");
    ReadGroupFigures(p, bands.pooled);
    p.RejectUnknown();
  }
  if (const YamlNode* groups = r.List("groups", Need::kDefaulted)) {
    for (std::size_t i = 0; i < groups->items.size(); ++i) {
      const std::string at = "groups[" + std::to_string(i) + "]";
      FieldReader g(ctx, groups->items[i], at);
      BandGroup group;
      group.framework = g.String("framework", Need::kRequired, 1).value_or("");
      group.vendor = g.String("vendor", Need::kRequired, 1).value_or("");
      ReadGroupFigures(g, group);
      g.RejectUnknown();
      if (group.residuals != 0 && group.residuals < bands.min_residuals)
        ctx.Report(&groups->items[i], at + ".residuals",
                   "fewer than min_residuals: such a group takes the pooled band");
      for (const BandGroup& other : bands.groups) {
        if (other.framework == group.framework && other.vendor == group.vendor)
          ctx.Report(&groups->items[i], at, "a second group for " + group.Scope());
      }
      bands.groups.push_back(std::move(group));
    }
  }
  r.RejectUnknown();
  if (!problems.empty()) throw InputError(problems);
  return bands;
}

std::string FormatPredictionBands(const PredictionBands& bands, const std::vector<std::string>& comment) {
  std::string out;
  for (const std::string& line : comment) out += "# " + line + "\n";
  out +=
      "min_residuals: " + std::to_string(bands.min_residuals) + "\npooled:\n" + FormatGroupFigures(bands.pooled, "  ");
  out += bands.groups.empty() ? "groups: []\n" : "groups:\n";
  for (const BandGroup& g : bands.groups) {
    out += "  - framework: " + g.framework + "\n    vendor: " + g.vendor + "\n" + FormatGroupFigures(g, "    ");
  }
  return out;
}

std::string PredictionBandsPath(const std::string& data_dir) {
  return (std::filesystem::path(data_dir) / "bands" / kPredictionBandsFile).string();
}

const PredictionBands& DefaultPredictionBands() {
  static const PredictionBands bands = [] {
    const std::string path = PredictionBandsPath(perfmodel::EngineDataDir());
    std::error_code ec;
    return std::filesystem::exists(path, ec) ? LoadPredictionBands(path) : PredictionBands{};
  }();
  return bands;
}

}  // namespace infermark::calibration
