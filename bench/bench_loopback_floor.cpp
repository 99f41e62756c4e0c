// The floor under a closed loop's refill wave on one client core over loopback: what any client
// that reads with recvmsg and writes with sendmsg pays, with no HTTP, no JSON, no event-loop
// library and no per-read epoll_ctl. N TCP connections between two processes, as between an
// engine and a client. The writer (on the engine's core) writes an R-byte response to every
// connection back to back, as an engine step that ends N requests does. The reader (on the
// client's core) waits in epoll (each socket registered once, level triggered), reads each
// response with its kernel arrival time (SO_TIMESTAMPNS, as the load generator does) and, in
// `refill` mode, at once sends a Q-byte request on the same connection, as a closed loop refills
// the slot that response freed; in `read` mode it only reads. The writer then reads the N requests
// (or waits for the reader's word), pauses 20 ms and writes the next wave.
//
// Lag = the refill's send time (read mode: the end of the read) minus the response's kernel
// arrival time; the load generator's verdict calls its p99 over 1 ms saturation. Step = how much
// the lag grows per response of a wave (least-squares slope against read order, median over
// waves): the reader's cost per response minus the writer's. CPU columns: the reader's CPU time
// per response, and the writer's for writing the responses alone. The first wave warms up and is
// not counted.
// Usage: bench_loopback_floor [waves (20)] [writer_cpu:reader_cpu (0:1)] [conns ...]
// (default conns: 64 1024 10000). R = 476 and Q = 1,100 bytes: the sizes of a final SSE chunk with
// usage and [DONE], and of a 128-token completions request, in the load generator's runs.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "core/numpy_stats.hpp"
#include "http/fd_limit.hpp"
#include "http/realtime_bridge.hpp"
#include "loop_cpu_time.hpp"

namespace {

using infermark::MonotonicNs;
using infermark::NumpyPercentile;
using infermark::bench::ThreadCpuSeconds;

constexpr std::size_t kResponseBytes = 476;
constexpr std::size_t kRequestBytes = 1100;
constexpr int kGapMs = 20;

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "bench_loopback_floor: %s: %s\n", what, std::strerror(errno));
  std::exit(1);
}

void Pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(static_cast<std::size_t>(cpu), &set);
  if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) {
    std::fprintf(stderr, "bench_loopback_floor: cannot pin to CPU %d\n", cpu);
    std::exit(1);
  }
}

void SetInt(int fd, int level, int name, int value) {
  if (::setsockopt(fd, level, name, &value, sizeof value) != 0) Die("setsockopt");
}

// A listening socket on an ephemeral loopback port, opened before the writer process forks.
int Listen(sockaddr_in& addr) {
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  if (listener < 0) Die("socket");
  addr = sockaddr_in{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(listener, reinterpret_cast<sockaddr*>(&addr), len) != 0) Die("bind");
  if (::listen(listener, 4096) != 0) Die("listen");
  if (::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) Die("getsockname");
  return listener;
}

// The writer's ends, in the reader's connect order, non-blocking, with TCP_NODELAY as the engine
// sets it.
std::vector<int> Accept(int listener, int n) {
  std::vector<int> fds;
  for (int i = 0; i < n; ++i) {
    const int w = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK);
    if (w < 0) Die("accept (raise the open-file limit)");
    SetInt(w, IPPROTO_TCP, TCP_NODELAY, 1);
    fds.push_back(w);
  }
  return fds;
}

// The reader's ends, connected one at a time so that the writer accepts them in this order,
// non-blocking, with TCP_NODELAY and kernel receive timestamps as the load generator sets them.
std::vector<int> Connect(const sockaddr_in& addr, int n) {
  std::vector<int> fds;
  for (int i = 0; i < n; ++i) {
    const int r = ::socket(AF_INET, SOCK_STREAM, 0);
    if (r < 0) Die("socket (raise the open-file limit)");
    if (::connect(r, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) Die("connect");
    SetInt(r, IPPROTO_TCP, TCP_NODELAY, 1);
    SetInt(r, SOL_SOCKET, SO_TIMESTAMPNS, 1);
    if (::fcntl(r, F_SETFL, O_NONBLOCK) != 0) Die("fcntl");
    fds.push_back(r);
  }
  return fds;
}

struct Result {
  std::vector<double> lag_us;   // every counted response
  std::vector<double> step_us;  // one per counted wave
  double reader_cpu_s = 0;
  std::uint64_t clock_steps = 0;
};

// Writes until all `bytes` are in the socket (a response fits the send buffer at once; a full
// buffer would mean the other side stopped reading, which these runs never do).
void WriteAll(int fd, const char* data, std::size_t bytes) {
  while (bytes > 0) {
    const ssize_t k = ::send(fd, data, bytes, MSG_NOSIGNAL);
    if (k < 0 && errno == EAGAIN) continue;
    if (k <= 0) Die("send");
    data += k;
    bytes -= static_cast<std::size_t>(k);
  }
}

// An epoll set with every socket registered once for reading, level triggered, its index as data.
int EpollFor(const std::vector<int>& fds) {
  const int ep = ::epoll_create1(0);
  if (ep < 0) Die("epoll_create1");
  for (std::size_t i = 0; i < fds.size(); ++i) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = i;
    if (::epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev) != 0) Die("epoll_ctl");
  }
  return ep;
}

