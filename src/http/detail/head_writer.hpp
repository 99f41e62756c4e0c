// Private: response heads written straight into a connection's output buffer, so a stream's head
// and its first events leave in one write and no serializer object is built per response.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "http/headers.hpp"

namespace infermark::http::detail {

/// How the body after a head is delimited.
enum class BodyFraming {
  kContentLength,  ///< Content-Length: n.
  kChunked,        ///< Transfer-Encoding: chunked.
  kUntilClose,     ///< No length: the body ends when the connection closes (HTTP/1.0 streams).
  kNone,           ///< No body by rule (1xx, 204, 304): no framing field at all.
};

/// Appends "HTTP/1.1 <status> <reason>", Content-Type (unless empty), the framing field, the
/// Connection field (close, or keep-alive for an HTTP/1.0 client), `headers` (fields that could
/// split the message are dropped) and the blank line.
void AppendResponseHead(std::string& out, int status, std::string_view content_type, const Headers& headers,
                        BodyFraming framing, std::size_t content_length, bool keep_alive, bool http10);

}  // namespace infermark::http::detail
