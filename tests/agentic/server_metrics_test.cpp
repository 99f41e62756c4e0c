// Prometheus text parsing and the window summary aiperf exports as server_metrics_export.json.
#include "agentic/server_metrics.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"

namespace infermark::agentic {
namespace {

const char* kVllmBefore = R"(# HELP vllm:prompt_tokens_total Number of prefill tokens processed.
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{engine="0",model_name="m"} 1000.0
vllm:prompt_tokens_created{engine="0",model_name="m"} 1.7e9
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.25
# TYPE vllm:e2e_request_latency_seconds histogram
vllm:e2e_request_latency_seconds_bucket{engine="0",le="1.0"} 3
vllm:e2e_request_latency_seconds_bucket{engine="0",le="+Inf"} 4
vllm:e2e_request_latency_seconds_sum{engine="0"} 6.5
vllm:e2e_request_latency_seconds_count{engine="0"} 4
)";

const char* kVllmAfter = R"(# TYPE vllm:prompt_tokens counter
vllm:prompt_tokens_total{model_name="m",engine="0"} 4000
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.75
# TYPE vllm:e2e_request_latency_seconds histogram
vllm:e2e_request_latency_seconds_bucket{engine="0",le="+Inf"} 10
vllm:e2e_request_latency_seconds_sum{engine="0"} 18.5
vllm:e2e_request_latency_seconds_count{engine="0"} 10
)";

TEST(PrometheusText, TypesFamiliesLabelsAndEscapes) {
  const PromText t = ParsePrometheusText(
      "# TYPE sglang:cached_tokens_total counter\n"
      "sglang:cached_tokens_total{cache_source=\"device\",note=\"a \\\"q\\\" \\\\ b\\nc\",} 12 1700000000000\n"
      "# a comment\n\n"
      "plain_metric NaN\n"
      "neg{x=\"1\"} -Inf\r\n",
      "t");
  ASSERT_EQ(t.samples.size(), 3u);
  EXPECT_EQ(t.samples[0].family, "sglang:cached_tokens");
  EXPECT_EQ(t.TypeOf("sglang:cached_tokens"), PromType::kCounter);
  ASSERT_EQ(t.samples[0].labels.size(), 2u);
  EXPECT_EQ(t.samples[0].labels[1].second, "a \"q\" \\ b\nc");
  EXPECT_EQ(t.samples[0].value, 12);
  EXPECT_TRUE(std::isnan(t.samples[1].value));
  EXPECT_EQ(t.TypeOf("plain_metric"), PromType::kUntyped);
  EXPECT_EQ(t.samples[2].value, -INFINITY);
}

TEST(PrometheusText, MalformedLinesAreNamed) {
  for (const char* bad : {"x{a=\"1\" 2\n", "x{a=1} 2\n", "x notanumber\n", "# TYPE x sideways\n", "{a=\"b\"} 1\n"}) {
    try {
      (void)ParsePrometheusText(std::string("ok 1\n") + bad, "http://e/metrics");
      FAIL() << bad;
    } catch (const InputError& e) {
      EXPECT_NE(e.diagnostics().front().ToString().find("http://e/metrics:2"), std::string::npos) << bad;
    }
  }
}

TEST(ServerMetricsSummary, CountersAsIncreaseGaugesAsRangeHistogramsAsCountAndSum) {
  const std::vector<MetricsScrape> scrapes{{"http://w0:8000/metrics", 100, kVllmBefore},
                                           {"http://w0:8000/metrics", 110, kVllmAfter},
                                           {"http://w0:8000/metrics", 500, "vllm:prompt_tokens_total 1\n"}};
  const Json out = SummarizeServerMetrics(scrapes, 100.0, 200.0);
  const Json& m = out["metrics"];
  ASSERT_TRUE(m.contains("vllm:prompt_tokens"));
  EXPECT_EQ(m["vllm:prompt_tokens"]["type"], "counter");
  const Json& prompt = m["vllm:prompt_tokens"]["series"][0];
  EXPECT_EQ(prompt["endpoint_url"], "http://w0:8000/metrics");
  EXPECT_EQ(prompt["labels"], Json::parse(R"({"engine":"0","model_name":"m"})"));
  EXPECT_EQ(prompt["stats"]["total"], 3000.0);
  EXPECT_EQ(prompt["stats"]["rate"], 300.0);
  EXPECT_EQ(m["vllm:prompt_tokens"]["series"].size(), 1u);  // label order does not split a series
  const Json& usage = m["vllm:kv_cache_usage_perc"]["series"][0]["stats"];
  EXPECT_EQ(usage["max"], 0.75);
  EXPECT_EQ(usage["min"], 0.25);
  EXPECT_EQ(usage["avg"], 0.5);
  const Json& latency = m["vllm:e2e_request_latency_seconds"]["series"][0]["stats"];
  EXPECT_EQ(latency["count"], 6.0);
  EXPECT_EQ(latency["sum"], 12.0);
  EXPECT_EQ(latency["avg"], 2.0);
}

TEST(ServerMetricsSummary, CounterResetCountsFromZero) {
  const std::vector<MetricsScrape> scrapes{{"u", 1, "# TYPE c counter\nc_total 100\n"},
                                           {"u", 2, "# TYPE c counter\nc_total 150\n"},
                                           {"u", 3, "# TYPE c counter\nc_total 20\n"}};
  EXPECT_EQ(SummarizeServerMetrics(scrapes)["metrics"]["c"]["series"][0]["stats"]["total"], 70.0);
}

TEST(ServerMetricsExport, WrittenAndReadBackAndBadShapesRefused) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("infermark_server_metrics_" + std::to_string(::getpid()) + ".json"))
          .string();
  const Json summary = SummarizeServerMetrics({{"u", 1, kVllmBefore}, {"u", 2, kVllmAfter}});
  WriteServerMetricsExport(path, summary);
  EXPECT_EQ(ReadServerMetricsExport(path), summary);
  WriteFileAtomic(path, R"({"metrics":{"x":{"series":[]}}})");
  EXPECT_THROW((void)ReadServerMetricsExport(path), InputError);
  std::filesystem::remove(path);
}

TEST(ServerMetricsCollector, FedScrapesAndUnreachableEndpointsCounted) {
  ServerMetricsCollector collector({"http://127.0.0.1:1"});
  collector.Add({"http://w", 1, "# TYPE g gauge\ng 2\n"});
  EXPECT_EQ(collector.ScrapeOnce(), 0u);
  EXPECT_EQ(collector.failures(), 1u);
  EXPECT_EQ(collector.Export()["metrics"]["g"]["series"][0]["stats"]["last"], 2.0);
  EXPECT_THROW(ServerMetricsCollector({"ftp://x"}), InputError);
}

}  // namespace
}  // namespace infermark::agentic