// The writer process's side of `waves` waves: responses to all, then the N requests (refill) or
// the reader's word that it read the wave (a byte on `wave_read`, read mode). Returns its CPU
// seconds spent writing responses, the first wave not counted.
double Writer(const std::vector<int>& fds, int waves, bool refill, int cpu, int wave_read) {
  Pin(cpu);
  const std::size_t n = fds.size();
  const std::string response(kResponseBytes, 'r');
  std::vector<char> sink(64 * 1024);
  const int ep = EpollFor(fds);
  std::vector<epoll_event> events(1024);
  double busy = 0;
  for (int wave = 0; wave < waves; ++wave) {
    const double cpu0 = ThreadCpuSeconds();
    for (std::size_t i = 0; i < n; ++i) WriteAll(fds[i], response.data(), response.size());
    if (wave > 0) busy += ThreadCpuSeconds() - cpu0;
    if (refill) {
      std::size_t want = n * kRequestBytes;
      while (want > 0) {
        const int k = ::epoll_wait(ep, events.data(), static_cast<int>(events.size()), -1);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) Die("epoll_wait");
        for (std::size_t e = 0; e < static_cast<std::size_t>(k); ++e) {
          const int fd = fds[events[e].data.u64];
          for (;;) {
            const ssize_t got = ::recv(fd, sink.data(), sink.size(), 0);
            if (got > 0) {
              want -= std::min(want, static_cast<std::size_t>(got));
              continue;
            }
            if (got < 0 && errno == EAGAIN) break;
            Die("recv (writer)");
          }
        }
      }
    } else {
      char byte = 0;
      if (::read(wave_read, &byte, 1) != 1) Die("read (the reader's word)");
    }
    timespec gap{0, kGapMs * 1'000'000L};
    ::nanosleep(&gap, nullptr);
  }
  ::close(ep);
  return busy;
}

// Least-squares slope of lag against read order: the lag's growth per response of a wave.
double Slope(const std::vector<double>& lags) {
  const double n = static_cast<double>(lags.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < lags.size(); ++i) {
    const double x = static_cast<double>(i);
    sx += x;
    sy += lags[i];
    sxx += x * x;
    sxy += x * lags[i];
  }
  const double d = n * sxx - sx * sx;
  return d > 0 ? (n * sxy - sx * sy) / d : 0;
}

// The reader's side: one epoll_wait, then per ready socket one recvmsg (and the refill); in read
// mode a byte on `wave_done` when a wave has been read.
void Reader(const std::vector<int>& fds, int waves, bool refill, int cpu, int wave_done, Result& out) {
  Pin(cpu);
  const std::size_t n = fds.size();
  const std::string request(kRequestBytes, 'q');
  const int ep = EpollFor(fds);
  std::vector<epoll_event> events(1024);
  std::vector<std::size_t> have(n, 0);
  std::vector<double> wave_lags;
  wave_lags.reserve(n);
  infermark::http::RealtimeBridge bridge;
  char buffer[16 * 1024];
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
  double cpu0 = 0;
  for (int wave = 0; wave < waves; ++wave) {
    if (wave == 1) cpu0 = ThreadCpuSeconds();
    wave_lags.clear();
    std::size_t done = 0;
    while (done < n) {
      const int k = ::epoll_wait(ep, events.data(), static_cast<int>(events.size()), -1);
      if (k < 0 && errno == EINTR) continue;
      if (k < 0) Die("epoll_wait");
      for (std::size_t e = 0; e < static_cast<std::size_t>(k); ++e) {
        const std::size_t i = events[e].data.u64;
        iovec iov{buffer, sizeof buffer};
        msghdr msg{};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        const ssize_t got = ::recvmsg(fds[i], &msg, 0);
        if (got < 0 && errno == EAGAIN) continue;
        if (got <= 0) Die("recvmsg (reader)");
        std::int64_t stamp_ns = 0;
        for (cmsghdr* h = CMSG_FIRSTHDR(&msg); h != nullptr; h = CMSG_NXTHDR(&msg, h)) {
          if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SO_TIMESTAMPNS) {
            timespec ts;
            std::memcpy(&ts, CMSG_DATA(h), sizeof ts);
            stamp_ns = static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
          }
        }
        have[i] += static_cast<std::size_t>(got);
        if (have[i] < kResponseBytes) continue;
        have[i] -= kResponseBytes;
        if (refill) WriteAll(fds[i], request.data(), request.size());
        const std::int64_t done_ns = MonotonicNs();
        wave_lags.push_back(static_cast<double>(done_ns - bridge.ToMonotonic(stamp_ns)) / 1e3);
        ++done;
      }
    }
    if (wave > 0) {
      out.lag_us.insert(out.lag_us.end(), wave_lags.begin(), wave_lags.end());
      out.step_us.push_back(Slope(wave_lags));
    }
    if (!refill && ::write(wave_done, "w", 1) != 1) Die("write (wave read)");
  }
  out.reader_cpu_s = ThreadCpuSeconds() - cpu0;
  out.clock_steps = bridge.steps();
  ::close(ep);
}

