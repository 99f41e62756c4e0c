// Process exit codes shared by every command.
#pragma once

namespace infermark {

/// The command did what was asked.
inline constexpr int kExitOk = 0;
/// A run failed or ended INVALID (results are still written).
inline constexpr int kExitRunFailed = 1;
/// Bad input: a config, a flag or a file the user gave could not be used.
inline constexpr int kExitBadInput = 2;

}  // namespace infermark
