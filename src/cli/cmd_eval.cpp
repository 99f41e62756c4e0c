// `infermark eval`: an accuracy eval (GSM8K as lm-evaluation-harness runs it) against a running
// OpenAI-compatible server, through the same client as `bench serve`; writes lm-eval's results
// and samples files and InferenceX's meta_env.json (docs/evals.md). Several concurrencies
// (`--concurrency 64,256`) run one eval each against the same server, in order, into InferenceX's
// batched layout, as its run_eval does with several EVAL_CONCURRENT_REQUESTS values.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "cli/commands.hpp"
#include "cli/signal_watcher.hpp"
#include "core/diagnostic.hpp"
#include "core/exit_codes.hpp"
#include "eval/batched_eval.hpp"
#include "eval/eval_repeats.hpp"
#include "eval/eval_run.hpp"
#include "eval/lm_eval_output.hpp"
#include "loadgen/http_target.hpp"

namespace infermark::cli {
namespace {

struct EvalFlags {
  eval::EvalSettings settings;
  std::vector<long long> concurrency{1};
  std::string api = "chat";
  std::string output_path = ".";
  long long num_fewshot = -1;
  long long limit = -1;
  long long max_tokens = -1;
  long long timeout_s = 1800;
  bool quiet = false;
  int repeats = 1;
};

std::optional<std::string> Env(const std::string& key) {
  const char* v = std::getenv(key.c_str());
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

// The scores of one eval (or of its repeats combined, each over `documents`), as a small table.
void PrintEval(const eval::EvalResult& result, const eval::RunDescription& run, std::size_t documents) {
  std::printf("%s (%lld-shot, %zu of %zu documents, %s, concurrency %zu)\n", result.task.task.c_str(),
              static_cast<long long>(result.num_fewshot), documents, result.original_docs,
              run.chat ? "chat" : "completions", run.concurrency);
  std::printf("  %-18s %-10s %-10s\n", "filter", "score", "stderr");
  for (const eval::EvalScore& sc : result.scores) {
    std::printf("  %-18s %-10.4f %-10s\n", sc.filter.c_str(), sc.value,
                sc.stderr_ ? std::to_string(*sc.stderr_).c_str() : "N/A");
  }
  std::printf("  requests: %zu failed, %zu retried", result.failed, result.retried);
  for (const auto& [kind, count] : result.errors) std::printf(", %s %zu", kind.c_str(), count);
  std::printf("\n");
}

// Several concurrencies: one eval each against the same server into the batched layout. A failed
// concurrency is reported and the others kept; exit 1 when any failed, 130 when stopped.
int RunBatch(const EvalFlags& f, const eval::RunDescription& run, SignalWatcher& signals) {
  std::size_t last_report = 0;
  const eval::BatchedEvalRun batch = eval::RunBatchedEval(
      f.settings, f.concurrency, run, f.output_path, &Env, signals.flag(),
      [&](long long conc) -> const std::atomic<bool>* {
        last_report = 0;
        if (!f.quiet) std::fprintf(stderr, "infermark eval: concurrency %lld\n", conc);
        return nullptr;
      },
      [&](const eval::BatchedEval& e) {
        eval::RunDescription at = run;
        at.concurrency = static_cast<std::size_t>(e.concurrency);
        if (e.result) {
          PrintEval(*e.result, at, e.result->samples.size());
          std::printf("  results: %s\n  samples: %s\n", e.files.results.c_str(), e.files.samples.c_str());
        }
        for (const std::string& why : e.problems) {
          std::fprintf(stderr, "infermark eval: concurrency %lld: %s\n", e.concurrency, why.c_str());
        }
        if (!e.completed) std::fprintf(stderr, "infermark eval: concurrency %lld failed\n", e.concurrency);
      },
      [&](long long, std::size_t done, std::size_t total) {
        if (f.quiet || done < last_report + 100) return;
        last_report = done;
        std::fprintf(stderr, "infermark eval: %zu/%zu answered\n", done, total);
      });
  const auto list = [](const std::vector<long long>& concs) {
    std::string out;
    for (const long long c : concs) out += (out.empty() ? "" : " ") + std::to_string(c);
    return out.empty() ? std::string("none") : out;
  };
  std::printf("batch: completed %s; failed %s\n  meta:    %s\n", list(batch.manifest.completed).c_str(),
              list(batch.manifest.failed).c_str(), batch.meta_env.c_str());
  if (batch.stopped) {
    std::fprintf(stderr, "infermark eval: stopped before every concurrency ran\n");
    return kExitSignalBase + 2;
  }
  if (!batch.manifest.failed.empty()) {
    std::fprintf(stderr, "infermark eval: batched eval failed for concurrency: %s\n",
                 list(batch.manifest.failed).c_str());
    return kExitRunFailed;
  }
  return kExitOk;
}

int RunEvalCommand(EvalFlags& f) {
  eval::EvalSettings& s = f.settings;
  s.client.api = f.api == "completions" ? loadgen::Api::kCompletions : loadgen::Api::kChatCompletions;
  if (f.num_fewshot >= 0) s.num_fewshot = f.num_fewshot;
  if (f.limit == 0 || f.limit < -1) throw InputError(Diagnostic{{}, "", "--limit", "must be >= 1"});
  if (f.limit > 0) s.limit = static_cast<std::size_t>(f.limit);
  if (f.max_tokens == 0 || f.max_tokens < -1) throw InputError(Diagnostic{{}, "", "--max-tokens", "must be >= 1"});
  if (f.max_tokens > 0) s.max_tokens = f.max_tokens;
  if (f.timeout_s < 1) throw InputError(Diagnostic{{}, "", "--timeout", "must be >= 1 second"});
  s.client.timeout = std::chrono::seconds(f.timeout_s);
  if (s.client.max_retries < 1) throw InputError(Diagnostic{{}, "", "--max-retries", "must be >= 1"});
  if (!(s.max_failed_share >= 0 && s.max_failed_share <= 1)) {
    throw InputError(Diagnostic{{}, "", "--max-failed-share", "must be in [0, 1]"});
  }
  if (s.max_model_len < 2) throw InputError(Diagnostic{{}, "", "--max-model-len", "must be >= 2"});

  for (const long long conc : f.concurrency) {
    if (conc < 1) throw InputError(Diagnostic{{}, "", "--concurrency", "must be >= 1, got " + std::to_string(conc)});
  }
  eval::RunDescription run;
  run.model = s.model;
  run.base_url = s.client.base_url;
  run.chat = s.client.api == loadgen::Api::kChatCompletions;
  run.max_retries = s.client.max_retries;
  run.max_model_len = s.max_model_len;
  run.limit = s.limit;
  if (f.repeats < 1 || f.repeats > 1000) throw InputError(Diagnostic{{}, "", "--repeats", "must be from 1 to 1000"});
  if (f.repeats > 1 && f.concurrency.size() > 1) {
    throw InputError(Diagnostic{{},
                                "",
                                "--repeats",
                                "repeats one eval; a batch of concurrencies (--concurrency " +
                                    std::to_string(f.concurrency.front()) + ",...) runs each once"});
  }
  SignalWatcher signals("infermark eval");
  if (f.concurrency.size() > 1) return RunBatch(f, run, signals);

  s.client.concurrency = static_cast<std::size_t>(f.concurrency.front());
  run.concurrency = s.client.concurrency;
  // Repeat k runs under seed + k - 1 (few-shot examples and requests), as lm-eval's --seed would;
  // the repeats combine as lm-eval combines a group's subtasks (eval/eval_repeats.hpp).
  std::vector<eval::EvalResult> repeats;
  for (int k = 0; k < f.repeats; ++k) {
    eval::EvalSettings one = s;
    one.seed = s.seed + k;
    std::size_t last_report = 0;
    try {
      repeats.push_back(eval::RunEval(one, signals.flag(), [&](std::size_t done, std::size_t total) {
        if (f.quiet || done < last_report + 100) return;
        last_report = done;
        std::fprintf(stderr, "infermark eval: %s%zu/%zu answered\n",
                     f.repeats > 1 ? ("repeat " + std::to_string(k + 1) + ": ").c_str() : "", done, total);
      }));
    } catch (const loadgen::ServerUnreachable& e) {
      std::fprintf(stderr, "infermark eval: %s; no result written\n", e.what());
      return kExitRunFailed;
    }
    if (!repeats.back().complete) break;  // a stop signal: no further repeats
  }
  const eval::EvalResult result = repeats.size() == 1 ? repeats.front() : eval::CombineEvalRepeats(repeats);
  // Each repeat's own lm-eval files in repeats/repeat-<k>/ (not eval folders of their own), then the
  // combined ones: the files InferenceX's collect_eval_results.py and `results ingest` read.
  if (repeats.size() > 1) {
    for (std::size_t k = 0; k < repeats.size(); ++k) {
      const std::string dir =
          (std::filesystem::path(f.output_path) / "repeats" / ("repeat-" + std::to_string(k + 1))).string();
      eval::WriteEvalFiles(dir, repeats[k], run, &Env, false);
    }
  }
  const eval::WrittenFiles files = eval::WriteEvalFiles(f.output_path, result, run, &Env);
  PrintEval(result, run, repeats.front().samples.size());
  if (repeats.size() > 1) {
    std::printf("  %zu repeats (seeds %lld..%lld) combined as lm-eval combines a group; per repeat:", repeats.size(),
                s.seed, s.seed + static_cast<long long>(repeats.size()) - 1);
    for (const eval::EvalResult& r : repeats) std::printf(" %.4f", r.scores.empty() ? 0.0 : r.scores.front().value);
    std::printf("\n");
  }
  std::printf("  results: %s\n  samples: %s\n  meta:    %s\n", files.results.c_str(), files.samples.c_str(),
              files.meta_env.c_str());
  if (!result.invalid_reasons.empty()) {
    for (const std::string& why : result.invalid_reasons) std::fprintf(stderr, "infermark eval: %s\n", why.c_str());
    std::fprintf(stderr, "infermark eval: INVALID eval\n");
    if (!result.complete) return kExitSignalBase + 2;
    return kExitRunFailed;
  }
  return kExitOk;
}

void AddEvalCommand(CLI::App& app, CommandResult& result) {
  auto* cmd = app.add_subcommand("eval",
                                 "Accuracy eval (GSM8K as lm-evaluation-harness runs it) against a running server; "
                                 "writes lm-eval's results and samples and InferenceX's meta_env.json; exit 0 done, "
                                 "1 INVALID or server unreachable (batched: any concurrency failed), 2 bad input, "
                                 "130 interrupted");
  auto f = std::make_shared<EvalFlags>();
  eval::EvalSettings& s = f->settings;
  cmd->add_option("--tasks", s.task, "A built-in task (gsm8k) or an lm-eval task file (YAML)")->required();
  cmd->add_option("--base-url", s.client.base_url, "Server base URL, e.g. http://localhost:8888")->required();
  cmd->add_option("--model", s.model, "Model name sent in requests")->required();
  cmd->add_option("--api", f->api, "chat (chat completions, few-shot as turns) or completions (one prompt text)")
      ->check(CLI::IsMember({"chat", "completions"}))
      ->capture_default_str();
  cmd->add_option("--endpoint", s.client.endpoint, "Request path (default: the API's)");
  cmd->add_option("--num-fewshot", f->num_fewshot, "Few-shot examples per prompt (default: the task's)");
  cmd->add_option("--concurrency", f->concurrency,
                  "Requests in flight; several (64,256) run one eval each against the same server, in order, "
                  "into InferenceX's batched layout (…_conc<N> files, one meta_env.json with eval_concs)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--limit", f->limit, "Only the first N test documents");
  cmd->add_option("--max-tokens", f->max_tokens,
                  "max_tokens per answer (default: InferenceX's rule from --max-model-len)");
  cmd->add_option("--max-model-len", s.max_model_len, "The server's context length (EVAL_MAX_MODEL_LEN)")
      ->capture_default_str();
  cmd->add_option("--temperature", s.temperature, "Sampling temperature")->capture_default_str();
  cmd->add_option("--top-p", s.top_p, "Nucleus sampling")->capture_default_str();
  cmd->add_option("--max-retries", s.client.max_retries, "Attempts per request in all (lm-eval's max_retries)")
      ->capture_default_str();
  cmd->add_option("--retry-wait-min", s.client.retry_wait_min_s, "Shortest wait before a retry, seconds")
      ->capture_default_str();
  cmd->add_option("--retry-wait-max", s.client.retry_wait_max_s, "Longest wait before a retry, seconds")
      ->capture_default_str();
  cmd->add_option("--timeout", f->timeout_s, "Seconds a request may stay silent")->capture_default_str();
  cmd->add_option("--max-failed-share", s.max_failed_share,
                  "Share of requests that may fail every attempt before the eval is INVALID")
      ->capture_default_str();
  cmd->add_option("--output-path", f->output_path, "Folder for the results, samples and meta_env.json")
      ->capture_default_str();
  cmd->add_flag("--quiet", f->quiet, "No progress lines");
  cmd->add_option("--seed", s.seed, "lm-eval's seed: the few-shot examples' and every request's")
      ->capture_default_str();
  cmd->add_option("--repeats", f->repeats,
                  "Run the eval N times, repeat k under seed + k - 1 (each in repeats/repeat-<k>/), combined as "
                  "lm-eval combines a group: size-weighted mean and pooled standard error")
      ->capture_default_str();
  cmd->callback([f, &result] { result.exit_code = RunEvalCommand(*f); });
}

[[maybe_unused]] const bool kEvalRegistered = RegisterCommand("eval", &AddEvalCommand);

}  // namespace
}  // namespace infermark::cli
