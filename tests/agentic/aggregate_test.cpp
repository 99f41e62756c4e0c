// The agentic aggregate's parts: statistics, rounding, error categories, filtering and
// accounting, the server-metrics adapters, the identity from the environment, and the gate.
#include "agentic/aggregate.hpp"

#include <gtest/gtest.h>

#include <map>

#include "agentic/validate_agentic_result.hpp"
#include "core/diagnostic.hpp"

namespace infermark::agentic {
namespace {

ProfileRecord Record(const std::string& conversation, std::int64_t turn, std::int64_t start_ns, std::int64_t end_ns,
                     double ttft_ms, double e2el_ms, double itl_ms, std::int64_t isl, std::int64_t osl) {
  ProfileRecord r;
  r.conversation_id = conversation;
  r.turn_index = turn;
  r.request_start_ns = start_ns;
  r.request_end_ns = end_ns;
  r.benchmark_phase = "profiling";
  r.SetMetric("input_sequence_length", static_cast<double>(isl), "tokens");
  r.SetMetric("output_sequence_length", static_cast<double>(osl), "tokens");
  r.SetMetric("time_to_first_token", ttft_ms, "ms");
  r.SetMetric("request_latency", e2el_ms, "ms");
  r.SetMetric("inter_token_latency", itl_ms, "ms");
  return r;
}

AgenticIdentity Identity() {
  AgenticIdentity id;
  id.runner_type = "mi355x";
  id.conc = 4;
  id.framework = "vllm";
  id.tp = 4;
  id.kv_offloading = "none";
  return id;
}

Json Series(const Json& labels, const Json& stats) {
  Json s = Json::object();
  s["labels"] = labels;
  s["stats"] = stats;
  return s;
}

TEST(AggregateStats, LinearPercentilesAndPopulationStd) {
  const Json s = AggregateStats({4, 1, 3, 2});
  EXPECT_DOUBLE_EQ(s["mean"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(s["p50"].get<double>(), 2.5);   // k = 1.5
  EXPECT_DOUBLE_EQ(s["p75"].get<double>(), 3.25);  // k = 2.25
  EXPECT_DOUBLE_EQ(s["p90"].get<double>(), 3.7);   // k = 2.7
  EXPECT_DOUBLE_EQ(s["std"].get<double>(), std::sqrt(1.25));
  EXPECT_DOUBLE_EQ(AggregateStats({7})["std"].get<double>(), 0.0);
  EXPECT_TRUE(AggregateStats({}).empty());
  std::vector<std::string> keys;
  for (const auto& [k, v] : s.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"mean", "p50", "p75", "p90", "p95", "std"}));
}

TEST(AggregateRounding, FiveDecimalsAndWholeValuesAsIntegers) {
  EXPECT_EQ(RoundAggregateNumber(0.123456789), Json(0.12346));
  EXPECT_EQ(RoundAggregateNumber(2.000001), Json(2));
  EXPECT_TRUE(RoundAggregateNumber(2.000001).is_number_integer());
  EXPECT_TRUE(RoundAggregateNumber(0.0).is_number_float());
  EXPECT_TRUE(RoundAggregateNumber(-3.0).is_number_integer());
  EXPECT_EQ(RoundAggregateNumber(1e-7), Json(0.0));
  Json nested = Json::parse(R"({"a":[1.234567,{"b":3.0}],"c":5})");
  RoundAggregateFloats(nested);
  EXPECT_EQ(nested, Json::parse(R"({"a":[1.23457,{"b":3}],"c":5})"));
}

TEST(AggregateErrors, CategoryFromTypeCodeOrMessage) {
  EXPECT_EQ(ErrorCategory(RequestError("ContextOverflow", 400, "too long")), "ContextOverflow");
  EXPECT_EQ(ErrorCategory(Json::parse(R"({"type":"","code":503,"message":"x"})")), "503");
  EXPECT_EQ(ErrorCategory(Json::parse(R"({"message":"  ReadTimeout: no bytes\nmore"})")), "ReadTimeout");
  EXPECT_EQ(ErrorCategory(Json("plain failure")), "plain failure");
  EXPECT_EQ(ErrorCategory(Json::parse(R"({"message":""})")), "unknown");
  EXPECT_EQ(ErrorCategory(Json(std::string(200, 'x'))).size(), 120u);
}

TEST(Aggregate, FiltersWarmupAndErrorsAndCountsThem) {
  AgenticArtifacts a;
  const std::int64_t t0 = 1'767'000'000'000'000'000;
  a.records.push_back(Record("s1", 0, t0, t0 + 2'000'000'000, 100, 2000, 20, 1000, 50));
  a.records.push_back(Record("s1", 1, t0 + 500'000'000, t0 + 3'000'000'000, 300, 2500, 30, 2000, 100));
  ProfileRecord warm = Record("s2", 0, t0 - 9'000'000'000, t0 - 1, 1, 1, 1, 1, 1);
  warm.benchmark_phase = "warmup";
  a.records.push_back(warm);
  ProfileRecord overflow = a.records[0];
  overflow.error = RequestError("ContextOverflow", 400, "prompt too long");
  a.records.push_back(overflow);
  ProfileRecord timeout = a.records[0];
  timeout.benchmark_phase = "warmup";
  timeout.error = Json("ReadTimeout: nothing for 600 s");
  a.records.push_back(timeout);

  const ExpectedOutputs expected{{{"s1", 0}, 60}, {{"s1", 1}, 100}};
  const Json agg = AgenticAggregate(a, Identity(), expected);
  const Json& acc = agg["request_accounting"];
  EXPECT_EQ(acc["records_total"], 5);
  EXPECT_EQ(acc["records_profiled"], 2);
  EXPECT_EQ(acc["records_dropped_total"], 3);
  EXPECT_EQ(acc["records_warmup_dropped"], 2);
  EXPECT_EQ(acc["records_error_dropped"], 2);
  EXPECT_EQ(acc["error_categories"], Json::parse(R"({"ContextOverflow":1,"ReadTimeout":1})"));
  EXPECT_EQ(agg["num_requests_successful"], 2);

  const Json& rm = agg["request_metrics"];
  // Window: first start t0 to last end t0 + 3 s; 3000 input and 150 output tokens.
  EXPECT_EQ(rm["throughput"]["duration_seconds"], 3);
  EXPECT_EQ(rm["throughput"]["input"]["tokens_per_second"], 1000);
  EXPECT_EQ(rm["throughput"]["total"]["tokens_per_second"], 1050);
  EXPECT_EQ(rm["throughput"]["per_gpu"]["total_tput_tps"], 262.5);  // tp 4
  EXPECT_EQ(rm["latency"]["ttft"]["mean"], 0.2);
  EXPECT_EQ(rm["latency"]["itl"], rm["latency"]["tpot"]);
  EXPECT_EQ(rm["latency"]["intvty"]["mean"], 40);                // 1 / 0.025 s
  EXPECT_EQ(rm["latency"]["e2e_norm_intvty"]["p50"], 30.76923);  // 1 / mean(0.04, 0.025), 5 decimals
  EXPECT_TRUE(rm["latency"]["full_response_itl"].empty());
  EXPECT_EQ(rm["tokens"]["output_expected"]["mean"], 80);
  EXPECT_EQ(rm["tokens"]["output_actual"]["p50"], 75);
  // Completions at +2 s and +3 s: one window [2, 3) holds one.
  EXPECT_EQ(rm["qps"]["samples"], 1);
  EXPECT_EQ(rm["qps"]["mean"], 1);
  EXPECT_TRUE(rm["cache"]["theoretical_cache_hit_rate"].is_null());
  EXPECT_EQ(agg["warnings"], Json::array({"server_metrics_export.json missing or empty"}));
  EXPECT_EQ(agg["server_metrics"]["tokens"]["prompt_total"], 3000);
  EXPECT_EQ(agg["server_metrics"]["tokens"]["requests_completed"], 2);
}

TEST(Aggregate, TheoreticalHitRateFromSumAndCountElseAveragePercent) {
  AgenticArtifacts a;
  a.summary = ProfileSummary{};
  a.summary->theoretical_prefix_cache_hit = PrefixCacheHit{30, 40, 12.0, "%"};
  EXPECT_EQ(AgenticAggregate(a, Identity(), {})["request_metrics"]["cache"]["theoretical_cache_hit_rate"], 0.75);
  a.summary->theoretical_prefix_cache_hit = PrefixCacheHit{std::nullopt, std::nullopt, 12.0, " % "};
  EXPECT_EQ(AgenticAggregate(a, Identity(), {})["request_metrics"]["cache"]["theoretical_cache_hit_rate"], 0.12);
}

TEST(Aggregate, VllmAdapterReadsCountersGaugesAndSources) {
  AgenticArtifacts a;
  a.server_metrics = Json::parse(R"({"metrics":{
    "vllm:prompt_tokens":{"type":"counter","series":[{"labels":{"engine":"0"},"stats":{"total":1000.4}},
                                                     {"labels":{"engine":"1"},"stats":{"total":500}}]},
    "vllm:prefix_cache_hits":{"type":"counter","series":[{"labels":{"engine":"0"},"stats":{"total":600}}]},
    "vllm:prefix_cache_queries":{"type":"counter","series":[{"labels":{"engine":"0"},"stats":{"total":800}}]},
    "vllm:kv_cache_usage_perc":{"type":"gauge","series":[{"labels":{"engine":"0"},"stats":{"max":87.5,"avg":40}}]},
    "vllm:kv_offload_bytes_gpu_to_cpu":{"type":"counter","series":[{"labels":{},"stats":{"total":4000}}]},
    "vllm:kv_offload_time_gpu_to_cpu":{"type":"counter","series":[{"labels":{},"stats":{"total":2}}]}}})");
  a.server_logs = {
      "(EngineCore_DP0 pid=1) GPU KV cache size: 1,000 tokens\n(EngineCore_DP1 pid=2) GPU KV cache size: 2,000 "
      "tokens\n"};
  const Json agg = AgenticAggregate(a, Identity(), {});
  const Json& sm = agg["server_metrics"];
  EXPECT_EQ(sm["adapter"], "vllm");
  EXPECT_EQ(sm["metric_count"], 6);
  EXPECT_EQ(sm["tokens"]["prompt_total"], 1500);
  EXPECT_EQ(sm["cache"]["gpu_cache_hit_rate"], 0.75);
  EXPECT_EQ(sm["cache"]["overall_cache_hit_rate"], 0.75);
  EXPECT_EQ(sm["kv_cache"]["gpu_usage_pct"], 0.875);  // a gauge above 1.5 is a percentage
  EXPECT_EQ(sm["kv_offload"]["bandwidth_gpu_to_cpu_bytes_per_second"], 2000);
  EXPECT_EQ(sm["kv_cache"]["gpu_total_tokens"], 3000);
  EXPECT_EQ(agg["kv_cache_pool_tokens"], 3000);
  ASSERT_EQ(sm["sources"].size(), 2u);
  EXPECT_EQ(sm["sources"][0]["id"], "combined|engine=0");
  EXPECT_EQ(sm["sources"][0]["prefix_cache_hit_rate"], 0.75);
  EXPECT_TRUE(agg.find("warnings") == agg.end());
}

TEST(Aggregate, SglangAdapterSplitsCachedTokensBySource) {
  AgenticArtifacts a;
  Json metrics = Json::object();
  metrics["sglang:prompt_tokens"] = {{"type", "counter"}, {"series", {Series({{"tp_rank", "0"}}, {{"total", 1000}})}}};
  metrics["sglang:cached_tokens"] = {
      {"type", "counter"},
      {"series",
       {Series({{"cache_source", "device"}}, {{"total", 500}}), Series({{"cache_source", "host"}}, {{"total", 200}})}}};
  metrics["sglang:token_usage"] = {{"type", "gauge"}, {"series", {Series({}, {{"max", 0.5}})}}};
  metrics["sglang:max_total_num_tokens"] = {{"type", "gauge"}, {"series", {Series({}, {{"max", 123456}})}}};
  a.server_metrics = {{"metrics", metrics}};
  AgenticIdentity id = Identity();
  id.framework = "sglang";
  const Json sm = AgenticAggregate(a, id, {})["server_metrics"];
  EXPECT_EQ(sm["adapter"], "sglang");
  EXPECT_EQ(sm["cache"]["gpu_cache_hit_rate"], 0.5);
  EXPECT_EQ(sm["cache"]["cpu_cache_hit_rate"], 0.2);
  EXPECT_EQ(sm["cache"]["external_cache_hit_rate"], 0.2);
  EXPECT_EQ(sm["cache"]["overall_cache_hit_rate"], 0.7);
  EXPECT_EQ(sm["kv_cache"]["gpu_usage_pct"], 0.5);
  EXPECT_EQ(sm["kv_cache"]["gpu_total_tokens"], 123456);
  EXPECT_EQ(sm["tokens"]["prompt_by_source"]["raw"], Json::parse(R"({"device":500,"host":200})"));
}

TEST(Aggregate, UnknownServerMetricsAndBadOffloadSettingsAreRefused) {
  AgenticArtifacts a;
  a.server_metrics = Json::parse(R"({"metrics":{"trtllm_x":{"type":"gauge","series":[]}}})");
  EXPECT_THROW((void)AgenticAggregate(a, Identity(), {}), InputError);
  AgenticIdentity id = Identity();
  id.kv_offloading = "dram";
  EXPECT_THROW((void)AgenticAggregate(AgenticArtifacts{}, id, {}), InputError);
  id.kv_offload_backend = "lmcache";
  EXPECT_THROW((void)AgenticAggregate(AgenticArtifacts{}, id, {}), InputError);  // no metadata
  id.kv_offload_backend_metadata = R"({"name": "native"})";
  EXPECT_THROW((void)AgenticAggregate(AgenticArtifacts{}, id, {}), InputError);  // names another backend
  id.kv_offload_backend_metadata = R"({"name": "lmcache", "extra": "x"})";
  EXPECT_THROW((void)AgenticAggregate(AgenticArtifacts{}, id, {}), InputError);
  id.kv_offload_backend_metadata = R"({"name": "lmcache", "version": "0.3"})";
  const Json agg = AgenticAggregate(AgenticArtifacts{}, id, {});
  EXPECT_EQ(agg["kv_offload_backend"], Json::parse(R"({"name": "lmcache", "version": "0.3"})"));
  id.router_metadata = R"({"name": "r"})";
  EXPECT_THROW((void)AgenticAggregate(AgenticArtifacts{}, id, {}), InputError);  // router needs a version
}

TEST(AggregateIdentity, FromEnvironmentIncludingMultinodeShape) {
  const std::map<std::string, std::string> env{
      {"RUNNER_TYPE", "gb200"},     {"CONC", "64"},       {"IS_MULTINODE", "true"},
      {"PREFILL_NUM_WORKERS", "2"}, {"PREFILL_TP", "4"},  {"DECODE_NUM_WORKERS", "1"},
      {"DECODE_TP", "8"},           {"DECODE_EP", "8"},   {"DECODE_DP_ATTN", "true"},
      {"KV_OFFLOADING", "none"},    {"SPEC_DECODING", ""}};
  const auto lookup = [&](const std::string& k) -> std::optional<std::string> {
    const auto it = env.find(k);
    return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  const AgenticIdentity id = IdentityFromEnvironment(lookup);
  EXPECT_EQ(id.conc, 64);
  EXPECT_TRUE(id.is_multinode);
  EXPECT_EQ(id.spec_decoding, "");
  const Json agg = AgenticAggregate(AgenticArtifacts{}, id, {});
  EXPECT_EQ(agg["tp"], 12);
  EXPECT_EQ(agg["ep"], 8);
  EXPECT_EQ(agg["dp_attention"], "true");
  EXPECT_EQ(agg["num_prefill_gpu"], 8);
  EXPECT_EQ(agg["num_decode_gpu"], 8);
  const auto bad = [](const std::string& k) -> std::optional<std::string> {
    return k == "TP" ? std::optional<std::string>("eight") : std::nullopt;
  };
  EXPECT_THROW((void)IdentityFromEnvironment(bad), InputError);
}

TEST(AgenticGate, ErrorRateAgainstThreshold) {
  ProfileSummary s;
  s.request_count = 90;
  s.error_request_count = 10;
  s.completed_request_count = 100;
  EXPECT_TRUE(ValidateAgenticSummary(s, 0.10).pass);
  s.request_count = 2;
  s.error_request_count = 65;
  s.completed_request_count = 67;
  const AgenticGateResult r = ValidateAgenticSummary(s, 0.10);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.reasons, std::vector<std::string>{
                           "aiperf request error rate exceeded the benchmark limit: 65/67 = 97.015% > 10.000%"});
  ProfileSummary only_success;
  only_success.request_count = 12;
  EXPECT_TRUE(ValidateAgenticSummary(only_success, 0.10).pass);
  ProfileSummary none;
  EXPECT_FALSE(ValidateAgenticSummary(none, 0.10).pass);
  only_success.request_count = 0;
  EXPECT_FALSE(ValidateAgenticSummary(only_success, 0.10).pass);
}

TEST(AgenticGate, MissingSummaryIsAReason) {
  const AgenticGateResult r = ValidateAgenticResult("/nonexistent/aiperf_artifacts", 0.10);
  EXPECT_FALSE(r.pass);
  ASSERT_EQ(r.reasons.size(), 1u);
  EXPECT_NE(r.reasons[0].find("profile_export_aiperf.json not found"), std::string::npos);
}

}  // namespace
}  // namespace infermark::agentic
