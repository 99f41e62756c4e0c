#include "results/csv_export.hpp"

#include <cstdio>
#include <cstdlib>

namespace infermark::results {
namespace {

std::string Cell(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// Full precision, shortest form (%.17g would print noise digits).
std::string Number(double v) {
  char text[40];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(text, sizeof text, "%.*g", precision, v);
    if (std::strtod(text, nullptr) == v) break;
  }
  return text;
}

}  // namespace

std::string ExportCsv(const std::vector<std::pair<RunSummary, std::vector<Point>>>& runs) {
  std::string out =
      "run,run_label,kind,model,hw,framework,precision,spec_decoding,disagg,parallelism,isl [tok],osl [tok],conc,"
      "time_scale,tput_per_gpu [tok/s/GPU],output_tput_per_gpu [tok/s/GPU],input_tput_per_gpu [tok/s/GPU],"
      "median_intvty [tok/s/user],median_ttft [s],p99_ttft [s],median_tpot [s],p99_itl [s],median_e2el [s],"
      "verdict,config_key,image,host,infermark_version,started_at,source_path\n";
  for (const auto& [run, points] : runs) {
    for (const Point& p : points) {
      const PointMetrics m = DeScaled(p);
      const Provenance& v = p.provenance;
      const std::string cells[] = {run.info.run_key,
                                   run.info.label,
                                   PointKindName(v.kind),
                                   p.key.model,
                                   p.key.hw,
                                   p.key.framework,
                                   p.key.precision,
                                   p.key.spec_decoding,
                                   p.key.disagg ? "true" : "false",
                                   p.key.topology,
                                   std::to_string(p.key.isl),
                                   std::to_string(p.key.osl),
                                   std::to_string(p.key.conc),
                                   Number(v.time_scale),
                                   Number(m.tput_per_gpu),
                                   Number(m.output_tput_per_gpu),
                                   Number(m.input_tput_per_gpu),
                                   Number(m.median_intvty),
                                   Number(m.median_ttft),
                                   Number(m.p99_ttft),
                                   Number(m.median_tpot),
                                   Number(m.p99_itl),
                                   Number(m.median_e2el),
                                   v.verdict,
                                   v.config_key,
                                   v.image,
                                   v.host,
                                   v.infermark_version,
                                   v.started_at,
                                   v.source_path};
      bool first = true;
      for (const std::string& c : cells) {
        if (!first) out += ',';
        out += Cell(c);
        first = false;
      }
      out += '\n';
    }
  }
  return out;
}

}  // namespace infermark::results
