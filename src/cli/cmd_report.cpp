// `infermark report`: one self-contained HTML file with the Pareto charts and point tables of
// stored runs (src/report/report.hpp).
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "core/diagnostic.hpp"
#include "core/exit_codes.hpp"
#include "report/report.hpp"
#include "store/result_store.hpp"
#include "store/store_url.hpp"

namespace infermark::cli {
namespace {

struct ReportCommand {
  std::string db = results::DefaultStorePath();
  std::vector<std::string> runs;
  std::string output = "report.html";
  std::string title = "infermark benchmark report";
};

int RunReport(const ReportCommand& cmd) {
  if (!results::StoreUrlExists(cmd.db)) {
    throw InputError(Diagnostic{
        {cmd.db, 0, 0}, "", "", "no results store here (store results with `infermark results ingest`, or pass --db)"});
  }
  auto store = results::OpenStoreUrl(cmd.db);
  results::ReportOptions options;
  options.title = cmd.title;
  options.store_path = results::DisplayStoreUrl(cmd.db);
  const int points = results::WriteReport(*store, cmd.runs, cmd.output, options);
  std::cout << "wrote " << cmd.output << " (" << points << " points)\n";
  return kExitOk;
}

void AddReportCommand(CLI::App& app, CommandResult& result) {
  auto cmd = std::make_shared<ReportCommand>();
  auto* sub = app.add_subcommand("report",
                                 "Write one self-contained HTML report (SVG charts: tok/s/GPU vs interactivity and vs "
                                 "E2E latency, Pareto frontiers, point tables; agentic-coding points apart, vs "
                                 "E2E-normalized and full-response interactivity, with cache hit rate vs users)");
  sub->add_option("--db", cmd->db, "Results store: sqlite:PATH, a path, or postgresql://…")->capture_default_str();
  sub->add_option(
      "--run", cmd->runs,
      "Runs to show, e.g. --run 3 latest (id, key, prefix, label or latest; one flag, several values: a repeated "
      "flag keeps its last, as argparse does; default: the newest measured and the newest predicted run)");
  sub->add_option("-o,--output", cmd->output, "HTML file to write")->capture_default_str();
  sub->add_option("--title", cmd->title, "Page title")->capture_default_str();
  sub->callback([cmd, &result] { result.exit_code = RunReport(*cmd); });
}

[[maybe_unused]] const bool kReportRegistered = RegisterCommand("report", &AddReportCommand);

}  // namespace
}  // namespace infermark::cli
