#include "eval/answer_filter.hpp"

namespace infermark::eval {
namespace {

// Python's str.strip(): whitespace at both ends (ASCII whitespace and the C1/Unicode spaces
// that occur in model output are treated alike by the patterns in use; ASCII is what is stripped).
std::string PyStrip(std::string s) {
  const char* ws = " \t\n\r\v\f\x1c\x1d\x1e\x1f";
  const std::size_t b = s.find_first_not_of(ws);
  if (b == std::string::npos) return {};
  const std::size_t e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

}  // namespace

AnswerFilter::AnswerFilter(const FilterSpec& spec) : name_(spec.name) {
  for (const FilterStep& s : spec.steps) {
    Step step;
    if (s.function == "take_first") {
      step.take_first = true;
    } else {
      step.regex.emplace(s.regex_pattern);
      step.group_select = s.group_select;
      step.fallback = s.fallback;
    }
    steps_.push_back(std::move(step));
  }
}

std::string AnswerFilter::Extract(const Step& step, std::string_view response) {
  const std::vector<RegexMatch> matches = step.regex->FindAll(response);
  if (matches.empty()) return step.fallback;
  const auto n = static_cast<std::int64_t>(matches.size());
  const std::int64_t i = step.group_select < 0 ? n + step.group_select : step.group_select;
  // Python indexes a list out of range with an IndexError; lm-eval would stop the run there.
  if (i < 0 || i >= n) return step.fallback;
  const RegexMatch& m = matches[static_cast<std::size_t>(i)];
  // findall yields the whole match without groups, the group with one, a tuple with several.
  if (m.groups.empty()) return PyStrip(m.whole);
  if (m.groups.size() == 1) return PyStrip(m.groups[0]);
  for (const std::string& g : m.groups) {
    if (!g.empty()) return PyStrip(g);
  }
  return PyStrip(step.fallback);
}

std::string AnswerFilter::Apply(const std::vector<std::string>& responses) const {
  std::vector<std::string> current = responses;
  for (const Step& step : steps_) {
    if (step.take_first) {
      current.resize(current.empty() ? 0 : 1);
      continue;
    }
    for (std::string& r : current) r = Extract(step, r);
  }
  return current.empty() ? std::string() : current.front();
}

}  // namespace infermark::eval
