// What a row leaves beside its result, read for the store: every GPU telemetry sample of a real
// H100's nvidia-smi CSV and of a DCGM package's samples, an eval's samples from lm-eval's file (both
// filters' answers, correctness, failed requests), a row's log folder found from its result file (a
// multi-node point's included), and the tails of logs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"
#include "results/eval_samples.hpp"
#include "results/gpu_samples.hpp"
#include "results/point_details.hpp"
#include "results/row_attempt.hpp"
#include "test_paths.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

class RowDetails : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("infermark_row_details_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  fs::path dir_;
};

TEST_F(RowDetails, ARealH100CsvGivesEverySampleOfEveryField) {
  const std::string csv = test::Fixture("real-gpu/h100/16_vm_gpu_metrics.csv");
  const std::vector<GpuSeries> series = ReadGpuMetricsCsv(csv);
  ASSERT_EQ(series.size(), 1u);
  const GpuSeries& s = series[0];
  EXPECT_EQ(s.source, kGpuSourceNvml);
  EXPECT_EQ(s.gpu, "0");
  // 120 sample lines after the header, one second apart.
  ASSERT_EQ(s.t_s.size(), 120u);
  EXPECT_EQ(s.t_s[0], 0);
  EXPECT_NEAR(s.t_s[1], 1.001, 1e-6);
  const std::set<std::string> expected = {"power_w",          "temperature_c", "sm_clock_mhz",
                                          "memory_clock_mhz", "gpu_util_pct",  "memory_util_pct"};
  std::set<std::string> fields;
  for (const auto& [key, values] : s.fields) {
    fields.insert(key);
    EXPECT_EQ(values.size(), s.t_s.size()) << key;
  }
  EXPECT_EQ(fields, expected);
  // The first line: 78.69 W, 55 °C, 345 MHz, 2619 MHz, 0 %, 0 %.
  EXPECT_DOUBLE_EQ(*(*s.Field("power_w"))[0], 78.69);
  EXPECT_DOUBLE_EQ(*(*s.Field("temperature_c"))[0], 55);
  EXPECT_DOUBLE_EQ(*(*s.Field("sm_clock_mhz"))[0], 345);
  EXPECT_DOUBLE_EQ(*(*s.Field("memory_clock_mhz"))[0], 2619);
  // The load shows: some sample draws far more than idle and runs the SM at full clock.
  double most = 0;
  for (const auto& v : *s.Field("power_w")) most = std::max(most, v.value_or(0));
  EXPECT_GT(most, 300);
  // The stored document reads back the same (times to the millisecond).
  GpuSeries back;
  ReadGpuSamplesJson(DumpJson(GpuSamplesJson(s), kCompactJson), back);
  EXPECT_EQ(back.t_s.size(), s.t_s.size());
  EXPECT_EQ(*back.Field("power_w"), *s.Field("power_w"));
}

TEST_F(RowDetails, SeveralGpusMissingReadingsAndMemoryUsedAreKept) {
  const fs::path csv = dir_ / "gpu_metrics.csv";
  Write(csv,
        "timestamp, index, power.draw [W], temperature.gpu, memory.used [MiB]\n"
        "2026/12/05 19:10:32.000, 0, 100.5 W, 40, 1024 MiB\n"
        "2026/12/05 19:10:32.000, 1, [N/A], 41, 2048 MiB\n"
        "not a time, 0, 1 W, 1, 1 MiB\n"
        "2026/12/05 19:10:33.500, 0, 200 W, 42, 1100 MiB\n"
        "2026/12/05 19:10:33.500, 1, 210 W, 43, 2100 MiB\n");
  const std::vector<GpuSeries> series = ReadGpuMetricsCsv(csv.string());
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[1].gpu, "1");
  EXPECT_EQ(series[0].t_s, (std::vector<double>{0, 1.5}));
  EXPECT_FALSE((*series[1].Field("power_w"))[0].has_value());
  EXPECT_DOUBLE_EQ(*(*series[1].Field("memory_used_mib"))[1], 2100);
  EXPECT_EQ(series[0].Field("sm_clock_mhz"), nullptr);
  Write(dir_ / "bad.csv", "index, power.draw [W]\n0, 1 W\n");
  EXPECT_THROW(ReadGpuMetricsCsv((dir_ / "bad.csv").string()), InputError);
}

