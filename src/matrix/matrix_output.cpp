#include "matrix/matrix_output.hpp"

#include <algorithm>
#include <charconv>

#include "core/diagnostic.hpp"
#include "core/parallel_chunks.hpp"

namespace infermark::matrix {
namespace {

std::string Text(const Json& row, const char* key) {
  auto it = row.find(key);
  if (it == row.end() || it->is_null()) return "-";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_boolean()) return it->get<bool>() ? "true" : "false";
  if (it->is_array()) {
    std::string out;
    for (const auto& v : *it) out += (out.empty() ? "" : ",") + (v.is_string() ? v.get<std::string>() : v.dump());
    return out;
  }
  return it->dump();
}

bool IsTrue(const Json& row, const char* key) {
  auto it = row.find(key);
  return it != row.end() && it->is_boolean() && it->get<bool>();
}

// "TP8/EP8/DPA" style, as InferenceX names jobs.
std::string Parallelism(const Json& node) {
  std::string out = "TP" + Text(node, "tp");
  for (const auto& [key, label] : {std::pair{"pp", "PP"}, {"dcp-size", "DCP"}, {"pcp-size", "PCP"}, {"ep", "EP"}}) {
    const std::string v = Text(node, key);
    if (v != "-" && v != "1") out += std::string("/") + label + v;
  }
  if (IsTrue(node, "dp-attn")) out += "/DPA";
  return out;
}

std::string Topology(const Json& row) {
  if (!row.contains("prefill")) return Parallelism(row);
  const Json& p = row["prefill"];
  const Json& d = row["decode"];
  return Text(p, "num-worker") + "P(" + Parallelism(p) + ") " + Text(d, "num-worker") + "D(" + Parallelism(d) + ")";
}

std::string Eval(const Json& row) {
  if (IsTrue(row, "eval-only")) return "only";
  if (IsTrue(row, "run-eval")) return row.contains("eval-conc") ? "c" + Text(row, "eval-conc") : "yes";
  return "";
}

}  // namespace

Shard ParseShard(const std::string& text) {
  Shard shard;
  const auto slash = text.find('/');
  auto parse = [](std::string_view s, std::size_t& v) {
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && ptr == s.data() + s.size() && !s.empty();
  };
  if (slash == std::string::npos || !parse(std::string_view(text).substr(0, slash), shard.index) ||
      !parse(std::string_view(text).substr(slash + 1), shard.count) || shard.count == 0 || shard.index == 0 ||
      shard.index > shard.count) {
    throw InputError(Diagnostic{SourceMark{}, "", "--shard", "expected K/N with 1 <= K <= N, got '" + text + "'"});
  }
  return shard;
}

std::vector<Json> SelectShard(const std::vector<Json>& rows, const Shard& shard) {
  const std::size_t n = rows.size();
  const std::size_t begin = n * (shard.index - 1) / shard.count;
  const std::size_t end = n * shard.index / shard.count;
  return {rows.begin() + static_cast<std::ptrdiff_t>(begin), rows.begin() + static_cast<std::ptrdiff_t>(end)};
}

std::string FormatJson(const std::vector<Json>& rows) {
  // Rows are written in contiguous ranges on threads, then joined in order.
  constexpr std::size_t kMinRowsPerThread = 256;
  const std::size_t n = rows.size();
  const auto parts = MapChunks(n, ChunkCount(n, kMinRowsPerThread), [&rows](std::size_t begin, std::size_t end) {
    std::string part;
    part.reserve((end - begin) * 640);
    for (std::size_t i = begin; i < end; ++i) {
      if (i != 0) part += ", ";
      AppendJson(part, rows[i]);
    }
    return part;
  });
  std::size_t size = 3;
  for (const auto& part : parts) size += part.size();
  std::string out;
  out.reserve(size);
  out += '[';
  for (const auto& part : parts) out += part;
  out += "]\n";
  return out;
}

