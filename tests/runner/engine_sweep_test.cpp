// End to end on the built-in engine: `infermark sweep` over part of the founding recipe (real
// HTTP, the real load generator, time-scaled) stores every point and writes the report;
// `infermark predict --config-keys` writes result files and store rows marked as predicted.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/file_io.hpp"
#include "core/host.hpp"
#include "core/version.hpp"
#include "run_binary.hpp"
#include "runner_test_util.hpp"
#include "store/result_store.hpp"

namespace infermark::runner {
namespace {

namespace fs = std::filesystem;

// Every point of the store's only run, as stored.
std::vector<results::Point> StoredPoints(const std::string& db) {
  auto store = results::OpenStore(db);
  const auto runs = store->ListRuns();
  EXPECT_EQ(runs.size(), 1u);
  return runs.empty() ? std::vector<results::Point>{} : store->Points(runs.front().id);
}

// A point names the infermark that produced it: its version, the commit it was built from, the
// host, and the time scale the engine ran at.
void ExpectProvenance(const results::Point& p, double time_scale, results::PointKind kind) {
  EXPECT_EQ(p.provenance.infermark_version, kVersion);
  EXPECT_EQ(p.provenance.git_commit, GitCommit());
  EXPECT_NE(p.provenance.git_commit, "");
  EXPECT_EQ(p.provenance.host, HostName());
  EXPECT_EQ(p.provenance.time_scale, time_scale);
  EXPECT_EQ(p.provenance.kind, kind);
  EXPECT_TRUE(p.provenance.matrix_row.is_object());
}

int CountFiles(const std::string& dir, const std::string& suffix) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        name.find(".row.json") == std::string::npos) {
      ++n;
    }
  }
  return n;
}

TEST(EngineSweep, SeveralRowsOnTheBuiltinEngineAreStoredAndReported) {
  test::ScratchDir dir;
  const std::string results = dir / "results";
  const std::string db = dir / "store.db";
  const ProcessResult r = test::RunInfermark({"sweep",
                                              "minimaxm3-fp4-mi355x-vllm",
                                              "--site",
                                              test::SourcePath("infermark.yaml"),
                                              "--seq-lens",
                                              "1k1k",
                                              "--tp",
                                              "8",
                                              "--conc",
                                              "1",
                                              "2",
                                              "4",
                                              "--time-scale",
                                              "200",
                                              "--prompts-per-conc",
                                              "2",
                                              "--warmups-per-conc",
                                              "1",
                                              "--result-dir",
                                              results,
                                              "--database",
                                              db,
                                              "--port",
                                              std::to_string(test::FreePort()),
                                              "--runner-name",
                                              "demo_00"},
                                             test::SourcePath(""));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("3 run, 0 skipped (complete), 0 failed"), std::string::npos) << r.out;
  EXPECT_EQ(CountFiles(results, ".json"), 3);
  EXPECT_TRUE(fs::exists(results + "/report.html"));
  EXPECT_NE(r.out.find("report of 3 points"), std::string::npos) << r.out;
  const std::string html = ReadFile(results + "/report.html");
  EXPECT_NE(html.find("<svg"), std::string::npos);
  // The store holds the three points of one run, time-scaled.
  const ProcessResult list = test::RunInfermark({"results", "list", "--db", db});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("minimaxm3-fp4-mi355x-vllm sweep"), std::string::npos) << list.out;
  // Each row's state records the engine's command line and its warnings (none expected here).
  const Json state = Json::parse(ReadFile(
      results +
      "/minimaxm3_1k1k_fp4_vllm_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc2_demo_00.row.json"));
  // On a loaded 2-core machine the client may judge itself saturated (INVALID): still a result.
  EXPECT_TRUE(state["status"] == "done" || state["status"] == "invalid") << state.dump();
  EXPECT_NE(state["server_argv"].dump().find("--time-scale"), std::string::npos);
  EXPECT_EQ(state["time_scale"], 200.0);
  const auto points = StoredPoints(db);
  ASSERT_EQ(points.size(), 3u);
  for (const auto& p : points) ExpectProvenance(p, 200.0, results::PointKind::kMeasured);
  // The client read the time scale from the engine itself, not from the runner.
  const Json result = Json::parse(ReadFile(
      results + "/minimaxm3_1k1k_fp4_vllm_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc2_demo_00.json"));
  EXPECT_EQ(result["infermark"]["time_scale"], 200.0);
  EXPECT_EQ(result["infermark"]["server"]["built_in_engine"], true);
  EXPECT_GT(result["infermark"]["server"]["step_lateness"]["passes"].get<int>(), 0);
}

