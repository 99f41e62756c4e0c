#include "metrics/repeat_result.hpp"

#include <algorithm>
#include <string_view>
#include <vector>

#include "core/internal_error.hpp"
#include "core/numpy_stats.hpp"
#include "core/repeat_stats.hpp"

namespace infermark::metrics {
namespace {

constexpr std::string_view kRepeatInfix = ".repeat-";

// The fields of infermark's block that say where and how a result was made, the same for every
// repeat; the rest (phases, the client's and the server's self-checks, host error, own metrics)
// describe one run and stay in that repeat's file.
constexpr const char* kProvenanceFields[] = {
    "infermark_version", "git_commit", "host",   "predicted",  "kind",  "clock",        "time_scale",
    "ignored_flags",     "dataset",    "limits", "matrix_row", "image", "engine_flags", "config_key"};

// The run's settings: the same in every repeat, copied, not summarized.
constexpr const char* kSettings[] = {"best_of",    "num_prompts",     "request_rate",
                                     "burstiness", "max_concurrency", "metrics_version"};

// Per-request arrays --save-detailed adds: one run's requests, not the point's.
constexpr const char* kPerRequestArrays[] = {"ttfts", "itls", "generated_texts", "errors"};

bool IsNumber(const Json& v) {
  return v.is_number();
}

template <std::size_t N>
bool Listed(const char* const (&names)[N], const std::string& key) {
  return std::find_if(std::begin(names), std::end(names), [&](const char* name) { return key == name; }) !=
         std::end(names);
}

double LowerMedian(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[(values.size() - 1) / 2];
}

Json IntervalJson(const MedianInterval& m) {
  return Json{{"median", m.median},         {"low", m.low}, {"high", m.high},
              {"confidence", m.confidence}, {"min", m.min}, {"max", m.max}};
}

}  // namespace

std::string RepeatFileName(const std::string& name, int repeat) {
  const std::string stem =
      name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0 ? name.substr(0, name.size() - 5) : name;
  return stem + std::string(kRepeatInfix) + std::to_string(repeat) + ".json";
}

std::string RepeatAttemptFileName(const std::string& name, int repeat, int attempt) {
  std::string file = RepeatFileName(name, repeat);
  return file.insert(file.size() - 5, ".attempt-" + std::to_string(attempt));
}

std::optional<std::string> RepeatOwnerName(const std::string& name) {
  if (name.size() <= 5 || name.compare(name.size() - 5, 5, ".json") != 0) return std::nullopt;
  const std::size_t at = name.rfind(kRepeatInfix);
  if (at == std::string::npos || at == 0) return std::nullopt;
  const auto digits = [](std::string_view text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  std::string_view rest(name.data() + at + kRepeatInfix.size(), name.size() - 5 - at - kRepeatInfix.size());
  constexpr std::string_view kAttempt = ".attempt-";
  if (const std::size_t attempt = rest.find(kAttempt); attempt != std::string_view::npos) {
    if (!digits(rest.substr(attempt + kAttempt.size()))) return std::nullopt;
    rest = rest.substr(0, attempt);
  }
  if (!digits(rest)) return std::nullopt;
  return name.substr(0, at) + ".json";
}

const Json* RepeatsBlock(const Json& result) {
  if (!result.is_object()) return nullptr;
  const auto own = result.find("infermark");
  if (own == result.end() || !own->is_object()) return nullptr;
  const auto repeats = own->find("repeats");
  return repeats != own->end() && repeats->is_object() ? &*repeats : nullptr;
}

RepeatSetup RepeatSetupOf(const Json& block) {
  RepeatSetup setup;
  setup.fresh_server = block.value("server", "") == "fresh";
  for (const Json& file : block.value("files", Json::array())) {
    if (file.is_string()) setup.files.push_back(file.get<std::string>());
  }
  for (const Json& retries : block.value("retries", Json::array())) {
    if (retries.is_number_integer()) setup.retries.push_back(retries.get<int>());
  }
  return setup;
}

Json CombineRepeatResults(const std::vector<Json>& repeats, const RepeatSetup& setup) {
  INFERMARK_CHECK(!repeats.empty(), "combining no repeats");
  const Json& first = repeats.front();
  const std::size_t n = repeats.size();
  Json out = Json::object();
  Json values = Json::object();
  Json intervals = Json::object();
  for (const auto& [key, value] : first.items()) {
    if (key == "infermark") continue;
    if (Listed(kPerRequestArrays, key)) continue;
    if (!IsNumber(value) || Listed(kSettings, key)) {
      out[key] = value;
      continue;
    }
    std::vector<double> xs;
    bool all_integers = true;
    for (const Json& r : repeats) {
      const auto it = r.find(key);
      if (it == r.end() || !IsNumber(*it)) break;
      xs.push_back(it->get<double>());
      all_integers = all_integers && it->is_number_integer();
    }
    if (xs.size() != n) continue;  // a number some repeat lacks (power metrics of an invalid repeat)
    const MedianInterval m = MedianWithInterval(xs, kRepeatConfidenceLevel);
    if (key == "power_valid") {
      out[key] = static_cast<long long>(m.min);
    } else if (all_integers) {
      out[key] = static_cast<long long>(LowerMedian(xs));
    } else {
      out[key] = m.median;
    }
    values[key] = xs;
    intervals[key] = IntervalJson(m);
  }
  // The window holds every repeat.
  if (const auto start = first.find("benchmark_start_time_unix"); start != first.end() && start->is_number()) {
    out["benchmark_start_time_unix"] = *start;
  }
  if (const auto end = repeats.back().find("benchmark_end_time_unix");
      end != repeats.back().end() && end->is_number()) {
    out["benchmark_end_time_unix"] = *end;
  }
  bool complete = true;
  bool valid = true;
  Json reasons = Json::array();
  Json verdicts = Json::array();
  for (std::size_t k = 0; k < n; ++k) {
    const Json& r = repeats[k];
    complete = complete && r.value("complete", true);
    const std::string verdict = r.value("verdict", std::string());
    verdicts.push_back(verdict);
    if (verdict == "INVALID") {
      valid = false;
      const auto why = r.find("verdict_reasons");
      const std::string prefix = "repeat " + std::to_string(k + 1) + " of " + std::to_string(n) + ": ";
      if (why != r.end() && why->is_array() && !why->empty()) {
        for (const Json& reason : *why)
          reasons.push_back(prefix + (reason.is_string() ? reason.get<std::string>() : reason.dump()));
      } else {
        reasons.push_back(prefix + "INVALID");
      }
    }
  }
  if (first.contains("complete")) out["complete"] = complete;
  if (first.contains("verdict")) {
    out["verdict"] = valid ? "VALID" : "INVALID";
    out["verdict_reasons"] = reasons;
  }
  Json own = Json::object();
  if (const auto it = first.find("infermark"); it != first.end() && it->is_object()) {
    for (const char* field : kProvenanceFields) {
      if (const auto f = it->find(field); f != it->end()) own[field] = *f;
    }
  }
  // The host error of the combined figures: each statistic's, the median over the repeats (the
  // figures are medians too); the marks of every repeat, each saying which.
  if (const auto it = first.find("infermark"); it != first.end() && it->is_object() && it->contains("host_error")) {
    own["host_error_kind"] = it->value("host_error_kind", std::string());
    Json combined = Json::object();
    for (const auto& [key, entry] : (*it)["host_error"].items()) {
      std::vector<double> abs, rel;
      for (const Json& r : repeats) {
        const Json* e = r.contains("infermark") && r["infermark"].contains("host_error") &&
                                r["infermark"]["host_error"].contains(key)
                            ? &r["infermark"]["host_error"][key]
                            : nullptr;
        if (e == nullptr || !e->is_object()) continue;
        if ((*e)["abs"].is_number()) abs.push_back((*e)["abs"].get<double>());
        if ((*e)["rel"].is_number()) rel.push_back((*e)["rel"].get<double>());
      }
      Json out_entry = Json::object();
      out_entry["abs"] = abs.empty() ? Json(nullptr) : Json(NumpyMedian(abs));
      out_entry["rel"] = rel.empty() ? Json(nullptr) : Json(NumpyMedian(rel));
      combined[key] = std::move(out_entry);
    }
    own["host_error"] = std::move(combined);
    Json marks = Json::array();
    for (std::size_t k = 0; k < n; ++k) {
      const Json& r = repeats[k];
      if (!r.contains("infermark") || !r["infermark"].contains("host_error_marks")) continue;
      for (Json mark : r["infermark"]["host_error_marks"]) {
        mark["repeat"] = k + 1;
        marks.push_back(std::move(mark));
      }
    }
    own["host_error_marks"] = std::move(marks);
  }
  Json block = Json::object();
  block["count"] = n;
  block["server"] = setup.fresh_server ? "fresh" : "same";
  block["files"] = setup.files;
  block["verdicts"] = verdicts;
  if (!setup.retries.empty()) block["retries"] = setup.retries;
  block["confidence_level"] = kRepeatConfidenceLevel;
  block["method"] = "order-statistics";
  block["values"] = std::move(values);
  block["intervals"] = std::move(intervals);
  own["repeats"] = std::move(block);
  out["infermark"] = std::move(own);
  return out;
}

}  // namespace infermark::metrics
