// Fuzzes the catalog loader: any bytes, read as a master config, runners.yaml and a changelog,
// must end in a result or an InputError — never a crash, a hang or unbounded memory. The same
// bytes parsed in ranges on threads (ParseYamlInRanges) must give ParseYaml's tree or its error.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog_loader.hpp"
#include "core/diagnostic.hpp"
#include "core/yaml_compare.hpp"
#include "core/yaml_node.hpp"
#include "core/yaml_split.hpp"

namespace {

// The tree, or the error text.
struct Outcome {
  std::optional<infermark::YamlDocument> doc;
  std::string error;
};

template <typename Parse>
Outcome Run(Parse parse) {
  Outcome out;
  try {
    out.doc = parse();
  } catch (const infermark::InputError& e) {
    for (const auto& d : e.diagnostics()) out.error += d.ToString() + "\n";
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace infermark;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const Outcome whole = Run([&] { return ParseYaml(text, "fuzz.yaml"); });
  const Outcome ranges = Run([&] { return ParseYamlInRanges(text, "fuzz.yaml", 2 + size % 3); });
  if (whole.doc.has_value() != ranges.doc.has_value() || whole.error != ranges.error ||
      (whole.doc && !SameYamlTree(whole.doc->root, ranges.doc->root))) {
    std::abort();  // parsing in ranges changed the result
  }
  if (!whole.doc) return 0;
  try {
    std::vector<Diagnostic> problems;
    (void)catalog::ReadMasterConfig(*whole.doc, problems);
    (void)catalog::ReadRunnerConfig(*whole.doc, problems);
    (void)catalog::ReadChangelog(*whole.doc, problems);
  } catch (const InputError&) {
  }
  return 0;
}
