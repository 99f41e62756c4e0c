#include "perfmodel/efficiency.hpp"

#include <cstdio>

#include "core/diagnostic.hpp"
#include "perfmodel/spec_reading.hpp"

namespace infermark::perfmodel {

namespace {
double NonNegativeOr(FieldReader& r, std::string_view key, double fallback) {
  const std::optional<double> v = r.Float(key, Need::kOptional);
  if (!v) return fallback;
  if (!(*v >= 0)) {
    r.context().Report(r.node().Find(key), r.PathOf(key), "must be a number >= 0");
    return fallback;
  }
  return *v;
}
}  // namespace

EfficiencyFactors ReadEfficiency(FieldReader& r, const EfficiencyFactors& d) {
  EfficiencyFactors e;
  e.hbm_bw_fraction = Fraction(r, "hbm_bw_fraction", Need::kDefaulted, d.hbm_bw_fraction);
  e.flops_fraction = Fraction(r, "flops_fraction", Need::kDefaulted, d.flops_fraction);
  e.attention_bw_fraction = Fraction(r, "attention_bw_fraction", Need::kDefaulted, d.attention_bw_fraction);
  e.attention_flops_fraction = Fraction(r, "attention_flops_fraction", Need::kDefaulted, d.attention_flops_fraction);
  e.link_bw_fraction = Fraction(r, "link_bw_fraction", Need::kDefaulted, d.link_bw_fraction);
  e.step_overhead_us = NonNegativeOr(r, "step_overhead_us", d.step_overhead_us);
  e.kernel_overhead_us = NonNegativeOr(r, "kernel_overhead_us", d.kernel_overhead_us);
  e.seq_overhead_us = NonNegativeOr(r, "seq_overhead_us", d.seq_overhead_us);
  e.allreduce_latency_us = NonNegativeOr(r, "allreduce_latency_us", d.allreduce_latency_us);
  e.alltoall_latency_us = NonNegativeOr(r, "alltoall_latency_us", d.alltoall_latency_us);
  e.low_bit_bw_efficiency = Fraction(r, "low_bit_bw_efficiency", Need::kDefaulted, d.low_bit_bw_efficiency);
  e.expert_overhead_us = NonNegativeOr(r, "expert_overhead_us", d.expert_overhead_us);
  e.grouped_bw_efficiency = Fraction(r, "grouped_bw_efficiency", Need::kDefaulted, d.grouped_bw_efficiency);
  e.weight_only_flops_efficiency =
      Fraction(r, "weight_only_flops_efficiency", Need::kDefaulted, d.weight_only_flops_efficiency);
  e.weight_only_moe_overhead_ratio =
      NonNegativeOr(r, "weight_only_moe_overhead_ratio", d.weight_only_moe_overhead_ratio);
  return e;
}

CalibratedProfile LoadCalibratedProfile(const std::string& path) {
  const YamlDocument doc = LoadYamlFile(path);
  std::vector<Diagnostic> problems;
  ReadContext ctx{&doc.file, "", &problems};
  FieldReader r(ctx, doc.root, "");
  CalibratedProfile p;
  p.path = path;
  p.framework = r.String("framework", Need::kRequired, 1).value_or("");
  p.scope = r.String("scope", Need::kRequired, 1).value_or("");
  if (const YamlNode* n = r.Mapping("efficiency", Need::kRequired)) {
    FieldReader f(ctx, *n, "efficiency");
    p.efficiency = ReadEfficiency(f, EfficiencyFactors{});
    f.RejectUnknown();
  }
  p.kernel_classes = r.StringList("kernel_classes", Need::kDefaulted).value_or(std::vector<std::string>{});
  r.RejectUnknown();
  if (!problems.empty()) throw InputError(problems);
  return p;
}

std::string FormatCalibratedProfile(const CalibratedProfile& p, const std::vector<std::string>& comment) {
  std::string out;
  for (const auto& line : comment) out += "# " + line + "\n";
  char buf[4096];
  const EfficiencyFactors& e = p.efficiency;
  std::snprintf(buf, sizeof buf,
                "framework: %s\nscope: %s\nefficiency:\n"
                "  hbm_bw_fraction: %.4f\n  flops_fraction: %.4f\n  attention_flops_fraction: %.4f\n"
                "  link_bw_fraction: %.4f\n  step_overhead_us: %.2f\n  kernel_overhead_us: %.3f\n"
                "  seq_overhead_us: %.3f\n  allreduce_latency_us: %.3f\n  alltoall_latency_us: %.3f\n"
                "  low_bit_bw_efficiency: %.4f\n  expert_overhead_us: %.3f\n"
                "  attention_bw_fraction: %.4f\n  weight_only_flops_efficiency: %.4f\n  "
                "weight_only_moe_overhead_ratio: %.4f\n  grouped_bw_efficiency: %.4f\n",
                p.framework.c_str(), p.scope.c_str(), e.hbm_bw_fraction, e.flops_fraction, e.attention_flops_fraction,
                e.link_bw_fraction, e.step_overhead_us, e.kernel_overhead_us, e.seq_overhead_us, e.allreduce_latency_us,
                e.alltoall_latency_us, e.low_bit_bw_efficiency, e.expert_overhead_us, e.attention_bw_fraction,
                e.weight_only_flops_efficiency, e.weight_only_moe_overhead_ratio, e.grouped_bw_efficiency);
  out += buf;
  if (!p.kernel_classes.empty()) {
    out += "kernel_classes:";
    for (const auto& c : p.kernel_classes) out += "\n  - " + c;
    out += "\n";
  }
  return out;
}

}  // namespace infermark::perfmodel
