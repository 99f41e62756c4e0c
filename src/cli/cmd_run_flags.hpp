// Flags shared by `infermark run` and `infermark sweep`, and the hooks that connect a sweep to
// the results store.
#pragma once

#include <CLI/CLI.hpp>

#include "runner/sweep_command.hpp"

namespace infermark::cli {

/// Adds the site, output, executor and scaling flags to `cmd`.
void AddSweepFlags(CLI::App* cmd, runner::SweepCommandOptions& options);

/// Fills the project's catalog files when rows come from config keys and none were given.
void FillProjectDefaults(runner::SweepCommandOptions& options);

/// Fills the project's defaults, runs the sweep, prints its summary (or the plans of a dry run)
/// and returns the exit code: 0, 1 when a row failed, 128 + the signal that stopped it.
int RunSweepWithDefaults(runner::SweepCommandOptions options);

}  // namespace infermark::cli
