#include "matrix/generator.hpp"

#include <algorithm>
#include <set>

#include "core/diagnostic.hpp"
#include "core/parallel_chunks.hpp"
#include "matrix/eval_marking.hpp"
#include "matrix/key_glob.hpp"
#include "matrix/row_builder.hpp"

namespace infermark::matrix {
namespace {

using catalog::MasterEntry;
using catalog::SearchSpaceEntry;

bool Contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

std::optional<std::pair<std::int64_t, std::int64_t>> SeqLenValue(const std::string& name) {
  if (name == "1k1k") return std::pair<std::int64_t, std::int64_t>{1024, 1024};
  if (name == "8k1k") return std::pair<std::int64_t, std::int64_t>{8192, 1024};
  return std::nullopt;
}

std::set<std::pair<std::int64_t, std::int64_t>> SeqLenFilter(const std::vector<std::string>& names) {
  std::set<std::pair<std::int64_t, std::int64_t>> out;
  for (const auto& name : names) {
    const auto value = SeqLenValue(name);
    if (!value)
      throw InputError(
          Diagnostic{SourceMark{}, "", "--seq-lens", "invalid choice '" + name + "' (choose from 1k1k, 8k1k)"});
    out.insert(*value);
  }
  return out;
}

// --runner-node-filter; an empty value filters nothing, as the reference tests it for truth.
const std::optional<std::string>& NodeFilter(const CommonOptions& common) {
  static const std::optional<std::string> kNone;
  return common.runner_node_filter && !common.runner_node_filter->empty() ? common.runner_node_filter : kNone;
}

bool WantScenario(const std::vector<std::string>& types, const char* type) {
  return types.empty() || Contains(types, type);
}

std::vector<std::int64_t> PointConcs(const SearchSpaceEntry& point, std::int64_t step) {
  if (point.conc.IsList()) return *point.conc.list;
  return ExpandConcurrency(point.conc.start.value_or(1), point.conc.end.value_or(0), step);
}

// Multi-node concurrency filters of full-sweep (plain filtering; an empty max filter yields [max]).
std::optional<std::vector<std::int64_t>> FilterMultiNode(std::vector<std::int64_t> values, const FullSweepOptions& o) {
  if (o.min_conc) {
    if (*o.min_conc <= 0) return std::nullopt;
    std::erase_if(values, [&](std::int64_t c) { return c < *o.min_conc; });
    if (values.empty()) return std::nullopt;
  }
  if (o.max_conc) {
    std::vector<std::int64_t> kept;
    for (std::int64_t c : values) {
      if (c <= *o.max_conc) kept.push_back(c);
    }
    if (kept.empty()) {
      if (*o.max_conc <= 0) return std::nullopt;
      kept = {*o.max_conc};
    }
    values = std::move(kept);
  }
  return values;
}

// Single-node concurrency filters of full-sweep: lists are filtered, ranges are clamped first.
std::optional<std::vector<std::int64_t>> FilterSingleNode(const SearchSpaceEntry& point, const FullSweepOptions& o) {
  if (point.conc.IsList()) {
    std::vector<std::int64_t> values = *point.conc.list;
    if (o.min_conc) {
      if (*o.min_conc <= 0) return std::nullopt;
      std::erase_if(values, [&](std::int64_t c) { return c < *o.min_conc; });
      if (values.empty()) return std::nullopt;
    }
    if (o.max_conc) {
      if (*o.max_conc <= 0) return std::nullopt;
      std::vector<std::int64_t> kept;
      for (std::int64_t c : values) {
        if (c <= *o.max_conc) kept.push_back(c);
      }
      values = kept.empty() ? std::vector<std::int64_t>{*o.max_conc} : kept;
    }
    return values;
  }
  std::int64_t start = point.conc.start.value_or(1);
  std::int64_t end = point.conc.end.value_or(0);
  if (o.min_conc) {
    if (*o.min_conc <= 0 || end < *o.min_conc) return std::nullopt;
    start = std::max(start, *o.min_conc);
  }
  if (o.max_conc) {
    if (*o.max_conc <= 0) return std::nullopt;
    if (start > *o.max_conc) {
      start = end = *o.max_conc;
    } else {
      end = std::min(end, *o.max_conc);
    }
  }
  return ExpandConcurrency(start, end, o.step_size);
}

std::string AvailableKeys(const catalog::MasterCatalog& catalog) {
  std::vector<std::string> keys;
  for (const auto& e : catalog.entries) keys.push_back(e.key);
  std::sort(keys.begin(), keys.end());
  std::string out;
  for (const auto& k : keys) out += (out.empty() ? "" : ", ") + k;
  return out;
}

void CheckFullSweepOptions(const catalog::RunnerConfig& runners, const FullSweepOptions& o) {
  if (o.step_size <= 1) throw InputError(Diagnostic{SourceMark{}, "", "--step-size", "must be greater than 1"});
  if (o.min_conc && o.max_conc && *o.min_conc > *o.max_conc) {
    throw InputError(Diagnostic{SourceMark{}, "", "--min-conc", "must be less than or equal to --max-conc"});
  }
  std::vector<std::string> invalid;
  for (const auto& type : o.runner_type) {
    if (runners.Find(type) == nullptr) invalid.push_back(type);
  }
  if (!invalid.empty()) {
    std::vector<std::string> valid;
    for (const auto& [label, names] : runners.labels) valid.push_back(label);
    std::sort(valid.begin(), valid.end());
    std::string bad, good;
    for (const auto& s : invalid) bad += (bad.empty() ? "" : ", ") + s;
    for (const auto& s : valid) good += (good.empty() ? "" : ", ") + s;
    throw InputError(Diagnostic{{runners.file, 0, 0},
                                "",
                                "--runner-type",
                                "invalid runner type(s): " + bad + ". Valid runner types are: " + good});
  }
}

}  // namespace

std::vector<std::int64_t> ExpandConcurrency(std::int64_t start, std::int64_t end, std::int64_t step) {
  std::vector<std::int64_t> values;
  for (std::int64_t c = start; c <= end;) {
    values.push_back(c);
    if (c == end) break;
    if (__builtin_mul_overflow(c, step, &c) || c > end) c = end;
  }
  return values;
}

std::string SeqLenName(std::int64_t isl, std::int64_t osl) {
  if (isl == 1024 && osl == 1024) return "1k1k";
  if (isl == 8192 && osl == 1024) return "8k1k";
  return std::to_string(isl) + "_" + std::to_string(osl);
}

std::vector<std::string> ExpandConfigKeys(const std::vector<std::string>& patterns,
                                          const catalog::MasterCatalog& catalog) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& key) {
    if (seen.insert(key).second) out.push_back(key);
  };
  for (const auto& pattern : patterns) {
    if (pattern.find_first_of("*?") != std::string::npos) {
      bool matched = false;
      for (const auto& entry : catalog.entries) {
        if (MatchKeyGlob(pattern, entry.key)) {
          add(entry.key);
          matched = true;
        }
      }
      if (!matched) {
        throw InputError(
            Diagnostic{{},
                       "",
                       "--config-keys",
                       "pattern '" + pattern + "' matched no config keys. Available keys: " + AvailableKeys(catalog)});
      }
    } else {
      if (catalog.Find(pattern) == nullptr) {
        throw InputError(
            Diagnostic{{},
                       "",
                       "--config-keys",
                       "config key not found: " + pattern + ". Available keys: " + AvailableKeys(catalog)});
      }
      add(pattern);
    }
  }
  return out;
}

