// A multi-node (disaggregated) row as the built-in engine models it: its prefill and decode
// worker pools as one DisaggDeployment's options, and one point per concurrency of the row's
// list, each with its own result file — as InferenceX's multi-node jobs run the list on one
// allocation and write one result per point.
#pragma once

#include <string>
#include <vector>

#include "matrix/matrix_row.hpp"
#include "perfmodel/disaggregation.hpp"
#include "runner/site_config.hpp"

namespace infermark::runner {

/// Whether `row` is a multi-node row (it has prefill and decode worker blocks).
bool IsMultiNodeRow(const matrix::MatrixRow& row);

/// The deployment of a multi-node `row` on `hardware` with the site's entry for its model: each
/// pool's num-worker, tp, ep and dp-attn; the KV transfer backend from `kv-p2p-transfer` (nixl
/// when the row names none).
perfmodel::DisaggOptions RowDisaggDeployment(const matrix::MatrixRow& row, const std::string& hardware,
                                             const ModelSite& model);

/// The result file stem of one concurrency of a multi-node row whose stem is `stem`:
/// `<stem>_conc<conc>_gpus_<P+D>_ctx_<P>_gen_<D>` (GPUs of the prefill and decode pools).
std::string MultiNodePointStem(const std::string& stem, int conc, int prefill_gpus, int decode_gpus);

}  // namespace infermark::runner
