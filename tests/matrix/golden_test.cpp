// Every matrix golden of InferenceX's own generator (tests/fixtures/golden-matrix/README.md, the
// commands and their outputs): our rows must be byte-identical to `json.dumps(rows)`.
#include <gtest/gtest.h>

#include "catalog/catalog_loader.hpp"
#include "core/file_io.hpp"
#include "matrix/changelog_sweep.hpp"
#include "matrix/generator.hpp"
#include "matrix/matrix_output.hpp"
#include "test_paths.hpp"

namespace infermark::matrix {
namespace {

std::string Configs(const std::string& name) {
  return test::Fixture("inferencex/configs/" + name);
}
std::string Golden(const std::string& name) {
  return test::Fixture("golden-matrix/" + name);
}

const std::string kA1 = Configs("deprecated/amd-1k1k-master.yaml");
const std::string kA8 = Configs("deprecated/amd-minimaxm3-8k1k-master.yaml");
const std::string kSeed = Golden("seed-minimaxm3-fp4-mi355x-vllm.yaml");

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

class Goldens : public ::testing::Test {
 protected:
  static catalog::RunnerConfig Runners() { return catalog::LoadRunnerConfig(Configs("runners.yaml")); }

  static void ExpectGolden(const std::vector<Json>& rows, const std::string& golden, std::size_t expected_rows) {
    EXPECT_EQ(rows.size(), expected_rows) << golden;
    EXPECT_EQ(Trim(FormatJson(rows)), Trim(ReadFile(Golden(golden)))) << golden;
  }

