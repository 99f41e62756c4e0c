#include "eval/eval_run.hpp"

#include <algorithm>
#include <filesystem>

#include "core/clock.hpp"
#include "core/diagnostic.hpp"
#include "eval/aggregate.hpp"
#include "eval/answer_filter.hpp"
#include "eval/exact_match.hpp"
#include "eval/prompt_builder.hpp"
#include "eval/task_data.hpp"

namespace infermark::eval {
namespace {

double UnixNow() {
  return static_cast<double>(
             std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
                 .count()) /
         1e6;
}

void Score(EvalResult& r) {
  std::vector<AnswerFilter> filters;
  for (const FilterSpec& f : r.task.filters) filters.emplace_back(f);
  const ExactMatch metric(r.task.metrics.front());
  for (EvalSample& s : r.samples) {
    // A request that failed every attempt is scored on an empty answer, as lm-eval scores a
    // response it could not parse; the verdict says how many there were.
    const std::vector<std::string> responses{s.outcome.ok ? s.outcome.text : std::string()};
    for (const AnswerFilter& f : filters) {
      s.filtered.push_back(f.Apply(responses));
      s.scores.push_back(metric.Score(s.filtered.back(), s.target));
    }
  }
  for (std::size_t k = 0; k < filters.size(); ++k) {
    std::vector<double> xs;
    xs.reserve(r.samples.size());
    for (const EvalSample& s : r.samples) xs.push_back(s.scores[k]);
    r.scores.push_back(EvalScore{r.task.metrics.front().metric, filters[k].name(), Mean(xs), MeanStderr(xs)});
  }
}

}  // namespace

long long DefaultMaxTokens(long long max_model_len) {
  const long long tokens = max_model_len > 4096 ? max_model_len - 4096 : max_model_len / 2;
  return std::min<long long>(tokens, 16384);
}

TaskConfig LoadTask(const std::string& task) {
  const std::string builtin = BuiltInTaskFile(task);
  if (!builtin.empty()) return ReadTaskFile(builtin);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(task, ec)) {
    throw InputError(
        Diagnostic{SourceMark{}, "", "--tasks", "'" + task + "' is neither a built-in task (gsm8k) nor a task file"});
  }
  return ReadTaskFile(task);
}

EvalResult RunEval(const EvalSettings& settings, const std::atomic<bool>* stop,
                   const std::function<void(std::size_t, std::size_t)>& progress) {
  EvalResult r;
  r.task = LoadTask(settings.task);
  const TaskConfig& task = r.task;
  r.num_fewshot = settings.num_fewshot.value_or(task.num_fewshot);
  if (r.num_fewshot < 0) throw InputError(Diagnostic{SourceMark{}, "", "--num-fewshot", "must be >= 0"});
  if (settings.model.empty()) throw InputError(Diagnostic{SourceMark{}, "", "--model", "must not be empty"});
  if (settings.client.concurrency == 0) throw InputError(Diagnostic{SourceMark{}, "", "--concurrency", "must be >= 1"});

  const std::string folder = DatasetFolder(task);
  const std::vector<Json> tests = ReadSplit(folder, task.test_split);
  std::vector<Json> fewshot_pool;
  if (r.num_fewshot > 0) {
    if (task.fewshot_split.empty()) {
      throw InputError(Diagnostic{SourceMark{task.file, 0, 0}, "", "fewshot_split",
                                  "few-shot examples need a fewshot_split or training_split"});
    }
    fewshot_pool = task.fewshot_split == task.test_split ? tests : ReadSplit(folder, task.fewshot_split);
    if (static_cast<std::size_t>(r.num_fewshot) + (task.fewshot_split == task.test_split ? 1 : 0) >
        fewshot_pool.size()) {
      throw InputError(Diagnostic{SourceMark{}, "", "--num-fewshot",
                                  "asks for more examples than the split '" + task.fewshot_split + "' holds"});
    }
  }
  r.original_docs = tests.size();
  const std::size_t n = std::min(tests.size(), settings.limit.value_or(tests.size()));

  r.generation.model = settings.model;
  r.generation.max_tokens = settings.max_tokens.value_or(DefaultMaxTokens(settings.max_model_len));
  if (r.generation.max_tokens < 1) throw InputError(Diagnostic{SourceMark{}, "", "--max-tokens", "must be >= 1"});
  r.generation.temperature = settings.temperature;
  r.generation.top_p = settings.top_p;
  r.generation.stop = task.until;
  r.generation.seed = settings.seed;

  // Prompts in document order: the sampler's random state runs across documents, so the k-th
  // document gets the same examples whatever --limit is.
  FewshotSampler sampler(fewshot_pool, task.sampler, static_cast<std::uint64_t>(settings.seed));
  const bool chat = settings.client.api == loadgen::Api::kChatCompletions;
  std::vector<std::string> bodies;
  bodies.reserve(n);
  r.samples.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Json& doc = tests[i];
    const bool same_split = task.fewshot_split == task.test_split;
    std::vector<const Json*> examples;
    for (const std::size_t k : sampler.Sample(static_cast<std::size_t>(r.num_fewshot), same_split ? &doc : nullptr)) {
      examples.push_back(&fewshot_pool[k]);
    }
    const std::vector<Turn> turns = BuildTurns(task, examples, doc);
    EvalSample& s = r.samples[i];
    s.doc_id = i;
    s.doc = doc;
    s.target = task.doc_to_target.Render(doc, task.doc_to_target_mark, "doc_to_target");
    if (chat) {
      const Json messages = ChatMessages(turns);
      s.prompt = messages.dump(-1, ' ', false, Json::error_handler_t::replace);
      bodies.push_back(ChatBody(messages, r.generation));
    } else {
      s.prompt = PromptText(turns);
      bodies.push_back(CompletionsBody(s.prompt, r.generation));
    }
  }

  r.start_unix = UnixNow();
  std::vector<EvalOutcome> outcomes = SendAll(settings.client, std::move(bodies), stop, [&](std::size_t done) {
    if (progress) progress(done, n);
  });
  r.end_unix = UnixNow();
  for (std::size_t i = 0; i < n; ++i) {
    EvalOutcome& o = outcomes[i];
    if (!o.sent) r.complete = false;
    if (o.attempts > 1) ++r.retried;
    if (o.sent && !o.ok) {
      ++r.failed;
      ++r.errors[o.error_kind];
    }
    r.samples[i].outcome = std::move(o);
  }
  if (!r.complete) {
    // Documents never sent are left out: the partial score covers what was answered.
    r.samples.erase(
        std::remove_if(r.samples.begin(), r.samples.end(), [](const EvalSample& s) { return !s.outcome.sent; }),
        r.samples.end());
  }
  Score(r);

  if (!r.complete) r.invalid_reasons.push_back("stopped before every document was sent (incomplete)");
  const double share = r.samples.empty() ? 0.0 : static_cast<double>(r.failed) / static_cast<double>(r.samples.size());
  if (r.failed > 0 && share > settings.max_failed_share) {
    std::string kinds;
    for (const auto& [kind, count] : r.errors)
      kinds += (kinds.empty() ? "" : ", ") + kind + " " + std::to_string(count);
    r.invalid_reasons.push_back(std::to_string(r.failed) + " of " + std::to_string(r.samples.size()) +
                                " requests failed after " + std::to_string(settings.client.max_retries) +
                                " attempts (" + kinds + "), more than the allowed share " +
                                std::to_string(settings.max_failed_share));
  }
  if (r.samples.empty()) r.invalid_reasons.push_back("no document was scored");
  return r;
}

}  // namespace infermark::eval
