// The eval client's own cost: GSM8K's 1,319 test questions, 5-shot chat prompts built as lm-eval
// builds them, sent through src/eval's RunEval (the load generator's HTTP target) at concurrency
// 256 to a local server that answers each at once with the data's own worked answer, and every
// answer filtered and scored. The server runs in a forked child process, so the client's CPU time
// (getrusage of this process: prompt building, requests, streaming, scoring) is measured alone.
// Prints one table row per repetition: questions, concurrency, client CPU seconds (user + system),
// wall seconds, requests per second, the score (1.0: every answer came back and was read right)
// and failed requests; then the server's CPU for the whole run. Target: <= 5 s of client CPU on
// 2 cores.
// Usage: bench_eval [repetitions=3] [concurrency=256] [questions=1319]
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/clock.hpp"
#include "eval/eval_run.hpp"
#include "gsm8k_answer_server.hpp"

namespace {

double CpuSeconds(int who) {
  rusage usage{};
  getrusage(who, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// Forks the answering server; returns its pid and sets `port`.
pid_t StartServer(std::uint16_t& port) {
  int fds[2];
  if (pipe(fds) != 0) std::abort();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    infermark::test::AnswerServerOptions options;
    infermark::test::Gsm8kAnswerServer server(std::string(INFERMARK_SOURCE_DIR) + "/data/evals/gsm8k/test.jsonl",
                                              options);
    const std::uint16_t p = server.port();
    if (write(fds[1], &p, sizeof p) != static_cast<ssize_t>(sizeof p)) _exit(1);
    close(fds[1]);
    pause();  // until the benchmark kills it
    _exit(0);
  }
  close(fds[1]);
  if (read(fds[0], &port, sizeof port) != static_cast<ssize_t>(sizeof port)) {
    std::fprintf(stderr, "bench_eval: the server did not start\n");
    std::exit(1);
  }
  close(fds[0]);
  return pid;
}

}  // namespace

int main(int argc, char** argv) {
  const int repetitions = argc > 1 ? std::atoi(argv[1]) : 3;
  const std::size_t concurrency = argc > 2 ? static_cast<std::size_t>(std::atol(argv[2])) : 256;
  const std::size_t questions = argc > 3 ? static_cast<std::size_t>(std::atol(argv[3])) : 1319;
  setenv("INFERMARK_EVAL_DATA", INFERMARK_SOURCE_DIR "/data/evals", 0);
  std::uint16_t port = 0;
  const pid_t server = StartServer(port);

  infermark::eval::EvalSettings settings;
  settings.task = "gsm8k";
  settings.model = "gsm8k-oracle";
  settings.client.base_url = "http://127.0.0.1:" + std::to_string(port);
  settings.client.concurrency = concurrency;
  if (questions < 1319) settings.limit = questions;

  std::printf("%9s %11s %14s %8s %12s %7s %7s\n", "questions", "concurrency", "client CPU [s]", "wall [s]",
              "requests/s", "score", "failed");
  for (int r = 0; r < repetitions; ++r) {
    const double cpu0 = CpuSeconds(RUSAGE_SELF);
    const std::int64_t t0 = infermark::MonotonicNs();
    const infermark::eval::EvalResult result = infermark::eval::RunEval(settings);
    const double wall = static_cast<double>(infermark::MonotonicNs() - t0) / 1e9;
    const double cpu = CpuSeconds(RUSAGE_SELF) - cpu0;
    double score = -1;
    for (const auto& s : result.scores) {
      if (s.filter == "strict-match") score = s.value;
    }
    std::printf("%9zu %11zu %14.2f %8.2f %12.0f %7.4f %7zu\n", result.samples.size(), concurrency, cpu, wall,
                static_cast<double>(result.samples.size()) / wall, score, result.failed);
  }
  kill(server, SIGTERM);
  int status = 0;
  waitpid(server, &status, 0);
  std::printf("server (child process) CPU over all repetitions: %.2f s\n", CpuSeconds(RUSAGE_CHILDREN));
  return 0;
}
