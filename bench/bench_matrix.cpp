// Phase costs of `matrix full-sweep` over the full InferenceX catalog (amd + nvidia masters,
// 1,820 rows): YAML parsing, schema validation, row generation and JSON output.
#include <benchmark/benchmark.h>

#include "catalog/catalog_loader.hpp"
#include "core/file_io.hpp"
#include "core/yaml_node.hpp"
#include "matrix/generator.hpp"
#include "matrix/matrix_output.hpp"

namespace {

const std::string kDir = std::string(INFERMARK_SOURCE_DIR) + "/tests/fixtures/inferencex/configs/";
const std::vector<std::string> kFiles = {kDir + "amd-master.yaml", kDir + "nvidia-master.yaml"};

void BM_ParseYaml(benchmark::State& state) {
  std::vector<std::string> texts;
  for (const auto& f : kFiles) texts.push_back(infermark::ReadFile(f));
  for (auto _ : state) {
    for (const auto& t : texts) benchmark::DoNotOptimize(infermark::ParseYaml(t, "x.yaml"));
  }
}
BENCHMARK(BM_ParseYaml)->Unit(benchmark::kMillisecond);

void BM_ReadAndValidate(benchmark::State& state) {
  std::vector<infermark::YamlDocument> docs;
  for (const auto& f : kFiles) docs.push_back(infermark::LoadYamlFile(f));
  for (auto _ : state) {
    std::vector<infermark::Diagnostic> problems;
    for (const auto& d : docs) benchmark::DoNotOptimize(infermark::catalog::ReadMasterConfig(d, problems));
  }
}
BENCHMARK(BM_ReadAndValidate)->Unit(benchmark::kMillisecond);

void BM_Generate(benchmark::State& state) {
  const auto catalog = infermark::catalog::LoadMasterConfigs(kFiles);
  const auto runners = infermark::catalog::LoadRunnerConfig(kDir + "runners.yaml");
  for (auto _ : state) {
    benchmark::DoNotOptimize(infermark::matrix::GenerateFullSweep(catalog, runners, {}));
  }
}
BENCHMARK(BM_Generate)->Unit(benchmark::kMillisecond);

void BM_FormatJson(benchmark::State& state) {
  const auto catalog = infermark::catalog::LoadMasterConfigs(kFiles);
  const auto runners = infermark::catalog::LoadRunnerConfig(kDir + "runners.yaml");
  const auto rows = infermark::matrix::GenerateFullSweep(catalog, runners, {});
  for (auto _ : state) benchmark::DoNotOptimize(infermark::matrix::FormatJson(rows));
}
BENCHMARK(BM_FormatJson)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
