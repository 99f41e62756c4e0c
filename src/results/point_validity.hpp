// Whether a stored point may stand as a figure: its run's verdict read back from the store. The
// load generator (and aiperf, for agentic points) judges a run VALID or INVALID with one reason per
// broken check; the store keeps that as one line (`INVALID: reason; reason`), which this splits
// again. A point whose run said nothing (an ingested InferenceX record) is not judged INVALID.
#pragma once

#include <string>
#include <vector>

namespace infermark::results {

/// A point's verdict, as the report, the dashboard and the CSV export read it.
struct PointValidity {
  bool valid = true;                 ///< False only when its run judged it INVALID.
  std::string verdict;               ///< `VALID`, `INVALID`, or empty when the run gave no verdict.
  std::vector<std::string> reasons;  ///< Why it is INVALID, one broken check each (empty when valid).
};

/// The validity a stored verdict line (Provenance::verdict) says: `INVALID` at its start makes the
/// point invalid, the text after `: ` its reasons separated by `; `, and a trailing
/// ` (incomplete)` (the result said the run did not finish) one more reason.
PointValidity ValidityOf(const std::string& verdict);

}  // namespace infermark::results
