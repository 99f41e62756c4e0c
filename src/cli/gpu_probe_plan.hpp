// What `infermark gpu probe` asks the probe library to time: the built-in models chosen by
// --models, the GEMM shapes of their layers per parallel degree and phase (deduplicated into the
// request's unique shapes), and the collectives they exchange per step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/json_text.hpp"
#include "perfmodel/collective_shapes.hpp"
#include "perfmodel/hardware_profile.hpp"
#include "perfmodel/model_spec.hpp"

namespace infermark::cli {

/// Tokens of the prefill step the probe times.
inline constexpr std::int64_t kPrefillTokens = 8192;

/// The decode batches timed: 1, 8, 32, 64, 128, 256 (`quick`: 1, 64, 256).
std::vector<std::int64_t> DecodeBatches(bool quick);

/// The built-in models (data/engine/models/*.yaml), those named by `names` only (all when empty).
/// Throws InputError (field --models) for a name no built-in model has.
std::vector<perfmodel::ModelSpec> Models(const std::vector<std::string>& names);

/// The profile's GEMM entries (times still 0) and the request's unique shapes they map to.
struct GemmPlan {
  std::vector<perfmodel::ProbedGemm> entries;  ///< One per (model, op, phase, tp, dtype).
  std::vector<std::size_t> request_index;      ///< Per entry: its shape's index in `requests`.
  Json requests = Json::array();               ///< The unique shapes, as the probe library reads them.
};

/// Every GEMM of `models` at each degree of `tps`, for each decode batch and the prefill step
/// (bf16 and fp8; grouped expert GEMMs in bf16 at a uniform expert load).
GemmPlan PlanGemms(const std::vector<perfmodel::ModelSpec>& models, const std::vector<int>& tps, bool quick);

/// The probe's collective tests: every distinct (op, bytes) the chosen models exchange.
struct CollectivePlan {
  std::vector<perfmodel::CollectiveShape> shapes;  ///< Every collective of every model, in order.
  Json tests = Json::array();                      ///< The distinct (op, bytes), as the probe library reads them.
};

/// The collectives `models` exchange per step at the decode batches and the prefill step.
CollectivePlan PlanCollectives(const std::vector<perfmodel::ModelSpec>& models, bool quick);

}  // namespace infermark::cli
