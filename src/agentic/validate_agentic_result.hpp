// InferenceX's validity gate for an agentic row (`validate_agentic_result.py`): the run summary's
// request error rate must stay within the benchmark's failed-request threshold.
#pragma once

#include <string>
#include <vector>

#include "agentic/profile_export.hpp"

namespace infermark::agentic {

/// The gate's verdict.
struct AgenticGateResult {
  bool pass = false;                 ///< True when no reason was found.
  std::vector<std::string> reasons;  ///< Why it failed, one line each, worded as the reference words them.
};

/// Judges a run summary: it must carry `request_count.avg`; completed = `completed_request_count.avg`,
/// else successful + errors (a missing error count is 0); fails when completed ≤ 0 or
/// errors / completed > `threshold` (a fraction, InferenceX passes 0.10).
AgenticGateResult ValidateAgenticSummary(const ProfileSummary& summary, double threshold);

/// Judges the summary in `artifact_dir` (profile_export_aiperf.json there, or in its first
/// sub-folder holding one); a missing file is a failure reason, not an exception. A file that is
/// not valid JSON throws InputError.
AgenticGateResult ValidateAgenticResult(const std::string& artifact_dir, double threshold);

}  // namespace infermark::agentic
