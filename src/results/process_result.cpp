#include "results/process_result.hpp"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <limits>

#include "core/diagnostic.hpp"
#include "metrics/repeat_result.hpp"
#include "power/power_aggregation.hpp"
#include "power/power_fields.hpp"
#include "results/prediction_band_fields.hpp"
#include "results/repeat_record.hpp"

namespace infermark::results {
namespace {

[[noreturn]] void Fail(const std::string& path, const std::string& field, const std::string& rule) {
  throw InputError(Diagnostic{{path, 0, 0}, "", field, rule});
}

// Python's int(text): surrounding whitespace, a sign, decimal digits with single underscores.
long long PythonInt(std::string_view text, const std::string& path, const std::string& name) {
  std::string_view s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  std::string digits;
  std::size_t i = 0;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) digits += s[i++];
  bool ok = i < s.size();
  for (bool last_digit = false; i < s.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(s[i]))) {
      digits += s[i];
      last_digit = true;
    } else if (s[i] == '_' && last_digit && i + 1 < s.size()) {
      last_digit = false;
    } else {
      ok = false;
      break;
    }
  }
  long long value = 0;
  if (ok) {
    const char* begin = digits.data() + (digits[0] == '+' ? 1 : 0);
    const auto [end, ec] = std::from_chars(begin, digits.data() + digits.size(), value);
    ok = ec == std::errc() && end == digits.data() + digits.size();
  }
  if (!ok) Fail(path, name, "must be an integer, got '" + std::string(text) + "'");
  return value;
}

// Python's float(value) for what a JSON document can hold.
double PythonFloat(const Json& value, const std::string& path, const std::string& key) {
  if (value.is_number() || value.is_boolean()) return value.get<double>();
  if (value.is_string()) {
    const std::string text = value.get<std::string>();
    char* end = nullptr;
    const double parsed = std::strtod(text.c_str(), &end);
    if (!text.empty() && end == text.c_str() + text.size()) return parsed;
  }
  Fail(path, key, "must be a number, got " + DumpJson(value));
}

const Json& Required(const Json& result, const char* key, const std::string& path) {
  const auto it = result.find(key);
  if (it == result.end()) Fail(path, key, "the client result has no such key");
  return *it;
}

class Settings {
 public:
  Settings(const ProcessSettings& settings, std::string path) : settings_(settings), path_(std::move(path)) {}

  // Every missing variable of a group is named at once, as the reference does.
  void RequireAll(std::initializer_list<const char*> names) const {
    std::string missing;
    for (const char* name : names) {
      if (!settings_.Get(name)) missing += (missing.empty() ? "" : ", ") + std::string(name);
    }
    if (!missing.empty()) {
      Fail(path_, "",
           "missing required settings: " + missing + " (give them as flags, e.g. --" +
               FlagName(missing.substr(0, missing.find(','))) + ", or as environment variables)");
    }
  }
  std::string Text(const char* name) const { return settings_.Get(name).value_or(""); }
  long long Int(const char* name) const { return PythonInt(Text(name), path_, name); }
  long long IntOr(const char* name, long long fallback) const { return settings_.Get(name) ? Int(name) : fallback; }
  bool IsTrue(const char* name) const {
    std::string value = Text(name);
    for (char& c : value) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return value == "true";
  }
  const std::string& path() const { return path_; }

 private:
  const ProcessSettings& settings_;
  std::string path_;
};

void AddRouter(Json& data, const Settings& env) {
  const std::string raw = env.Text("ROUTER_METADATA");
  if (raw.empty() || raw == "null") return;
  const Json metadata = Json::parse(raw, nullptr, false);
  if (metadata.is_discarded()) Fail(env.path(), "ROUTER_METADATA", "must contain valid JSON");
  if (!metadata.is_object() || metadata.size() != 2 || !metadata.contains("name") || !metadata.contains("version")) {
    Fail(env.path(), "ROUTER_METADATA", "must contain exactly 'name' and 'version'");
  }
  for (const auto& [key, value] : metadata.items()) {
    if (!value.is_string() || value.get<std::string>().empty()) {
      Fail(env.path(), "ROUTER_METADATA", "name and version must be non-empty strings");
    }
  }
  data["router"] = metadata;
}

