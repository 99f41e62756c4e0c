#include "matrix/eval_marking.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace infermark::matrix {
namespace {

constexpr std::int64_t kEvalIsl = 8192;
constexpr std::int64_t kEvalOsl = 1024;

bool IsEvalSeqLen(const Json& row) {
  auto isl = row.find("isl");
  auto osl = row.find("osl");
  return isl != row.end() && osl != row.end() && *isl == kEvalIsl && *osl == kEvalOsl;
}

bool IsAgentic(const Json& row) {
  auto it = row.find("scenario-type");
  return it != row.end() && *it == "agentic-coding";
}

std::vector<std::int64_t> ConcValues(const Json& row) {
  const Json& conc = row.at("conc");
  std::vector<std::int64_t> values;
  if (conc.is_array()) {
    for (const auto& c : conc) values.push_back(c.get<std::int64_t>());
  } else {
    values.push_back(conc.get<std::int64_t>());
  }
  return values;
}

std::vector<std::int64_t> EligibleConcs(const Json& row) {
  std::vector<std::int64_t> values;
  for (std::int64_t c : ConcValues(row)) {
    if (c >= kMinEvalConc) values.push_back(c);
  }
  std::sort(values.begin(), values.end());
  return values;
}

// Every field except concurrency and eval bookkeeping: rows with equal keys share a topology.
std::string ParallelismKey(const Json& row) {
  static constexpr std::string_view kIgnored[] = {"conc",      "run-eval",       "eval-only",
                                                  "eval-conc", "eval-all-concs", "exp-name"};
  // Canonical text of the row minus the ignored fields, written straight from the row (no copy).
  std::vector<const std::pair<const std::string, Json>*> members;
  members.reserve(row.size());
  for (const auto& member : row.get_ref<const Json::object_t&>()) {
    if (std::find(std::begin(kIgnored), std::end(kIgnored), member.first) == std::end(kIgnored)) {
      members.push_back(&member);
    }
  }
  std::sort(members.begin(), members.end(), [](auto* a, auto* b) { return a->first < b->first; });
  std::string key;
  key.reserve(512);
  for (const auto* member : members) {
    key += member->first;
    key += '\x1f';
    AppendJson(key, member->second, kCanonicalJson);
    key += '\x1e';
  }
  return key;
}

std::string SingleNodeGroupKey(const Json& row) {
  std::string key;
  for (const char* field : {"model", "runner", "framework", "precision", "isl", "osl", "spec-decoding", "dp-attn"}) {
    key += DumpJson(row.at(field), kCanonicalJson);
    key += '\x1f';
  }
  return key;
}

// Groups keep first-seen order; std::map by key plus an order vector would do, but the result
// only depends on membership, so a map suffices.
template <typename Item>
using Groups = std::map<std::string, std::vector<Item>>;

// First element with the largest value, as Python's max() picks.
template <typename Item>
const Item& FirstMax(const std::vector<Item>& items) {
  const Item* best = &items.front();
  for (const auto& item : items) {
    if (item.second > best->second) best = &item;
  }
  return *best;
}

}  // namespace

