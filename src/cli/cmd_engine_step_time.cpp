// `infermark engine step-time`: the step-time model's prediction for decode steps of B sequences
// with C tokens of context each, on a stack of L layers of a model (one GPU need not hold the whole
// model), beside what the decode loop (bench/gpu/decode_loop.py) measured for the same shapes.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <tuple>

#include "cli/commands.hpp"
#include "cli/deployment_flags.hpp"
#include "cli/list_flags.hpp"
#include "core/diagnostic.hpp"
#include "core/exit_codes.hpp"
#include "perfmodel/decode_loop.hpp"
#include "perfmodel/engine_data.hpp"

namespace infermark::cli {
namespace {

struct StepTimeFlags {
  DeploymentFlags deployment;
  std::optional<int> layers;
  std::optional<int> dense_layers;
  std::optional<int> window_layers;
  std::string batches;
  std::optional<int> context;
  std::string measured;
  bool json = false;
  bool precision_given = false;
  bool kv_given = false;
};

// One decode step to predict, with its measurement when there is one.
struct StepCase {
  perfmodel::StackShape shape;
  double context = 0;
  int batch = 0;
  std::optional<perfmodel::DecodeLoopRow> measured;
  double predicted_ms = 0;
};

InputError Bad(const std::string& field, const std::string& rule) {
  return InputError(Diagnostic{SourceMark{}, "", field, rule});
}

// The measured rows of the model (and precision, stack and context when given).
std::vector<StepCase> MeasuredCases(const StepTimeFlags& f, const std::string& model,
                                    perfmodel::DeploymentOptions& options, const std::vector<int>& batches) {
  const std::vector<perfmodel::DecodeLoopRow> rows = perfmodel::LoadDecodeLoopCsv(f.measured);
  std::set<std::string> dtypes, seen;
  for (const auto& r : rows) {
    if (r.model == model) dtypes.insert(r.dtype);
    seen.insert(r.model + " " + r.dtype);
  }
  if (!f.precision_given) {
    if (dtypes.size() > 1)
      throw Bad("--precision", f.measured + " holds " + model + " at several precisions: pick one");
    if (dtypes.size() == 1) options.precision = *dtypes.begin();
  }
  std::vector<StepCase> cases;
  std::set<std::string> kv_dtypes;
  for (const auto& r : rows) {
    if (r.model != model || r.dtype != options.precision) continue;
    if (f.layers && r.shape.layers != *f.layers) continue;
    if (f.dense_layers && r.shape.dense_layers != *f.dense_layers) continue;
    if (f.window_layers && r.shape.window_layers != *f.window_layers) continue;
    if (f.context && r.context != *f.context) continue;
    if (!batches.empty() && std::find(batches.begin(), batches.end(), r.batch) == batches.end()) continue;
    kv_dtypes.insert(r.kv_dtype);
    cases.push_back(StepCase{r.shape, r.context, r.batch, r, 0});
  }
  if (cases.empty()) {
    std::string have;
    for (const auto& s : seen) have += (have.empty() ? "" : ", ") + s;
    throw InputError(Diagnostic{SourceMark{f.measured, 0, 0}, "", "--measured",
                                "no row of " + model + " at " + options.precision +
                                    " matches the flags (rows: " + (have.empty() ? "none" : have) + ")"});
  }
  if (!f.kv_given) {
    if (kv_dtypes.size() > 1) throw Bad("--kv-cache-dtype", "the matching rows differ in KV dtype: pick one");
    options.kv_cache_dtype = *kv_dtypes.begin();
  }
  return cases;
}

std::string FixedDigits(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

int RunStepTime(const StepTimeFlags& f) {
  perfmodel::DeploymentOptions options = ResolveDeploymentFlags(f.deployment);
  const perfmodel::EngineData& data = perfmodel::DefaultEngineData();
  const perfmodel::ModelSpec model = data.FindModel(options.model);
  const std::vector<int> batches = f.batches.empty() ? std::vector<int>{} : ParsePositiveInts("--batch", f.batches);
  if (f.context && *f.context < 1) throw Bad("--context", "must be at least 1 token");

  std::vector<StepCase> cases;
  if (!f.measured.empty()) {
    cases = MeasuredCases(f, model.name, options, batches);
  } else {
    if (f.layers && (*f.layers < 1 || *f.layers > model.layers))
      throw Bad("--layers", "must be between 1 and " + std::to_string(model.layers) + " (" + model.name + ")");
    perfmodel::StackShape shape = perfmodel::DefaultStackShape(model, f.layers.value_or(model.layers));
    if (f.dense_layers) shape.dense_layers = *f.dense_layers;
    if (f.window_layers) shape.window_layers = *f.window_layers;
    for (int b : batches.empty() ? std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128, 256} : batches)
      cases.push_back(StepCase{shape, double(f.context.value_or(1024)), b, std::nullopt, 0});
  }

  // One deployment per stack and context; its model predicts each batch.
  using Key = std::tuple<int, int, int>;
  std::map<Key, std::unique_ptr<perfmodel::StepTimeModel>> models;
  std::optional<perfmodel::Deployment> first;
  for (auto& c : cases) {
    const Key key{c.shape.layers, c.shape.dense_layers, c.shape.window_layers};
    auto it = models.find(key);
    if (it == models.end()) {
      perfmodel::Deployment d = perfmodel::ResolveStackDeployment(data, options, c.shape);
      it = models.emplace(key, std::make_unique<perfmodel::StepTimeModel>(d)).first;
      if (!first) first = std::move(d);
    }
    c.predicted_ms = perfmodel::DecodeStepSeconds(*it->second, c.batch, c.context) * 1e3;
  }
  std::vector<double> errors;
  for (const auto& c : cases)
    if (c.measured) errors.push_back(std::abs(c.predicted_ms / c.measured->step_ms_median - 1));
  std::optional<double> median_error;
  if (!errors.empty()) {
    std::sort(errors.begin(), errors.end());
    const std::size_t n = errors.size();
    median_error = n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
  }

  const perfmodel::Deployment& d = *first;
  if (f.json) {
    nlohmann::json out = {{"model", model.name},
                          {"precision", d.precision.precision},
                          {"kv_cache_dtype", options.kv_cache_dtype},
                          {"hardware", d.hardware.name},
                          {"framework", d.framework.name},
                          {"tp", d.tp},
                          {"efficiency_source", d.efficiency_source},
                          {"rows", nlohmann::json::array()}};
    for (const auto& c : cases) {
      nlohmann::json r = {{"layers", c.shape.layers},
                          {"dense_layers", c.shape.dense_layers},
                          {"window_layers", c.shape.window_layers},
                          {"context", c.context},
                          {"batch", c.batch},
                          {"predicted_ms", c.predicted_ms}};
      if (c.measured) {
        r["measured_ms"] = c.measured->step_ms_median;
        r["measured_p10_ms"] = c.measured->step_ms_p10;
        r["measured_p90_ms"] = c.measured->step_ms_p90;
        r["ratio"] = c.predicted_ms / c.measured->step_ms_median;
      }
      out["rows"].push_back(std::move(r));
    }
    out["median_abs_error"] = median_error ? nlohmann::json(*median_error) : nlohmann::json(nullptr);
    std::cout << out.dump(2) << '\n';
    return kExitOk;
  }
  std::cout << model.name << " " << d.precision.precision << " (KV " << options.kv_cache_dtype << ") on " << d.tp
            << "x " << d.hardware.name << ", " << d.framework.name << " efficiency from " << d.efficiency_source
            << '\n';
  std::cout << "layers  dense  window  context  batch  predicted_ms" << (errors.empty() ? "" : "  measured_ms  ratio")
            << '\n';
  for (const auto& c : cases) {
    char line[160];
    std::snprintf(line, sizeof line, "%6d  %5d  %6d  %7.0f  %5d  %12.3f", c.shape.layers, c.shape.dense_layers,
                  c.shape.window_layers, c.context, c.batch, c.predicted_ms);
    std::cout << line;
    if (c.measured) {
      std::snprintf(line, sizeof line, "  %11.3f  %5.3f", c.measured->step_ms_median,
                    c.predicted_ms / c.measured->step_ms_median);
      std::cout << line;
    }
    std::cout << '\n';
  }
  if (median_error)
    std::cout << "median |error|: " << FixedDigits(*median_error * 100, 1) << "% over " << errors.size() << " steps\n";
  return kExitOk;
}

void AddStepTimeCommand(CLI::App& app, CommandResult& result) {
  CLI::App* engine = CommandGroup(app, "engine", "The built-in engine: serve it over HTTP, calibrate its model");
  auto f = std::make_shared<StepTimeFlags>();
  auto* cmd = engine->add_subcommand(
      "step-time",
      "Predict decode steps (B sequences, C tokens of context each) of a stack of L layers of a model, beside the "
      "decode loop's measurements (bench/gpu/decode_loop.py)");
  AddDeploymentFlags(cmd, f->deployment);
  cmd->add_option("--layers", f->layers, "Layers of the stack (default: the model's; with --measured: filter rows)");
  cmd->add_option("--dense-layers", f->dense_layers,
                  "Dense-FFN layers of the stack (default: the model's share, at least one of each kind)");
  cmd->add_option("--window-layers", f->window_layers,
                  "Sliding-window layers of the stack (default: the model's share)");
  cmd->add_option("--batch", f->batches,
                  "Batch sizes, comma-separated (default: 1,2,4,…,256; with --measured: filter)");
  cmd->add_option("--context", f->context,
                  "KV tokens each sequence attends to (default 1024; with --measured: filter)");
  cmd->add_option("--measured", f->measured,
                  "The decode loop's CSV: its rows of --model give the shapes (and the precision and KV dtype when "
                  "those flags are not given)");
  cmd->add_flag("--json", f->json, "Print JSON");
  cmd->callback([f, cmd, &result] {
    f->precision_given = cmd->get_option("--precision")->count() > 0;
    f->kv_given = cmd->get_option("--kv-cache-dtype")->count() > 0;
    result.exit_code = RunStepTime(*f);
  });
}

[[maybe_unused]] const bool kEngineStepTimeRegistered = RegisterCommand("engine", &AddStepTimeCommand);

}  // namespace
}  // namespace infermark::cli
