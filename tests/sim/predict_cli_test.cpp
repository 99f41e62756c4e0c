// `infermark predict`, black box and through the library: output shape and units, one path for
// both forms of predict.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "perfmodel/engine_data.hpp"
#include "run_binary.hpp"
#include "sim/predict.hpp"

namespace infermark::perfmodel {
namespace {

TEST(PredictCli, PrintsOneObjectPerConcurrencyInInferenceXUnits) {
  const auto r = test::RunInfermark(
      {"predict", "--model", "amd/MiniMax-M3-MXFP4", "--hardware", "mi355x", "--framework", "vllm", "--precision",
       "fp4", "--tp", "8", "--isl", "1024", "--osl", "1024", "--conc", "1,4,16", "--format", "json"},
      test::SourcePath(""));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 3u);
  double last_tput = 0, last_intvty = 1e18;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const auto& p = j[i];
    for (const char* k :
         {"conc", "tput_per_gpu", "output_tput_per_gpu", "median_intvty", "median_e2el", "median_ttft", "median_tpot"})
      ASSERT_TRUE(p.contains(k)) << k;
    const std::vector<int> concs{1, 4, 16};
    EXPECT_EQ(p["conc"].get<int>(), concs[i]);
    // Seconds and tokens/s/user: interactivity is the inverse of the median TPOT.
    EXPECT_NEAR(p["median_intvty"].get<double>() * p["median_tpot"].get<double>(), 1.0, 1e-9);
    EXPECT_GT(p["median_tpot"].get<double>(), 1e-4);
    EXPECT_LT(p["median_tpot"].get<double>(), 1.0);
    EXPECT_LT(p["median_ttft"].get<double>(), p["median_e2el"].get<double>());
    // Total throughput counts input and output tokens: ISL ≈ OSL here, so about twice the output.
    EXPECT_NEAR(p["tput_per_gpu"].get<double>() / p["output_tput_per_gpu"].get<double>(), 2.0, 0.1);
    EXPECT_GT(p["tput_per_gpu"].get<double>(), last_tput);
    EXPECT_LT(p["median_intvty"].get<double>(), last_intvty);
    last_tput = p["tput_per_gpu"].get<double>();
    last_intvty = p["median_intvty"].get<double>();
  }
}

TEST(PredictCli, TableAndBadInput) {
  auto r = test::RunInfermark({"predict", "--model", "llama-3.3-70b", "--hardware", "h200", "--precision", "fp8",
                               "--tp", "8", "--conc", "2", "--format", "table"},
                              test::SourcePath(""));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("tok/s/GPU"), std::string::npos);
  r = test::RunInfermark({"predict", "--model", "nope", "--hardware", "h200", "--conc", "2"}, test::SourcePath(""));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown model"), std::string::npos);
  r = test::RunInfermark(
      {"predict", "--model", "llama-3.3-70b", "--hardware", "h100", "--precision", "bf16", "--tp", "1", "--conc", "2"},
      test::SourcePath(""));
  EXPECT_EQ(r.exit_code, 2);  // does not fit
}

TEST(PredictCli, WarnsAboutUnmeasuredKernelClassesAndTakesAHardwareProfile) {
  // DeepSeek-R1's MLA and fine-grained experts are in no calibration point: a warning says so.
  auto r = test::RunInfermark({"predict", "--model", "deepseek-r1", "--hardware", "h200", "--precision", "fp8", "--tp",
                               "8", "--conc", "2", "--format", "json"},
                              test::SourcePath(""));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: deepseek-r1 on h200"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[attention.mla]"), std::string::npos) << r.err;
  const auto plain = nlohmann::json::parse(r.out);
  EXPECT_NE(plain[0]["unmeasured_kernel_classes"].dump().find("moe.fine_grained"), std::string::npos);
  // Llama-3.3-70B on H200 is what the calibration measured: no warning.
  r = test::RunInfermark({"predict", "--model", "llama-3.3-70b", "--hardware", "h200", "--precision", "fp8", "--tp",
                          "8", "--conc", "2", "--format", "json"},
                         test::SourcePath(""));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
  // A card measured 10 % slower in HBM than the H200 reference predicts a slower decode.
  const std::string dir = (std::filesystem::temp_directory_path() / ("profile_" + std::to_string(::getpid()))).string();
  std::filesystem::create_directories(dir);
  std::ifstream in(test::SourcePath("data/engine/profiles/h200.yaml"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t at = text.find("  read: ");
  ASSERT_NE(at, std::string::npos);
  const std::size_t end = text.find('\n', at);
  const double read = std::stod(text.substr(at + 8, end - at - 8));
  text.replace(at, end - at, "  read: " + std::to_string(read * 0.9));
  std::ofstream(dir + "/slow.yaml") << text;
  r = test::RunInfermark({"predict", "--model", "llama-3.3-70b", "--hardware", "h200", "--precision", "fp8", "--tp",
                          "8", "--conc", "2", "--format", "json", "-v", "--hardware-profile", dir + "/slow.yaml"},
                         test::SourcePath(""));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("hardware profile: HBM 4.8 -> 4.32 TB/s"), std::string::npos) << r.err;
  const auto slow = nlohmann::json::parse(r.out);
  auto base = test::RunInfermark({"predict", "--model", "llama-3.3-70b", "--hardware", "h200", "--precision", "fp8",
                                  "--tp", "8", "--conc", "2", "--format", "json"},
                                 test::SourcePath(""));
  const auto fast = nlohmann::json::parse(base.out);
  EXPECT_LT(slow[0]["median_intvty"].get<double>(), fast[0]["median_intvty"].get<double>());
  // A profile of another GPU kind is refused with the reason.
  r = test::RunInfermark({"predict", "--model", "llama-3.3-70b", "--hardware", "b200", "--precision", "fp8", "--tp",
                          "8", "--conc", "2", "--hardware-profile", dir + "/slow.yaml"},
                         test::SourcePath(""));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("the profile measured a h200"), std::string::npos) << r.err;
  std::filesystem::remove_all(dir);
}

