#include "agentic/server_metrics.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <thread>
#include <tuple>

#include "core/clock.hpp"
#include "core/diagnostic.hpp"
#include "core/file_io.hpp"
#include "http/client.hpp"
#include "http/url.hpp"

namespace infermark::agentic {
namespace {

[[noreturn]] void Malformed(const std::string& source, int line, const std::string& rule) {
  throw InputError(Diagnostic{SourceMark{source, line, 0}, "", "", rule});
}

bool NameStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_' || c == ':';
}

bool NameChar(char c) {
  return NameStart(c) || std::isdigit(static_cast<unsigned char>(c)) != 0;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::optional<PromType> ParseType(std::string_view word) {
  if (word == "counter") return PromType::kCounter;
  if (word == "gauge") return PromType::kGauge;
  if (word == "histogram") return PromType::kHistogram;
  if (word == "summary") return PromType::kSummary;
  if (word == "untyped" || word == "unknown") return PromType::kUntyped;
  return std::nullopt;
}

std::optional<double> ParseValue(std::string_view word) {
  if (word == "NaN" || word == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (word == "+Inf" || word == "Inf" || word == "+inf" || word == "inf")
    return std::numeric_limits<double>::infinity();
  if (word == "-Inf" || word == "-inf") return -std::numeric_limits<double>::infinity();
  const std::string s(word);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0') return std::nullopt;
  return v;
}

/// The family a sample belongs to, given the declared types.
std::string FamilyOf(const PromText& text, const std::string& name) {
  const auto declared = [&](std::string_view family, std::initializer_list<PromType> allowed) {
    const auto it =
        std::find_if(text.types.begin(), text.types.end(), [&](const auto& p) { return p.first == family; });
    return it != text.types.end() && std::find(allowed.begin(), allowed.end(), it->second) != allowed.end();
  };
  struct Suffix {
    std::string_view text;
    std::initializer_list<PromType> types;
  };
  static const Suffix kSuffixes[] = {
      {"_total", {PromType::kCounter}},
      {"_created", {PromType::kCounter, PromType::kHistogram, PromType::kSummary}},
      {"_bucket", {PromType::kHistogram}},
      {"_sum", {PromType::kHistogram, PromType::kSummary}},
      {"_count", {PromType::kHistogram, PromType::kSummary}},
  };
  for (const Suffix& s : kSuffixes) {
    if (!EndsWith(name, s.text)) continue;
    const std::string_view family = std::string_view(name).substr(0, name.size() - s.text.size());
    if (declared(family, s.types)) return std::string(family);
  }
  return name;
}

struct SeriesKey {
  std::string family;
  std::string endpoint;
  std::vector<std::pair<std::string, std::string>> labels;
  bool operator<(const SeriesKey& o) const {
    return std::tie(family, endpoint, labels) < std::tie(o.family, o.endpoint, o.labels);
  }
};

/// A series' values over the scrapes: one point per scrape (value, count, sum as they apply).
struct SeriesTrack {
  std::vector<double> times;
  std::vector<double> values;  ///< Counter/gauge value, or a histogram's sum.
  std::vector<double> counts;  ///< A histogram's or summary's count.
};

/// The increase of a cumulative counter, counting a drop as a restart from 0.
double Increase(const std::vector<double>& v) {
  double total = 0;
  for (std::size_t i = 1; i < v.size(); ++i) {
    const double d = v[i] - v[i - 1];
    total += d >= 0 ? d : v[i];
  }
  return total;
}

Json LabelsJson(const std::vector<std::pair<std::string, std::string>>& labels) {
  Json out = Json::object();
  for (const auto& [k, v] : labels) out[k] = v;
  return out;
}

}  // namespace

std::string_view PromTypeName(PromType type) {
  switch (type) {
    case PromType::kCounter:
      return "counter";
    case PromType::kGauge:
      return "gauge";
    case PromType::kHistogram:
      return "histogram";
    case PromType::kSummary:
      return "summary";
    case PromType::kUntyped:
      break;
  }
  return "untyped";
}

PromType PromText::TypeOf(std::string_view family) const {
  for (const auto& [name, type] : types) {
    if (name == family) return type;
  }
  return PromType::kUntyped;
}

PromText ParsePrometheusText(std::string_view text, const std::string& source) {
  PromText out;
  int line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos) continue;
    line.remove_prefix(first);
    if (line.front() == '#') {
      std::string_view rest = line.substr(1);
      rest.remove_prefix(std::min(rest.find_first_not_of(" \t"), rest.size()));
      if (rest.substr(0, 5) != "TYPE " && rest.substr(0, 5) != "TYPE\t") continue;
      rest.remove_prefix(5);
      rest.remove_prefix(std::min(rest.find_first_not_of(" \t"), rest.size()));
      const std::size_t name_end = std::min(rest.find_first_of(" \t"), rest.size());
      std::string name(rest.substr(0, name_end));
      std::string_view word = rest.substr(name_end);
      word.remove_prefix(std::min(word.find_first_not_of(" \t"), word.size()));
      word = word.substr(0, word.find_first_of(" \t"));
      const auto type = ParseType(word);
      if (name.empty() || !type) Malformed(source, line_no, "a # TYPE line needs a metric name and a known type");
      if (*type == PromType::kCounter && EndsWith(name, "_total")) name.resize(name.size() - 6);
      const auto known =
          std::find_if(out.types.begin(), out.types.end(), [&](const auto& p) { return p.first == name; });
      if (known == out.types.end()) out.types.emplace_back(name, *type);
      continue;
    }
    std::size_t i = 0;
    if (!NameStart(line[0])) Malformed(source, line_no, "a sample must start with a metric name");
    while (i < line.size() && NameChar(line[i])) ++i;
    PromSample sample;
    sample.name = std::string(line.substr(0, i));
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i < line.size() && line[i] == '{') {
      ++i;
      while (true) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == ',')) ++i;
        if (i < line.size() && line[i] == '}') {
          ++i;
          break;
        }
        const std::size_t name_begin = i;
        while (i < line.size() && NameChar(line[i])) ++i;
        if (i == name_begin) Malformed(source, line_no, "a label needs a name");
        std::string label(line.substr(name_begin, i - name_begin));
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        if (i >= line.size() || line[i] != '=') Malformed(source, line_no, "label '" + label + "' needs '='");
        ++i;
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        if (i >= line.size() || line[i] != '"')
          Malformed(source, line_no, "label '" + label + "' needs a quoted value");
        ++i;
        std::string value;
        bool closed = false;
        while (i < line.size()) {
          const char c = line[i++];
          if (c == '"') {
            closed = true;
            break;
          }
          if (c != '\\') {
            value += c;
            continue;
          }
          if (i >= line.size()) break;
          const char e = line[i++];
          value += e == 'n' ? '\n' : e;
        }
        if (!closed) Malformed(source, line_no, "label '" + label + "' has an unterminated value");
        sample.labels.emplace_back(std::move(label), std::move(value));
      }
    }
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::string_view rest = line.substr(i);
    const std::string_view word = rest.substr(0, rest.find_first_of(" \t"));
    const auto value = ParseValue(word);
    if (!value) Malformed(source, line_no, "sample '" + sample.name + "' needs a numeric value");
    sample.value = *value;
    out.samples.push_back(std::move(sample));
  }
  for (PromSample& s : out.samples) s.family = FamilyOf(out, s.name);
  return out;
}

