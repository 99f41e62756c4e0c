// Writing Server-Sent Events: the framing the server's StreamWriter::SendEvent uses, exposed for
// code that prepares event bytes itself.
#pragma once

#include <string>
#include <string_view>

namespace infermark::http {

/// Appends `data` as one event: `data: <line>\n` for each line of `data` (lines split at "\r\n",
/// "\r" and "\n", so a parser hands the lines back joined with '\n'), then the blank line that
/// dispatches it. Data without line breaks, the common case, costs three appends.
void AppendSseEvent(std::string& out, std::string_view data);

}  // namespace infermark::http
