// The decode loop (bench/gpu/decode_loop.py) against the step-time model: its CSV of measured
// steps, the stack of layers it built (a model cut to fewer layers so that one GPU holds it) and
// the model's prediction for the same shapes (`infermark engine step-time`).
#pragma once

#include <string>
#include <vector>

#include "perfmodel/deployment.hpp"
#include "perfmodel/step_time.hpp"

namespace infermark::perfmodel {

/// Layers of a stack cut from a model: how many, and how many of them are dense or windowed.
struct StackShape {
  int layers = 0;         ///< Transformer layers in the stack.
  int dense_layers = 0;   ///< Of which with a dense FFN (the first ones); the others are MoE.
  int window_layers = 0;  ///< Of which sliding-window attention.
};

/// One measured decode step of the decode loop's CSV.
struct DecodeLoopRow {
  int line = 0;               ///< Line in the file (1-based).
  std::string model;          ///< Built-in model name.
  std::string dtype;          ///< Weight precision (`bf16`, `fp8`).
  std::string kv_dtype;       ///< KV-cache dtype.
  StackShape shape;           ///< The stack it built.
  double context = 0;         ///< KV tokens each query attends to.
  int batch = 0;              ///< Decoding sequences.
  double step_ms_median = 0;  ///< Median step time, ms.
  double step_ms_p10 = 0;     ///< 10th percentile, ms.
  double step_ms_p90 = 0;     ///< 90th percentile, ms.
};

/// Reads the decode loop's CSV; throws InputError (file:line, column, rule) on a malformed row.
std::vector<DecodeLoopRow> LoadDecodeLoopCsv(const std::string& path);

/// The stack of `layers` layers of `model` the decode loop builds by default: the model's dense
/// and windowed shares rounded half up; a MoE model with dense layers keeps at least one dense
/// and one MoE layer. All layers when `layers` is the model's count or more.
StackShape DefaultStackShape(const ModelSpec& model, int layers);

/// `model` cut to `shape` (sparse attention keeps its count of dense layers at the front, capped
/// at the stack); throws InputError naming `field` when the shape does not fit the model.
ModelSpec CutModel(const ModelSpec& model, const StackShape& shape, const std::string& field);

/// The deployment of `options` with its model cut to `shape` (weights and memory plan of the
/// stack, not of the whole model).
Deployment ResolveStackDeployment(const EngineData& data, const DeploymentOptions& options, const StackShape& shape);

/// Seconds one decode step of `batch` sequences, each attending to `context` tokens, takes.
double DecodeStepSeconds(const StepTimeModel& model, int batch, double context);

}  // namespace infermark::perfmodel
