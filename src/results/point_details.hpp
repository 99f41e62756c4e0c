// What a point's row left beside its result, as the store keeps it for the point page: the request
// timeline the client wrote (metrics/request_timeline.hpp), the tails of the server's and the
// client's logs, every GPU telemetry sample (results/gpu_samples.hpp) and a multi-node row's DCGM
// package manifest. Read from a sweep's layout: `<result dir>/logs/<stem>/`.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "results/gpu_samples.hpp"

namespace infermark::results {

/// The request timeline's file name in a row's log folder.
inline constexpr const char* kRequestTimelineFile = "requests.timeline.jsonl";
/// The request timeline header's `schema` (metrics/request_timeline.hpp writes it).
inline constexpr const char* kRequestTimelineSchemaName = "infermark.request_timeline/1";
/// The largest timeline the store keeps (a 20,000-request timeline is about 1.5 MB).
inline constexpr std::size_t kMaxRequestTimelineBytes = 8 * 1024 * 1024;

/// A point's details.
struct PointDetails {
  std::string timeline;         ///< The request timeline (JSON Lines), "" when the row wrote none.
  std::string server_log_tail;  ///< The end of the server's (or launcher's, or router's) log.
  std::string client_log_tail;  ///< The end of the client's log.
  std::vector<GpuSeries> gpus;  ///< Every GPU's telemetry samples (none without telemetry).
  std::string dcgm_manifest;    ///< A DCGM package's manifest.json, when the row had one.

  /// True when there is nothing to keep.
  [[nodiscard]] bool Empty() const;
};

/// The row log folder of the result file at `result_path`: `<folder>/logs/<stem>/`, or for a
/// multi-node point's file (`<stem>_conc<N>_gpus_…`) its row's `<folder>/logs/<stem>/`; "" when
/// neither exists.
std::string RowLogDir(const std::string& result_path);

/// The details a sweep left for the result file at `result_path` (an empty value when it left
/// none). A telemetry or timeline file that is malformed throws InputError naming it, as a bad
/// result file does; with `problems`, it is left out and its message added there instead.
PointDetails ReadPointDetails(const std::string& result_path, std::vector<std::string>* problems = nullptr);

/// Throws InputError naming `path` when `text` is not a request timeline (its first line is not a
/// header object of kRequestTimelineSchemaName) or is larger than kMaxRequestTimelineBytes.
void CheckRequestTimeline(const std::string& text, const std::string& path);

}  // namespace infermark::results
