// The dated price table: the repository's data/prices loads, a lookup takes the newest price not
// after the point's date, cost per million tokens follows the formula, and a bad price file is
// refused with file:line, block and field.
#include "report/price_table.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "test_paths.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

class PriceFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("infermark_prices_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }

  // The one message LoadPriceFile throws for `text`.
  std::string ErrorOf(const std::string& text) {
    const std::string path = Write("bad.yaml", text);
    PriceTable table;
    try {
      LoadPriceFile(path, table);
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  }

  fs::path dir_;
};

constexpr const char* kTwoDates = R"(prices:
  - date: 2025-08-01
    tier: hyperscaler
    source: Survey A
    url: https://example.org/a
    usd_per_gpu_hour: {h100: 1.3, mi355x: 1.48}
  - date: 2026-07-01
    tier: hyperscaler
    source: Survey B
    url: https://example.org/b
    usd_per_gpu_hour: {h100: 1.17}
  - date: 2026-07-01
    tier: rental
    source: Survey B
    url: https://example.org/b
    usd_per_gpu_hour: {h100: 2}
)";

TEST_F(PriceFile, PicksTheNewestPriceNotAfterTheDate) {
  PriceTable table;
  LoadPriceFile(Write("a.yaml", kTwoDates), table);
  ASSERT_EQ(table.entries().size(), 4U);
  EXPECT_EQ(table.Find("h100", "2025-07-31"), nullptr);
  EXPECT_DOUBLE_EQ(table.Find("h100", "2025-08-01")->usd_per_gpu_hour, 1.3);
  EXPECT_DOUBLE_EQ(table.Find("h100", "2026-06-30T23:59:59Z")->usd_per_gpu_hour, 1.3);
  const GpuPrice* july = table.Find("H100-SXM", "2026-07-01");
  ASSERT_NE(july, nullptr);
  EXPECT_DOUBLE_EQ(july->usd_per_gpu_hour, 1.17);
  EXPECT_EQ(july->source, "Survey B");
  EXPECT_EQ(july->url, "https://example.org/b");
  EXPECT_EQ(july->mark.line, 11);
  EXPECT_DOUBLE_EQ(table.Find("h100", "")->usd_per_gpu_hour, 1.17);
  EXPECT_DOUBLE_EQ(table.Find("h100", "2027-01-01", "rental")->usd_per_gpu_hour, 2.0);
  EXPECT_EQ(table.Find("h100", "2026-01-01", "rental"), nullptr);
  EXPECT_DOUBLE_EQ(table.Find("mi355x_amds", "2026-12-01")->usd_per_gpu_hour, 1.48);  // the older one still holds
  EXPECT_EQ(table.Find("b200", "2026-12-01"), nullptr);
  EXPECT_EQ(table.Tiers(), (std::vector<std::string>{"hyperscaler", "rental"}));
}

TEST_F(PriceFile, BadInputNamesFileLineBlockAndField) {
  EXPECT_EQ(ErrorOf("prices:\n  - date: 2026-07-01\n    tier: hyperscaler\n    source: S\n    url: u\n"
                    "    usd_per_gpu_hour: {h100: -1}\n"),
            dir_.string() +
                "/bad.yaml:6:30: entry 'prices[0]' field 'usd_per_gpu_hour.h100': must be a positive USD "
                "per GPU-hour");
  EXPECT_NE(ErrorOf("prices:\n  - date: July\n    tier: hyperscaler\n    source: S\n    url: u\n"
                    "    usd_per_gpu_hour: {h100: 1}\n")
                .find("bad.yaml:2:11: entry 'prices[0]' field 'date': must be a day written YYYY-MM-DD, not 'July'"),
            std::string::npos);
  EXPECT_NE(ErrorOf("prices:\n  - date: 2026-07-01\n    tier: hyperscaler\n    url: u\n"
                    "    usd_per_gpu_hour: {h100: 1}\n")
                .find("entry 'prices[0]' field 'source': field required"),
            std::string::npos);
  EXPECT_NE(ErrorOf("prices:\n  - date: 2026-07-01\n    tier: hyperscaler\n    source: S\n    url: u\n"
                    "    usd_per_gpu_hour: {h100: 1}\n    currency: EUR\n")
                .find("field 'currency': unknown field"),
            std::string::npos);
  EXPECT_NE(ErrorOf("prices:\n  - date: 2026-07-01\n    tier: hyperscaler\n    source: S\n    url: u\n"
                    "    usd_per_gpu_hour: {H100: 1}\n")
                .find("field 'usd_per_gpu_hour.H100': a GPU key is a lowercase base name"),
            std::string::npos);
  EXPECT_NE(ErrorOf("prices:\n  - date: 2026-07-01\n    tier: hyperscaler\n    source: S\n    url: u\n"
                    "    usd_per_gpu_hour: {h100: cheap}\n")
                .find("must be a number (USD per GPU-hour), not a string"),
            std::string::npos);
  const std::string twice =
      "prices:\n  - date: 2026-07-01\n    tier: hyperscaler\n    source: S\n    url: u\n"
      "    usd_per_gpu_hour: {h100: 1}\n  - date: 2026-07-01\n    tier: hyperscaler\n    source: T\n    url: v\n"
      "    usd_per_gpu_hour: {h100: 2}\n";
  EXPECT_NE(ErrorOf(twice).find("bad.yaml:11:30: field 'usd_per_gpu_hour.h100': a second price for h100 in tier "
                                "hyperscaler on 2026-07-01 (the first is at " +
                                dir_.string() + "/bad.yaml:6:30)"),
            std::string::npos);
}

