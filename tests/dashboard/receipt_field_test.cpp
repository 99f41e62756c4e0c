// `/api/v1/points` names each point's measurement receipt: stored with a receipt id (a bundle's
// point, docs/results.md "Measurement receipts"), read back with every point, served as
// `receipt_id`; null for a point stored without one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "dashboard/api.hpp"
#include "dashboard/snapshot.hpp"
#include "results/sample_points.hpp"
#include "store/result_store.hpp"

namespace infermark::dashboard {
namespace {

TEST(ReceiptField, PointsServeTheirReceiptIdOrNull) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("infermark-dashboard-receipt-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  {
    auto store = results::OpenStore((dir / "store.db").string());
    std::vector<results::Point> points = results::sample::SampleCurve({}, {4, 16});
    const std::string receipt(64, 'c');
    points[0].receipt_id = receipt;
    store->Ingest({"night", "Night", "", "", "", "receipt"}, points);
    const Snapshot snapshot = LoadSnapshot(*store, "sqlite", {});
    ApiSources sources;
    sources.run_points = [&](std::int64_t run) { return store->Points(run); };
    const ApiReply reply = HandleApi(snapshot, sources, "/api/v1/points", "");
    ASSERT_EQ(reply.status, 200) << reply.body;
    const Json body = Json::parse(reply.body);
    ASSERT_EQ(body["points"].size(), 2u);
    int with = 0;
    for (const Json& p : body["points"]) {
      ASSERT_TRUE(p.contains("receipt_id")) << p.dump();
      if (p["conc"] == 4) {
        EXPECT_EQ(p["receipt_id"], receipt);
        ++with;
      } else {
        EXPECT_TRUE(p["receipt_id"].is_null()) << p.dump();
      }
    }
    EXPECT_EQ(with, 1);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace infermark::dashboard
