#include "calibration/calibration_report.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "calibration/band_coverage.hpp"

namespace infermark::calibration {

using perfmodel::CalibratedProfile;
using perfmodel::EfficiencyFactors;
using perfmodel::TraceFigures;

namespace {

std::string Pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", v * 100);
  return buf;
}

std::string Row(const std::string& name, const ErrorSummary& s) {
  return "| " + name + " | " + std::to_string(s.points) + " | " + Pct(s.tput_median) + " | " + Pct(s.tput_p90) + " | " +
         Pct(s.intvty_median) + " | " + Pct(s.intvty_p90) + " |\n";
}

std::vector<PointError> Flatten(const std::vector<Fold>& folds) {
  std::vector<PointError> all;
  for (const auto& f : folds) all.insert(all.end(), f.errors.begin(), f.errors.end());
  return all;
}

constexpr const char* kTableHead =
    "| %s | points | tok/s/GPU median | tok/s/GPU p90 | interactivity median | interactivity p90 |\n"
    "|---|---|---|---|---|---|\n";

std::string Head(const char* first_column) {
  char buf[256];
  std::snprintf(buf, sizeof buf, kTableHead, first_column);
  return buf;
}

// The bands and their coverage on points they never saw.
std::string BandsSection(const CalibrationOutcome& o) {
  std::ostringstream s;
  s << "\n## Prediction bands (p10 to p90 of ln measured/predicted, protocol (a))\n\n"
    << "A framework × vendor with at least " << o.bands.min_residuals
    << " residuals has bands of its own; any other takes the pooled one.\n\n"
    << BandsTable(o.bands);
  if (o.holdout != nullptr) {
    s << "\nCoverage on protocol (c)'s points (never fitted, never in a band):\n\n"
      << CoverageTable(BandCoverage(o.bands, o.held_out, "c"));
  }
  s << "\nCoverage with each hardware key's residuals left out of the bands they are checked against:\n\n"
    << CoverageTable(LeaveKeyOutCoverage(o.held_out, o.bands.min_residuals));
  return s.str();
}

}  // namespace

CalibrationOutcome Calibrate(const Calibrator& calibrator, const FitSettings& settings, bool skip_protocols,
                             const std::vector<RepeatedPoint>& repeats,
                             const std::function<void(const std::string&)>& progress, const Calibrator* holdout) {
  CalibrationOutcome out;
  auto say = [&progress](const std::string& line) {
    if (progress) progress(line);
  };
  if (!skip_protocols) {
    out.model_left_out = ModelLeftOut(calibrator, settings);
    say("protocol (a) done");
    out.gpu_left_out = GpuLeftOut(calibrator, settings);
    say("protocol (b) done");
  }
  if (!repeats.empty()) out.noise = NoiseFloor(repeats);
  out.profiles = FitProfiles(calibrator, settings);
  say("profiles fitted");
  if (holdout != nullptr) {
    std::vector<CalibratedProfile> profiles;
    for (const auto& [profile, summary] : out.profiles) profiles.push_back(profile);
    out.holdout = holdout;
    out.architecture_held_out = ArchitectureHeldOut(*holdout, profiles);
    say("protocol (c) done");
  }
  AppendHeldOut(out.held_out, "a", calibrator, out.model_left_out);
  AppendHeldOut(out.held_out, "b", calibrator, out.gpu_left_out);
  if (holdout != nullptr) AppendHeldOut(out.held_out, "c", *holdout, out.architecture_held_out);
  out.bands = BuildPredictionBands(out.held_out);
  return out;
}

std::string CalibrationReport(const Calibrator& calibrator, const CalibrationOutcome& o,
                              const std::string& measured_path, double wall_seconds) {
  std::ostringstream report;
  report << "# Calibration report\n\nMeasured points: `" << measured_path << "` (" << calibrator.points().size()
         << "). Errors are |predicted − measured| / measured on points NOT used in the fit.\n\n"
         << Head("protocol");
  const bool protocols = !o.model_left_out.empty() || !o.gpu_left_out.empty();
  if (protocols) {
    report << Row("(a) model left out", SummarizeErrors(Flatten(o.model_left_out)));
    report << Row("(b) GPU left out", SummarizeErrors(Flatten(o.gpu_left_out)));
  }
  if (!o.architecture_held_out.empty())
    report << Row("(c) architecture held out (never fitted)", SummarizeErrors(Flatten(o.architecture_held_out)));
  if (o.noise) report << Row("noise floor (repeat runs)", *o.noise);
  auto fold_table = [&report](const char* title, const std::vector<Fold>& folds) {
    report << "\n## " << title << "\n\n" << Head("fold");
    for (const auto& f : folds) report << Row(f.description, SummarizeErrors(f.errors));
  };
  if (protocols) {
    fold_table("(a) model left out, per fold", o.model_left_out);
    fold_table("(b) GPU left out, per fold", o.gpu_left_out);
  }
  if (!o.architecture_held_out.empty()) {
    fold_table("(c) architecture held out, per model and hardware key", o.architecture_held_out);
    // Where the miss sits: by concurrency, since fixed per-step and per-kernel costs dominate low ones.
    std::vector<PointError> low, high;
    for (const auto& f : o.architecture_held_out)
      for (const auto& e : f.errors) (o.holdout->points()[e.index].conc <= 16 ? low : high).push_back(e);
    report << "\n"
           << Head("(c) by concurrency") << Row("conc <= 16", SummarizeErrors(low))
           << Row("conc > 16", SummarizeErrors(high));
    std::vector<double> ratio;
    for (const auto& f : o.architecture_held_out)
      for (const auto& e : f.errors) ratio.push_back(e.pred_intvty / o.holdout->points()[e.index].intvty);
    std::sort(ratio.begin(), ratio.end());
    if (!ratio.empty())
      report << "\nPredicted over measured interactivity, median: " << ratio[ratio.size() / 2]
             << " (above 1: the model is optimistic).\n";
  }
  report << "\n## Profiles written (in-sample error)\n\n" << Head("profile");
  for (const auto& [profile, summary] : o.profiles) report << Row(profile.framework + "-" + profile.scope, summary);
  if (!o.bands.Empty()) report << BandsSection(o);
  report << "\nWall time: " << wall_seconds << " s.\n";
  return report.str();
}

