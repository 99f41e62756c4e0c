#include "matrix/changelog_sweep.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "core/diagnostic.hpp"
#include "core/sha256.hpp"
#include "core/subprocess.hpp"
#include "matrix/generator.hpp"

namespace infermark::matrix {
namespace {

const std::vector<std::string> kScenarioTypes = {"fixed-seq-len", "agentic-coding"};

// `*` matches any run of characters; everything else is literal (the changelog's glob rule).
bool StarMatch(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::vector<std::string> ResolveKeys(const catalog::ChangelogEntry& entry, const catalog::MasterCatalog& catalog) {
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (const auto& key : entry.config_keys) {
    if (key.find('*') != std::string::npos) {
      bool matched = false;
      for (const auto& config : catalog.entries) {
        if (StarMatch(key, config.key)) {
          matched = true;
          if (seen.insert(config.key).second) keys.push_back(config.key);
        }
      }
      if (!matched) {
        throw InputError(Diagnostic{entry.mark, "", "config-keys",
                                    "No config keys matched the wildcard pattern '" + key + "' in master configs."});
      }
    } else if (catalog.Find(key) == nullptr) {
      throw InputError(
          Diagnostic{entry.mark, "", "config-keys", "Config key '" + key + "' not found in master configs."});
    } else if (seen.insert(key).second) {
      keys.push_back(key);
    }
  }
  return keys;
}

Json EntryToJson(const catalog::ChangelogEntry& e) {
  Json out = Json::object();
  out["config-keys"] = e.config_keys;
  out["description"] = e.description;
  out["pr-link"] = e.pr_link;
  out["evals-only"] = e.evals_only;
  out["all-evals"] = e.all_evals;
  out["append-only"] = e.append_only;
  if (e.eval_min_prefill_ep) out["eval-min-prefill-ep"] = *e.eval_min_prefill_ep;
  if (e.scenario_type) out["scenario-type"] = *e.scenario_type;
  return out;
}

bool IsAgenticRow(const Json& row) {
  auto it = row.find("scenario-type");
  return it != row.end() && *it == "agentic-coding";
}

bool HasPrefill(const Json& row) {
  auto it = row.find("prefill");
  return it != row.end() && !it->is_null();
}

// Copies `keys` from `row` in that order, skipping absent or null ones.
void CopyOrdered(Json& out, const Json& row, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    auto it = row.find(key);
    if (it != row.end() && !it->is_null()) out[key] = *it;
  }
}

Json WorkerModelOrder(const Json& worker) {
  Json out = Json::object();
  CopyOrdered(out, worker, {"num-worker", "tp", "pp", "dcp-size", "pcp-size", "ep", "dp-attn", "hardware"});
  for (const char* key : {"pp", "dcp-size", "pcp-size"}) {
    if (!out.contains(key)) out[key] = 1;
  }
  auto settings = worker.find("additional-settings");
  out["additional-settings"] = settings != worker.end() ? *settings : Json::array();
  return out;
}

Json MetadataOrder(const Json& meta, std::initializer_list<const char*> keys) {
  Json out = Json::object();
  CopyOrdered(out, meta, keys);
  return out;
}

void Filter(std::vector<Json>& rows, std::optional<std::int64_t> min_prefill_ep) {
  if (!min_prefill_ep) return;
  std::erase_if(rows, [&](const Json& row) {
    auto prefill = row.find("prefill");
    if (prefill == row.end() || !prefill->is_object()) return false;
    auto ep = prefill->find("ep");
    if (ep == prefill->end()) return 1 < *min_prefill_ep;
    return !ep->is_number_integer() || ep->get<std::int64_t>() < *min_prefill_ep;
  });
}

std::vector<Json> Generate(const catalog::MasterCatalog& catalog, const catalog::RunnerConfig& runners,
                           const std::vector<std::string>& keys, const std::vector<std::string>& scenarios,
                           EvalOptions evals) {
  TestConfigOptions options;
  options.config_keys = keys;
  options.common.evals = evals;
  if (scenarios != kScenarioTypes) options.common.scenario_types = scenarios;
  return GenerateTestConfig(catalog, runners, options);
}

// (fingerprint, conc) of every fixed-sequence point of a row.
std::set<std::pair<std::string, std::int64_t>> Points(const std::vector<Json>& rows) {
  std::set<std::pair<std::string, std::int64_t>> points;
  for (const auto& row : rows) {
    if (IsAgenticRow(row)) continue;
    const std::string fp = RecipeFingerprint(row);
    const Json& conc = row.at("conc");
    if (conc.is_array()) {
      for (const auto& c : conc) points.emplace(fp, c.get<std::int64_t>());
    } else {
      points.emplace(fp, conc.get<std::int64_t>());
    }
  }
  return points;
}

// Append-only changes run only the points the base revision did not have, and may not drop any.
std::vector<Json> AppendOnlyDelta(std::vector<Json> head_rows, const std::vector<std::string>& keys,
                                  const catalog::MasterCatalog* base, const catalog::RunnerConfig& runners) {
  if (base == nullptr) {
    throw InputError(
        Diagnostic{SourceMark{}, "", "append-only", "append-only entries need the base revision's master configs"});
  }
  std::vector<std::string> base_keys;
  for (const auto& key : keys) {
    if (base->Find(key) != nullptr) base_keys.push_back(key);
  }
  TestConfigOptions options;
  options.config_keys = base_keys;
  options.common.evals.no_evals = true;
  const auto base_points =
      base_keys.empty() ? decltype(Points({})){} : Points(GenerateTestConfig(*base, runners, options));
  const auto head_points = Points(head_rows);
  for (const auto& point : base_points) {
    if (head_points.count(point) == 0) {
      throw InputError(Diagnostic{{},
                                  "",
                                  "append-only",
                                  "append-only change removes an existing point (recipe " + point.first.substr(0, 16) +
                                      ", conc " + std::to_string(point.second) + ")"});
    }
  }
  std::vector<Json> delta;
  for (auto& row : head_rows) {
    if (IsAgenticRow(row)) continue;
    const std::string fp = RecipeFingerprint(row);
    Json& conc = row.at("conc");
    if (conc.is_array()) {
      Json fresh = Json::array();
      for (const auto& c : conc) {
        if (base_points.count({fp, c.get<std::int64_t>()}) == 0) fresh.push_back(c);
      }
      if (fresh.empty()) continue;
      conc = std::move(fresh);
    } else if (base_points.count({fp, conc.get<std::int64_t>()}) != 0) {
      continue;
    }
    delta.push_back(std::move(row));
  }
  return delta;
}

}  // namespace

AddedLines ParseAddedLines(const std::string& diff, const std::string& file) {
  AddedLines added;
  int head_line = 0;
  bool in_hunk = false;
  std::size_t pos = 0;
  std::vector<std::string> lines;
  while (pos <= diff.size()) {
    const std::size_t end = std::min(diff.find('\n', pos), diff.size());
    const std::string line = diff.substr(pos, end - pos);
    pos = end + 1;
    if (line.rfind("@@", 0) == 0) {
      // @@ -a,b +c,d @@: the next head line is c.
      const std::size_t plus = line.find('+');
      head_line = plus == std::string::npos ? 0 : std::atoi(line.c_str() + plus + 1);
      in_hunk = true;
      continue;
    }
    if (!in_hunk || line.empty()) continue;
    if (line[0] == '-') {
      const std::string content = line.substr(1);
      if (content.find_first_not_of(" \t\r") != std::string::npos) {
        throw InputError(
            Diagnostic{{file, 0, 0},
                       "",
                       "",
                       "Deletions are not allowed in " + file +
                           ": only additions to the changelog are permitted. Found deleted line: " + content});
      }
    } else if (line[0] == '+') {
      lines.push_back(line.substr(1));
      added.head_line.push_back(head_line++);
    } else if (line[0] == ' ') {
      ++head_line;
    } else if (line[0] != '\\') {
      in_hunk = false;  // next file header
    }
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i != 0) added.text += '\n';
    added.text += lines[i];
  }
  if (added.text.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw InputError(Diagnostic{{file, 0, 0}, "", "", "No additions found in the changelog file."});
  }
  return added;
}

