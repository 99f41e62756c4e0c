#include "perfmodel/framework.hpp"

#include "core/diagnostic.hpp"
#include "perfmodel/spec_reading.hpp"

namespace infermark::perfmodel {

std::vector<FrameworkProfile> LoadFrameworksFile(const std::string& path) {
  const YamlDocument doc = LoadYamlFile(path);
  std::vector<Diagnostic> problems;
  std::vector<FrameworkProfile> out;
  if (doc.root.kind != YamlKind::kMapping) {
    ReadContext ctx{&doc.file, "", &problems};
    ctx.Report(&doc.root, "", "expected a mapping of framework names to profiles");
    throw InputError(problems);
  }
  for (const auto& [key, value] : doc.root.entries) {
    ReadContext ctx{&doc.file, key.text, &problems};
    FieldReader r(ctx, value, "");
    FrameworkProfile f;
    f.name = key.text;
    f.description = r.String("description", Need::kDefaulted).value_or(key.text);
    if (const YamlNode* n = r.Mapping("scheduler", Need::kRequired)) {
      FieldReader s(ctx, *n, "scheduler");
      SchedulerDefaults& d = f.scheduler;
      d.max_num_seqs = Count(s, "max_num_seqs", Need::kRequired, 1);
      d.max_num_batched_tokens = Count(s, "max_num_batched_tokens", Need::kRequired, 8192);
      d.block_size = Count(s, "block_size", Need::kRequired, 16);
      const std::string of =
          s.Choice("memory_fraction_of", Need::kRequired, {"total", "free_after_weights", "static"}).value_or("total");
      d.memory_rule = of == "static"               ? MemoryRule::kStatic
                      : of == "free_after_weights" ? MemoryRule::kFreeAfterWeights
                                                   : MemoryRule::kTotal;
      // SGLang derives its fraction from the GPU and the deployment when the file says auto.
      const YamlNode* util = s.Get("gpu_memory_utilization");
      if (d.memory_rule == MemoryRule::kStatic && util != nullptr && util->kind == YamlKind::kString &&
          util->text == "auto") {
        d.gpu_memory_utilization.reset();
      } else {
        d.gpu_memory_utilization = Fraction(s, "gpu_memory_utilization", Need::kRequired, 0.9);
      }
      d.activation_reserve_bytes =
          d.memory_rule == MemoryRule::kStatic ? 0 : PositiveNumber(s, "activation_reserve_gb", Need::kRequired) * 1e9;
      d.prefix_caching = s.Bool("prefix_caching", Need::kRequired).value_or(true);
      d.stream_interval = Count(s, "stream_interval", Need::kRequired, 1);
      s.RejectUnknown();
      if (d.max_num_seqs < 1 || d.block_size < 1 || d.stream_interval < 1 || d.max_num_batched_tokens < 1)
        ctx.Report(n, "scheduler", "max_num_seqs, max_num_batched_tokens, block_size and stream_interval must be >= 1");
    }
    if (const YamlNode* n = r.Mapping("efficiency", Need::kRequired)) {
      FieldReader e(ctx, *n, "efficiency");
      f.efficiency = ReadEfficiency(e, EfficiencyFactors{});
      e.RejectUnknown();
    }
    f.calibration_fallback = r.String("calibration_fallback", Need::kDefaulted, 1).value_or("");
    f.attention = r.Choice("attention", Need::kDefaulted, {"per_sequence", "whole_batch"}).value_or("per_sequence") ==
                          "whole_batch"
                      ? AttentionScope::kWholeBatch
                      : AttentionScope::kPerSequence;
    r.RejectUnknown();
    out.push_back(std::move(f));
  }
  for (const auto& f : out) {
    if (f.calibration_fallback.empty()) continue;
    bool known = false;
    for (const auto& g : out) known |= g.name == f.calibration_fallback;
    if (!known)
      problems.push_back(Diagnostic{SourceMark{doc.file, 0, 0}, f.name, "calibration_fallback",
                                    "names unknown framework '" + f.calibration_fallback + "'"});
  }
  if (!problems.empty()) throw InputError(problems);
  return out;
}

}  // namespace infermark::perfmodel
