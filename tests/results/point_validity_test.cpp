// A stored verdict line read back as validity: the report, the dashboard and the CSV export judge
// points by it, so its reasons must come back as the load generator wrote them.
#include "results/point_validity.hpp"

#include <gtest/gtest.h>

namespace infermark::results {
namespace {

TEST(PointValidity, InvalidLineGivesItsReasonsInOrder) {
  const PointValidity v = ValidityOf(
      "INVALID: client saturated: p99 event-loop lag 3.412 ms, over 1.000 ms; engine behind its model (p99 7.1 ms)");
  EXPECT_FALSE(v.valid);
  EXPECT_EQ(v.verdict, "INVALID");
  EXPECT_EQ(v.reasons, (std::vector<std::string>{"client saturated: p99 event-loop lag 3.412 ms, over 1.000 ms",
                                                 "engine behind its model (p99 7.1 ms)"}));
}

TEST(PointValidity, IncompleteRunIsOneMoreReason) {
  const PointValidity v = ValidityOf("INVALID: the run was interrupted before every request finished (incomplete)");
  EXPECT_FALSE(v.valid);
  ASSERT_EQ(v.reasons.size(), 2u);
  EXPECT_EQ(v.reasons[0], "the run was interrupted before every request finished");
  EXPECT_NE(v.reasons[1].find("incomplete"), std::string::npos);
}

TEST(PointValidity, BareInvalidHasNoReasons) {
  const PointValidity v = ValidityOf("INVALID");
  EXPECT_FALSE(v.valid);
  EXPECT_TRUE(v.reasons.empty());
}

TEST(PointValidity, ValidAndUnjudgedPointsAreNotInvalid) {
  EXPECT_TRUE(ValidityOf("VALID").valid);
  EXPECT_EQ(ValidityOf("VALID").verdict, "VALID");
  // An InferenceX record carries no verdict: nothing says it is INVALID.
  EXPECT_TRUE(ValidityOf("").valid);
  EXPECT_EQ(ValidityOf("").verdict, "");
  EXPECT_TRUE(ValidityOf("incomplete").valid);
}

}  // namespace
}  // namespace infermark::results
