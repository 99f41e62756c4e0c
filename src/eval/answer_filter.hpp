// lm-evaluation-harness's answer filters for generate_until tasks: `regex` (findall, the match
// group_select picks — negative counts from the end —, the first non-empty group of a
// multi-group pattern, stripped; the fallback when nothing matches) and `take_first`.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eval/python_regex.hpp"
#include "eval/task_config.hpp"

namespace infermark::eval {

/// A filter pipeline with its patterns compiled.
class AnswerFilter {
 public:
  /// Compiles `spec`'s patterns (already checked when the task was read).
  explicit AnswerFilter(const FilterSpec& spec);

  /// The pipeline's name ("strict-match").
  [[nodiscard]] const std::string& name() const { return name_; }
  /// What the pipeline keeps of one document's responses (lm-eval's `filtered_resps` entry).
  [[nodiscard]] std::string Apply(const std::vector<std::string>& responses) const;

 private:
  struct Step {
    bool take_first = false;
    std::optional<PythonRegex> regex;
    std::int64_t group_select = 0;
    std::string fallback;
  };
  [[nodiscard]] static std::string Extract(const Step& step, std::string_view response);

  std::string name_;
  std::vector<Step> steps_;
};

}  // namespace infermark::eval
