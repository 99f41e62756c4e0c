#include "runner/progress.hpp"

#include <algorithm>
#include <cmath>

#include "core/file_io.hpp"
#include "core/json_text.hpp"

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

void Progress::Finish(int index, const std::string& name, const std::string& status, double seconds, bool ran,
                      const std::string& headline) {
  ++finished_;
  if (ran) {
    ++ran_;
    ran_seconds_ += seconds;
  }
  if (tty_) std::fprintf(out_, "\r\033[K");
  std::fprintf(out_, "row %d/%d %s (%s): %s%s%s\n", index + 1, total_, status.c_str(), Duration(seconds).c_str(),
               name.c_str(), headline.empty() ? "" : "  ", headline.c_str());
  if (tty_) {
    Draw("");
  } else {
    std::fflush(out_);
  }
}

std::string Progress::RowHeadline(const std::string& result_path) {
  Json r;
  try {
    r = Json::parse(ReadFile(result_path), nullptr, false);
  } catch (const std::exception&) {
    return "";
  }
  if (!r.is_object() || !r.contains("verdict")) return "";
  const Json own = r.value("infermark", Json::object());
  const double scale = std::max(own.value("time_scale", 1.0), 1e-9);
  int gpus = 0;
  if (own.contains("server") && own["server"].is_object()) gpus = own["server"].value("num_gpus", 0);
  char buf[160];
  std::string out = r.value("verdict", "");
  const double total = r.value("total_token_throughput", 0.0) / scale;
  const double tpot_ms = r.value("median_tpot_ms", 0.0) * scale;
  if (gpus > 0) {
    std::snprintf(buf, sizeof buf, "  %.1f tok/s/GPU", total / gpus);
  } else {
    std::snprintf(buf, sizeof buf, "  %.1f tok/s", total);
  }
  out += buf;
  if (tpot_ms > 0) {
    std::snprintf(buf, sizeof buf, " at %.1f tok/s/user", 1000.0 / tpot_ms);
    out += buf;
  }
  // The headline figure the host moved most.
  double worst = -1;
  if (own.contains("host_error") && own["host_error"].is_object()) {
    for (const char* key : {"total_token_throughput", "output_throughput", "input_throughput", "median_ttft_ms",
                            "median_tpot_ms", "median_itl_ms", "median_e2el_ms", "median_intvty"}) {
      const auto e = own["host_error"].find(key);
      if (e != own["host_error"].end() && e->is_object() && (*e)["rel"].is_number()) {
        worst = std::max(worst, std::abs((*e)["rel"].get<double>()));
      }
    }
  }
  if (worst >= 0) {
    std::snprintf(buf, sizeof buf, ", host error %.2f %%", worst * 100);
    out += buf;
  }
  return out;
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
