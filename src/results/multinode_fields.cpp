#include "results/multinode_fields.hpp"

#include <cctype>
#include <cmath>

#include "results/point.hpp"

namespace infermark::results {
namespace {

long long Count(const Json& record, const std::string& key, long long fallback) {
  const auto it = record.find(key);
  if (it == record.end() || !it->is_number()) return fallback;
  const double v = it->get<double>();
  return std::isfinite(v) ? std::llround(v) : fallback;
}

bool Flag(const Json& record, const std::string& key) {
  const auto it = record.find(key);
  if (it == record.end()) return false;
  if (it->is_boolean()) return it->get<bool>();
  if (!it->is_string()) return false;
  std::string text = it->get<std::string>();
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text == "true" || text == "1";
}

std::string StringField(const Json& record, const char* key) {
  const auto it = record.find(key);
  return it != record.end() && it->is_string() ? it->get<std::string>() : "";
}

WorkerPool PoolOf(const Json& record, const std::string& role) {
  WorkerPool pool;
  pool.num_workers = Count(record, role + "_num_workers", 0);
  pool.tp = Count(record, role + "_tp", 0);
  pool.pp = Count(record, role + "_pp", 1);
  pool.dcp_size = Count(record, role + "_dcp_size", 1);
  pool.pcp_size = Count(record, role + "_pcp_size", 1);
  pool.ep = Count(record, role + "_ep", 0);
  pool.dp_attention = Flag(record, role + "_dp_attention");
  return pool;
}

}  // namespace

std::string WorkerPool::Parallelism() const {
  std::string text = "tp" + std::to_string(tp);
  if (pp != 1) text += "pp" + std::to_string(pp);
  if (dcp_size != 1) text += "dcp" + std::to_string(dcp_size);
  if (pcp_size != 1) text += "pcp" + std::to_string(pcp_size);
  if (ep > 1) text += "ep" + std::to_string(ep);
  if (dp_attention) text += "dpa";
  return text;
}

std::string MultiNodeFields::Label() const {
  if (!disagg) return "multinode " + std::to_string(prefill.num_workers) + "x " + prefill.Parallelism();
  return "disagg " + std::to_string(prefill.num_workers) + "P" + std::to_string(decode.num_workers) + "D " +
         prefill.Parallelism() + "/" + decode.Parallelism();
}

std::optional<MultiNodeFields> MultiNodeFieldsOf(const Json& record) {
  if (!record.is_object()) return std::nullopt;
  const auto multinode = record.find("is_multinode");
  if (multinode == record.end() || !multinode->is_boolean() || !multinode->get<bool>()) return std::nullopt;
  MultiNodeFields f;
  f.disagg = Flag(record, "disagg");
  f.prefill = PoolOf(record, "prefill");
  f.decode = PoolOf(record, "decode");
  f.num_prefill_gpu = Count(record, "num_prefill_gpu", 0);
  f.num_decode_gpu = Count(record, "num_decode_gpu", 0);
  f.prefill_hw = StringField(record, "prefill_hw");
  f.decode_hw = StringField(record, "decode_hw");
  return f;
}

std::string SeriesGroup(const Point& point) {
  const auto multinode = MultiNodeFieldsOf(point.agg);
  return point.key.Group() + (multinode ? " " + multinode->Label() : "");
}

}  // namespace infermark::results
