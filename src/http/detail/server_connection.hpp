// Private: one accepted server connection. This base holds everything that does not depend on the
// transport (request parsing, routing, timeouts, the write loop); ServerTransport<Stream> adds the
// plain or TLS socket, each instantiated in its own file, so Beast's parser and Asio's SSL code
// are compiled in different translation units.
#pragma once

#include <boost/beast/core/flat_buffer.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "http/detail/asio.hpp"
#include "http/detail/output_channel.hpp"
#include "http/tls_options.hpp"

namespace infermark::http::detail {

struct ServerShared;
struct ServerLoop;
struct TlsServerContext;
class RequestParser;

/// A server connection: reads requests, hands them to handlers, writes what they answer.
class ServerConnection : public std::enable_shared_from_this<ServerConnection> {
 public:
  ServerConnection(ServerShared& shared, ServerLoop& loop);
  virtual ~ServerConnection();
  ServerConnection(const ServerConnection&) = delete;
  ServerConnection& operator=(const ServerConnection&) = delete;

  /// Registers with the loop and starts the handshake (TLS) and reading. Loop thread.
  void Start();
  /// Writes pending output unless a write is in flight. Loop thread.
  void Flush();
  /// Closes the connection; an unfinished response's OnClose callback runs. Loop thread.
  void Close();
  /// The peer connected from a loopback address (set before Start).
  void SetLocalPeer(bool local) { local_peer_ = local; }

 protected:
  /// Transport operations; each completion calls the matching On* below on the loop thread.
  virtual void StartHandshake() = 0;
  virtual void StartRead(asio::mutable_buffer buffer) = 0;
  virtual void StartWrite(asio::const_buffer buffer) = 0;
  virtual void ShutdownSend() = 0;
  virtual void CloseTransport() = 0;

  void OnHandshake(const ErrorCode& ec);
  void OnRead(const ErrorCode& ec, std::size_t bytes);
  void OnWrite(const ErrorCode& ec, std::size_t bytes);

 private:
  enum class Phase { kHandshake, kWaiting, kReceiving, kHandling, kLingering, kClosed };

  void ReadMore();
  void ParseRequests(std::int64_t now);
  void Dispatch(std::int64_t now);
  void RespondError(int status, std::string_view message);
  void HandleTake(const TakeResult& result);
  void FinishExchange();
  void StartLingeringClose();
  void SetDeadline(std::int64_t deadline_ns);
  void OnTimer(std::uint64_t generation);

  ServerShared& shared_;
  ServerLoop& loop_;
  std::shared_ptr<OutputChannel> channel_;
  std::unique_ptr<RequestParser> parser_;
  boost::beast::flat_buffer read_buffer_;
  std::string write_buffer_;
  asio::steady_timer timer_;
  std::int64_t deadline_ns_ = 0;  // 0: no deadline
  std::int64_t armed_ns_ = 0;     // when the armed timer fires
  std::uint64_t timer_generation_ = 0;
  std::size_t read_size_;
  std::size_t registry_index_ = 0;
  Phase phase_ = Phase::kHandshake;
  bool reading_ = false;
  bool local_peer_ = false;
  bool timer_armed_ = false;
  bool finish_after_write_ = false;
  bool continue_sent_ = false;
};

/// A connection over plain TCP.
std::shared_ptr<ServerConnection> MakePlainServerConnection(ServerShared& shared, ServerLoop& loop, Tcp::socket socket);
/// A connection over TLS with the server's certificate.
std::shared_ptr<ServerConnection> MakeTlsServerConnection(ServerShared& shared, ServerLoop& loop, Tcp::socket socket,
                                                          TlsServerContext& tls);
/// Loads the certificate and key; throws std::runtime_error naming the file and OpenSSL's reason.
std::shared_ptr<TlsServerContext> MakeTlsServerContext(const TlsServerOptions& options);

}  // namespace infermark::http::detail
