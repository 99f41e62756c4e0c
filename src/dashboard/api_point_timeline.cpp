// GET /api/v1/points/ID/timeline: a point's stored request timeline (metrics/request_timeline.hpp)
// as the page draws it: the rows as stored (their times de-scaled for a time-scaled run), the TTFT
// and ITL histograms with their bin edges spelled out, and requests in flight (agentic points: also
// sessions and the prefix-cache hit rate) over time. The rows are read with simdjson and passed on
// as their own text: a 5,000-request timeline is answered in milliseconds.
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>

#include "dashboard/api_detail_routes.hpp"
#include "dashboard/api_routes.hpp"

namespace infermark::dashboard::routes {
namespace {

constexpr int kOverTimeSpans = 120;  // spans of the over-time series
constexpr const char* kTimeColumns[] = {"intended_ms", "sent_ms", "first_token_ms", "last_token_ms"};

// What the over-time series read of one request.
struct TimelineRow {
  std::optional<double> sent;
  std::optional<double> last;
  std::string session;
  double input = 0;
  double hits = 0;
};

std::optional<double> CellNumber(simdjson::dom::array row, std::optional<std::size_t> column) {
  if (!column) return std::nullopt;
  double v = 0;
  if (row.at(*column).get_double().get(v) != simdjson::SUCCESS) {
    std::int64_t i = 0;
    if (row.at(*column).get_int64().get(i) != simdjson::SUCCESS) return std::nullopt;
    v = static_cast<double>(i);
  }
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

double HistogramField(const Json& h, const char* key, double fallback) {
  const auto it = h.find(key);
  return it != h.end() && it->is_number() ? it->get<double>() : fallback;
}

// A stored histogram with its bin edges spelled out (ms, de-scaled).
Json TimelineHistogram(const Json& header, const char* key, double scale) {
  const auto it = header.find(key);
  if (it == header.end() || !it->is_object()) return nullptr;
  const Json& h = *it;
  const double lo = HistogramField(h, "lo_ms", 0.001);
  const double bins = HistogramField(h, "bins_per_decade", 10);
  const double first = HistogramField(h, "first_bin", 0);
  const auto counts = h.find("counts");
  const bool listed = counts != h.end() && counts->is_array();
  Json edges = Json::array();
  const std::size_t n = listed ? counts->size() : 0;
  for (std::size_t i = 0; i <= n; ++i) {
    edges.push_back(lo * std::pow(10.0, (first + static_cast<double>(i)) / bins) * scale);
  }
  Json out = Json::object();
  out["edges_ms"] = std::move(edges);
  out["counts"] = listed ? *counts : Json::array();
  out["zero"] = HistogramField(h, "zero", 0);
  return out;
}

// Requests in flight (time-weighted, per equal span of the run), and when the timeline says,
// sessions active at each span's middle and the prefix-cache hit rate of the calls sent in it.
Json InFlightOverTime(const std::vector<TimelineRow>& rows, bool has_session, bool has_cache) {
  double end = 0;
  for (const TimelineRow& r : rows) end = std::max(end, r.last.value_or(r.sent.value_or(0)));
  if (rows.empty() || end <= 0) return nullptr;
  const double width = end / kOverTimeSpans;
  std::vector<double> in_flight(kOverTimeSpans, 0);
  std::vector<double> hits(kOverTimeSpans, 0);
  std::vector<double> inputs(kOverTimeSpans, 0);
  std::map<std::string, std::pair<double, double>> sessions;  // session → first send, last end
  for (const TimelineRow& r : rows) {
    if (!r.sent) continue;
    const double stop = r.last.value_or(*r.sent);
    for (int b = std::max(0, static_cast<int>(*r.sent / width)); b < kOverTimeSpans && b * width < stop; ++b) {
      const double lo = std::max(*r.sent, b * width);
      const double hi = std::min(stop, (b + 1) * width);
      if (hi > lo) in_flight[static_cast<std::size_t>(b)] += (hi - lo) / width;
    }
    if (has_cache) {
      const std::size_t b = std::min<std::size_t>(kOverTimeSpans - 1, static_cast<std::size_t>(*r.sent / width));
      hits[b] += r.hits;
      inputs[b] += r.input;
    }
    if (has_session) {
      auto [it, fresh] = sessions.try_emplace(r.session, *r.sent, stop);
      if (!fresh) {
        it->second.first = std::min(it->second.first, *r.sent);
        it->second.second = std::max(it->second.second, stop);
      }
    }
  }
  Json t = Json::array();
  Json flight = Json::array();
  Json active = Json::array();
  Json cache = Json::array();
  for (int b = 0; b < kOverTimeSpans; ++b) {
    const double mid = (b + 0.5) * width;
    const auto i = static_cast<std::size_t>(b);
    t.push_back(mid / 1000);
    flight.push_back(in_flight[i]);
    if (has_session) {
      long long n = 0;
      for (const auto& [key, span] : sessions) n += span.first <= mid && mid <= span.second ? 1 : 0;
      active.push_back(n);
    }
    if (has_cache) cache.push_back(inputs[i] > 0 ? Json(hits[i] / inputs[i]) : Json(nullptr));
  }
  Json j = Json::object();
  j["t_s"] = std::move(t);
  j["in_flight"] = std::move(flight);
  j["sessions"] = has_session ? std::move(active) : Json(nullptr);
  j["cache_hit_rate"] = has_cache ? std::move(cache) : Json(nullptr);
  return j;
}

}  // namespace

ApiReply PointTimeline(const Snapshot& snapshot, const ApiSources& sources, std::int64_t id, const Query& query) {
  query.RequireKnown({"token"});
  const DashboardPoint* d = snapshot.FindPoint(id);
  if (d == nullptr || !sources.with_store) return ErrorReply(404, "", "no point " + std::to_string(id));
  results::PointDetails details;
  sources.with_store([&](results::ResultStore& store) { details = store.FindPointDetails(id, true, false); });
  const std::string& text = details.timeline;
  const std::size_t eol = std::min(text.find('\n'), text.size());
  const Json header = Json::parse(std::string_view(text).substr(0, eol), nullptr, false);
  if (!header.is_object() || !header.contains("columns") || !header["columns"].is_array()) {
    return ErrorReply(404, "", "point " + std::to_string(id) + " has no request timeline");
  }
  const double scale = d->provenance.time_scale > 0 ? d->provenance.time_scale : 1.0;
  std::map<std::string, std::size_t, std::less<>> column;
  const Json& columns = header["columns"];
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (columns[c].is_string()) column[columns[c].get<std::string>()] = c;
  }
  const auto at = [&](std::string_view name) -> std::optional<std::size_t> {
    const auto it = column.find(name);
    return it == column.end() ? std::nullopt : std::optional<std::size_t>(it->second);
  };
  const std::optional<std::size_t> session_column = at("session");
  const std::optional<std::size_t> sent_column = at("sent_ms");
  const std::optional<std::size_t> last_column = at("last_token_ms");
  const std::optional<std::size_t> input_column = at("input_tokens");
  const std::optional<std::size_t> hit_column = at("hit_tokens");
  const bool has_session = session_column.has_value();
  const bool has_cache = hit_column.has_value() && input_column.has_value();
  std::vector<bool> time_column(columns.size(), false);
  for (const char* name : kTimeColumns) {
    if (const auto c = at(name)) time_column[*c] = true;
  }
  // Each row as stored (its text as it is in real time), its times de-scaled otherwise.
  simdjson::dom::parser parser;
  std::vector<TimelineRow> rows;
  std::string rows_text = "[";
  for (std::size_t begin = eol + 1; begin < text.size();) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    const std::string_view line = std::string_view(text).substr(begin, end - begin);
    begin = end + 1;
    simdjson::dom::array row;
    if (line.empty() || parser.parse(line.data(), line.size()).get_array().get(row) != simdjson::SUCCESS) continue;
    TimelineRow r;
    r.sent = CellNumber(row, sent_column);
    r.last = CellNumber(row, last_column);
    if (r.sent) *r.sent *= scale;
    if (r.last) *r.last *= scale;
    simdjson::dom::element session;
    if (has_session && row.at(*session_column).get(session) == simdjson::SUCCESS) {
      std::string_view name;
      r.session =
          session.get_string().get(name) == simdjson::SUCCESS ? std::string(name) : simdjson::to_string(session);
    }
    if (has_cache) {
      r.input = CellNumber(row, input_column).value_or(0);
      r.hits = CellNumber(row, hit_column).value_or(0);
    }
    rows.push_back(std::move(r));
    if (rows.size() > 1) rows_text += ',';
    if (scale == 1) {
      rows_text += line;
      continue;
    }
    rows_text += '[';
    std::size_t i = 0;
    for (const simdjson::dom::element value : row) {
      if (i > 0) rows_text += ',';
      double v = 0;
      if (i < time_column.size() && time_column[i] && value.get_double().get(v) == simdjson::SUCCESS) {
        rows_text += DumpJson(Json(v * scale), kCompactJson);
      } else {
        rows_text += simdjson::to_string(value);
      }
      ++i;
    }
    rows_text += ']';
  }
  rows_text += ']';
  Json body = Json::object();
  body["origin_unix"] = header.value("origin_unix", Json(nullptr));
  body["time_scale"] = scale;
  body["requests"] = header.value("requests", Json(nullptr));
  body["shown"] = rows.size();
  body["stride"] = header.value("stride", Json(nullptr));
  body["columns"] = columns;
  body["ttft_histogram"] = TimelineHistogram(header, "ttft_ms", scale);
  body["itl_histogram"] = TimelineHistogram(header, "itl_ms", scale);
  body["over_time"] = InFlightOverTime(rows, has_session, has_cache);
  // The rows last, as text: the object's closing brace gives way to them.
  ApiReply reply = JsonReply(body);
  reply.body.pop_back();
  reply.body += ",\"rows\":" + rows_text + "}";
  return reply;
}

}  // namespace infermark::dashboard::routes