// Each process holds one end of every connection: the soft limit goes to the hard one, and the hard
// one goes up too when that is not enough and the process may raise it.
bool EnsureFileLimit(rlim_t need) {
  if (infermark::http::RaiseFileLimit() >= need) return true;
  const rlimit wanted{need, need};
  return ::setrlimit(RLIMIT_NOFILE, &wanted) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  int waves = 20;
  int writer_cpu = 0;
  int reader_cpu = 1;
  std::vector<int> conns;
  if (argc > 1) waves = std::atoi(argv[1]);
  if (argc > 2 && std::sscanf(argv[2], "%d:%d", &writer_cpu, &reader_cpu) != 2) {
    std::fprintf(stderr, "bench_loopback_floor: CPUs are writer:reader, e.g. 2:4 (got '%s')\n", argv[2]);
    return 2;
  }
  for (int i = 3; i < argc; ++i) conns.push_back(std::atoi(argv[i]));
  if (conns.empty()) conns = {64, 1024, 10000};
  if (waves < 2 || std::any_of(conns.begin(), conns.end(), [](int n) { return n < 2; })) {
    std::fprintf(stderr, "bench_loopback_floor: need at least 2 waves and 2 connections\n");
    return 2;
  }
  const int largest = *std::max_element(conns.begin(), conns.end());
  if (!EnsureFileLimit(static_cast<rlim_t>(largest) + 64)) {
    std::fprintf(stderr,
                 "bench_loopback_floor: %d connections need %d open files per process; the limit is %llu and "
                 "raising the hard limit was refused\n",
                 largest, largest + 64, static_cast<unsigned long long>(infermark::http::RaiseFileLimit()));
    return 2;
  }
  std::printf("writer CPU %d, reader CPU %d, %d waves (first not counted), response %zu B, request %zu B\n\n",
              writer_cpu, reader_cpu, waves, kResponseBytes, kRequestBytes);
  std::printf(
      "| conns | mode | lag p50 us | lag p99 us | lag max us | step us | reader CPU us/resp | writer CPU us/resp |\n");
  std::printf("|---:|---|---:|---:|---:|---:|---:|---:|\n");
  std::fflush(stdout);
  for (const int n : conns) {
    for (const bool refill : {false, true}) {
      sockaddr_in addr{};
      const int listener = Listen(addr);
      int to_writer[2];
      int from_writer[2];
      if (::pipe(to_writer) != 0 || ::pipe(from_writer) != 0) Die("pipe");
      const pid_t pid = ::fork();
      if (pid < 0) Die("fork");
      if (pid == 0) {
        ::close(to_writer[1]);
        ::close(from_writer[0]);
        const std::vector<int> fds = Accept(listener, n);
        ::close(listener);
        const double cpu_s = Writer(fds, waves, refill, writer_cpu, to_writer[0]);
        if (::write(from_writer[1], &cpu_s, sizeof cpu_s) != sizeof cpu_s) Die("write (writer CPU)");
        std::_Exit(0);
      }
      ::close(listener);
      ::close(to_writer[0]);
      ::close(from_writer[1]);
      const std::vector<int> fds = Connect(addr, n);
      Result r;
      Reader(fds, waves, refill, reader_cpu, to_writer[1], r);
      double writer_cpu_s = 0;
      if (::read(from_writer[0], &writer_cpu_s, sizeof writer_cpu_s) != sizeof writer_cpu_s) {
        std::fprintf(stderr, "bench_loopback_floor: the writer process did not report\n");
        return 1;
      }
      int status = 0;
      ::waitpid(pid, &status, 0);
      for (const int fd : fds) ::close(fd);
      ::close(to_writer[1]);
      ::close(from_writer[0]);
      const double responses = static_cast<double>(n) * (waves - 1);
      std::printf("| %d | %s | %.1f | %.1f | %.1f | %.2f | %.2f | %.2f |%s\n", n, refill ? "refill" : "read",
                  NumpyPercentile(r.lag_us, 50), NumpyPercentile(r.lag_us, 99), NumpyPercentile(r.lag_us, 100),
                  NumpyPercentile(r.step_us, 50), r.reader_cpu_s / responses * 1e6, writer_cpu_s / responses * 1e6,
                  r.clock_steps > 0 ? " (real-time clock stepped)" : "");
      std::fflush(stdout);
    }
  }
  return 0;
}
