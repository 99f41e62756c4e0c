// The result file against the reference's contract: a real raw result's keys in the same order,
// the quirky "request_goodput:" key, units, and nothing the post-processor would trip on.
#include "metrics/result_json.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/file_io.hpp"
#include "test_paths.hpp"

namespace infermark::metrics {
namespace {

constexpr std::int64_t kNsPerMs = 1'000'000;

std::vector<RequestRecord> TwoRequests() {
  std::vector<RequestRecord> records(2);
  for (std::size_t i = 0; i < 2; ++i) {
    RequestRecord& r = records[i];
    r.index = i;
    const std::int64_t sent = 1'000 * kNsPerMs;
    r.intended_ns = r.sent_ns = sent;
    r.chunk_ns = {sent + 40 * kNsPerMs, sent + 50 * kNsPerMs, sent + 65 * kNsPerMs};
    r.first_chunk_ns = r.first_text_ns = r.chunk_ns.front();
    r.end_ns = r.done_ns = r.chunk_ns.back();
    r.success = true;
    r.prompt_tokens = 100;
    r.server_output_tokens = 3;
    r.generated_text = "a b c";
  }
  return records;
}

ResultHeader Header() {
  ResultHeader h;
  h.date = "20261202-180000";
  h.backend = "vllm";
  h.model_id = h.tokenizer_id = "org/model";
  h.num_prompts = 2;
  h.max_concurrency = 4;
  h.duration_s = 1.0;
  return h;
}

std::vector<std::string> Keys(const nlohmann::ordered_json& j) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  return keys;
}

TEST(ResultJson, HasEveryKeyOfARealReferenceResultInTheSameOrder) {
  const auto real = nlohmann::ordered_json::parse(ReadFile(test::Fixture(
      "inferencex-results/raw/"
      "kimik2.5_1k1k_int4_vllm_tp8-ep1-dpafalse_disagg-false_spec-mtp_conc4_MI355-gbt350-odcdh5-wbb3.json")));
  const auto records = TwoRequests();
  const Json ours = BuildResultJson(Header(), ComputeMetrics(records, 1.0), records, Verdict{}, true);
  const std::vector<std::string> ours_keys = Keys(ours);
  std::size_t at = 0;
  for (const std::string& key : Keys(real)) {
    const auto found = std::find(ours_keys.begin() + static_cast<std::ptrdiff_t>(at), ours_keys.end(), key);
    ASSERT_NE(found, ours_keys.end()) << "missing or out of order: " << key;
    at = static_cast<std::size_t>(found - ours_keys.begin()) + 1;
    EXPECT_EQ(real[key].type_name(), Json(ours[key]).type_name()) << key;
  }
}

TEST(ResultJson, ReferenceQuirksAndUnits) {
  const auto records = TwoRequests();
  ResultHeader h = Header();
  h.max_concurrency.reset();
  const Json j = BuildResultJson(h, ComputeMetrics(records, 1.0), records, Verdict{}, true);
  const std::string text = DumpJson(j);
  EXPECT_NE(text.find("\"request_goodput:\": null"), std::string::npos);
  EXPECT_NE(text.find("\"request_rate\": \"inf\""), std::string::npos);
  EXPECT_NE(text.find("\"max_concurrency\": null"), std::string::npos);
  EXPECT_NE(text.find("\"burstiness\": 1.0"), std::string::npos);
  EXPECT_DOUBLE_EQ(j["mean_ttft_ms"].get<double>(), 40.0);
  EXPECT_DOUBLE_EQ(j["p99.9_ttft_ms"].get<double>(), 40.0);
  EXPECT_DOUBLE_EQ(j["mean_tpot_ms"].get<double>(), 12.5);   // (65 − 40) / 2
  EXPECT_DOUBLE_EQ(j["median_itl_ms"].get<double>(), 12.5);  // 10 15 10 15
  EXPECT_FALSE(j.contains("ttfts"));
  EXPECT_EQ(j["verdict"], "VALID");
  EXPECT_EQ(j["metrics_version"], kMetricsVersion);
}

TEST(ResultJson, NothingAddedTripsThePostProcessor) {
  // process_result.py divides by every top-level value whose key contains "tpot" and converts
  // every key ending in "ms"; infermark's additions stay out of both (the reference's own
  // std_tpot_ms of 0 with a single request is its quirk, kept as is).
  auto records = TwoRequests();
  records[1].success = false;
  records[1].error_kind = "timeout";
  const Json j = BuildResultJson(Header(), ComputeMetrics(records, 1.0), records, Verdict{}, false);
  bool ours = false;  // infermark's keys follow the reference's, from metrics_version on
  for (const auto& [key, value] : j.items()) {
    ours = ours || key == "metrics_version";
    if (ours) {
      EXPECT_FALSE(key.ends_with("ms")) << key;
      EXPECT_EQ(key.find("tpot"), std::string::npos) << key;
    }
  }
  EXPECT_TRUE(ours);
}

TEST(ResultJson, DetailedAddsPerRequestArraysInSeconds) {
  const auto records = TwoRequests();
  ResultHeader h = Header();
  h.detailed = true;
  const Json j = BuildResultJson(h, ComputeMetrics(records, 1.0), records, Verdict{}, true);
  ASSERT_EQ(j["ttfts"].size(), 2u);
  EXPECT_DOUBLE_EQ(j["ttfts"][0].get<double>(), 0.04);
  EXPECT_DOUBLE_EQ(j["itls"][0][1].get<double>(), 0.015);
  EXPECT_EQ(j["generated_texts"][1], "a b c");
  EXPECT_EQ(j["errors"][0], "");
}

TEST(ResultJson, PercentileWords) {
  EXPECT_EQ(PercentileWord(90), "90");
  EXPECT_EQ(PercentileWord(99.9), "99.9");
  EXPECT_EQ(PercentileWord(99.99), "99.99");
}

}  // namespace
}  // namespace infermark::metrics
