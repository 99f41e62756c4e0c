#include "eval/eval_repeats.hpp"

#include <algorithm>
#include <cmath>

#include "core/internal_error.hpp"
#include "eval/aggregate.hpp"

namespace infermark::eval {

EvalResult CombineEvalRepeats(const std::vector<EvalResult>& repeats) {
  INFERMARK_CHECK(!repeats.empty(), "combining no eval repeats");
  EvalResult out = repeats.front();
  const std::size_t n = repeats.size();
  out.samples.clear();
  out.errors.clear();
  out.failed = 0;
  out.retried = 0;
  out.complete = true;
  out.invalid_reasons.clear();
  Json runs = Json::array();
  Json seeds = Json::array();
  for (std::size_t k = 0; k < n; ++k) {
    const EvalResult& r = repeats[k];
    out.samples.insert(out.samples.end(), r.samples.begin(), r.samples.end());
    for (const auto& [kind, count] : r.errors) out.errors[kind] += count;
    out.failed += r.failed;
    out.retried += r.retried;
    out.complete = out.complete && r.complete;
    for (const std::string& why : r.invalid_reasons) {
      out.invalid_reasons.push_back("repeat " + std::to_string(k + 1) + " of " + std::to_string(n) + ": " + why);
    }
    Json scores = Json::object();
    Json stderrs = Json::object();
    for (const EvalScore& s : r.scores) {
      scores[s.metric + "," + s.filter] = s.value;
      stderrs[s.metric + "," + s.filter] = s.stderr_ ? Json(*s.stderr_) : Json("N/A");
    }
    seeds.push_back(r.generation.seed);
    runs.push_back({{"seed", r.generation.seed},
                    {"n", r.samples.size()},
                    {"scores", scores},
                    {"stderrs", stderrs},
                    {"valid", r.invalid_reasons.empty()}});
  }
  out.end_unix = repeats.back().end_unix;
  Json spread = Json::object();
  for (std::size_t i = 0; i < out.scores.size(); ++i) {
    std::vector<double> values;
    std::vector<double> errors;
    std::vector<std::size_t> sizes;
    bool all_errors = true;
    for (const EvalResult& r : repeats) {
      if (i >= r.scores.size()) continue;
      values.push_back(r.scores[i].value);
      sizes.push_back(r.samples.size());
      all_errors = all_errors && r.scores[i].stderr_.has_value();
      errors.push_back(r.scores[i].stderr_.value_or(0));
    }
    out.scores[i].value = SizeWeightedMean(values, sizes);
    out.scores[i].stderr_ = all_errors ? PooledSampleStderr(errors, sizes) : std::nullopt;
    const double mean = Mean(values);
    double sq = 0;
    for (const double v : values) sq += (v - mean) * (v - mean);
    spread[out.scores[i].metric + "," + out.scores[i].filter] = {
        {"min", *std::min_element(values.begin(), values.end())},
        {"max", *std::max_element(values.begin(), values.end())},
        {"sd", values.size() > 1 ? std::sqrt(sq / static_cast<double>(values.size() - 1)) : 0.0}};
  }
  out.repeats = {{"count", n},
                 {"method", "lm-eval group aggregation: size-weighted mean, pooled_sample_stderr"},
                 {"seeds", seeds},
                 {"runs", runs},
                 {"spread", spread}};
  return out;
}

}  // namespace infermark::eval
