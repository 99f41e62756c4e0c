// The agentic aggregate beside InferenceX's own `process_agentic_result`, run on the same
// constructed artifact folders (tests/fixtures/agentic/artifacts_*, see artifacts_generator/) with
// the same environment: every key, in the same order, with equal values (numbers within 1e-9
// relative). The reference runs from ../shared/reference/inferencex/ (tests/reference.hpp: skipped
// without it or a python3 that imports it, failed under CI=true).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "agentic/aggregate.hpp"
#include "core/file_io.hpp"
#include "core/subprocess.hpp"
#include "reference.hpp"
#include "test_paths.hpp"

namespace infermark::agentic {
namespace {

namespace fs = std::filesystem;
using Env = std::map<std::string, std::string>;

/// Expected output lengths as the reference's trace_metadata derives them from a hub snapshot.
ExpectedOutputs ExpectedFromTraces(const std::string& traces_jsonl) {
  ExpectedOutputs out;
  const std::string text = ReadFile(traces_jsonl);
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty()) continue;
    const Json trace = Json::parse(line);
    std::int64_t turn = 0;
    for (const Json& request : trace["requests"]) {
      const std::string type = request.value("type", "");
      if (type != "n" && type != "s") continue;
      out[{trace["id"].get<std::string>(), turn++}] = request.value("out", 0);
    }
  }
  return out;
}

void Compare(const Json& ours, const Json& theirs, const std::string& path, std::vector<std::string>& diffs) {
  if (ours.is_number() && theirs.is_number()) {
    const double a = ours.get<double>();
    const double b = theirs.get<double>();
    if (std::fabs(a - b) > 1e-9 * std::max({std::fabs(a), std::fabs(b), 1e-300}) && a != b) {
      diffs.push_back(path + ": ours " + ours.dump() + ", reference " + theirs.dump());
    }
    return;
  }
  if (ours.type() != theirs.type()) {
    diffs.push_back(path + ": ours " + ours.dump() + ", reference " + theirs.dump());
    return;
  }
  if (ours.is_object()) {
    std::vector<std::string> a;
    std::vector<std::string> b;
    for (const auto& [k, v] : ours.items()) a.push_back(k);
    for (const auto& [k, v] : theirs.items()) b.push_back(k);
    if (a != b) {
      diffs.push_back(path + ": keys differ: ours " + Json(a).dump() + ", reference " + Json(b).dump());
      return;
    }
    for (const std::string& k : a) Compare(ours[k], theirs[k], path + "." + k, diffs);
  } else if (ours.is_array()) {
    if (ours.size() != theirs.size()) {
      diffs.push_back(path + ": " + std::to_string(ours.size()) + " items, reference " + std::to_string(theirs.size()));
      return;
    }
    for (std::size_t i = 0; i < ours.size(); ++i)
      Compare(ours[i], theirs[i], path + "[" + std::to_string(i) + "]", diffs);
  } else if (ours != theirs) {
    diffs.push_back(path + ": ours " + ours.dump() + ", reference " + theirs.dump());
  }
}

struct ParityCase {
  const char* name;
  const char* folder;
  Env env;
};

