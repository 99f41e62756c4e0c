#include "cli/commands.hpp"

namespace infermark::cli {

void AddValidateCommand(CLI::App& app, CommandResult& result) {
  auto* cmd = app.add_subcommand("validate", "validate (not yet built)");
  cmd->callback([&result] { result.exit_code = 1; });
}

}  // namespace infermark::cli
