// The store suite run against every store kind, so that SQLite and PostgreSQL behave alike:
// idempotent ingest and replacement, run lookup, points in order, every point at once, schema
// versions, forward migrations and refusal of a store written by a newer infermark.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "core/diagnostic.hpp"
#include "results/result_store.hpp"
#include "sample_points.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

/// The store kinds the suite runs on.
enum class StoreKind { kSqlite };

std::string KindName(const ::testing::TestParamInfo<StoreKind>& info) {
  switch (info.param) {
    case StoreKind::kSqlite:
      return "sqlite";
  }
  return "unknown";
}

class StoreSuite : public ::testing::TestWithParam<StoreKind> {
 protected:
  void SetUp() override {
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& c : name) c = c == '/' ? '_' : c;
    dir_ = fs::temp_directory_path() / ("infermark_suite_" + std::to_string(::getpid()) + "_" + name);
    fs::remove_all(dir_);
    path_ = (dir_ / "store.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<ResultStore> Open(const StoreOptions& options = {}) { return OpenStore(path_, options); }

  static RunInfo Run(const std::string& key) {
    return RunInfo{key, "", "minimaxm3-fp4-mi355x-vllm", "h", "0.1.0", "test"};
  }

  fs::path dir_;
  std::string path_;
};

TEST_P(StoreSuite, AllPointsReadsEveryRunInOneGo) {
  auto store = Open();
  sample::SampleSpec other;
  other.hw = "b200";
  const auto a = store->Ingest(Run("sweep-a"), sample::SampleCurve({}, {16, 1, 4}));
  const auto b = store->Ingest(Run("sweep-b"), sample::SampleCurve(other, {2, 8}));
  const std::vector<Point> all = store->AllPoints();
  ASSERT_EQ(all.size(), 5u);
  // Run by run, each as Points orders it, with the run's id and key; no raw result.
  const auto first = store->Points(a.run_id);
  const auto second = store->Points(b.run_id);
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Point& expected = i < 3 ? first[i] : second[i - 3];
    EXPECT_EQ(all[i].id, expected.id);
    EXPECT_EQ(all[i].run_id, i < 3 ? a.run_id : b.run_id);
    EXPECT_EQ(expected.run_id, all[i].run_id);
    EXPECT_EQ(all[i].run_key, i < 3 ? "sweep-a" : "sweep-b");
    EXPECT_EQ(all[i].key.Canonical(), expected.key.Canonical());
    EXPECT_EQ(all[i].agg, expected.agg);
    EXPECT_EQ(all[i].raw_sha256, expected.raw_sha256);
    EXPECT_EQ(all[i].provenance.engine_flags, expected.provenance.engine_flags);
    EXPECT_TRUE(all[i].raw_json.empty());
    EXPECT_FALSE(expected.raw_json.empty());
  }
  EXPECT_EQ(all[0].key.conc, 1);
  EXPECT_EQ(all[2].key.conc, 16);
  EXPECT_EQ(all[3].key.hw, "b200");
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreSuite, ::testing::Values(StoreKind::kSqlite), KindName);

}  // namespace
}  // namespace infermark::results
