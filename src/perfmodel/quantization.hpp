// Weight and KV-cache formats as data (data/engine/quantization.yaml): bytes per weight, the
// math rate quantized GEMMs run at, which weights a precision covers, and KV dtypes.
#pragma once

#include <map>
#include <string>

#include "perfmodel/hardware.hpp"
#include "perfmodel/model_spec.hpp"

namespace infermark::perfmodel {

/// A storage format for weights.
struct WeightFormat {
  std::string name;                            ///< e.g. `mxfp4`.
  double bytes_per_weight = 2;                 ///< Including scales.
  ComputeDtype compute = ComputeDtype::kBf16;  ///< Tensor-core rate when native.
};

/// What `--precision X` means before the model and hardware are known.
struct PrecisionDef {
  std::string name;             ///< `bf16`, `fp8`, `fp4`, `int4`.
  std::string format;           ///< A format name, or `native_fp4` (the hardware's fp4_format).
  std::string fallback_format;  ///< Used when the hardware has no native FP4.
  std::string kv_dtype;         ///< Default KV dtype of such checkpoints.
  std::string scope;            ///< `all_linear` or `experts`.
};

/// The whole quantization file.
struct QuantCatalog {
  std::map<std::string, WeightFormat> formats;     ///< By name.
  std::map<std::string, PrecisionDef> precisions;  ///< By name.
  std::map<std::string, double> kv_bytes;          ///< KV dtype -> bytes per element.
};

/// Reads quantization.yaml; throws InputError with every problem.
QuantCatalog LoadQuantizationFile(const std::string& path);

/// A precision resolved for one model on one GPU.
struct ResolvedPrecision {
  std::string precision;                             ///< As asked.
  std::string format;                                ///< Format of the quantized weights.
  double quant_bytes = 2;                            ///< Bytes per quantized weight.
  ComputeDtype quant_compute = ComputeDtype::kBf16;  ///< Rate of the quantized GEMMs.
  bool experts_only = false;                         ///< Only routed experts are quantized.
  std::string kv_dtype;                              ///< KV-cache dtype.
  double kv_bytes = 2;                               ///< Bytes per KV element.
};

/// Resolves `precision` (and `kv_dtype`, "auto" = the checkpoint's) for `model` on `hardware`;
/// throws InputError for an unknown precision or dtype.
ResolvedPrecision ResolvePrecision(const QuantCatalog& quant, const std::string& precision, const std::string& kv_dtype,
                                   const HardwareSpec& hardware, const ModelSpec& model);

}  // namespace infermark::perfmodel
