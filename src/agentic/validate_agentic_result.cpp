#include "agentic/validate_agentic_result.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace infermark::agentic {
namespace {

namespace fs = std::filesystem;

/// A count as Python prints it: whole numbers without a fraction.
std::string Count(double v) {
  char buffer[64];
  if (std::isfinite(v) && v == std::trunc(v)) {
    std::snprintf(buffer, sizeof buffer, "%.0f", v);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.17g", v);
  }
  return buffer;
}

std::string Percent(double fraction) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.3f%%", fraction * 100.0);
  return buffer;
}

AgenticGateResult Finish(std::vector<std::string> reasons) {
  AgenticGateResult r;
  r.pass = reasons.empty();
  r.reasons = std::move(reasons);
  return r;
}

}  // namespace

AgenticGateResult ValidateAgenticSummary(const ProfileSummary& summary, double threshold) {
  if (!summary.request_count) return Finish({"profile_export_aiperf.json has no request_count.avg"});
  const double errors = summary.error_request_count.value_or(0.0);
  const double completed = summary.completed_request_count.value_or(*summary.request_count + errors);
  if (completed <= 0) return Finish({"aiperf completed request count is not positive: " + Count(completed)});
  const double rate = errors / completed;
  if (rate > threshold) {
    return Finish({"aiperf request error rate exceeded the benchmark limit: " + Count(errors) + "/" + Count(completed) +
                   " = " + Percent(rate) + " > " + Percent(threshold)});
  }
  return Finish({});
}

AgenticGateResult ValidateAgenticResult(const std::string& artifact_dir, double threshold) {
  const fs::path base(artifact_dir);
  fs::path file = base / "profile_export_aiperf.json";
  std::error_code ec;
  if (!fs::is_regular_file(file, ec) && fs::is_directory(base, ec)) {
    std::vector<fs::path> children;
    for (const auto& entry : fs::directory_iterator(base, ec)) children.push_back(entry.path());
    std::sort(children.begin(), children.end());
    for (const fs::path& child : children) {
      if (fs::is_regular_file(child / "profile_export_aiperf.json", ec)) {
        file = child / "profile_export_aiperf.json";
        break;
      }
    }
  }
  if (!fs::is_regular_file(file, ec)) return Finish({file.string() + " not found"});
  return ValidateAgenticSummary(ReadProfileSummary(file.string()), threshold);
}

}  // namespace infermark::agentic