TEST_F(PriceFile, FolderLoadsEveryYamlFileAndRefusesAMissingFolder) {
  Write("a.yaml", kTwoDates);
  Write("notes.txt", "not a price file");
  EXPECT_EQ(LoadPriceDirectory(dir_.string()).entries().size(), 4U);
  EXPECT_THROW(LoadPriceDirectory((dir_ / "missing").string()), InputError);
}

TEST(PriceData, RepositoryTableHoldsInferenceXsPublishedPrices) {
  const PriceTable table = LoadPriceDirectory(test::SourcePath("data/prices"));
  // July 2026 (InferenceX-app PR #659; rental as corrected by PR #1071) and August 2025 figures.
  EXPECT_DOUBLE_EQ(table.Find("h100", "2026-08-15")->usd_per_gpu_hour, 1.17);
  EXPECT_DOUBLE_EQ(table.Find("b200", "2026-08-15", "neocloud")->usd_per_gpu_hour, 2.07);
  EXPECT_DOUBLE_EQ(table.Find("mi355x", "2026-08-15", "rental")->usd_per_gpu_hour, 2.9);
  EXPECT_DOUBLE_EQ(table.Find("h100", "2026-03-01")->usd_per_gpu_hour, 1.3);
  EXPECT_DOUBLE_EQ(table.Find("gb300", "2026-03-01")->usd_per_gpu_hour, 2.652);
  EXPECT_EQ(table.Tiers(), (std::vector<std::string>{"hyperscaler", "neocloud", "rental"}));
  for (const GpuPrice& p : table.entries()) {
    EXPECT_FALSE(p.source.empty()) << p.gpu;
    EXPECT_EQ(p.url.rfind("https://", 0), 0U) << p.gpu;
  }
}

TEST(PriceData, FolderIsFoundFromTheEnvironment) {
  ::setenv("INFERMARK_PRICE_DATA", "/some/prices", 1);
  EXPECT_EQ(PriceDataDir(), "/some/prices");
  ::unsetenv("INFERMARK_PRICE_DATA");
}

TEST(CostPerMillionTokens, FollowsTheFormula) {
  // 1.17 $/GPU-h at 1000 output tok/s/GPU: 1.17 / 3.6e6 tokens × 1e6 = 0.325 $/M.
  EXPECT_NEAR(*CostPerMillionTokens(1.17, 1000.0), 0.325, 1e-12);
  EXPECT_NEAR(*CostPerMillionTokens(2.0, 250.0), 2.0 / 0.9, 1e-12);
  EXPECT_FALSE(CostPerMillionTokens(1.17, 0.0).has_value());
  EXPECT_FALSE(CostPerMillionTokens(1.17, -5.0).has_value());
}

TEST(GpuPriceKey, ReducesHardwareNamesToTheirBase) {
  EXPECT_EQ(GpuPriceKey("H100-SXM"), "h100");
  EXPECT_EQ(GpuPriceKey("mi355x_amds"), "mi355x");
  EXPECT_EQ(GpuPriceKey("gb200-nv72"), "gb200");
  EXPECT_EQ(GpuPriceKey("b200"), "b200");
}

}  // namespace
}  // namespace infermark::results
