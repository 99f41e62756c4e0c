#include "eval/prompt_builder.hpp"

#include <stdexcept>

namespace infermark::eval {

FewshotSampler::FewshotSampler(const std::vector<Json>& pool, std::string sampler, std::uint64_t seed)
    : pool_(pool), sampler_(std::move(sampler)), random_(seed) {}

std::vector<std::size_t> FewshotSampler::Sample(std::size_t n, const Json* exclude) {
  if (n == 0) return {};
  if (sampler_ == "first_n") {
    if (n > pool_.size()) throw std::invalid_argument("more few-shot examples asked for than the split holds");
    std::vector<std::size_t> first(n);
    for (std::size_t i = 0; i < n; ++i) first[i] = i;
    return first;
  }
  if (exclude == nullptr) return random_.SampleIndices(pool_.size(), n);
  // One more than needed, then the document itself dropped (by equality, as lm-eval compares).
  std::vector<std::size_t> drawn = random_.SampleIndices(pool_.size(), n + 1);
  std::vector<std::size_t> kept;
  for (const std::size_t i : drawn) {
    if (pool_[i] != *exclude && kept.size() < n) kept.push_back(i);
  }
  return kept;
}

std::vector<Turn> BuildTurns(const TaskConfig& task, const std::vector<const Json*>& examples, const Json& doc) {
  std::vector<Turn> turns;
  for (const Json* example : examples) {
    const std::string q = task.doc_to_text.Render(*example, task.doc_to_text_mark, "doc_to_text");
    const std::string a = task.doc_to_target.Render(*example, task.doc_to_target_mark, "doc_to_target");
    // The question is followed by the target delimiter only when an answer follows it.
    turns.push_back(Turn{"user", q, a.empty() ? "" : task.target_delimiter});
    if (!a.empty()) turns.push_back(Turn{"assistant", a, task.fewshot_delimiter});
  }
  turns.push_back(Turn{"user", task.doc_to_text.Render(doc, task.doc_to_text_mark, "doc_to_text"), ""});
  return turns;
}

Json ChatMessages(const std::vector<Turn>& turns) {
  Json out = Json::array();
  for (const Turn& t : turns) out.push_back(Json{{"role", t.role}, {"content", t.content}});
  return out;
}

std::string PromptText(const std::vector<Turn>& turns) {
  std::string out;
  for (std::size_t i = 0; i < turns.size(); ++i) {
    out += turns[i].content;
    if (i + 1 < turns.size()) out += turns[i].delimiter;
  }
  return out;
}

}  // namespace infermark::eval