Json SummarizeServerMetrics(const std::vector<MetricsScrape>& scrapes, std::optional<double> start_unix,
                            std::optional<double> end_unix) {
  std::vector<const MetricsScrape*> kept;
  for (const MetricsScrape& s : scrapes) {
    if ((start_unix && s.unix_s < *start_unix) || (end_unix && s.unix_s > *end_unix)) continue;
    kept.push_back(&s);
  }
  std::stable_sort(kept.begin(), kept.end(), [](const auto* a, const auto* b) { return a->unix_s < b->unix_s; });

  std::vector<std::pair<std::string, PromType>> families;
  std::vector<SeriesKey> order;
  std::map<SeriesKey, SeriesTrack> tracks;
  for (const MetricsScrape* scrape : kept) {
    const PromText text = ParsePrometheusText(scrape->text, scrape->endpoint_url);
    for (const PromSample& sample : text.samples) {
      const PromType type = text.TypeOf(sample.family);
      if (EndsWith(sample.name, "_created") && sample.name != sample.family) continue;
      if (type == PromType::kHistogram && EndsWith(sample.name, "_bucket")) continue;
      if (type == PromType::kSummary && sample.name == sample.family) continue;  // quantiles
      if (std::none_of(families.begin(), families.end(), [&](const auto& p) { return p.first == sample.family; })) {
        families.emplace_back(sample.family, type);
      }
      SeriesKey key{sample.family, scrape->endpoint_url, sample.labels};
      std::sort(key.labels.begin(), key.labels.end());
      auto [it, inserted] = tracks.try_emplace(key);
      if (inserted) order.push_back(key);
      SeriesTrack& t = it->second;
      const bool is_count =
          (type == PromType::kHistogram || type == PromType::kSummary) && EndsWith(sample.name, "_count");
      if (is_count) {
        t.counts.push_back(sample.value);
      } else {
        t.values.push_back(sample.value);
        t.times.push_back(scrape->unix_s);
      }
    }
  }

  Json metrics = Json::object();
  for (const auto& [family, type] : families) {
    Json entry = Json::object();
    entry["type"] = PromTypeName(type);
    entry["series"] = Json::array();
    metrics[family] = std::move(entry);
  }
  for (const SeriesKey& key : order) {
    const SeriesTrack& t = tracks.at(key);
    const PromType type =
        std::find_if(families.begin(), families.end(), [&](const auto& p) { return p.first == key.family; })->second;
    Json stats = Json::object();
    if (type == PromType::kCounter) {
      const double total = Increase(t.values);
      const double span = t.times.size() > 1 ? t.times.back() - t.times.front() : 0.0;
      stats["total"] = total;
      stats["rate"] = span > 0 ? Json(total / span) : Json(nullptr);
    } else if (type == PromType::kHistogram || type == PromType::kSummary) {
      const double count = Increase(t.counts);
      const double sum = Increase(t.values);
      stats["count"] = count;
      stats["sum"] = sum;
      stats["avg"] = count > 0 ? Json(sum / count) : Json(nullptr);
    } else if (!t.values.empty()) {
      double sum = 0;
      for (double v : t.values) sum += v;
      stats["avg"] = sum / static_cast<double>(t.values.size());
      stats["min"] = *std::min_element(t.values.begin(), t.values.end());
      stats["max"] = *std::max_element(t.values.begin(), t.values.end());
      stats["last"] = t.values.back();
    }
    Json series = Json::object();
    series["endpoint_url"] = key.endpoint;
    series["labels"] = LabelsJson(key.labels);
    series["stats"] = std::move(stats);
    metrics[key.family]["series"].push_back(std::move(series));
  }
  Json out = Json::object();
  out["metrics"] = std::move(metrics);
  return out;
}

