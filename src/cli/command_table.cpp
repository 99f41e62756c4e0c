#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "cli/commands.hpp"

namespace infermark::cli {
namespace {
std::vector<std::pair<const char*, AddCommand>>& Table() {
  static std::vector<std::pair<const char*, AddCommand>> table;
  return table;
}
}  // namespace

bool RegisterCommand(const char* name, AddCommand add) {
  Table().emplace_back(name, add);
  return true;
}

void AddCommands(CLI::App& app, CommandResult& result, std::string_view chosen) {
  auto& table = Table();
  // Stable: files adding to one group (see CommandGroup) keep their registration order.
  std::stable_sort(table.begin(), table.end(),
                   [](const auto& a, const auto& b) { return std::strcmp(a.first, b.first) < 0; });
  bool found = false;
  for (const auto& [name, add] : table) {
    if (chosen == name) {
      add(app, result);
      found = true;
    }
  }
  if (found) return;
  for (const auto& [name, add] : table) add(app, result);
}

CLI::App* CommandGroup(CLI::App& app, const char* name, const char* description) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->get_name() == name) return sub;
  }
  CLI::App* group = app.add_subcommand(name, description);
  group->require_subcommand(1);
  return group;
}

}  // namespace infermark::cli
