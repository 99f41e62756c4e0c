#include "matrix/matrix_row.hpp"

#include <limits>

#include "matrix/generator.hpp"

namespace infermark::matrix {
namespace {

// Typed reads of one JSON object, each problem recorded once.
class RowReader {
 public:
  RowReader(const Json& row, const SourceMark& where, const std::string& entry, std::vector<Diagnostic>& problems)
      : row_(row), where_(where), entry_(entry), problems_(problems) {}

  void Problem(const std::string& field, const std::string& rule) {
    problems_.push_back(Diagnostic{where_, entry_, field, rule});
  }

  const Json* Find(const Json& object, const std::string& key) {
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  }

  void String(const char* key, std::string& out, bool required) {
    const Json* v = Find(row_, key);
    if (v == nullptr) {
      if (required) Problem(key, "field required");
      return;
    }
    if (!v->is_string()) return Problem(key, "must be a string");
    out = v->get<std::string>();
  }

  bool Int(const Json& object, const std::string& path, const std::string& key, int& out, int minimum) {
    const Json* v = Find(object, key);
    return v != nullptr && IntValue(*v, path, out, minimum);
  }

  bool IntValue(const Json& v, const std::string& path, int& out, int minimum) {
    if (!v.is_number_integer() || v.get<long long>() < minimum ||
        v.get<long long>() > std::numeric_limits<int>::max()) {
      Problem(path, "must be an integer of at least " + std::to_string(minimum));
      return false;
    }
    out = static_cast<int>(v.get<long long>());
    return true;
  }

  void Bool(const Json& object, const std::string& path, const std::string& key, bool& out) {
    const Json* v = Find(object, key);
    if (v == nullptr) return;
    if (!v->is_boolean()) return Problem(path, "must be true or false");
    out = v->get<bool>();
  }

  std::optional<WorkerPool> Pool(const char* side) {
    const Json* v = Find(row_, side);
    if (v == nullptr) return std::nullopt;
    if (!v->is_object()) {
      Problem(side, "must be a mapping of worker settings");
      return std::nullopt;
    }
    WorkerPool p;
    const std::string prefix = std::string(side) + ".";
    // An aggregated multi-node row has no decode workers (InferenceX processes it with D = 0).
    Int(*v, prefix + "num-worker", "num-worker", p.num_worker, std::string(side) == "decode" ? 0 : 1);
    Int(*v, prefix + "tp", "tp", p.tp, 1);
    Int(*v, prefix + "ep", "ep", p.ep, 1);
    Bool(*v, prefix + "dp-attn", "dp-attn", p.dp_attn);
    return p;
  }

  const Json& row() const { return row_; }

 private:
  const Json& row_;
  const SourceMark& where_;
  const std::string& entry_;
  std::vector<Diagnostic>& problems_;
};

}  // namespace

std::string MatrixRow::SeqLen() const {
  return Agentic() ? std::string() : SeqLenName(isl, osl);
}

MatrixRow ReadMatrixRow(const Json& row, const SourceMark& where, const std::string& entry,
                        std::vector<Diagnostic>& problems) {
  MatrixRow r;
  if (!row.is_object()) {
    problems.push_back(Diagnostic{where, entry, "",
                                  "a matrix row is an object with the matrix fields (runner, model, "
                                  "tp, conc, ...)"});
    return r;
  }
  r.raw = row;
  RowReader read(row, where, entry, problems);
  read.String("runner", r.runner, true);
  read.String("model", r.model, true);
  read.String("model-prefix", r.model_prefix, false);
  read.String("exp-name", r.exp_name, false);
  read.String("image", r.image, false);
  read.String("framework", r.framework, true);
  read.String("precision", r.precision, true);
  read.String("spec-decoding", r.spec_decoding, false);
  read.String("scenario-type", r.scenario_type, false);
  read.Bool(row, "disagg", "disagg", r.disagg);
  r.prefill = read.Pool("prefill");
  r.decode = read.Pool("decode");
  const bool multi_node = r.prefill.has_value() || r.decode.has_value();
  if (!multi_node && read.Find(row, "tp") == nullptr) read.Problem("tp", "field required");
  read.Int(row, "tp", "tp", r.tp, 1);
  read.Int(row, "ep", "ep", r.ep, 1);
  read.Bool(row, "dp-attn", "dp-attn", r.dp_attn);
  int max_model_len = 0;
  if (read.Int(row, "max-model-len", "max-model-len", max_model_len, 1)) r.max_model_len = max_model_len;
  if (r.Agentic()) {
    read.String("kv-offloading", r.kv_offloading, false);
    if (r.kv_offloading != "none" && r.kv_offloading != "dram") read.Problem("kv-offloading", "must be none or dram");
    if (const Json* backend = read.Find(row, "kv-offload-backend"); backend != nullptr && !backend->is_null()) {
      const Json* name = backend->is_object() ? read.Find(*backend, "name") : nullptr;
      if (name != nullptr && name->is_string()) {
        r.kv_offload_backend = name->get<std::string>();
      } else {
        read.Problem("kv-offload-backend", "must be an object with a string name");
      }
    }
    if (const Json* gb = read.Find(row, "total-cpu-dram-gb"); gb != nullptr) {
      if (gb->is_number() && gb->get<double>() >= 0) {
        r.total_cpu_dram_gb = gb->get<double>();
      } else {
        read.Problem("total-cpu-dram-gb", "must be a number of at least 0");
      }
    }
    read.Int(row, "duration", "duration", r.duration, 1);
  } else {
    for (const char* key : {"isl", "osl"}) {
      if (read.Find(row, key) == nullptr) read.Problem(key, "field required");
    }
    read.Int(row, "isl", "isl", r.isl, 1);
    read.Int(row, "osl", "osl", r.osl, 1);
  }
  const Json* conc = read.Find(row, "conc");
  if (conc == nullptr) {
    read.Problem("conc", "field required");
  } else if (conc->is_array()) {
    for (std::size_t i = 0; i < conc->size(); ++i) {
      int c = 0;
      if (read.IntValue((*conc)[i], "conc[" + std::to_string(i) + "]", c, 1)) r.conc.push_back(c);
    }
  } else {
    int c = 0;
    if (read.Int(row, "conc", "conc", c, 1)) r.conc.push_back(c);
  }
  return r;
}

std::vector<MatrixRow> ReadMatrixRows(const std::vector<Json>& rows, const std::string& source) {
  std::vector<MatrixRow> out;
  std::vector<Diagnostic> problems;
  out.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out.push_back(ReadMatrixRow(rows[i], SourceMark{source, 0, 0}, "row " + std::to_string(i), problems));
  }
  if (!problems.empty()) throw InputError(std::move(problems));
  return out;
}

}  // namespace infermark::matrix