void AddMultiNode(Json& data, const Settings& env, double total_tput, double output_tput) {
  env.RequireAll({"PREFILL_GPUS", "DECODE_GPUS", "PREFILL_NUM_WORKERS", "PREFILL_TP", "PREFILL_EP", "PREFILL_DP_ATTN",
                  "DECODE_NUM_WORKERS", "DECODE_TP", "DECODE_EP", "DECODE_DP_ATTN"});
  const std::string prefill_hw = env.Text("PREFILL_HARDWARE");
  const std::string decode_hw = env.Text("DECODE_HARDWARE");
  if (prefill_hw.empty() != decode_hw.empty()) {
    Fail(env.path(), "PREFILL_HARDWARE", "PREFILL_HARDWARE and DECODE_HARDWARE must be specified together");
  }
  const long long prefill_gpus = env.Int("PREFILL_GPUS");
  const long long decode_gpus = env.Int("DECODE_GPUS");
  const long long prefill_workers = env.Int("PREFILL_NUM_WORKERS");
  const long long prefill_tp = env.Int("PREFILL_TP");
  const long long prefill_pp = env.IntOr("PREFILL_PP_SIZE", 1);
  const long long prefill_dcp = env.IntOr("PREFILL_DCP_SIZE", 1);
  const long long prefill_pcp = env.IntOr("PREFILL_PCP_SIZE", 1);
  const long long prefill_ep = env.Int("PREFILL_EP");
  const long long decode_workers = env.Int("DECODE_NUM_WORKERS");
  const long long decode_tp = env.Int("DECODE_TP");
  const long long decode_pp = env.IntOr("DECODE_PP_SIZE", 1);
  const long long decode_dcp = env.IntOr("DECODE_DCP_SIZE", 1);
  const long long decode_pcp = env.IntOr("DECODE_PCP_SIZE", 1);
  const long long decode_ep = env.Int("DECODE_EP");
  for (long long v : {prefill_pp, prefill_dcp, prefill_pcp, decode_pp, decode_dcp, decode_pcp}) {
    if (v <= 0) Fail(env.path(), "", "Multinode PP, DCP, and PCP sizes must be positive integers.");
  }
  const long long total = prefill_gpus + decode_gpus;
  if (total <= 0) Fail(env.path(), "", "Multinode results require at least one GPU.");
  if (prefill_gpus <= 0) Fail(env.path(), "", "Multinode results require at least one prefill GPU.");
  const bool has_decode = decode_gpus > 0;
  data["is_multinode"] = true;
  data["prefill_tp"] = prefill_tp;
  data["prefill_pp"] = prefill_pp;
  data["prefill_dcp_size"] = prefill_dcp;
  data["prefill_pcp_size"] = prefill_pcp;
  data["prefill_ep"] = prefill_ep;
  data["prefill_dp_attention"] = env.Text("PREFILL_DP_ATTN");
  data["prefill_num_workers"] = prefill_workers;
  data["decode_tp"] = has_decode ? decode_tp : 0;
  data["decode_pp"] = has_decode ? decode_pp : 1;
  data["decode_dcp_size"] = has_decode ? decode_dcp : 1;
  data["decode_pcp_size"] = has_decode ? decode_pcp : 1;
  data["decode_ep"] = has_decode ? decode_ep : 0;
  data["decode_dp_attention"] = env.Text("DECODE_DP_ATTN");
  data["decode_num_workers"] = decode_workers;
  data["num_prefill_gpu"] = prefill_gpus;
  data["num_decode_gpu"] = decode_gpus;
  data["tput_per_gpu"] = total_tput / static_cast<double>(total);
  data["output_tput_per_gpu"] = output_tput / static_cast<double>(has_decode ? decode_gpus : total);
  data["input_tput_per_gpu"] = (total_tput - output_tput) / static_cast<double>(prefill_gpus);
  if (!prefill_hw.empty()) {
    data["prefill_hw"] = prefill_hw;
    data["decode_hw"] = decode_hw;
  }
}

void AddSingleNode(Json& data, const Settings& env, double total_tput, double output_tput) {
  env.RequireAll({"TP", "EP_SIZE", "DP_ATTENTION"});
  const long long tp = env.Int("TP");
  const long long ep = env.Int("EP_SIZE");
  const long long pp = env.IntOr("PP_SIZE", 1);
  const long long dcp = env.IntOr("DCP_SIZE", 1);
  const long long pcp = env.IntOr("PCP_SIZE", 1);
  if (pp <= 0 || dcp <= 0 || pcp <= 0) {
    Fail(env.path(), "", "PP_SIZE, DCP_SIZE, and PCP_SIZE must be positive integers.");
  }
  // Decode context parallelism shares the TP ranks; it adds no GPUs.
  const long long num_gpus = tp * pp * pcp;
  if (num_gpus == 0) Fail(env.path(), "TP", "must not be 0 (throughput per GPU would divide by zero)");
  data["is_multinode"] = false;
  data["tp"] = tp;
  data["pp"] = pp;
  data["dcp_size"] = dcp;
  data["pcp_size"] = pcp;
  data["ep"] = ep;
  data["dp_attention"] = env.Text("DP_ATTENTION");
  const auto gpus = static_cast<double>(num_gpus);
  data["tput_per_gpu"] = total_tput / gpus;
  data["output_tput_per_gpu"] = output_tput / gpus;
  data["input_tput_per_gpu"] = (total_tput - output_tput) / gpus;
}

std::string ReplaceAll(std::string text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

long long Concurrency(const Json& value, const std::string& path) {
  if (value.is_number_integer() || value.is_boolean()) return value.get<long long>();
  if (value.is_number_float()) {
    const double v = value.get<double>();
    if (v != v || v >= 9.2e18 || v <= -9.2e18) Fail(path, "max_concurrency", "must be a finite number");
    return static_cast<long long>(v);
  }
  if (value.is_string()) return PythonInt(value.get<std::string>(), path, "max_concurrency");
  Fail(path, "max_concurrency",
       "must be a number, got " + DumpJson(value) + " (a run without a concurrency limit has no conc)");
}

}  // namespace