TEST_F(RowDetails, ALongSeriesIsThinnedToItsBound) {
  std::string text = "timestamp, index, power.draw [W]\n";
  const long n = static_cast<long>(kMaxGpuSamples) * 2 + 7;
  for (long i = 0; i < n; ++i) text += std::to_string(1'700'000'000 + i) + ", 0, " + std::to_string(i) + " W\n";
  Write(dir_ / "long.csv", text);
  const std::vector<GpuSeries> series = ReadGpuMetricsCsv((dir_ / "long.csv").string());
  ASSERT_EQ(series.size(), 1u);
  EXPECT_LE(series[0].t_s.size(), kMaxGpuSamples);
  EXPECT_GT(series[0].t_s.size(), kMaxGpuSamples / 2);
  EXPECT_DOUBLE_EQ(series[0].t_s.back(), static_cast<double>(n - 1));  // the last sample is kept
}

TEST_F(RowDetails, DcgmSamplesGiveOneSeriesPerNodeAndGpu) {
  Write(dir_ / "samples.csv",
        "schema_version,timestamp_unix,scrape_seq,hostname,gpu_index,gpu_uuid,power_w\n"
        "1,1700000000.0,1,n2,0,GPU-a,500\n"
        "1,1700000000.0,1,n1,1,GPU-b,400\n"
        "1,1700000000.0,1,n1,0,GPU-c,300\n"
        "1,1700000001.0,2,n1,0,GPU-c,310\n");
  const std::vector<GpuSeries> series = ReadDcgmSamplesCsv((dir_ / "samples.csv").string());
  ASSERT_EQ(series.size(), 3u);
  EXPECT_EQ(series[0].host, "n1");
  EXPECT_EQ(series[0].gpu, "0");
  EXPECT_EQ(series[0].source, kGpuSourceDcgm);
  EXPECT_EQ(series[0].t_s, (std::vector<double>{0, 1}));
  EXPECT_EQ(series[2].host, "n2");
  Write(dir_ / "bad.csv", "timestamp_unix,power_w\n1,2\n");
  EXPECT_THROW(ReadDcgmSamplesCsv((dir_ / "bad.csv").string()), InputError);
}

TEST_F(RowDetails, EvalSamplesKeepBothFiltersAndTheVerdictPerDocument) {
  const std::string folder = test::Fixture("evals/scored-fail");
  const std::vector<StoredEvalSample> samples =
      ReadEvalSamples(folder, "exact_match,strict-match", "results_2026-12-06T03-36-02.063998.json");
  ASSERT_EQ(samples.size(), 20u);
  EXPECT_EQ(samples[0].doc_id, 0);
  EXPECT_NE(samples[0].question.find("Janet"), std::string::npos);
  EXPECT_FALSE(samples[0].response.empty());
  EXPECT_NE(samples[0].target.find("#### 18"), std::string::npos);
  int wrong = 0;
  for (const StoredEvalSample& s : samples) {
    ASSERT_TRUE(s.correct.has_value());
    ASSERT_TRUE(s.flexible_correct.has_value());
    EXPECT_FALSE(s.strict_answer.empty());
    wrong += *s.correct ? 0 : 1;
  }
  // The failing fixture's score is 0.5 strict: half its 20 documents are wrong.
  EXPECT_EQ(wrong, 10);
  // An INVALID eval's failed requests say why, and nothing is correct.
  const std::vector<StoredEvalSample> invalid =
      ReadEvalSamples(test::Fixture("evals/invalid"), "exact_match,strict-match", "");
  ASSERT_FALSE(invalid.empty());
  EXPECT_NE(invalid[0].error.find("HTTP 500"), std::string::npos);
  EXPECT_EQ(invalid[0].strict_answer, "[invalid]");
  // A folder without a samples file has none.
  EXPECT_TRUE(ReadEvalSamples(test::Fixture("evals/not-run"), "exact_match,strict-match", "").empty());
  Write(dir_ / "samples_gsm8k_x.jsonl", "{\"doc_id\": \"zero\"}\n");
  EXPECT_THROW(ReadEvalSamples(dir_.string(), "exact_match,strict-match", ""), InputError);
}

TEST_F(RowDetails, ARowsLogFolderIsFoundFromItsResultAndItsDetailsRead) {
  const fs::path logs = dir_ / "logs" / "row_a";
  Write(dir_ / "row_a.json", "{}");
  Write(logs / kRequestTimelineFile, "{\"schema\":\"infermark.request_timeline/1\",\"columns\":[\"index\"]}\n[0]\n");
  Write(logs / "server.log", "line 1\nline 2\n");
  Write(logs / "client.log", "Verdict: VALID\n");
  Write(logs / "gpu_metrics.runner.csv", "timestamp, index, power.draw [W]\n1700000000, 0, 100 W\n");
  const PointDetails d = ReadPointDetails((dir_ / "row_a.json").string());
  EXPECT_NE(d.timeline.find("request_timeline/1"), std::string::npos);
  EXPECT_EQ(d.server_log_tail, "line 1\nline 2\n");
  EXPECT_EQ(d.client_log_tail, "Verdict: VALID\n");
  ASSERT_EQ(d.gpus.size(), 1u);
  // A launcher's own CSV is preferred, as the power aggregation prefers it.
  Write(logs / "gpu_metrics.csv", "timestamp, index, power.draw [W]\n1700000000, 0, 1 W\n1700000000, 1, 2 W\n");
  EXPECT_EQ(ReadPointDetails((dir_ / "row_a.json").string()).gpus.size(), 2u);
  // A multi-node point's file is named after its row; its own timeline is preferred.
  Write(dir_ / "row_a_conc8_gpus_16_ctx_8_gen_8.json", "{}");
  Write(logs / "requests_conc8.timeline.jsonl", "{\"schema\":\"infermark.request_timeline/1\",\"columns\":[]}\n");
  EXPECT_EQ(RowLogDir((dir_ / "row_a_conc8_gpus_16_ctx_8_gen_8.json").string()), logs.string());
  EXPECT_EQ(ReadPointDetails((dir_ / "row_a_conc8_gpus_16_ctx_8_gen_8.json").string()).timeline,
            "{\"schema\":\"infermark.request_timeline/1\",\"columns\":[]}\n");
  // No log folder: nothing.
  Write(dir_ / "other.json", "{}");
  EXPECT_TRUE(ReadPointDetails((dir_ / "other.json").string()).Empty());
  // A malformed timeline: an error naming it, or left out with a note.
  Write(logs / kRequestTimelineFile, "not json\n");
  EXPECT_THROW(ReadPointDetails((dir_ / "row_a.json").string()), InputError);
  std::vector<std::string> problems;
  const PointDetails partial = ReadPointDetails((dir_ / "row_a.json").string(), &problems);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find(kRequestTimelineFile), std::string::npos);
  EXPECT_TRUE(partial.timeline.empty());
  EXPECT_EQ(partial.gpus.size(), 2u);
}

