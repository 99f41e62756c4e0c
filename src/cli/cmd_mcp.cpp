// `infermark mcp`: a read-only Model Context Protocol server over stdio for LLM agents
// (src/dashboard/mcp_server.hpp): JSON-RPC on stdin and stdout, messages on stderr only. Runs until
// stdin ends.
#include <chrono>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "core/diagnostic.hpp"
#include "core/exit_codes.hpp"
#include "dashboard/mcp_server.hpp"
#include "report/price_table.hpp"
#include "store/result_store.hpp"
#include "store/store_url.hpp"

namespace infermark::cli {
namespace {

struct McpFlags {
  std::string db = results::DefaultStorePath();
  std::string prices;
  std::size_t default_rows = 100;
  std::size_t max_rows = 1000;
  double timeout_s = 10;
};

int RunMcp(const McpFlags& flags) {
  if (flags.max_rows < 1) throw InputError(Diagnostic{{}, "", "--max-rows", "must be 1 or more"});
  if (flags.default_rows < 1 || flags.default_rows > flags.max_rows) {
    throw InputError(Diagnostic{{}, "", "--rows", "must be between 1 and --max-rows"});
  }
  if (!(flags.timeout_s > 0)) throw InputError(Diagnostic{{}, "", "--timeout", "must be a positive number of seconds"});
  dashboard::McpOptions options;
  options.db = flags.db;
  options.limits.default_rows = flags.default_rows;
  options.limits.max_rows = flags.max_rows;
  options.limits.timeout = std::chrono::milliseconds(static_cast<long long>(flags.timeout_s * 1000));
  if (flags.prices == "none") {
    options.price_dir.clear();
  } else if (!flags.prices.empty()) {
    options.price_dir = flags.prices;
  } else {
    try {
      options.price_dir = results::PriceDataDir();
    } catch (const InputError&) {
      options.price_dir.clear();  // no price table: costs are left empty
    }
  }
  dashboard::McpServer server(std::move(options));
  std::cerr << "infermark mcp: serving " << results::DisplayStoreUrl(flags.db) << " on stdio (read-only)\n";
  server.Serve(std::cin, std::cout);
  return kExitOk;
}

void AddMcpCommand(CLI::App& app, CommandResult& result) {
  auto flags = std::make_shared<McpFlags>();
  auto* cmd = app.add_subcommand(
      "mcp",
      "Serve a results store to LLM agents: a read-only Model Context Protocol server on stdio (docs/dashboard.md)");
  cmd->add_option("--db", flags->db, "Results store: sqlite:PATH, a path, or postgresql://…")->capture_default_str();
  cmd->add_option("--prices", flags->prices, "Price table folder (default: data/prices; 'none': no costs)");
  cmd->add_option("--rows", flags->default_rows, "Rows a list returns when a call gives no limit")
      ->capture_default_str();
  cmd->add_option("--max-rows", flags->max_rows, "The most rows a call may return")->capture_default_str();
  cmd->add_option("--timeout", flags->timeout_s, "Seconds a call may take (an SQL statement is stopped then)")
      ->capture_default_str();
  cmd->callback([flags, &result] { result.exit_code = RunMcp(*flags); });
}

[[maybe_unused]] const bool kMcpRegistered = RegisterCommand("mcp", &AddMcpCommand);

}  // namespace
}  // namespace infermark::cli
