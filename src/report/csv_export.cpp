#include "report/csv_export.hpp"

#include <cstdio>
#include <cstdlib>
#include <optional>

#include "power/power_fields.hpp"
#include "results/agentic_record.hpp"
#include "results/host_error_summary.hpp"
#include "results/multinode_fields.hpp"
#include "results/repeat_record.hpp"

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

std::string Maybe(const std::optional<double>& v) {
  return v ? Number(*v) : "";
}

std::string Maybe(const std::optional<long long>& v) {
  return v ? std::to_string(*v) : "";
}

}  // namespace

std::string ExportCsv(const std::vector<std::pair<RunSummary, std::vector<Point>>>& runs) {
  std::string out =
      "run,run_label,kind,model,hw,framework,precision,spec_decoding,disagg,parallelism,isl [tok],osl [tok],conc,"
      "time_scale,tput_per_gpu [tok/s/GPU],output_tput_per_gpu [tok/s/GPU],input_tput_per_gpu [tok/s/GPU],"
      "median_intvty [tok/s/user],median_ttft [s],p99_ttft [s],median_tpot [s],p99_itl [s],median_e2el [s],"
      "verdict,config_key,image,host,infermark_version,started_at,source_path,"
      "scenario_type,users,kv_offloading,kv_offload_backend,allocated_cpu_dram_gb [GB],duration [s],"
      "p90_intvty [tok/s/user],median_e2e_norm_intvty [tok/s/user],p90_e2e_norm_intvty [tok/s/user],"
      "median_full_response_intvty [tok/s/user],p90_full_response_intvty [tok/s/user],p90_ttft [s],p90_e2el [s],"
      "theoretical_cache_hit_rate [fraction],server_cache_hit_rate [fraction],server_gpu_cache_hit_rate [fraction],"
      "server_cpu_cache_hit_rate [fraction],kv_cache_pool_tokens [tok],requests_total,requests_successful,"
      "requests_failed,power_valid,avg_power_w [W/GPU],joules_per_output_token [J/tok],joules_per_input_token [J/tok],"
      "joules_per_total_token [J/tok],total_gpu_energy_j [J],power_metric_schema_version,warnings,"
      "is_multinode,deployment,num_prefill_gpu,num_decode_gpu,prefill_num_workers,prefill_tp,prefill_pp,"
      "prefill_dcp_size,prefill_pcp_size,prefill_ep,prefill_dp_attention,decode_num_workers,decode_tp,decode_pp,"
      "decode_dcp_size,decode_pcp_size,decode_ep,decode_dp_attention,prefill_hw,decode_hw,"
      "host_error_kind,host_error_worst_headline,host_error_worst_headline_rel [fraction],host_error_marks,"
      "repeats,repeat_server,interval_confidence [fraction],tput_per_gpu_low [tok/s/GPU],"
      "tput_per_gpu_high [tok/s/GPU],median_intvty_low [tok/s/user],median_intvty_high [tok/s/user],"
      "median_ttft_low [s],median_ttft_high [s],median_e2el_low [s],median_e2el_high [s]\n";
  for (const auto& [run, points] : runs) {
    for (const Point& p : points) {
      const PointMetrics m = DeScaled(p);
      const Provenance& v = p.provenance;
      const bool agentic = p.key.Agentic();
      const AgenticFields f = agentic ? AgenticFieldsOf(p.agg) : AgenticFields{};
      const PowerFields power = PowerFieldsOf(p.agg);
      const HostErrorSummary host = SummarizeHostError(v.host_error);
      const auto figure = [&](double value) { return agentic ? Number(value) : std::string(); };
      // Multi-node columns: blank for single-node points.
      const std::optional<MultiNodeFields> mn = MultiNodeFieldsOf(p.agg);
      const auto pool = [&](long long WorkerPool::*field, bool decode) {
        return mn ? std::to_string((decode ? mn->decode : mn->prefill).*field) : std::string();
      };
      const auto dpa = [&](bool decode) {
        return mn ? std::string((decode ? mn->decode : mn->prefill).dp_attention ? "true" : "false") : std::string();
      };
      std::string warnings;
      for (const auto& w : f.warnings) warnings += (warnings.empty() ? "" : "; ") + w;
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
                                   agentic ? "" : std::to_string(p.key.isl),
                                   agentic ? "" : std::to_string(p.key.osl),
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
                                   v.source_path,
                                   p.key.scenario_type,
                                   agentic ? std::to_string(f.users) : "",
                                   f.kv_offloading,
                                   f.kv_offload_backend,
                                   Maybe(f.allocated_cpu_dram_gb),
                                   Maybe(f.duration_s),
                                   figure(m.p90_intvty),
                                   figure(m.median_e2e_norm_intvty),
                                   figure(m.p90_e2e_norm_intvty),
                                   figure(m.median_full_response_intvty),
                                   figure(m.p90_full_response_intvty),
                                   figure(m.p90_ttft),
                                   figure(m.p90_e2el),
                                   Maybe(f.theoretical_cache_hit_rate),
                                   Maybe(f.server_cache_hit_rate),
                                   Maybe(f.server_gpu_cache_hit_rate),
                                   Maybe(f.server_cpu_cache_hit_rate),
                                   Maybe(f.kv_cache_pool_tokens),
                                   Maybe(f.requests_total),
                                   Maybe(f.requests_successful),
                                   Maybe(f.requests_error),
                                   Maybe(power.power_valid),
                                   Maybe(power.avg_power_w),
                                   Maybe(power.joules_per_output_token),
                                   Maybe(power.joules_per_input_token),
                                   Maybe(power.joules_per_total_token),
                                   Maybe(power.total_gpu_energy_j),
                                   Maybe(power.power_metric_schema_version),
                                   warnings,
                                   mn ? "true" : "false",
                                   mn ? mn->Label() : "",
                                   mn ? std::to_string(mn->num_prefill_gpu) : "",
                                   mn ? std::to_string(mn->num_decode_gpu) : "",
                                   pool(&WorkerPool::num_workers, false),
                                   pool(&WorkerPool::tp, false),
                                   pool(&WorkerPool::pp, false),
                                   pool(&WorkerPool::dcp_size, false),
                                   pool(&WorkerPool::pcp_size, false),
                                   pool(&WorkerPool::ep, false),
                                   dpa(false),
                                   pool(&WorkerPool::num_workers, true),
                                   pool(&WorkerPool::tp, true),
                                   pool(&WorkerPool::pp, true),
                                   pool(&WorkerPool::dcp_size, true),
                                   pool(&WorkerPool::pcp_size, true),
                                   pool(&WorkerPool::ep, true),
                                   dpa(true),
                                   mn ? mn->prefill_hw : "",
                                   mn ? mn->decode_hw : "",
                                   host.kind,
                                   host.worst_headline,
                                   Maybe(host.worst_headline_rel),
                                   host.MarkedKeys()};
      bool first = true;
      for (const std::string& c : cells) {
        if (!first) out += ',';
        out += Cell(c);
        first = false;
      }
      // A repeated point: how many, how, and each headline figure's 95 % interval of the median
      // (blank for a point measured once).
      const int repeats = RepeatCount(p.agg);
      const auto block = p.agg.find("repeats");
      out += "," + std::to_string(repeats) + "," +
             Cell(repeats > 1 && block->is_object() ? block->value("server", std::string()) : std::string());
      const std::optional<RepeatFigure> tput = DeScaledRepeatFigure(p, "tput_per_gpu");
      out += "," + (tput ? Number(tput->interval.confidence) : std::string());
      for (const char* key : {"tput_per_gpu", "median_intvty", "median_ttft", "median_e2el"}) {
        const std::optional<RepeatFigure> r = DeScaledRepeatFigure(p, key);
        out +=
            "," + (r ? Number(r->interval.low) : std::string()) + "," + (r ? Number(r->interval.high) : std::string());
      }
      out += '\n';
    }
  }
  return out;
}

