#include "metrics/request_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace infermark::metrics {
namespace {

constexpr double kLowestMs = 0.001;  // the first edge: 1 µs

// Counts of values in log-spaced bins, kept sparse by index.
class LogHistogram {
 public:
  void Add(double ms) {
    if (!(ms > 0) || !std::isfinite(ms)) {
      ++zero_;
      return;
    }
    const int bin = std::max(0, static_cast<int>(std::floor(std::log10(ms / kLowestMs) * kTimelineBinsPerDecade)));
    if (static_cast<std::size_t>(bin) >= counts_.size()) counts_.resize(static_cast<std::size_t>(bin) + 1, 0);
    ++counts_[static_cast<std::size_t>(bin)];
  }

  Json ToJson() const {
    std::size_t first = 0;
    while (first < counts_.size() && counts_[first] == 0) ++first;
    Json counts = Json::array();
    for (std::size_t i = first; i < counts_.size(); ++i) counts.push_back(counts_[i]);
    Json j = Json::object();
    j["lo_ms"] = kLowestMs;
    j["bins_per_decade"] = kTimelineBinsPerDecade;
    j["first_bin"] = first < counts_.size() ? static_cast<long long>(first) : 0LL;
    j["counts"] = std::move(counts);
    j["zero"] = zero_;
    return j;
  }

 private:
  std::vector<std::uint64_t> counts_;
  std::uint64_t zero_ = 0;
};

Json Ms(const std::optional<std::int64_t>& ns, std::int64_t origin) {
  if (!ns) return nullptr;
  return std::round(static_cast<double>(*ns - origin) / 1e3) / 1e3;  // to the microsecond
}

}  // namespace

std::string RequestTimelineJsonl(std::span<const RequestRecord> records, double origin_unix,
                                 const std::vector<TimelineColumn>& extra) {
  std::int64_t origin = std::numeric_limits<std::int64_t>::max();
  LogHistogram ttft;
  LogHistogram itl;
  for (const RequestRecord& r : records) {
    if (r.intended_ns) origin = std::min(origin, *r.intended_ns);
    if (r.sent_ns) origin = std::min(origin, *r.sent_ns);
    if (!r.success) continue;
    if (r.sent_ns && r.first_chunk_ns) ttft.Add(static_cast<double>(*r.first_chunk_ns - *r.sent_ns) / 1e6);
    for (std::size_t i = 1; i < r.chunk_ns.size(); ++i)
      itl.Add(static_cast<double>(r.chunk_ns[i] - r.chunk_ns[i - 1]) / 1e6);
  }
  if (origin == std::numeric_limits<std::int64_t>::max()) origin = 0;
  const std::size_t stride =
      (records.size() + kMaxTimelineRequests - 1) / std::max<std::size_t>(kMaxTimelineRequests, 1);
  const std::size_t step = std::max<std::size_t>(stride, 1);
  Json columns =
      Json::array({"index", "intended_ms", "sent_ms", "first_token_ms", "last_token_ms", "output_tokens", "ok"});
  for (const TimelineColumn& c : extra) columns.push_back(c.name);
  Json header = Json::object();
  header["schema"] = kRequestTimelineSchema;
  header["origin_unix"] = origin_unix;
  header["requests"] = records.size();
  header["stride"] = step;
  header["columns"] = std::move(columns);
  header["ttft_ms"] = ttft.ToJson();
  header["itl_ms"] = itl.ToJson();
  std::string out;
  AppendJson(out, header, kCompactJson);
  out.push_back('\n');
  for (std::size_t i = 0; i < records.size(); i += step) {
    const RequestRecord& r = records[i];
    Json row = Json::array();
    row.push_back(r.index);
    row.push_back(Ms(r.intended_ns, origin));
    row.push_back(Ms(r.sent_ns, origin));
    row.push_back(Ms(r.first_chunk_ns, origin));
    row.push_back(Ms(r.end_ns ? r.end_ns : r.done_ns, origin));
    const std::optional<std::int64_t> tokens =
        r.server_output_tokens
            ? r.server_output_tokens
            : (r.client_output_tokens ? r.client_output_tokens
                                      : std::optional<std::int64_t>(static_cast<std::int64_t>(r.chunk_ns.size())));
    row.push_back(r.success ? Json(*tokens) : Json(nullptr));
    row.push_back(r.success ? 1 : 0);
    for (const TimelineColumn& c : extra) row.push_back(i < c.values.size() ? c.values[i] : Json(nullptr));
    AppendJson(out, row, kCompactJson);
    out.push_back('\n');
  }
  return out;
}

}  // namespace infermark::metrics
