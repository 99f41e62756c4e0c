// A point's host error read for people and tables: its kind, the headline figure the host moved
// most, and the statistics it moved beyond the tolerance (from Provenance::host_error).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/json_text.hpp"

namespace infermark::results {

/// One statistic over the tolerance.
struct HostErrorMark {
  std::string key;        ///< Its result key (`p99_itl_ms`, `median_ttft_ms`, `output_throughput` …).
  double rel = 0.0;       ///< Host error as a share of the ideal figure.
  bool headline = false;  ///< A headline figure (the point is INVALID for it), else a mark alone.
  std::string cause;      ///< Who moved it and why, as the verdict said.
};

/// What a table shows of a point's host error.
struct HostErrorSummary {
  std::string kind;                          ///< "exact", "client", or empty when the point has none.
  std::string worst_headline;                ///< The headline figure with the largest |rel| (empty: none).
  std::optional<double> worst_headline_rel;  ///< Its rel.
  std::vector<HostErrorMark> marks;          ///< Every statistic over the tolerance, in the result's order.

  /// Whether the point carries a host error at all.
  [[nodiscard]] bool Known() const { return !kind.empty(); }
  /// The marks' keys, `;`-separated ("" when none).
  [[nodiscard]] std::string MarkedKeys() const;
};

/// Reads Provenance::host_error (null or malformed: an empty summary).
HostErrorSummary SummarizeHostError(const Json& host_error);

/// "+0.42 %" style text of a relative error.
std::string PercentText(double rel);

}  // namespace infermark::results
