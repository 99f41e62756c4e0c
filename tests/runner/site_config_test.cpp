// The site file: strict reading, and the project's own covering every runner label.
#include "runner/site_config.hpp"

#include <gtest/gtest.h>

#include <set>

#include "catalog/catalog_loader.hpp"
#include "perfmodel/engine_data.hpp"
#include "test_paths.hpp"

namespace infermark::runner {
namespace {

std::vector<Diagnostic> Problems(const std::string& text) {
  std::vector<Diagnostic> problems;
  ReadSiteConfig(ParseYaml(text, "site.yaml"), problems);
  return problems;
}

std::string All(const std::vector<Diagnostic>& problems) {
  std::string out;
  for (const auto& p : problems) out += p.ToString() + "\n";
  return out;
}

TEST(SiteConfig, ReadsEveryTargetKind) {
  std::vector<Diagnostic> problems;
  const SiteConfig site = ReadSiteConfig(ParseYaml(R"(defaults: {port: 9000, time-scale: 4, result-dir: out}
runners:
  a: {engine: {hardware: mi355x, args: [--max-num-seqs, "64"]}}
  b: {executor: slurm, script: {dir: scripts}, slurm: {partition: gpu, gpus-per-node: 8, time-limit-min: 30}}
  c: {container: {engine: podman, image: img:1, script-dir: s, mounts: ["/data:/data"]}}
  d: {command: [vllm, serve, "${MODEL}"]}
models:
  amd/MiniMax-M3-MXFP4: {model: minimax-m3, precision: fp4, tokenizer: tok.json}
)",
                                                   "/tmp/site/site.yaml"),
                                         problems);
  ASSERT_TRUE(problems.empty()) << All(problems);
  EXPECT_EQ(site.defaults.port, 9000);
  EXPECT_EQ(site.defaults.time_scale, 4);
  EXPECT_EQ(site.Resolve(site.defaults.result_dir), "/tmp/site/out");
  ASSERT_EQ(site.runners.size(), 4U);
  EXPECT_EQ(site.FindRunner("a")->target.kind, TargetKind::kEngine);
  EXPECT_EQ(site.FindRunner("a")->target.engine_args.size(), 2U);
  EXPECT_EQ(site.FindRunner("b")->executor, ExecutorKind::kSlurm);
  EXPECT_EQ(site.FindRunner("b")->slurm.gpus_per_node, 8);
  EXPECT_EQ(site.FindRunner("c")->target.container_engine, "podman");
  EXPECT_EQ(site.FindRunner("d")->target.command.at(2), "${MODEL}");
  EXPECT_EQ(site.FindModel("amd/MiniMax-M3-MXFP4")->builtin, "minimax-m3");
  EXPECT_EQ(site.FindModel("nope"), nullptr);
}

TEST(SiteConfig, UnknownKeysAreErrorsWithTheirPlace) {
  const auto problems = Problems("runners:\n  mi355x:\n    engine: {hardware: mi355x, gpu: 1}\n    colour: red\n");
  ASSERT_EQ(problems.size(), 2U) << All(problems);
  EXPECT_EQ(problems[0].ToString().rfind("site.yaml:3:", 0), 0U) << problems[0].ToString();
  EXPECT_NE(All(problems).find("runners.mi355x.engine.gpu"), std::string::npos) << All(problems);
  EXPECT_NE(All(problems).find("runners.mi355x.colour"), std::string::npos) << All(problems);
}

TEST(SiteConfig, ATargetIsRequiredAndUnique) {
  EXPECT_NE(All(Problems("runners:\n  a: {executor: local}\n")).find("needs a target"), std::string::npos);
  EXPECT_NE(All(Problems("runners:\n  a: {engine: {hardware: h100}, command: [x]}\n")).find("more than one target"),
            std::string::npos);
}

TEST(SiteConfig, BadValuesAreNamed) {
  const std::string all = All(Problems(
      "defaults: {port: 70000, time-scale: 0}\nrunners:\n  a: {executor: cloud, container: {engine: lxc, script-dir: "
      "s}}\n"));
  EXPECT_NE(all.find("defaults.port"), std::string::npos) << all;
  EXPECT_NE(all.find("defaults.time-scale"), std::string::npos) << all;
  EXPECT_NE(all.find("runners.a.executor"), std::string::npos) << all;
  EXPECT_NE(all.find("runners.a.container.engine"), std::string::npos) << all;
}

TEST(SiteConfig, LoadThrowsEveryProblem) {
  try {
    LoadSiteConfig(test::Fixture("does-not-exist.yaml"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("does-not-exist.yaml"), std::string::npos);
  }
}

// Every runner label of the project's catalog and of the InferenceX fixtures maps to the
// built-in engine modelling that GPU. The RTX PRO 6000 is the one GPU the engine has no data
// for; when it gains a profile this test says so and the gap list must shrink.
TEST(ProjectSiteFile, MapsEveryRunnerLabelToAModelledGpu) {
  const SiteConfig site = LoadSiteConfig(test::SourcePath("infermark.yaml"));
  const auto& data = perfmodel::DefaultEngineData();
  const std::set<std::string> unmodelled = {"rtx6000pro"};
  std::set<std::string> labels;
  for (const auto* file : {"recipes/configs/runners.yaml", "tests/fixtures/inferencex/configs/runners.yaml"}) {
    for (const auto& [label, names] : catalog::LoadRunnerConfig(test::SourcePath(file)).labels) labels.insert(label);
  }
  ASSERT_GT(labels.size(), 30U);
  for (const auto& label : labels) {
    const RunnerSite* r = site.FindRunner(label);
    ASSERT_NE(r, nullptr) << "runner label '" << label << "' missing from infermark.yaml";
    ASSERT_EQ(r->target.kind, TargetKind::kEngine) << label;
    if (unmodelled.count(r->target.hardware) != 0) {
      EXPECT_THROW((void)data.FindHardware(r->target.hardware), InputError) << r->target.hardware << " is modelled now";
      continue;
    }
    const auto& hw = data.FindHardware(r->target.hardware);
    // The label names the GPU it maps to (cluster:mi355x-amds → mi355x).
    std::string gpu = label.rfind("cluster:", 0) == 0 ? label.substr(8) : label;
    gpu = gpu.substr(0, gpu.find('-'));
    EXPECT_EQ(hw.name, gpu) << label;
  }
}

TEST(ProjectSiteFile, MapsTheFoundingRecipesModel) {
  const SiteConfig site = LoadSiteConfig(test::SourcePath("infermark.yaml"));
  const ModelSite* m = site.FindModel("amd/MiniMax-M3-MXFP4");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(perfmodel::DefaultEngineData().FindModel(m->builtin).name, "minimax-m3");
  for (const auto& [id, model] : site.models) {
    EXPECT_NO_THROW((void)perfmodel::DefaultEngineData().FindModel(model.builtin)) << id;
  }
}

}  // namespace
}  // namespace infermark::runner
