#include "results/prediction_band_fields.hpp"

#include <string_view>

namespace infermark::results {
namespace {

std::optional<FigureBand> BandAt(const Json& figures, const char* key) {
  const auto it = figures.find(key);
  if (it == figures.end() || !it->is_object()) return std::nullopt;
  const auto lo = it->find("band_p10");
  const auto hi = it->find("band_p90");
  if (lo == it->end() || hi == it->end() || !lo->is_number() || !hi->is_number()) return std::nullopt;
  return FigureBand{lo->get<double>(), hi->get<double>()};
}

double NumberAt(const Json& doc, const char* key) {
  const auto it = doc.find(key);
  return it != doc.end() && it->is_number() ? it->get<double>() : 0.0;
}

Json BandJson(double lo, double hi) {
  return Json{{"band_p10", lo}, {"band_p90", hi}};
}

}  // namespace

Json AggPredictionBand(const Json& result, const Json& agg) {
  const auto block = result.find("infermark");
  if (block == result.end() || !block->is_object()) return nullptr;
  const auto band = block->find("prediction_band");
  if (band == block->end() || !band->is_object() || !band->contains("figures") || !(*band)["figures"].is_object())
    return nullptr;
  Json figures = Json::object();
  // A throughput band scales with its figure: the per-GPU figures take the ratio of the whole's.
  auto per_gpu = [&](const char* result_key, std::initializer_list<const char*> agg_keys) {
    const std::optional<FigureBand> b = BandAt((*band)["figures"], result_key);
    const double whole = NumberAt(result, result_key);
    if (!b || !(whole > 0)) return;
    for (const char* key : agg_keys) {
      const double v = NumberAt(agg, key);
      figures[key] = BandJson(v * b->band_p10 / whole, v * b->band_p90 / whole);
    }
  };
  per_gpu("total_token_throughput", {"tput_per_gpu", "input_tput_per_gpu"});
  per_gpu("output_throughput", {"output_tput_per_gpu"});
  // Milliseconds become seconds, and a TPOT band also an interactivity band (1000/TPOT, edges
  // swapped), as process_result.py turns the figures themselves.
  // (The banded keys end in their only `_ms`, and hold one `tpot` at most.)
  for (const auto& [key, value] : (*band)["figures"].items()) {
    const std::string_view k = key;
    if (k.size() < 3 || k.substr(k.size() - 3) != "_ms") continue;
    const std::optional<FigureBand> b = BandAt((*band)["figures"], key.c_str());
    if (!b) continue;
    std::string base = key.substr(0, key.size() - 3);
    figures[base] = BandJson(b->band_p10 / 1000.0, b->band_p90 / 1000.0);
    if (const std::size_t at = base.find("tpot"); at != std::string::npos && b->band_p10 > 0)
      figures[base.replace(at, 4, "intvty")] = BandJson(1000.0 / b->band_p90, 1000.0 / b->band_p10);
  }
  return Json{{"scope", band->value("scope", std::string())},
              {"residuals", band->value("residuals", std::size_t{0})},
              {"figures", std::move(figures)}};
}

BandFields BandFieldsOf(const Json& agg, double time_scale) {
  BandFields f;
  const auto band = agg.find("prediction_band");
  if (band == agg.end() || !band->is_object() || !band->contains("figures")) return f;
  const Json& figures = (*band)["figures"];
  const double s = time_scale > 0 ? time_scale : 1.0;
  auto rate = [&](const char* key) -> std::optional<FigureBand> {
    auto b = BandAt(figures, key);
    if (b) *b = FigureBand{b->band_p10 / s, b->band_p90 / s};
    return b;
  };
  auto time = [&](const char* key) -> std::optional<FigureBand> {
    auto b = BandAt(figures, key);
    if (b) *b = FigureBand{b->band_p10 * s, b->band_p90 * s};
    return b;
  };
  f.scope = band->value("scope", std::string());
  f.residuals = band->value("residuals", std::size_t{0});
  f.tput_per_gpu = rate("tput_per_gpu");
  f.output_tput_per_gpu = rate("output_tput_per_gpu");
  f.input_tput_per_gpu = rate("input_tput_per_gpu");
  f.median_intvty = rate("median_intvty");
  f.median_e2el = time("median_e2el");
  f.median_ttft = time("median_ttft");
  return f;
}

}  // namespace infermark::results