TEST(EngineSweep, AgenticRowsReplayTheSessionsAndAreStoredAsAgenticPoints) {
  test::ScratchDir dir;
  const std::string results = dir / "results";
  const std::string db = dir / "store.db";
  // Two rows of the founding model's agentic entry (4 users, prefix cache alone and with the
  // DRAM tier), 8 s of profiling each against the built-in engine at time scale 50.
  const ProcessResult r =
      test::RunInfermark({"sweep", "minimaxm3-fp4-mi355x-vllm-agentic", "--site", test::SourcePath("infermark.yaml"),
                          "--conc", "4", "--time-scale", "50", "--agentic-duration", "8", "--result-dir", results,
                          "--database", db, "--port", std::to_string(test::FreePort()), "--runner-name", "demo_00"},
                         test::SourcePath(""));
  // Runs under the 900 s minimum are INVALID by InferenceX's rule: still results, stored.
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out << r.err;
  const auto points = StoredPoints(db);
  ASSERT_EQ(points.size(), 2u) << r.out << r.err;
  const std::string stem =
      "minimaxm3_tp4_conc4_kvdram-native_fp4_vllm_tp4-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-"
      "none_conc4_demo_00";
  const Json agg = Json::parse(ReadFile(results + "/" + stem + ".json"));
  EXPECT_EQ(agg["kv_offloading"], "dram");
  EXPECT_EQ(agg["hw"], "mi355x");  // the GPU of the row's runner label cluster:mi355x-local
  EXPECT_EQ(agg["conc"], 4);
  EXPECT_EQ(agg["infermark"]["kind"], "measured");
  EXPECT_GT(agg["num_requests_successful"].get<int>(), 0);
  EXPECT_TRUE(agg["server_metrics"]["present"].get<bool>());
  EXPECT_TRUE(fs::exists(results + "/logs/" + stem + "/aiperf_artifacts/profile_export.jsonl"));
  const Json state = Json::parse(ReadFile(results + "/" + stem + ".row.json"));
  EXPECT_NE(state["server_argv"].dump().find("--kv-offloading-size"), std::string::npos) << state.dump();
  for (const auto& p : points) ExpectProvenance(p, 50.0, results::PointKind::kMeasured);
  // Each point keeps its calls' timeline with their sessions and prefix-cache hits (the point page's
  // sessions and hit rate over time).
  auto store = results::OpenStore(db);
  for (const auto& p : points) {
    const std::string timeline = store->FindPointDetails(p.id).timeline;
    const Json header = Json::parse(timeline.substr(0, timeline.find('\n')));
    EXPECT_EQ(header["columns"].back(), "hit_tokens") << header.dump();
    EXPECT_EQ(header["columns"][7], "session") << header.dump();
    // The profiled calls: aiperf's records of the profiling phase.
    std::ifstream exported(fs::path(p.provenance.source_path).parent_path() / "logs" /
                           fs::path(p.provenance.source_path).stem() / "aiperf_artifacts/profile_export.jsonl");
    long long profiled = 0;
    for (std::string line; std::getline(exported, line);) profiled += line.find("\"profiling\"") != std::string::npos;
    EXPECT_GT(profiled, 0);
    EXPECT_EQ(header["requests"], profiled) << header.dump();
  }
}

TEST(PredictRecipes, TheFoundingRecipesThirtyPointsAreWrittenAndStoredAsPredicted) {
  test::ScratchDir dir;
  const std::string db = dir / "store.db";
  const ProcessResult r = test::RunInfermark(
      {"predict", "--config-keys", "minimaxm3-fp4-mi355x-vllm", "--site", test::SourcePath("infermark.yaml"),
       "--result-dir", dir / "results", "--database", db, "--format", "table", "--runner-name", "p_00"},
      test::SourcePath(""));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("30 rows predicted"), std::string::npos) << r.out;
  EXPECT_EQ(CountFiles(dir / "results/predicted", ".json"), 30);
  const Json one = Json::parse(
      ReadFile(dir / "results/predicted/"
                     "minimaxm3_8k1k_fp4_vllm_tp4-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc64_p_00.json"));
  EXPECT_EQ(one["max_concurrency"], 64);
  EXPECT_EQ(one["completed"], 640);
  EXPECT_GT(one["output_throughput"].get<double>(), 0);
  // Each prediction carries its model-error band (vLLM on AMD has a group of its own).
  EXPECT_EQ(one["infermark"]["prediction_band"]["scope"], "vllm/amd");
  const ProcessResult list = test::RunInfermark({"results", "list", "--db", db});
  EXPECT_NE(list.out.find("predicted"), std::string::npos) << list.out;
  const auto points = StoredPoints(db);
  ASSERT_EQ(points.size(), 30u);
  for (const auto& p : points) {
    ExpectProvenance(p, 1.0, results::PointKind::kPredicted);
    EXPECT_EQ(p.agg["prediction_band"]["scope"], "vllm/amd");
    const Json& tput = p.agg["prediction_band"]["figures"]["tput_per_gpu"];
    EXPECT_LT(tput["band_p10"].get<double>(), p.agg["tput_per_gpu"].get<double>());
    EXPECT_GT(tput["band_p90"].get<double>(), p.agg["tput_per_gpu"].get<double>());
  }
  // The single-deployment form keeps working.
  const ProcessResult single = test::RunInfermark({"predict", "--model", "minimax-m3", "--hardware", "mi355x", "--tp",
                                                   "8", "--precision", "fp4", "--conc", "1,4", "--format", "json"},
                                                  test::SourcePath(""));
  EXPECT_EQ(single.exit_code, 0) << single.err;
  EXPECT_EQ(Json::parse(single.out).size(), 2U);
}

}  // namespace
}  // namespace infermark::runner
