#include "results/eval_samples.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/diagnostic.hpp"
#include "core/json_text.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

// `2026-12-06T03-35-59.842094` of `results_2026-12-06T03-35-59.842094.json` (any prefix).
std::string StampOf(const std::string& results_file) {
  const std::size_t at = results_file.find("results_");
  if (at == std::string::npos) return "";
  std::string stamp = results_file.substr(at + 8);
  if (stamp.size() > 5 && stamp.compare(stamp.size() - 5, 5, ".json") == 0) stamp.resize(stamp.size() - 5);
  return stamp;
}

// The samples file to read: the one of `stamp`, else (unless `exact`) the newest by name ("" when
// none).
std::string SamplesFile(const fs::path& folder, const std::string& stamp, bool exact) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder, ec)) {
    const std::string name = e.path().filename().string();
    if (name.find("samples_") == std::string::npos || e.path().extension() != ".jsonl") continue;
    if (!stamp.empty() && name.size() > stamp.size() + 6 &&
        name.compare(name.size() - stamp.size() - 6, stamp.size(), stamp) == 0) {
      return e.path().string();
    }
    found.push_back(e.path().string());
  }
  if (found.empty() || exact) return "";
  // Stamps sort by time; the invalid_/incomplete_ prefixes are compared after them.
  std::sort(found.begin(), found.end(), [](const std::string& a, const std::string& b) {
    return fs::path(a).filename().string().substr(fs::path(a).filename().string().find("samples_")) <
           fs::path(b).filename().string().substr(fs::path(b).filename().string().find("samples_"));
  });
  return found.back();
}

std::string Bounded(std::string text) {
  if (text.size() <= kMaxEvalSampleText) return text;
  std::size_t cut = kMaxEvalSampleText;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
  text.resize(cut);
  return text + "…";
}

std::string StringAt(const Json& line, std::initializer_list<const char*> path) {
  const Json* node = &line;
  for (const char* key : path) {
    if (!node->is_object()) return "";
    const auto it = node->find(key);
    if (it == node->end()) return "";
    node = &*it;
  }
  return node->is_string() ? node->get<std::string>() : "";
}

// The first element of `list` (a string, or a list whose first element is a string), "" otherwise.
std::string FirstText(const Json& line, const char* key) {
  const auto it = line.find(key);
  if (it == line.end() || !it->is_array() || it->empty()) return "";
  const Json& first = it->front();
  if (first.is_string()) return first.get<std::string>();
  if (first.is_array() && !first.empty() && first.front().is_string()) return first.front().get<std::string>();
  return "";
}

}  // namespace

std::vector<StoredEvalSample> ReadEvalSamples(const std::string& folder, const std::string& metric,
                                              const std::string& results_file, bool own_stamp_only) {
  const std::string stamp = StampOf(results_file);
  if (own_stamp_only && stamp.empty()) return {};
  const std::string path = SamplesFile(folder, stamp, own_stamp_only);
  if (path.empty()) return {};
  const std::size_t comma = metric.find(',');
  const std::string metric_name = comma == std::string::npos ? metric : metric.substr(0, comma);
  const std::string gated_filter = comma == std::string::npos ? "" : metric.substr(comma + 1);
  std::ifstream in(path);
  if (!in) throw InputError(Diagnostic{{path, 0, 0}, "", "", "cannot read the eval's samples"});
  std::map<long long, StoredEvalSample> by_doc;
  int number = 0;
  for (std::string text; std::getline(in, text);) {
    ++number;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    const Json line = Json::parse(text, nullptr, false);
    const bool object = line.is_object();
    const auto id = object ? line.find("doc_id") : line.end();
    if (!object || id == line.end() || !id->is_number_integer()) {
      throw InputError(
          Diagnostic{{path, number, 1}, "", "doc_id", "a samples line must be a JSON object with a whole doc_id"});
    }
    if (by_doc.size() >= kMaxEvalSamples && by_doc.count(id->get<long long>()) == 0) continue;
    StoredEvalSample& s = by_doc[id->get<long long>()];
    s.doc_id = id->get<long long>();
    if (s.question.empty()) {
      s.question = StringAt(line, {"doc", "question"});
      if (s.question.empty()) s.question = StringAt(line, {"arguments", "gen_args_0", "arg_0"});
      s.question = Bounded(std::move(s.question));
    }
    if (s.response.empty()) s.response = Bounded(FirstText(line, "resps"));
    if (s.target.empty()) s.target = Bounded(StringAt(line, {"target"}));
    if (s.error.empty()) s.error = StringAt(line, {"error"});
    const std::string filter = StringAt(line, {"filter"});
    const std::string answer = Bounded(FirstText(line, "filtered_resps"));
    std::optional<bool> correct;
    if (const auto m = line.find(metric_name); m != line.end() && m->is_number()) correct = m->get<double>() > 0;
    if (filter == gated_filter || gated_filter.empty()) {
      s.strict_answer = answer;
      s.correct = correct;
    } else {
      s.flexible_answer = answer;
      s.flexible_correct = correct;
    }
  }
  std::vector<StoredEvalSample> out;
  out.reserve(by_doc.size());
  for (auto& [id, s] : by_doc) out.push_back(std::move(s));
  return out;
}

}  // namespace infermark::results
