// Error messages of the catalog readers: each problem names file:line:col, the entry, the field
// path and the rule, pointing at the value (or mapping) that breaks it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "catalog/catalog_loader.hpp"

namespace infermark::catalog {
namespace {

std::vector<std::string> MasterProblems(const std::string& text) {
  std::vector<Diagnostic> problems;
  ReadMasterConfig(ParseYaml(text, "m.yaml"), problems);
  std::vector<std::string> out;
  for (const auto& p : problems) out.push_back(p.ToString());
  return out;
}

std::vector<std::string> RunnerProblems(const std::string& text) {
  std::vector<Diagnostic> problems;
  ReadRunnerConfig(ParseYaml(text, "r.yaml"), problems);
  std::vector<std::string> out;
  for (const auto& p : problems) out.push_back(p.ToString());
  return out;
}

// A valid single-node entry; tests append to or edit its search-space entry (line 11).
const std::string kSingleNode =
    "sn:\n"                  // 1
    "  image: img\n"         // 2
    "  model: m\n"           // 3
    "  model-prefix: p\n"    // 4
    "  precision: fp8\n"     // 5
    "  framework: vllm\n"    // 6
    "  runner: h200\n"       // 7
    "  multinode: false\n"   // 8
    "  scenarios:\n"         // 9
    "    fixed-seq-len:\n"   // 10
    "    - isl: 8192\n"      // 11
    "      osl: 1024\n"      // 12
    "      search-space:\n"  // 13
    "      - tp: 8\n";       // 14, entry fields at column 9
const std::string kRange = "        conc-start: 4\n        conc-end: 64\n";

// A valid multi-node disaggregated entry with a top-level transfer.
const std::string kMultiNode =
    "mn:\n"                                                             // 1
    "  image: img\n"                                                    // 2
    "  model: m\n"                                                      // 3
    "  model-prefix: p\n"                                               // 4
    "  precision: fp8\n"                                                // 5
    "  framework: sglang-disagg\n"                                      // 6
    "  runner: mi355x-disagg\n"                                         // 7
    "  kv-p2p-transfer: mori\n"                                         // 8
    "  multinode: true\n"                                               // 9
    "  disagg: true\n"                                                  // 10
    "  scenarios:\n"                                                    // 11
    "    fixed-seq-len:\n"                                              // 12
    "    - isl: 8192\n"                                                 // 13
    "      osl: 1024\n"                                                 // 14
    "      search-space:\n"                                             // 15
    "      - conc-list: [8, 16]\n"                                      // 16
    "        prefill: {num-worker: 1, tp: 8, ep: 1, dp-attn: false}\n"  // 17
    "        decode: {num-worker: 1, tp: 8, ep: 1, dp-attn: false}\n";  // 18

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(MasterConfigMessages, BaseEntriesAreValid) {
  EXPECT_TRUE(MasterProblems(kSingleNode + kRange).empty());
  EXPECT_TRUE(MasterProblems(kMultiNode).empty());
}

TEST(MasterConfigMessages, UnknownFieldPointsAtTheKey) {
  EXPECT_EQ(MasterProblems(kSingleNode + kRange + "        foo: 1\n"),
            std::vector<std::string>{"m.yaml:17:9: entry 'sn' field 'scenarios.fixed-seq-len[0].search-space[0].foo': "
                                     "unknown field (extra fields are not permitted)"});
}

TEST(MasterConfigMessages, MissingFieldNamesTheMapping) {
  EXPECT_EQ(MasterProblems(Replace(kSingleNode + kRange, "  model: m\n", "")),
            std::vector<std::string>{"m.yaml:2:3: entry 'sn' field 'model': field required"});
}

TEST(MasterConfigMessages, ConcRangeOutOfOrder) {
  EXPECT_EQ(MasterProblems(kSingleNode + "        conc-start: 64\n        conc-end: 4\n"),
            std::vector<std::string>{"m.yaml:15:21: entry 'sn' field 'scenarios.fixed-seq-len[0].search-space[0]."
                                     "conc-start': 'conc-start' (64) must be <= 'conc-end' (4)."});
}

TEST(MasterConfigMessages, ConcNeitherRangeNorList) {
  EXPECT_EQ(MasterProblems(kSingleNode + "        conc-start: 4\n"),
            std::vector<std::string>{"m.yaml:14:9: entry 'sn' field 'scenarios.fixed-seq-len[0].search-space[0]': "
                                     "Must specify either 'conc-list' list or both 'conc-start' and 'conc-end'."});
}

TEST(MasterConfigMessages, TpNotDivisibleByDcp) {
  EXPECT_EQ(MasterProblems(kSingleNode + kRange + "        dcp-size: 3\n"),
            std::vector<std::string>{"m.yaml:14:9: entry 'sn' field 'scenarios.fixed-seq-len[0].search-space[0].tp': "
                                     "'tp' (8) must be divisible by 'dcp-size' (3)"});
}

TEST(MasterConfigMessages, StrictParallelismRejectsBool) {
  EXPECT_EQ(MasterProblems(kSingleNode + kRange + "        pp: true\n"),
            std::vector<std::string>{"m.yaml:17:13: entry 'sn' field 'scenarios.fixed-seq-len[0].search-space[0].pp': "
                                     "expected an integer, got a boolean ('true')"});
}

TEST(MasterConfigMessages, WildcardKey) {
  const auto problems = MasterProblems(Replace(kSingleNode + kRange, "sn:", "sn-*:"));
  ASSERT_EQ(problems.size(), 1U);
  EXPECT_EQ(problems[0],
            "m.yaml:1:1: entry 'sn-*': Wildcard '*' is not allowed in master config keys (reserved for changelog "
            "globs)");
}

TEST(MasterConfigMessages, DisaggWithoutTransfer) {
  EXPECT_EQ(MasterProblems(Replace(kMultiNode, "  kv-p2p-transfer: mori\n", "")),
            std::vector<std::string>{"m.yaml:9:11: entry 'mn' field 'disagg': disagg=true requires kv-p2p-transfer at "
                                     "the top level or in every search-space entry"});
}

TEST(MasterConfigMessages, TransferOnSingleNodeIsUnknown) {
  EXPECT_EQ(MasterProblems(
                Replace(kSingleNode + kRange, "  multinode: false\n", "  multinode: false\n  kv-p2p-transfer: nixl\n")),
            std::vector<std::string>{
                "m.yaml:9:3: entry 'sn' field 'kv-p2p-transfer': unknown field (extra fields are not permitted)"});
}

TEST(MasterConfigMessages, RouterImageVersion) {
  EXPECT_EQ(MasterProblems(Replace(kMultiNode, "  kv-p2p-transfer: mori\n",
                                   "  kv-p2p-transfer: mori\n  router: {name: r, version: 'image:x'}\n")),
            std::vector<std::string>{"m.yaml:9:30: entry 'mn' field 'router.version': component version must be a "
                                     "release, package version, or source commit, not an image reference"});
}

TEST(MasterConfigMessages, HardwareOnPrefillOnly) {
  EXPECT_EQ(MasterProblems(Replace(kMultiNode, "num-worker: 1, tp: 8, ep: 1, dp-attn: false}\n        decode",
                                   "num-worker: 1, tp: 8, ep: 1, dp-attn: false, hardware: mi355x}\n        decode")),
            std::vector<std::string>{"m.yaml:16:9: entry 'mn' field "
                                     "'scenarios.fixed-seq-len[0].search-space[0].prefill.hardware': 'hardware' must "
                                     "be specified for both 'prefill' and 'decode', or neither"});
}

TEST(MasterConfigMessages, WorkerTpNotDivisibleByDcp) {
  EXPECT_EQ(MasterProblems(Replace(kMultiNode, "prefill: {num-worker: 1,", "prefill: {dcp-size: 3, num-worker: 1,")),
            std::vector<std::string>{"m.yaml:17:18: entry 'mn' field "
                                     "'scenarios.fixed-seq-len[0].search-space[0].prefill.tp': 'tp' (8) must be "
                                     "divisible by 'dcp-size' (3)"});
}

// A valid single-node agentic entry (dram offloading).
const std::string kAgentic =
    "ag:\n"                                          // 1
    "  image: img\n"                                 // 2
    "  model: m\n"                                   // 3
    "  model-prefix: p\n"                            // 4
    "  precision: fp8\n"                             // 5
    "  framework: vllm\n"                            // 6
    "  runner: cluster:mi355x-amds\n"                // 7
    "  multinode: false\n"                           // 8
    "  scenarios:\n"                                 // 9
    "    agentic-coding:\n"                          // 10
    "    - dram-utilization: 0.5\n"                  // 11
    "      search-space:\n"                          // 12
    "      - tp: 8\n"                                // 13
    "        kv-offloading: dram\n"                  // 14
    "        kv-offload-backend: {name: lmcache}\n"  // 15
    "        conc-list: [1, 2]\n";                   // 16

TEST(MasterConfigMessages, AgenticRules) {
  EXPECT_TRUE(MasterProblems(kAgentic).empty());
  EXPECT_EQ(MasterProblems(Replace(kAgentic, "cluster:mi355x-amds", "mi355x")),
            std::vector<std::string>{"m.yaml:7:11: entry 'ag' field 'runner': Agentic master configs must use a "
                                     "'cluster:<name>' runner so every point runs on one exact hardware fleet."});
  EXPECT_EQ(MasterProblems(Replace(kAgentic, "    - dram-utilization: 0.5\n      search-space", "    - search-space")),
            std::vector<std::string>{"m.yaml:11:7: entry 'ag' field 'scenarios.agentic-coding[0].dram-utilization': "
                                     "kv-offloading='dram' requires dram-utilization with runner hardware metadata"});
  EXPECT_EQ(MasterProblems(Replace(kAgentic, "        kv-offload-backend: {name: lmcache}\n", "")),
            std::vector<std::string>{"m.yaml:13:9: entry 'ag' field "
                                     "'scenarios.agentic-coding[0].search-space[0].kv-offload-backend': "
                                     "kv-offload-backend is required when kv-offloading is 'dram'"});
  EXPECT_EQ(MasterProblems(Replace(kAgentic, "0.5", ".nan")),
            std::vector<std::string>{"m.yaml:11:25: entry 'ag' field 'scenarios.agentic-coding[0].dram-utilization': "
                                     "must be greater than 0 and at most 1"});
}

TEST(MasterConfigMessages, EmptyFileIsReportedOnLineOne) {
  EXPECT_EQ(
      MasterProblems("# nothing\n"),
      std::vector<std::string>{"m.yaml:1:1: a master config file must contain a mapping of config keys, got null"});
}

TEST(RunnerConfigMessages, LabelRules) {
  const std::string base = "labels:\n  h100:\n  - h100-cw_00\n";
  EXPECT_TRUE(RunnerProblems(base).empty());
  EXPECT_EQ(RunnerProblems(base + "  h200: []\n"),
            std::vector<std::string>{"r.yaml:4:9: field 'labels.h200': Runner config entry 'h200' cannot be an empty "
                                     "list"});
  EXPECT_EQ(RunnerProblems(base + "  h200: h200-cw_00\n"),
            std::vector<std::string>{"r.yaml:4:9: field 'labels.h200': Runner config entry 'h200' must be a list, "
                                     "got a string"});
  EXPECT_EQ(RunnerProblems(base + "  123: [x]\n"),
            std::vector<std::string>{"r.yaml:4:3: field 'labels': keys must be strings, got an integer ('123')"});
  EXPECT_EQ(RunnerProblems("labels: [h100]\n"),
            std::vector<std::string>{"r.yaml:1:9: field 'labels': Runner config must define a labels mapping"});
  EXPECT_EQ(RunnerProblems(""),
            std::vector<std::string>{"r.yaml:1:1: field 'labels': Runner config must define a labels mapping"});
}

TEST(RunnerConfigMessages, HardwareRules) {
  const std::string base = "labels:\n  h100:\n  - h100-cw_00\nhardware:\n  cluster:h100:\n";
  EXPECT_TRUE(RunnerProblems(base + "    available-cpu-dram-mib: 2_063_837\n    gpus-per-node: 8\n").empty());
  EXPECT_EQ(RunnerProblems(base + "    available-cpu-dram-mib: 1\n    gpus-per-node: 0\n"),
            std::vector<std::string>{
                "r.yaml:7:20: field 'hardware.cluster:h100.gpus-per-node': must be greater than 0, got 0"});
  EXPECT_EQ(RunnerProblems(base + "    available-cpu-dram-mib: 1\n    gpus-per-node: 8\n    gpus: 8\n"),
            std::vector<std::string>{
                "r.yaml:8:5: field 'hardware.cluster:h100.gpus': unknown field (extra fields are not permitted)"});
}

}  // namespace
}  // namespace infermark::catalog
