// Private: one client connection. The base holds what does not depend on the transport (request
// writing, Beast's response parser, timeouts, pooling); ClientTransport<Stream> adds the plain or
// TLS socket, each instantiated in its own file.
#pragma once

#include <array>
#include <boost/beast/core/flat_buffer.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "http/client_request.hpp"
#include "http/detail/asio.hpp"
#include "http/tls_options.hpp"

namespace infermark::http::detail {

struct ClientShared;
struct ClientLoop;
struct TlsClientContext;
class ResponseParser;

/// A client connection: carries one request at a time and, between requests, waits in its loop's
/// idle pool with a read pending, so a close by the server is noticed before the next request.
class ClientConnection : public std::enable_shared_from_this<ClientConnection> {
 public:
  ClientConnection(ClientShared& shared, ClientLoop& loop);
  virtual ~ClientConnection();
  ClientConnection(const ClientConnection&) = delete;
  ClientConnection& operator=(const ClientConnection&) = delete;

  /// Registers with the loop (call once, right after construction). Loop thread.
  void Register();
  /// Starts a request: connects first when new, else writes at once. Loop thread.
  void Begin(ClientRequest request, StreamCallbacks callbacks);
  /// Ends the request in flight with kCancelled and closes. Loop thread.
  void Cancel(std::string_view why);
  /// Whether the connection waits in the pool.
  bool Idle() const { return phase_ == Phase::kIdle; }
  /// Body bytes from the parser (called inside ResponseParser::put).
  bool DeliverBody(std::string_view data);

 protected:
  /// Transport operations; each completion calls the matching On* below on the loop thread.
  virtual void StartConnect(const std::vector<Tcp::endpoint>& endpoints) = 0;
  virtual void StartHandshake() = 0;
  virtual void StartRead(asio::mutable_buffer buffer) = 0;
  virtual void StartWrite(const std::array<asio::const_buffer, 2>& buffers) = 0;
  virtual void CloseTransport() = 0;

  void OnConnect(const ErrorCode& ec);
  void OnHandshake(const ErrorCode& ec);
  /// `arrival_ns`: the kernel's arrival time of the bytes on the MonotonicNs() clock, 0 if unknown.
  void OnRead(const ErrorCode& ec, std::size_t bytes, std::int64_t arrival_ns = 0);
  void OnWrite(const ErrorCode& ec, std::size_t bytes);
  const ClientShared& shared() const { return shared_; }
  /// The loop the connection lives on.
  ClientLoop& loop() { return loop_; }
  /// Whether reads take the kernel's arrival timestamps.
  bool KernelTimestamps() const;
  /// A kernel receive timestamp (CLOCK_REALTIME, ns) on the MonotonicNs() clock, through the loop's
  /// RealtimeBridge; counts real-time clock steps in the loop's counters.
  std::int64_t KernelTimeToMonotonic(std::int64_t realtime_ns);

 private:
  enum class Phase { kNew, kConnecting, kIdle, kActive, kClosed };

  void WriteRequest();
  void ReadMore();
  void Parse();
  void ReportHead();
  void CompleteResponse();
  void Fail(ErrorKind kind, std::string message);
  void Finish(bool reusable);
  void Close();
  void LeavePool();
  void ReleaseOpenSlot();
  std::int64_t NextDeadline() const;
  void ArmTimer();
  void OnTimer(std::uint64_t generation);

  ClientShared& shared_;
  ClientLoop& loop_;
  ClientRequest request_;
  StreamCallbacks callbacks_;
  ClientResult result_;
  std::unique_ptr<ResponseParser> parser_;
  boost::beast::flat_buffer read_buffer_;
  std::string head_buffer_;     // request line and header fields
  std::string error_snippet_;   // start of a 4xx/5xx body, for the message
  std::string callback_error_;  // what a throwing callback said
  asio::steady_timer timer_;
  std::int64_t read_ns_ = 0;           // time of the read being parsed
  std::int64_t last_activity_ns_ = 0;  // last send or receive while a request is in flight
  std::int64_t connect_deadline_ = 0;
  std::int64_t request_deadline_ = 0;
  std::int64_t armed_ns_ = 0;
  std::uint64_t timer_generation_ = 0;
  std::size_t read_size_;
  std::size_t live_index_ = 0;
  std::size_t idle_index_ = 0;
  Phase phase_ = Phase::kNew;
  bool connected_ = false;
  bool reading_ = false;
  bool writing_ = false;
  bool timer_armed_ = false;
  bool head_reported_ = false;
  bool holds_open_slot_ = false;  // counted in the loop's `opening` until answered or closed
  bool callback_failed_ = false;
};

/// A connection over plain TCP.
std::shared_ptr<ClientConnection> MakePlainClientConnection(ClientShared& shared, ClientLoop& loop);
/// A connection over TLS.
std::shared_ptr<ClientConnection> MakeTlsClientConnection(ClientShared& shared, ClientLoop& loop);
/// The client's OpenSSL context (trust store, verification); throws std::runtime_error on a bad CA file.
std::shared_ptr<TlsClientContext> MakeTlsClientContext(const TlsClientOptions& options);

}  // namespace infermark::http::detail
