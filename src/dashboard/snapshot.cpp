#include "dashboard/snapshot.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <string_view>
#include <unordered_set>

#include "core/parallel_chunks.hpp"
#include "dashboard/point_json.hpp"
#include "power/power_fields.hpp"
#include "report/price_table.hpp"
#include "results/multinode_fields.hpp"
#include "results/point_validity.hpp"
#include "results/repeat_record.hpp"
#include "results/runner_label.hpp"

namespace infermark::dashboard {
namespace {

std::optional<long long> Integer(const Json& record, const char* key) {
  const auto it = record.find(key);
  if (it == record.end()) return std::nullopt;
  if (it->is_number()) return it->get<long long>();
  return std::nullopt;
}

bool Truthy(const Json& record, const char* key) {
  const auto it = record.find(key);
  if (it == record.end()) return false;
  if (it->is_boolean()) return it->get<bool>();
  if (it->is_string()) return it->get<std::string>() == "true" || it->get<std::string>() == "True";
  if (it->is_number()) return it->get<double>() != 0;
  return false;
}

std::string Length(long long tokens) {
  return tokens > 0 && tokens % 1024 == 0 ? std::to_string(tokens / 1024) + "k" : std::to_string(tokens);
}

}  // namespace

const RunRow* Snapshot::FindRun(const std::string& ref) const {
  for (const RunRow& run : runs) {
    if (run.key == ref || std::to_string(run.id) == ref) return &run;
  }
  return nullptr;
}

const DashboardPoint* Snapshot::FindPoint(std::int64_t id) const {
  if (point_index.size() == points.size()) {
    const auto it = point_index.find(id);
    return it == point_index.end() ? nullptr : &points[it->second];
  }
  const auto it = std::find_if(points.begin(), points.end(), [&](const DashboardPoint& p) { return p.id == id; });
  return it == points.end() ? nullptr : &*it;
}

std::string SequenceLabel(long long isl, long long osl) {
  return Length(isl) + "/" + Length(osl);
}

DashboardPoint DerivePoint(const results::Point& point, const RunRow& run, const PriceLookup& prices) {
  const results::PointMetrics m = results::DeScaled(point);
  const results::PointKey& k = point.key;
  const Json& agg = point.agg;
  DashboardPoint d;
  d.id = point.id;
  d.run_id = run.id;
  d.run_key = run.key;
  d.run_label = run.label;
  d.model = k.model;
  // Stores written before runs recorded a cluster label's GPU hold the label itself.
  d.hardware = results::HardwareOfLabel(k.hw);
  d.framework = k.framework;
  d.precision = k.precision;
  d.agentic = k.Agentic();
  d.sequence = d.agentic ? "agentic" : SequenceLabel(k.isl, k.osl);
  if (!d.agentic) {
    d.isl = k.isl;
    d.osl = k.osl;
  }
  d.conc = k.conc;
  d.disagg = k.disagg;
  d.spec_decoding = k.spec_decoding.empty() ? "none" : k.spec_decoding;
  d.predicted = point.provenance.kind == results::PointKind::kPredicted;
  const std::optional<results::MultiNodeFields> multinode = results::MultiNodeFieldsOf(agg);
  if (multinode) {
    d.prefill_gpus = multinode->num_prefill_gpu;
    d.decode_gpus = multinode->num_decode_gpu;
    d.num_gpus = multinode->num_prefill_gpu + multinode->num_decode_gpu;
    d.dp_attn = multinode->prefill.dp_attention || multinode->decode.dp_attention;
  } else {
    d.tp = Integer(agg, "tp");
    d.ep = Integer(agg, "ep");
    d.dp_attn = Truthy(agg, "dp_attention");
    d.num_gpus = d.tp.value_or(1) * Integer(agg, "pp").value_or(1) * Integer(agg, "pcp_size").value_or(1);
  }
  d.series = d.hardware + " · " + k.framework + " · " + k.precision;
  if (d.spec_decoding != "none") d.series += " · " + d.spec_decoding;
  if (d.agentic) d.series += " · " + k.OffloadMode();
  if (multinode) d.series += " · " + multinode->Label();
  if (d.predicted) d.series += " · predicted";

  const std::string& started = point.provenance.started_at;
  d.date = (started.size() >= 10             ? started
            : point.ingested_at.size() >= 10 ? point.ingested_at
                                             : run.created_at)
               .substr(0, 10);
  d.tput_per_gpu = m.tput_per_gpu;
  d.input_tput_per_gpu = m.input_tput_per_gpu;
  d.output_tput_per_gpu = m.output_tput_per_gpu;
  d.interactivity = results::DefaultInteractivity(point, m);
  d.e2el_s = m.median_e2el;
  d.ttft_ms = m.median_ttft * 1000;
  d.tpot_ms = m.median_tpot * 1000;
  results::PointValidity validity = results::ValidityOf(point.provenance.verdict);
  d.valid = validity.valid;
  d.verdict = std::move(validity.verdict);
  d.invalid_reasons = std::move(validity.reasons);
  const results::PowerFields power = results::PowerFieldsOf(agg);
  if (power.power_valid && !d.predicted) d.power_valid = power.Valid();
  if (power.Invalid() && !d.predicted) d.power_invalid_reasons = point.provenance.power_invalid_reasons;
  d.host_error = results::SummarizeHostError(point.provenance.host_error);
  if (power.Valid() && !d.predicted) {
    d.w_per_gpu = power.avg_power_w;
    d.j_per_token = power.joules_per_output_token;
  }
  const results::BandFields band = results::BandFieldsOf(agg, point.provenance.time_scale);
  if (band.Present() && !d.agentic) {
    PointBands& b = d.band;
    b.scope = band.scope;
    b.residuals = band.residuals;
    b.tput_per_gpu = band.tput_per_gpu;
    b.input_tput_per_gpu = band.input_tput_per_gpu;
    b.output_tput_per_gpu = band.output_tput_per_gpu;
    b.interactivity = band.median_intvty;
    b.e2el_s = band.median_e2el;
    if (band.median_ttft)
      b.ttft_ms = results::FigureBand{band.median_ttft->band_p10 * 1000, band.median_ttft->band_p90 * 1000};
  }
  if (prices) {
    if (const std::optional<double> usd_per_hour = prices(d.hardware, d.date)) {
      d.cost_per_m_tokens = results::CostPerMillionTokens(*usd_per_hour, d.output_tput_per_gpu);
      // Cost falls as output throughput rises: its band's low edge is the throughput's high one.
      if (const auto& out = d.band.output_tput_per_gpu) {
        const std::optional<double> low = results::CostPerMillionTokens(*usd_per_hour, out->band_p90);
        const std::optional<double> high = results::CostPerMillionTokens(*usd_per_hour, out->band_p10);
        if (low && high) d.band.cost_per_m_tokens = results::FigureBand{*low, *high};
      }
    }
  }
  d.repeats = results::RepeatCount(agg);
  if (d.repeats > 1) {
    d.repeat_server = agg["repeats"].value("server", std::string());
    const auto values = [&](const std::string& key, double scale) {
      std::vector<double> out;
      if (const auto figure = results::DeScaledRepeatFigure(point, key)) {
        for (const double v : figure->values) out.push_back(v * scale);
      }
      return out;
    };
    DashboardPoint::Repeats& r = d.repeat_values;
    r.tput_per_gpu = values("tput_per_gpu", 1);
    r.input_tput_per_gpu = values("input_tput_per_gpu", 1);
    r.output_tput_per_gpu = values("output_tput_per_gpu", 1);
    r.interactivity = values(d.agentic ? "median_e2e_norm_intvty" : "median_intvty", 1);
    r.e2el_s = values("median_e2el", 1);
    r.ttft_ms = values("median_ttft", 1000);
    r.tpot_ms = values("median_tpot", 1000);
  }
  const results::Provenance& v = point.provenance;
  d.provenance = {v.image,      v.engine_flags,    v.host,     v.infermark_version,
                  v.time_scale, point.ingested_at, run.source, point.receipt_id};
  d.latency = LatencyFiguresOf(point);
  return d;
}

Snapshot LoadSnapshot(results::ResultStore& store, const std::string& store_kind, const PriceLookup& prices) {
  Snapshot snapshot;
  snapshot.store_kind = store_kind;
  snapshot.schema_version = store.SchemaVersion();
  std::map<std::int64_t, std::size_t> run_at;
  for (const results::RunSummary& r : store.ListRuns()) {
    run_at[r.id] = snapshot.runs.size();
    snapshot.runs.push_back({r.id, r.info.run_key, r.info.label.empty() ? r.info.run_key : r.info.label, r.info.source,
                             r.info.host, r.info.infermark_version, r.created_at, r.points, r.predicted_points});
  }
  const std::vector<results::Point> points = store.AllPoints();
  for (results::Evaluation& e : store.Evaluations({})) {
    const auto it = run_at.find(e.run_id);
    if (it == run_at.end()) continue;
    e.raw_json.clear();
    snapshot.evaluations.push_back({std::move(e), snapshot.runs[it->second].label, {}});
  }
  // Evaluations by the configuration fields every match shares, so that linking a point looks at
  // a few candidates rather than every evaluation.
  std::map<std::string, std::vector<std::size_t>> evaluations_at;
  const auto link_key = [](const results::PointKey& k) {
    return k.model + "\n" + k.hw + "\n" + k.framework + "\n" + k.precision + "\n" + std::to_string(k.conc);
  };
  for (std::size_t i = 0; i < snapshot.evaluations.size(); ++i) {
    evaluations_at[link_key(snapshot.evaluations[i].evaluation.key)].push_back(i);
  }
  // Points stored after ListRuns have no run row yet: the next reload picks them up.
  auto derive = [&](std::size_t begin, std::size_t end) {
    std::vector<DashboardPoint> out;
    out.reserve(end - begin);
    for (std::size_t i = begin; i < end; ++i) {
      const auto it = run_at.find(points[i].run_id);
      if (it == run_at.end()) continue;
      out.push_back(DerivePoint(points[i], snapshot.runs[it->second], prices));
      if (const auto found = evaluations_at.find(link_key(points[i].key)); found != evaluations_at.end()) {
        for (std::size_t e : found->second) {
          const results::Evaluation& evaluation = snapshot.evaluations[e].evaluation;
          if (results::SameConfiguration(evaluation.key, points[i].key))
            out.back().evaluation_ids.push_back(evaluation.id);
        }
      }
      out.back().json = PointJsonText(out.back());
    }
    return out;
  };
  snapshot.points.reserve(points.size());
  for (auto& chunk : MapChunks(points.size(), ChunkCount(points.size(), 2000), derive)) {
    for (DashboardPoint& d : chunk) snapshot.points.push_back(std::move(d));
  }
  std::map<std::int64_t, std::size_t> evaluation_at;
  for (std::size_t i = 0; i < snapshot.evaluations.size(); ++i)
    evaluation_at[snapshot.evaluations[i].evaluation.id] = i;
  for (const DashboardPoint& p : snapshot.points) {
    for (std::int64_t id : p.evaluation_ids) snapshot.evaluations[evaluation_at.at(id)].point_ids.push_back(p.id);
  }
  LoadAttempts(snapshot, store, points);
  snapshot.point_index.reserve(snapshot.points.size());
  for (std::size_t i = 0; i < snapshot.points.size(); ++i) snapshot.point_index.emplace(snapshot.points[i].id, i);
  // Distinct values by hashing, sorted once: /meta would otherwise walk every point per request.
  std::array<std::unordered_set<std::string_view>, 6> seen;
  for (const DashboardPoint& p : snapshot.points) {
    seen[0].insert(p.model);
    seen[1].insert(p.hardware);
    seen[2].insert(p.framework);
    seen[3].insert(p.precision);
    seen[4].insert(p.sequence);
    seen[5].insert(p.predicted ? "predicted" : "measured");
  }
  Snapshot::FilterValues& v = snapshot.filter_values;
  std::vector<std::string>* lists[] = {&v.model, &v.hardware, &v.framework, &v.precision, &v.sequence, &v.kind};
  for (std::size_t i = 0; i < seen.size(); ++i) {
    lists[i]->assign(seen[i].begin(), seen[i].end());
    std::sort(lists[i]->begin(), lists[i]->end());
  }
  return snapshot;
}

}  // namespace infermark::dashboard
