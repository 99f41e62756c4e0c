// Patterns are matched case-insensitively on whole lines; each maps to one short description.
#include "runner/log_warnings.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>

namespace infermark::runner {
namespace {

struct Pattern {
  const char* needle;  // lower case
  const char* what;
};

constexpr Pattern kPatterns[] = {
    {"using kv cache scaling factor 1.0", "fp8 KV cache without calibrated scales (scale 1.0)"},
    {"k/v_scale", "fp8 KV cache without calibrated scales (scale 1.0)"},
    {"uncalibrated", "fp8 KV cache without calibrated scales (scale 1.0)"},
    {"is preempted", "requests preempted (KV cache full)"},
    {"preemption", "requests preempted (KV cache full)"},
    {"these terms are extrapolated", "the built-in engine extrapolates kernel classes no calibration point exercised"},
    {"out of memory", "out of memory"},
    {"traceback (most recent call last)", "a Python exception"},
    {"error", "error lines"},
};

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

std::vector<LogWarning> ScanLogWarnings(const std::string& path) {
  std::vector<LogWarning> found;
  std::ifstream in(path, std::ios::binary);
  if (!in) return found;
  for (std::string line; std::getline(in, line);) {
    const std::string lower = Lower(line);
    for (const auto& p : kPatterns) {
      if (lower.find(p.needle) == std::string::npos) continue;
      auto it = std::find_if(found.begin(), found.end(), [&](const LogWarning& w) { return w.what == p.what; });
      if (it == found.end()) {
        found.push_back(LogWarning{p.what, line.size() > 300 ? line.substr(0, 300) : line, 1});
      } else {
        ++it->count;
      }
      break;
    }
  }
  return found;
}

}  // namespace infermark::runner
