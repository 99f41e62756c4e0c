// Routes over the points themselves: meta, points, runs, export.csv.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "core/repeat_stats.hpp"
#include "core/version.hpp"
#include "dashboard/api_routes.hpp"
#include "dashboard/point_filter.hpp"
#include "dashboard/point_json.hpp"

namespace infermark::dashboard::routes {
namespace {

const std::set<std::string, std::less<>> kTokenOnly = {"token"};

Json Axis(const char* key, const char* label, const char* unit) {
  return {{"key", key}, {"label", label}, {"unit", unit}};
}

// Full precision, shortest form.
std::string Number(double v) {
  char text[40];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(text, sizeof text, "%.*g", precision, v);
    if (std::strtod(text, nullptr) == v) break;
  }
  return text;
}

std::string Cell(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string Cell(const std::optional<double>& v) {
  return v ? Number(*v) : "";
}
std::string Cell(const std::optional<long long>& v) {
  return v ? std::to_string(*v) : "";
}

// Reasons in one cell, as the store's verdict line joins them.
std::string Joined(const std::vector<std::string>& reasons) {
  std::string text;
  for (const std::string& r : reasons) text += (text.empty() ? "" : "; ") + r;
  return text;
}

}  // namespace

ApiReply Meta(const Snapshot& snapshot, const Query& query) {
  query.RequireKnown(kTokenOnly);
  const Snapshot::FilterValues& values = snapshot.filter_values;
  Json runs = Json::array();
  for (const RunRow& r : snapshot.runs) {
    runs.push_back({{"id", r.id}, {"key", r.key}, {"label", r.label}, {"created_at", r.created_at}});
  }
  Json body = Json::object();
  body["api_version"] = kApiVersion;
  body["infermark_version"] = kVersion;
  body["store"] = {{"kind", snapshot.store_kind},
                   {"schema_version", snapshot.schema_version},
                   {"runs", snapshot.runs.size()},
                   {"points", snapshot.points.size()},
                   {"evaluations", snapshot.evaluations.size()}};
  body["filters"] = {{"model", values.model},
                     {"hardware", values.hardware},
                     {"framework", values.framework},
                     {"precision", values.precision},
                     {"sequence", values.sequence},
                     {"kind", values.kind},
                     {"run", runs}};
  body["axes"] = {{"x", Json::array({Axis("interactivity", "Interactivity", "tok/s/user"),
                                     Axis("e2el_s", "End-to-end latency", "s")})},
                  {"y", Json::array({Axis("tput_per_gpu", "Throughput per GPU", "tok/s/GPU"),
                                     Axis("input_tput_per_gpu", "Input throughput per GPU", "tok/s/GPU"),
                                     Axis("output_tput_per_gpu", "Output throughput per GPU", "tok/s/GPU"),
                                     Axis("j_per_token", "Energy per output token", "J/token"),
                                     Axis("cost_per_m_tokens", "Cost per million output tokens", "USD/M tokens")})}};
  return JsonReply(body);
}

ApiReply Points(const Snapshot& snapshot, const Query& query) {
  query.RequireKnown(FilterParameters());
  const PointFilter filter = PointFilter::Parse(query, snapshot);
  // Each point's JSON text was written when the snapshot was loaded: a query only joins them, into
  // one buffer sized up front.
  std::vector<const DashboardPoint*> matched;
  std::size_t bytes = 64;
  for (const DashboardPoint& p : snapshot.points) {
    if (!filter.Matches(p)) continue;
    matched.push_back(&p);
    bytes += p.json.size() + 1;
  }
  ApiReply reply{200, "application/json", {}};
  reply.body.reserve(bytes);
  reply.body += "{\"count\":" + std::to_string(matched.size()) + ",\"points\":[";
  for (std::size_t i = 0; i < matched.size(); ++i) {
    if (i > 0) reply.body += ',';
    reply.body += matched[i]->json;
  }
  reply.body += "]}";
  return reply;
}

ApiReply Runs(const Snapshot& snapshot, const Query& query) {
  query.RequireKnown(kTokenOnly);
  Json runs = Json::array();
  for (const RunRow& r : snapshot.runs) {
    runs.push_back({{"id", r.id},
                    {"key", r.key},
                    {"label", r.label},
                    {"source", r.source},
                    {"host", r.host},
                    {"infermark_version", r.infermark_version},
                    {"created_at", r.created_at},
                    {"points", r.points},
                    {"predicted_points", r.predicted_points}});
  }
  return JsonReply(Json{{"runs", runs}});
}

ApiReply ExportCsv(const Snapshot& snapshot, const Query& query) {
  query.RequireKnown(FilterParameters());
  const PointFilter filter = PointFilter::Parse(query, snapshot);
  std::string out =
      "id,run_id,run_label,series,model,hardware,framework,precision,sequence,isl [tok],osl [tok],agentic,conc,tp,ep,"
      "dp_attn,disagg,prefill_gpus,decode_gpus,spec_decoding,num_gpus,kind,date,tput_per_gpu [tok/s/GPU],"
      "input_tput_per_gpu [tok/s/GPU],output_tput_per_gpu [tok/s/GPU],interactivity [tok/s/user],e2el_s [s],"
      "ttft_ms [ms],tpot_ms [ms],w_per_gpu [W],j_per_token [J/output token],"
      "cost_per_m_tokens [USD/M output tokens],image,flags,host,infermark_version,time_scale,created_at,source,"
      "valid,verdict,invalid_reasons,power_valid,power_invalid_reasons,host_error_kind,host_error_worst_headline,"
      "host_error_worst_headline_rel [fraction],host_error_marks,repeats,tput_per_gpu_low [tok/s/GPU],"
      "tput_per_gpu_high [tok/s/GPU],interactivity_low [tok/s/user],interactivity_high [tok/s/user],"
      "interval_confidence [fraction]\n";
  for (const DashboardPoint& p : snapshot.points) {
    if (!filter.Matches(p)) continue;
    const PointProvenance& v = p.provenance;
    const std::string cells[] = {std::to_string(p.id),
                                 std::to_string(p.run_id),
                                 Cell(p.run_label),
                                 Cell(p.series),
                                 Cell(p.model),
                                 Cell(p.hardware),
                                 Cell(p.framework),
                                 Cell(p.precision),
                                 Cell(p.sequence),
                                 Cell(p.isl),
                                 Cell(p.osl),
                                 p.agentic ? "true" : "false",
                                 std::to_string(p.conc),
                                 Cell(p.tp),
                                 Cell(p.ep),
                                 p.dp_attn ? "true" : "false",
                                 p.disagg ? "true" : "false",
                                 Cell(p.prefill_gpus),
                                 Cell(p.decode_gpus),
                                 Cell(p.spec_decoding),
                                 std::to_string(p.num_gpus),
                                 p.predicted ? "predicted" : "measured",
                                 p.date,
                                 Number(p.tput_per_gpu),
                                 Number(p.input_tput_per_gpu),
                                 Number(p.output_tput_per_gpu),
                                 Number(p.interactivity),
                                 Number(p.e2el_s),
                                 Number(p.ttft_ms),
                                 Number(p.tpot_ms),
                                 Cell(p.w_per_gpu),
                                 Cell(p.j_per_token),
                                 Cell(p.cost_per_m_tokens),
                                 Cell(v.image),
                                 Cell(v.flags),
                                 Cell(v.host),
                                 Cell(v.infermark_version),
                                 Number(v.time_scale),
                                 Cell(v.created_at),
                                 Cell(v.source),
                                 p.valid ? "true" : "false",
                                 Cell(p.verdict),
                                 Cell(Joined(p.invalid_reasons)),
                                 p.power_valid ? (*p.power_valid ? "true" : "false") : "",
                                 Cell(Joined(p.power_invalid_reasons)),
                                 Cell(p.host_error.kind),
                                 Cell(p.host_error.worst_headline),
                                 Cell(p.host_error.worst_headline_rel),
                                 Cell(p.host_error.MarkedKeys())};
    bool first = true;
    for (const std::string& c : cells) {
      if (!first) out += ',';
      out += c;
      first = false;
    }
    // A repeated point's 95 % intervals of the median (blank for a point measured once).
    out += "," + std::to_string(p.repeats);
    const auto interval = [&](const std::vector<double>& values, bool confidence) {
      if (values.size() < 2) return std::string(confidence ? "," : ",,");
      const MedianInterval m = MedianWithInterval(values, kRepeatConfidenceLevel);
      return confidence ? "," + Number(m.confidence) : "," + Number(m.low) + "," + Number(m.high);
    };
    out += interval(p.repeat_values.tput_per_gpu, false) + interval(p.repeat_values.interactivity, false) +
           interval(p.repeat_values.tput_per_gpu, true);
    out += '\n';
  }
  return {200, "text/csv; charset=utf-8", out};
}

}  // namespace infermark::dashboard::routes