TEST_F(RowDetails, ALogsTailStartsAtALineAndHoldsTheEnd) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "log line " + std::to_string(i) + "\n";
  Write(dir_ / "big.log", text);
  const std::string tail = FileTail((dir_ / "big.log").string(), 1000);
  EXPECT_LE(tail.size(), 1000u);
  EXPECT_EQ(tail.rfind("log line 4999\n"), tail.size() - 14);
  EXPECT_EQ(tail.rfind("log line ", 0), 0u);  // a whole line first
  EXPECT_EQ(FileTail((dir_ / "none.log").string()), "");
  Write(dir_ / "small.log", "a\nb\n");
  EXPECT_EQ(FileTail((dir_ / "small.log").string()), "a\nb\n");
}

TEST_F(RowDetails, OutcomeAndClassNamesReadBack) {
  for (AttemptOutcome o : {AttemptOutcome::kCompleted, AttemptOutcome::kInvalid, AttemptOutcome::kFailed,
                           AttemptOutcome::kRetried, AttemptOutcome::kSkipped}) {
    EXPECT_EQ(ParseAttemptOutcome(AttemptOutcomeName(o)), o);
  }
  for (FailureClass f :
       {FailureClass::kNone, FailureClass::kStartup, FailureClass::kReadiness, FailureClass::kClientError,
        FailureClass::kServerExit, FailureClass::kTimeout, FailureClass::kKilled, FailureClass::kStore}) {
    EXPECT_EQ(ParseFailureClass(FailureClassName(f)), f);
  }
  EXPECT_FALSE(ParseAttemptOutcome("done").has_value());
  EXPECT_FALSE(ParseFailureClass("oom").has_value());
  RowAttempt a;
  a.result_filename = "row";
  a.attempt = 2;
  a.started_at = "2026-12-01T00:00:00Z";
  EXPECT_EQ(a.AttemptKey(), "row#2@2026-12-01T00:00:00Z");
}

}  // namespace
}  // namespace infermark::results
