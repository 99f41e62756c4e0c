#include "http/error_kind.hpp"

namespace infermark::http {

std::string_view ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kNone:
      return "none";
    case ErrorKind::kConnect:
      return "connect";
    case ErrorKind::kTls:
      return "tls";
    case ErrorKind::kTimeout:
      return "timeout";
    case ErrorKind::kReset:
      return "reset";
    case ErrorKind::kTruncated:
      return "truncated";
    case ErrorKind::kMalformed:
      return "malformed";
    case ErrorKind::kHttpStatus:
      return "http_status";
    case ErrorKind::kCancelled:
      return "cancelled";
  }
  return "unknown";
}

}  // namespace infermark::http