namespace {

// The rows full-sweep makes of one config entry, appended to `rows`.
void AppendFullSweepRows(const MasterEntry& config, const catalog::RunnerConfig& runners,
                         const FullSweepOptions& options,
                         const std::set<std::pair<std::int64_t, std::int64_t>>& seq_filter, std::vector<Json>& rows) {
  const bool single = options.single_node || !options.multi_node;
  const bool multi = options.multi_node || !options.single_node;
  const auto& scenario_types = options.common.scenario_types;
  if (!options.model_prefix.empty() &&
      std::none_of(options.model_prefix.begin(), options.model_prefix.end(),
                   [&](const std::string& p) { return config.key.rfind(p, 0) == 0; })) {
    return;
  }
  if (!options.precision.empty() && !Contains(options.precision, config.precision)) return;
  if (!options.framework.empty() && !Contains(options.framework, config.framework)) return;
  if (!options.runner_type.empty() && !Contains(options.runner_type, config.runner)) return;

  std::vector<std::string> runner_values = {config.runner};
  if (const auto& filter = NodeFilter(options.common)) {
    runner_values.clear();
    if (const auto* nodes = runners.Find(config.runner)) {
      for (const auto& node : *nodes) {
        if (node.find(*filter) != std::string::npos) runner_values.push_back(node);
      }
    }
    if (runner_values.empty()) return;
  }

  if (WantScenario(scenario_types, "fixed-seq-len")) {
    for (const auto& seq : config.fixed_seq_len) {
      if (!seq_filter.empty() && seq_filter.count({seq.isl, seq.osl}) == 0) continue;
      for (const SearchSpaceEntry& point : seq.search_space) {
        if (config.multinode ? !multi : !single) continue;
        if (config.multinode) {
          const auto concs = FilterMultiNode(PointConcs(point, options.step_size), options);
          if (!concs) continue;
          for (const auto& runner : runner_values) {
            rows.push_back(MultiNodeRow(config, runner, seq.isl, seq.osl, point, *concs));
          }
          continue;
        }
        if (options.max_tp && (*options.max_tp <= 0 || point.tp.value_or(0) > *options.max_tp)) continue;
        std::optional<std::int64_t> ep = point.ep;
        if (options.max_ep) {
          if (*options.max_ep <= 0) continue;
          if (ep && *ep > *options.max_ep) ep = *options.max_ep;
        }
        const auto concs = FilterSingleNode(point, options);
        if (!concs) continue;
        for (std::int64_t conc : *concs) {
          for (const auto& runner : runner_values) {
            rows.push_back(SingleNodeRow(config, runner, seq.isl, seq.osl, point, conc, ep));
          }
        }
      }
    }
  }

  if (!WantScenario(scenario_types, "agentic-coding")) return;
  if (config.multinode ? !multi : !single) return;
  for (const auto& scenario : config.agentic_coding) {
    for (const SearchSpaceEntry& point : scenario.search_space) {
      std::vector<std::int64_t> concs = PointConcs(point, options.step_size);
      if (options.min_conc) std::erase_if(concs, [&](std::int64_t c) { return c < *options.min_conc; });
      if (options.max_conc) std::erase_if(concs, [&](std::int64_t c) { return c > *options.max_conc; });
      if (concs.empty()) continue;
      AppendAgenticRows(config, runners, scenario, point, concs, runner_values, rows);
    }
  }
}

// Config entries per thread below which splitting the catalog costs more than it saves.
constexpr std::size_t kMinEntriesPerThread = 48;

}  // namespace

