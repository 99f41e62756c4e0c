// A predicted disaggregated run: the load generator's client against every worker of a
// DisaggDeployment on one virtual clock (DisaggTarget), its figures per GPU over both roles.
#pragma once

#include "loadgen/bench_config.hpp"
#include "perfmodel/disaggregation.hpp"
#include "sim/disagg_target.hpp"
#include "sim/predict.hpp"

namespace infermark::sim {

/// A predicted disaggregated run.
struct DisaggPrediction {
  loadgen::BenchResult result;  ///< Records, metrics, verdict and the result document (marked predicted).
  /// Its processed figures as InferenceX's multi-node processing gives them: total throughput
  /// per GPU of both roles, output per decode GPU, input per prefill GPU.
  PredictedFigures figures;
  TransferStats transfers;  ///< The link's counters.
};

/// Runs the client `config` against `deployment` in virtual time. InputError for settings the
/// client refuses.
DisaggPrediction PredictDisagg(const perfmodel::DisaggDeployment& deployment, const loadgen::BenchConfig& config,
                               const VirtualTargetOptions& options = {},
                               RouterPolicy router = RouterPolicy::kRoundRobin);

}  // namespace infermark::sim
