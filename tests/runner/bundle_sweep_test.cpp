// A run folder that holds a prediction beside the sweep it predicts (`predict` then `sweep` into
// one result folder, as the demo runs them) bundles, ingests and verifies: the predicted points,
// which share the measured ones' natural keys, go to a run of their own and each is verified
// against its own kind in the bundle.
#include <gtest/gtest.h>

#include <string>

#include "run_binary.hpp"
#include "runner_test_util.hpp"

namespace infermark::runner {
namespace {

TEST(BundleOfASweepWithItsPrediction, IngestsIntoTwoRunsAndVerifies) {
  test::ScratchDir dir;
  const std::string folder = dir / "results";
  const std::vector<std::string> common = {"--seq-lens",         "1k1k", "--prompts-per-conc", "2",
                                           "--warmups-per-conc", "1",    "--result-dir",       folder,
                                           "--runner-name",      "vm",   "--no-store"};
  std::vector<std::string> predict = {
      "predict", "--config-keys", "minimaxm3-fp4-mi355x-vllm", "--tp-filter", "8", "--conc", "1,2"};
  predict.insert(predict.end(), common.begin(), common.end());
  const ProcessResult p = test::RunInfermark(predict, test::SourcePath(""));
  ASSERT_EQ(p.exit_code, 0) << p.out << p.err;
  std::vector<std::string> sweep = {"sweep", "minimaxm3-fp4-mi355x-vllm", "--tp", "8", "--conc", "1", "2"};
  sweep.insert(sweep.end(), common.begin(), common.end());
  sweep.insert(sweep.end(), {"--site", test::SourcePath("infermark.yaml"), "--time-scale", "20", "--host-retries", "2",
                             "--max-host-error-percent", "1000", "--port", std::to_string(test::FreePort())});
  const ProcessResult s = test::RunInfermark(sweep, test::SourcePath(""));
  ASSERT_EQ(s.exit_code, 0) << s.out << s.err;

  const ProcessResult bundle = test::RunInfermark({"results", "bundle", folder, "-o", dir / "bundle"});
  ASSERT_EQ(bundle.exit_code, 0) << bundle.out << bundle.err;
  const ProcessResult ingest = test::RunInfermark({"results", "ingest", dir / "bundle", "--db", dir / "store.db"});
  ASSERT_EQ(ingest.exit_code, 0) << ingest.out << ingest.err;
  EXPECT_NE(ingest.out.find("2 added, 0 updated, 0 unchanged (2 point(s))"), std::string::npos) << ingest.out;
  EXPECT_NE(ingest.out.find(":predicted): 2 added, 0 updated, 0 unchanged (2 point(s))"), std::string::npos)
      << ingest.out;
  const ProcessResult verify = test::RunInfermark({"results", "verify", "--db", dir / "store.db"});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  EXPECT_NE(verify.out.find("4 point(s): 4 with a receipt"), std::string::npos) << verify.out;
  EXPECT_NE(verify.out.find("4 matching, 0 not matching"), std::string::npos) << verify.out;
}

}  // namespace
}  // namespace infermark::runner