std::string GitDiff(const std::string& base_ref, const std::string& head_ref, const std::string& file,
                    const std::string& repo_dir) {
  const ProcessResult r = RunCapture({"git", "diff", base_ref, head_ref, "--", file}, repo_dir);
  if (r.exit_code != 0) {
    throw InputError(Diagnostic{{file, 0, 0}, "", "--base-ref/--head-ref", "git diff failed: " + r.err});
  }
  return r.out;
}

std::string GitShow(const std::string& rev, const std::string& path, const std::string& repo_dir) {
  const ProcessResult r = RunCapture({"git", "show", rev + ":" + path}, repo_dir);
  if (r.exit_code != 0) throw InputError(Diagnostic{{path, 0, 0}, "", "", "git show " + rev + " failed: " + r.err});
  return r.out;
}

std::string RecipeFingerprint(const Json& row) {
  Json copy = Json::object();
  for (const auto& [key, value] : row.items()) {
    if (key != "conc" && key != "exp-name" && key != "recipe-fingerprint") copy[key] = value;
  }
  return Sha256Hex(DumpJson(copy, kCanonicalJson));
}

Json ToModelOrder(const Json& row) {
  Json out = Json::object();
  Json src = row;
  if (auto prefill = src.find("prefill"); prefill != src.end() && prefill->is_object()) {
    src["prefill"] = WorkerModelOrder(*prefill);
    src["decode"] = WorkerModelOrder(src.at("decode"));
  }
  if (auto router = src.find("router"); router != src.end() && router->is_object()) {
    *router = MetadataOrder(*router, {"name", "version"});
  }
  if (auto backend = src.find("kv-offload-backend"); backend != src.end() && backend->is_object()) {
    *backend = MetadataOrder(*backend, {"name", "version"});
  }
  if (auto ratio = src.find("hicache-ratio"); ratio != src.end() && ratio->is_number()) {
    *ratio = ratio->get<double>();
  }
  const bool agentic = IsAgenticRow(src);
  const bool multi = HasPrefill(src);
  if (agentic && multi) {
    CopyOrdered(out, src,
                {"image",
                 "model",
                 "model-prefix",
                 "precision",
                 "framework",
                 "spec-decoding",
                 "runner",
                 "prefill",
                 "decode",
                 "conc",
                 "kv-offloading",
                 "kv-offload-backend",
                 "router",
                 "kv-p2p-transfer",
                 "total-cpu-dram-gb",
                 "duration",
                 "exp-name",
                 "disagg",
                 "scenario-type",
                 "run-eval",
                 "eval-only",
                 "eval-conc",
                 "recipe-fingerprint"});
  } else if (agentic) {
    CopyOrdered(out, src,
                {"image",
                 "model",
                 "model-prefix",
                 "precision",
                 "framework",
                 "runner",
                 "tp",
                 "pp",
                 "dcp-size",
                 "pcp-size",
                 "ep",
                 "dp-attn",
                 "spec-decoding",
                 "conc",
                 "kv-offloading",
                 "kv-offload-backend",
                 "hicache-ratio",
                 "router",
                 "total-cpu-dram-gb",
                 "duration",
                 "exp-name",
                 "scenario-type",
                 "run-eval",
                 "eval-only",
                 "recipe-fingerprint"});
  } else if (multi) {
    CopyOrdered(out, src,
                {"image", "model", "model-prefix", "precision", "framework", "spec-decoding", "runner", "isl", "osl",
                 "prefill", "decode", "conc", "max-model-len", "exp-name", "disagg", "run-eval"});
    out["eval-only"] = src.value("eval-only", false);
    CopyOrdered(out, src, {"eval-conc"});
    out["eval-all-concs"] = src.value("eval-all-concs", false);
    CopyOrdered(out, src, {"router", "kv-p2p-transfer", "recipe-fingerprint"});
  } else {
    CopyOrdered(out, src, {"image",
                           "model",
                           "model-prefix",
                           "precision",
                           "framework",
                           "spec-decoding",
                           "runner",
                           "isl",
                           "osl",
                           "tp",
                           "pp",
                           "dcp-size",
                           "pcp-size",
                           "ep",
                           "dp-attn",
                           "conc",
                           "max-model-len",
                           "exp-name",
                           "disagg",
                           "run-eval"});
    out["eval-only"] = src.value("eval-only", false);
    CopyOrdered(out, src, {"router", "recipe-fingerprint"});
  }
  return out;
}

