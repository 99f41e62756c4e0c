#include "perfmodel/quantization.hpp"

#include "core/diagnostic.hpp"
#include "core/field_reader.hpp"
#include "perfmodel/spec_reading.hpp"

namespace infermark::perfmodel {

QuantCatalog LoadQuantizationFile(const std::string& path) {
  const YamlDocument doc = LoadYamlFile(path);
  std::vector<Diagnostic> problems;
  ReadContext ctx{&doc.file, "", &problems};
  FieldReader r(ctx, doc.root, "");
  QuantCatalog q;
  if (const YamlNode* n = r.Mapping("formats", Need::kRequired)) {
    for (const auto& [key, value] : n->entries) {
      FieldReader f(ctx, value, "formats." + key.text);
      WeightFormat w;
      w.name = key.text;
      w.bytes_per_weight = PositiveNumber(f, "bytes_per_weight", Need::kRequired);
      const std::string c = f.Choice("compute", Need::kRequired, {"bf16", "fp8", "fp4", "int4"}).value_or("bf16");
      w.compute = ParseComputeDtype(c);
      f.RejectUnknown();
      q.formats[w.name] = w;
    }
  }
  if (const YamlNode* n = r.Mapping("kv_dtypes", Need::kRequired)) {
    FieldReader f(ctx, *n, "kv_dtypes");
    for (const auto& [key, value] : n->entries) q.kv_bytes[key.text] = PositiveNumber(f, key.text, Need::kRequired);
  }
  if (const YamlNode* n = r.Mapping("precisions", Need::kRequired)) {
    for (const auto& [key, value] : n->entries) {
      const std::string path_ = "precisions." + key.text;
      FieldReader f(ctx, value, path_);
      PrecisionDef p;
      p.name = key.text;
      p.format = f.String("format", Need::kRequired, 1).value_or("");
      p.fallback_format = f.String("fallback_format", Need::kDefaulted, 1).value_or("");
      p.kv_dtype = f.String("kv_dtype", Need::kRequired, 1).value_or("bf16");
      p.scope = f.Choice("scope", Need::kRequired, {"all_linear", "experts"}).value_or("all_linear");
      f.RejectUnknown();
      if (p.format != "native_fp4" && !p.format.empty() && q.formats.count(p.format) == 0)
        ctx.Report(f.node().Find("format"), path_ + ".format", "unknown format '" + p.format + "'");
      if (p.format == "native_fp4" && q.formats.count(p.fallback_format) == 0)
        ctx.Report(&value, path_ + ".fallback_format", "native_fp4 needs a known fallback_format");
      if (q.kv_bytes.count(p.kv_dtype) == 0)
        ctx.Report(f.node().Find("kv_dtype"), path_ + ".kv_dtype", "unknown KV dtype '" + p.kv_dtype + "'");
      q.precisions[p.name] = p;
    }
  }
  r.RejectUnknown();
  if (!problems.empty()) throw InputError(problems);
  return q;
}

ResolvedPrecision ResolvePrecision(const QuantCatalog& quant, const std::string& precision, const std::string& kv_dtype,
                                   const HardwareSpec& hardware, const ModelSpec& model) {
  auto bad = [](const std::string& field, const std::string& rule) {
    return InputError(Diagnostic{SourceMark{}, "", field, rule});
  };
  const auto def = quant.precisions.find(precision);
  if (def == quant.precisions.end()) {
    std::string known;
    for (const auto& [name, unused] : quant.precisions) known += (known.empty() ? "" : ", ") + name;
    throw bad("--precision", "unknown precision '" + precision + "' (known: " + known + ")");
  }
  ResolvedPrecision out;
  out.precision = precision;
  std::string format = def->second.format;
  std::string scope = def->second.scope;
  std::string kv = def->second.kv_dtype;
  if (const auto o = model.precisions.find(precision); o != model.precisions.end()) {
    if (!o->second.format.empty()) format = o->second.format;
    if (!o->second.scope.empty()) scope = o->second.scope;
    if (!o->second.kv_dtype.empty()) kv = o->second.kv_dtype;
  }
  if (format == "native_fp4")
    format = hardware.fp4_format != "none" ? hardware.fp4_format : def->second.fallback_format;
  const auto f = quant.formats.find(format);
  if (f == quant.formats.end())
    throw bad("--precision", "precision '" + precision + "' names unknown format " + format);
  out.format = format;
  out.quant_bytes = f->second.bytes_per_weight;
  out.quant_compute = f->second.compute;
  out.experts_only = scope == "experts" && model.moe.experts > 0;
  if (!kv_dtype.empty() && kv_dtype != "auto") kv = kv_dtype;
  const auto k = quant.kv_bytes.find(kv);
  if (k == quant.kv_bytes.end()) throw bad("--kv-cache-dtype", "unknown KV-cache dtype '" + kv + "'");
  out.kv_dtype = kv;
  out.kv_bytes = k->second;
  return out;
}

}  // namespace infermark::perfmodel
