// Running one planned row locally: start, wait until ready, load, stop everything, judge.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results/row_attempt.hpp"
#include "runner/log_warnings.hpp"
#include "runner/row_plan.hpp"

namespace infermark::runner {

/// How a row ended.
enum class RowStatus {
  kDone,         ///< The result file was written and the client exited 0.
  kInvalid,      ///< The result file was written but the client judged the run INVALID (exit 1).
  kFailed,       ///< No usable result: see the reason.
  kInterrupted,  ///< A stop signal ended it.
  kSkipped,      ///< Not run: a complete result was already there.
  /// The row's eval failed its threshold or was INVALID; its throughput point (when it has one)
  /// kept its result and is stored as usual.
  kEvalFailed,
};

/// Lower-case name ("done", "invalid", "failed", "interrupted", "skipped", "eval-failed").
const char* StatusName(RowStatus status);

/// The outcome of one row.
struct RowOutcome {
  RowStatus status = RowStatus::kFailed;   ///< How it ended.
  std::string reason;                      ///< Why, when not done.
  std::vector<LogWarning> warnings;        ///< Found in the server log.
  double seconds = 0;                      ///< Wall time of the row.
  double ready_s = 0;                      ///< Seconds until the server was ready.
  std::optional<bool> power_valid;         ///< `power_valid` written to the result, when the row sampled power.
  std::vector<std::string> power_reasons;  ///< Why power is invalid or telemetry failed.
  std::vector<eval::EvalStatus> evals;     ///< Eval rows: each eval's status (as its eval_status.json).
  /// Attempts run again because the host, not the target, made them INVALID (SweepSettings::
  /// host_retries), oldest first: each one's reason and where its result file was kept.
  std::vector<std::string> earlier_attempts;
  /// This sweep's attempts at the row, oldest first, as its row state lists them (runner/attempt_record.hpp).
  std::vector<results::RowAttempt> attempts;
};

/// Applies the evals' verdict to a row that has its result: a failed or INVALID eval turns done
/// or invalid into eval-failed, its reasons appended.
void ApplyEvalVerdict(RowOutcome& outcome);

/// Limits of one row.
struct RowLimits {
  double startup_timeout_s = 900;  ///< Readiness.
  double row_timeout_s = 7200;     ///< The whole row.
  double stop_grace_s = 10;        ///< SIGTERM → SIGKILL.
};

/// The reasons of a load generator's INVALID verdict in its log (its "  - reason" lines), as
/// ": a; b", or "" when there are none.
std::string VerdictReasons(const std::string& client_log);

/// Runs `plan` on this machine. Never throws for a failure of the row itself (it becomes the
/// outcome); every process it started is gone when it returns.
RowOutcome RunRowLocally(const RowPlan& plan, const RowLimits& limits);

}  // namespace infermark::runner
