// perf-changelog.yaml schema: a list of entries naming the config keys a change touched.
#include "catalog/catalog_loader.hpp"
#include "core/field_reader.hpp"

namespace infermark::catalog {

std::vector<ChangelogEntry> ReadChangelog(const YamlDocument& doc, std::vector<Diagnostic>& problems) {
  std::vector<ChangelogEntry> entries;
  if (doc.root.kind != YamlKind::kSequence) {
    problems.push_back(Diagnostic{DocumentMark(doc), "", "",
                                  "perf-changelog must be a list of entries, got " + std::string(doc.root.TypeName())});
    return entries;
  }
  for (std::size_t i = 0; i < doc.root.items.size(); ++i) {
    const YamlNode& node = doc.root.items[i];
    ReadContext ctx{&doc.file, "#" + std::to_string(i + 1), &problems};
    const std::size_t before = problems.size();
    FieldReader r(ctx, node, "");
    if (!r.ok()) continue;
    ChangelogEntry e;
    e.mark = {doc.file, node.line, node.column};
    e.config_keys = r.StringList("config-keys", Need::kRequired, 1).value_or(std::vector<std::string>{});
    e.description = r.StringList("description", Need::kRequired, 1).value_or(std::vector<std::string>{});
    e.pr_link = r.String("pr-link", Need::kRequired).value_or("");
    e.evals_only = r.Bool("evals-only", Need::kDefaulted).value_or(false);
    e.all_evals = r.Bool("all-evals", Need::kDefaulted).value_or(false);
    e.append_only = r.Bool("append-only", Need::kDefaulted).value_or(false);
    e.eval_min_prefill_ep = r.Int("eval-min-prefill-ep", Need::kOptional, 1);
    if (const YamlNode* st = r.List("scenario-type", Need::kOptional)) {
      std::vector<std::string> types;
      for (std::size_t j = 0; j < st->items.size(); ++j) {
        const YamlNode& item = st->items[j];
        if (item.kind != YamlKind::kString || (item.text != "fixed-seq-len" && item.text != "agentic-coding")) {
          ctx.Report(&item, "scenario-type[" + std::to_string(j) + "]",
                     "must be one of 'fixed-seq-len', 'agentic-coding', got '" + item.text + "'");
        } else {
          types.push_back(item.text);
        }
      }
      if (st->items.empty()) ctx.Report(st, "scenario-type", "must have at least 1 item");
      e.scenario_type = std::move(types);
    }
    r.RejectUnknown();
    if (problems.size() == before && e.append_only && (e.evals_only || e.all_evals || e.eval_min_prefill_ep)) {
      ctx.Report(node.Find("append-only"), "append-only",
                 "append-only cannot be combined with evals-only, all-evals or eval-min-prefill-ep");
    }
    entries.push_back(std::move(e));
  }
  return entries;
}

}  // namespace infermark::catalog
