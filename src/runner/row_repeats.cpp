#include "runner/row_repeats.hpp"

#include <filesystem>

#include "core/file_io.hpp"
#include "metrics/repeat_result.hpp"
#include "metrics/result_json.hpp"
#include "runner/stop_signal.hpp"
#include "runner/sweep.hpp"

namespace infermark::runner {

namespace fs = std::filesystem;

RowOutcome RunRowRepeats(const RowPlan& plan, const RowLimits& limits,
                         const std::function<RowOutcome(const RowPlan&, const RowLimits&)>& run, int host_retries) {
  const std::string name = fs::path(plan.result_path).filename().string();
  const fs::path dir = fs::path(plan.result_path).parent_path();
  std::vector<Json> results;
  metrics::RepeatSetup setup;
  setup.fresh_server = true;
  RowOutcome total;
  RowPlan one = plan;
  for (int k = 1; k <= plan.repeats; ++k) {
    int retries = 0;
    RowOutcome outcome = run(one, limits);
    while (outcome.status == RowStatus::kInvalid && retries < host_retries && StopRequested() == 0 &&
           InvalidForTheHostAlone(plan.result_path)) {
      ++retries;
      std::error_code ec;
      const std::string kept = (dir / metrics::RepeatAttemptFileName(name, k, retries)).string();
      fs::rename(plan.result_path, kept, ec);
      total.earlier_attempts.push_back("repeat " + std::to_string(k) + ": " + outcome.reason + " (result kept as " +
                                       kept + ")");
      total.seconds += outcome.seconds;
      outcome = run(one, limits);
    }
    total.seconds += outcome.seconds;
    total.ready_s += outcome.ready_s;
    total.warnings.insert(total.warnings.end(), outcome.warnings.begin(), outcome.warnings.end());
    total.power_reasons.insert(total.power_reasons.end(), outcome.power_reasons.begin(), outcome.power_reasons.end());
    if (k == 1) total.evals = outcome.evals;
    one.eval.reset();  // the eval ran against the first repeat's server
    const bool measured = outcome.status == RowStatus::kDone || outcome.status == RowStatus::kInvalid ||
                          outcome.status == RowStatus::kEvalFailed;
    if (!measured) {
      total.status = outcome.status;
      total.reason = "repeat " + std::to_string(k) + " of " + std::to_string(plan.repeats) + ": " + outcome.reason +
                     " (" + std::to_string(results.size()) + " repeat(s) kept beside the row's result)";
      return total;
    }
    const std::string file = metrics::RepeatFileName(name, k);
    std::error_code ec;
    fs::rename(plan.result_path, dir / file, ec);
    if (ec) {
      total.status = RowStatus::kFailed;
      total.reason = "repeat " + std::to_string(k) + ": its result could not be kept: " + ec.message();
      return total;
    }
    results.push_back(Json::parse(ReadFile((dir / file).string())));
    setup.files.push_back(file);
    setup.retries.push_back(retries);
  }
  const Json combined = metrics::CombineRepeatResults(results, setup);
  metrics::WriteResultJson(plan.result_path, combined);
  if (const auto power = combined.find("power_valid"); power != combined.end() && power->is_number()) {
    total.power_valid = power->get<int>() == 1;
  }
  if (combined.value("verdict", "VALID") == "INVALID") {
    total.status = RowStatus::kInvalid;
    std::string reasons;
    for (const Json& r : combined["verdict_reasons"]) reasons += (reasons.empty() ? ": " : "; ") + r.get<std::string>();
    total.reason = "point judged INVALID" + reasons;
  } else {
    total.status = RowStatus::kDone;
  }
  ApplyEvalVerdict(total);
  return total;
}

}  // namespace infermark::runner
