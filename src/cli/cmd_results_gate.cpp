// `infermark results gate --run R [--matrix FILE…]`: the accuracy gate a CI run ends with. The
// run's evaluations are judged against the thresholds, and each eval row of the matrix must have
// one (src/report/eval_gate.hpp).
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "core/diagnostic.hpp"
#include "core/exit_codes.hpp"
#include "core/file_io.hpp"
#include "eval/task_data.hpp"
#include "matrix/result_filename.hpp"
#include "report/eval_gate.hpp"
#include "core/eval_thresholds.hpp"
#include "store/result_store.hpp"
#include "store/store_url.hpp"

namespace infermark::cli {
namespace {

struct GateCommand {
  std::string db = results::DefaultStorePath();
  std::string run;
  std::vector<std::string> matrices;
  std::string thresholds;
  std::string format = "text";
};

// The eval rows of matrix files (a JSON array of rows, or GitHub's `{"include": […]}`), each as
// the RESULT_FILENAME around its runner's name.
std::vector<results::ExpectedEval> ExpectedEvals(const std::vector<std::string>& files) {
  // A marker no runner name holds splits the file name at the runner's place.
  static constexpr const char* kRunner = "\x01";
  std::vector<results::ExpectedEval> expected;
  for (const std::string& file : files) {
    Json doc = Json::parse(ReadFile(file), nullptr, false);
    if (doc.is_object() && doc.contains("include")) doc = doc["include"];
    if (!doc.is_array()) {
      throw InputError(
          Diagnostic{{file, 0, 0}, "", "", "a matrix must be a JSON array of rows or {\"include\": [...]}"});
    }
    for (std::size_t i = 0; i < doc.size(); ++i) {
      const Json& row = doc[i];
      const auto flag = [&](const char* name) {
        return row.is_object() && row.contains(name) && row[name].is_boolean() && row[name].get<bool>();
      };
      if (!flag("run-eval") && !flag("eval-only")) continue;
      std::string name;
      try {
        name = matrix::ResultFilename(row, kRunner);
      } catch (const std::invalid_argument& e) {
        throw InputError(Diagnostic{{file, 0, 0}, "row " + std::to_string(i), "", e.what()});
      }
      const std::size_t at = name.find(kRunner);
      expected.push_back({name.substr(0, at == 0 ? 0 : at - 1), name.substr(at + 1)});
    }
  }
  return expected;
}

// The thresholds file: the one given, else the project's data/evals/thresholds.yaml.
EvalThresholds GateThresholds(const std::string& path) {
  if (!path.empty()) return LoadEvalThresholds(path);
  return LoadEvalThresholds((std::filesystem::path(eval::EvalDataDir()) / "thresholds.yaml").string());
}

int RunGate(const GateCommand& cmd) {
  const EvalThresholds thresholds = GateThresholds(cmd.thresholds);
  const std::vector<results::ExpectedEval> expected = ExpectedEvals(cmd.matrices);
  auto store = results::OpenExistingStoreUrl(cmd.db);
  results::EvaluationQuery query;
  query.run_id = store->FindRun(cmd.run).id;
  const results::GateResult gate = results::JudgeEvalGate(store->Evaluations(query), thresholds, expected);
  std::cout << (cmd.format == "markdown" ? results::FormatEvalGateMarkdown(gate) : results::FormatEvalGate(gate));
  return gate.failures == 0 ? kExitOk : kExitRunFailed;
}

void AddGateCommand(CLI::App& app, CommandResult& result) {
  CLI::App* group = CommandGroup(app, "results", "Process, store, list, export and compare benchmark results");
  auto gate = std::make_shared<GateCommand>();
  auto* g = group->add_subcommand(
      "gate",
      "The accuracy gate: a run's evaluations against the thresholds (strict and flexible scores, as "
      "validate_scores.py), INVALID or stopped evals failing, and every eval row of the matrix required to have an "
      "evaluation; exit 1 when the gate fails");
  g->add_option("--run", gate->run, "The run (id, key, key prefix, label or `latest`)")->required();
  g->add_option("--db", gate->db, "Results store: sqlite:PATH, a path, or postgresql://…")->capture_default_str();
  g->add_option("--matrix", gate->matrices,
                "Matrix files whose eval rows (run-eval or eval-only) must each have an evaluation");
  g->add_option("--thresholds", gate->thresholds,
                "Accuracy thresholds (InferenceX's thresholds.yaml; default: data/evals/thresholds.yaml)");
  g->add_option("--format", gate->format, "text, or markdown (a PR comment section)")
      ->check(CLI::IsMember({"text", "markdown"}))
      ->capture_default_str();
  g->callback([gate, &result] { result.exit_code = RunGate(*gate); });
}

[[maybe_unused]] const bool kGateRegistered = RegisterCommand("results", &AddGateCommand);

}  // namespace
}  // namespace infermark::cli
