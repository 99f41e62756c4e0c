#include "core/eval_batch.hpp"

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>

#include "core/diagnostic.hpp"

namespace infermark {
namespace {

// A list of positive integers without repeats, or nullopt when `meta` lacks the field.
std::optional<std::vector<long long>> BatchConcs(const Json& meta, const char* field, const std::string& path) {
  const auto it = meta.find(field);
  if (it == meta.end()) return std::nullopt;
  const auto bad = [&](const std::string& rule) {
    throw InputError(Diagnostic{SourceMark{path, 0, 0}, "", field, rule});
  };
  if (!it->is_array()) bad("must be a list of concurrencies");
  std::vector<long long> out;
  std::set<long long> seen;
  for (const Json& v : *it) {
    if (!v.is_number_integer() || v.get<long long>() <= 0) bad("must hold positive integers, not " + v.dump());
    if (!seen.insert(v.get<long long>()).second) bad("names concurrency " + v.dump() + " twice");
    out.push_back(v.get<long long>());
  }
  return out;
}

}  // namespace

bool EvalBatch::Completed(long long conc) const {
  return std::find(completed.begin(), completed.end(), conc) != completed.end();
}

bool EvalBatch::Failed(long long conc) const {
  return std::find(failed.begin(), failed.end(), conc) != failed.end();
}

std::optional<EvalBatch> ReadEvalBatch(const Json& meta, const std::string& path) {
  if (!meta.is_object()) return std::nullopt;
  const auto concs = BatchConcs(meta, "eval_concs", path);
  if (!concs) return std::nullopt;
  EvalBatch b;
  b.concs = *concs;
  b.completed = BatchConcs(meta, "completed_eval_concs", path).value_or(b.concs);
  b.failed = BatchConcs(meta, "failed_eval_concs", path).value_or(std::vector<long long>{});
  return b;
}

Json WithEvalBatch(const Json& meta, const EvalBatch& batch) {
  Json out = Json::object();
  const auto add_batch = [&] {
    out["conc"] = batch.concs.empty() ? meta.value("conc", Json(1)) : Json(batch.concs.front());
    out["eval_concs"] = batch.concs;
    out["completed_eval_concs"] = batch.completed;
    out["failed_eval_concs"] = batch.failed;
  };
  bool added = false;
  for (const auto& [key, value] : meta.items()) {
    if (key == "eval_concs" || key == "completed_eval_concs" || key == "failed_eval_concs") continue;
    if (key == "conc") {
      add_batch();
      added = true;
      continue;
    }
    out[key] = value;
  }
  if (!added) add_batch();
  return out;
}

std::string BatchedFileName(const std::string& dir, const std::string& stem, long long conc, const std::string& ext) {
  namespace fs = std::filesystem;
  const std::string base = stem + "_conc" + std::to_string(conc);
  std::string name = base + ext;
  std::error_code ec;
  for (int suffix = 2; fs::exists(fs::path(dir) / name, ec); ++suffix) name = base + "_" + std::to_string(suffix) + ext;
  return name;
}

std::optional<long long> BatchedFileConcurrency(const std::string& name) {
  static const std::regex suffix(R"(_conc(\d+)(?:_\d+)?\.json$)");
  std::smatch m;
  if (!std::regex_search(name, m, suffix)) return std::nullopt;
  try {
    return std::stoll(m[1].str());
  } catch (const std::out_of_range&) {
    return std::nullopt;
  }
}

}  // namespace infermark
