// One line of the plain CSV files the project reads as data (measured points, the decode loop's
// step times): cells split at every comma, with no quoting, since these files have none.
#pragma once

#include <string>
#include <vector>

namespace infermark {

/// Splits one CSV line at its commas; a trailing comma ends with an empty cell.
std::vector<std::string> SplitCsvLine(const std::string& line);

}  // namespace infermark