void MarkEvalEntries(std::vector<Json>& rows, bool include_agentic) {
  std::set<std::size_t> eval_indices;
  std::map<std::size_t, std::int64_t> multinode_eval_conc;

  Groups<std::size_t> single_groups;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Json& row = rows[i];
    if (!row.contains("tp") || !IsEvalSeqLen(row) || EligibleConcs(row).empty()) continue;
    single_groups[SingleNodeGroupKey(row)].push_back(i);
  }
  for (const auto& [key, members] : single_groups) {
    std::set<std::int64_t> concs;
    for (std::size_t i : members) concs.insert(rows[i].at("conc").get<std::int64_t>());
    const std::vector<std::int64_t> sorted(concs.begin(), concs.end());
    const std::set<std::int64_t> targets = {sorted.back(), sorted[sorted.size() / 2]};
    for (std::size_t i : members) {
      if (targets.count(rows[i].at("conc").get<std::int64_t>()) != 0) eval_indices.insert(i);
    }
  }

  using Candidate = std::pair<std::size_t, std::int64_t>;
  Groups<Candidate> multi_groups;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Json& row = rows[i];
    if (row.contains("tp") || !row.contains("prefill") || !IsEvalSeqLen(row)) continue;
    const auto concs = EligibleConcs(row);
    if (concs.empty()) continue;
    multi_groups[ParallelismKey(row)].emplace_back(i, concs.back());
  }
  // Groups must be visited in first-appearance order for ties; collect keys in row order.
  auto visit_in_order = [&rows](const Groups<Candidate>& groups, auto&& fn) {
    std::vector<std::pair<std::size_t, const std::vector<Candidate>*>> ordered;
    for (const auto& [key, members] : groups) ordered.emplace_back(members.front().first, &members);
    std::sort(ordered.begin(), ordered.end());
    for (const auto& [first, members] : ordered) fn(*members);
    (void)rows;
  };
  visit_in_order(multi_groups, [&](const std::vector<Candidate>& members) {
    const Candidate& best = FirstMax(members);
    eval_indices.insert(best.first);
    multinode_eval_conc[best.first] = best.second;
  });

  if (include_agentic) {
    Groups<Candidate> agentic_single;
    Groups<Candidate> agentic_multi;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Json& row = rows[i];
      if (!IsAgentic(row)) continue;
      if (row.contains("prefill")) {
        const auto concs = EligibleConcs(row);
        if (concs.empty()) continue;
        agentic_multi[ParallelismKey(row)].emplace_back(i, concs.back());
        continue;
      }
      const auto values = ConcValues(row);
      const std::int64_t conc = *std::max_element(values.begin(), values.end());
      std::string key;
      for (const char* field : {"model", "runner", "framework", "precision"}) key += DumpJson(row.at(field)) + '\x1f';
      agentic_single[key].emplace_back(i, conc);
    }
    visit_in_order(agentic_single,
                   [&](const std::vector<Candidate>& members) { eval_indices.insert(FirstMax(members).first); });
    visit_in_order(agentic_multi, [&](const std::vector<Candidate>& members) {
      const Candidate& best = FirstMax(members);
      eval_indices.insert(best.first);
      multinode_eval_conc[best.first] = best.second;
    });
  }

  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i]["run-eval"] = eval_indices.count(i) != 0;
    if (auto it = multinode_eval_conc.find(i); it != multinode_eval_conc.end()) rows[i]["eval-conc"] = it->second;
  }
}

std::vector<Json> MarkAllEvalEntries(std::vector<Json> rows) {
  std::vector<Json> out;
  out.reserve(rows.size());
  std::map<std::string, std::size_t> multinode_index;
  std::map<std::string, std::size_t> agentic_multinode_index;
  auto merge_conc = [](Json& existing, const std::vector<std::int64_t>& extra) {
    std::set<std::int64_t> merged(extra.begin(), extra.end());
    for (const auto& c : existing.at("conc")) merged.insert(c.get<std::int64_t>());
    existing["conc"] = Json(std::vector<std::int64_t>(merged.begin(), merged.end()));
    return *merged.rbegin();
  };
  auto sorted_unique = [](const std::vector<std::int64_t>& values) {
    std::set<std::int64_t> s(values.begin(), values.end());
    return std::vector<std::int64_t>(s.begin(), s.end());
  };
  for (auto& row : rows) {
    if (IsAgentic(row)) {
      if (!row.contains("prefill")) {
        row["run-eval"] = true;
        out.push_back(std::move(row));
        continue;
      }
      const auto values = ConcValues(row);
      const std::string key = ParallelismKey(row);
      if (auto it = agentic_multinode_index.find(key); it != agentic_multinode_index.end()) {
        Json& existing = out[it->second];
        existing["eval-conc"] = merge_conc(existing, values);
        continue;
      }
      const auto concs = sorted_unique(values);
      row["conc"] = Json(concs);
      row["run-eval"] = true;
      row["eval-conc"] = concs.back();
      agentic_multinode_index[key] = out.size();
      out.push_back(std::move(row));
      continue;
    }
    if (!IsEvalSeqLen(row)) {
      out.push_back(std::move(row));
      continue;
    }
    if (row.contains("prefill")) {
      const auto values = ConcValues(row);
      const std::string key = ParallelismKey(row);
      if (auto it = multinode_index.find(key); it != multinode_index.end()) {
        merge_conc(out[it->second], values);
        continue;
      }
      row["conc"] = Json(sorted_unique(values));
      row["run-eval"] = true;
      row["eval-all-concs"] = true;
      row.erase("eval-conc");
      multinode_index[key] = out.size();
      out.push_back(std::move(row));
      continue;
    }
    row["run-eval"] = true;
    out.push_back(std::move(row));
  }
  return out;
}

std::vector<Json> ApplyEvalPolicy(std::vector<Json> rows, const EvalOptions& options) {
  if (!options.no_evals) {
    MarkEvalEntries(rows, options.evals_only || options.all_evals);
    if (options.all_evals) rows = MarkAllEvalEntries(std::move(rows));
  }
  if (options.evals_only || options.all_evals) {
    std::vector<Json> kept;
    for (auto& row : rows) {
      auto it = row.find("run-eval");
      if (it != row.end() && it->is_boolean() && it->get<bool>()) {
        row["eval-only"] = true;
        kept.push_back(std::move(row));
      }
    }
    return kept;
  }
  return rows;
}

}  // namespace infermark::matrix
