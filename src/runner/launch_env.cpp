// Values are written as a GitHub workflow writes its inputs: integers in decimal, booleans as
// "true"/"false", strings unchanged.
#include "runner/launch_env.hpp"

#include <algorithm>
#include <cctype>

#include "core/diagnostic.hpp"
#include "results/runner_label.hpp"

namespace infermark::runner {
namespace {

std::string Text(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_null()) return "";
  return v.dump();
}

void Put(EnvList& env, const Json& row, const char* key, const char* name, const std::string& fallback = {}) {
  auto it = row.find(key);
  if (it != row.end()) {
    env.emplace_back(name, Text(*it));
  } else if (!fallback.empty()) {
    env.emplace_back(name, fallback);
  }
}

// One worker pool of a multi-node row as the multi-node template exports it (PREFILL_TP…), its
// `additional-settings` (`KEY=VALUE`) as variables of their own, and its GPUs
// (num-worker × tp × pp × pcp-size; DCP reuses the TP GPUs) as <ROLE>GPUS. Returns the GPUs.
long long PutPool(EnvList& env, const Json& pool, const std::string& role) {
  static constexpr std::pair<const char*, const char*> kFields[] = {
      {"num-worker", "NUM_WORKERS"}, {"tp", "TP"}, {"pp", "PP_SIZE"},      {"dcp-size", "DCP_SIZE"},
      {"pcp-size", "PCP_SIZE"},      {"ep", "EP"}, {"dp-attn", "DP_ATTN"}, {"hardware", "HARDWARE"}};
  for (const auto& [key, name] : kFields) Put(env, pool, key, (role + name).c_str());
  long long gpus = 1;
  for (const char* key : {"num-worker", "tp", "pp", "pcp-size"}) {
    const auto it = pool.find(key);
    if (it != pool.end() && it->is_number_integer()) gpus *= it->get<long long>();
  }
  env.emplace_back(role + "GPUS", std::to_string(gpus));
  if (const auto settings = pool.find("additional-settings"); settings != pool.end() && settings->is_array()) {
    for (const Json& setting : *settings) {
      // NAME=value with a shell variable's name, as the multi-node workflow requires before it
      // exports them.
      const std::string text = setting.is_string() ? setting.get<std::string>() : setting.dump();
      const auto eq = text.find('=');
      const std::string name = eq == std::string::npos ? text : text.substr(0, eq);
      const bool valid = setting.is_string() && eq != std::string::npos && !name.empty() &&
                         std::isdigit(static_cast<unsigned char>(name[0])) == 0 &&
                         std::all_of(name.begin(), name.end(), [](char ch) {
                           return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_';
                         });
      if (!valid) {
        throw InputError(Diagnostic{SourceMark{}, "",
                                    (role == "PREFILL_" ? "prefill" : "decode") + std::string(".additional-settings"),
                                    "must hold NAME=value assignments (NAME of letters, digits and _, not "
                                    "starting with a digit), got '" +
                                        text + "'"});
      }
      env.emplace_back(name, text.substr(eq + 1));
    }
  }
  return gpus;
}

long long Integer(const Json& row, const char* key, long long fallback) {
  const auto it = row.find(key);
  return it != row.end() && it->is_number_integer() ? it->get<long long>() : fallback;
}

bool Flag(const Json& row, const char* key) {
  const auto it = row.find(key);
  return it != row.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace

std::vector<long long> EvalConcValues(const Json& row) {
  std::vector<long long> list;
  if (const auto conc = row.find("conc"); conc != row.end()) {
    if (conc->is_array()) {
      for (const Json& v : *conc) {
        if (v.is_number_integer()) list.push_back(v.get<long long>());
      }
    } else if (conc->is_number_integer()) {
      list.push_back(conc->get<long long>());
    }
  }
  if (!row.contains("prefill") || list.size() <= 1 || Flag(row, "eval-all-concs")) return list;
  if (const auto c = row.find("eval-conc"); c != row.end() && c->is_number_integer()) return {c->get<long long>()};
  return {*std::max_element(list.begin(), list.end())};
}

long long EvalContextLength(const Json& row) {
  const long long sum = Integer(row, "isl", 0) + Integer(row, "osl", 0) + 256;
  if (Flag(row, "eval-only")) return sum;
  return Integer(row, "max-model-len", sum);
}

EnvList LaunchEnvironment(const Json& row, const LaunchContext& c) {
  EnvList env;
  Put(env, row, "model", "MODEL");
  Put(env, row, "model-prefix", "MODEL_PREFIX");
  Put(env, row, "exp-name", "EXP_NAME");
  Put(env, row, "image", "IMAGE");
  Put(env, row, "framework", "FRAMEWORK");
  Put(env, row, "precision", "PRECISION");
  Put(env, row, "tp", "TP");
  Put(env, row, "pp", "PP_SIZE", "1");
  Put(env, row, "dcp-size", "DCP_SIZE", "1");
  Put(env, row, "pcp-size", "PCP_SIZE", "1");
  Put(env, row, "ep", "EP_SIZE", "1");
  Put(env, row, "dp-attn", "DP_ATTENTION", "false");
  Put(env, row, "conc", "CONC");
  Put(env, row, "isl", "ISL");
  Put(env, row, "osl", "OSL");
  Put(env, row, "max-model-len", "MAX_MODEL_LEN");
  Put(env, row, "spec-decoding", "SPEC_DECODING", "none");
  Put(env, row, "disagg", "DISAGG", "false");
  Put(env, row, "run-eval", "RUN_EVAL", "false");
  Put(env, row, "eval-only", "EVAL_ONLY", "false");
  Put(env, row, "recipe-fingerprint", "RECIPE_FINGERPRINT");
  // The workflow hard-codes the ratio (its input is unused), spec §3.1.
  env.emplace_back("RANDOM_RANGE_RATIO", "0.8");
  const bool agentic = row.contains("scenario-type") && Text(row["scenario-type"]) == "agentic-coding";
  env.emplace_back("SCENARIO_TYPE", agentic ? "agentic-coding" : "fixed-seq-len");
  env.emplace_back("SCENARIO_SUBDIR", agentic ? "agentic/" : "fixed_seq_len/");
  env.emplace_back("IS_AGENTIC", agentic ? "1" : "0");
  if (agentic) {
    // The agentic contract (benchmark-tmpl.yml): isl, osl and max-model-len are 0; the offload mode,
    // its backend and the DRAM budget come from the row; DURATION is the profiling phase.
    env.emplace_back("ISL", "0");
    env.emplace_back("OSL", "0");
    env.emplace_back("MAX_MODEL_LEN", "0");
    Put(env, row, "kv-offloading", "KV_OFFLOADING", "none");
    const auto backend = row.find("kv-offload-backend");
    const bool named = backend != row.end() && backend->is_object() && backend->contains("name");
    env.emplace_back("KV_OFFLOAD_BACKEND", named ? Text((*backend)["name"]) : "");
    env.emplace_back("KV_OFFLOAD_BACKEND_METADATA", named ? backend->dump() : "");
    Put(env, row, "total-cpu-dram-gb", "TOTAL_CPU_DRAM_GB", "0");
    Put(env, row, "duration", "DURATION", "3600");
  }
  // Both templates: the router as JSON, the KV transfer backend by name.
  if (const auto router = row.find("router"); router != row.end() && router->is_object()) {
    env.emplace_back("ROUTER_METADATA", router->dump());
  }
  Put(env, row, "kv-p2p-transfer", "KV_P2P_TRANSFER");
  auto num = [&](const char* key) {
    return row.contains(key) && row[key].is_number_integer() ? row[key].get<long long>() : 1LL;
  };
  long long gpus = num("tp") * num("pp") * num("pcp-size");
  const auto prefill = row.find("prefill");
  const auto decode = row.find("decode");
  if (prefill != row.end() && decode != row.end() && prefill->is_object() && decode->is_object()) {
    // The multi-node contract (benchmark-multinode-tmpl.yml): the row's concurrency list
    // space-separated (one deployment serves them all), CONC only for a single concurrency, and
    // each worker pool's settings; GPU_COUNT is the GPUs of both pools.
    env.emplace_back("IS_MULTINODE", "true");
    std::string list;
    const auto conc = row.find("conc");
    if (conc != row.end() && conc->is_array()) {
      for (const Json& value : *conc) list += (list.empty() ? "" : " ") + Text(value);
    } else if (conc != row.end()) {
      list = Text(*conc);
    }
    env.emplace_back("CONC_LIST", list);
    env.emplace_back("CONC", list.find(' ') == std::string::npos ? list : "");
    gpus = PutPool(env, *prefill, "PREFILL_") + PutPool(env, *decode, "DECODE_");
  }
  env.emplace_back("GPU_COUNT", std::to_string(gpus));
  env.emplace_back("RESULT_FILENAME", c.result_filename);
  env.emplace_back("RESULT_DIR", c.result_dir);
  env.emplace_back("PORT", std::to_string(c.port));
  // RUNNER_TYPE becomes the results' `hw`: a cluster label's GPU, so agentic and multi-node points
  // compare with the rest (results/runner_label.hpp).
  if (const auto runner = row.find("runner"); runner != row.end()) {
    env.emplace_back("RUNNER_TYPE", results::HardwareOfLabel(Text(*runner)));
  }
  env.emplace_back("RUNNER_NAME", c.runner_name);
  if (!c.infermark.empty()) env.emplace_back("INFERMARK", c.infermark);
  env.emplace_back("INFERMARK_PROMPTS_PER_CONC", std::to_string(c.prompts_per_conc));
  env.emplace_back("INFERMARK_WARMUPS_PER_CONC", std::to_string(c.warmups_per_conc));
  env.emplace_back("INFERMARK_MIN_PROMPTS", std::to_string(c.min_prompts));
  if (c.eval_elsewhere) {
    // Another row's server answers this row's eval: the launcher runs none.
    for (auto& [name, value] : env) {
      if (name == "RUN_EVAL") value = "false";
    }
  }
  if (Flag(row, "run-eval") || Flag(row, "eval-only")) {
    std::string concs;
    for (const long long v : c.eval_batch_concs.empty() ? EvalConcValues(row) : c.eval_batch_concs)
      concs += (concs.empty() ? "" : " ") + std::to_string(v);
    env.emplace_back("EVAL_CONC", concs);
    env.emplace_back("EVAL_RESULT_DIR",
                     c.eval_batch_dir.empty() ? c.result_dir + "/evals/" + c.result_filename : c.eval_batch_dir);
    env.emplace_back("EVAL_MAX_MODEL_LEN", std::to_string(EvalContextLength(row)));
    env.emplace_back("EVAL_TASKS_DIR", "gsm8k");
    if (c.eval_limit) env.emplace_back("EVAL_LIMIT", std::to_string(*c.eval_limit));
  }
  return env;
}

std::string EnvValue(const EnvList& env, const std::string& name) {
  for (auto it = env.rbegin(); it != env.rend(); ++it) {
    if (it->first == name) return it->second;
  }
  return {};
}

std::string ExpandVariables(const std::string& text, const EnvList& env) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (text.compare(i, 2, "${") == 0) {
      const auto close = text.find('}', i + 2);
      if (close != std::string::npos) {
        out += EnvValue(env, text.substr(i + 2, close - i - 2));
        i = close + 1;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

}  // namespace infermark::runner