void ExpectParity(const ParityCase& c) {
  const std::string result_dir = test::Fixture(std::string("agentic/") + c.folder);
  const std::string hub = test::Fixture("agentic/artifacts_hub");
  const fs::path out_dir = fs::temp_directory_path() / ("infermark_agentic_parity_" + std::to_string(::getpid()));
  fs::create_directories(out_dir);
  Env env = c.env;
  env["RESULT_FILENAME"] = std::string("ref_") + c.name;
  env["RESULT_DIR"] = result_dir;
  env["AGENTIC_OUTPUT_DIR"] = out_dir.string();
  env["HF_HUB_CACHE"] = hub;

  std::vector<std::string> argv{"env", "-i", "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + out_dir.string()};
  for (const auto& [k, v] : env) argv.push_back(k + "=" + v);
  for (const char* a : {"python3", "-m", "utils.agentic.aggregation.process_agentic_result"}) argv.emplace_back(a);
  const ProcessResult ran = RunCapture(argv, test::ReferenceRoot());
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  const Json reference = Json::parse(ReadFile((out_dir / (env["RESULT_FILENAME"] + ".json")).string()));

  const auto lookup = [&env](const std::string& k) -> std::optional<std::string> {
    const auto it = env.find(k);
    return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  const ExpectedOutputs expected =
      ExpectedFromTraces(hub + "/datasets--semianalysisai--cc-traces-weka-fixture/snapshots/rev0/traces.jsonl");
  AgenticIdentity identity = IdentityFromEnvironment(lookup);
  identity.result_filename = std::string("ours_") + c.name;
  const std::string written = WriteAgenticAggregate(result_dir, out_dir.string(), identity, expected);
  const Json ours = Json::parse(ReadFile(written));

  std::vector<std::string> diffs;
  Compare(ours, reference, "$", diffs);
  EXPECT_TRUE(diffs.empty()) << diffs.size() << " differences, first: " << diffs.front();
  // The cases exercise what they claim to.
  EXPECT_FALSE(reference["request_metrics"]["tokens"]["output_expected"].empty());
  EXPECT_GE(reference["request_accounting"]["error_categories"].size(), 2u);
  fs::remove_all(out_dir);
}

class AgenticAggregateParity : public ::testing::Test {
 protected:
  void SetUp() override {
    INFERMARK_REQUIRE_REFERENCE({"utils/agentic/aggregation/process_agentic_result.py"},
                                "import utils.agentic.aggregation.process_agentic_result");
  }
};

TEST_F(AgenticAggregateParity, SingleNodeVllmWithOffload) {
  ExpectParity({"vllm",
                "artifacts_vllm",
                {{"RUNNER_TYPE", "mi355x"},
                 {"CONC", "16"},
                 {"FRAMEWORK", "vllm"},
                 {"PRECISION", "fp4"},
                 {"MODEL", "amd/MiniMax-M3-MXFP4"},
                 {"MODEL_PREFIX", "minimaxm3"},
                 {"IMAGE", "vllm/vllm-openai-rocm:nightly"},
                 {"TP", "4"},
                 {"EP_SIZE", "1"},
                 {"PP_SIZE", "2"},
                 {"KV_OFFLOADING", "dram"},
                 {"KV_OFFLOAD_BACKEND", "native"},
                 {"KV_OFFLOAD_BACKEND_METADATA", R"({"name": "native", "version": "1"})"},
                 {"RECIPE_FINGERPRINT", "sha256:abc"},
                 {"ROUTER_METADATA", R"({"name": "vllm-router", "version": "0.2"})"},
                 {"TOTAL_CPU_DRAM_GB", "512"}}});
}

TEST_F(AgenticAggregateParity, MultinodeSglangWithHiCache) {
  ExpectParity({"sglang",
                "artifacts_sglang",
                {{"RUNNER_TYPE", "gb200"},
                 {"CONC", "64"},
                 {"FRAMEWORK", "sglang"},
                 {"SPEC_DECODING", "mtp"},
                 {"DISAGG", "true"},
                 {"IS_MULTINODE", "true"},
                 {"PREFILL_NUM_WORKERS", "2"},
                 {"PREFILL_TP", "4"},
                 {"DECODE_NUM_WORKERS", "1"},
                 {"DECODE_TP", "8"},
                 {"DECODE_EP", "8"},
                 {"DECODE_DP_ATTN", "true"},
                 {"PREFILL_HARDWARE", "gb200"},
                 {"DECODE_HARDWARE", "gb200"},
                 {"KV_OFFLOADING", "none"}}});
}

TEST_F(AgenticAggregateParity, DynamoFrameworkTakesTheDynamoVllmAdapter) {
  ExpectParity({"dynamo",
                "artifacts_sglang",
                {{"RUNNER_TYPE", "gb200"},
                 {"CONC", "8"},
                 {"FRAMEWORK", "dynamo-sglang"},
                 {"TP", "8"},
                 {"KV_OFFLOADING", "none"}}});
}

}  // namespace
}  // namespace infermark::agentic