std::vector<Json> TrimConc(std::vector<Json> rows) {
  std::map<std::string, std::vector<std::size_t>> groups;
  std::vector<std::string> group_order;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    Json& row = rows[i];
    if (HasPrefill(row)) {
      auto conc = row.find("conc");
      if (conc != row.end() && conc->is_array() && conc->size() > 1) {
        std::int64_t lowest = (*conc)[0].get<std::int64_t>();
        for (const auto& c : *conc) lowest = std::min(lowest, c.get<std::int64_t>());
        *conc = Json::array({lowest});
      }
      continue;
    }
    Json key = Json::object();
    for (const auto& [k, v] : row.items()) {
      if (k != "conc" && k != "exp-name") key[k] = v;
    }
    groups[DumpJson(key, kCanonicalJson)].push_back(i);
  }
  std::set<std::size_t> drop;
  for (const auto& [key, members] : groups) {
    if (members.size() < 2) continue;
    std::size_t keep = members.front();
    for (std::size_t i : members) {
      if (rows[i].at("conc") < rows[keep].at("conc")) keep = i;
    }
    for (std::size_t i : members) {
      if (i != keep) drop.insert(i);
    }
  }
  std::vector<Json> out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (drop.count(i) == 0) out.push_back(std::move(rows[i]));
  }
  return out;
}

