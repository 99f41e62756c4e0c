// Why a client request failed. Failures are data: every request ends with a ClientResult carrying
// one of these and a message, and nothing is thrown through the event loop.
#pragma once

#include <string_view>

namespace infermark::http {

/// Failure classes, coarse enough to count and report per run.
enum class ErrorKind {
  kNone,        ///< Success: a complete 1xx-3xx response.
  kConnect,     ///< Name resolution failed or the connection was refused or unreachable.
  kTls,         ///< TLS handshake or certificate verification failed.
  kTimeout,     ///< Connect, whole-request or idle (no bytes for too long) timeout.
  kReset,       ///< The connection was reset or closed before any response byte arrived.
  kTruncated,   ///< The connection ended in the middle of the response.
  kMalformed,   ///< The response is not valid HTTP/1.1 (status line, header, chunk framing).
  kHttpStatus,  ///< A complete response with status 4xx or 5xx.
  kCancelled,   ///< The client stopped, or a callback threw, before the response completed.
};

/// A short lowercase name for reports: "none", "connect", "tls", "timeout", "reset", "truncated",
/// "malformed", "http_status", "cancelled".
std::string_view ErrorKindName(ErrorKind kind);

}  // namespace infermark::http
