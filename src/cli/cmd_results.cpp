// `infermark results process|power|power-multinode|agentic-power|ingest|list|show|export|compare`: InferenceX's result
// processing and power aggregation, the results store and run comparison. All logic lives in
// src/power/, src/results/, src/store/ and src/report/.

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include "cli/commands.hpp"
#include "core/diagnostic.hpp"
#include "core/eval_thresholds.hpp"
#include "core/exit_codes.hpp"
#include "core/file_io.hpp"
#include "core/host.hpp"
#include "core/sha256.hpp"
#include "core/version.hpp"
#include "eval/task_data.hpp"
#include "power/agentic_power.hpp"
#include "power/indented_json.hpp"
#include "power/multinode_power.hpp"
#include "power/power_aggregation.hpp"
#include "report/compare.hpp"
#include "report/compare_markdown.hpp"
#include "report/csv_export.hpp"
#include "report/eval_compare.hpp"
#include "report/eval_json.hpp"
#include "results/agentic_record.hpp"
#include "results/bundle.hpp"
#include "results/eval_folder.hpp"
#include "results/host_error_summary.hpp"
#include "results/process_result.hpp"
#include "results/repeat_record.hpp"
#include "results/result_files.hpp"
#include "runner/attempt_record.hpp"
#include "store/bundle_ingest.hpp"
#include "store/ingest.hpp"
#include "store/ingest_inferencex_app.hpp"
#include "store/result_store.hpp"
#include "store/store_url.hpp"

namespace infermark::cli {
namespace {

namespace fs = std::filesystem;
using results::ProcessSettings;

// One flag per variable of the processing contract (`--runner-type`, `--tp`, `--ep-size`…).
struct SettingFlags {
  std::map<std::string, std::string> values;
  std::map<std::string, CLI::Option*> options;

