// `results compare` on repeats measured on the lent H100 (tests/fixtures/real-gpu/h100/repeats):
// five repeats on one server against five on the same server holding half the batch is a
// regression found by Welch's test on the repeats (TTFT; the throughput's -38 % stays inconclusive,
// each side's first repeat being the engine's slow warm-up), and one fresh server start against the
// four before it (single measurements, so the series' history is the evidence) flags nothing once
// the comparison's 12 tests share alpha (Benjamini-Hochberg, the default): alone, its p99 TTFT's
// lookback p = 0.008 would.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "run_binary.hpp"
#include "scratch_dir.hpp"

namespace infermark {
namespace {

namespace fs = std::filesystem;

const fs::path kFixtures = test::SourcePath("tests/fixtures/real-gpu/h100/repeats");

// Stores the fixture results `names` (each with its repeat files, when it has them) as run `run`.
void IngestGpuRun(const test::ScratchDir& dir, const std::string& run, const std::vector<std::string>& names) {
  const fs::path folder = dir.path / run;
  fs::create_directories(folder);
  for (const auto& entry : fs::directory_iterator(kFixtures)) {
    const std::string file = entry.path().filename().string();
    for (const std::string& name : names) {
      if (file == name + ".json" || file.rfind(name + ".repeat-", 0) == 0) fs::copy_file(entry.path(), folder / file);
    }
  }
  const ProcessResult r = test::RunInfermark({"results",
                                              "ingest",
                                              folder.string(),
                                              "--db",
                                              dir / "gpu.db",
                                              "--run",
                                              run,
                                              "--runner-type",
                                              "h100",
                                              "--framework",
                                              "transformers",
                                              "--precision",
                                              "bf16",
                                              "--model-prefix",
                                              "llama3",
                                              "--isl",
                                              "256",
                                              "--osl",
                                              "128",
                                              "--tp",
                                              "1",
                                              "--ep-size",
                                              "1",
                                              "--dp-attention",
                                              "false",
                                              "--spec-decoding",
                                              "none",
                                              "--disagg",
                                              "false",
                                              "--image",
                                              "cb-server"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
}

ProcessResult Compare(const test::ScratchDir& dir, const std::string& baseline, const std::string& candidate) {
  return test::RunInfermark({"results", "compare", "--db", dir / "gpu.db", "--baseline", baseline, "--candidate",
                             candidate, "--fail-on", "regression", "--format", "markdown"});
}

TEST(GpuRepeatsCompare, HalfTheBatchOnTheSameServerIsARegressionOnFiveRepeatsASide) {
  test::ScratchDir dir;
  IngestGpuRun(dir, "same", {"same_c16"});
  IngestGpuRun(dir, "slow", {"slow_c16"});
  const ProcessResult r = Compare(dir, "same", "slow");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("| median_ttft | 0.0678 | 3.0390 | **+4380.5%** |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| welch-log |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| 5 / 5 |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| tput_per_gpu | 1402.1 | 865.0 | -38.3% |"), std::string::npos) << r.out;
  std::printf("%s\n", r.out.c_str());
}

TEST(GpuRepeatsCompare, AFreshServerStartAgainstTheFourBeforeItIsNoRegression) {
  test::ScratchDir dir;
  for (int k = 1; k <= 5; ++k) {
    const std::string start = "fresh" + std::to_string(k);
    IngestGpuRun(dir, start, {start + "_c4", start + "_c16"});
  }
  const ProcessResult r = Compare(dir, "fresh4", "fresh5");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("No significant regression"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(history 4)"), std::string::npos) << r.out;
  std::printf("%s\n", r.out.c_str());
  // Each test at alpha on its own, the same comparison flags one of its 12 tests by chance.
  const ProcessResult alone =
      test::RunInfermark({"results", "compare", "--db", dir / "gpu.db", "--baseline", "fresh4", "--candidate", "fresh5",
                          "--fail-on", "regression", "--multiple-tests", "none", "--format", "markdown"});
  EXPECT_EQ(alone.exit_code, 3) << alone.out << alone.err;
  EXPECT_NE(alone.out.find("| p99_ttft | 0.1421 | 0.1514 | **+6.5%** |"), std::string::npos) << alone.out;
}

}  // namespace
}  // namespace infermark
