// Placing a multi-node row's prefill and decode workers on an allocation's nodes.
#include "runner/worker_placement.hpp"

#include <gtest/gtest.h>

#include "runner_test_util.hpp"

namespace infermark::runner {
namespace {

matrix::MatrixRow DisaggRow(int prefill_workers, int prefill_tp, int decode_workers, int decode_tp) {
  Json row = test::ScriptRow("good", 64);
  row["disagg"] = true;
  row.erase("tp");
  row["prefill"] = Json{{"num-worker", prefill_workers}, {"tp", prefill_tp}, {"ep", 1}, {"dp-attn", false}};
  row["decode"] = Json{{"num-worker", decode_workers}, {"tp", decode_tp}, {"ep", 1}, {"dp-attn", false}};
  return test::Typed(row);
}

const std::vector<std::string> kNodes = {"a", "b", "c", "d"};

TEST(WorkerPlacement, OneNodePerWorkerWhenEachFillsANode) {
  const WorkerPlacement p = PlaceWorkers(DisaggRow(1, 8, 1, 8), 8, kNodes);
  EXPECT_EQ(p.head_node, "a");
  EXPECT_EQ(p.nodes_used, 2);
  ASSERT_EQ(p.workers.size(), 2U);
  EXPECT_EQ(p.workers[0].role, "prefill");
  EXPECT_EQ(p.workers[0].nodes, std::vector<std::string>{"a"});
  EXPECT_EQ(p.workers[1].role, "decode");
  EXPECT_EQ(p.workers[1].nodes, std::vector<std::string>{"b"});
  EXPECT_EQ(p.workers[1].gpus, 8);
}

TEST(WorkerPlacement, SmallWorkersShareANodeOnDistinctGpus) {
  const WorkerPlacement p = PlaceWorkers(DisaggRow(2, 4, 1, 8), 8, kNodes);
  EXPECT_EQ(p.nodes_used, 2);
  ASSERT_EQ(p.workers.size(), 3U);
  EXPECT_EQ(p.workers[0].nodes, std::vector<std::string>{"a"});
  EXPECT_EQ(p.workers[0].first_gpu, 0);
  EXPECT_EQ(p.workers[1].nodes, std::vector<std::string>{"a"});
  EXPECT_EQ(p.workers[1].first_gpu, 4);
  EXPECT_EQ(p.workers[1].index, 1);
  EXPECT_EQ(p.workers[2].nodes, std::vector<std::string>{"b"});
}

TEST(WorkerPlacement, WideWorkersSpanWholeNodes) {
  const WorkerPlacement p = PlaceWorkers(DisaggRow(1, 4, 1, 16), 8, kNodes);
  EXPECT_EQ(p.nodes_used, 3);
  ASSERT_EQ(p.workers.size(), 2U);
  EXPECT_EQ(p.workers[1].nodes, (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(p.workers[1].first_gpu, 0);
}

TEST(WorkerPlacement, WorkersNeverSplitAcrossNodesSoPackingCanNeedMoreThanTheGpuCount) {
  // 5 workers of 3 GPUs: 15 GPUs would fit 2 nodes of 8, but whole workers need 3.
  EXPECT_EQ(PlacementNodes(DisaggRow(3, 3, 2, 3), 8), 3);
  try {
    PlaceWorkers(DisaggRow(3, 3, 2, 3), 8, {"a", "b"});
    FAIL() << "placed on too few nodes";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "the row's workers need 3 node(s) of 8 GPUs, the allocation has 2");
  }
}

TEST(WorkerPlacement, SingleNodeRowsNeedOneNodeAndCannotBePlaced) {
  EXPECT_EQ(PlacementNodes(test::Typed(test::ScriptRow("good", 1)), 8), 1);
  EXPECT_THROW(PlaceWorkers(test::Typed(test::ScriptRow("good", 1)), 8, kNodes), std::invalid_argument);
  EXPECT_THROW(PlaceWorkers(DisaggRow(1, 8, 1, 8), 0, kNodes), std::invalid_argument);
}

}  // namespace
}  // namespace infermark::runner
