// `infermark engine bands`: the prediction bands rebuilt from the held-out predictions they came
// from (data/engine/bands/held_out.csv), checked against the bands file `predict` reads, and their
// coverage on points they never saw (docs/engine-model.md, "Prediction bands"). Milliseconds, where
// `engine calibrate` takes a minute: it reproduces the documented coverage from the committed data.
// Exit 1 when the bands file is not what its residuals give (rerun `engine calibrate`).
#include <filesystem>
#include <iostream>
#include <memory>

#include "calibration/band_coverage.hpp"
#include "calibration/held_out.hpp"
#include "calibration/prediction_band.hpp"
#include "cli/commands.hpp"
#include "core/exit_codes.hpp"
#include "perfmodel/engine_data.hpp"

namespace infermark::cli {
namespace {

struct BandsFlags {
  std::string held_out;
  std::string bands;
  std::size_t min_residuals = calibration::kMinBandResiduals;
};

int RunBands(const BandsFlags& f) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(perfmodel::EngineDataDir()) / "bands";
  const std::string held_out_path = f.held_out.empty() ? (dir / calibration::kHeldOutFile).string() : f.held_out;
  const std::string bands_path = f.bands.empty() ? (dir / calibration::kPredictionBandsFile).string() : f.bands;
  const std::vector<calibration::HeldOutPrediction> held_out = calibration::LoadHeldOutCsv(held_out_path);
  const calibration::PredictionBands rebuilt = calibration::BuildPredictionBands(held_out, f.min_residuals);
  std::cout << "# Prediction bands\n\nFrom `" << held_out_path << "` (protocol (a) residuals, groups of at least "
            << f.min_residuals << "):\n\n"
            << calibration::BandsTable(rebuilt)
            << "\nCoverage on protocol (c)'s points (never fitted, never in a band):\n\n"
            << calibration::CoverageTable(calibration::BandCoverage(rebuilt, held_out, "c"))
            << "\nCoverage with each hardware key's residuals left out of the bands they are checked against:\n\n"
            << calibration::CoverageTable(calibration::LeaveKeyOutCoverage(held_out, f.min_residuals)) << "\n";
  const calibration::PredictionBands file = calibration::LoadPredictionBands(bands_path);
  if (!calibration::SameBands(rebuilt, file)) {
    std::cout << "`" << bands_path << "` differs from what these residuals give: rerun `infermark engine calibrate`.\n";
    return kExitRunFailed;
  }
  std::cout << "`" << bands_path << "` is what these residuals give.\n";
  return kExitOk;
}

void AddBandsCommand(CLI::App& app, CommandResult& result) {
  CLI::App* engine = CommandGroup(app, "engine", "The built-in engine: serve it over HTTP, calibrate its model");
  auto f = std::make_shared<BandsFlags>();
  auto* cmd = engine->add_subcommand(
      "bands",
      "Rebuild the prediction bands from calibration's held-out predictions, check the bands file against them and "
      "print their coverage on points they never saw");
  cmd->add_option("--held-out", f->held_out, "Held-out predictions CSV (default: data/engine/bands/held_out.csv)");
  cmd->add_option("--bands", f->bands, "Bands file to check (default: data/engine/bands/prediction_bands.yaml)");
  cmd->add_option("--min-residuals", f->min_residuals, "Residuals a framework x vendor needs for its own band")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->callback([f, &result] { result.exit_code = RunBands(*f); });
}

[[maybe_unused]] const bool kEngineBandsRegistered = RegisterCommand("engine", &AddBandsCommand);

}  // namespace
}  // namespace infermark::cli
