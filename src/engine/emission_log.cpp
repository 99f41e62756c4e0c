#include "engine/emission_log.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>

namespace infermark::engine {
namespace {

constexpr std::size_t kWriteAt = std::size_t{1} << 20;

void AppendInteger(std::string& out, std::int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

}  // namespace

EmissionLog::EmissionLog(const std::string& path) : file_(std::fopen(path.c_str(), "wb")) {
  if (!file_) throw std::runtime_error("cannot write the emission log " + path + ": " + std::strerror(errno));
}

EmissionLog::~EmissionLog() {
  Flush();
  std::fclose(file_);
}

void EmissionLog::Append(const std::string& lines) {
  std::lock_guard lock(mutex_);
  buffer_ += lines;
  if (buffer_.size() >= kWriteAt) {
    std::fwrite(buffer_.data(), 1, buffer_.size(), file_);
    buffer_.clear();
  }
}

void EmissionLog::Flush() {
  std::lock_guard lock(mutex_);
  std::fwrite(buffer_.data(), 1, buffer_.size(), file_);
  buffer_.clear();
  std::fflush(file_);
}

EmissionTrack::EmissionTrack(std::shared_ptr<EmissionLog> log, std::string request_id, std::int64_t arrival_ns)
    : log_(std::move(log)), request_id_(std::move(request_id)), arrival_ns_(arrival_ns) {}

void EmissionTrack::Sent(int tokens, std::int64_t model_ns) {
  std::lock_guard lock(mutex_);
  pending_.push_back(Event{tokens, model_ns});
}

void EmissionTrack::Written(std::uint64_t events, std::int64_t write_ns) {
  std::lock_guard lock(mutex_);
  if (events <= logged_) return;
  const std::size_t n = std::min<std::size_t>(events - logged_, pending_.size());
  lines_.clear();
  for (std::size_t i = 0; i < n; ++i) {
    lines_ += "{\"request\":\"";
    lines_ += request_id_;
    lines_ += "\",\"event\":";
    AppendInteger(lines_, static_cast<std::int64_t>(logged_ + i));
    lines_ += ",\"send_ns\":";
    AppendInteger(lines_, write_ns);
    lines_ += ",\"tokens\":";
    AppendInteger(lines_, pending_[i].tokens);
    lines_ += ",\"model_ns\":";
    AppendInteger(lines_, pending_[i].model_ns);
    lines_ += ",\"arrival_ns\":";
    AppendInteger(lines_, arrival_ns_);
    lines_ += "}\n";
  }
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(n));
  logged_ += n;
  log_->Append(lines_);
}

}  // namespace infermark::engine
