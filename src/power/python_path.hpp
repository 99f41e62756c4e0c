// File paths as Python's pathlib.PurePosixPath spells and derives them, so names written into
// artifacts (`str(Path(x))`, `path.stem`, `path.with_name(…)`) match the reference's.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace infermark::results {

/// `str(Path(path))`: repeated and trailing slashes and `.` parts dropped, `//` kept at the start
/// only when exactly two, `.` for an empty result.
std::string PythonPathText(std::string_view path);

/// `Path(path).name`: the last part, empty for `/`, `.` or an empty path.
std::string PythonPathName(std::string_view path);

/// `Path(path).stem`: the name without its last suffix (a dot neither first nor last in the name).
std::string PythonPathStem(std::string_view path);

/// `str(Path(path).with_name(name))`, or nullopt where Python raises (the path has no name).
std::optional<std::string> PythonPathWithName(std::string_view path, std::string_view name);

}  // namespace infermark::results
