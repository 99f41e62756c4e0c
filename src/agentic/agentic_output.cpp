#include "agentic/agentic_output.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "agentic/profile_export.hpp"
#include "agentic/server_metrics.hpp"
#include "core/clock.hpp"
#include "core/file_io.hpp"
#include "core/host.hpp"
#include "core/version.hpp"

namespace infermark::agentic {
namespace {

namespace fs = std::filesystem;

// aiperf writes its profiling start and end with microseconds, and the power window needs them:
// ISO 8601 UTC with six decimals.
std::string IsoUtcMicros(double unix_seconds) {
  double whole = std::floor(unix_seconds);
  long long micros = std::llround((unix_seconds - whole) * 1e6);
  if (micros >= 1000000) {
    whole += 1;
    micros -= 1000000;
  }
  std::string text = IsoUtc(whole);
  if (text.empty()) return text;
  char fraction[32];
  std::snprintf(fraction, sizeof fraction, ".%06lldZ", micros);
  text.pop_back();
  return text + fraction;
}

std::string DefaultName(const AgenticOutputOptions& o) {
  const std::size_t slash = o.model.find_last_of('/');
  return "agentic_" + (slash == std::string::npos ? o.model : o.model.substr(slash + 1)) + "_conc" +
         std::to_string(o.concurrency);
}

double Ms(std::int64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

const TraceCall& CallOf(const TraceCorpus& corpus, const ReplayRequest& r) {
  const Trace& t = corpus.traces[r.trace];
  return r.subagent < 0 ? t.calls[r.turn] : t.subagents[static_cast<std::size_t>(r.subagent)].calls[r.turn];
}

// aiperf's error type for a failed request (OpenAI's code for an overflow).
std::string ErrorType(const ReplayRequest& r) {
  if (r.overflow) return "context_length_exceeded";
  return r.record.error_kind.empty() ? "error" : r.record.error_kind;
}

}  // namespace

AgenticRunView ViewOf(const AgenticBench& bench) {
  AgenticRunView v;
  v.corpus = &bench.traces.corpus;
  v.run = &bench.run;
  v.unix_at_zero = bench.unix_at_zero;
  v.server_metrics = bench.server_metrics;
  v.invalid_reasons = bench.invalid_reasons;
  v.time_scale = bench.report.time_scale;
  return v;
}

std::vector<ProfileRecord> ProfileRecords(const AgenticRunView& view) {
  std::vector<ProfileRecord> records;
  const ReplayRun& run = *view.run;
  records.reserve(run.requests.size());
  const auto unix_ns = [&](std::int64_t ns) {
    return static_cast<std::int64_t>(std::llround(view.unix_at_zero * 1e9)) + ns;
  };
  std::size_t k = 0;
  for (const ReplayRequest& r : run.requests) {
    ++k;
    if (r.cut) continue;  // never completed: the run ended around it
    const metrics::RequestRecord& rec = r.record;
    ProfileRecord p;
    p.conversation_id = ConversationId(*view.corpus, r);
    p.turn_index = CallOf(*view.corpus, r).turn_index;
    p.x_correlation_id = "infermark-" + std::to_string(r.lane) + "-" + std::to_string(r.pass) + "-" + std::to_string(k);
    if (rec.sent_ns) p.request_start_ns = unix_ns(*rec.sent_ns);
    if (rec.done_ns) p.request_end_ns = unix_ns(rec.end_ns.value_or(*rec.done_ns));
    p.benchmark_phase = r.warmup ? "warmup" : "profiling";
    // --use-server-token-count: lengths from the server's usage where it reported them.
    p.SetMetric("input_sequence_length", static_cast<double>(rec.server_prompt_tokens.value_or(r.input_tokens)),
                "tokens");
    if (rec.success) {
      const std::int64_t osl = rec.server_output_tokens.value_or(r.expected_output);
      p.SetMetric("output_sequence_length", static_cast<double>(osl), "tokens");
      if (rec.sent_ns && rec.first_chunk_ns)
        p.SetMetric("time_to_first_token", Ms(*rec.first_chunk_ns - *rec.sent_ns), "ms");
      if (rec.sent_ns && rec.end_ns) {
        const double latency = Ms(*rec.end_ns - *rec.sent_ns);
        p.SetMetric("request_latency", latency, "ms");
        if (rec.first_chunk_ns && osl > 1) {
          // The answers carry no reasoning text: the full response's ITL is the content's.
          const double itl = (latency - Ms(*rec.first_chunk_ns - *rec.sent_ns)) / static_cast<double>(osl - 1);
          p.SetMetric("inter_token_latency", itl, "ms");
          p.SetMetric("full_response_inter_token_latency", itl, "ms");
        }
      }
      p.error = nullptr;
    } else {
      p.error = RequestError(ErrorType(r), rec.http_status > 0 ? std::optional<int>(rec.http_status) : std::nullopt,
                             rec.error.empty() ? ErrorType(r) : rec.error);
    }
    records.push_back(std::move(p));
  }
  return records;
}

ProfileSummary SummaryOf(const AgenticRunView& view, const std::vector<ProfileRecord>& records) {
  ProfileSummary s;
  double ok = 0;
  double errors = 0;
  double hit_blocks = 0;
  double blocks = 0;
  for (const ReplayRequest& r : view.run->requests) {
    if (r.warmup || r.cut) continue;
    (r.record.success ? ok : errors) += 1;
    const int bs = view.corpus->traces[r.trace].block_size;
    hit_blocks += static_cast<double>(r.theoretical_hit_tokens / bs);
    blocks += static_cast<double>(CallOf(*view.corpus, r).hash_count);
  }
  (void)records;
  s.request_count = ok;
  s.error_request_count = errors;
  s.completed_request_count = ok + errors;
  PrefixCacheHit hit;
  hit.sum = hit_blocks;
  hit.count = blocks;
  hit.avg = blocks > 0 ? hit_blocks / blocks : 0.0;
  hit.unit = "ratio";
  s.theoretical_prefix_cache_hit = hit;
  s.start_time = IsoUtcMicros(view.unix_at_zero + static_cast<double>(view.run->window_open_ns) / 1e9);
  s.end_time = IsoUtcMicros(view.unix_at_zero + static_cast<double>(view.run->window_close_ns) / 1e9);
  s.dataset = Json{{"name", view.corpus->origin}, {"traces", view.corpus->traces.size()}};
  s.submission_valid = view.invalid_reasons.empty();
  s.submission_invalid_reasons = view.invalid_reasons;
  return s;
}

AgenticOutputs WriteAgenticOutputs(const AgenticRunView& view, const AgenticOutputOptions& options) {
  AgenticOutputs out;
  const std::string name = options.result_filename.empty() ? DefaultName(options) : options.result_filename;
  out.artifact_dir = options.artifact_dir.empty() ? (fs::path(options.result_dir) / "aiperf_artifacts").string()
                                                  : options.artifact_dir;
  out.aggregate_path = (fs::path(options.result_dir) / (name + ".json")).string();
  fs::create_directories(out.artifact_dir);
  const std::vector<ProfileRecord> records = ProfileRecords(view);
  WriteProfileExport((fs::path(out.artifact_dir) / "profile_export.jsonl").string(), records);
  const ProfileSummary summary = SummaryOf(view, records);
  WriteProfileSummary((fs::path(out.artifact_dir) / "profile_export_aiperf.json").string(), summary);
  AgenticArtifacts artifacts;
  artifacts.records = records;
  artifacts.summary = summary;
  if (view.server_metrics.is_object() && !view.server_metrics.empty()) {
    WriteServerMetricsExport((fs::path(out.artifact_dir) / "server_metrics_export.json").string(), view.server_metrics);
    artifacts.server_metrics = view.server_metrics;
  }
  AgenticIdentity identity = options.identity;
  if (identity.result_filename.empty()) identity.result_filename = name;
  out.aggregate = AgenticAggregate(artifacts, identity, ExpectedOutputsOf(*view.corpus));
  // infermark's own block after InferenceX's fields: what produced the point.
  out.aggregate["infermark"] = Json{{"kind", view.predicted ? "predicted" : "measured"},
                                    {"infermark_version", std::string(kVersion)},
                                    {"host", HostName()},
                                    {"time_scale", view.time_scale},
                                    {"git_commit", GitCommit()},
                                    {"corpus", view.corpus->origin},
                                    {"plays_started", view.run->plays_started},
                                    {"sessions_ended_by_overflow", view.run->sessions_ended_by_overflow},
                                    {"idle_shifted_s", view.run->idle_shifted_s},
                                    {"submission_invalid_reasons", view.invalid_reasons}};
  fs::create_directories(fs::path(out.aggregate_path).parent_path());
  WriteFileAtomic(out.aggregate_path, out.aggregate.dump(2));
  return out;
}

AgenticIdentity StandaloneIdentity(const AgenticOutputOptions& options, const std::string& result_filename) {
  AgenticIdentity id = IdentityFromEnvironment();
  if (id.conc == 0) id.conc = static_cast<std::int64_t>(options.concurrency);
  if (id.model.empty()) id.model = options.model;
  if (id.kv_offloading.empty()) id.kv_offloading = "none";
  // A backend named without its metadata is that backend, unversioned.
  if (!id.kv_offload_backend.empty() && id.kv_offload_backend_metadata.empty()) {
    id.kv_offload_backend_metadata = Json{{"name", id.kv_offload_backend}}.dump();
  }
  if (id.result_filename.empty()) id.result_filename = result_filename;
  return id;
}

ExpectedOutputs ExpectedOutputsOf(const TraceCorpus& corpus) {
  ExpectedOutputs expected;
  for (const Trace& t : corpus.traces) {
    for (const TraceCall& c : t.calls) expected[{t.id, c.turn_index}] = c.out;
    for (const TraceSubagent& s : t.subagents) {
      for (const TraceCall& c : s.calls) expected[{t.id, c.turn_index}] = c.out;
    }
  }
  return expected;
}

}  // namespace infermark::agentic
