// Process exit codes shared by every command.
#pragma once

namespace infermark {

/// The command did what was asked.
inline constexpr int kExitOk = 0;
/// A run failed or ended INVALID (results are still written).
inline constexpr int kExitRunFailed = 1;
/// Bad input: a config, a flag or a file the user gave could not be used.
inline constexpr int kExitBadInput = 2;
/// A fault inside infermark (a broken invariant, an unexpected exception): a bug to report, never
/// a verdict on the benchmark.
inline constexpr int kExitInternal = 3;
/// `results compare --fail-on regression`: a significant regression was found. The same number as
/// kExitInternal: either fails a CI job, which is what a job gating on the comparison wants.
inline constexpr int kExitRegression = 3;
/// A command stopped by a signal (SIGINT, SIGTERM, SIGHUP) exits with this plus the signal number
/// (130 for SIGINT), as shells report a process killed by it.
inline constexpr int kExitSignalBase = 128;

}  // namespace infermark