  static FullSweepOptions SeedSweep() {
    FullSweepOptions o;
    o.single_node = true;
    o.framework = {"vllm"};
    o.model_prefix = {"minimaxm3"};
    return o;
  }
};

TEST_F(Goldens, FullSweepSingleNode1k1kAnd8k1k) {
  const auto runners = Runners();
  ExpectGolden(GenerateFullSweep(catalog::LoadMasterConfigs({kA1}), runners, SeedSweep()),
               "fullsweep_sn_vllm_minimaxm3_amd-1k1k.json", 143);
  ExpectGolden(GenerateFullSweep(catalog::LoadMasterConfigs({kA8}), runners, SeedSweep()),
               "fullsweep_sn_vllm_minimaxm3_amd-8k1k.json", 113);
}

TEST_F(Goldens, DuplicateKeysAcrossFilesAreRejected) {
  try {
    catalog::LoadMasterConfigs({kA1, kA8});
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.diagnostics().size(), 15u);  // 15 minimaxm3 keys are in both files
    EXPECT_NE(std::string(e.what()).find("duplicate configuration key"), std::string::npos);
  }
}

TEST_F(Goldens, TestConfigWithEveryEvalMode) {
  const auto runners = Runners();
  TestConfigOptions o;
  o.config_keys = {"minimaxm3-fp4-mi355x-vllm"};
  ExpectGolden(GenerateTestConfig(catalog::LoadMasterConfigs({kA1}), runners, o),
               "testconfig_minimaxm3-fp4-mi355x-vllm_1k1k.json", 35);
  const auto a8 = catalog::LoadMasterConfigs({kA8});
  ExpectGolden(GenerateTestConfig(a8, runners, o), "testconfig_minimaxm3-fp4-mi355x-vllm_8k1k.json", 17);
  o.common.evals.no_evals = true;
  ExpectGolden(GenerateTestConfig(a8, runners, o), "testconfig_minimaxm3-fp4-mi355x-vllm_8k1k_no-evals.json", 17);
  o.common.evals = {false, true, false};
  ExpectGolden(GenerateTestConfig(a8, runners, o), "testconfig_minimaxm3-fp4-mi355x-vllm_8k1k_evals-only.json", 2);
  o.common.evals = {false, false, true};
  ExpectGolden(GenerateTestConfig(a8, runners, o), "testconfig_minimaxm3-fp4-mi355x-vllm_8k1k_all-evals.json", 17);
}

TEST_F(Goldens, MultiNodeDisaggWithRouterAndEvalConc) {
  FullSweepOptions o;
  o.multi_node = true;
  o.model_prefix = {"minimaxm3"};
  o.precision = {"fp4"};
  o.runner_type = {"mi355x-disagg"};
  ExpectGolden(GenerateFullSweep(catalog::LoadMasterConfigs({kA8}), Runners(), o),
               "fullsweep_mn_minimaxm3_fp4_mi355x-disagg_8k1k.json", 3);
}

TEST_F(Goldens, GlobConcAndRunnerNodeFilter) {
  TestConfigOptions o;
  o.config_keys = {"minimaxm3-fp4-mi355x-vllm*"};
  o.conc = {1, 64};
  o.common.runner_node_filter = "amds_0";
  ExpectGolden(GenerateTestConfig(catalog::LoadMasterConfigs({kA8}), Runners(), o),
               "testconfig_glob_conc_nodefilter.json", 93);
}

TEST_F(Goldens, AgenticRowsFromTheLiveCatalog) {
  FullSweepOptions o = SeedSweep();
  o.common.evals.no_evals = true;
  ExpectGolden(
      GenerateFullSweep(catalog::LoadMasterConfigs({Configs("amd-master.yaml"), Configs("nvidia-master.yaml")}),
                        Runners(), o),
      "fullsweep_sn_vllm_minimaxm3_HEAD-master_agentic.json", 70);
}

TEST_F(Goldens, FoundingRecipeThirtyJobMatrix) {
  const auto runners = Runners();
  const auto seed = catalog::LoadMasterConfigs({kSeed});
  FullSweepOptions o = SeedSweep();
  ExpectGolden(GenerateFullSweep(seed, runners, o), "seed_fullsweep_default.json", 30);
  o.common.evals.no_evals = true;
  ExpectGolden(GenerateFullSweep(seed, runners, o), "seed_fullsweep_no-evals.json", 30);
  o.common.evals = {false, true, false};
  ExpectGolden(GenerateFullSweep(seed, runners, o), "seed_fullsweep_evals-only.json", 2);
  o.common.evals = {true, false, false};
  o.seq_lens = {"8k1k"};
  o.min_conc = 4;
  o.max_conc = 100;
  ExpectGolden(GenerateFullSweep(seed, runners, o), "seed_fullsweep_8k1k_min4_max100.json", 10);
  o.seq_lens = {"1k1k"};
  o.min_conc.reset();
  o.max_conc.reset();
  o.step_size = 3;
  ExpectGolden(GenerateFullSweep(seed, runners, o), "seed_fullsweep_1k1k_step3.json", 12);
}

TEST_F(Goldens, ProjectCatalogHoldsTheFoundingRecipe) {
  // The catalog also holds the founding model's agentic entry, whose cluster label only the
  // project's runners file carries; the fixed-length rows are the seed recipe's 30.
  const auto recipes = catalog::LoadMasterConfigs({test::SourcePath("recipes/configs/infermark-master.yaml")});
  FullSweepOptions o = SeedSweep();
  o.common.scenario_types = {"fixed-seq-len"};
  const auto rows =
      GenerateFullSweep(recipes, catalog::LoadRunnerConfig(test::SourcePath("recipes/configs/runners.yaml")), o);
  EXPECT_EQ(Trim(FormatJson(rows)), Trim(ReadFile(Golden("seed_fullsweep_default.json"))));
}

TEST_F(Goldens, RecipeFingerprintOfTheReferenceRow) {
  TestConfigOptions o;
  o.config_keys = {"minimaxm3-fp4-mi355x-vllm"};
  o.common.evals.no_evals = true;
  const auto rows = GenerateTestConfig(catalog::LoadMasterConfigs({kA8}), Runners(), o);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(RecipeFingerprint(rows.front()), "039c177303ee6f3eff1310accaee3928c70cecd4397acb5b127b12314f1eeb60");
}

TEST(Concurrency, ExpansionAlwaysEndsAtTheEnd) {
  EXPECT_EQ(ExpandConcurrency(4, 100, 2), (std::vector<std::int64_t>{4, 8, 16, 32, 64, 100}));
  EXPECT_EQ(ExpandConcurrency(1, 32, 3), (std::vector<std::int64_t>{1, 3, 9, 27, 32}));
  EXPECT_EQ(ExpandConcurrency(5, 5, 2), (std::vector<std::int64_t>{5}));
  EXPECT_TRUE(ExpandConcurrency(6, 5, 2).empty());
  EXPECT_EQ(ExpandConcurrency(1, INT64_MAX, INT64_MAX), (std::vector<std::int64_t>{1, INT64_MAX}));
}

}  // namespace
}  // namespace infermark::matrix
