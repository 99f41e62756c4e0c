// Invariant checks: a broken one is an InternalError naming where it broke (exit 3 in main),
// never an input error (exit 2) or a run failure (exit 1).
#include "core/internal_error.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/diagnostic.hpp"

namespace infermark {
namespace {

TEST(InternalError, ACheckThatFailsNamesItsPlaceAndIsNeitherInputNorRuntime) {
  EXPECT_NO_THROW(INFERMARK_CHECK(1 + 1 == 2, "arithmetic holds"));
  try {
    INFERMARK_CHECK(1 + 1 == 3, "arithmetic holds");
    FAIL() << "the check did not fire";
  } catch (const InternalError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("internal_error_test.cpp:"), std::string::npos) << what;
    EXPECT_NE(what.find("arithmetic holds"), std::string::npos) << what;
  }
  // main() maps runtime errors (InputError included) to exits 1 and 2: a bug must not be one.
  EXPECT_THROW(
      [] {
        try {
          INFERMARK_CHECK(false, "x");
        } catch (const std::runtime_error&) {
          ADD_FAILURE() << "an InternalError was caught as a runtime error";
        }
      }(),
      std::logic_error);
}

}  // namespace
}  // namespace infermark
