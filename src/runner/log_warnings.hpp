// Warnings worth a person's attention, found in a server log after a row: the cause of a number
// that looks wrong is often one line in thousands (an fp8 KV cache running on default scales,
// preemptions, out-of-memory retries).
#pragma once

#include <string>
#include <vector>

namespace infermark::runner {

/// One kind of warning seen in a log.
struct LogWarning {
  std::string what;        ///< Short description ("fp8 KV cache without calibrated scales").
  std::string first_line;  ///< The first log line that showed it.
  int count = 0;           ///< Lines that showed it.
};

/// Scans a log file for known warning patterns; empty when the file is absent.
std::vector<LogWarning> ScanLogWarnings(const std::string& path);

}  // namespace infermark::runner
