// Helper of the runner tests: the input error that planning a row gives.
#pragma once

#include <string>

#include "core/diagnostic.hpp"
#include "runner/row_plan.hpp"
#include "runner_test_util.hpp"

namespace infermark::test {

/// The message of the InputError that PlanRow throws for `row` (read as the runner reads matrix
/// rows) on `site` with default options; "" when the row plans.
inline std::string PlanError(const Json& row, const runner::SiteConfig& site) {
  try {
    runner::PlanRow(Typed(row), site, runner::PlanOptions{});
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace infermark::test
