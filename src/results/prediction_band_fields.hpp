// A predicted point's model-error bands in its processed record: the client result's
// `infermark.prediction_band` (the figures keyed and valued as the client writes them) carried
// into the agg record's `prediction_band`, each band processed as its figure is (milliseconds to
// seconds, TPOT to interactivity, throughput to per GPU), and read back for charts and tables.
// These are bands of the model's error, never confidence intervals of repeated measurements.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "core/json_text.hpp"

namespace infermark::results {

/// One figure's band, in the figure's own unit.
struct FigureBand {
  double band_p10 = 0;  ///< Lower edge.
  double band_p90 = 0;  ///< Upper edge.
};

/// The agg record's `prediction_band` for `agg`, processed from the client `result` it came
/// from: null when the result has none. `figures` holds every banded figure under its agg key.
Json AggPredictionBand(const Json& result, const Json& agg);

/// The bands of the figures charts and tables read, de-scaled as PointMetrics are.
struct BandFields {
  std::string scope;                              ///< The band group (`vllm/amd`, `pooled`); empty: no bands.
  std::size_t residuals = 0;                      ///< Held-out residuals behind the band.
  std::optional<FigureBand> tput_per_gpu;         ///< Total tokens/s per GPU.
  std::optional<FigureBand> output_tput_per_gpu;  ///< Output tokens/s per GPU.
  std::optional<FigureBand> input_tput_per_gpu;   ///< Input tokens/s per GPU.
  std::optional<FigureBand> median_intvty;        ///< Median interactivity, tokens/s per user.
  std::optional<FigureBand> median_e2el;          ///< Median end-to-end latency, s.
  std::optional<FigureBand> median_ttft;          ///< Median time to first token, s.

  /// True when the record carries bands.
  [[nodiscard]] bool Present() const { return !scope.empty(); }
};

/// The bands of an agg record whose run had time scale `time_scale` (throughputs and
/// interactivity divided by it, latencies multiplied); empty fields where it has none.
BandFields BandFieldsOf(const Json& agg, double time_scale = 1.0);

}  // namespace infermark::results