std::vector<Json> GenerateFullSweep(const catalog::MasterCatalog& catalog, const catalog::RunnerConfig& runners,
                                    const FullSweepOptions& options) {
  CheckFullSweepOptions(runners, options);
  const auto seq_filter = SeqLenFilter(options.seq_lens);
  // Entries are independent: contiguous ranges of them are expanded on threads and their rows
  // joined in catalog order, so the output is the sequential one.
  const std::size_t n = catalog.entries.size();
  auto parts = MapChunks(n, ChunkCount(n, kMinEntriesPerThread), [&](std::size_t begin, std::size_t end) {
    std::vector<Json> part;
    for (std::size_t i = begin; i < end; ++i)
      AppendFullSweepRows(catalog.entries[i], runners, options, seq_filter, part);
    return part;
  });
  std::vector<Json> rows = std::move(parts.front());
  for (std::size_t i = 1; i < parts.size(); ++i) {
    rows.insert(rows.end(), std::make_move_iterator(parts[i].begin()), std::make_move_iterator(parts[i].end()));
  }
  return ApplyEvalPolicy(std::move(rows), options.common.evals);
}

std::vector<Json> GenerateTestConfig(const catalog::MasterCatalog& catalog, const catalog::RunnerConfig& runners,
                                     const TestConfigOptions& options) {
  const auto keys = ExpandConfigKeys(options.config_keys, catalog);
  const auto seq_filter = SeqLenFilter(options.seq_lens);
  const auto& scenario_types = options.common.scenario_types;
  auto keep_conc = [&](std::vector<std::int64_t>& values) {
    if (options.conc.empty()) return;
    std::erase_if(values, [&](std::int64_t c) { return !std::count(options.conc.begin(), options.conc.end(), c); });
  };
  std::vector<Json> rows;
  for (const auto& key : keys) {
    const MasterEntry& config = *catalog.Find(key);
    // The label itself counts as a runner when it matches the filter, then its nodes.
    std::vector<std::string> runner_values = {config.runner};
    if (const auto& filter = NodeFilter(options.common)) {
      std::vector<std::string> candidates;
      if (config.runner.find(*filter) != std::string::npos) candidates.push_back(config.runner);
      if (const auto* nodes = runners.Find(config.runner))
        candidates.insert(candidates.end(), nodes->begin(), nodes->end());
      runner_values.clear();
      std::set<std::string> seen;
      for (const auto& c : candidates) {
        if (c.find(*filter) != std::string::npos && seen.insert(c).second) runner_values.push_back(c);
      }
      if (runner_values.empty()) continue;
    }
    if (WantScenario(scenario_types, "fixed-seq-len")) {
      for (const auto& seq : config.fixed_seq_len) {
        if (!seq_filter.empty() && seq_filter.count({seq.isl, seq.osl}) == 0) continue;
        for (const SearchSpaceEntry& point : seq.search_space) {
          // test-config takes the list whenever the key is written, even empty, and always doubles.
          std::vector<std::int64_t> concs =
              point.conc_list_written ? *point.conc.list
                                      : ExpandConcurrency(point.conc.start.value_or(1), point.conc.end.value_or(0), 2);
          if (!options.conc.empty()) {
            keep_conc(concs);
            if (concs.empty()) continue;
          }
          if (config.multinode) {
            for (const auto& runner : runner_values) {
              rows.push_back(MultiNodeRow(config, runner, seq.isl, seq.osl, point, concs));
            }
            continue;
          }
          for (std::int64_t conc : concs) {
            for (const auto& runner : runner_values) {
              rows.push_back(SingleNodeRow(config, runner, seq.isl, seq.osl, point, conc, point.ep));
            }
          }
        }
      }
    }
    if (!WantScenario(scenario_types, "agentic-coding")) continue;
    for (const auto& scenario : config.agentic_coding) {
      for (const SearchSpaceEntry& point : scenario.search_space) {
        std::vector<std::int64_t> concs = PointConcs(point, 2);
        keep_conc(concs);
        if (concs.empty()) continue;
        AppendAgenticRows(config, runners, scenario, point, concs, runner_values, rows);
      }
    }
  }
  return ApplyEvalPolicy(std::move(rows), options.common.evals);
}

}  // namespace infermark::matrix
