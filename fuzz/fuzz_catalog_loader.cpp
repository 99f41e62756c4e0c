// Fuzzes the catalog loader: any bytes, read as a master config, runners.yaml and a changelog,
// must end in a result or an InputError — never a crash, a hang or unbounded memory.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "catalog/catalog_loader.hpp"
#include "core/diagnostic.hpp"
#include "core/yaml_node.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace infermark;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const YamlDocument doc = ParseYaml(text, "fuzz.yaml");
    std::vector<Diagnostic> problems;
    (void)catalog::ReadMasterConfig(doc, problems);
    (void)catalog::ReadRunnerConfig(doc, problems);
    (void)catalog::ReadChangelog(doc, problems);
  } catch (const InputError&) {
  }
  return 0;
}