std::string ServedCalibrationReport(const Calibrator& calibrator, const std::vector<Fold>& folds,
                                    const std::string& served_dir) {
  std::ostringstream report;
  report << "# Calibration on served points\n\nPoints: `" << served_dir << "` (" << calibrator.points().size()
         << "). Error = (predicted − measured) / measured.\n";
  auto signed_pct = [](double pred, double meas) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f %%", (pred - meas) / meas * 100);
    return std::string(buf);
  };
  auto num = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return std::string(buf);
  };
  for (const Fold& f : folds) {
    report << "\n## " << f.description << "\n\n"
           << "| conc | role | tok/s/GPU measured | predicted | error | interactivity measured | predicted | error |\n"
           << "|---|---|---|---|---|---|---|---|\n";
    std::vector<std::pair<std::size_t, bool>> rows;  // point, held out
    for (std::size_t i : f.train) rows.emplace_back(i, false);
    for (const auto& e : f.errors) rows.emplace_back(e.index, true);
    std::sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
      return calibrator.points()[a.first].conc < calibrator.points()[b.first].conc;
    });
    for (const auto& [i, held] : rows) {
      const MeasuredPoint& p = calibrator.points()[i];
      const TraceFigures m = calibrator.Predict(i, f.factors);
      report << "| " << p.conc << " | " << (held ? "held out" : "fitted") << " | " << num(p.tput_per_gpu) << " | "
             << num(m.tput_per_gpu) << " | " << signed_pct(m.tput_per_gpu, p.tput_per_gpu) << " | " << num(p.intvty)
             << " | " << num(m.median_intvty) << " | " << signed_pct(m.median_intvty, p.intvty) << " |\n";
    }
    const ErrorSummary s = SummarizeErrors(f.errors);
    double worst_tput = 0, worst_intvty = 0;
    for (const auto& e : f.errors) {
      worst_tput = std::max(worst_tput, e.tput_error);
      worst_intvty = std::max(worst_intvty, e.intvty_error);
    }
    const EfficiencyFactors& x = f.factors;
    char factors[512];
    std::snprintf(factors, sizeof factors,
                  "hbm_bw_fraction %.3f, flops_fraction %.3f, attention_bw_fraction %.3f, attention_flops_fraction "
                  "%.4f, step_overhead_us %.0f, kernel_overhead_us %.1f, seq_overhead_us %.0f",
                  x.hbm_bw_fraction, x.flops_fraction, x.attention_bw_fraction, x.attention_flops_fraction,
                  x.step_overhead_us, x.kernel_overhead_us, x.seq_overhead_us);
    report << "\nHeld out (" << s.points << " points): |error| median " << Pct(s.tput_median) << " tok/s/GPU, "
           << Pct(s.intvty_median) << " interactivity; worst " << Pct(worst_tput) << " and " << Pct(worst_intvty)
           << ".\n\nFitted factors: " << factors << ".\n";
  }
  return report.str();
}

std::vector<std::string> ProfileComment(const CalibratedProfile& profile, const ErrorSummary& summary,
                                        const std::string& measured_path) {
  return {"Written by `infermark engine calibrate`; do not edit by hand (rerun it).",
          "Fitted on " + std::to_string(summary.points) + " points of " +
              std::filesystem::path(measured_path).filename().string() + " (" + profile.framework + " on " +
              profile.scope + "); in-sample error: tok/s/GPU median " + Pct(summary.tput_median) +
              ", interactivity median " + Pct(summary.intvty_median) + ".",
          "Field meanings: docs/engine-model.md, \"Efficiency factors\"."};
}

std::vector<std::string> BandsComment(const std::string& measured_path) {
  return {"Written by `infermark engine calibrate`; do not edit by hand (rerun it).",
          "p10 and p90 of ln(measured / predicted) over the held-out predictions of protocol (a), model left out, "
          "on " +
              std::filesystem::path(measured_path).filename().string() + " (every one in held_out.csv beside this).",
          "A framework x vendor with at least min_residuals residuals has its own group; any other takes the pooled "
          "one.",
          "Meaning and measured coverage: docs/engine-model.md, \"Prediction bands\"."};
}

}  // namespace infermark::calibration
