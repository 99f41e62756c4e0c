// Runner labels as the hardware results record: a cluster label's GPU, other labels unchanged.
#include "results/runner_label.hpp"

#include <gtest/gtest.h>

namespace infermark::results {
namespace {

TEST(RunnerLabel, ClusterLabelRecordsItsGpu) {
  EXPECT_EQ(HardwareOfLabel("cluster:mi355x-local"), "mi355x");
  EXPECT_EQ(HardwareOfLabel("cluster:mi355x-disagg-local"), "mi355x");
  EXPECT_EQ(HardwareOfLabel("cluster:b200-dgxc"), "b200");
  EXPECT_EQ(HardwareOfLabel("cluster:gb200"), "gb200");
}

TEST(RunnerLabel, OtherLabelsStayAsInferenceXWritesThem) {
  EXPECT_EQ(HardwareOfLabel("mi355x"), "mi355x");
  EXPECT_EQ(HardwareOfLabel("b200-nv"), "b200-nv");  // RUNNER_TYPE verbatim, as process_result.py
  EXPECT_EQ(HardwareOfLabel(""), "");
}

}  // namespace
}  // namespace infermark::results