std::string ExportEvaluationsCsv(const std::vector<Evaluation>& evaluations) {
  std::string out =
      "run,model,model_prefix,hw,framework,precision,spec_decoding,disagg,parallelism,isl [tok],osl [tok],conc,task,"
      "metric,status,reasons,score [fraction],score_stderr [fraction],flexible_score [fraction],"
      "flexible_stderr [fraction],n,threshold [fraction],threshold_source,verdict,eval_concurrency,date,duration [s],"
      "origin,server,source_path,run_url\n";
  for (const Evaluation& e : evaluations) {
    std::string reasons;
    for (const std::string& r : e.reasons) reasons += (reasons.empty() ? "" : "; ") + r;
    const auto length = [](long long v) { return v > 0 ? std::to_string(v) : std::string(); };
    // Only a scored evaluation has figures: the others' cells stay empty, never 0.
    const bool scored = e.Scored();
    const std::optional<double> none;
    out += Cell(e.run_key) + "," + Cell(e.key.model) + "," + Cell(e.model_prefix) + "," + Cell(e.key.hw) + "," +
           Cell(e.key.framework) + "," + Cell(e.key.precision) + "," + Cell(e.key.spec_decoding) + "," +
           (e.key.disagg ? "true" : "false") + "," + Cell(e.key.topology) + "," + length(e.key.isl) + "," +
           length(e.key.osl) + "," + std::to_string(e.key.conc) + "," + Cell(e.task) + "," + Cell(e.metric) + "," +
           EvalStatusName(e.status) + "," + Cell(reasons) + "," + Maybe(scored ? e.score : none) + "," +
           Maybe(scored ? e.score_stderr : none) + "," + Maybe(scored ? e.flexible_score : none) + "," +
           Maybe(scored ? e.flexible_stderr : none) + "," + Maybe(e.n) + "," + Maybe(e.threshold) + "," +
           Cell(e.threshold_source) + "," + Cell(e.Verdict()) + "," + std::to_string(e.eval_concurrency) + "," +
           Cell(e.date) + "," + Maybe(e.duration_s) + "," + Cell(e.origin) + "," + Cell(e.server) + "," +
           Cell(e.source_path) + "," + Cell(e.run_url) + "\n";
  }
  return out;
}

}  // namespace infermark::results
