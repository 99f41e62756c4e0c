// A run's requests as a compact timeline for the dashboard's point page: per request when it was
// due, sent, got its first token and its last, and how many tokens it received; with the TTFT and
// inter-token latency histograms of every request (log-spaced bins, so the file stays small however
// many chunks the run read). JSON Lines: a header object, then one array per request, so a
// 10,000-request run is a few hundred kilobytes where `--save-detailed` writes every chunk and
// every answer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/json_text.hpp"
#include "metrics/request_record.hpp"

namespace infermark::metrics {

/// The header's `schema`.
inline constexpr const char* kRequestTimelineSchema = "infermark.request_timeline/1";

/// The most requests a timeline lists; a longer run lists every k-th (its histograms still count
/// every request and chunk).
inline constexpr std::size_t kMaxTimelineRequests = 20000;

/// Histogram bins per decade (log-spaced edges 10^(k/10) ms, from 1 µs).
inline constexpr int kTimelineBinsPerDecade = 10;

/// An extra per-request column (agentic runs: the session, the input tokens, the prefix-cache hit
/// tokens), one value per record.
struct TimelineColumn {
  std::string name;          ///< Its name in the header's `columns`.
  std::vector<Json> values;  ///< One per record, in the records' order.
};

/// The timeline of `records` as JSON Lines. Times are milliseconds after the earliest intended or
/// sent time of any record, which `origin_unix` (Unix seconds, e.g. the result's
/// `benchmark_start_time_unix`) names in wall time. Columns: index, intended_ms, sent_ms,
/// first_token_ms, last_token_ms (the reference's latency end), output_tokens (the server's count,
/// else the client's, else the chunks'), ok (1/0), then `extra`. The header holds the schema, the
/// origin, the request count, the stride, the columns and `ttft_ms` and `itl_ms` histograms
/// (`{"lo_ms", "bins_per_decade", "first_bin", "counts", "zero"}`: counts[i] holds values in
/// [10^((first_bin+i)/bins)·lo, 10^((first_bin+i+1)/bins)·lo); `zero` counts values ≤ 0).
std::string RequestTimelineJsonl(std::span<const RequestRecord> records, double origin_unix,
                                 const std::vector<TimelineColumn>& extra = {});

}  // namespace infermark::metrics