void WriteServerMetricsExport(const std::string& path, const Json& server_metrics) {
  WriteFileAtomic(path, server_metrics.dump(2) + "\n");
}

Json ReadServerMetricsExport(const std::string& path) {
  Json doc = Json::parse(ReadFile(path), nullptr, false);
  if (doc.is_discarded()) Malformed(path, 0, "not valid JSON");
  if (!doc.is_object()) Malformed(path, 0, "must be a JSON object");
  const auto metrics = doc.find("metrics");
  if (metrics == doc.end()) return doc;
  if (!metrics->is_object()) {
    throw InputError(Diagnostic{SourceMark{path, 0, 0}, "", "metrics", "must be an object of metric families"});
  }
  for (const auto& [name, family] : metrics->items()) {
    const bool ok = family.is_object() && family.contains("type") && family["type"].is_string() &&
                    family.contains("series") && family["series"].is_array();
    if (!ok) {
      throw InputError(
          Diagnostic{SourceMark{path, 0, 0}, "", "metrics." + name, "must have a string 'type' and a 'series' list"});
    }
  }
  return doc;
}

struct ServerMetricsCollector::Endpoint {
  std::string url;
  http::Url parsed;
  std::unique_ptr<http::Client> client;
};

ServerMetricsCollector::ServerMetricsCollector(std::vector<std::string> urls) {
  for (std::string& url : urls) {
    std::string error;
    const auto parsed = http::ParseUrl(url, &error);
    if (!parsed) throw InputError(Diagnostic{SourceMark{}, "", "server metrics URL '" + url + "'", error});
    auto endpoint = std::make_unique<Endpoint>();
    endpoint->url = std::move(url);
    endpoint->parsed = *parsed;
    if (endpoint->parsed.target == "/") endpoint->parsed.target = "/metrics";
    endpoints_.push_back(std::move(endpoint));
  }
}

ServerMetricsCollector::~ServerMetricsCollector() = default;

void ServerMetricsCollector::Add(MetricsScrape scrape) {
  scrapes_.push_back(std::move(scrape));
}

std::size_t ServerMetricsCollector::ScrapeOnce() {
  std::size_t answered = 0;
  for (const auto& e : endpoints_) {
    if (!e->client) {
      http::ClientOptions options;
      options.host = e->parsed.host;
      options.port = e->parsed.port;
      options.tls = e->parsed.tls;
      options.kernel_timestamps = false;
      e->client = std::make_unique<http::Client>(options);
    }
    http::ClientRequest request;
    request.method = "GET";
    request.target = e->parsed.target;
    request.content_type.clear();
    request.timeout = std::chrono::milliseconds(5'000);
    const double at = UnixNow();
    const http::FetchResult r = e->client->Fetch(request);
    if (!r.result.ok() || r.head.status != 200) {
      ++failures_;
      continue;
    }
    scrapes_.push_back(MetricsScrape{e->url, at, r.body});
    ++answered;
  }
  return answered;
}

void ServerMetricsCollector::ScrapeFor(std::chrono::milliseconds window, std::chrono::milliseconds interval) {
  const auto start = std::chrono::steady_clock::now();
  const auto end = start + window;
  auto next = start;
  while (true) {
    ScrapeOnce();
    if (std::chrono::steady_clock::now() >= end) break;
    next += interval;
    std::this_thread::sleep_until(std::min(next, end));
  }
}

Json ServerMetricsCollector::Export(std::optional<double> start_unix, std::optional<double> end_unix) const {
  return SummarizeServerMetrics(scrapes_, start_unix, end_unix);
}

}  // namespace infermark::agentic