// The founding recipe's 30 predicted points, against the figures recorded in
// tests/fixtures/golden-predict (README there says how to re-record them on purpose).
TEST(PredictCli, TheFoundingRecipesFiguresMatchTheirGolden) {
  const auto r = test::RunInfermark(
      {"predict", "--config-keys", "minimaxm3-fp4-mi355x-vllm", "--site", test::SourcePath("infermark.yaml"),
       "--result-dir",
       (std::filesystem::temp_directory_path() / ("predict_golden_" + std::to_string(::getpid()))).string(),
       "--no-store", "--runner-name", "golden_00", "--format", "json"},
      test::SourcePath(""));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto got = nlohmann::json::parse(r.out);
  const auto want =
      nlohmann::json::parse(std::ifstream(test::Fixture("golden-predict/minimaxm3-fp4-mi355x-vllm.json")));
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i]["result_filename"], want[i]["result_filename"]);
    EXPECT_EQ(got[i]["status"], "done") << got[i]["reason"];
    for (auto it = want[i].begin(); it != want[i].end(); ++it) {
      if (!it->is_number_float()) continue;
      const double w = it->get<double>();
      EXPECT_NEAR(got[i][it.key()].get<double>(), w, 1e-12 * std::abs(w))
          << want[i]["result_filename"] << " " << it.key();
    }
  }
  std::filesystem::remove_all(std::filesystem::temp_directory_path() /
                              ("predict_golden_" + std::to_string(::getpid())));
}

// The two forms of predict are one path: a recipe row and the same deployment given by flags,
// under the same client (10 x conc prompts after 2 x conc warm-ups), give the same figures to
// the last bit.
TEST(PredictCli, RecipeRowsAndFlagsGiveIdenticalFigures) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("predict_same_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  for (const auto& [seq, isl, max_model_len] :
       {std::tuple{"1k1k", "1024", "2304"}, std::tuple{"8k1k", "8192", "9472"}}) {
    const auto recipe =
        test::RunInfermark({"predict", "--config-keys", "minimaxm3-fp4-mi355x-vllm", "--seq-lens", seq, "--tp-filter",
                            "4", "--conc", "4,64", "--site", test::SourcePath("infermark.yaml"), "--result-dir",
                            dir.string(), "--no-store", "--format", "json"},
                           test::SourcePath(""));
    ASSERT_EQ(recipe.exit_code, 0) << recipe.err;
    const auto rows = nlohmann::json::parse(recipe.out);
    ASSERT_EQ(rows.size(), 2u);
    const auto flags = test::RunInfermark(
        {"predict", "--model", "minimax-m3", "--hardware",      "mi355x",      "--precision", "fp4", "--framework",
         "vllm",    "--tp",    "4",          "--max-model-len", max_model_len, "--isl",       isl,   "--osl",
         "1024",    "--conc",  "4,64",       "--format",        "json"},
        test::SourcePath(""));
    ASSERT_EQ(flags.exit_code, 0) << flags.err;
    const auto points = nlohmann::json::parse(flags.out);
    ASSERT_EQ(points.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
      for (const char* key :
           {"tput_per_gpu", "output_tput_per_gpu", "input_tput_per_gpu", "median_intvty", "median_ttft", "median_tpot",
            "median_e2el", "p90_ttft", "p99_ttft", "p90_tpot", "p99_tpot", "duration"}) {
        EXPECT_EQ(rows[i][key].get<double>(), points[i][key].get<double>()) << seq << " " << key << " " << i;
      }
      EXPECT_EQ(rows[i]["num_prompts"], points[i]["num_prompts"]);
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace infermark::perfmodel