std::string FormatGithub(const std::vector<Json>& rows) {
  if (rows.size() > kGithubMatrixLimit) {
    const std::size_t shards = (rows.size() + kGithubMatrixLimit - 1) / kGithubMatrixLimit;
    throw InputError(Diagnostic{{},
                                "",
                                "--format github",
                                "the matrix has " + std::to_string(rows.size()) +
                                    " rows and a GitHub Actions matrix holds at most 256 jobs: narrow it with filters "
                                    "(--config-keys, --model-prefix, --runner-type, --seq-lens, --max-conc…) or split "
                                    "it with --shard K/" +
                                    std::to_string(shards) + " (one job per shard)"});
  }
  std::string out = "{\"include\": ";
  out += FormatJson(rows);
  out.insert(out.size() - 1, "}");
  return out;
}

std::string FormatGithubOutputs(const std::vector<Json>& rows) {
  std::vector<Json> single;
  std::vector<Json> multi;
  for (const Json& row : rows) (row.contains("prefill") && row.contains("decode") ? multi : single).push_back(row);
  std::string out;
  for (const auto& [name, part] : {std::pair<std::string, const std::vector<Json>*>{"single-node", &single},
                                   std::pair<std::string, const std::vector<Json>*>{"multi-node", &multi}}) {
    if (part->size() > kGithubMatrixLimit) {
      const std::size_t shards = (rows.size() + kGithubMatrixLimit - 1) / kGithubMatrixLimit;
      throw InputError(Diagnostic{{},
                                  "",
                                  "--format github-outputs",
                                  "the " + name + " matrix has " + std::to_string(part->size()) +
                                      " rows and a GitHub Actions matrix holds at most 256 jobs: split the run with "
                                      "--shard K/" +
                                      std::to_string(shards) + " (one workflow run per shard)"});
    }
    out += name + "=" + FormatGithub(*part);
    out += name + "-jobs=" + std::to_string(part->size()) + "\n";
  }
  return out;
}

std::vector<Json> ChangelogRows(const Json& doc) {
  std::vector<Json> rows;
  if (!doc.is_object()) return rows;
  for (const char* nested : {"single_node", "multi_node"}) {
    const auto it = doc.find(nested);
    if (it == doc.end() || !it->is_object()) continue;
    for (const auto& [bucket, list] : it->items()) {
      if (list.is_array()) rows.insert(rows.end(), list.begin(), list.end());
    }
  }
  for (const char* flat : {"evals", "agentic_evals", "multinode_evals", "multinode_agentic_evals"}) {
    const auto it = doc.find(flat);
    if (it != doc.end() && it->is_array()) rows.insert(rows.end(), it->begin(), it->end());
  }
  return rows;
}

std::string FormatTable(const std::vector<Json>& rows) {
  const std::vector<std::string> header = {"#",   "exp-name",    "precision", "framework", "runner",        "isl",
                                           "osl", "parallelism", "spec",      "conc",      "max-model-len", "eval"};
  std::vector<std::vector<std::string>> cells;
  cells.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Json& r = rows[i];
    cells.push_back({std::to_string(i + 1), Text(r, "exp-name"), Text(r, "precision"), Text(r, "framework"),
                     Text(r, "runner"), Text(r, "isl"), Text(r, "osl"), Topology(r), Text(r, "spec-decoding"),
                     Text(r, "conc"), Text(r, "max-model-len"), Eval(r)});
  }
  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& line : cells) width[c] = std::max(width[c], line[c].size());
  }
  auto emit = [&](std::string& out, const std::vector<std::string>& line) {
    std::string text;
    for (std::size_t c = 0; c < line.size(); ++c) {
      const bool numeric = c == 0 || c == 5 || c == 6 || c == 10;
      const std::string pad(width[c] - line[c].size(), ' ');
      text += numeric ? pad + line[c] : line[c] + pad;
      if (c + 1 < line.size()) text += "  ";
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text + '\n';
  };
  std::string out;
  emit(out, header);
  for (const auto& line : cells) emit(out, line);
  std::size_t evals = 0;
  for (const auto& r : rows) evals += IsTrue(r, "run-eval") ? 1u : 0u;
  out += std::to_string(rows.size()) + (rows.size() == 1 ? " row" : " rows") + ", " + std::to_string(evals) +
         " with evals\n";
  return out;
}

}  // namespace infermark::matrix
