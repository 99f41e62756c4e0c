#include "calibration/measured_points.hpp"

#include <map>
#include <sstream>

#include "core/csv_line.hpp"
#include "core/diagnostic.hpp"
#include "core/file_io.hpp"

namespace infermark::calibration {

namespace {

struct Table {
  std::map<std::string, std::size_t> columns;
  std::vector<std::pair<int, std::vector<std::string>>> rows;
};

Table ReadTable(const std::string& path) {
  const std::string text = ReadFile(path);
  Table t;
  std::stringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    auto cells = SplitCsvLine(line);
    if (t.columns.empty()) {
      for (std::size_t i = 0; i < cells.size(); ++i) t.columns[cells[i]] = i;
      continue;
    }
    if (cells.size() != t.columns.size())
      throw InputError(
          Diagnostic{SourceMark{path, number, 1}, "", "",
                     "expected " + std::to_string(t.columns.size()) + " cells, got " + std::to_string(cells.size())});
    t.rows.emplace_back(number, std::move(cells));
  }
  return t;
}

const std::string& Cell(const Table& t, const std::vector<std::string>& row, const std::string& column,
                        const std::string& path, int line) {
  const auto it = t.columns.find(column);
  if (it == t.columns.end()) throw InputError(Diagnostic{SourceMark{path, 1, 1}, "", column, "column missing"});
  (void)line;
  return row[it->second];
}

double ParseNumber(const std::string& text, const std::string& path, int line, const std::string& column) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw InputError(Diagnostic{SourceMark{path, line, 1}, "", column, "not a number: '" + text + "'"});
}

std::string CatalogModel(const std::string& name, const std::string& path, int line) {
  if (name == "Llama 3.3 70B Instruct") return "llama-3.3-70b";
  if (name == "gpt-oss 120B") return "gpt-oss-120b";
  if (name == "DeepSeek R1 0528" || name == "DeepSeek-R1-0528") return "deepseek-r1";
  throw InputError(Diagnostic{SourceMark{path, line, 1}, "", "model_name", "no catalog model for '" + name + "'"});
}

void SequenceLengths(const std::string& text, int& isl, int& osl, const std::string& path, int line) {
  auto parse = [&](const std::string& part) {
    if (part == "1k") return 1024;
    if (part == "8k") return 8192;
    throw InputError(Diagnostic{SourceMark{path, line, 1}, "", "sequence_length", "unknown length '" + text + "'"});
  };
  const auto dash = text.find('-');
  if (dash == std::string::npos)
    throw InputError(Diagnostic{SourceMark{path, line, 1}, "", "sequence_length", "expected ISL-OSL"});
  isl = parse(text.substr(0, dash));
  osl = parse(text.substr(dash + 1));
}

}  // namespace

std::vector<MeasuredPoint> LoadMeasuredPoints(const std::string& path) {
  const Table t = ReadTable(path);
  std::vector<MeasuredPoint> out;
  for (const auto& [line, row] : t.rows) {
    auto cell = [&](const std::string& c) -> const std::string& { return Cell(t, row, c, path, line); };
    MeasuredPoint p;
    p.line = line;
    p.model = CatalogModel(cell("model_name"), path, line);
    p.hw_key = cell("hwKey");
    const auto under = p.hw_key.find('_');
    p.hardware = p.hw_key.substr(0, under);
    // `_trt` keys are TensorRT-LLM; the others ran the framework InferenceMAX served the model
    // with in October 2025: vLLM for Llama and gpt-oss, SGLang for DeepSeek-R1.
    const bool trt = under != std::string::npos && p.hw_key.substr(under + 1) == "trt";
    p.framework = trt ? "trt" : p.model == "deepseek-r1" ? "sglang" : "vllm";
    p.precision = cell("precision");
    SequenceLengths(cell("sequence_length"), p.isl, p.osl, path, line);
    p.tp = static_cast<int>(ParseNumber(cell("tp"), path, line, "tp"));
    p.conc = static_cast<int>(ParseNumber(cell("conc"), path, line, "conc"));
    p.tput_per_gpu = ParseNumber(cell("tpPerGpu_y"), path, line, "tpPerGpu_y");
    p.intvty = ParseNumber(cell("inter_x"), path, line, "inter_x");
    p.e2el = ParseNumber(cell("e2e_x"), path, line, "e2e_x");
    if (p.tp < 1 || p.conc < 1 || !(p.tput_per_gpu > 0) || !(p.intvty > 0))
      throw InputError(
          Diagnostic{SourceMark{path, line, 1}, "", "", "tp, conc, tpPerGpu_y and inter_x must be positive"});
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<RepeatedPoint> LoadRepeatedPoints(const std::string& path) {
  const Table t = ReadTable(path);
  std::vector<RepeatedPoint> out;
  for (const auto& [line, row] : t.rows) {
    auto num = [&](const std::string& c) { return ParseNumber(Cell(t, row, c, path, line), path, line, c); };
    // A point measured on only one of the dates has empty cells for the other: not a pair.
    bool complete = true;
    for (const char* c : {"tpPerGpu_y_oct25", "tpPerGpu_y_oct28", "inter_x_oct25", "inter_x_oct28"})
      complete &= !Cell(t, row, c, path, line).empty();
    if (!complete) continue;
    out.push_back(
        RepeatedPoint{num("tpPerGpu_y_oct25"), num("tpPerGpu_y_oct28"), num("inter_x_oct25"), num("inter_x_oct28")});
  }
  return out;
}

}  // namespace infermark::calibration
