#include "perfmodel/recipe_memory.hpp"

#include "core/diagnostic.hpp"
#include "core/field_reader.hpp"
#include "perfmodel/spec_reading.hpp"

namespace infermark::perfmodel {

std::vector<RecipeMemory> LoadRecipeMemoryFile(const std::string& path) {
  const YamlDocument doc = LoadYamlFile(path);
  std::vector<Diagnostic> problems;
  std::vector<RecipeMemory> out;
  ReadContext root_ctx{&doc.file, "", &problems};
  if (doc.root.kind != YamlKind::kMapping) {
    root_ctx.Report(&doc.root, "", "expected a mapping of launcher names to their memory flags");
    throw InputError(problems);
  }
  for (const auto& [key, value] : doc.root.entries) {
    ReadContext ctx{&doc.file, key.text, &problems};
    FieldReader r(ctx, value, "");
    const std::string framework = r.Choice("framework", Need::kRequired, {"vllm", "sglang", "trt"}).value_or("");
    const std::string kv_dtype = r.String("kv_cache_dtype", Need::kOptional, 1).value_or("");
    if (const YamlNode* list = r.List("by_tp", Need::kRequired)) {
      for (std::size_t i = 0; i < list->items.size(); ++i) {
        FieldReader t(ctx, list->items[i], "by_tp[" + std::to_string(i) + "]");
        RecipeMemory m;
        m.script = key.text;
        m.framework = framework;
        m.tp = static_cast<int>(t.Int("tp", Need::kRequired, 1).value_or(1));
        m.fraction = Fraction(t, "fraction", Need::kRequired, 0);
        m.kv_cache_dtype = kv_dtype;
        t.RejectUnknown();
        out.push_back(std::move(m));
      }
    }
    r.RejectUnknown();
  }
  if (!problems.empty()) throw InputError(problems);
  return out;
}

std::optional<RecipeMemory> FindRecipeMemory(const std::vector<RecipeMemory>& recipes, const std::string& script,
                                             const std::string& framework, int tp) {
  for (const RecipeMemory& m : recipes) {
    if (m.script == script && m.framework == framework && m.tp == tp) return m;
  }
  return std::nullopt;
}

}  // namespace infermark::perfmodel
