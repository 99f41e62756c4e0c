#include "cli/commands.hpp"

namespace infermark::cli {

void AddMatrixCommand(CLI::App& app, CommandResult& result) {
  auto* cmd = app.add_subcommand("matrix", "matrix (not yet built)");
  cmd->callback([&result] { result.exit_code = 1; });
}

}  // namespace infermark::cli
