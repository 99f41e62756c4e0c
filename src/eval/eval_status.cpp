#include "eval/eval_status.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "core/clock.hpp"
#include "core/eval_batch.hpp"
#include "core/file_io.hpp"

namespace infermark::eval {
namespace {

namespace fs = std::filesystem;

template <typename T>
Json OrNull(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

std::optional<double> Number(const Json& block, const std::string& key) {
  const auto it = block.find(key);
  if (it == block.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// The newest (by modification time, then name) file of `dir` named <prefix>….json, as
// collect_eval_results.py takes the latest; with `conc`, only that concurrency's batched files.
std::string NewestEvalFile(const std::string& dir, const std::string& prefix, std::optional<long long> conc) {
  std::string best;
  fs::file_time_type best_time{};
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0 || name.size() <= 5 || name.compare(name.size() - 5, 5, ".json") != 0) continue;
    if (conc && BatchedFileConcurrency(name) != conc) continue;
    std::error_code time_ec;
    const auto t = fs::last_write_time(entry.path(), time_ec);
    if (best.empty() || t > best_time || (t == best_time && name > best)) {
      best = name;
      best_time = t;
    }
  }
  return best;
}

}  // namespace

std::string EvalStatus::Summary() const {
  char buf[256];
  std::string out = status + " " + task;
  if (score) {
    std::snprintf(buf, sizeof buf, " %.4f", *score);
    out += buf;
    if (stderr_) {
      std::snprintf(buf, sizeof buf, " ± %.4f", *stderr_);
      out += buf;
    }
    if (n) out += " (n " + std::to_string(*n) + ")";
  }
  if (passed) {
    std::snprintf(buf, sizeof buf, "%.2f", threshold.value_or(0));
    out += std::string(*passed ? ", passed (>= " : ", failed (< ") + buf + " " + threshold_source + ")";
  }
  for (std::size_t i = 0; i < reasons.size(); ++i) out += (i == 0 ? ": " : "; ") + reasons[i];
  return out;
}

Json EvalStatusJson(const EvalStatus& s) {
  Json j = Json::object();
  j["schema"] = "infermark.eval_status/1";
  j["task"] = s.task;
  j["status"] = s.status;
  j["reasons"] = s.reasons;
  j["metric"] = s.metric;
  j["score"] = OrNull(s.score);
  j["stderr"] = OrNull(s.stderr_);
  j["n"] = OrNull(s.n);
  j["flexible_score"] = OrNull(s.flexible_score);
  j["flexible_stderr"] = OrNull(s.flexible_stderr);
  j["threshold"] = OrNull(s.threshold);
  j["threshold_source"] = s.threshold ? Json(s.threshold_source) : Json(nullptr);
  j["passed"] = OrNull(s.passed);
  j["concurrency"] = s.concurrency;
  j["result_filename"] = s.result_filename;
  j["results_file"] = s.results_file.empty() ? Json(nullptr) : Json(s.results_file);
  j["started_utc"] = s.started_utc;
  j["duration_s"] = s.duration_s;
  j["server"] = s.server;
  return j;
}

std::string EvalStatusFileName(std::optional<long long> batched_conc) {
  return batched_conc ? "eval_status_conc" + std::to_string(*batched_conc) + ".json" : std::string(kEvalStatusFile);
}

void WriteEvalStatus(const std::string& dir, const EvalStatus& status, bool batched) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  const std::string name = EvalStatusFileName(batched ? std::optional<long long>(status.concurrency) : std::nullopt);
  WriteFileAtomic((fs::path(dir) / name).string(), EvalStatusJson(status).dump(2) + "\n");
}

std::optional<EvalStatus> ReadEvalStatus(const std::string& dir, std::optional<long long> batched_conc) {
  Json j;
  try {
    j = Json::parse(ReadFile((fs::path(dir) / EvalStatusFileName(batched_conc)).string()));
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (!j.is_object() || j.value("schema", "") != "infermark.eval_status/1") return std::nullopt;
  EvalStatus s;
  s.task = j.value("task", "");
  s.status = j.value("status", "");
  if (j.contains("reasons") && j["reasons"].is_array()) {
    for (const Json& r : j["reasons"]) {
      if (r.is_string()) s.reasons.push_back(r.get<std::string>());
    }
  }
  s.score = Number(j, "score");
  s.stderr_ = Number(j, "stderr");
  if (const auto n = Number(j, "n")) s.n = static_cast<long long>(*n);
  s.flexible_score = Number(j, "flexible_score");
  s.flexible_stderr = Number(j, "flexible_stderr");
  s.threshold = Number(j, "threshold");
  if (j.contains("threshold_source") && j["threshold_source"].is_string()) s.threshold_source = j["threshold_source"];
  if (j.contains("passed") && j["passed"].is_boolean()) s.passed = j["passed"].get<bool>();
  s.concurrency = j.value("concurrency", 0LL);
  s.result_filename = j.value("result_filename", "");
  if (j.contains("results_file") && j["results_file"].is_string()) s.results_file = j["results_file"];
  s.started_utc = j.value("started_utc", "");
  s.duration_s = j.value("duration_s", 0.0);
  s.server = j.value("server", "");
  return s;
}

EvalStatus JudgeEvalFolder(const std::string& dir, const EvalThresholds& thresholds, const std::string& prefix,
                           std::optional<long long> conc) {
  EvalStatus s;
  // A batch's own word on a concurrency: failed stands whatever its files say.
  std::optional<EvalBatch> batch;
  if (conc) {
    const std::string meta = (fs::path(dir) / "meta_env.json").string();
    try {
      batch = ReadEvalBatch(Json::parse(ReadFile(meta)), meta);
    } catch (const std::exception&) {
      batch.reset();  // judged from its files alone
    }
  }
  const bool listed_failed = batch && batch->Failed(*conc);
  std::string name = listed_failed ? std::string() : NewestEvalFile(dir, "results_", conc);
  s.status = "scored";
  if (name.empty()) {
    name = NewestEvalFile(dir, "incomplete_results_", conc);
    s.status = "incomplete";
  }
  if (name.empty()) {
    name = NewestEvalFile(dir, "invalid_results_", conc);
    s.status = "invalid";
  }
  if (listed_failed) {
    s.reasons.push_back("the batch lists concurrency " + std::to_string(*conc) + " as failed (failed_eval_concs)");
  }
  if (name.empty()) {
    s.status = "invalid";
    const std::string what = conc ? " for concurrency " + std::to_string(*conc) : std::string();
    if (!listed_failed) s.reasons.push_back("no results file" + what + " in " + dir);
    return s;
  }
  s.results_file = name;
  Json file;
  try {
    file = Json::parse(ReadFile((fs::path(dir) / name).string()));
  } catch (const std::exception& e) {
    s.status = "invalid";
    s.reasons.push_back(name + " is not JSON: " + e.what());
    return s;
  }
  const auto start = Number(file, "start_time");
  const auto end = Number(file, "end_time");
  if (start) s.started_utc = IsoUtc(*start);
  if (start && end) s.duration_s = *end - *start;
  const Json results = file.value("results", Json::object());
  if (results.is_object() && !results.empty()) {
    s.task = results.begin().key();
    const Json& block = results.begin().value();
    s.score = Number(block, kGatedMetric);
    s.stderr_ = Number(block, "exact_match_stderr,strict-match");
    s.flexible_score = Number(block, "exact_match,flexible-extract");
    s.flexible_stderr = Number(block, "exact_match_stderr,flexible-extract");
  }
  if (const auto samples = file.find("n-samples"); samples != file.end() && samples->contains(s.task)) {
    const Json& n = (*samples)[s.task];
    if (n.contains("effective") && n["effective"].is_number_integer()) s.n = n["effective"].get<long long>();
  }
  const ThresholdRule rule = thresholds.Resolve(s.task, prefix);
  s.threshold = rule.value;
  s.threshold_source = rule.SourceName();
  if (s.status != "scored") {
    const auto own = file.find("infermark");
    if (own != file.end() && own->contains("invalid_reasons") && (*own)["invalid_reasons"].is_array()) {
      for (const Json& r : (*own)["invalid_reasons"]) {
        if (r.is_string()) s.reasons.push_back(r.get<std::string>());
      }
    }
    if (s.reasons.empty()) s.reasons.push_back("the eval wrote " + name);
    return s;
  }
  const GateVerdict verdict = JudgeResults(file, thresholds, prefix);
  s.passed = verdict.passed;
  s.reasons = verdict.failures;
  return s;
}

}  // namespace infermark::eval
