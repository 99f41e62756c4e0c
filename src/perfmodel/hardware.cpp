#include "perfmodel/hardware.hpp"

#include <stdexcept>

#include "core/diagnostic.hpp"
#include "core/field_reader.hpp"
#include "perfmodel/spec_reading.hpp"

namespace infermark::perfmodel {

ComputeDtype ParseComputeDtype(const std::string& text) {
  if (text == "bf16") return ComputeDtype::kBf16;
  if (text == "fp8") return ComputeDtype::kFp8;
  if (text == "fp4") return ComputeDtype::kFp4;
  if (text == "int4") return ComputeDtype::kInt4;
  throw std::invalid_argument("unknown compute dtype '" + text + "'");
}

double HardwareSpec::PeakFlops(ComputeDtype dtype) const {
  double rate = 0;
  switch (dtype) {
    case ComputeDtype::kBf16:
      rate = flops_bf16;
      break;
    case ComputeDtype::kFp8:
      rate = flops_fp8;
      break;
    case ComputeDtype::kFp4:
      rate = flops_fp4;
      break;
    case ComputeDtype::kInt4:
      rate = flops_int4;
      break;
  }
  return rate > 0 ? rate : flops_bf16;
}

std::vector<HardwareSpec> LoadHardwareFile(const std::string& path) {
  const YamlDocument doc = LoadYamlFile(path);
  std::vector<Diagnostic> problems;
  std::vector<HardwareSpec> out;
  ReadContext root_ctx{&doc.file, "", &problems};
  if (doc.root.kind != YamlKind::kMapping) {
    root_ctx.Report(&doc.root, "", "expected a mapping of hardware names to entries");
    throw InputError(problems);
  }
  for (const auto& [key, value] : doc.root.entries) {
    ReadContext ctx{&doc.file, key.text, &problems};
    FieldReader r(ctx, value, "");
    HardwareSpec hw;
    hw.name = key.text;
    hw.vendor = r.Choice("vendor", Need::kRequired, {"nvidia", "amd"}).value_or("");
    hw.description = r.String("description", Need::kDefaulted).value_or(key.text);
    hw.aliases = r.StringList("aliases", Need::kDefaulted).value_or(std::vector<std::string>{});
    hw.hbm_bytes = PositiveNumber(r, "hbm_gb", Need::kRequired) * 1e9;
    const double memory_mib = PositiveNumber(r, "memory_mib", Need::kOptional);
    hw.memory_bytes = memory_mib > 0 ? memory_mib * 1024 * 1024 : hw.hbm_bytes;
    hw.hbm_bytes_per_s = PositiveNumber(r, "hbm_tb_s", Need::kRequired) * 1e12;
    if (const YamlNode* t = r.Mapping("tflops", Need::kRequired)) {
      FieldReader f(ctx, *t, "tflops");
      hw.flops_bf16 = PositiveNumber(f, "bf16", Need::kRequired) * 1e12;
      hw.flops_fp8 = PositiveNumber(f, "fp8", Need::kOptional) * 1e12;
      hw.flops_fp4 = PositiveNumber(f, "fp4", Need::kOptional) * 1e12;
      hw.flops_int4 = PositiveNumber(f, "int4", Need::kOptional) * 1e12;
      f.RejectUnknown();
    }
    hw.fp4_format = r.Choice("fp4_format", Need::kRequired, {"nvfp4", "mxfp4", "none"}).value_or("none");
    if (hw.fp4_format != "none" && hw.flops_fp4 <= 0)
      ctx.Report(&value, "fp4_format", "an fp4_format other than none needs tflops.fp4");
    if (const YamlNode* s = r.Mapping("scale_up", Need::kRequired)) {
      FieldReader f(ctx, *s, "scale_up");
      hw.link_bytes_per_s = PositiveNumber(f, "gb_s", Need::kRequired) * 1e9;
      hw.domain_gpus = static_cast<int>(f.Int("domain_gpus", Need::kRequired, 1).value_or(8));
      hw.allreduce_latency_s = PositiveNumber(f, "allreduce_latency_us", Need::kRequired) * 1e-6;
      hw.alltoall_latency_s = PositiveNumber(f, "alltoall_latency_us", Need::kRequired) * 1e-6;
      f.RejectUnknown();
    }
    if (const YamlNode* h = r.Mapping("host_link", Need::kRequired)) {
      FieldReader f(ctx, *h, "host_link");
      hw.host_link_bytes_per_s = PositiveNumber(f, "gb_s", Need::kRequired) * 1e9;
      hw.host_link_kind = f.Choice("kind", Need::kRequired, {"pcie5-x16", "pcie6-x16", "nvlink-c2c"}).value_or("");
      f.RejectUnknown();
    }
    if (const YamlNode* o = r.Mapping("scale_out", Need::kRequired)) {
      FieldReader f(ctx, *o, "scale_out");
      hw.scale_out_bytes_per_s = PositiveNumber(f, "gb_s", Need::kRequired) * 1e9;
      hw.scale_out_latency_s = PositiveNumber(f, "latency_us", Need::kRequired) * 1e-6;
      hw.scale_out_kind = f.Choice("kind", Need::kRequired, {"rdma-400g", "rdma-800g"}).value_or("");
      f.RejectUnknown();
    }
    r.RejectUnknown();
    out.push_back(std::move(hw));
  }
  if (!problems.empty()) throw InputError(problems);
  return out;
}

}  // namespace infermark::perfmodel
