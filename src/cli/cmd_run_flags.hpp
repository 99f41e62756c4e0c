// Flags shared by `infermark run` and `infermark sweep`, and the hooks that connect a sweep to
// the results store.
#pragma once

#include <CLI/CLI.hpp>

#include "runner/sweep_command.hpp"

namespace infermark::cli {

/// Adds the site, output, executor and scaling flags to `cmd`.
void AddSweepFlags(CLI::App* cmd, runner::SweepCommandOptions& options);

/// Fills the project's defaults (catalog files) and runs the sweep.
int RunSweepWithDefaults(runner::SweepCommandOptions options);

}  // namespace infermark::cli
