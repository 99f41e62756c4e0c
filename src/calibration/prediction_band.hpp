// A prediction's model error as a band: the p10 and p90 of calibration's held-out residuals,
// ln(measured / predicted), per framework × vendor where enough residuals exist, else pooled over
// every held-out prediction. A predicted figure y gets [y·e^p10, y·e^p90] (a time per token, the
// reciprocal of interactivity, gets [y·e^−p90, y·e^−p10]), so that about 80 % of measurements
// like the held-out ones fall inside it. `engine calibrate` writes the bands
// (data/engine/bands/prediction_bands.yaml); `predict` reads them. These are bands of the model's
// error, never confidence intervals of repeated measurements: their keys say `band_p10` and
// `band_p90`.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json_text.hpp"

namespace infermark::calibration {

/// The fewest held-out residuals a framework × vendor group needs for bands of its own. With n
/// residuals, the band between their p10 and p90 covers a new residual of the same kind with
/// probability Beta(0.8n, 0.2n + 1): its standard deviation is 4 points at n = 100 (6 at 50), so
/// a group's own band is no noisier than the pooled one's difference from it is likely to be.
inline constexpr std::size_t kMinBandResiduals = 100;

/// What a band is for: each kind of figure has held-out residuals of its own.
enum class BandFamily {
  kThroughput,     ///< Tokens or requests per second (per GPU or in all): residuals of tok/s/GPU.
  kInteractivity,  ///< Tokens per second per user: residuals of the median interactivity.
  kLatency,        ///< Time to first token and end-to-end latency: residuals of the median E2EL.
};

/// Every family, in the order tables list them.
inline constexpr BandFamily kBandFamilies[] = {BandFamily::kThroughput, BandFamily::kInteractivity,
                                               BandFamily::kLatency};

/// p10 and p90 of ln(measured / predicted) over one family's held-out predictions.
struct ResidualQuantiles {
  double p10 = 0;  ///< 10th percentile (numpy's linear interpolation).
  double p90 = 0;  ///< 90th percentile.
};

/// The bands of one framework on one vendor's GPUs, or of every held-out prediction (pooled).
struct BandGroup {
  std::string framework;            ///< Framework (`vllm`); empty for the pooled group.
  std::string vendor;               ///< GPU vendor (`amd`); empty for the pooled group.
  std::size_t residuals = 0;        ///< Held-out predictions behind the quantiles.
  ResidualQuantiles throughput;     ///< Of tok/s/GPU.
  ResidualQuantiles interactivity;  ///< Of the median interactivity.
  ResidualQuantiles latency;        ///< Of the median end-to-end latency.

  /// The quantiles of `family`.
  [[nodiscard]] const ResidualQuantiles& Of(BandFamily family) const;
  /// The quantiles of `family`, to set.
  ResidualQuantiles& Of(BandFamily family);
  /// `framework/vendor`, or `pooled`.
  [[nodiscard]] std::string Scope() const;
};

/// The groups with enough residuals, and the pooled one.
struct PredictionBands {
  std::vector<BandGroup> groups;                  ///< Framework × vendor groups, in name order.
  BandGroup pooled;                               ///< Every held-out prediction.
  std::size_t min_residuals = kMinBandResiduals;  ///< What a group needed to be listed.
  std::string path;                               ///< The file they were read from ("" when built).

  /// True when there are no bands at all (no file, or no residuals).
  [[nodiscard]] bool Empty() const { return pooled.residuals == 0; }
  /// The group of `framework` on `vendor`'s GPUs when it is listed, else the pooled one.
  [[nodiscard]] const BandGroup& For(const std::string& framework, const std::string& vendor) const;
};

/// One predicted figure's band.
struct Band {
  double p10 = 0;  ///< Lower edge (`band_p10`).
  double p90 = 0;  ///< Upper edge (`band_p90`).
};

/// `value`'s band under `q`: [value·e^p10, value·e^p90]; for a figure that is the reciprocal of
/// the family's (a time per token against interactivity), [value·e^−p90, value·e^−p10].
Band BandOf(double value, const ResidualQuantiles& q, bool reciprocal = false);

/// Which residuals a client result key's figure takes.
struct KeyFamily {
  BandFamily family;  ///< Its family.
  bool reciprocal;    ///< The figure is the family's reciprocal (TPOT and ITL against interactivity).
};

/// The family of a client result key: `*_throughput` (not goodput), the mean, median and
/// percentiles of `*_ttft_ms` and `*_e2el_ms` (latency) and of `*_tpot_ms` and `*_itl_ms`
/// (reciprocal interactivity), and of `*_intvty`; nullopt for every other key (counts, std,
/// durations), which gets no band.
std::optional<KeyFamily> FamilyOfResultKey(std::string_view key);

/// The `prediction_band` object a predicted client result carries in its `infermark` block:
/// `scope`, `residuals`, `quantiles` (the group's, per family) and `figures`, each banded key of
/// `result` with its `band_p10` and `band_p90` in the key's own unit.
Json ResultBandJson(const Json& result, const BandGroup& group);

/// Reads a bands file strictly (file:line:col, field, rule); throws InputError.
PredictionBands LoadPredictionBands(const std::string& path);

/// The YAML text of `bands`, with `comment` lines on top.
std::string FormatPredictionBands(const PredictionBands& bands, const std::vector<std::string>& comment);

/// The bands file's name in its folder.
inline constexpr const char* kPredictionBandsFile = "prediction_bands.yaml";

/// Where the engine's data keeps its bands: `<data>/bands/prediction_bands.yaml`.
std::string PredictionBandsPath(const std::string& data_dir);

/// The bands of the engine's data folder, read once; empty when it has no bands file.
const PredictionBands& DefaultPredictionBands();

}  // namespace infermark::calibration
