// aiperf's per-request records and run summary: written, read back, and bad lines named.
#include "agentic/profile_export.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"

namespace infermark::agentic {
namespace {

namespace fs = std::filesystem;

std::string TempPath(const std::string& name) {
  return (fs::temp_directory_path() / ("infermark_profile_export_" + std::to_string(::getpid()) + "_" + name)).string();
}

TEST(ProfileExport, RecordsRoundTripWithMetricsAndErrors) {
  ProfileRecord ok;
  ok.conversation_id = "trace-a::sa:helper_001";
  ok.turn_index = 3;
  ok.x_correlation_id = "c-1";
  ok.request_start_ns = 1'767'000'000'123'456'789;
  ok.request_end_ns = 1'767'000'001'123'456'789;
  ok.benchmark_phase = "profiling";
  ok.SetMetric("time_to_first_token", 12.5, "ms");
  ok.SetMetric("output_sequence_length", 40, "tokens");
  ProfileRecord failed = ok;
  failed.benchmark_phase = "warmup";
  failed.error = RequestError("ContextOverflow", 400, "prompt too long");

  const std::string path = TempPath("records.jsonl");
  WriteProfileExport(path, {ok, failed});
  const std::vector<ProfileRecord> back = ReadProfileExport(path);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].conversation_id, ok.conversation_id);
  EXPECT_EQ(back[0].turn_index, 3);
  EXPECT_EQ(back[0].request_start_ns, ok.request_start_ns);
  EXPECT_EQ(back[0].request_end_ns, ok.request_end_ns);
  EXPECT_EQ(back[0].Metric("time_to_first_token"), 12.5);
  EXPECT_EQ(back[0].Metric("output_sequence_length"), 40);
  EXPECT_FALSE(back[0].Metric("request_latency").has_value());
  EXPECT_TRUE(back[0].error.is_null());
  EXPECT_EQ(back[1].benchmark_phase, "warmup");
  EXPECT_EQ(back[1].error["type"], "ContextOverflow");
  EXPECT_EQ(back[1].error["code"], 400);
  fs::remove(path);
}

TEST(ProfileExport, NonNumericMetricValuesAreKeptAsAbsent) {
  const Json line =
      Json::parse(R"({"metadata":{"turn_index":1},"metrics":{"inter_chunk_latency":{"value":[1,2],"unit":"ms"},
      "request_latency":{"value":5.5,"unit":"ms"}},"error":null})");
  const ProfileRecord r = ProfileRecordFromJson(line, "x.jsonl", 1);
  ASSERT_EQ(r.metrics.size(), 2u);
  EXPECT_FALSE(r.Metric("inter_chunk_latency").has_value());
  EXPECT_EQ(r.Metric("request_latency"), 5.5);
}

TEST(ProfileExport, MalformedLinesNameFileLineAndField) {
  const std::string path = TempPath("bad.jsonl");
  WriteFileAtomic(path, "{\"metadata\":{\"turn_index\":1}}\n\n{\"metadata\":{\"turn_index\":\"two\"}}\n");
  try {
    (void)ReadProfileExport(path);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string what = e.diagnostics().front().ToString();
    EXPECT_NE(what.find(path + ":3"), std::string::npos) << what;
    EXPECT_NE(what.find("metadata.turn_index"), std::string::npos) << what;
  }
  WriteFileAtomic(path, "{\"metadata\":{}}\nnot json\n");
  try {
    (void)ReadProfileExport(path);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(e.diagnostics().front().ToString().find(path + ":2"), std::string::npos);
  }
  fs::remove(path);
}

TEST(ProfileExport, SummaryRoundTrips) {
  ProfileSummary s;
  s.request_count = 90;
  s.error_request_count = 10;
  s.completed_request_count = 100;
  s.theoretical_prefix_cache_hit = PrefixCacheHit{750, 1000, 75, "%"};
  s.start_time = "2026-12-04T10:00:00.000000";
  s.end_time = "2026-12-04T11:00:00.000000";
  s.dataset = Json::parse(R"({"name":"semianalysis_cc_traces_weka_062126","traces":393})");
  s.submission_valid = false;
  s.submission_invalid_reasons = {"context overflow above 1%"};
  const std::string path = TempPath("summary.json");
  WriteProfileSummary(path, s);
  const ProfileSummary back = ReadProfileSummary(path);
  EXPECT_EQ(back.request_count, 90);
  EXPECT_EQ(back.error_request_count, 10);
  EXPECT_EQ(back.completed_request_count, 100);
  ASSERT_TRUE(back.theoretical_prefix_cache_hit.has_value());
  EXPECT_EQ(back.theoretical_prefix_cache_hit->sum, 750);
  EXPECT_EQ(back.theoretical_prefix_cache_hit->unit, "%");
  EXPECT_EQ(back.start_time, s.start_time);
  EXPECT_EQ(back.dataset, s.dataset);
  EXPECT_EQ(back.submission_valid, false);
  EXPECT_EQ(back.submission_invalid_reasons, s.submission_invalid_reasons);
  const Json raw = Json::parse(ReadFile(path));
  EXPECT_TRUE(raw["request_count"]["avg"].is_number_integer());
  fs::remove(path);
}

}  // namespace
}  // namespace infermark::agentic
