#include "results/row_attempt.hpp"

#include <algorithm>
#include <fstream>
#include <utility>

namespace infermark::results {
namespace {

constexpr std::pair<AttemptOutcome, const char*> kOutcomes[] = {{AttemptOutcome::kCompleted, "completed"},
                                                                {AttemptOutcome::kInvalid, "invalid"},
                                                                {AttemptOutcome::kFailed, "failed"},
                                                                {AttemptOutcome::kRetried, "retried"},
                                                                {AttemptOutcome::kSkipped, "skipped"}};

constexpr std::pair<FailureClass, const char*> kFailures[] = {{FailureClass::kNone, ""},
                                                              {FailureClass::kStartup, "startup"},
                                                              {FailureClass::kReadiness, "readiness"},
                                                              {FailureClass::kClientError, "client_error"},
                                                              {FailureClass::kServerExit, "server_exit"},
                                                              {FailureClass::kTimeout, "timeout"},
                                                              {FailureClass::kKilled, "killed"},
                                                              {FailureClass::kStore, "store"}};

}  // namespace

const char* AttemptOutcomeName(AttemptOutcome outcome) {
  for (const auto& [value, name] : kOutcomes) {
    if (value == outcome) return name;
  }
  return "failed";
}

std::optional<AttemptOutcome> ParseAttemptOutcome(const std::string& text) {
  for (const auto& [value, name] : kOutcomes) {
    if (text == name) return value;
  }
  return std::nullopt;
}

const char* FailureClassName(FailureClass failure) {
  for (const auto& [value, name] : kFailures) {
    if (value == failure) return name;
  }
  return "";
}

std::optional<FailureClass> ParseFailureClass(const std::string& text) {
  for (const auto& [value, name] : kFailures) {
    if (text == name) return value;
  }
  return std::nullopt;
}

std::string RowAttempt::AttemptKey() const {
  return result_filename + "#" + std::to_string(attempt) + "@" + started_at;
}

std::string FileTail(const std::string& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamoff size = in.tellg();
  if (size <= 0) return "";
  const auto keep = static_cast<std::streamoff>(std::min<std::size_t>(max_bytes, static_cast<std::size_t>(size)));
  in.seekg(size - keep);
  std::string tail(static_cast<std::size_t>(keep), '\0');
  in.read(tail.data(), keep);
  tail.resize(static_cast<std::size_t>(in.gcount()));
  // A tail cut mid-line starts at the next whole line (a log's lines are what people read).
  if (keep < size) {
    const std::size_t newline = tail.find('\n');
    if (newline != std::string::npos && newline + 1 < tail.size()) tail.erase(0, newline + 1);
  }
  return tail;
}

}  // namespace infermark::results
