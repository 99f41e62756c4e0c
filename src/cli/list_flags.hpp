// Flags whose value is a comma-separated list of integers, read one way by every command.
#pragma once

#include <string>
#include <vector>

namespace infermark::cli {

/// Positive integers separated by commas (`--conc 1,2,4`); InputError naming `flag` otherwise.
std::vector<int> ParsePositiveInts(const std::string& flag, const std::string& text);

/// CPU numbers (0 or more) separated by commas (`--cpus 2,3`); empty text gives no CPUs.
std::vector<int> ParseCpuList(const std::string& flag, const std::string& text);

/// GPU indices (0 or more) separated by commas (`--gpus 0,1`); empty text gives no GPUs.
std::vector<int> ParseGpuList(const std::string& flag, const std::string& text);

}  // namespace infermark::cli
