// Plain POSIX sockets for tests that must send bytes no well-behaved peer would: malformed
// requests, responses cut at chosen points, servers that stall or reset.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <thread>

namespace infermark::http::test {

/// An owned file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { Reset(); }
  Fd(Fd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = other.fd_;
      other.fd_ = -1;
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void Reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

/// Connects to 127.0.0.1:port (blocking); an invalid Fd on failure.
inline Fd ConnectLoopback(std::uint16_t port) {
  Fd fd(::socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) return Fd();
  int one = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

/// Writes all of `bytes`; false on error.
inline bool SendAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

/// Reads until the peer closes, `stop(received)` says so, or `timeout` passes.
inline std::string ReadUntil(int fd, std::chrono::milliseconds timeout,
                             const std::function<bool(const std::string&)>& stop = nullptr) {
  std::string received;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buffer[65536];
  while (!(stop && stop(received))) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) break;
    received.append(buffer, static_cast<std::size_t>(n));
  }
  return received;
}

/// A one-connection-at-a-time TCP server on a thread, running `script` for each connection it
/// accepts (for `connections` connections), to play a misbehaving HTTP server.
class ScriptedServer {
 public:
  using Script = std::function<void(int fd)>;

  explicit ScriptedServer(Script script, int connections = 1) : script_(std::move(script)) {
    listener_ = Fd(::socket(AF_INET, SOCK_STREAM, 0));
    int one = 1;
    ::setsockopt(listener_.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listener_.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address);
    ::listen(listener_.get(), 64);
    socklen_t length = sizeof address;
    ::getsockname(listener_.get(), reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this, connections] {
      for (int i = 0; i < connections; ++i) {
        pollfd p{listener_.get(), POLLIN, 0};
        if (::poll(&p, 1, 10'000) <= 0) return;
        Fd connection(::accept(listener_.get(), nullptr, nullptr));
        if (connection.get() < 0) return;
        int nodelay = 1;
        ::setsockopt(connection.get(), IPPROTO_TCP, TCP_NODELAY, &nodelay, sizeof nodelay);
        script_(connection.get());
      }
    });
  }
  ~ScriptedServer() {
    if (thread_.joinable()) thread_.join();
  }
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;

  /// The port it listens on.
  std::uint16_t port() const { return port_; }

 private:
  Script script_;
  Fd listener_;
  std::uint16_t port_ = 0;
  std::thread thread_;
};

/// Reads one request head (up to the blank line) and, with a Content-Length, its body.
inline std::string ReadRequest(int fd) {
  std::string request = ReadUntil(fd, std::chrono::seconds(5), [](const std::string& r) {
    const auto end = r.find("\r\n\r\n");
    if (end == std::string::npos) return false;
    const auto cl = r.find("Content-Length: ");
    if (cl == std::string::npos || cl > end) return true;
    const std::size_t length = std::stoul(r.substr(cl + 16));
    return r.size() >= end + 4 + length;
  });
  return request;
}

}  // namespace infermark::http::test
