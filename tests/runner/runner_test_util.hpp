// Helpers of the runner tests: scratch folders, free ports, rows for the test launcher scripts,
// and checks that processes are gone.
#pragma once

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "catalog/catalog_loader.hpp"
#include "core/json_text.hpp"
#include "matrix/generator.hpp"
#include "matrix/matrix_row.hpp"
#include "scratch_dir.hpp"
#include "test_paths.hpp"

namespace infermark::test {

/// A port nothing listens on right now (the kernel's choice for an ephemeral bind).
inline int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

/// A base port below the ephemeral range with `count` free ports from it (a row's router and
/// workers, or a test cluster's daemons, listen on PORT, PORT+1, …; inside the ephemeral range another
/// test's client connection may hold one).
inline int FreePorts(int count) {
  static int next = 20000 + static_cast<int>(getpid() % 1000) * 10;
  for (;; next += count) {
    bool free = true;
    for (int p = next; p < next + count && free; ++p) {
      const int fd = socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_port = htons(static_cast<std::uint16_t>(p));
      free = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
      close(fd);
    }
    if (free) {
      next += count;
      return next - count;
    }
  }
}

/// `row` read as the runner reads matrix rows (its fields checked).
inline matrix::MatrixRow Typed(const Json& row) {
  return matrix::ReadMatrixRows({row}, "test row").front();
}

/// The founding recipe's (minimaxm3-fp4-mi355x-vllm, the project's catalog) row at `conc`, sequence
/// lengths `seq` and `tp`, as the matrix generates it without evals; null when there is none.
inline Json FoundingRow(std::int64_t conc, const std::string& seq = "8k1k", std::int64_t tp = 4) {
  const auto catalog = catalog::LoadMasterConfigs({SourcePath("recipes/configs/infermark-master.yaml")});
  const auto runners = catalog::LoadRunnerConfig(SourcePath("recipes/configs/runners.yaml"));
  matrix::TestConfigOptions o;
  o.config_keys = {"minimaxm3-fp4-mi355x-vllm"};
  o.common.evals.no_evals = true;
  for (const auto& row : matrix::GenerateTestConfig(catalog, runners, o)) {
    if (row["conc"] == conc && row["tp"] == tp && matrix::SeqLenName(row["isl"], row["osl"]) == seq) return row;
  }
  return Json();
}

/// A single-node matrix row whose launcher script is `tests/runner/scripts/<kind>_fp8_test_vllm.sh`.
inline Json ScriptRow(const std::string& kind, int conc) {
  Json row = Json::object();
  row["image"] = "example/image:1";
  row["model"] = "test/model";
  row["model-prefix"] = kind;
  row["precision"] = "fp8";
  row["framework"] = "vllm";
  row["runner"] = "test";
  row["isl"] = 1024;
  row["osl"] = 1024;
  row["tp"] = 1;
  row["pp"] = 1;
  row["dcp-size"] = 1;
  row["pcp-size"] = 1;
  row["conc"] = conc;
  row["max-model-len"] = 2304;
  row["ep"] = 1;
  row["dp-attn"] = false;
  row["spec-decoding"] = "none";
  row["exp-name"] = kind + "_1k1k";
  row["disagg"] = false;
  row["run-eval"] = false;
  return row;
}

/// A site file with one label `test` whose target is the test scripts' folder.
inline std::string ScriptSite(const std::string& result_dir, int port, double startup_timeout_s = 60) {
  return "defaults: {port: " + std::to_string(port) + ", result-dir: '" + result_dir +
         "', stop-grace-s: 2, startup-timeout-s: " + std::to_string(startup_timeout_s) +
         ", runner-name: test_00}\nrunners:\n  test: {script: {dir: '" + SourcePath("tests/runner/scripts") + "'}}\n";
}

/// The pids the test scripts recorded in `<dir>/pids`.
inline std::vector<pid_t> RecordedPids(const std::string& dir) {
  std::vector<pid_t> pids;
  std::ifstream in(dir + "/pids");
  for (long p; in >> p;) pids.push_back(static_cast<pid_t>(p));
  return pids;
}

/// Whether a process with this pid exists and is not a zombie.
inline bool Alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return false;
  std::string line;
  std::getline(stat, line);
  const auto close = line.rfind(')');
  return close != std::string::npos && line.size() > close + 2 && line[close + 2] != 'Z';
}

}  // namespace infermark::test
