// GPU prices as dated data (data/prices/*.yaml), never constants in code: each entry is one GPU's
// USD per GPU-hour in one price tier, with the date it holds from and its source. A lookup takes the
// newest entry not after a given date, so old runs are costed with the prices of their day.
// File format (one file per source; several blocks per file):
//
//   prices:
//     - date: 2026-07-01                  # the day these prices hold from
//       tier: hyperscaler                  # hyperscaler | neocloud | rental (or any lowercase name)
//       source: SemiAnalysis AI Cloud TCO Model, July 2026
//       url: https://…                     # where the figures were published
//       usd_per_gpu_hour: {h100: 1.17, b200: 1.73}
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/diagnostic.hpp"

namespace infermark::results {

/// The tier a lookup uses when none is named: owning at hyperscaler volume (InferenceX's `costh`).
inline constexpr const char* kDefaultPriceTier = "hyperscaler";

/// One GPU's price in one tier from one dated source.
struct GpuPrice {
  std::string gpu;              ///< Base GPU key, lowercase (`h100`, `mi355x`, `gb200`).
  std::string tier;             ///< Price tier (`hyperscaler`, `neocloud`, `rental`).
  double usd_per_gpu_hour = 0;  ///< USD per GPU per hour (> 0).
  std::string date;             ///< YYYY-MM-DD the price holds from.
  std::string source;           ///< Who published the figure.
  std::string url;              ///< Where it was published.
  SourceMark mark;              ///< Where the entry was read from.
};

/// Every dated price, and the lookups over them.
class PriceTable {
 public:
  /// Adds one entry; a second entry for the same GPU, tier and date throws InputError naming both
  /// places.
  void Add(GpuPrice price);
  /// All entries, in the order added.
  [[nodiscard]] const std::vector<GpuPrice>& entries() const { return entries_; }
  /// The entry for `gpu` (a base key, or a hardware name GpuPriceKey reduces) in `tier` with the
  /// newest date not after `date` (YYYY-MM-DD, or an ISO 8601 time whose day is used; empty: the
  /// newest of all); nullptr when there is none.
  [[nodiscard]] const GpuPrice* Find(const std::string& gpu, const std::string& date,
                                     const std::string& tier = kDefaultPriceTier) const;
  /// The tiers present, sorted.
  [[nodiscard]] std::vector<std::string> Tiers() const;

 private:
  std::vector<GpuPrice> entries_;
};

/// Reads one price file (format above) into `table`. Throws InputError (file:line:column, block
/// index, field, rule) for a missing or mistyped field, an unknown field, a bad date, a price that
/// is not a positive number, or a duplicate (GPU, tier, date).
void LoadPriceFile(const std::string& path, PriceTable& table);

/// Every `*.yaml` in `dir`, in name order. Throws InputError when `dir` is not a folder.
PriceTable LoadPriceDirectory(const std::string& dir);

/// The price folder: $INFERMARK_PRICE_DATA when set, else `data/prices` in the working directory or
/// a parent, else next to the executable (`data/prices` or `share/infermark/prices` above it).
/// Throws InputError when none exists.
std::string PriceDataDir();

/// The base GPU key of a hardware or runner name, as InferenceX reduces them: lowercase, up to the
/// first '-' or '_' (`H100-SXM` → `h100`, `mi355x_amds` → `mi355x`, `gb200-nv72` → `gb200`).
std::string GpuPriceKey(const std::string& hardware);

/// USD per million tokens for a GPU costing `usd_per_gpu_hour` that serves `tokens_per_s_per_gpu`
/// (output, input or total tokens/s per GPU): usd_per_gpu_hour / (3600 × tokens_per_s_per_gpu) × 1e6.
/// nullopt when the throughput is not positive.
std::optional<double> CostPerMillionTokens(double usd_per_gpu_hour, double tokens_per_s_per_gpu);

}  // namespace infermark::results
