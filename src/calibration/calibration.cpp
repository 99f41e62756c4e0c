#include "calibration/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include "calibration/nelder_mead.hpp"
#include "core/internal_error.hpp"
#include "core/numpy_stats.hpp"
#include "perfmodel/hardware_profile.hpp"
#include "perfmodel/kernel_classes.hpp"
#include "perfmodel/step_time.hpp"

namespace infermark::calibration {

using perfmodel::CalibratedProfile;
using perfmodel::Deployment;
using perfmodel::DeploymentOptions;
using perfmodel::EfficiencyFactors;
using perfmodel::EngineData;
using perfmodel::HardwareSpec;
using perfmodel::StepTimeModel;
using perfmodel::Trace;
using perfmodel::TraceFigures;

struct Calibrator::Prepared {
  Deployment deployment;
  std::unique_ptr<StepTimeModel> model;
  Trace trace;
};

namespace {

// Runs body(i) for i in [0, n) on `threads` threads, strided so that costly neighbours spread;
// the first exception of the lowest-numbered thread is rethrown once all have joined.
template <class Body>
void ParallelFor(std::size_t n, unsigned threads, const Body& body) {
  if (threads <= 1 || n < 2) {
    for (std::size_t i = 0; i < n; ++i) body(i);
    return;
  }
  std::vector<std::exception_ptr> errors(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      try {
        for (std::size_t i = t; i < n; i += threads) body(i);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  for (auto& th : pool) th.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

double Logit(double p) {
  return std::log(p / (1 - p));
}
double Sigmoid(double x) {
  return 1 / (1 + std::exp(-x));
}

// The fitted factors as an unconstrained vector: fractions through a logit, times through a log.
constexpr std::size_t kParams = 11;
std::vector<double> Encode(const EfficiencyFactors& e) {
  return std::vector<double>{Logit(e.hbm_bw_fraction),
                             Logit(e.flops_fraction),
                             Logit(e.attention_flops_fraction),
                             std::log(e.step_overhead_us + 1),
                             std::log(e.kernel_overhead_us + 0.05),
                             std::log(e.seq_overhead_us + 0.1),
                             std::log(e.allreduce_latency_us + 0.5),
                             Logit(e.low_bit_bw_efficiency),
                             std::log(e.weight_only_moe_overhead_ratio),
                             Logit(e.weight_only_flops_efficiency),
                             Logit(e.attention_bw_fraction)};
}
EfficiencyFactors Decode(const std::vector<double>& x, const EfficiencyFactors& base) {
  EfficiencyFactors e = base;
  // Fractions stay in [0.05, 0.98]: a kernel never beats the datasheet.
  e.hbm_bw_fraction = 0.05 + 0.93 * Sigmoid(x[0]);
  e.flops_fraction = 0.05 + 0.93 * Sigmoid(x[1]);
  e.attention_flops_fraction = 0.05 + 0.93 * Sigmoid(x[2]);
  e.step_overhead_us = std::exp(x[3]) - 1;
  e.kernel_overhead_us = std::exp(x[4]) - 0.05;
  e.seq_overhead_us = std::exp(x[5]) - 0.1;
  e.allreduce_latency_us = std::exp(x[6]) - 0.5;
  e.low_bit_bw_efficiency = 0.05 + 0.95 * Sigmoid(x[7]);
  e.weight_only_moe_overhead_ratio = std::exp(x[8]);
  e.weight_only_flops_efficiency = 0.05 + 0.95 * Sigmoid(x[9]);
  e.attention_bw_fraction = 0.05 + 0.93 * Sigmoid(x[10]);
  return e;
}
std::vector<double> EncodeBounded(const EfficiencyFactors& e) {
  std::vector<double> x = Encode(e);
  auto inv = [](double f) { return Logit(std::clamp((f - 0.05) / 0.93, 1e-3, 1 - 1e-3)); };
  x[0] = inv(e.hbm_bw_fraction);
  x[1] = inv(e.flops_fraction);
  x[2] = inv(e.attention_flops_fraction);
  x[7] = Logit(std::clamp((e.low_bit_bw_efficiency - 0.05) / 0.95, 1e-3, 1 - 1e-3));
  x[9] = Logit(std::clamp((e.weight_only_flops_efficiency - 0.05) / 0.95, 1e-3, 1 - 1e-3));
  x[10] = inv(e.attention_bw_fraction);
  return x;
}

// How far a parameter may drift from its prior before the pull is felt (in encoded units).
constexpr double kPriorWidth[kParams] = {1.5, 1.5, 1.5, 1.5, 1.0, 1.5, 1.0, 1.0, 0.3, 1.0, 1.0};

}  // namespace

ErrorSummary SummarizeErrors(const std::vector<PointError>& errors) {
  std::vector<double> t, i;
  for (const auto& e : errors) {
    t.push_back(e.tput_error);
    i.push_back(e.intvty_error);
  }
  return ErrorSummary{errors.size(), NumpyPercentile(t, 50), NumpyPercentile(t, 90), NumpyPercentile(i, 50),
                      NumpyPercentile(i, 90)};
}

ErrorSummary NoiseFloor(const std::vector<RepeatedPoint>& repeats) {
  std::vector<PointError> e;
  for (const auto& r : repeats)
    e.push_back(PointError{0, r.tput_b, r.intvty_b, std::fabs(r.tput_b - r.tput_a) / r.tput_a,
                           std::fabs(r.intvty_b - r.intvty_a) / r.intvty_a});
  return SummarizeErrors(e);
}

Calibrator::Calibrator(const EngineData& data, std::vector<MeasuredPoint> points, unsigned threads,
                       const TraceRecorder& record, const std::vector<std::string>& hardware_profiles)
    : data_(data), points_(std::move(points)) {
  std::map<std::string, std::string> profile_of;  // GPU -> profile path
  for (const auto& path : hardware_profiles) profile_of[perfmodel::LoadHardwareProfile(path).hardware] = path;
  prepared_.resize(points_.size());
  ParallelFor(points_.size(), threads, [&](std::size_t i) {
    const MeasuredPoint& p = points_[i];
    auto prep = std::make_unique<Prepared>();
    DeploymentOptions o;
    o.model = p.model;
    o.hardware = p.hardware;
    o.framework = p.framework;
    o.precision = p.precision;
    o.tp = p.tp;
    o.use_calibration = false;
    o.prefix_caching = false;  // random prompts share nothing; saves the hashing
    if (const auto it = profile_of.find(p.hardware); it != profile_of.end()) o.hardware_profile = it->second;
    prep->deployment = perfmodel::ResolveDeployment(data_, o);
    prep->model = std::make_unique<StepTimeModel>(prep->deployment);
    prep->trace = record(prep->deployment, p);
    prepared_[i] = std::move(prep);
  });
}

Calibrator::~Calibrator() = default;

const Deployment& Calibrator::deployment(std::size_t i) const {
  return prepared_[i]->deployment;
}

TraceFigures Calibrator::Predict(std::size_t i, const EfficiencyFactors& factors) const {
  StepTimeModel model = *prepared_[i]->model;
  model.SetEfficiency(factors);
  return perfmodel::RetimeTrace(prepared_[i]->trace, model, prepared_[i]->deployment.NumGpus());
}

std::vector<PointError> Calibrator::Errors(const std::vector<std::size_t>& idx, const EfficiencyFactors& factors,
                                           unsigned threads) const {
  std::vector<PointError> out(idx.size());
  ParallelFor(idx.size(), threads, [&](std::size_t k) {
    const std::size_t i = idx[k];
    const TraceFigures m = Predict(i, factors);
    const MeasuredPoint& p = points_[i];
    out[k] = PointError{i,
                        m.tput_per_gpu,
                        m.median_intvty,
                        std::fabs(m.tput_per_gpu - p.tput_per_gpu) / p.tput_per_gpu,
                        std::fabs(m.median_intvty - p.intvty) / p.intvty,
                        m.median_e2el};
  });
  return out;
}

EfficiencyFactors Calibrator::Prior(const std::string& framework, const std::string& hardware) const {
  EfficiencyFactors e = data_.FindFramework(framework).efficiency;
  const HardwareSpec& hw = data_.FindHardware(hardware);
  if (e.allreduce_latency_us < 0) e.allreduce_latency_us = hw.allreduce_latency_s * 1e6;
  if (e.alltoall_latency_us < 0) e.alltoall_latency_us = hw.alltoall_latency_s * 1e6;
  return e;
}

EfficiencyFactors Calibrator::Fit(const std::vector<std::size_t>& train, const EfficiencyFactors& prior,
                                  const FitSettings& settings, double* loss) const {
  const std::vector<double> x_prior = EncodeBounded(prior);
  INFERMARK_CHECK(x_prior.size() == kParams, "calibration: the parameter encoding has one entry per fitted factor");
  std::vector<double> logs(train.size());
  auto objective = [&](const std::vector<double>& x) {
    const EfficiencyFactors f = Decode(x, prior);
    ParallelFor(train.size(), settings.threads, [&](std::size_t k) {
      const std::size_t i = train[k];
      const TraceFigures m = Predict(i, f);
      const MeasuredPoint& p = points_[i];
      // Log errors weigh over- and under-prediction alike; absolute values keep outliers from
      // steering the fit (a median-like fit).
      logs[k] = 0.5 * (std::fabs(std::log(std::max(m.tput_per_gpu, 1e-9) / p.tput_per_gpu)) +
                       std::fabs(std::log(std::max(m.median_intvty, 1e-9) / p.intvty)));
    });
    double sum = 0;
    for (double v : logs) sum += v;
    double penalty = 0;
    for (std::size_t d = 0; d < kParams; ++d) {
      const double z = (x[d] - x_prior[d]) / kPriorWidth[d];
      penalty += z * z;
    }
    return sum / double(std::max<std::size_t>(1, train.size())) + settings.prior_weight * penalty;
  };
  NelderMeadOptions o;
  o.max_evaluations = settings.max_evaluations;
  o.restarts = 1;
  o.initial_step = 0.6;
  const NelderMeadResult r = NelderMead(objective, x_prior, o);
  if (loss != nullptr) *loss = r.value;
  return Decode(r.x, prior);
}

namespace {

std::string VendorOf(const EngineData& data, const std::string& hardware) {
  return data.FindHardware(hardware).vendor;
}

}  // namespace

std::vector<Fold> ModelLeftOut(const Calibrator& c, const FitSettings& settings) {
  const auto& pts = c.points();
  std::map<std::string, std::set<std::string>> models_by_key;
  for (const auto& p : pts) models_by_key[p.hw_key].insert(p.model);
  std::vector<Fold> folds;
  for (const auto& [key, models] : models_by_key) {
    for (const auto& held : models) {
      Fold f;
      std::vector<std::size_t> test;
      std::string framework, hardware;
      for (std::size_t i = 0; i < pts.size(); ++i) {
        if (pts[i].hw_key != key) continue;
        framework = pts[i].framework;
        hardware = pts[i].hardware;
        (pts[i].model == held ? test : f.train).push_back(i);
      }
      if (f.train.empty() || test.empty()) continue;
      f.description = key + ": fit on the other model, predict " + held;
      f.factors = c.Fit(f.train, c.Prior(framework, hardware), settings);
      f.errors = c.Errors(test, f.factors, settings.threads);
      folds.push_back(std::move(f));
    }
  }
  return folds;
}

std::vector<Fold> GpuLeftOut(const Calibrator& c, const FitSettings& settings) {
  const auto& pts = c.points();
  std::set<std::pair<std::string, std::string>> combos;  // framework, hardware
  for (const auto& p : pts) combos.emplace(p.framework, p.hardware);
  std::vector<Fold> folds;
  for (const auto& [framework, hardware] : combos) {
    const std::string vendor = VendorOf(c.data(), hardware);
    Fold f;
    std::vector<std::size_t> test, same_vendor, other_vendor;
    for (std::size_t i = 0; i < pts.size(); ++i) {
      if (pts[i].framework != framework) continue;
      if (pts[i].hardware == hardware)
        test.push_back(i);
      else if (VendorOf(c.data(), pts[i].hardware) == vendor)
        same_vendor.push_back(i);
      else
        other_vendor.push_back(i);
    }
    // The same vendor's software stack is the better teacher; another vendor's only when alone.
    f.train = !same_vendor.empty() ? same_vendor : other_vendor;
    if (f.train.empty() || test.empty()) continue;
    std::set<std::string> used;
    for (std::size_t i : f.train) used.insert(pts[i].hardware);
    std::string list;
    for (const auto& u : used) list += (list.empty() ? "" : "+") + u;
    f.description = framework + " on " + hardware + ": fit on " + list + ", predict from the datasheet";
    // The prior carries the held-out GPU's own collective latency; the fit replaces it with the
    // training GPUs' value, which is what transfers.
    EfficiencyFactors prior = c.Prior(framework, pts[f.train.front()].hardware);
    f.factors = c.Fit(f.train, prior, settings);
    f.errors = c.Errors(test, f.factors, settings.threads);
    folds.push_back(std::move(f));
  }
  return folds;
}

std::vector<Fold> ConcurrencyHeldOut(const Calibrator& c, const std::vector<int>& fit_conc,
                                     const FitSettings& settings) {
  const auto& pts = c.points();
  std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> groups;  // (hw key, model)
  for (std::size_t i = 0; i < pts.size(); ++i) groups[{pts[i].hw_key, pts[i].model}].push_back(i);
  std::vector<Fold> folds;
  for (const auto& [key, idx] : groups) {
    Fold f;
    std::vector<std::size_t> test;
    std::string fitted, held;
    for (std::size_t i : idx) {
      const bool fit = std::find(fit_conc.begin(), fit_conc.end(), pts[i].conc) != fit_conc.end();
      (fit ? f.train : test).push_back(i);
      (fit ? fitted : held) +=
          (fit ? fitted : held).empty() ? std::to_string(pts[i].conc) : "," + std::to_string(pts[i].conc);
    }
    if (f.train.empty() || test.empty()) continue;
    f.description = key.second + " on " + key.first + ": fit on conc " + fitted + ", predict conc " + held;
    f.factors = c.Fit(f.train, c.Prior(pts[idx.front()].framework, pts[idx.front()].hardware), settings);
    f.errors = c.Errors(test, f.factors, settings.threads);
    folds.push_back(std::move(f));
  }
  return folds;
}

std::vector<Fold> ArchitectureHeldOut(const Calibrator& c, const std::vector<CalibratedProfile>& profiles) {
  EngineData chosen = c.data();
  chosen.calibrated = profiles;
  for (auto& p : chosen.calibrated)
    if (p.path.empty()) p.path = p.framework + "-" + p.scope + ".yaml";
  const auto& pts = c.points();
  std::map<std::string, std::vector<std::size_t>> by_fold;
  for (std::size_t i = 0; i < pts.size(); ++i) by_fold[pts[i].model + " on " + pts[i].hw_key].push_back(i);
  std::vector<Fold> folds;
  for (const auto& [name, idx] : by_fold) {
    Fold f;
    const Deployment& d = c.deployment(idx.front());
    std::string source;
    f.factors = perfmodel::ChooseEfficiency(chosen, d.framework, d.hardware, &source);
    if (f.factors.allreduce_latency_us < 0) f.factors.allreduce_latency_us = d.hardware.allreduce_latency_s * 1e6;
    if (f.factors.alltoall_latency_us < 0) f.factors.alltoall_latency_us = d.hardware.alltoall_latency_s * 1e6;
    f.description = name + " (" + d.framework.name + "): never fitted, factors of " +
                    std::filesystem::path(source).filename().string();
    f.errors = c.Errors(idx, f.factors, 1);
    folds.push_back(std::move(f));
  }
  return folds;
}

std::vector<std::pair<CalibratedProfile, ErrorSummary>> FitProfiles(const Calibrator& c, const FitSettings& settings) {
  const auto& pts = c.points();
  std::set<std::pair<std::string, std::string>> scopes;  // framework, hardware or vendor
  for (const auto& p : pts) {
    scopes.emplace(p.framework, p.hardware);
    scopes.emplace(p.framework, VendorOf(c.data(), p.hardware));
  }
  std::vector<std::pair<CalibratedProfile, ErrorSummary>> out;
  for (const auto& [framework, scope] : scopes) {
    std::vector<std::size_t> train;
    std::string hardware;
    for (std::size_t i = 0; i < pts.size(); ++i) {
      if (pts[i].framework != framework) continue;
      if (pts[i].hardware != scope && VendorOf(c.data(), pts[i].hardware) != scope) continue;
      train.push_back(i);
      hardware = pts[i].hardware;
    }
    CalibratedProfile profile;
    profile.framework = framework;
    profile.scope = scope;
    profile.efficiency = c.Fit(train, c.Prior(framework, hardware), settings);
    std::set<std::string> classes;
    for (std::size_t i : train)
      for (auto& k : perfmodel::KernelClassesOf(c.deployment(i))) classes.insert(std::move(k));
    profile.kernel_classes.assign(classes.begin(), classes.end());
    out.emplace_back(profile, SummarizeErrors(c.Errors(train, profile.efficiency, settings.threads)));
  }
  return out;
}

}  // namespace infermark::calibration
