#include "eval/batched_eval.hpp"

#include <filesystem>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"
#include "loadgen/http_target.hpp"

namespace infermark::eval {
namespace {

void WriteBatchManifest(const BatchedEvalRun& batch, const EnvLookup& env, const RunDescription& run) {
  const long long first = batch.manifest.concs.front();
  const Json meta = WithEvalBatch(MetaEnvJson(env, run.model, static_cast<std::size_t>(first)), batch.manifest);
  WriteFileAtomic(batch.meta_env, meta.dump(2, ' ', false, Json::error_handler_t::replace));
}

}  // namespace

BatchedEvalRun RunBatchedEval(const EvalSettings& settings, const std::vector<long long>& concs,
                              const RunDescription& run, const std::string& dir, const EnvLookup& env,
                              const std::atomic<bool>* stop, const BeforeEachEval& before, const AfterEachEval& after,
                              const BatchProgress& progress) {
  if (concs.empty()) throw InputError(Diagnostic{SourceMark{}, "", "--concurrency", "names no concurrency"});
  for (std::size_t i = 0; i < concs.size(); ++i) {
    if (concs[i] < 1) throw InputError(Diagnostic{SourceMark{}, "", "--concurrency", "must be >= 1"});
    for (std::size_t j = 0; j < i; ++j) {
      if (concs[j] == concs[i]) {
        throw InputError(
            Diagnostic{SourceMark{}, "", "--concurrency", "names concurrency " + std::to_string(concs[i]) + " twice"});
      }
    }
  }
  // The task is read once before anything is written: a bad task file is bad input, not a failed
  // concurrency.
  LoadTask(settings.task);
  std::filesystem::create_directories(dir);
  BatchedEvalRun batch;
  batch.manifest.concs = concs;
  batch.meta_env = (std::filesystem::path(dir) / "meta_env.json").string();
  for (const long long conc : concs) {
    if (stop != nullptr && stop->load()) {
      batch.stopped = true;
      break;
    }
    const std::atomic<bool>* flag = before ? before(conc) : nullptr;
    EvalSettings s = settings;
    s.client.concurrency = static_cast<std::size_t>(conc);
    RunDescription r = run;
    r.concurrency = static_cast<std::size_t>(conc);
    BatchedEval e;
    e.concurrency = conc;
    try {
      e.result = RunEval(s, flag != nullptr ? flag : stop, [&](std::size_t done, std::size_t total) {
        if (progress) progress(conc, done, total);
      });
    } catch (const loadgen::ServerUnreachable& err) {
      e.problems.push_back(std::string("the server could not be reached: ") + err.what());
    }
    if (e.result) {
      e.files = WriteBatchedEvalFiles(dir, *e.result, r, FileStamp());
      e.completed = e.result->complete && e.result->invalid_reasons.empty();
      e.problems = e.result->invalid_reasons;
      if (!e.result->complete && stop != nullptr && stop->load()) batch.stopped = true;
    }
    (e.completed ? batch.manifest.completed : batch.manifest.failed).push_back(conc);
    WriteBatchManifest(batch, env, run);
    if (after) after(e);
    batch.evals.push_back(std::move(e));
    if (batch.stopped) break;
  }
  return batch;
}

}  // namespace infermark::eval
