// Master-config schema: the same models, defaults and cross-field rules as InferenceX's
// validator (field errors first; an entry's cross-field rules only once its fields are valid).
#include <algorithm>

#include "catalog/catalog_loader.hpp"
#include "core/field_reader.hpp"

namespace infermark::catalog {
namespace {

const std::vector<std::string> kSpecDecoding = {"mtp", "draft_model", "none"};
const std::vector<std::string> kKvOffloading = {"none", "dram"};
constexpr std::string_view kClusterPrefix = "cluster:";

std::string Index(const std::string& path, std::size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

// Counts problems so a reader can tell whether a model's own fields were valid.
struct ProblemCount {
  const std::vector<Diagnostic>& problems;
  std::size_t before = problems.size();
  [[nodiscard]] bool Clean() const { return problems.size() == before; }
};

std::optional<ComponentMetadata> ReadComponent(FieldReader& parent, std::string_view key) {
  const YamlNode* node = parent.Get(key);
  if (node == nullptr || node->kind == YamlKind::kNull) return std::nullopt;
  FieldReader r(parent.context(), *node, parent.PathOf(key));
  if (!r.ok()) return std::nullopt;
  ComponentMetadata meta;
  auto name = r.String("name", Need::kRequired, 1);
  auto version = r.String("version", Need::kRequired, 1);
  r.RejectUnknown();
  if (version && version->rfind("image:", 0) == 0) {
    parent.context().Report(r.node().Find("version"), r.PathOf("version"),
                            "component version must be a release, package version, or source commit, not an "
                            "image reference");
    return std::nullopt;
  }
  if (!name || !version) return std::nullopt;
  meta.name = *name;
  meta.version = *version;
  meta.raw = ToJson(*node);
  return meta;
}

std::optional<KvOffloadBackend> ReadOffloadBackend(FieldReader& parent) {
  const YamlNode* node = parent.Get("kv-offload-backend");
  if (node == nullptr || node->kind == YamlKind::kNull) return std::nullopt;
  FieldReader r(parent.context(), *node, parent.PathOf("kv-offload-backend"));
  if (!r.ok()) return std::nullopt;
  KvOffloadBackend backend;
  auto name = r.String("name", Need::kRequired, 1);
  backend.version = r.String("version", Need::kOptional, 1);
  r.RejectUnknown();
  if (backend.version && backend.version->rfind("image:", 0) == 0) {
    parent.context().Report(r.node().Find("version"), r.PathOf("version"),
                            "component version must be a release, package version, or source commit, not an "
                            "image reference");
    return std::nullopt;
  }
  if (!name) return std::nullopt;
  backend.name = *name;
  backend.raw = ToJson(*node);
  return backend;
}

// Reads pp/dcp-size/pcp-size (strict ints > 0, default 1) and checks tp % dcp-size.
struct Parallelism {
  std::int64_t pp = 1, dcp = 1, pcp = 1;
  bool written = false;
};

Parallelism ReadParallelism(FieldReader& r) {
  Parallelism p;
  p.written =
      r.node().Find("pp") != nullptr || r.node().Find("dcp-size") != nullptr || r.node().Find("pcp-size") != nullptr;
  p.pp = r.Int("pp", Need::kDefaulted, 1).value_or(1);
  p.dcp = r.Int("dcp-size", Need::kDefaulted, 1).value_or(1);
  p.pcp = r.Int("pcp-size", Need::kDefaulted, 1).value_or(1);
  return p;
}

bool CheckTpDcp(const ReadContext& ctx, const YamlNode& node, const std::string& path, std::int64_t tp,
                std::int64_t dcp) {
  if (tp % dcp == 0) return true;
  ctx.Report(&node, JoinPath(path, "tp"),
             "'tp' (" + std::to_string(tp) + ") must be divisible by 'dcp-size' (" + std::to_string(dcp) + ")");
  return false;
}

std::optional<WorkerConfig> ReadWorker(FieldReader& parent, std::string_view key, Need need) {
  const YamlNode* node = parent.Get(key);
  if (node == nullptr || (node->kind == YamlKind::kNull && need == Need::kOptional)) {
    if (node == nullptr && need == Need::kRequired)
      parent.context().Report(&parent.node(), parent.PathOf(key), "field required");
    return std::nullopt;
  }
  const ProblemCount count{*parent.context().problems};
  FieldReader r(parent.context(), *node, parent.PathOf(key));
  if (!r.ok()) return std::nullopt;
  WorkerConfig w;
  auto num_worker = r.Int("num-worker", Need::kRequired);
  auto tp = r.Int("tp", Need::kRequired);
  auto ep = r.Int("ep", Need::kRequired);
  auto dp_attn = r.Bool("dp-attn", Need::kRequired);
  const Parallelism par = ReadParallelism(r);
  w.hardware = r.String("hardware", Need::kOptional, 1);
  w.additional_settings = r.StringList("additional-settings", Need::kOptional).value_or(std::vector<std::string>{});
  r.RejectUnknown();
  if (!count.Clean()) return std::nullopt;
  w.num_worker = *num_worker;
  w.tp = *tp;
  w.ep = *ep;
  w.dp_attn = *dp_attn;
  w.pp = par.pp;
  w.dcp_size = par.dcp;
  w.pcp_size = par.pcp;
  if (!CheckTpDcp(parent.context(), *node, r.PathOf(""), w.tp, w.dcp_size)) return std::nullopt;
  w.raw = ToJson(*node);
  return w;
}

// `_validate_conc_fields`: exactly one of a (start, end) range or a non-empty list.
void ReadConcurrency(FieldReader& r, SearchSpaceEntry& e, bool& valid) {
  e.conc.start = r.Int("conc-start", Need::kOptional);
  e.conc.end = r.Int("conc-end", Need::kOptional);
  e.conc.list = r.IntList("conc-list", Need::kOptional);
  e.conc_list_written = e.conc.list.has_value();
  const YamlNode* list_node = r.node().Find("conc-list");
  if ((e.conc.start == std::nullopt && r.node().Find("conc-start") != nullptr &&
       r.node().Find("conc-start")->kind != YamlKind::kNull) ||
      (e.conc.end == std::nullopt && r.node().Find("conc-end") != nullptr &&
       r.node().Find("conc-end")->kind != YamlKind::kNull) ||
      (list_node != nullptr && list_node->kind != YamlKind::kNull && !e.conc.list)) {
    valid = false;  // a type error was already reported
    return;
  }
  const bool has_range = e.conc.start && e.conc.end;
  const bool has_list = e.conc.IsList();
  const ReadContext& ctx = r.context();
  if (has_range && has_list) {
    ctx.Report(list_node, r.PathOf("conc-list"),
               "Cannot specify both 'conc-list' list and 'conc-start'/'conc-end'. Use either a list or a range, not "
               "both.");
    valid = false;
  } else if (!has_range && !has_list) {
    ctx.Report(&r.node(), r.PathOf(""), "Must specify either 'conc-list' list or both 'conc-start' and 'conc-end'.");
    valid = false;
  } else if (has_range) {
    if (*e.conc.start <= 0 || *e.conc.end <= 0) {
      ctx.Report(r.node().Find("conc-start"), r.PathOf("conc-start"),
                 "Input 'conc-start' and 'conc-end' must be greater than 0.");
      valid = false;
    } else if (*e.conc.start > *e.conc.end) {
      ctx.Report(r.node().Find("conc-start"), r.PathOf("conc-start"),
                 "'conc-start' (" + std::to_string(*e.conc.start) + ") must be <= 'conc-end' (" +
                     std::to_string(*e.conc.end) + ").");
      valid = false;
    }
  } else if (std::any_of(e.conc.list->begin(), e.conc.list->end(), [](std::int64_t c) { return c <= 0; })) {
    ctx.Report(list_node, r.PathOf("conc-list"), "Input 'conc-list' entries must be greater than 0.");
    valid = false;
  }
}

void ReadComponents(FieldReader& r, SearchSpaceEntry& e, bool allow_transfer) {
  e.router_written = r.node().Find("router") != nullptr;
  e.router = ReadComponent(r, "router");
  if (allow_transfer) {
    e.kv_p2p_transfer_written = r.node().Find("kv-p2p-transfer") != nullptr;
    e.kv_p2p_transfer = r.String("kv-p2p-transfer", Need::kOptional, 1);
  }
}

bool CheckHardwarePair(const ReadContext& ctx, const YamlNode& node, const std::string& path,
                       const SearchSpaceEntry& e) {
  const bool p = e.prefill && e.prefill->hardware && !e.prefill->hardware->empty();
  const bool d = e.decode && e.decode->hardware && !e.decode->hardware->empty();
  if (p == d) return true;
  ctx.Report(&node, JoinPath(path, "prefill.hardware"),
             "'hardware' must be specified for both 'prefill' and 'decode', or neither");
  return false;
}

SearchSpaceEntry ReadSingleNodeEntry(const ReadContext& ctx, const YamlNode& node, const std::string& path) {
  SearchSpaceEntry e;
  e.mark = {*ctx.file, node.line, node.column};
  const ProblemCount count{*ctx.problems};
  FieldReader r(ctx, node, path);
  if (!r.ok()) return e;
  e.tp = r.Int("tp", Need::kRequired);
  const Parallelism par = ReadParallelism(r);
  e.pp = par.pp;
  e.dcp_size = par.dcp;
  e.pcp_size = par.pcp;
  e.sets_parallelism = par.written;
  e.ep = r.Int("ep", Need::kOptional);
  e.spec_decoding = r.Choice("spec-decoding", Need::kDefaulted, kSpecDecoding).value_or("none");
  e.dp_attn = r.Bool("dp-attn", Need::kOptional);
  ReadComponents(r, e, false);
  bool valid = true;
  ReadConcurrency(r, e, valid);
  r.RejectUnknown();
  if (count.Clean() && e.tp) CheckTpDcp(ctx, node, path, *e.tp, e.dcp_size);
  return e;
}

SearchSpaceEntry ReadMultiNodeEntry(const ReadContext& ctx, const YamlNode& node, const std::string& path) {
  SearchSpaceEntry e;
  e.mark = {*ctx.file, node.line, node.column};
  const ProblemCount count{*ctx.problems};
  FieldReader r(ctx, node, path);
  if (!r.ok()) return e;
  e.spec_decoding = r.Choice("spec-decoding", Need::kDefaulted, kSpecDecoding).value_or("none");
  e.prefill = ReadWorker(r, "prefill", Need::kRequired);
  e.decode = ReadWorker(r, "decode", Need::kRequired);
  ReadComponents(r, e, true);
  bool valid = true;
  ReadConcurrency(r, e, valid);
  r.RejectUnknown();
  if (count.Clean()) CheckHardwarePair(ctx, node, path, e);
  return e;
}

SearchSpaceEntry ReadAgenticEntry(const ReadContext& ctx, const YamlNode& node, const std::string& path) {
  SearchSpaceEntry e;
  e.mark = {*ctx.file, node.line, node.column};
  const ProblemCount count{*ctx.problems};
  FieldReader r(ctx, node, path);
  if (!r.ok()) return e;
  e.tp = r.Int("tp", Need::kOptional);
  const Parallelism par = ReadParallelism(r);
  e.pp = par.pp;
  e.dcp_size = par.dcp;
  e.pcp_size = par.pcp;
  e.sets_parallelism = par.written;
  e.ep = r.Int("ep", Need::kOptional);
  e.dp_attn = r.Bool("dp-attn", Need::kOptional);
  e.spec_decoding = r.Choice("spec-decoding", Need::kDefaulted, kSpecDecoding).value_or("none");
  e.prefill = ReadWorker(r, "prefill", Need::kOptional);
  e.decode = ReadWorker(r, "decode", Need::kOptional);
  e.kv_offloading = r.Choice("kv-offloading", Need::kOptional, kKvOffloading);
  e.kv_offload_backend = ReadOffloadBackend(r);
  if (const YamlNode* h = r.node().Find("hicache-ratio"); h != nullptr && h->kind != YamlKind::kNull) {
    e.hicache_ratio = r.Float("hicache-ratio", Need::kOptional);
    if (e.hicache_ratio && !(*e.hicache_ratio > 0)) {  // NaN fails too, as pydantic's gt=0 does
      ctx.Report(h, r.PathOf("hicache-ratio"), "must be greater than 0");
      e.hicache_ratio.reset();
    }
    if (e.hicache_ratio) e.hicache_ratio_raw = ToJson(*h);
  } else {
    r.Get("hicache-ratio");
  }
  ReadComponents(r, e, true);
  bool valid = true;
  ReadConcurrency(r, e, valid);
  r.RejectUnknown();
  if (!count.Clean()) return e;
  // Model validators, in the reference's order; the first failure stops the rest.
  const bool has_backend = e.kv_offload_backend.has_value();
  if (!e.kv_offloading && has_backend) {
    ctx.Report(&node, r.PathOf("kv-offload-backend"), "kv-offload-backend requires kv-offloading");
    return e;
  }
  if (e.kv_offloading == "none" && has_backend) {
    ctx.Report(&node, r.PathOf("kv-offload-backend"),
               "kv-offload-backend can only be set when kv-offloading is not 'none'");
    return e;
  }
  if (e.kv_offloading && *e.kv_offloading != "none" && !has_backend) {
    ctx.Report(&node, r.PathOf("kv-offload-backend"),
               "kv-offload-backend is required when kv-offloading is '" + *e.kv_offloading + "'");
    return e;
  }
  const bool single = e.tp.has_value();
  const bool any_multi = e.prefill.has_value() || e.decode.has_value();
  const bool full_multi = e.prefill.has_value() && e.decode.has_value();
  if (single ? any_multi : !full_multi) {
    ctx.Report(&node, path, "Agentic search-space entries must specify either tp or both prefill and decode");
    return e;
  }
  if (single) {
    if (!e.kv_offloading) {
      ctx.Report(&node, r.PathOf("kv-offloading"),
                 "Single-node agentic search-space entries must specify kv-offloading");
      return e;
    }
    CheckTpDcp(ctx, node, path, *e.tp, e.dcp_size);
    return e;
  }
  if (e.sets_parallelism) {
    ctx.Report(&node, path, "Multinode agentic search-space entries cannot specify 'pp', 'dcp-size', 'pcp-size'");
    return e;
  }
  CheckHardwarePair(ctx, node, path, e);
  return e;
}

void ReadScenarios(const ReadContext& ctx, FieldReader& top, MasterEntry& entry) {
  const YamlNode* node = top.Mapping("scenarios", Need::kRequired);
  if (node == nullptr) return;
  FieldReader r(ctx, *node, "scenarios");
  if (const YamlNode* fixed = r.List("fixed-seq-len", Need::kOptional)) {
    for (std::size_t i = 0; i < fixed->items.size(); ++i) {
      const std::string path = Index("scenarios.fixed-seq-len", i);
      FieldReader s(ctx, fixed->items[i], path);
      if (!s.ok()) continue;
      SeqLenConfig seq;
      seq.isl = s.Int("isl", Need::kRequired).value_or(0);
      seq.osl = s.Int("osl", Need::kRequired).value_or(0);
      if (const YamlNode* space = s.List("search-space", Need::kRequired)) {
        for (std::size_t j = 0; j < space->items.size(); ++j) {
          const std::string entry_path = Index(JoinPath(path, "search-space"), j);
          seq.search_space.push_back(entry.multinode ? ReadMultiNodeEntry(ctx, space->items[j], entry_path)
                                                     : ReadSingleNodeEntry(ctx, space->items[j], entry_path));
        }
      }
      s.RejectUnknown();
      entry.fixed_seq_len.push_back(std::move(seq));
    }
  }
  if (const YamlNode* agentic = r.List("agentic-coding", Need::kOptional)) {
    for (std::size_t i = 0; i < agentic->items.size(); ++i) {
      const std::string path = Index("scenarios.agentic-coding", i);
      FieldReader s(ctx, agentic->items[i], path);
      if (!s.ok()) continue;
      AgenticConfig config;
      const ProblemCount count{*ctx.problems};
      if (const YamlNode* util = s.node().Find("dram-utilization"); util != nullptr && util->kind != YamlKind::kNull) {
        config.dram_utilization = s.Float("dram-utilization", Need::kOptional);
        // Written so that NaN fails too, as pydantic's gt=0, le=1 does.
        if (config.dram_utilization && !(*config.dram_utilization > 0 && *config.dram_utilization <= 1)) {
          ctx.Report(util, s.PathOf("dram-utilization"), "must be greater than 0 and at most 1");
          config.dram_utilization.reset();
        }
      } else {
        s.Get("dram-utilization");
      }
      if (const YamlNode* space = s.List("search-space", Need::kRequired)) {
        for (std::size_t j = 0; j < space->items.size(); ++j) {
          config.search_space.push_back(
              ReadAgenticEntry(ctx, space->items[j], Index(JoinPath(path, "search-space"), j)));
        }
      }
      s.RejectUnknown();
      if (count.Clean()) {
        for (const auto& e : config.search_space) {
          if (e.kv_offloading == "dram" && !config.dram_utilization) {
            ctx.Report(&agentic->items[i], s.PathOf("dram-utilization"),
                       "kv-offloading='dram' requires dram-utilization with runner hardware metadata");
            break;
          }
        }
      }
      entry.agentic_coding.push_back(std::move(config));
    }
  }
  r.RejectUnknown();
  if (r.ok() && entry.fixed_seq_len.empty() && entry.agentic_coding.empty()) {
    ctx.Report(node, "scenarios", "At least one scenario type must be specified");
  }
}

// `_validate_component_metadata_scope` and the agentic runner rule (entry-level validators).
void CheckEntryRules(const ReadContext& ctx, const YamlNode& node, const MasterEntry& entry) {
  std::vector<const SearchSpaceEntry*> all;
  for (const auto& seq : entry.fixed_seq_len) {
    for (const auto& e : seq.search_space) all.push_back(&e);
  }
  for (const auto& ag : entry.agentic_coding) {
    for (const auto& e : ag.search_space) all.push_back(&e);
  }
  if (!entry.agentic_coding.empty() && entry.runner.rfind(kClusterPrefix, 0) != 0) {
    ctx.Report(node.Find("runner"), "runner",
               "Agentic master configs must use a 'cluster:<name>' runner so every point runs on one exact hardware "
               "fleet.");
    return;
  }
  const bool entry_router = std::any_of(all.begin(), all.end(), [](auto* e) { return e->router.has_value(); });
  if (entry.router && entry_router) {
    ctx.Report(node.Find("router"), "router",
               "router must be declared either at the top level or in search-space entries, not both");
    return;
  }
  const bool entry_transfer =
      std::any_of(all.begin(), all.end(), [](auto* e) { return e->kv_p2p_transfer.has_value(); });
  if (entry.kv_p2p_transfer && entry_transfer) {
    ctx.Report(node.Find("kv-p2p-transfer"), "kv-p2p-transfer",
               "kv-p2p-transfer must be declared either at the top level or in search-space entries, not both");
    return;
  }
  if (!entry.multinode && entry_transfer) {
    ctx.Report(&node, "kv-p2p-transfer", "kv-p2p-transfer is only valid when multinode=true");
    return;
  }
  if (entry.disagg && !entry.kv_p2p_transfer &&
      (all.empty() || std::any_of(all.begin(), all.end(), [](auto* e) { return !e->kv_p2p_transfer; }))) {
    ctx.Report(node.Find("disagg"), "disagg",
               "disagg=true requires kv-p2p-transfer at the top level or in every search-space entry");
  }
}

void ReadEntry(const ReadContext& ctx, const YamlNode& key, const YamlNode& node, MasterEntry& entry) {
  const ProblemCount count{*ctx.problems};
  FieldReader r(ctx, node, "");
  if (!r.ok()) return;
  // The reference dispatches on the truthiness of `multinode`; a non-boolean is reported below.
  const YamlNode* multinode = node.Find("multinode");
  entry.multinode = multinode != nullptr && multinode->kind == YamlKind::kBool && multinode->bool_value;
  entry.image = r.String("image", Need::kRequired).value_or("");
  entry.model = r.String("model", Need::kRequired).value_or("");
  entry.model_prefix = r.String("model-prefix", Need::kRequired).value_or("");
  entry.precision = r.String("precision", Need::kRequired).value_or("");
  entry.framework = r.String("framework", Need::kRequired).value_or("");
  entry.runner = r.String("runner", Need::kRequired).value_or("");
  r.Bool("multinode", Need::kRequired);
  const auto disagg = r.Bool("disagg", Need::kDefaulted);
  entry.disagg = disagg.value_or(false);
  if (!entry.multinode && entry.disagg) {
    ctx.Report(node.Find("disagg"), "disagg",
               "must be false for a single-node entry (disaggregated serving needs multinode: true)");
  }
  entry.router = ReadComponent(r, "router");
  if (entry.multinode) entry.kv_p2p_transfer = r.String("kv-p2p-transfer", Need::kOptional, 1);
  ReadScenarios(ctx, r, entry);
  r.RejectUnknown();
  (void)key;
  if (count.Clean()) CheckEntryRules(ctx, node, entry);
}

}  // namespace

MasterCatalog ReadMasterConfig(const YamlDocument& doc, std::vector<Diagnostic>& problems) {
  MasterCatalog catalog;
  catalog.files.push_back(doc.file);
  if (doc.root.kind != YamlKind::kMapping) {
    problems.push_back(Diagnostic{
        DocumentMark(doc), "", "",
        "a master config file must contain a mapping of config keys, got " + std::string(doc.root.TypeName())});
    return catalog;
  }
  for (const auto& [key, value] : doc.root.entries) {
    if (key.kind != YamlKind::kString) {
      problems.push_back(Diagnostic{{doc.file, key.line, key.column},
                                    key.text,
                                    "",
                                    "config keys must be strings, got " + std::string(key.TypeName())});
      continue;
    }
    ReadContext ctx{&doc.file, key.text, &problems};
    if (key.text.find('*') != std::string::npos) {
      ctx.Report(&key, "", "Wildcard '*' is not allowed in master config keys (reserved for changelog globs)");
    }
    MasterEntry entry;
    entry.key = key.text;
    entry.file = doc.file;
    entry.mark = {doc.file, key.line, key.column};
    ReadEntry(ctx, key, value, entry);
    catalog.entries.push_back(std::move(entry));
  }
  return catalog;
}

void MergeCatalog(MasterCatalog& merged, MasterCatalog next, std::vector<Diagnostic>& problems) {
  std::vector<std::string> duplicates;
  const std::string file = next.files.empty() ? std::string() : next.files.front();
  for (const auto& entry : next.entries) {
    if (const MasterEntry* earlier = merged.Find(entry.key)) {
      duplicates.push_back(entry.key);
      problems.push_back(Diagnostic{entry.mark, entry.key, "",
                                    "duplicate configuration key: already defined in " + earlier->mark.file + ":" +
                                        std::to_string(earlier->mark.line)});
    }
  }
  if (!duplicates.empty()) return;
  for (auto& f : next.files) merged.files.push_back(std::move(f));
  for (auto& entry : next.entries) merged.entries.push_back(std::move(entry));
}

}  // namespace infermark::catalog