  void Add(CLI::App* sub) {
    for (const auto& variable : results::ProcessVariables()) {
      const std::string name(variable.name);
      options[name] = sub->add_option("--" + results::FlagName(name), values[name],
                                      std::string(variable.help) + " (else $" + name + ")")
                          ->group("Deployment (flags win over the environment)");
    }
  }
  ProcessSettings Given() const {
    ProcessSettings settings;
    for (const auto& [name, option] : options) {
      if (option->count() > 0) settings.values[name] = values.at(name);
    }
    return settings;
  }
};

// Read-only commands never create a store by accident.
std::unique_ptr<results::ResultStore> OpenExisting(const std::string& url) {
  return results::OpenExistingStoreUrl(url);
}

std::string Fixed(double v, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

std::string Pad(std::string s, std::size_t width) {
  s.append(s.size() < width ? width - s.size() : 1, ' ');
  return s;
}

// --- process ---------------------------------------------------------------------------------

struct ProcessCommand {
  std::string input;
  std::string output;
  bool quiet = false;
  bool require_power = false;
  SettingFlags flags;
};

bool RequirePowerFromEnvironment();

bool IsTrue(std::optional<std::string> value) {
  if (!value) return false;
  for (char& c : *value) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return *value == "true";
}

// The telemetry CSV process_result.py integrates: the first of $GPU_METRICS_CSV, ./gpu_metrics.csv
// and /workspace/gpu_metrics.csv that is a file, else the first one named. Empty when none is a
// file, for the caller to know.
std::string TelemetryCsv(bool& found) {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("GPU_METRICS_CSV"); env != nullptr && *env != '\0') candidates.emplace_back(env);
  candidates.emplace_back("gpu_metrics.csv");
  candidates.emplace_back("/workspace/gpu_metrics.csv");
  std::error_code ec;
  for (const std::string& candidate : candidates) {
    if (fs::is_regular_file(candidate, ec)) {
      found = true;
      return candidate;
    }
  }
  found = false;
  return candidates.front();
}

// process_result.py's single-node power step: the aggregation over the client result's window
// patches the written agg record and writes power_validation_<name>.json beside it; an unexpected
// failure is recorded as aggregation_internal_error. Returns the power exit status. A client result
// the runner or `bench serve` already patched keeps its power when no telemetry CSV is found.
int ProcessPower(const std::string& input, const std::string& stem, const std::string& agg_path, const Json& result,
                 const Json& agg, bool require_power) {
  bool found = false;
  results::PowerRunOptions options;
  options.csv = TelemetryCsv(found);
  if (!found && result.contains("power_valid")) return kExitOk;
  options.bench_result = input;
  options.agg_result = agg_path;
  options.expected_num_gpus =
      agg["tp"].get<long long>() * agg["pp"].get<long long>() * agg["pcp_size"].get<long long>();
  options.validation_result = (fs::path(agg_path).parent_path() / ("power_validation_" + stem + ".json")).string();
  options.require_power = require_power;
  results::PowerRunOutcome outcome;
  try {
    outcome = results::RunPowerAggregation(options);
  } catch (const std::exception& e) {
    std::cerr << "[results process] power aggregation failed: " << e.what() << '\n';
    outcome = results::RecordPowerFailure(
        options, {"aggregation_internal_error"},
        {{"internal_error", {{"type", "InputError"}, {"message", std::string(e.what()).substr(0, 500)}}}});
  }
  for (const std::string& message : outcome.messages) std::cerr << "[results process] " << message << '\n';
  if (!outcome.summary.empty()) std::cerr << "[results process] " << outcome.summary << '\n';
  return outcome.exit_code;
}

// $NAME, or `fallback` when it is unset or empty.
std::string EnvironmentOr(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : fallback;
}

// process_result.py's multi-node power step: srt-slurm's DCGM package ($POWER_ARTIFACT_DIR,
// LOGS/power by default) validated and integrated over the result's window into the written agg
// record, power_validation_<name>.json beside it; an unexpected failure is recorded as
// aggregation_internal_error. Returns the power exit status. A result already patched keeps its
// power when there is no package.
int ProcessMultinodePower(const std::string& input, const std::string& stem, const std::string& agg_path,
                          const Json& result, const Json& agg, bool require_power) {
  results::MultinodePowerOptions options;
  options.power_dir = EnvironmentOr("POWER_ARTIFACT_DIR", "LOGS/power");
  std::error_code ec;
  if (!fs::is_directory(options.power_dir, ec) && result.contains("power_valid")) return kExitOk;
  options.logs_root = EnvironmentOr("POWER_RESULT_ROOT", "LOGS");
  options.bench_result = input;
  options.agg_result = agg_path;
  options.prefill_gpus = agg["num_prefill_gpu"].get<long long>();
  options.decode_gpus = agg["num_decode_gpu"].get<long long>();
  if (const char* sha = std::getenv("POWER_PRODUCER_SHA"); sha != nullptr && *sha != '\0') {
    options.expected_producer_sha = sha;
  }
  options.validation_result = (fs::path(agg_path).parent_path() / ("power_validation_" + stem + ".json")).string();
  options.require_power = require_power;
  results::MultinodePowerOutcome outcome;
  try {
    outcome = results::RunMultinodePowerAggregation(options);
  } catch (const std::exception& e) {
    std::cerr << "[results process] power aggregation failed: " << e.what() << '\n';
    results::PowerRunOptions fallback;
    fallback.csv = options.power_dir;
    fallback.bench_result = input;
    fallback.agg_result = agg_path;
    fallback.expected_num_gpus = options.prefill_gpus + options.decode_gpus;
    fallback.validation_result = options.validation_result;
    fallback.require_power = require_power;
    const results::PowerRunOutcome recorded = results::RecordPowerFailure(
        fallback, {"aggregation_internal_error"},
        {{"internal_error", {{"type", "InputError"}, {"message", std::string(e.what()).substr(0, 500)}}}});
    for (const std::string& message : recorded.messages) std::cerr << "[results process] " << message << '\n';
    return recorded.exit_code;
  }
  for (const std::string& message : outcome.messages) std::cerr << "[results process] " << message << '\n';
  if (!outcome.summary.empty()) std::cerr << "[results process] " << outcome.summary << '\n';
  return outcome.exit_code;
}

int RunProcess(ProcessCommand& cmd) {
  ProcessSettings settings = results::SettingsFromEnvironment();
  settings.Overlay(cmd.flags.Given());
  std::string input = cmd.input;
  std::string stem;
  if (input.empty()) {
    const auto rf = settings.Get("RESULT_FILENAME");
    if (!rf) {
      throw InputError(Diagnostic{
          {},
          "",
          "RESULT.json",
          "give the client result file, or RESULT_FILENAME (flag or environment) to read RESULT_FILENAME.json"});
    }
    stem = *rf;
    input = stem + ".json";
  } else {
    stem = fs::path(input).filename().string();
    if (stem.size() > 5 && stem.compare(stem.size() - 5, 5, ".json") == 0) stem.resize(stem.size() - 5);
  }
  // A multi-node file's name gives the GPUs of each role, under the flags.
  settings.Overlay(results::SettingsFromResultName(stem));
  settings.Overlay(cmd.flags.Given());
  const std::string text = ReadFile(input);
  Json result;
  try {
    result = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw InputError(Diagnostic{{input, 0, 0}, "", "", std::string("not valid JSON: ") + e.what()});
  }
  Json agg;
  const bool agentic = results::IsAgenticAggregate(result);
  if (agentic) {
    // An agentic aggregate carries its own identity; deployment settings do not apply to it.
    ProcessSettings given = cmd.flags.Given();
    given.values.erase("RESULT_FILENAME");
    if (!given.values.empty()) {
      throw InputError(Diagnostic{{input, 0, 0},
                                  "",
                                  "--" + results::FlagName(given.values.begin()->first),
                                  "deployment flags do not apply to an agentic aggregate (it names its own hardware, "
                                  "parallelism and offload settings)"});
    }
    agg = results::NormalizeAgenticAggregate(result, results::ReadAgenticSummaryBeside(input), input);
  } else {
    results::NormalizeClientKeys(result);
    agg = results::ProcessClientResult(result, settings, input);
  }
  const std::string out_path = cmd.output.empty() ? "agg_" + stem + ".json" : cmd.output;
  WriteFileAtomic(out_path, results::DumpJsonIndented(agg, 2));
  int status = kExitOk;
  const bool require_power = cmd.require_power || RequirePowerFromEnvironment();
  if (!agentic && IsTrue(settings.Get("IS_MULTINODE"))) {
    status = ProcessMultinodePower(input, stem, out_path, result, agg, require_power);
  } else if (!agentic) {
    status = ProcessPower(input, stem, out_path, result, agg, require_power);
  }
  if (!cmd.quiet) std::cout << ReadFile(out_path) << '\n';
  return status;
}

// --- power -----------------------------------------------------------------------------------

struct PowerCommand {
  results::PowerRunOptions options;
  std::string expected_num_gpus;
  std::string validation_result;
  bool require_power = false;
};

// Python's int() for a command-line count: surrounding spaces and a sign allowed.
long long CountArgument(const std::string& text, const std::string& flag) {
  std::string_view s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  long long value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) {
    throw InputError(Diagnostic{{}, "", flag, "must be an integer, got '" + text + "'"});
  }
  return value;
}

bool RequirePowerFromEnvironment() {
  const char* value = std::getenv("REQUIRE_POWER");
  if (value == nullptr) return false;
  std::string lowered(value);
  for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lowered == "1" || lowered == "true" || lowered == "yes";
}

int RunPower(PowerCommand& cmd) {
  results::PowerRunOptions options = cmd.options;
  options.expected_num_gpus = CountArgument(cmd.expected_num_gpus, "--expected-num-gpus");
  if (!cmd.validation_result.empty()) options.validation_result = cmd.validation_result;
  options.require_power = cmd.require_power || RequirePowerFromEnvironment();
  const results::PowerRunOutcome outcome = results::RunPowerAggregation(options);
  for (const std::string& message : outcome.messages) std::cerr << "[results power] " << message << '\n';
  if (!outcome.summary.empty()) std::cout << "[results power] " << outcome.summary << '\n';
  return outcome.exit_code;
}

// --- power-multinode -------------------------------------------------------------------------

struct MultinodePowerCommand {
  results::MultinodePowerOptions options;
  std::string prefill_gpus;
  std::string decode_gpus;
  std::string expected_producer_sha;
  std::string validation_result;
  bool require_power = false;
};

int RunMultinodePower(MultinodePowerCommand& cmd) {
  results::MultinodePowerOptions options = cmd.options;
  options.prefill_gpus = CountArgument(cmd.prefill_gpus, "--prefill-gpus");
  options.decode_gpus = CountArgument(cmd.decode_gpus, "--decode-gpus");
  const std::string sha =
      cmd.expected_producer_sha.empty() ? EnvironmentOr("POWER_PRODUCER_SHA", "") : cmd.expected_producer_sha;
  if (!sha.empty()) options.expected_producer_sha = sha;
  if (!cmd.validation_result.empty()) options.validation_result = cmd.validation_result;
  options.require_power = cmd.require_power || RequirePowerFromEnvironment();
  const results::MultinodePowerOutcome outcome = results::RunMultinodePowerAggregation(options);
  for (const std::string& message : outcome.messages) std::cerr << "[results power-multinode] " << message << '\n';
  if (!outcome.summary.empty()) std::cout << "[results power-multinode] " << outcome.summary << '\n';
  return outcome.exit_code;
}

// --- agentic-power ---------------------------------------------------------------------------

struct AgenticPowerCommand {
  results::AgenticPowerOptions options;
  std::string expected_num_gpus;
};

int RunAgenticPowerCommand(AgenticPowerCommand& cmd) {
  results::AgenticPowerOptions options = cmd.options;
  if (!cmd.expected_num_gpus.empty()) {
    options.expected_num_gpus = CountArgument(cmd.expected_num_gpus, "--expected-num-gpus");
  }
  options.require_power = options.require_power || RequirePowerFromEnvironment();
  const results::PowerRunOutcome outcome = results::RunAgenticPower(options);
  for (const std::string& message : outcome.messages) std::cerr << "[results agentic-power] " << message << '\n';
  if (!outcome.summary.empty()) std::cout << "[results agentic-power] " << outcome.summary << '\n';
  return outcome.exit_code;
}

// --- ingest ----------------------------------------------------------------------------------

struct IngestCommand {
  std::vector<std::string> paths;
  std::string db = results::DefaultStorePath();
  std::string run_key;
  std::string label;
  std::string config_key;
  bool predicted = false;
  bool measured = false;
  double time_scale = 0;
  std::string format = "auto";
  std::string thresholds;
  bool require_receipt = false;
  std::vector<std::string> allow_issuers;
  std::string bundles;
  SettingFlags flags;
  std::vector<CLI::Option*> not_for_bundles;  // flags a bundle's own facts replace
};

// The thresholds evaluations without their own are gated by: `path`, else the project's
// data/evals/thresholds.yaml when there is one (none: such evaluations get no threshold).
std::optional<EvalThresholds> LoadThresholds(const std::string& path) {
  if (!path.empty()) return LoadEvalThresholds(path);
  std::string dir;
  try {
    dir = eval::EvalDataDir();
  } catch (const InputError&) {
    return std::nullopt;
  }
  const std::string file = (fs::path(dir) / "thresholds.yaml").string();
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return std::nullopt;
  return LoadEvalThresholds(file);
}

// Stores one batch's points (or its run alone, when it has neither points nor evaluations nor row
// attempts to follow), evaluations, and its points' details and evaluations' samples, saying what
// each write did.
void StoreBatch(results::ResultStore& store, const results::IngestBatch& batch, const std::string& db,
                bool attempts_follow = false) {
  if (!batch.points.empty() || (batch.evaluations.empty() && !attempts_follow)) {
    const results::IngestOutcome outcome = store.Ingest(batch.run, batch.points);
    std::cout << "run " << outcome.run_id << " (" << batch.run.run_key << "): " << outcome.added << " added, "
              << outcome.updated << " updated, " << outcome.unchanged << " unchanged (" << batch.points.size()
              << " point(s)) into " << results::DisplayStoreUrl(db) << '\n';
  }
  if (!batch.evaluations.empty()) {
    const results::IngestOutcome outcome = store.IngestEvaluations(batch.run, batch.evaluations);
    std::cout << "run " << outcome.run_id << " (" << batch.run.run_key << "): " << outcome.added << " added, "
              << outcome.updated << " updated, " << outcome.unchanged << " unchanged (" << batch.evaluations.size()
              << " evaluation(s)) into " << results::DisplayStoreUrl(db) << '\n';
  }
  const auto [details, samples] = results::StoreBatchDetails(store, batch);
  if (details + samples > 0) {
    std::cout << "run " << batch.run.run_key << ": details of " << details << " point(s), samples of " << samples
              << " evaluation(s)\n";
  }
}

// Every file and eval folder of `paths` that no bundle holds (bundles and loose files are
// ingested apart: a loose file has no receipt to check).
std::vector<std::string> OutsideBundles(const std::vector<std::string>& paths,
                                        const std::vector<std::string>& bundles) {
  const auto inside = [&](const std::string& path) {
    const std::string absolute = fs::absolute(path).lexically_normal().string();
    for (const std::string& b : bundles) {
      const std::string root = fs::absolute(b).lexically_normal().string();
      if (absolute.size() > root.size() && absolute.compare(0, root.size(), root) == 0 && absolute[root.size()] == '/')
        return true;
    }
    return false;
  };
  std::vector<std::string> outside;
  for (const std::string& file : results::ExpandResultPaths(paths)) {
    if (!inside(file)) outside.push_back(file);
  }
  for (const std::string& folder : results::FindEvalFolders(paths)) {
    if (!inside(folder)) outside.push_back(folder);
  }
  return outside;
}

// `results ingest` of measurement bundles: every bundle verified before the store is opened, each
// kept in the bundle archive, then its points stored with their receipt ids.
int IngestBundles(IngestCommand& cmd, const std::vector<std::string>& bundle_dirs) {
  for (CLI::Option* option : cmd.not_for_bundles) {
    if (option->count() > 0) {
      throw InputError(Diagnostic{
          {}, "", option->get_name(), "does not apply to a bundle: its receipt and row records state its facts"});
    }
  }
  for (const auto& [name, option] : cmd.flags.options) {
    if (option->count() > 0) {
      throw InputError(Diagnostic{
          {}, "", option->get_name(), "does not apply to a bundle: its receipt and row records state its facts"});
    }
  }
  if (cmd.format != "auto") {
    throw InputError(Diagnostic{{}, "", "--format", "does not apply to a bundle: its receipt lists what it holds"});
  }
  if (bundle_dirs.empty()) {
    throw InputError(Diagnostic{{},
                                "",
                                "",
                                "no bundle (a folder with receipt.json) under the given paths, and "
                                "--require-receipt or --allow-issuer asks for one"});
  }
  const std::vector<std::string> outside = OutsideBundles(cmd.paths, bundle_dirs);
  if (!outside.empty()) {
    std::vector<Diagnostic> problems;
    for (const std::string& path : outside) {
      problems.push_back(Diagnostic{{path, 0, 0},
                                    "",
                                    "",
                                    "not in a bundle: ingest bundles and loose result files in "
                                    "separate calls"});
    }
    throw InputError(std::move(problems));
  }
  const std::string archive = cmd.bundles.empty() ? results::DefaultBundleArchive(cmd.db) : cmd.bundles;
  if (archive.empty()) {
    throw InputError(Diagnostic{{results::DisplayStoreUrl(cmd.db), 0, 0},
                                "",
                                "--bundles",
                                "a PostgreSQL store keeps no files: name a folder to keep the bundles in, where "
                                "`results verify --bundles` will find them"});
  }
  results::BundleCheck check;
  check.allowed_issuers = results::ParseIssuerRules(cmd.allow_issuers);
  const std::optional<EvalThresholds> thresholds = LoadThresholds(cmd.thresholds);
  if (thresholds) check.thresholds = &*thresholds;
  results::RunInfo base;
  base.run_key = cmd.run_key;
  base.label = cmd.label;
  // Every bundle is read and verified before the store is opened: a bad one leaves no trace.
  const results::BundleBatches read = results::ReadBundleBatches(bundle_dirs, check, base);
  for (const results::VerifiedBundle& bundle : read.bundles) {
    const std::string kept = results::ArchiveBundle(bundle, archive);
    std::cout << "receipt " << bundle.receipt_id << " verified (" << bundle.points.size() << " point(s), "
              << bundle.evaluations.size() << " evaluation(s), issuer " << bundle.issuer.Describe() << "), kept in "
              << kept << '\n';
  }
  auto store = results::OpenStoreUrl(cmd.db);
  for (const results::IngestBatch& batch : read.batches) StoreBatch(*store, batch, cmd.db);
  return kExitOk;
}

int RunIngest(IngestCommand& cmd) {
  const std::vector<std::string> bundle_dirs = results::FindBundles(cmd.paths);
  if (!bundle_dirs.empty() || cmd.require_receipt || !cmd.allow_issuers.empty()) {
    return IngestBundles(cmd, bundle_dirs);
  }
  results::ReadOptions options;
  options.flags = cmd.flags.Given();
  options.environment = results::SettingsFromEnvironment();
  if (cmd.predicted) options.kind = results::PointKind::kPredicted;
  if (cmd.measured) options.kind = results::PointKind::kMeasured;
  if (cmd.time_scale > 0) options.time_scale = cmd.time_scale;
  options.config_key = cmd.config_key;
  const std::optional<EvalThresholds> thresholds = LoadThresholds(cmd.thresholds);
  if (thresholds) options.eval_thresholds = &*thresholds;

  results::RunInfo run;
  run.run_key = cmd.run_key;
  run.label = cmd.label;
  run.host = HostName();
  run.infermark_version = kVersion;
  run.source = "ingest";
  run.recipe = cmd.config_key;
  // Every file is read before the store is even opened: a bad file leaves no trace. InferenceX-app
  // rows come as one batch per workflow run, everything else as one batch under `run`.
  // A sweep folder's row states: every attempt at its rows, stored with its points' run (a folder of
  // failed rows alone has attempts and no result file).
  const std::vector<results::RowAttempt> attempts = runner::AttemptsFromRowStates(cmd.paths);
  std::vector<results::IngestBatch> batches;
  try {
    batches = results::ReadIngestBatches(cmd.paths, results::ParseIngestFormat(cmd.format), options, run);
  } catch (const InputError& e) {
    const bool nothing_else = e.diagnostics().size() == 1 && e.diagnostics().front().mark.file.empty();
    if (attempts.empty() || !nothing_else) throw;
    batches.push_back(results::IngestBatch{run, {}, {}, {}, {}});
    if (run.run_key.empty()) {
      std::string keys;
      for (const results::RowAttempt& a : attempts) keys += a.AttemptKey() + "\n";
      batches.back().run.run_key = "ingest-" + Sha256Hex(keys).substr(0, 12);
    }
  }
  auto store = results::OpenStoreUrl(cmd.db);
  for (results::IngestBatch& batch : batches) {
    if (batch.run.run_key.empty()) batch.run.run_key = results::DerivedRunKey(batch.points, batch.evaluations);
    StoreBatch(*store, batch, cmd.db, !attempts.empty());
    if (&batch == &batches.front() && !attempts.empty()) {
      const results::IngestOutcome outcome = store->IngestAttempts(batch.run, attempts);
      std::cout << "run " << outcome.run_id << " (" << batch.run.run_key << "): " << outcome.added << " added, "
                << outcome.updated << " updated (" << attempts.size() << " row attempt(s)) into "
                << results::DisplayStoreUrl(cmd.db) << '\n';
    }
  }
  return kExitOk;
}

// --- list / show / export ---------------------------------------------------------------------

int RunList(const std::string& db) {
  auto store = OpenExisting(db);
  const auto runs = store->ListRuns();
  std::cout << Pad("id", 5) << Pad("run", 28) << Pad("label", 24) << Pad("source", 9) << Pad("points", 8)
            << Pad("predicted", 10) << Pad("evals", 7) << Pad("time scale", 11) << "created\n";
  for (const auto& r : runs) {
    std::cout << Pad(std::to_string(r.id), 5) << Pad(r.info.run_key, 28) << Pad(r.info.label, 24)
              << Pad(r.info.source, 9) << Pad(std::to_string(r.points), 8)
              << Pad(std::to_string(r.predicted_points), 10) << Pad(std::to_string(r.evaluations), 7)
              << Pad(r.max_time_scale == 1 ? "1" : "x" + Fixed(r.max_time_scale, 1), 11) << r.created_at << '\n';
  }
  return kExitOk;
}

int RunShow(const std::string& db, const std::string& ref, bool as_json) {
  auto store = OpenExisting(db);
  const results::RunSummary run = store->FindRun(ref);
  const auto points = store->Points(run.id);
  results::EvaluationQuery query;
  query.run_id = run.id;
  const auto evaluations = store->Evaluations(query);
  if (as_json) {
    Json doc = Json::object();
    doc["id"] = run.id;
    doc["run_key"] = run.info.run_key;
    doc["label"] = run.info.label;
    doc["source"] = run.info.source;
    doc["created_at"] = run.created_at;
    doc["points"] = Json::array();
    for (const auto& p : points) {
      Json point = Json::object();
      point["key"] = p.key.Canonical();
      point["kind"] = results::PointKindName(p.provenance.kind);
      point["time_scale"] = p.provenance.time_scale;
      point["config_key"] = p.provenance.config_key;
      point["image"] = p.provenance.image;
      point["engine_flags"] = p.provenance.engine_flags;
      point["host"] = p.provenance.host;
      point["infermark_version"] = p.provenance.infermark_version;
      point["metrics_version"] = p.provenance.metrics_version;
      point["verdict"] = p.provenance.verdict;
      point["host_error"] = p.provenance.host_error;
      point["started_at"] = p.provenance.started_at;
      point["source_path"] = p.provenance.source_path;
      point["matrix_row"] = p.provenance.matrix_row;
      point["receipt_id"] = p.receipt_id.empty() ? Json(nullptr) : Json(p.receipt_id);
      point["agg"] = p.agg;
      point["repeats"] = Json::array();
      for (const auto& r : p.repeats) {
        point["repeats"].push_back({{"index", r.index},
                                    {"verdict", r.verdict},
                                    {"started_at", r.started_at},
                                    {"ended_at", r.ended_at},
                                    {"source_path", r.source_path},
                                    {"raw_sha256", r.raw_sha256},
                                    {"agg", r.agg}});
      }
      doc["points"].push_back(std::move(point));
    }
    doc["evaluations"] = Json::array();
    for (const auto& e : evaluations) doc["evaluations"].push_back(results::EvaluationToJson(e));
    std::cout << results::DumpJsonIndented(doc, 2) << '\n';
    return kExitOk;
  }
  std::cout << "run " << run.id << "  " << run.info.run_key << "  label " << run.info.label << "\n"
            << "source " << run.info.source << ", host " << run.info.host << ", infermark "
            << run.info.infermark_version << ", created " << run.created_at << "\n"
            << run.points << " point(s), " << run.predicted_points << " predicted\n\n";
  // A repeated point's figures are medians, each with its 95 % interval in brackets.
  const bool any_repeated = std::any_of(points.begin(), points.end(),
                                        [](const results::Point& p) { return results::RepeatCount(p.agg) > 1; });
  const std::size_t wide = any_repeated ? 26u : 11u;
  const std::size_t e2el_wide = any_repeated ? 20u : 10u;
  std::cout << Pad("point", 76) << Pad("kind", 10) << Pad("n", 4) << Pad("tok/s/GPU", wide) << Pad("tok/s/user", wide)
            << Pad("E2EL [s]", e2el_wide) << Pad("scale", 7) << Pad("host error", 30) << "verdict\n";
  for (const auto& p : points) {
    const auto m = results::DeScaled(p);
    // The headline figure the host moved most, and how many statistics it moved past the tolerance.
    const results::HostErrorSummary h = results::SummarizeHostError(p.provenance.host_error);
    std::string host = "-";
    if (h.worst_headline_rel) {
      host = results::PercentText(*h.worst_headline_rel) + " " + h.worst_headline;
      if (!h.marks.empty()) host += " (" + std::to_string(h.marks.size()) + " marked)";
    }
    const auto figure = [&](const char* key, double value, int digits) {
      std::string text = Fixed(value, digits);
      if (const auto f = results::DeScaledRepeatFigure(p, key)) {
        text += " [" + Fixed(f->interval.low, digits) + ", " + Fixed(f->interval.high, digits) + "]";
      }
      return text;
    };
    std::cout << Pad(p.key.Canonical(), 76) << Pad(results::PointKindName(p.provenance.kind), 10)
              << Pad(std::to_string(results::RepeatCount(p.agg)), 4)
              << Pad(figure("tput_per_gpu", m.tput_per_gpu, 1), wide)
              << Pad(figure("median_intvty", m.median_intvty, 1), wide)
              << Pad(figure("median_e2el", m.median_e2el, 2), e2el_wide) << Pad(Fixed(p.provenance.time_scale, 0), 7)
              << Pad(host, 30) << p.provenance.verdict << '\n';
  }
  if (any_repeated) {
    std::cout << "\nn: measurements of the point; a repeated point shows the median over its repeats and the 95 % "
                 "interval of the median (order statistics; below 6 repeats the interval is [min, max], covering "
                 "75 % at 3 and 93.75 % at 5)\n";
  }
  if (evaluations.empty()) return kExitOk;
  std::cout << "\n"
            << evaluations.size() << " evaluation(s)\n"
            << Pad("configuration", 76) << Pad("task", 8) << Pad("score ± stderr", 20) << Pad("flexible", 9)
            << Pad("threshold", 18) << Pad("n", 6) << Pad("origin", 15) << "verdict\n";
  for (const auto& e : evaluations) {
    std::string reasons;
    for (const std::string& r : e.reasons) reasons += (reasons.empty() ? ": " : "; ") + r;
    std::cout << Pad(e.key.Canonical(), 76) << Pad(e.task, 8) << Pad(results::ScoreText(e), 20)
              << Pad(e.flexible_score && e.Scored() ? Fixed(*e.flexible_score, 4) : "-", 9)
              << Pad(e.threshold ? Fixed(*e.threshold, 2) + " (" + e.threshold_source + ")" : "-", 18)
              << Pad(e.n ? std::to_string(*e.n) : "-", 6) << Pad(e.origin, 15) << e.Verdict() << reasons << '\n';
  }
  return kExitOk;
}

int RunExport(const std::string& db, const std::vector<std::string>& refs, const std::string& output,
              bool evaluations) {
  auto store = OpenExisting(db);
  std::vector<results::RunSummary> runs;
  if (refs.empty()) {
    runs = store->ListRuns();
  } else {
    for (const auto& ref : refs) runs.push_back(store->FindRun(ref));
  }
  std::string csv;
  if (evaluations) {
    std::vector<results::Evaluation> all;
    for (const auto& r : runs) {
      results::EvaluationQuery query;
      query.run_id = r.id;
      for (auto& e : store->Evaluations(query)) all.push_back(std::move(e));
    }
    csv = results::ExportEvaluationsCsv(all);
  } else {
    std::vector<std::pair<results::RunSummary, std::vector<results::Point>>> data;
    for (auto& r : runs) {
      auto points = store->Points(r.id);
      data.emplace_back(std::move(r), std::move(points));
    }
    csv = results::ExportCsv(data);
  }
  if (output.empty() || output == "-") {
    std::cout << csv;
  } else {
    WriteFileAtomic(output, csv);
  }
  return kExitOk;
}

// --- compare ---------------------------------------------------------------------------------

struct CompareCommand {
  std::string db = results::DefaultStorePath();
  std::string baseline;
  std::string candidate;
  std::string min_effect = "5";
  double alpha = 0.05;
  std::string multiple = "bh";
  int history = 10;
  std::vector<double> interactivities;
  std::string format = "text";
  std::string fail_on = "never";
  bool verbose = false;
};

std::string RunName(const results::RunSummary& run) {
  return "run " + std::to_string(run.id) + " " + run.info.run_key + " (" + run.info.label + ")";
}

int RunCompare(const CompareCommand& cmd) {
  results::CompareOptions options;
  options.rules.min_effect = results::ParseMinEffectPercent(cmd.min_effect);
  if (!(cmd.alpha > 0 && cmd.alpha < 1)) {
    throw InputError(Diagnostic{{}, "", "--alpha", "must be a significance level in (0, 1)"});
  }
  options.rules.alpha = cmd.alpha;
  options.rules.multiple = cmd.multiple == "none"   ? results::MultipleTests::kNone
                           : cmd.multiple == "holm" ? results::MultipleTests::kHolm
                                                    : results::MultipleTests::kBenjaminiHochberg;
  options.history_runs = cmd.history;
  for (double x : cmd.interactivities) {
    if (!(x > 0)) throw InputError(Diagnostic{{}, "", "--interactivity", "must be positive tok/s/user"});
  }
  options.interactivities = cmd.interactivities;
  auto store = OpenExisting(cmd.db);
  const results::RunSummary base = store->FindRun(cmd.baseline);
  const auto runs = store->ListRuns();
  results::RunSummary cand;
  if (cmd.candidate.empty()) {
    // The newest other run.
    bool found = false;
    for (const auto& r : runs) {
      if (r.id != base.id) {
        cand = r;
        found = true;
      }
    }
    if (!found)
      throw InputError(
          Diagnostic{{cmd.db, 0, 0}, "", "--candidate", "the store holds no other run to compare with the baseline"});
  } else {
    cand = store->FindRun(cmd.candidate);
  }
  // The series' history: the runs stored before the baseline (the candidate aside), oldest first.
  std::vector<std::vector<results::Point>> history;
  std::vector<const results::RunSummary*> earlier;
  for (const auto& r : runs) {
    if (r.id < base.id && r.id != cand.id) earlier.push_back(&r);
  }
  const std::size_t keep = static_cast<std::size_t>(std::max(0, cmd.history));
  for (std::size_t i = earlier.size() > keep ? earlier.size() - keep : 0; i < earlier.size(); ++i) {
    history.push_back(store->Points(earlier[i]->id));
  }
  const auto comparison = results::CompareRuns(store->Points(base.id), store->Points(cand.id), options, history);
  results::EvaluationQuery base_query, cand_query;
  base_query.run_id = base.id;
  cand_query.run_id = cand.id;
  const auto accuracy = results::CompareEvaluations(store->Evaluations(base_query), store->Evaluations(cand_query));
  const bool regressed = comparison.point_regressions + comparison.frontier_regressions + accuracy.regressions > 0;
  if (cmd.format == "markdown") {
    std::cout << results::ComparisonMarkdown(comparison, accuracy, options, {RunName(base), RunName(cand)});
  } else {
    std::cout << "baseline:  " << RunName(base) << "\n"
              << "candidate: " << RunName(cand) << "\n\n"
              << results::FormatComparison(comparison, options, cmd.verbose);
    if (!accuracy.changes.empty()) std::cout << '\n' << results::FormatEvaluationComparison(accuracy);
    std::cout << (regressed ? "\nSIGNIFICANT REGRESSIONS FOUND\n" : "\nno significant regression\n");
  }
  return regressed && cmd.fail_on == "regression" ? kExitRegression : kExitOk;
}

// --- command table ---------------------------------------------------------------------------

void AddResultsCommand(CLI::App& app, CommandResult& result) {
  // cmd_results_receipts.cpp adds `bundle` and `verify` to the same group.
  auto* results_cmd = CommandGroup(app, "results", "Process, store, list, export and compare benchmark results");

  auto process = std::make_shared<ProcessCommand>();
  auto* p = results_cmd->add_subcommand(
      "process",
      "Turn a client result into InferenceX's agg_*.json (as process_result.py), or an agentic aggregate into its "
      "processed record (the aggregate plus the dashboard's flat metrics and its validity), printed and written");
  p->add_option("result", process->input, "Client result or agentic aggregate JSON (default: $RESULT_FILENAME.json)");
  p->add_option("-o,--output", process->output, "Where to write (default: agg_<name>.json in this folder)");
  p->add_flag("-q,--quiet", process->quiet, "Do not print the record");
  p->add_flag("--require-power", process->require_power,
              "Exit 1 when the GPU power is invalid, after writing the record and its power_validation sidecar "
              "(also REQUIRE_POWER=1|true|yes)");
  process->flags.Add(p);
  p->callback([process, &result] { result.exit_code = RunProcess(*process); });

  auto power = std::make_shared<PowerCommand>();
  auto* pw = results_cmd->add_subcommand(
      "power",
      "Integrate GPU power telemetry over the benchmark window into energy per token, as InferenceX's "
      "aggregate_power.py: patch the agg record and write the power_validation_*.json sidecar");
  pw->add_option("--csv", power->options.csv, "Telemetry CSV (nvidia-smi or amd-smi)")->capture_default_str();
  pw->add_option("--bench-result", power->options.bench_result,
                 "Client result JSON (benchmark window, completed requests and token totals)")
      ->required();
  pw->add_option("--agg-result", power->options.agg_result, "agg_*.json record to patch in place")->required();
  pw->add_option("--expected-num-gpus", power->expected_num_gpus, "GPUs of the deployment (TP x PP x PCP)")->required();
  pw->add_option("--validation-result", power->validation_result,
                 "Sidecar path (default: power_validation_<result name>.json beside the client result)");
  pw->add_flag("--require-power", power->require_power,
               "Exit 1 when power is invalid, after writing both files (also REQUIRE_POWER=1|true|yes)");
  pw->callback([power, &result] { result.exit_code = RunPower(*power); });

  auto multinode_power = std::make_shared<MultinodePowerCommand>();
  multinode_power->options.power_dir = EnvironmentOr("POWER_ARTIFACT_DIR", "LOGS/power");
  multinode_power->options.logs_root = EnvironmentOr("POWER_RESULT_ROOT", "LOGS");
  auto* mp = results_cmd->add_subcommand(
      "power-multinode",
      "GPU power of a multi-node row from srt-slurm's DCGM package, as InferenceX's aggregate_power_multinode.py: "
      "the package revalidated, whole-deployment and per-role energy in the agg record and the "
      "power_validation_*.json sidecar");
  mp->add_option("--power-dir", multinode_power->options.power_dir,
                 "Package folder with manifest.json, samples.csv and windows/ (default: $POWER_ARTIFACT_DIR or "
                 "LOGS/power)");
  mp->add_option("--logs-root", multinode_power->options.logs_root,
                 "Folder the windows' result_path values resolve under (default: $POWER_RESULT_ROOT or LOGS)");
  mp->add_option("--bench-result", multinode_power->options.bench_result,
                 "Client result JSON (the processed copy: window, counts, max_concurrency)")
      ->required();
  mp->add_option("--agg-result", multinode_power->options.agg_result, "agg_*.json record to patch in place")
      ->required();
  mp->add_option("--prefill-gpus", multinode_power->prefill_gpus, "The row's prefill GPUs (PREFILL_GPUS)")->required();
  mp->add_option("--decode-gpus", multinode_power->decode_gpus, "The row's decode GPUs (DECODE_GPUS)")->required();
  mp->add_option("--expected-producer-sha", multinode_power->expected_producer_sha,
                 "srt-slurm git commit the package must name (default: $POWER_PRODUCER_SHA; none is invalid)");
  mp->add_option("--validation-result", multinode_power->validation_result,
                 "Sidecar path (default: power_validation_<result name>.json beside the client result)");
  mp->add_flag("--require-power", multinode_power->require_power,
               "Exit 1 when power is invalid, after writing both files (also REQUIRE_POWER=1|true|yes)");
  mp->callback([multinode_power, &result] { result.exit_code = RunMultinodePower(*multinode_power); });

  auto agentic_power = std::make_shared<AgenticPowerCommand>();
  auto* ap = results_cmd->add_subcommand(
      "agentic-power",
      "GPU power of an agentic run as InferenceX's power_adapter.py: aiperf's profiling window and successful "
      "records, agentic_power_window.json, the aggregate patched and power_validation.json in the result folder");
  ap->add_option("--result-dir", agentic_power->options.result_dir,
                 "Folder with aiperf_artifacts/, gpu_metrics.csv and agentic_power_timezone_offset.txt")
      ->required();
  ap->add_option("--agg-result", agentic_power->options.agg_result, "Agentic aggregate to patch in place")->required();
  ap->add_option("--expected-num-gpus", agentic_power->expected_num_gpus, "GPUs of the deployment (TP x PP x PCP)");
  ap->add_flag("--require-power", agentic_power->options.require_power,
               "Exit 1 when power is invalid, after writing the files (also REQUIRE_POWER=1|true|yes)");
  ap->callback([agentic_power, &result] { result.exit_code = RunAgenticPowerCommand(*agentic_power); });

  auto ingest = std::make_shared<IngestCommand>();
  auto* i = results_cmd->add_subcommand(
      "ingest", "Store result files (client results or agg records) and eval folders as one run");
  i->add_option("paths", ingest->paths, "Result files or folders (searched for *.json)")->required();
  i->add_option("--db", ingest->db, "Results store: sqlite:PATH, a path, or postgresql://…")->capture_default_str();
  i->add_option("--run", ingest->run_key, "Run key (default: derived from the files, so re-ingesting is a no-op)");
  i->add_option("--label", ingest->label, "Run label shown in lists and reports (default: the key)");
  i->add_option("--config-key", ingest->config_key, "Recipe (config key) to record for points that name none");
  i->add_option("--format", ingest->format,
                "auto (per file), result (client results, agg records), agg (agg records, agg_bmk.json) or "
                "inferencex-app (InferenceX-app API benchmark or evaluation rows: one run per workflow run) or lm-eval "
                "(eval folders only); auto and lm-eval also store the eval folders found (folders with meta_env.json "
                "or eval_status.json, e.g. evals/*/) as evaluations")
      ->check(CLI::IsMember({"auto", "result", "agg", "inferencex-app", "lm-eval"}))
      ->capture_default_str();
  i->add_option("--thresholds", ingest->thresholds,
                "Accuracy thresholds (InferenceX's thresholds.yaml) for evaluations that name none (default: "
                "data/evals/thresholds.yaml)");
  auto* pred = i->add_flag("--predicted", ingest->predicted, "Mark the points predicted");
  auto* meas = i->add_flag("--measured", ingest->measured, "Mark the points measured")->excludes(pred);
  auto* scale = i->add_option("--time-scale", ingest->time_scale,
                              "The engine ran this many times faster than the modelled hardware")
                    ->check(CLI::PositiveNumber);
  i->add_flag("--require-receipt", ingest->require_receipt,
              "Store measurement bundles only (folders with receipt.json, `results bundle`); each is verified first");
  i->add_option("--allow-issuer", ingest->allow_issuers,
                "Bundles must come from these issuers: OWNER/NAME or OWNER/NAME@WORKFLOW_SHA (implies "
                "--require-receipt)");
  i->add_option("--bundles", ingest->bundles,
                "Where verified bundles are kept for `results verify` (default: bundles/ beside a SQLite store; "
                "required for PostgreSQL)");
  ingest->flags.Add(i);
  ingest->not_for_bundles = {pred, meas, scale, i->get_option("--config-key")};
  i->callback([ingest, &result] { result.exit_code = RunIngest(*ingest); });

  auto db = std::make_shared<std::string>(results::DefaultStorePath());
  auto* l = results_cmd->add_subcommand("list", "List the stored runs");
  l->add_option("--db", *db, "Results store: sqlite:PATH, a path, or postgresql://…")->capture_default_str();
  l->callback([db, &result] { result.exit_code = RunList(*db); });

  auto show_ref = std::make_shared<std::string>();
  auto show_json = std::make_shared<bool>(false);
  auto* s = results_cmd->add_subcommand("show", "Show one run: provenance, points and evaluations");
  s->add_option("run", *show_ref, "Run id, key, key prefix, label or `latest`")->required();
  s->add_option("--db", *db, "Results store: sqlite:PATH, a path, or postgresql://…")->capture_default_str();
  s->add_flag("--json", *show_json, "Print JSON (provenance and agg records)");
  s->callback([db, show_ref, show_json, &result] { result.exit_code = RunShow(*db, *show_ref, *show_json); });

  auto export_refs = std::make_shared<std::vector<std::string>>();
  auto export_out = std::make_shared<std::string>();
  auto export_csv = std::make_shared<bool>(false);
  auto export_evals = std::make_shared<bool>(false);
  auto* e =
      results_cmd->add_subcommand("export", "Export points or evaluations as CSV (units in the headers; de-scaled)");
  e->add_flag("--csv", *export_csv, "CSV output (the only format)")->required();
  e->add_flag("--evaluations", *export_evals, "Export the runs' accuracy evaluations instead of their points");
  e->add_option("--run", *export_refs, "Runs to export, e.g. --run 1 3 (default: all)");
  e->add_option("--db", *db, "Results store: sqlite:PATH, a path, or postgresql://…")->capture_default_str();
  e->add_option("-o,--output", *export_out, "File to write (default: standard output)");
  e->callback([db, export_refs, export_out, export_evals, &result] {
    result.exit_code = RunExport(*db, *export_refs, *export_out, *export_evals);
  });

  auto compare = std::make_shared<CompareCommand>();
  auto* c = results_cmd->add_subcommand(
      "compare",
      "Compare a candidate run with a baseline point by point, on the Pareto frontier and on accuracy; a change is "
      "flagged only when a test puts it outside the noise (repeats, else the series' history) and it is at least "
      "the minimum effect; exit 3 on a significant regression with --fail-on regression");
  c->add_option("--baseline", compare->baseline, "Baseline run")->required();
  c->add_option("--candidate", compare->candidate, "Candidate run (default: the newest other run)");
  c->add_option("--min-effect-percent", compare->min_effect, "The smallest change worth reporting, in percent")
      ->capture_default_str();
  c->add_option("--alpha", compare->alpha, "Significance level of the tests")->capture_default_str();
  c->add_option("--multiple-tests", compare->multiple,
                "How the comparison's tests (every metric of every point, every frontier sample) share alpha: bh "
                "(Benjamini-Hochberg: false discovery rate alpha), holm (any false flag at alpha), none (each test "
                "on its own); with no real change, bh and holm flag anything with chance alpha at most")
      ->check(CLI::IsMember({"bh", "holm", "none"}))
      ->capture_default_str();
  c->add_option("--history", compare->history,
                "Earlier runs a series without repeats is judged against (lookback), besides the baseline")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  c->add_option("--interactivity", compare->interactivities,
                "Read the frontiers at these interactivities, tok/s/user (default: every frontier point)");
  c->add_option("--format", compare->format, "text (terminal tables) or markdown (a pull-request comment)")
      ->check(CLI::IsMember({"text", "markdown"}))
      ->capture_default_str();
  c->add_option("--fail-on", compare->fail_on, "never, or regression: exit 3 when a significant regression is found")
      ->check(CLI::IsMember({"never", "regression"}))
      ->capture_default_str();
  c->add_option("--db", compare->db, "Results store: sqlite:PATH, a path, or postgresql://…")->capture_default_str();
  c->add_flag("-v,--verbose", compare->verbose, "List every matched point, not only changes worth reporting");
  c->callback([compare, &result] { result.exit_code = RunCompare(*compare); });
}

[[maybe_unused]] const bool kResultsRegistered = RegisterCommand("results", &AddResultsCommand);

}  // namespace
}  // namespace infermark::cli
