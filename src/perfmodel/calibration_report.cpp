#include "perfmodel/calibration_report.hpp"

#include <cstdio>
#include <filesystem>
#include <sstream>

namespace infermark::perfmodel {
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

}  // namespace

CalibrationOutcome Calibrate(const Calibrator& calibrator, const FitSettings& settings, bool skip_protocols,
                             const std::vector<RepeatedPoint>& repeats,
                             const std::function<void(const std::string&)>& progress) {
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
  if (o.noise) report << Row("noise floor (repeat runs)", *o.noise);
  auto fold_table = [&report](const char* title, const std::vector<Fold>& folds) {
    report << "\n## " << title << "\n\n" << Head("fold");
    for (const auto& f : folds) report << Row(f.description, SummarizeErrors(f.errors));
  };
  if (protocols) {
    fold_table("(a) model left out, per fold", o.model_left_out);
    fold_table("(b) GPU left out, per fold", o.gpu_left_out);
  }
  report << "\n## Profiles written (in-sample error)\n\n" << Head("profile");
  for (const auto& [profile, summary] : o.profiles) report << Row(profile.framework + "-" + profile.scope, summary);
  report << "\nWall time: " << wall_seconds << " s.\n";
  return report.str();
}

std::string HeldOutCsv(const Calibrator& calibrator, const CalibrationOutcome& o) {
  std::string csv =
      "protocol,fold,model,hw_key,precision,isl,osl,tp,conc,meas_tput,pred_tput,meas_intvty,pred_intvty\n";
  auto dump = [&](const char* protocol, const std::vector<Fold>& folds) {
    for (const auto& f : folds) {
      for (const auto& e : f.errors) {
        const MeasuredPoint& p = calibrator.points()[e.index];
        char buf[512];
        std::snprintf(buf, sizeof buf, "%s,\"%s\",%s,%s,%s,%d,%d,%d,%d,%.3f,%.3f,%.3f,%.3f\n", protocol,
                      f.description.c_str(), p.model.c_str(), p.hw_key.c_str(), p.precision.c_str(), p.isl, p.osl, p.tp,
                      p.conc, p.tput_per_gpu, e.pred_tput, p.intvty, e.pred_intvty);
        csv += buf;
      }
    }
  };
  dump("a", o.model_left_out);
  dump("b", o.gpu_left_out);
  return csv;
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

}  // namespace infermark::perfmodel
