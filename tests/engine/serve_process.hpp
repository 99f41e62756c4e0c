// Black-box helper: runs `infermark engine serve … --port 0` as a child process, waits for its
// ready line and learns the port from it; SIGTERM and the exit status at the end.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_paths.hpp"

namespace infermark::test {

/// A running `infermark engine serve`.
class ServeProcess {
 public:
  /// Starts the server with `args` after `engine serve` (add --port 0) and waits up to two minutes
  /// for its ready line. Its stderr goes to `stderr_path`, which is removed with the process unless
  /// the test has failed by then (inspect it when one does).
  ServeProcess(const std::vector<std::string>& args, const std::string& stderr_path) : stderr_path_(stderr_path) {
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("pipe");
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork");
    if (pid_ == 0) {
      dup2(out[1], STDOUT_FILENO);
      const int err = open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (err >= 0) dup2(err, STDERR_FILENO);
      close(out[0]);
      std::vector<std::string> all{Binary(), "engine", "serve"};
      all.insert(all.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (auto& a : all) argv.push_back(a.data());
      argv.push_back(nullptr);
      chdir(INFERMARK_SOURCE_DIR);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    out_ = out[0];
    const std::string marker = "listening on http://";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{out_, POLLIN, 0};
      if (poll(&p, 1, 200) <= 0) continue;
      char buf[512];
      const ssize_t n = read(out_, buf, sizeof buf);
      if (n <= 0) break;
      stdout_.append(buf, static_cast<std::size_t>(n));
      const auto at = stdout_.find(marker);
      const auto eol = at == std::string::npos ? std::string::npos : stdout_.find('\n', at);
      if (eol != std::string::npos) {
        const std::string url = stdout_.substr(at + marker.size(), eol - at - marker.size());
        port_ = static_cast<std::uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));
        return;
      }
    }
    Terminate();
    throw std::runtime_error("the server printed no ready line; stdout: " + stdout_);
  }
  ~ServeProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_ >= 0) close(out_);
    if (!::testing::Test::HasFailure()) std::remove(stderr_path_.c_str());
  }
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  /// The port it listens on.
  std::uint16_t port() const { return port_; }
  /// Its process id.
  pid_t pid() const { return pid_; }

  /// Sends SIGTERM and returns the exit status (128 + signal when killed; -1 after two minutes).
  int Terminate() {
    if (pid_ <= 0) return -1;
    kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    int status = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      const pid_t r = waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      usleep(10'000);
    }
    return -1;
  }

 private:
  std::string stderr_path_;
  pid_t pid_ = -1;
  int out_ = -1;
  std::uint16_t port_ = 0;
  std::string stdout_;
};

}  // namespace infermark::test
