// Probes use short per-request timeouts so a server that accepts but never answers cannot hold
// the wait past its deadline or past Ctrl-C.
#include "runner/readiness.hpp"

#include <chrono>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "http/client.hpp"
#include "runner/stop_signal.hpp"

namespace infermark::runner {
namespace {

bool Answers200(http::Client& client, const std::string& target) {
  http::ClientRequest request;
  request.method = "GET";
  request.target = target;
  request.content_type.clear();
  request.timeout = std::chrono::milliseconds(2000);
  const http::FetchResult r = client.Fetch(std::move(request));
  return r.result.ok() && r.head.status == 200;
}

std::string ExitDetail(int status, const std::string& log_path) {
  std::string why = status >= 128 ? "exited on signal " + std::to_string(status - 128) + " before it was ready"
                                  : "exited with status " + std::to_string(status) + " before it was ready";
  const std::string tail = LogTail(log_path, 3);
  if (!tail.empty()) why += "; log ends: " + tail;
  return why;
}

}  // namespace

std::string LogTail(const std::string& path, int lines) {
  if (path.empty()) return {};
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  const std::streamoff start = size > 8192 ? size - 8192 : 0;
  in.seekg(start);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> all;
  std::istringstream ss(text);
  for (std::string line; std::getline(ss, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) all.push_back(line);
  }
  std::string out;
  const std::size_t from =
      all.size() > static_cast<std::size_t>(lines) ? all.size() - static_cast<std::size_t>(lines) : 0;
  for (std::size_t i = from; i < all.size(); ++i) out += (out.empty() ? "" : " | ") + all[i];
  return out;
}

bool LogHasMarker(const std::string& path, const std::vector<std::string>& markers) {
  if (path.empty() || markers.empty()) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  for (std::string line; std::getline(in, line);) {
    for (const auto& m : markers) {
      if (line.find(m) != std::string::npos) return true;
    }
  }
  return false;
}

ReadyResult WaitReady(ProcessGroup& group, const ReadinessOptions& options) {
  using SteadyClock = std::chrono::steady_clock;
  const auto start = SteadyClock::now();
  const auto deadline =
      start + std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(options.timeout_s));
  std::optional<http::Client> client;
  if (options.port > 0) {
    http::ClientOptions co;
    co.host = options.host;
    co.port = static_cast<std::uint16_t>(options.port);
    co.connect_timeout = std::chrono::milliseconds(1000);
    co.kernel_timestamps = false;
    client.emplace(co);
  }
  ReadyResult result;
  auto waited = [&] { return std::chrono::duration<double>(SteadyClock::now() - start).count(); };
  for (;;) {
    if (StopRequested() != 0) {
      result.state = ReadyState::kInterrupted;
      result.detail = "interrupted by signal " + std::to_string(StopRequested()) + " while waiting for the server";
      break;
    }
    if (client) {
      if (Answers200(*client, "/health") && Answers200(*client, "/v1/models")) {
        result.state = ReadyState::kReady;
        break;
      }
    } else if (LogHasMarker(options.log_path, options.markers)) {
      result.state = ReadyState::kReady;
      break;
    }
    if (auto status = group.Poll()) {
      if (*status == 0 && options.exit_zero_is_done) {
        result.state = ReadyState::kDone;
      } else {
        result.state = ReadyState::kExited;
        result.detail = "server " + ExitDetail(*status, options.log_path);
      }
      break;
    }
    if (SteadyClock::now() >= deadline) {
      result.state = ReadyState::kTimedOut;
      std::ostringstream why;
      why << "server not ready after " << options.timeout_s << " s (start-up timeout)";
      const std::string tail = LogTail(options.log_path, 3);
      if (!tail.empty()) why << "; log ends: " << tail;
      result.detail = why.str();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  result.waited_s = waited();
  return result;
}

}  // namespace infermark::runner