void NormalizeClientKeys(Json& result) {
  if (!result.is_object()) return;
  if (!result.contains("request_goodput:") && result.contains("request_goodput")) {
    Json renamed = Json::object();
    for (auto& [key, value] : result.items()) renamed[key == "request_goodput" ? "request_goodput:" : key] = value;
    result = std::move(renamed);
  }
  if (!result.contains("total_token_throughput") && result.contains("total_input_tokens") &&
      result.contains("total_output_tokens") && result.contains("duration") && result["duration"].is_number() &&
      result["total_input_tokens"].is_number() && result["total_output_tokens"].is_number() &&
      result["duration"].get<double>() > 0) {
    const double total = (result["total_input_tokens"].get<double>() + result["total_output_tokens"].get<double>()) /
                         result["duration"].get<double>();
    Json with_total = Json::object();
    for (auto& [key, value] : result.items()) {
      with_total[key] = value;
      if (key == "output_throughput") with_total["total_token_throughput"] = total;
    }
    if (!with_total.contains("total_token_throughput")) with_total["total_token_throughput"] = total;
    result = std::move(with_total);
  }
}

Json ProcessClientResult(const Json& result, const ProcessSettings& settings, const std::string& path,
                         const ProcessOptions& options) {
  if (!result.is_object()) Fail(path, "", "a client result must be a JSON object");
  const Settings env(settings, path);
  env.RequireAll(
      {"RUNNER_TYPE", "FRAMEWORK", "PRECISION", "SPEC_DECODING", "ISL", "OSL", "DISAGG", "MODEL_PREFIX", "IMAGE"});
  const bool disagg = env.IsTrue("DISAGG");

  Json data = Json::object();
  data["hw"] = env.Text("RUNNER_TYPE");
  data["conc"] = Concurrency(Required(result, "max_concurrency", path), path);
  data["image"] = env.Text("IMAGE");
  const Json& model = Required(result, "model_id", path);
  data["model"] = model;
  data["infmax_model_prefix"] = env.Text("MODEL_PREFIX");
  data["framework"] = env.Text("FRAMEWORK");
  data["precision"] = env.Text("PRECISION");
  data["spec_decoding"] = env.Text("SPEC_DECODING");
  data["disagg"] = disagg;
  data["recipe_fingerprint"] = env.Text("RECIPE_FINGERPRINT");
  data["isl"] = env.Int("ISL");
  data["osl"] = env.Int("OSL");
  AddRouter(data, env);
  if (const std::string kv = env.Text("KV_P2P_TRANSFER"); !kv.empty()) data["kv_p2p_transfer"] = kv;

  const double total_tput =
      PythonFloat(Required(result, "total_token_throughput", path), path, "total_token_throughput");
  const double output_tput = PythonFloat(Required(result, "output_throughput", path), path, "output_throughput");
  if (env.IsTrue("IS_MULTINODE")) {
    AddMultiNode(data, env, total_tput, output_tput);
  } else {
    if (disagg) Fail(path, "DISAGG", "Disaggregated mode requires multinode setup.");
    AddSingleNode(data, env, total_tput, output_tput);
  }

  // Every key ending in "ms" becomes seconds; every TPOT key also becomes interactivity (1000/TPOT).
  for (const auto& [key, value] : result.items()) {
    const bool ends_ms = key.size() >= 2 && key.compare(key.size() - 2, 2, "ms") == 0;
    const bool is_tpot = key.find("tpot") != std::string::npos;
    if (!ends_ms && !is_tpot) continue;
    const double number = PythonFloat(value, path, key);
    const std::string base = ReplaceAll(key, "_ms", "");
    if (ends_ms) data[base] = number / 1000.0;
    if (is_tpot) {
      if (number == 0.0) {
        if (options.zero_tpot == ZeroTpot::kError) {
          Fail(path, key, "is 0, so its interactivity (1000/TPOT) is undefined (the reference fails here too)");
        }
        continue;
      }
      data[ReplaceAll(base, "tpot", "intvty")] = 1000.0 / number;
    }
  }
  // A result the power aggregation already patched (the runner's and `bench serve`'s) keeps its power.
  if (options.power_fields && !CarryPowerFields(result, data)) {
    data["power_metric_schema_version"] = kPowerMetricSchemaVersion;
    data["power_valid"] = 0;
  }
  // A repeated point: every figure per repeat, each repeat processed as the combined one was.
  if (metrics::RepeatsBlock(result) != nullptr) {
    data["repeats"] =
        RepeatRecordBlock(result, [&](const Json& one) { return ProcessClientResult(one, settings, path, options); });
  }
  // A predicted result's model-error bands, processed as their figures were: a key of infermark's
  // own after InferenceX's (a measured result has none).
  if (Json band = AggPredictionBand(result, data); !band.is_null()) data["prediction_band"] = std::move(band);
  return data;
}

}  // namespace infermark::results