Json ExpandChangelog(const std::vector<catalog::ChangelogEntry>& entries, const catalog::MasterCatalog& catalog,
                     const catalog::RunnerConfig& runners, const ChangelogOptions& options,
                     const catalog::MasterCatalog* base_catalog) {
  const auto append_only = std::count_if(entries.begin(), entries.end(), [](const auto& e) { return e.append_only; });
  if (append_only != 0 && static_cast<std::size_t>(append_only) != entries.size()) {
    throw InputError(Diagnostic{entries.front().mark, "", "append-only",
                                "append-only entries cannot share a sweep with entries that are not append-only"});
  }
  struct Resolved {
    const catalog::ChangelogEntry* entry;
    std::vector<std::string> keys;
  };
  std::vector<Resolved> resolved;
  for (const auto& entry : entries) resolved.push_back({&entry, ResolveKeys(entry, catalog)});
  // Entries expanding all evals go first, so their evals win the dedupe.
  std::stable_sort(resolved.begin(), resolved.end(),
                   [](const Resolved& a, const Resolved& b) { return a.entry->all_evals && !b.entry->all_evals; });

  auto resolved_keys = [&resolved] {
    std::vector<std::string> keys;
    for (const auto& r : resolved) keys.insert(keys.end(), r.keys.begin(), r.keys.end());
    return keys;
  };
  std::vector<Json> throughput;
  std::vector<Json> evals;
  std::map<std::string, std::set<std::string>> throughput_seen, eval_seen;
  // Groups configs by the scenarios not yet generated for them, keeping first-seen group order.
  auto group_unseen = [](const std::vector<std::string>& keys, const std::vector<std::string>& scenarios,
                         std::map<std::string, std::set<std::string>>& seen) {
    std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> groups;
    for (const auto& key : keys) {
      std::vector<std::string> unseen;
      for (const auto& s : kScenarioTypes) {
        if (std::count(scenarios.begin(), scenarios.end(), s) && seen[key].count(s) == 0) unseen.push_back(s);
      }
      if (unseen.empty()) continue;
      seen[key].insert(unseen.begin(), unseen.end());
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == unseen; });
      if (it == groups.end()) {
        groups.push_back({unseen, {key}});
      } else {
        it->second.push_back(key);
      }
    }
    return groups;
  };

  for (const auto& [entry, keys] : resolved) {
    const std::vector<std::string> scenarios = entry->scenario_type.value_or(kScenarioTypes);
    const bool expand_all = options.all_evals || entry->all_evals;
    const bool suppress = options.evals_only || entry->evals_only || entry->all_evals;
    if (!suppress) {
      for (const auto& [group_scenarios, group_keys] : group_unseen(keys, scenarios, throughput_seen)) {
        auto rows = Generate(catalog, runners, group_keys, group_scenarios, EvalOptions{true, false, false});
        for (auto& row : rows) {
          if (!IsAgenticRow(row)) row["recipe-fingerprint"] = RecipeFingerprint(row);
          throughput.push_back(std::move(row));
        }
      }
    }
    for (const auto& [group_scenarios, group_keys] : group_unseen(keys, scenarios, eval_seen)) {
      auto rows = Generate(catalog, runners, group_keys, group_scenarios, EvalOptions{false, true, expand_all});
      Filter(rows, entry->eval_min_prefill_ep);
      for (auto& row : rows) evals.push_back(std::move(row));
    }
  }
  if (append_only != 0) throughput = AppendOnlyDelta(std::move(throughput), resolved_keys(), base_catalog, runners);
  if (options.trim_conc) throughput = TrimConc(std::move(throughput));

  Json single = Json::object();
  Json multi = Json::object();
  for (const auto& row : throughput) {
    Json& bucket = HasPrefill(row) ? multi : single;
    const std::string name = IsAgenticRow(row)
                                 ? "agentic"
                                 : SeqLenName(row.at("isl").get<std::int64_t>(), row.at("osl").get<std::int64_t>());
    if (!bucket.contains(name)) bucket[name] = Json::array();
    bucket[name].push_back(ToModelOrder(row));
  }
  Json doc = Json::object();
  doc["single_node"] = std::move(single);
  doc["multi_node"] = std::move(multi);
  for (const char* name : {"evals", "agentic_evals", "multinode_evals", "multinode_agentic_evals"}) {
    doc[name] = Json::array();
  }
  for (const auto& row : evals) {
    const bool agentic = IsAgenticRow(row);
    const char* name = HasPrefill(row) ? (agentic ? "multinode_agentic_evals" : "multinode_evals")
                                       : (agentic ? "agentic_evals" : "evals");
    doc[name].push_back(ToModelOrder(row));
  }
  Json metadata = Json::object();
  metadata["base_ref"] = options.base_ref;
  metadata["head_ref"] = options.head_ref;
  metadata["entries"] = Json::array();
  for (const auto& entry : entries) metadata["entries"].push_back(EntryToJson(entry));
  doc["changelog_metadata"] = std::move(metadata);
  return doc;
}

}  // namespace infermark::matrix
