#include "matrix/result_filename.hpp"

#include <stdexcept>

#include "core/host.hpp"

namespace infermark::matrix {
namespace {

// A row value as GitHub Actions renders it into an environment variable.
std::string Render(const Json& value) {
  switch (value.type()) {
    case Json::value_t::boolean:
      return value.get<bool>() ? "true" : "false";
    case Json::value_t::string:
      return value.get<std::string>();
    case Json::value_t::array: {
      std::string out;
      for (const auto& item : value) {
        if (!out.empty()) out += 'x';
        out += Render(item);
      }
      return out;
    }
    case Json::value_t::null:
      return "";
    default:
      return value.dump();
  }
}

const Json& Field(const Json& object, const char* name) {
  auto it = object.find(name);
  if (it == object.end()) throw std::invalid_argument(std::string("matrix row has no '") + name + "' field");
  return *it;
}

std::string FieldOr(const Json& object, const char* name, const char* fallback) {
  auto it = object.find(name);
  return it == object.end() ? fallback : Render(*it);
}

std::string Pool(const Json& worker) {
  return "tp" + Render(Field(worker, "tp")) + "-pp" + FieldOr(worker, "pp", "1") + "-dcp" +
         FieldOr(worker, "dcp-size", "1") + "-pcp" + FieldOr(worker, "pcp-size", "1") + "-ep" +
         Render(Field(worker, "ep")) + "-dp" + Render(Field(worker, "dp-attn")) + "-nw" +
         Render(Field(worker, "num-worker"));
}

}  // namespace

std::string ResultFilename(const Json& row, const std::string& runner_name) {
  if (!row.is_object()) throw std::invalid_argument("matrix row is not an object");
  std::string name = Render(Field(row, "exp-name")) + "_" + Render(Field(row, "precision")) + "_" +
                     Render(Field(row, "framework")) + "_";
  if (row.contains("prefill")) {
    name += "prefill-" + Pool(Field(row, "prefill")) + "_decode-" + Pool(Field(row, "decode"));
  } else {
    name += "tp" + Render(Field(row, "tp")) + "-pp" + FieldOr(row, "pp", "1") + "-dcp" + FieldOr(row, "dcp-size", "1") +
            "-pcp" + FieldOr(row, "pcp-size", "1") + "-ep" + Render(Field(row, "ep")) + "-dpa" +
            Render(Field(row, "dp-attn"));
  }
  // Agentic single-node rows carry no disagg field; the template input then defaults to false.
  name += "_disagg-" + FieldOr(row, "disagg", "false") + "_spec-" + Render(Field(row, "spec-decoding")) + "_conc" +
          Render(Field(row, "conc")) + "_" + runner_name;
  if (auto fp = row.find("recipe-fingerprint"); fp != row.end() && fp->is_string() && !fp->get<std::string>().empty()) {
    name += "_recipe-" + fp->get<std::string>().substr(0, 16);
  }
  return name;
}

std::string DefaultRunnerName() {
  return HostName();
}

}  // namespace infermark::matrix
