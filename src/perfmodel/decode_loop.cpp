#include "perfmodel/decode_loop.hpp"

#include <cmath>
#include <map>
#include <sstream>

#include "core/csv_line.hpp"
#include "core/diagnostic.hpp"
#include "core/file_io.hpp"

namespace infermark::perfmodel {
namespace {

int RoundHalfUp(double x) {
  return static_cast<int>(std::floor(x + 0.5));
}

InputError RowError(const std::string& path, int line, const std::string& column, const std::string& rule) {
  return InputError(Diagnostic{SourceMark{path, line, 1}, "", column, rule});
}

}  // namespace

std::vector<DecodeLoopRow> LoadDecodeLoopCsv(const std::string& path) {
  std::stringstream in(ReadFile(path));
  std::map<std::string, std::size_t> columns;
  std::vector<DecodeLoopRow> out;
  std::string text;
  int line = 0;
  while (std::getline(in, text)) {
    ++line;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.empty()) continue;
    const std::vector<std::string> cells = SplitCsvLine(text);
    if (columns.empty()) {
      for (std::size_t i = 0; i < cells.size(); ++i) columns[cells[i]] = i;
      for (const char* c : {"model", "dtype", "kv_dtype", "layers", "dense_layers", "window_layers", "context", "batch",
                            "step_ms_median", "step_ms_p10", "step_ms_p90"})
        if (!columns.count(c)) throw RowError(path, line, c, "column missing (a decode_loop.py CSV has it)");
      continue;
    }
    if (cells.size() != columns.size())
      throw RowError(path, line, "",
                     "expected " + std::to_string(columns.size()) + " cells, got " + std::to_string(cells.size()));
    auto cell = [&](const char* c) -> const std::string& { return cells[columns.at(c)]; };
    auto number = [&](const char* c) {
      const std::string& s = cell(c);
      try {
        std::size_t used = 0;
        const double v = std::stod(s, &used);
        if (used == s.size() && std::isfinite(v)) return v;
      } catch (const std::exception&) {
      }
      throw RowError(path, line, c, "not a number: '" + s + "'");
    };
    auto count = [&](const char* c, int min) {
      const double v = number(c);
      if (v != std::floor(v) || v < min || v > 1e9)
        throw RowError(path, line, c, "must be a whole number >= " + std::to_string(min));
      return static_cast<int>(v);
    };
    DecodeLoopRow r;
    r.line = line;
    r.model = cell("model");
    r.dtype = cell("dtype");
    r.kv_dtype = cell("kv_dtype");
    if (r.model.empty() || r.dtype.empty() || r.kv_dtype.empty())
      throw RowError(path, line, "model", "model, dtype and kv_dtype must not be empty");
    r.shape.layers = count("layers", 1);
    r.shape.dense_layers = count("dense_layers", 0);
    r.shape.window_layers = count("window_layers", 0);
    r.context = count("context", 1);
    r.batch = count("batch", 1);
    r.step_ms_median = number("step_ms_median");
    r.step_ms_p10 = number("step_ms_p10");
    r.step_ms_p90 = number("step_ms_p90");
    if (!(r.step_ms_median > 0)) throw RowError(path, line, "step_ms_median", "must be positive");
    out.push_back(std::move(r));
  }
  if (columns.empty()) throw RowError(path, 0, "", "empty file (expected a decode_loop.py CSV)");
  return out;
}

StackShape DefaultStackShape(const ModelSpec& m, int layers) {
  if (layers >= m.layers) return StackShape{m.layers, m.dense_layers, m.attention.sliding_layers};
  StackShape s;
  s.layers = layers;
  if (m.moe.experts == 0) {
    s.dense_layers = layers;
  } else {
    int dense = RoundHalfUp(double(m.dense_layers) * layers / m.layers);
    if (m.dense_layers > 0) dense = std::max(dense, 1);
    s.dense_layers = layers > 1 ? std::min(dense, layers - 1) : 0;
  }
  s.window_layers = RoundHalfUp(double(m.attention.sliding_layers) * layers / m.layers);
  return s;
}

ModelSpec CutModel(const ModelSpec& model, const StackShape& s, const std::string& field) {
  auto bad = [&](const std::string& rule) { return InputError(Diagnostic{SourceMark{}, "", field, rule}); };
  if (s.layers < 1 || s.layers > model.layers)
    throw bad("layers must be between 1 and " + std::to_string(model.layers) + " (" + model.name + ")");
  if (s.dense_layers < 0 || s.dense_layers > s.layers) throw bad("dense layers must be between 0 and the layers");
  if (model.moe.experts == 0 && s.dense_layers != s.layers)
    throw bad(model.name + " is dense: every layer is a dense layer");
  if (s.window_layers < 0 || s.window_layers > s.layers) throw bad("window layers must be between 0 and the layers");
  if (s.window_layers > 0 && model.attention.sliding_window == 0) throw bad(model.name + " has no sliding window");
  ModelSpec m = model;
  m.layers = s.layers;
  m.dense_layers = s.dense_layers;
  m.attention.sliding_layers = s.window_layers;
  if (m.attention.sparse.enabled)
    m.attention.sparse.first_layer = std::min(model.attention.sparse.first_layer, s.layers);
  return m;
}

Deployment ResolveStackDeployment(const EngineData& data, const DeploymentOptions& options, const StackShape& shape) {
  EngineData stack_data = data;
  ModelSpec cut = CutModel(data.FindModel(options.model), shape, "--layers");
  cut.aliases.clear();
  stack_data.models = {cut};
  DeploymentOptions o = options;
  o.model = cut.name;
  return ResolveDeployment(stack_data, o);
}

double DecodeStepSeconds(const StepTimeModel& model, int batch, double context) {
  BatchShape shape;
  for (int i = 0; i < batch; ++i) AddDecode(shape, context, model.decode_query_tokens(), model.caps());
  return model.Seconds(shape);
}

}  // namespace infermark::perfmodel
