// posix_spawn with POSIX_SPAWN_SETPGROUP: the child leads a new group from its first
// instruction, so there is no window in which a signal to the group would miss it.
#include "runner/process_group.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "runner/stop_signal.hpp"

extern char** environ;

namespace infermark::runner {
namespace {

using Seconds = std::chrono::duration<double>;

int DecodeStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// This environment with `overrides` applied (later entries win).
std::vector<std::string> MergedEnvironment(const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::map<std::string, std::string> vars;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry(*e);
    const auto eq = entry.find('=');
    if (eq != std::string::npos) vars[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [k, v] : overrides) vars[k] = v;
  std::vector<std::string> out;
  out.reserve(vars.size());
  for (const auto& [k, v] : vars) out.push_back(k + "=" + v);
  return out;
}

// RAII for the spawn attribute objects.
struct SpawnSetup {
  posix_spawn_file_actions_t actions{};
  posix_spawnattr_t attr{};
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

}  // namespace

ProcessGroup::ProcessGroup(const SpawnSpec& spec) {
  if (spec.argv.empty()) throw std::runtime_error("cannot start a process without a program");
  SpawnSetup s;
  posix_spawn_file_actions_addopen(&s.actions, 0, "/dev/null", O_RDONLY, 0);
  const std::string log = spec.log_path.empty() ? "/dev/null" : spec.log_path;
  posix_spawn_file_actions_addopen(&s.actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&s.actions, 1, 2);
  if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&s.actions, spec.cwd.c_str());
  // A sweep's handlers must not be inherited; SIGPIPE ignored by the parent must not be either.
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGCHLD}) sigaddset(&defaults, sig);
  sigset_t empty;
  sigemptyset(&empty);
  posix_spawnattr_setsigdefault(&s.attr, &defaults);
  posix_spawnattr_setsigmask(&s.attr, &empty);
  posix_spawnattr_setpgroup(&s.attr, 0);
  posix_spawnattr_setflags(&s.attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_strings = MergedEnvironment(spec.env);
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);

  const int rc = posix_spawnp(&pid_, argv[0], &s.actions, &s.attr, argv.data(), envp.data());
  if (rc != 0) {
    pid_ = -1;
    throw std::runtime_error("cannot start '" + spec.argv[0] + "': " + std::strerror(rc));
  }
  RegisterGroup(pid_);
}

ProcessGroup::~ProcessGroup() {
  if (pid_ > 0 && !stopped_) Stop();
}

std::optional<int> ProcessGroup::Poll() {
  if (status_ || pid_ <= 0) return status_;
  int status = 0;
  const pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) status_ = DecodeStatus(status);
  return status_;
}

std::optional<int> ProcessGroup::WaitFor(std::chrono::duration<double> timeout) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::nanoseconds>(timeout);
  while (!Poll()) {
    if (StopRequested() != 0 || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return status_;
}

void ProcessGroup::Reap() {
  Poll();
  // Members of the group this process adopted (BecomeSubreaper) end as its zombies.
  int status = 0;
  while (waitpid(-pid_, &status, WNOHANG) > 0) {
  }
}

bool ProcessGroup::GroupAlive() {
  if (pid_ <= 0) return false;
  Reap();
  return kill(-pid_, 0) == 0 || errno == EPERM;
}

int ProcessGroup::Stop(std::chrono::duration<double> grace) {
  if (pid_ <= 0) return status_.value_or(-1);
  if (!stopped_) {
    stopped_ = true;
    kill(-pid_, SIGTERM);
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::nanoseconds>(grace);
    while (GroupAlive() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    // Zombies that belong to another reaper answer kill(0) too; after SIGKILL they are all that
    // can be left, so the wait below is bounded rather than until the group is empty.
    if (GroupAlive()) {
      kill(-pid_, SIGKILL);
      const auto hard = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (GroupAlive() && std::chrono::steady_clock::now() < hard) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    if (!status_) {
      int status = 0;
      if (waitpid(pid_, &status, 0) == pid_) status_ = DecodeStatus(status);
    }
    UnregisterGroup(pid_);
  }
  return status_.value_or(-1);
}

namespace {

// Field 22 of /proc/PID/stat (start time in clock ticks since boot); "" when the process is gone.
std::string StartTime(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return {};
  const auto close = line.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream fields(line.substr(close + 2));
  std::string f;
  for (int i = 3; i <= 22 && fields >> f; ++i) {
  }
  return f;
}

}  // namespace

void RecordGroup(const std::string& file, pid_t pgid) {
  std::ofstream out(file, std::ios::app);
  out << pgid << ' ' << StartTime(pgid) << '\n';
}

int KillRecordedGroups(const std::string& file) {
  std::ifstream in(file);
  if (!in) return 0;
  int killed = 0;
  long pgid = 0;
  std::string start;
  while (in >> pgid >> start) {
    const auto p = static_cast<pid_t>(pgid);
    if (p > 1 && !start.empty() && StartTime(p) == start && kill(-p, SIGKILL) == 0) ++killed;
  }
  in.close();
  std::remove(file.c_str());
  return killed;
}

int KillMarkedProcesses(const std::vector<std::string>& marks) {
  if (marks.empty()) return 0;
  std::set<std::string> wanted;
  for (const auto& m : marks) wanted.insert(std::string(kRowMarkVariable) + "=" + m);
  const pid_t self = getpid();
  std::vector<pid_t> killed;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto pid = static_cast<pid_t>(std::stol(name));
    if (pid == self) continue;
    std::ifstream in(entry.path() / "environ", std::ios::binary);
    for (std::string var; std::getline(in, var, '\0');) {
      if (wanted.count(var) != 0) {
        if (kill(pid, SIGKILL) == 0) killed.push_back(pid);
        break;
      }
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (const pid_t pid : killed) {
    while (std::chrono::steady_clock::now() < deadline) {
      // Gone, or a zombie: it holds no port or file any more.
      std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
      std::string line;
      std::getline(stat, line);
      const auto close = line.rfind(')');
      if (close == std::string::npos || line.size() <= close + 2 || line[close + 2] == 'Z') break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  return static_cast<int>(killed.size());
}

void BecomeSubreaper() {
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

}  // namespace infermark::runner
