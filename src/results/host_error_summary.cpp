#include "results/host_error_summary.hpp"

#include <cmath>
#include <cstdio>

namespace infermark::results {
namespace {

// The headline figures, as the verdict judges them (metrics::IsHeadlineFigure; results does not
// depend on metrics, so the list is read from the marks where it can be and kept here for the rest).
bool Headline(const std::string& key) {
  static const char* const kHeadline[] = {"total_token_throughput", "output_throughput",   "input_throughput",
                                          "tput_per_gpu",           "output_tput_per_gpu", "input_tput_per_gpu",
                                          "median_ttft_ms",         "median_tpot_ms",      "median_itl_ms",
                                          "median_e2el_ms",         "median_intvty"};
  for (const char* h : kHeadline) {
    if (key == h) return true;
  }
  return false;
}

}  // namespace

std::string HostErrorSummary::MarkedKeys() const {
  std::string out;
  for (const HostErrorMark& m : marks) out += (out.empty() ? "" : ";") + m.key;
  return out;
}

HostErrorSummary SummarizeHostError(const Json& host_error) {
  HostErrorSummary s;
  if (!host_error.is_object()) return s;
  const auto kind = host_error.find("kind");
  if (kind == host_error.end() || !kind->is_string()) return s;
  s.kind = kind->get<std::string>();
  if (const auto figures = host_error.find("figures"); figures != host_error.end() && figures->is_object()) {
    for (const auto& [key, e] : figures->items()) {
      if (!Headline(key) || !e.is_object()) continue;
      const auto rel = e.find("rel");
      if (rel == e.end() || !rel->is_number()) continue;
      const double r = rel->get<double>();
      if (!s.worst_headline_rel || std::abs(r) > std::abs(*s.worst_headline_rel)) {
        s.worst_headline = key;
        s.worst_headline_rel = r;
      }
    }
  }
  if (const auto marks = host_error.find("marks"); marks != host_error.end() && marks->is_array()) {
    for (const Json& m : *marks) {
      if (!m.is_object() || !m.contains("key") || !m["key"].is_string()) continue;
      HostErrorMark mark;
      mark.key = m["key"].get<std::string>();
      mark.rel = m.value("rel", 0.0);
      mark.headline = m.value("headline", false);
      mark.cause = m.value("cause", "");
      s.marks.push_back(std::move(mark));
    }
  }
  return s;
}

std::string PercentText(double rel) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f %%", rel * 100.0);
  return buf;
}

}  // namespace infermark::results
