// The command table: each command lives in its own file and registers itself on the root app.
// A command's callback stores its exit code in `CommandResult`; all logic lives in the modules.
#pragma once

#include <CLI/CLI.hpp>

namespace infermark::cli {

/// Exit code the chosen command produced (set by its callback).
struct CommandResult {
  int exit_code = 0;  ///< One of the kExit* codes.
};

/// `infermark validate FILES…`.
void AddValidateCommand(CLI::App& app, CommandResult& result);
/// `infermark matrix full-sweep|test-config …`.
void AddMatrixCommand(CLI::App& app, CommandResult& result);
/// `infermark changelog --base-ref … --head-ref …`.
void AddChangelogCommand(CLI::App& app, CommandResult& result);

}  // namespace infermark::cli
