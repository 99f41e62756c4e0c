// lm-evaluation-harness's exact_match (its Hugging Face `evaluate` rules): each of
// regexes_to_ignore deleted from prediction and reference in order, then optional lower-casing,
// punctuation and digit removal, then string equality: 1.0 or 0.0 per document.
#pragma once

#include <string>
#include <vector>

#include "eval/python_regex.hpp"
#include "eval/task_config.hpp"

namespace infermark::eval {

/// exact_match with a metric entry's options, patterns compiled once.
class ExactMatch {
 public:
  /// Compiles `spec`'s regexes_to_ignore.
  explicit ExactMatch(const MetricSpec& spec);
  /// 1.0 when `prediction` and `reference` agree after the normalisations, else 0.0.
  [[nodiscard]] double Score(const std::string& prediction, const std::string& reference) const;
  /// One side after the normalisations (for tests and the samples file).
  [[nodiscard]] std::string Normalize(const std::string& text) const;

 private:
  MetricSpec spec_;
  std::vector<PythonRegex> ignore_;
};

}  // namespace infermark::eval
