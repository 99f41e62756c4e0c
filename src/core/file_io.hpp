// Whole-file reads and atomic writes with errors phrased for the user.
#pragma once

#include <string>
#include <string_view>

namespace infermark {

/// Reads a whole file; throws InputError naming the path and the OS reason when it cannot.
std::string ReadFile(const std::string& path);

/// Writes `content` to `path` through a temporary file and rename, so readers never see a partial
/// file. Throws std::runtime_error on failure.
void WriteFileAtomic(const std::string& path, std::string_view content);

}  // namespace infermark
