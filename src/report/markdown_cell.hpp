// Text for one cell of a Markdown table, as pull-request comments (results compare, results gate)
// hold them.
#pragma once

#include <string>

namespace infermark::results {

/// `text` fit for one table cell: `|` escaped as `\|`, line breaks as spaces.
std::string MarkdownCell(std::string text);

}  // namespace infermark::results
