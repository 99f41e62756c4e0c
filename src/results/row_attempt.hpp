// One attempt at running one matrix row, as the store keeps it for the reliability view: how it
// ended (a point, VALID or INVALID; a failure and its class; measured again because the host
// spoiled it; skipped), where and how it ran (runner label, GPU, executor, target, host), when and
// for how long, and for an attempt without a usable point what it left: its result file, the tail
// of the client's log and the tail of the server's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace infermark::results {

/// How an attempt ended.
enum class AttemptOutcome {
  kCompleted,  ///< A point its run judged VALID (or that carries no verdict).
  kInvalid,    ///< A point its run judged INVALID, kept as the row's point.
  kFailed,     ///< No usable point: see the failure class and the reason.
  kRetried,    ///< A point the host alone spoiled, measured again (`--host-retries`); kept aside.
  kSkipped,    ///< Not run: the row's result was already complete.
};

/// `completed`, `invalid`, `failed`, `retried` or `skipped`.
const char* AttemptOutcomeName(AttemptOutcome outcome);
/// The outcome `text` names; nullopt for anything else.
std::optional<AttemptOutcome> ParseAttemptOutcome(const std::string& text);

/// Why an attempt failed (kNone for any outcome but failed).
enum class FailureClass {
  kNone,         ///< Not a failure.
  kStartup,      ///< The server or launcher could not start, or exited before it was ready.
  kReadiness,    ///< The server did not become ready within the start-up timeout.
  kClientError,  ///< The client (or a launcher's run) ended without a usable result.
  kServerExit,   ///< The server exited by itself during the load.
  kTimeout,      ///< The row ran past its time limit.
  kKilled,       ///< A signal ended it: the sweep was stopped, or a process of the row was killed.
  kStore,        ///< The result could not be stored.
};

/// `` (none), `startup`, `readiness`, `client_error`, `server_exit`, `timeout`, `killed` or `store`.
const char* FailureClassName(FailureClass failure);
/// The class `text` names (`` is kNone); nullopt for anything else.
std::optional<FailureClass> ParseFailureClass(const std::string& text);

/// One attempt, ready to store or read back.
struct RowAttempt {
  std::int64_t id = 0;                               ///< Store id (0 before storing).
  std::int64_t run_id = 0;                           ///< Store id of its run (filled when read back).
  std::string run_key;                               ///< Its run's key (filled when read back).
  std::string result_filename;                       ///< The row's RESULT_FILENAME stem.
  int attempt = 1;                                   ///< 1-based, per row and sweep invocation.
  AttemptOutcome outcome = AttemptOutcome::kFailed;  ///< How it ended.
  FailureClass failure = FailureClass::kNone;        ///< Why it failed (failed attempts only).
  std::string row_status;                            ///< The row state's status (`done`, `eval-failed`…).
  std::string reason;                                ///< Why it is not VALID, in the runner's words.
  std::string runner_label;                          ///< The matrix row's runner label.
  std::string hw;                                    ///< The GPU the label runs on (`cluster:` labels resolved).
  std::string executor;                              ///< `local` or `slurm`.
  std::string target;                                ///< `engine`, `script`, `container` or `command`.
  std::string host;                                  ///< Host that ran it.
  std::string model;                                 ///< The row's model.
  std::string framework;                             ///< The row's framework.
  std::string precision;                             ///< The row's precision.
  long long isl = 0;                                 ///< Input length (0 for agentic rows).
  long long osl = 0;                                 ///< Output length (0 for agentic rows).
  long long conc = 0;                                ///< Concurrency (users for agentic rows).
  std::string config_key;                            ///< The recipe's config key, when known.
  std::string started_at;                            ///< When it started, ISO 8601 UTC.
  std::optional<double> duration_s;                  ///< How long it took (wall time).
  std::string result_json;      ///< The attempt's client result when it has no stored point (failed, retried).
  std::string client_log_tail;  ///< The end of the client's log (failed and retried attempts).
  std::string server_log_tail;  ///< The end of the server's or launcher's log (failed and retried attempts).
  std::string recorded_at;      ///< When it was stored (filled when read back).

  /// Its natural key within a run: the stem, the attempt number and the start time, so that the
  /// same attempt stored twice (by the sweep, then by `results ingest` of its folder) is one row.
  [[nodiscard]] std::string AttemptKey() const;
  /// True for outcomes that count as a job that succeeded in the reliability view (completed).
  [[nodiscard]] bool Succeeded() const { return outcome == AttemptOutcome::kCompleted; }
};

/// How much of a log an attempt keeps: its last lines, at most this many bytes.
inline constexpr std::size_t kLogTailBytes = 16 * 1024;

/// The end of the file at `path` (at most `max_bytes`, cut at a line start when it was cut), "" when
/// it cannot be read.
std::string FileTail(const std::string& path, std::size_t max_bytes = kLogTailBytes);

}  // namespace infermark::results
