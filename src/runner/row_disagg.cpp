#include "runner/row_disagg.hpp"

#include "runner/row_engine.hpp"

namespace infermark::runner {

bool IsMultiNodeRow(const matrix::MatrixRow& row) {
  return row.prefill.has_value() && row.decode.has_value();
}

perfmodel::DisaggOptions RowDisaggDeployment(const matrix::MatrixRow& row, const std::string& hardware,
                                             const ModelSite& model) {
  perfmodel::DisaggOptions d;
  const perfmodel::DeploymentOptions base = RowDeployment(row, hardware, model);
  auto role = [&base](const matrix::WorkerPool& pool) {
    perfmodel::DeploymentOptions o = base;
    o.tp = pool.tp;
    o.ep = pool.ep;
    o.dp_attention = pool.dp_attn;
    return o;
  };
  d.prefill = role(*row.prefill);
  d.prefill_workers = row.prefill->num_worker;
  d.decode = role(*row.decode);
  d.decode_workers = row.decode->num_worker;
  const auto it = row.raw.find("kv-p2p-transfer");
  if (it != row.raw.end() && it->is_string()) d.kv_transfer = it->get<std::string>();
  return d;
}

std::string MultiNodePointStem(const std::string& stem, int conc, int prefill_gpus, int decode_gpus) {
  return stem + "_conc" + std::to_string(conc) + "_gpus_" + std::to_string(prefill_gpus + decode_gpus) + "_ctx_" +
         std::to_string(prefill_gpus) + "_gen_" + std::to_string(decode_gpus);
}

}  // namespace infermark::runner
