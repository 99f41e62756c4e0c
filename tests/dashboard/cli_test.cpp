// `infermark dashboard` as a person runs it: the URL printed once it listens (--port 0), the API
// served from the store given, SIGTERM ends it with 0; bad stores and binds end it at once with 2.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "core/json_text.hpp"
#include "dashboard_fixture.hpp"
#include "http/client.hpp"
#include "run_binary.hpp"

namespace infermark::dashboard {
namespace {

// Starts `infermark dashboard ARGS` and reads its stdout until the serving line; returns the URL
// ("" when it exited first) and leaves the child's pid in `pid`.
std::string StartDashboard(const std::vector<std::string>& args, pid_t& pid) {
  int out[2];
  if (pipe(out) != 0) return "";
  pid = fork();
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, STDERR_FILENO);
    close(out[0]);
    std::vector<std::string> all{infermark::test::Binary(), "dashboard"};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out[1]);
  std::string text;
  const std::string marker = "infermark dashboard: serving ";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{out[0], POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    char buf[256];
    const ssize_t n = read(out[0], buf, sizeof buf);
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    const std::size_t at = text.find(marker);
    const std::size_t eol = at == std::string::npos ? std::string::npos : text.find('\n', at);
    if (eol != std::string::npos) {
      close(out[0]);
      return text.substr(at + marker.size(), eol - at - marker.size());
    }
  }
  close(out[0]);
  return "";
}

TEST(DashboardCli, PrintsItsUrlServesTheStoreAndStopsOnSigterm) {
  const auto dir = test::TempDir("cli");
  const std::string store = (dir / "store.db").string();
  test::FillStore(store);
  pid_t pid = 0;
  const std::string url = StartDashboard({"--db", "sqlite:" + store, "--port", "0", "--prices", "none"}, pid);
  ASSERT_EQ(url.rfind("http://127.0.0.1:", 0), 0u) << url;
  http::ClientOptions options;
  options.port = static_cast<std::uint16_t>(std::stoi(url.substr(17)));
  http::Client client(options);
  http::ClientRequest request;
  request.method = "GET";
  request.target = "/api/v1/runs";
  request.content_type.clear();
  const http::FetchResult runs = client.Fetch(request);
  EXPECT_EQ(runs.head.status, 200);
  EXPECT_EQ(Json::parse(runs.body)["runs"].size(), 3u);
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::filesystem::remove_all(dir);
}

TEST(DashboardCli, BadStoresAndBindsEndItWithTwo) {
  const auto dir = test::TempDir("cli_bad");
  const ProcessResult missing =
      infermark::test::RunInfermark({"dashboard", "--db", (dir / "none.db").string(), "--port", "0"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no results store here"), std::string::npos) << missing.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "none.db"));
  const ProcessResult scheme = infermark::test::RunInfermark({"dashboard", "--db", "mongodb://host/db", "--port", "0"});
  EXPECT_EQ(scheme.exit_code, 2);
  EXPECT_NE(scheme.err.find("unknown store URL scheme 'mongodb'"), std::string::npos) << scheme.err;
  const std::string store = (dir / "store.db").string();
  test::FillStore(store);
  const ProcessResult bind =
      infermark::test::RunInfermark({"dashboard", "--db", store, "--bind", "0.0.0.0", "--port", "0"});
  EXPECT_EQ(bind.exit_code, 2);
  EXPECT_NE(bind.err.find("--token"), std::string::npos) << bind.err;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace infermark::dashboard
