#include "core/clock.hpp"

#include <cmath>
#include <ctime>

namespace infermark {
namespace {

std::tm Local(std::time_t t) {
  std::tm tm{};
  localtime_r(&t, &tm);
  return tm;
}

std::tm Utc(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  return tm;
}

}  // namespace

double UnixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string LocalStamp() {
  const std::tm tm = Local(std::time(nullptr));
  char text[40];
  return std::string(text, std::strftime(text, sizeof text, "%Y%m%d-%H%M%S", &tm));
}

std::string IsoUtc(double unix_seconds) {
  if (!std::isfinite(unix_seconds) || unix_seconds < 0 || unix_seconds > 1e11) return "";
  const std::tm tm = Utc(static_cast<std::time_t>(unix_seconds));
  char text[40];
  return std::string(text, std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm));
}

std::string IsoUtcNow() {
  return IsoUtc(static_cast<double>(std::time(nullptr)));
}

}  // namespace infermark
