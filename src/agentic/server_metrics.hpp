// The serving engine's Prometheus metrics over a benchmark window, as aiperf exports them in
// `server_metrics_export.json`: the text exposition format parsed (counters, gauges, histograms,
// summaries, labels with escapes), each series scraped from N `/metrics` URLs at an interval and
// summarized over the window (counters as their increase, gauges as avg/min/max, histograms and
// summaries as the increase of their count and sum).
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/json_text.hpp"

namespace infermark::agentic {

/// A metric family's declared type (`# TYPE`); kUntyped when none was declared.
enum class PromType { kCounter, kGauge, kHistogram, kSummary, kUntyped };

/// The name aiperf writes for a type: "counter", "gauge", "histogram", "summary", "untyped".
std::string_view PromTypeName(PromType type);

/// One sample line.
struct PromSample {
  std::string family;  ///< Its family: the name without `_total`/`_bucket`/`_sum`/`_count`/`_created`.
  std::string name;    ///< The name as written.
  std::vector<std::pair<std::string, std::string>> labels;  ///< In written order, values unescaped.
  double value = 0;                                         ///< NaN and ±Inf allowed.
};

/// A parsed exposition: every sample and the declared type of each family.
struct PromText {
  std::vector<std::pair<std::string, PromType>> types;  ///< family → type, in first-declared order.
  std::vector<PromSample> samples;                      ///< In written order.

  /// The declared type of `family` (kUntyped when undeclared).
  [[nodiscard]] PromType TypeOf(std::string_view family) const;
};

/// Parses Prometheus text exposition format 0.0.4. A counter family declared as `x_total` is
/// named `x`, as engines' clients expose it. Throws InputError (`source`:line, rule) on a
/// malformed line.
PromText ParsePrometheusText(std::string_view text, const std::string& source);

/// One scrape of one endpoint.
struct MetricsScrape {
  std::string endpoint_url;  ///< Where it came from (written into each series).
  double unix_s = 0;         ///< When it was taken (Unix seconds).
  std::string text;          ///< The body of `GET /metrics`.
};

/// server_metrics_export.json's body for `scrapes`, keeping those taken inside
/// [start_unix, end_unix] (either bound may be absent): `{"metrics": {family: {"type", "series":
/// [{"endpoint_url", "labels", "stats"}]}}}`, families and series in first-seen order. Stats:
/// counter {total (increase, resets counted from 0), rate (per second)}, gauge and untyped {avg,
/// min, max, last}, histogram and summary {count, sum, avg} (increases). Throws InputError for a
/// malformed text.
Json SummarizeServerMetrics(const std::vector<MetricsScrape>& scrapes, std::optional<double> start_unix = std::nullopt,
                            std::optional<double> end_unix = std::nullopt);

/// Writes server_metrics_export.json (atomically, indented).
void WriteServerMetricsExport(const std::string& path, const Json& server_metrics);
/// Reads server_metrics_export.json; throws InputError when it is not JSON or its `metrics` are
/// not families with a type and a series list.
Json ReadServerMetricsExport(const std::string& path);

/// Scrapes `GET <url>` for each URL through src/http's client and keeps the texts; scrapes can
/// also be fed directly (tests, or texts taken elsewhere). Not thread-safe.
class ServerMetricsCollector {
 public:
  /// `urls`: `http[s]://host:port[/path]` (path "/" or none means /metrics). Throws InputError for
  /// a URL that does not parse.
  explicit ServerMetricsCollector(std::vector<std::string> urls);
  ~ServerMetricsCollector();
  ServerMetricsCollector(const ServerMetricsCollector&) = delete;
  ServerMetricsCollector& operator=(const ServerMetricsCollector&) = delete;

  /// Adds a scrape taken elsewhere.
  void Add(MetricsScrape scrape);
  /// Scrapes every URL once now; returns how many answered 200. Failures are counted.
  std::size_t ScrapeOnce();
  /// Scrapes every `interval` until `window` has passed (a first scrape at once, a last one at the end).
  void ScrapeFor(std::chrono::milliseconds window, std::chrono::milliseconds interval);
  /// Scrapes that did not answer 200.
  [[nodiscard]] std::size_t failures() const { return failures_; }
  /// The scrapes so far.
  [[nodiscard]] const std::vector<MetricsScrape>& scrapes() const { return scrapes_; }
  /// SummarizeServerMetrics over the scrapes so far.
  [[nodiscard]] Json Export(std::optional<double> start_unix = std::nullopt,
                            std::optional<double> end_unix = std::nullopt) const;

 private:
  struct Endpoint;
  std::vector<std::unique_ptr<Endpoint>> endpoints_;
  std::vector<MetricsScrape> scrapes_;
  std::size_t failures_ = 0;
};

}  // namespace infermark::agentic
