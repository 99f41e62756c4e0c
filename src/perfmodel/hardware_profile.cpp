#include "perfmodel/hardware_profile.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string_view>

#include "core/diagnostic.hpp"
#include "core/field_reader.hpp"
#include "core/json_text.hpp"
#include "core/yaml_node.hpp"
#include "perfmodel/spec_reading.hpp"

namespace infermark::perfmodel {

namespace {

constexpr double kGiga = 1e9;
constexpr double kTera = 1e12;
constexpr double kMicro = 1e-6;

// Bytes of one operand element: fp8 inputs are one byte; outputs are bf16 either way.
double InputBytes(const std::string& dtype) {
  return dtype == "fp8" ? 1.0 : 2.0;
}

// ---- Writing -----------------------------------------------------------------------------------

// Six significant digits, always read back as a number: YAML 1.1 wants a dot in an exponent form.
std::string Number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  std::string text = buffer;
  const std::size_t e = text.find('e');
  if (e != std::string::npos && text.find('.') == std::string::npos) text.insert(e, ".0");
  return text;
}

// A string as a plain scalar when the YAML resolver reads it back as that same string (in flow
// context too), else double-quoted with JSON escapes, which YAML reads alike.
std::string Text(const std::string& value) {
  bool plain = !value.empty() && value.front() != ' ' && value.back() != ' ' &&
               value.find_first_of(":#,[]{}&*!|>'\"%@`\\\n\t") == std::string::npos && value.front() != '-' &&
               value.front() != '?';
  if (plain) {
    const YamlDocument doc = ParseYaml("k: " + value, "value");
    const YamlNode* node = doc.root.Find("k");
    plain = node != nullptr && node->kind == YamlKind::kString && node->text == value;
  }
  if (plain) return value;
  return DumpJson(Json(value));
}

// Text for a comment line: line breaks become spaces.
std::string OneLine(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  return text;
}

std::string GemmLine(const ProbedGemm& g) {
  std::string line = "  - {model: " + Text(g.model) + ", op: " + Text(g.op) + ", phase: " + Text(g.phase) +
                     ", dtype: " + Text(g.dtype) + ", tp: " + std::to_string(g.tp) + ", m: " + std::to_string(g.m) +
                     ", n: " + std::to_string(g.n) + ", k: " + std::to_string(g.k);
  if (g.experts > 0) line += ", experts: " + std::to_string(g.experts);
  line += ", us: " + Number(g.seconds / kMicro) + ", spread: " + Number(g.spread);
  if (g.avg_power_w > 0) line += ", power_w: " + Number(g.avg_power_w);
  if (g.sm_clock_mhz > 0) line += ", sm_clock_mhz: " + Number(g.sm_clock_mhz);
  if (!g.algo.empty()) line += ", algo: " + Text(g.algo);
  return line + "}\n";
}

std::string CollectiveLine(const ProbedCollective& c) {
  return "    - {op: " + Text(c.op) + ", gpus: " + std::to_string(c.gpus) + ", bytes: " + std::to_string(c.bytes) +
         ", latency_us: " + Number(c.seconds / kMicro) + ", bus_bw_gb_s: " + Number(c.bus_bytes_per_s / kGiga) +
         ", spread: " + Number(c.spread) + ", graph: " + (c.graph ? "true" : "false") + "}\n";
}

std::string PowerLine(const ProbedPower& p) {
  return "  - {test: " + Text(p.test) + ", power_w: " + Number(p.avg_power_w) +
         ", sm_clock_mhz: " + Number(p.sm_clock_mhz) + ", mem_clock_mhz: " + Number(p.mem_clock_mhz) + "}\n";
}

// ---- Reading -----------------------------------------------------------------------------------

// A number >= 0; 0 when absent or invalid (a problem is recorded when invalid).
double NonNegative(FieldReader& reader, std::string_view key, Need need) {
  const std::optional<double> v = reader.Float(key, need);
  if (!v) return 0;
  if (!(*v >= 0)) {
    reader.context().Report(reader.node().Find(key), reader.PathOf(key), "must be a number of 0 or more");
    return 0;
  }
  return *v;
}

// An integer >= minimum that fits an int.
int SmallInt(FieldReader& reader, std::string_view key, Need need, int minimum) {
  const std::optional<std::int64_t> v = reader.Int(key, need, minimum);
  if (!v) return minimum;
  if (*v > 1'000'000'000) {
    reader.context().Report(reader.node().Find(key), reader.PathOf(key), "is implausibly large");
    return minimum;
  }
  return static_cast<int>(*v);
}

void ReadGpu(FieldReader& g, HardwareProfile& p) {
  p.gpu_name = g.String("name", Need::kRequired, 1).value_or("");
  p.gpu_uuid = g.String("uuid", Need::kDefaulted).value_or("");
  p.driver = g.String("driver", Need::kDefaulted).value_or("");
  p.cuda_runtime = g.String("cuda_runtime", Need::kDefaulted).value_or("");
  p.compute_capability = g.String("compute_capability", Need::kDefaulted).value_or("");
  p.sm_count = SmallInt(g, "sm_count", Need::kDefaulted, 0);
  p.memory_bytes = NonNegative(g, "memory_gb", Need::kDefaulted) * kGiga;
  p.sm_clock_max_mhz = NonNegative(g, "sm_clock_max_mhz", Need::kDefaulted);
  p.mem_clock_max_mhz = NonNegative(g, "mem_clock_max_mhz", Need::kDefaulted);
  g.RejectUnknown();
}

ProbedGemm ReadGemm(const ReadContext& ctx, const YamlNode& node, const std::string& path) {
  FieldReader r(ctx, node, path);
  ProbedGemm g;
  g.model = r.String("model", Need::kRequired).value_or("");
  g.op = r.String("op", Need::kRequired, 1).value_or("");
  g.phase = r.Choice("phase", Need::kRequired, {"decode", "prefill"}).value_or("");
  g.dtype = r.Choice("dtype", Need::kRequired, {"bf16", "fp8"}).value_or("");
  g.tp = SmallInt(r, "tp", Need::kRequired, 1);
  g.m = r.Int("m", Need::kRequired, 1).value_or(1);
  g.n = r.Int("n", Need::kRequired, 1).value_or(1);
  g.k = r.Int("k", Need::kRequired, 1).value_or(1);
  g.experts = SmallInt(r, "experts", Need::kDefaulted, 0);
  g.seconds = PositiveNumber(r, "us", Need::kRequired) * kMicro;
  g.spread = NonNegative(r, "spread", Need::kDefaulted);
  g.avg_power_w = NonNegative(r, "power_w", Need::kDefaulted);
  g.sm_clock_mhz = NonNegative(r, "sm_clock_mhz", Need::kDefaulted);
  g.algo = r.String("algo", Need::kDefaulted).value_or("");
  r.RejectUnknown();
  return g;
}

ProbedCollective ReadCollective(const ReadContext& ctx, const YamlNode& node, const std::string& path) {
  FieldReader r(ctx, node, path);
  ProbedCollective c;
  c.op = r.Choice("op", Need::kRequired, {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"}).value_or("");
  c.gpus = SmallInt(r, "gpus", Need::kRequired, 1);
  c.bytes = r.Int("bytes", Need::kRequired, 1).value_or(1);
  c.seconds = PositiveNumber(r, "latency_us", Need::kRequired) * kMicro;
  c.bus_bytes_per_s = NonNegative(r, "bus_bw_gb_s", Need::kRequired) * kGiga;
  c.spread = NonNegative(r, "spread", Need::kDefaulted);
  c.graph = r.Bool("graph", Need::kDefaulted).value_or(false);
  r.RejectUnknown();
  return c;
}

void ReadScaleUp(const ReadContext& ctx, FieldReader& s, ScaleUpProfile& out) {
  out.nccl_version = s.String("nccl", Need::kRequired, 1).value_or("");
  out.nvls = s.Bool("nvls", Need::kRequired).value_or(false);
  if (const YamlNode* list = s.List("collectives", Need::kRequired)) {
    for (std::size_t i = 0; i < list->items.size(); ++i)
      out.collectives.push_back(ReadCollective(ctx, list->items[i], "scale_up.collectives[" + std::to_string(i) + "]"));
  }
  s.RejectUnknown();
}

ProbedPower ReadPower(const ReadContext& ctx, const YamlNode& node, const std::string& path) {
  FieldReader r(ctx, node, path);
  ProbedPower p;
  p.test = r.String("test", Need::kRequired, 1).value_or("");
  p.avg_power_w = NonNegative(r, "power_w", Need::kDefaulted);
  p.sm_clock_mhz = NonNegative(r, "sm_clock_mhz", Need::kDefaulted);
  p.mem_clock_mhz = NonNegative(r, "mem_clock_mhz", Need::kDefaulted);
  r.RejectUnknown();
  return p;
}

}  // namespace

std::vector<const ProbedCollective*> ScaleUpProfile::Sizes(const std::string& op, int gpus) const {
  std::vector<const ProbedCollective*> out;
  for (const ProbedCollective& c : collectives)
    if (c.op == op && c.gpus == gpus) out.push_back(&c);
  std::stable_sort(out.begin(), out.end(),
                   [](const ProbedCollective* a, const ProbedCollective* b) { return a->bytes < b->bytes; });
  return out;
}

double ProbedGemm::Bytes() const {
  const double problems = std::max(experts, 1);
  const double in = InputBytes(dtype);
  const double mm = static_cast<double>(m), nn = static_cast<double>(n), kk = static_cast<double>(k);
  return problems * (mm * kk * in + nn * kk * in + mm * nn * 2.0);
}

double ProbedGemm::Flops() const {
  return 2.0 * std::max(experts, 1) * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

std::string FormatHardwareProfile(const HardwareProfile& p) {
  std::string out;
  out += "# infermark hardware profile: what `infermark gpu probe` measured on one GPU (format: docs/gpu.md).\n";
  out += OneLine("# GPU: " + p.gpu_name + " (" + p.gpu_uuid + "), driver " + p.driver + ", CUDA runtime " +
                 p.cuda_runtime + ", compute capability " + p.compute_capability) +
         "\n";
  out += OneLine("# Measured: " + p.measured_at + " on " + p.host + " by infermark " + p.infermark_version) + "\n";
  out += OneLine("# Command: " + p.command) + "\n";
  out +=
      "# Units: GB/s = 1e9 bytes/s (copy counts bytes read plus written), TFLOP/s = 1e12 FLOP/s, us = microseconds\n";
  out += "# (GEMM times: median of one call, all experts of a group, cold L2), spread = (p90 - p10) / median.\n";
  out += "version: " + std::to_string(p.version) + "\n";
  out += "hardware: " + Text(p.hardware) + "\n";
  out += "measured_at: " + Text(p.measured_at) + "\n";
  out += "host: " + Text(p.host) + "\n";
  out += "infermark_version: " + Text(p.infermark_version) + "\n";
  out += "command: " + Text(p.command) + "\n";
  out += "gpu:\n";
  out += "  name: " + Text(p.gpu_name) + "\n";
  out += "  uuid: " + Text(p.gpu_uuid) + "\n";
  out += "  driver: " + Text(p.driver) + "\n";
  out += "  cuda_runtime: " + Text(p.cuda_runtime) + "\n";
  out += "  compute_capability: " + Text(p.compute_capability) + "\n";
  out += "  sm_count: " + std::to_string(p.sm_count) + "\n";
  out += "  memory_gb: " + Number(p.memory_bytes / kGiga) + "\n";
  out += "  sm_clock_max_mhz: " + Number(p.sm_clock_max_mhz) + "\n";
  out += "  mem_clock_max_mhz: " + Number(p.mem_clock_max_mhz) + "\n";
  out += "hbm_gb_s:\n";
  out += "  read: " + Number(p.hbm_read_bytes_per_s / kGiga) + "\n";
  out += "  write: " + Number(p.hbm_write_bytes_per_s / kGiga) + "\n";
  out += "  copy: " + Number(p.hbm_copy_bytes_per_s / kGiga) + "\n";
  out += "gemm_peak_tflops:\n";
  out += "  bf16: " + Number(p.gemm_peak_bf16 / kTera) + "\n";
  out += "  fp8: " + Number(p.gemm_peak_fp8 / kTera) + "\n";
  out += "launch_us:\n";
  out += "  kernel: " + Number(p.kernel_launch_s / kMicro) + "\n";
  out += "  graph_kernel: " + Number(p.graph_kernel_s / kMicro) + "\n";
  out += "  graph_launch: " + Number(p.graph_launch_s / kMicro) + "\n";
  if (p.gemms.empty()) {
    out += "gemms: []\n";
  } else {
    out += "gemms:\n";
    for (const ProbedGemm& g : p.gemms) out += GemmLine(g);
  }
  if (p.power.empty()) {
    out += "power: []\n";
  } else {
    out += "power:\n";
    for (const ProbedPower& w : p.power) out += PowerLine(w);
  }
  if (!p.scale_up.collectives.empty()) {
    out +=
        "# Collectives: NCCL over the host's GPUs, one process; bytes as nccl-tests count them, latency_us = median\n";
    out += "# time of one call, bus_bw_gb_s = NCCL's bus bandwidth (0 for one GPU).\n";
    out += "scale_up:\n";
    out += "  nccl: " + Text(p.scale_up.nccl_version) + "\n";
    out += std::string("  nvls: ") + (p.scale_up.nvls ? "true" : "false") + "\n";
    out += "  collectives:\n";
    for (const ProbedCollective& c : p.scale_up.collectives) out += CollectiveLine(c);
  }
  return out;
}

HardwareProfile LoadHardwareProfile(const std::string& path) {
  const YamlDocument doc = LoadYamlFile(path);
  std::vector<Diagnostic> problems;
  ReadContext ctx{&doc.file, "", &problems};
  HardwareProfile p;
  p.path = path;
  if (doc.root.kind != YamlKind::kMapping) {
    ctx.Report(&doc.root, "", "expected a hardware profile (a mapping), as `infermark gpu probe` writes");
    throw InputError(problems);
  }
  FieldReader r(ctx, doc.root, "");
  if (const std::optional<std::int64_t> v = r.Int("version", Need::kRequired)) {
    if (*v != 1)
      ctx.Report(doc.root.Find("version"), "version", "unsupported profile version (this infermark reads version 1)");
  }
  p.hardware = r.String("hardware", Need::kDefaulted).value_or("");
  p.measured_at = r.String("measured_at", Need::kRequired, 1).value_or("");
  p.host = r.String("host", Need::kDefaulted).value_or("");
  p.infermark_version = r.String("infermark_version", Need::kDefaulted).value_or("");
  p.command = r.String("command", Need::kDefaulted).value_or("");
  if (const YamlNode* n = r.Mapping("gpu", Need::kRequired)) {
    FieldReader g(ctx, *n, "gpu");
    ReadGpu(g, p);
  }
  if (const YamlNode* n = r.Mapping("hbm_gb_s", Need::kDefaulted)) {
    FieldReader h(ctx, *n, "hbm_gb_s");
    p.hbm_read_bytes_per_s = NonNegative(h, "read", Need::kDefaulted) * kGiga;
    p.hbm_write_bytes_per_s = NonNegative(h, "write", Need::kDefaulted) * kGiga;
    p.hbm_copy_bytes_per_s = NonNegative(h, "copy", Need::kDefaulted) * kGiga;
    h.RejectUnknown();
  }
  if (const YamlNode* n = r.Mapping("gemm_peak_tflops", Need::kDefaulted)) {
    FieldReader t(ctx, *n, "gemm_peak_tflops");
    p.gemm_peak_bf16 = NonNegative(t, "bf16", Need::kDefaulted) * kTera;
    p.gemm_peak_fp8 = NonNegative(t, "fp8", Need::kDefaulted) * kTera;
    t.RejectUnknown();
  }
  if (const YamlNode* n = r.Mapping("launch_us", Need::kDefaulted)) {
    FieldReader l(ctx, *n, "launch_us");
    p.kernel_launch_s = NonNegative(l, "kernel", Need::kDefaulted) * kMicro;
    p.graph_kernel_s = NonNegative(l, "graph_kernel", Need::kDefaulted) * kMicro;
    p.graph_launch_s = NonNegative(l, "graph_launch", Need::kDefaulted) * kMicro;
    l.RejectUnknown();
  }
  if (const YamlNode* list = r.List("gemms", Need::kDefaulted)) {
    for (std::size_t i = 0; i < list->items.size(); ++i)
      p.gemms.push_back(ReadGemm(ctx, list->items[i], "gemms[" + std::to_string(i) + "]"));
  }
  if (const YamlNode* list = r.List("power", Need::kDefaulted)) {
    for (std::size_t i = 0; i < list->items.size(); ++i)
      p.power.push_back(ReadPower(ctx, list->items[i], "power[" + std::to_string(i) + "]"));
  }
  if (const YamlNode* n = r.Mapping("scale_up", Need::kDefaulted)) {
    FieldReader s(ctx, *n, "scale_up");
    ReadScaleUp(ctx, s, p.scale_up);
  }
  r.RejectUnknown();
  if (!problems.empty()) throw InputError(problems);
  return p;
}

}  // namespace infermark::perfmodel
