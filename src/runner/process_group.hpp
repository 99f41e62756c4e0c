// A supervised child: one program started with an argv (never a shell string) as the leader of
// its own process group, its output captured to a log file. Stopping it stops the whole group —
// the server a launcher script started too — with SIGTERM, a grace period, then SIGKILL, so no
// process a row started outlives the row.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace infermark::runner {

/// How to start a child.
struct SpawnSpec {
  std::vector<std::string> argv;                         ///< Program (looked up in PATH) and arguments.
  std::vector<std::pair<std::string, std::string>> env;  ///< Variables set on top of this process's environment.
  std::string cwd;                                       ///< Working folder (empty: the current one).
  std::string log_path;                                  ///< stdout and stderr go here (appended); empty: /dev/null.
};

/// A running process group. Not copyable; the destructor stops the group.
class ProcessGroup {
 public:
  /// Starts `spec.argv` in a new process group (pgid = its pid), stdin from /dev/null and signals
  /// at their defaults. Throws std::runtime_error naming the program when it cannot be started.
  explicit ProcessGroup(const SpawnSpec& spec);
  /// Stops the group (default grace) unless already stopped.
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  /// The leader's pid, which is also the group id.
  [[nodiscard]] pid_t pid() const { return pid_; }
  /// The leader's exit status once it ended (exit code, or 128 + signal), reaping it; else nullopt.
  std::optional<int> Poll();
  /// Waits up to `timeout` for the leader to end, returning early when a stop signal arrives.
  std::optional<int> WaitFor(std::chrono::duration<double> timeout);
  /// Stops every process of the group: SIGTERM, up to `grace` for them to leave, then SIGKILL.
  /// Returns the leader's exit status. Safe to call more than once.
  int Stop(std::chrono::duration<double> grace = std::chrono::seconds(10));
  /// Whether any process of the group is still alive (zombies of the group are reaped first).
  bool GroupAlive();

 private:
  void Reap();

  pid_t pid_ = -1;
  std::optional<int> status_;
  bool stopped_ = false;
};

/// Appends `pgid` and its leader's start time to `file`, so that a later run can find the group
/// if this process is killed with SIGKILL before it could stop it.
void RecordGroup(const std::string& file, pid_t pgid);

/// Kills (SIGKILL) the groups recorded in `file` whose leader is still the same process (same
/// start time, so a reused pid is left alone), then removes the file. Returns how many it killed.
int KillRecordedGroups(const std::string& file);

/// The variable every process of a row carries (its value names the row: the row's groups file),
/// inherited by everything they start, so a later run finds the row's processes even when the
/// sweep was killed before it could record their group.
inline constexpr const char* kRowMarkVariable = "INFERMARK_ROW";

/// Kills (SIGKILL) every process but this one whose environment has kRowMarkVariable set to one of
/// `marks`, scanning /proc once, and waits up to 5 s for them to be gone. Returns how many it killed.
int KillMarkedProcesses(const std::vector<std::string>& marks);

/// Makes this process adopt the orphans of its descendants (Linux child subreaper), so that a
/// server whose launcher exited is still reaped here rather than left a zombie.
void BecomeSubreaper();

}  // namespace infermark::runner
