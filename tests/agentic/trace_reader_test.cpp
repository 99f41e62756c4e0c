#include "agentic/trace_reader.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "agentic/session_tree.hpp"
#include "core/diagnostic.hpp"

namespace infermark::agentic {
namespace {

namespace fs = std::filesystem;

const std::string kFixture = std::string(INFERMARK_SOURCE_DIR) + "/tests/fixtures/agentic-traces/traces.jsonl";

fs::path TempDir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("infermark-agentic-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void Write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

std::string ErrorOf(const std::string& text) {
  std::string padded = text;
  padded.append(64, '\0');
  try {
    ParseTraceLines(std::string_view(padded.data(), text.size()), "t.jsonl");
  } catch (const InputError& e) {
    return e.diagnostics().front().ToString();
  }
  return "";
}

TEST(TraceReader, ReadsTheFixtureCorpusWithSubagentsAndHashIds) {
  const TraceLoad load = ReadTraces(kFixture);
  ASSERT_EQ(load.corpus.traces.size(), 5u);
  const Trace* with_subagents = nullptr;
  for (const Trace& t : load.corpus.traces) {
    if (t.id == "trace_0291") with_subagents = &t;
  }
  ASSERT_NE(with_subagents, nullptr);
  const Trace& t = *with_subagents;
  EXPECT_EQ(t.calls.size(), 20u);
  ASSERT_EQ(t.subagents.size(), 2u);
  EXPECT_EQ(t.subagents[0].agent_id, "agent_001");
  EXPECT_EQ(t.subagents[0].calls.size(), 5u);
  EXPECT_EQ(t.calls[0].in, 17869);
  EXPECT_EQ(t.calls[0].out, 426);
  const auto first = load.corpus.Hashes(t.calls[0]);
  ASSERT_EQ(first.size(), 279u);
  EXPECT_EQ(first[0], 1u);
  EXPECT_EQ(load.corpus.Hashes(t.subagents[0].calls[0])[0], 1584u);
  EXPECT_EQ(t.items.size(), 22u);
  EXPECT_TRUE(t.items[16].subagent);
  EXPECT_EQ(t.block_size, 64);
  EXPECT_EQ(t.model, "claude-opus-4-5-20251101");
}

TEST(TraceReader, XzFilesFoldersAndTheHuggingFaceCacheGiveTheSameCorpus) {
  const TraceLoad plain = ReadTraces(kFixture);
  const fs::path dir = TempDir("sources");
  const fs::path xz = dir / "traces.jsonl.xz";
  ASSERT_EQ(std::system(("xz -c '" + kFixture + "' > '" + xz.string() + "'").c_str()), 0);
  const TraceLoad compressed = ReadTraces(xz.string());
  EXPECT_EQ(compressed.corpus.hash_pool, plain.corpus.hash_pool);
  EXPECT_EQ(compressed.corpus.CallCount(), plain.corpus.CallCount());

  // One-trace files in a folder (pretty-printed is fine).
  std::ifstream in(kFixture);
  std::string line;
  int k = 0;
  while (std::getline(in, line)) Write(dir / "one" / ("trace_" + std::to_string(k++) + ".json"), line + "\n");
  EXPECT_EQ(ReadTraces((dir / "one").string()).corpus.CallCount(), plain.corpus.CallCount());

  // A dataset in a Hugging Face cache, by name and by aiperf's alias.
  const fs::path repo = dir / "hub" / "datasets--semianalysisai--cc-traces-weka-010126";
  Write(repo / "refs" / "main", "abc123");
  fs::create_directories(repo / "snapshots" / "abc123");
  fs::copy_file(kFixture, repo / "snapshots" / "abc123" / "traces.jsonl");
  ::setenv("HF_HUB_CACHE", (dir / "hub").string().c_str(), 1);
  EXPECT_EQ(ResolveTraceSource("semianalysisai/cc-traces-weka-010126"),
            (repo / "snapshots" / "abc123" / "traces.jsonl").string());
  EXPECT_EQ(ReadTraces("semianalysis_cc_traces_weka_010126").corpus.CallCount(), plain.corpus.CallCount());
  EXPECT_THROW(ResolveTraceSource("semianalysisai/absent"), InputError);
  ::unsetenv("HF_HUB_CACHE");
  fs::remove_all(dir);
}

TEST(TraceReader, MalformedTracesNameFileLineFieldAndRule) {
  const std::string ok = R"({"id":"a","requests":[{"t":0,"type":"n","in":64,"out":1,"hash_ids":[1]}]})";
  EXPECT_EQ(ErrorOf(ok + "\n" + ok), "");
  EXPECT_EQ(
      ErrorOf(ok + "\n{\"id\":\"b\",\"requests\":[{\"t\":0,\"type\":\"n\",\"in\":-3,\"out\":1,\"hash_ids\":[]}]}"),
      "t.jsonl:2: entry 'b' field 'requests[0].in': must not be negative");
  EXPECT_NE(ErrorOf("{\"id\":\"c\",\"requests\":[{\"t\":0,\"type\":\"x\"}]}").find("field 'requests[0].type'"),
            std::string::npos);
  EXPECT_NE(ErrorOf("{\"id\":\"d\",\"requests\":[{\"t\":0,\"type\":\"n\",\"in\":1,\"out\":1,\"hash_ids\":[1,\"x\"]}]}")
                .find("requests[0].hash_ids[1]"),
            std::string::npos);
  EXPECT_NE(ErrorOf("{\"id\":\"e\"").find("t.jsonl:1"), std::string::npos);
  EXPECT_NE(ErrorOf("{\"requests\":[]}").find("field 'id'"), std::string::npos);
  EXPECT_NE(ErrorOf(R"({"id":"f","requests":[{"type":"subagent","t":1,"requests":[{"t":0,"type":"subagent"}]}]})")
                .find("requests[0].requests[0].type"),
            std::string::npos);
}

TEST(TraceReader, CallsOverTheContextLimitAreDroppedAndCounted) {
  TraceReadOptions options;
  options.max_context_tokens = 50'000;
  const TraceLoad load = ReadTraces(kFixture, options);
  const TraceLoad all = ReadTraces(kFixture);
  EXPECT_GT(load.calls_over_context, 0u);
  EXPECT_EQ(load.corpus.CallCount() + load.calls_over_context, all.corpus.CallCount());
  for (const Trace& t : load.corpus.traces) {
    for (const TraceCall& c : t.calls) EXPECT_LE(c.in + c.out, 50'000);
  }
}

TEST(SessionTree, SubagentsSpawnAfterTheirAnchorAndJoinOnlyWhenTheyEndedFirst) {
  const TraceLoad load = ReadTraces(kFixture);
  for (const Trace& t : load.corpus.traces) {
    if (t.id != "trace_0291") continue;
    const SessionTree tree = BuildSessionTree(t);
    // agent_001 (t=1148.013, 46.656 s) follows parent call 15 (t=1085, api 15.64 s) and ends before
    // call 16 (t=1209): a join. agent_002 (t=1180.553, 79.184 s) outlives call 16: background.
    EXPECT_EQ(tree.subagents[0].anchor, 15);
    EXPECT_NEAR(tree.subagents[0].spawn_gap_s, 1148.013 - (1085 + 15.64), 1e-9);
    EXPECT_EQ(tree.subagents[0].joins, 16);
    EXPECT_NEAR(tree.subagents[0].join_gap_s, 1209 - (1148.013 + 46.656), 1e-9);
    EXPECT_EQ(tree.subagents[1].anchor, 15);
    EXPECT_EQ(tree.subagents[1].joins, -1);
    EXPECT_EQ(tree.spawns[15].size(), 2u);
    EXPECT_EQ(tree.joins[16].size(), 1u);
    EXPECT_DOUBLE_EQ(tree.parent_gaps[1], 9.0);  // think_time
    EXPECT_DOUBLE_EQ(tree.subagents[0].gaps[1], 3.0);
    return;
  }
  FAIL() << "trace_0291 missing";
}

}  // namespace
}  // namespace infermark::agentic
