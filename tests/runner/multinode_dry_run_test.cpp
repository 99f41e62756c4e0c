// `infermark run --dry-run` on the InferenceX catalog's DeepSeek-R1 multi-node rows, black box:
// each row's block shows every prefill and decode worker (its node, GPUs and command line), the
// router in front of all of them, and one client per concurrency of the row, while nothing starts
// and no Slurm command is found (the rows are planned for the Slurm executor with an empty PATH).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "core/json_text.hpp"
#include "run_binary.hpp"
#include "runner_test_util.hpp"

namespace infermark::runner {
namespace {

namespace fs = std::filesystem;

// The dry run's output cut into one block of lines per row (a row's block starts unindented).
std::vector<std::vector<std::string>> Blocks(const std::string& out) {
  std::vector<std::vector<std::string>> blocks;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    if (line[0] != ' ') blocks.emplace_back();
    if (!blocks.empty()) blocks.back().push_back(line);
  }
  return blocks;
}

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::istringstream in(s);
  for (std::string part; std::getline(in, part, sep);) parts.push_back(part);
  return parts;
}

TEST(MultiNodeDryRun, ShowsEveryWorkerTheRouterAndAClientPerConcurrency) {
  test::ScratchDir dir;
  const fs::path empty_path = dir.path / "bin";
  fs::create_directories(empty_path);
  const std::string results = dir / "results";
  const std::vector<std::string> selection = {"--config-keys", "dsr1-*", "--config-files",
                                              test::SourcePath("tests/fixtures/inferencex/configs/amd-master.yaml"),
                                              test::SourcePath("tests/fixtures/inferencex/configs/nvidia-master.yaml")};

  std::vector<std::string> matrix_args = {"matrix", "test-config"};
  matrix_args.insert(matrix_args.end(), selection.begin(), selection.end());
  matrix_args.insert(matrix_args.end(), {"--format", "json"});
  const ProcessResult m = test::RunInfermark(matrix_args);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  const Json rows = Json::parse(m.out);

  std::vector<std::string> run = {"env", "PATH=" + empty_path.string(), test::Binary(), "run"};
  run.insert(run.end(), selection.begin(), selection.end());
  run.insert(run.end(), {"--site", test::SourcePath("infermark.yaml"), "--executor", "slurm", "--dry-run",
                         "--runner-name", "x", "--result-dir", results});
  const ProcessResult r = RunCapture(run);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(results)) << "a dry run writes nothing";
  const auto blocks = Blocks(r.out);
  ASSERT_EQ(blocks.size(), rows.size()) << r.out.substr(0, 2000);

  int multinode_rows = 0;
  std::size_t workers = 0;
  std::size_t clients = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Json& row = rows[i];
    const auto& block = blocks[i];
    if (!row.contains("prefill")) continue;
    ++multinode_rows;
    SCOPED_TRACE(block.front());
    const int prefill_workers = row["prefill"]["num-worker"].get<int>();
    const int decode_workers = row["decode"]["num-worker"].get<int>();
    std::map<std::string, int> role_lines;
    std::map<std::string, std::set<int>> gpus_by_node;
    std::vector<std::string> urls;
    std::vector<int> concs;
    std::string router;
    for (const std::string& line : block) {
      for (const std::string role : {"prefill", "decode"}) {
        if (!StartsWith(line, "  " + role + " ")) continue;
        ++role_lines[role];
        // "  prefill 0: <node0> GPUs 0,1,2,3 port 8889: /…/infermark engine serve --role prefill …"
        std::istringstream words(line);
        std::string word, nodes, gpus_word, gpus, port_word, port;
        words >> word >> word >> nodes >> gpus_word >> gpus >> port_word >> port;
        EXPECT_EQ(gpus_word, "GPUs") << line;
        EXPECT_NE(line.find("engine serve --role " + role), std::string::npos) << line;
        const int tp = row[role]["tp"].get<int>();
        const std::vector<std::string> node_list = Split(nodes, '+');
        const std::vector<std::string> devices = Split(gpus, ',');
        EXPECT_EQ(devices.size() * node_list.size(), static_cast<std::size_t>(tp)) << line;
        for (const auto& node : node_list) {
          for (const auto& g : devices) {
            const int gpu = std::stoi(g);
            EXPECT_LT(gpu, 8) << line;
            EXPECT_TRUE(gpus_by_node[node].insert(gpu).second) << "GPU " << gpu << " of " << node << " twice";
          }
        }
        urls.push_back("http://" + node_list.front() + ":" + port.substr(0, port.size() - 1));
      }
      if (StartsWith(line, "  router: ")) router = line;
      if (StartsWith(line, "  client conc ")) {
        concs.push_back(std::stoi(line.substr(14)));
        EXPECT_NE(line.find("bench serve"), std::string::npos) << line;
        EXPECT_NE(line.find("--max-concurrency " + std::to_string(concs.back()) + " "), std::string::npos) << line;
      }
    }
    EXPECT_EQ(role_lines["prefill"], prefill_workers);
    EXPECT_EQ(role_lines["decode"], decode_workers);
    ASSERT_FALSE(router.empty());
    EXPECT_NE(router.find("engine serve --role router"), std::string::npos) << router;
    for (const auto& url : urls) EXPECT_NE(router.find(url), std::string::npos) << url << " not in " << router;
    EXPECT_EQ(concs, row["conc"].get<std::vector<int>>());
    workers += static_cast<std::size_t>(prefill_workers + decode_workers);
    clients += concs.size();
  }
  // The fixture catalog's DeepSeek-R1 multi-node rows (InferenceX at the SOURCE.md commit).
  EXPECT_EQ(multinode_rows, 214);
  EXPECT_EQ(clients, 376u);
  EXPECT_GT(workers, 2u * static_cast<std::size_t>(multinode_rows));
}

}  // namespace
}  // namespace infermark::runner
