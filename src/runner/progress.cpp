#include "runner/progress.hpp"

namespace infermark::runner {

Progress::Progress(std::FILE* out, int total, bool tty) : out_(out), total_(total), tty_(tty) {}

std::string Progress::Duration(double seconds) {
  const long s = seconds < 0 ? 0 : static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  } else if (s >= 60) {
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%lds", s);
  }
  return buf;
}

void Progress::Draw(const std::string& current) {
  constexpr int kWidth = 24;
  const int filled = total_ > 0 ? finished_ * kWidth / total_ : kWidth;
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.append(static_cast<std::size_t>(kWidth - filled), '-');
  std::string eta = "--";
  if (ran_ > 0) eta = Duration(ran_seconds_ / ran_ * (total_ - finished_));
  std::string name = current.size() > 60 ? "…" + current.substr(current.size() - 59) : current;
  std::fprintf(out_, "\r\033[K[%s] %d/%d  ETA %s  %s", bar.c_str(), finished_, total_, eta.c_str(), name.c_str());
  std::fflush(out_);
}

void Progress::Start(int index, const std::string& name) {
  if (tty_) Draw(name);
  (void)index;
}

void Progress::Finish(int index, const std::string& name, const std::string& status, double seconds, bool ran) {
  ++finished_;
  if (ran) {
    ++ran_;
    ran_seconds_ += seconds;
  }
  if (tty_) {
    if (status != "done" && status != "skipped") {
      std::fprintf(out_, "\r\033[Krow %d/%d %s: %s\n", index + 1, total_, status.c_str(), name.c_str());
    }
    Draw("");
  } else {
    std::fprintf(out_, "row %d/%d %s (%s): %s\n", index + 1, total_, status.c_str(), Duration(seconds).c_str(),
                 name.c_str());
    std::fflush(out_);
  }
}

void Progress::Retry(int index, const std::string& name, int attempt, double seconds) {
  if (tty_) std::fprintf(out_, "\r\033[K");
  std::fprintf(out_, "row %d/%d invalid on attempt %d (%s), the host's fault: running it again: %s\n", index + 1,
               total_, attempt, Duration(seconds).c_str(), name.c_str());
  if (tty_) {
    Draw(name);
  } else {
    std::fflush(out_);
  }
}

void Progress::Close() {
  if (tty_) {
    std::fprintf(out_, "\n");
    std::fflush(out_);
  }
}

}  // namespace infermark::runner
