#include "eval/lm_eval_output.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <sstream>

#include "core/eval_batch.hpp"
#include "core/file_io.hpp"
#include "core/sha256.hpp"
#include "core/version.hpp"

namespace infermark::eval {
namespace {

Json StderrJson(const std::optional<double>& v) {
  return v ? Json(*v) : Json("N/A");
}

std::string Status(const EvalResult& r) {
  if (!r.complete) return "incomplete";
  if (!r.invalid_reasons.empty()) return "invalid";
  return "complete";
}

// An INVALID or unfinished run's files are named so that neither InferenceX script takes them.
std::string FilePrefix(const EvalResult& r) {
  const std::string status = Status(r);
  return status == "complete" ? "" : status + "_";
}

std::string Sanitized(const std::string& model) {
  std::string out = model;
  for (char& c : out) {
    if (c == '/' || c == ':' || c == ' ' || c == '\\') c = '_';
  }
  return out;
}

// Python's json.dumps(indent=2, ensure_ascii=False) layout, which nlohmann's dump(2) matches.
std::string Indented(const Json& v) {
  return v.dump(2, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

std::string FileStamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1'000'000;
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H-%M-%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%06lld", buf, static_cast<long long>(micros));
  return out;
}

Json ResultsJson(const EvalResult& r, const RunDescription& run) {
  const std::string& name = r.task.task;
  Json task_results = Json::object();
  task_results["alias"] = name;
  for (const EvalScore& s : r.scores) {
    task_results[s.metric + "," + s.filter] = s.value;
    task_results[s.metric + "_stderr," + s.filter] = StderrJson(s.stderr_);
  }
  Json config = r.task.as_json;
  config["num_fewshot"] = r.num_fewshot;
  config["target_delimiter"] = r.task.target_delimiter;
  config["fewshot_delimiter"] = r.task.fewshot_delimiter;
  config["generation_kwargs"] = LoggedGenKwargs(r.task.until, r.generation);

  Json out = Json::object();
  out["results"] = Json{{name, task_results}};
  out["group_subtasks"] = Json{{name, Json::array()}};
  out["configs"] = Json{{name, config}};
  out["versions"] = Json{{name, r.task.version}};
  out["n-shot"] = Json{{name, r.num_fewshot}};
  Json hib = Json::object();
  for (const MetricSpec& m : r.task.metrics) hib[m.metric] = m.higher_is_better;
  out["higher_is_better"] = Json{{name, hib}};
  out["n-samples"] = Json{{name, Json{{"original", r.original_docs}, {"effective", r.samples.size()}}}};
  const std::string api_model = run.chat ? "local-chat-completions" : "local-completions";
  const std::string endpoint = run.chat ? "/v1/chat/completions" : "/v1/completions";
  out["config"] = Json{{"model", api_model},
                       {"model_args", "model=" + run.model + ",base_url=" + run.base_url + endpoint +
                                          ",max_retries=" + std::to_string(run.max_retries) +
                                          ",num_concurrent=" + std::to_string(run.concurrency) +
                                          ",max_length=" + std::to_string(run.max_model_len)},
                       {"batch_size", 1},
                       {"limit", run.limit ? Json(*run.limit) : Json(nullptr)},
                       {"bootstrap_iters", 100000},
                       {"gen_kwargs", LoggedGenKwargs(r.task.until, r.generation)},
                       {"random_seed", 0},
                       {"numpy_seed", 1234},
                       {"torch_seed", 1234},
                       {"fewshot_seed", r.generation.seed}};
  out["date"] = r.start_unix;
  if (Status(r) == "complete") out["lm_eval_version"] = std::string("infermark ") + kVersion;
  out["model_source"] = api_model;
  out["model_name"] = run.model;
  out["model_name_sanitized"] = Sanitized(run.model);
  out["system_instruction"] = nullptr;
  out["fewshot_as_multiturn"] = run.chat;
  out["chat_template"] = run.chat ? Json("") : Json(nullptr);
  out["start_time"] = r.start_unix;
  out["end_time"] = r.end_unix;
  std::ostringstream elapsed;
  elapsed << (r.end_unix - r.start_unix);
  out["total_evaluation_time_seconds"] = elapsed.str();
  Json errors = Json::object();
  for (const auto& [kind, count] : r.errors) errors[kind] = count;
  out["infermark"] =
      Json{{"status", Status(r)},         {"valid", r.invalid_reasons.empty()}, {"invalid_reasons", r.invalid_reasons},
           {"failed_requests", r.failed}, {"retried_requests", r.retried},      {"errors", errors},
           {"version", kVersion}};
  if (!r.repeats.is_null()) out["infermark"]["repeats"] = r.repeats;
  return out;
}

std::string SamplesJsonl(const EvalResult& r) {
  std::string out;
  const Json gen = LoggedGenKwargs(r.task.until, r.generation);
  for (std::size_t k = 0; k < r.task.filters.size(); ++k) {
    for (const EvalSample& s : r.samples) {
      Json line = Json::object();
      line["doc_id"] = s.doc_id;
      line["doc"] = s.doc;
      line["target"] = s.target;
      line["arguments"] = Json{{"gen_args_0", Json{{"arg_0", s.prompt}, {"arg_1", gen}}}};
      line["resps"] = Json::array({Json::array({s.outcome.ok ? s.outcome.text : std::string()})});
      line["filtered_resps"] = Json::array({s.filtered[k]});
      line["filter"] = r.task.filters[k].name;
      line["metrics"] = Json::array({r.task.metrics.front().metric});
      line["doc_hash"] = Sha256Hex(Indented(s.doc));
      line["prompt_hash"] = Sha256Hex(s.prompt);
      line["target_hash"] = Sha256Hex(s.target);
      line[r.task.metrics.front().metric] = s.scores[k];
      if (!s.outcome.ok) line["error"] = s.outcome.error_kind + ": " + s.outcome.error;
      out += line.dump(-1, ' ', false, Json::error_handler_t::replace);
      out += '\n';
    }
  }
  return out;
}

Json MetaEnvJson(const EnvLookup& env, const std::string& model, std::size_t concurrency) {
  auto get = [&](const std::string& key, const std::string& fallback) {
    const auto v = env(key);
    return v && !v->empty() ? *v : fallback;
  };
  auto integer = [&](const std::string& key, long long fallback) -> long long {
    const auto v = env(key);
    if (!v || v->empty()) return fallback;
    char* end = nullptr;
    const long long x = std::strtoll(v->c_str(), &end, 10);
    return end != nullptr && *end == '\0' ? x : fallback;
  };
  auto truthy = [&](const std::string& key) {
    std::string v = get(key, "false");
    for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return v == "1" || v == "true" || v == "yes" || v == "on";
  };
  const long long tp = integer("TP", 1);
  const long long ep = integer("EP_SIZE", 1);
  const bool dp = truthy("DP_ATTENTION");
  Json m = Json::object();
  m["is_multinode"] = get("IS_MULTINODE", "false") == "true";
  m["framework"] = get("FRAMEWORK", "unknown");
  m["precision"] = get("PRECISION", "unknown");
  m["spec_decoding"] = get("SPEC_DECODING", "");
  m["recipe_fingerprint"] = get("RECIPE_FINGERPRINT", "");
  m["tp"] = tp;
  m["pp"] = integer("PP_SIZE", 1);
  m["dcp_size"] = integer("DCP_SIZE", 1);
  m["pcp_size"] = integer("PCP_SIZE", 1);
  m["conc"] = integer("CONC", static_cast<long long>(concurrency));
  m["ep"] = ep;
  m["dp_attention"] = dp;
  m["prefill_tp"] = integer("PREFILL_TP", tp);
  m["prefill_pp"] = integer("PREFILL_PP_SIZE", integer("PP_SIZE", 1));
  m["prefill_dcp_size"] = integer("PREFILL_DCP_SIZE", integer("DCP_SIZE", 1));
  m["prefill_pcp_size"] = integer("PREFILL_PCP_SIZE", integer("PCP_SIZE", 1));
  m["prefill_ep"] = integer("PREFILL_EP", ep);
  m["prefill_dp_attention"] = env("PREFILL_DP_ATTENTION") ? truthy("PREFILL_DP_ATTENTION") : dp;
  m["prefill_num_workers"] = integer("PREFILL_NUM_WORKERS", 1);
  m["decode_tp"] = integer("DECODE_TP", tp);
  m["decode_pp"] = integer("DECODE_PP_SIZE", integer("PP_SIZE", 1));
  m["decode_dcp_size"] = integer("DECODE_DCP_SIZE", integer("DCP_SIZE", 1));
  m["decode_pcp_size"] = integer("DECODE_PCP_SIZE", integer("PCP_SIZE", 1));
  m["decode_ep"] = integer("DECODE_EP", ep);
  m["decode_dp_attention"] = env("DECODE_DP_ATTENTION") ? truthy("DECODE_DP_ATTENTION") : dp;
  m["decode_num_workers"] = integer("DECODE_NUM_WORKERS", 1);
  m["model"] = get("MODEL_NAME", get("MODEL", model));
  m["infmax_model_prefix"] = get("MODEL_PREFIX", "unknown");
  m["hw"] = get("RUNNER_TYPE", "unknown");
  m["isl"] = get("ISL", "0");
  m["osl"] = get("OSL", "0");
  return m;
}

WrittenFiles WriteEvalFiles(const std::string& dir, const EvalResult& result, const RunDescription& run,
                            const EnvLookup& env, bool meta_env) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  const std::string stamp = FileStamp();
  const std::string prefix = FilePrefix(result);
  WrittenFiles w;
  w.results = (fs::path(dir) / (prefix + "results_" + stamp + ".json")).string();
  w.samples = (fs::path(dir) / (prefix + "samples_" + result.task.task + "_" + stamp + ".jsonl")).string();
  WriteFileAtomic(w.results, Indented(ResultsJson(result, run)));
  WriteFileAtomic(w.samples, SamplesJsonl(result));
  if (meta_env) {
    w.meta_env = (fs::path(dir) / "meta_env.json").string();
    WriteFileAtomic(w.meta_env, Indented(MetaEnvJson(env, run.model, run.concurrency)));
  }
  return w;
}

WrittenFiles WriteBatchedEvalFiles(const std::string& dir, const EvalResult& result, const RunDescription& run,
                                   const std::string& stamp) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  const std::string prefix = FilePrefix(result);
  const auto conc = static_cast<long long>(run.concurrency);
  WrittenFiles w;
  w.results = (fs::path(dir) / BatchedFileName(dir, prefix + "results_" + stamp, conc, ".json")).string();
  w.samples =
      (fs::path(dir) / BatchedFileName(dir, prefix + "samples_" + result.task.task + "_" + stamp, conc, ".jsonl"))
          .string();
  WriteFileAtomic(w.results, Indented(ResultsJson(result, run)));
  WriteFileAtomic(w.samples, SamplesJsonl(result));
  return w;
}

}  // namespace infermark::eval
