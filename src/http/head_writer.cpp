#include "http/detail/head_writer.hpp"

#include <boost/beast/http/status.hpp>
#include <charconv>

namespace infermark::http::detail {
namespace {

void AppendNumber(std::string& out, std::size_t value) {
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  out.append(digits, end);
}

}  // namespace

void AppendResponseHead(std::string& out, int status, std::string_view content_type, const Headers& headers,
                        BodyFraming framing, std::size_t content_length, bool keep_alive, bool http10) {
  if (status < 100 || status > 999) status = 500;
  out.append("HTTP/1.1 ");
  AppendNumber(out, static_cast<std::size_t>(status));
  out.push_back(' ');
  const auto reason = boost::beast::http::obsolete_reason(static_cast<boost::beast::http::status>(status));
  out.append(reason.empty() ? std::string_view("Unknown") : std::string_view(reason.data(), reason.size()));
  out.append("\r\nServer: infermark\r\n");
  if (!content_type.empty() && IsSendableHeader("Content-Type", content_type)) {
    out.append("Content-Type: ").append(content_type).append("\r\n");
  }
  switch (framing) {
    case BodyFraming::kContentLength:
      out.append("Content-Length: ");
      AppendNumber(out, content_length);
      out.append("\r\n");
      break;
    case BodyFraming::kChunked:
      out.append("Transfer-Encoding: chunked\r\n");
      break;
    case BodyFraming::kUntilClose:
    case BodyFraming::kNone:
      break;
  }
  if (!keep_alive) {
    out.append("Connection: close\r\n");
  } else if (http10) {
    out.append("Connection: keep-alive\r\n");
  }
  for (const auto& h : headers) {
    if (!IsSendableHeader(h.name, h.value)) continue;
    out.append(h.name).append(": ").append(h.value).append("\r\n");
  }
  out.append("\r\n");
}

}  // namespace infermark::http::detail
