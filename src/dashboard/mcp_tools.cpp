#include "dashboard/mcp_tools.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "core/diagnostic.hpp"
#include "dashboard/api.hpp"
#include "store/read_only_sql.hpp"

namespace infermark::dashboard {
namespace {

enum class Kind {
  kText,     // a string
  kTexts,    // a string or an array of strings (any of them)
  kNumbers,  // a number or an array of numbers
  kInteger,  // a whole number
  kBool,     // true or false
};

struct Param {
  const char* name;
  Kind kind;
  const char* description;
  bool required = false;
  std::vector<const char*> choices = {};  // allowed values of a text (empty: any)
};

// A call's checked arguments and what it may read.
struct Call {
  SnapshotSource& source;
  const ToolLimits& limits;
  std::map<std::string, Json> args;

  [[nodiscard]] bool Has(const char* name) const { return args.count(name) > 0; }
  [[nodiscard]] std::size_t Rows() const {
    const auto it = args.find("limit");
    return it == args.end() ? limits.default_rows : static_cast<std::size_t>(it->second.get<long long>());
  }
};

struct Tool {
  const char* name;
  const char* title;
  const char* description;
  std::vector<Param> params;
  std::function<Json(Call&)> run;
};

// The filters every points-like route takes (docs/dashboard.md, "Common filters").
std::vector<Param> PointFilters() {
  return {
      {"model", Kind::kTexts, "Model ids (see list_models); several mean any of them"},
      {"hardware", Kind::kTexts, "GPUs (see list_hardware), e.g. h100, mi355x"},
      {"framework", Kind::kTexts, "Serving frameworks (see list_frameworks), e.g. vllm, sglang"},
      {"precision", Kind::kTexts, "Precisions, e.g. fp8, fp4"},
      {"sequence", Kind::kTexts, "Sequence lengths as ISL/OSL (1k/1k, 8k/1k) or agentic"},
      {"run", Kind::kTexts, "Runs by id or key (see list_runs)"},
      {"kind", Kind::kText, "measured or predicted", false, {"measured", "predicted"}},
      {"valid",
       Kind::kText,
       "true: leave out points their run judged INVALID; false: only those",
       false,
       {"true", "false"}},
      {"from", Kind::kText, "First date, YYYY-MM-DD (the point's benchmark date)"},
      {"to", Kind::kText, "Last date, YYYY-MM-DD"},
  };
}

Param LimitParam() {
  return {"limit", Kind::kInteger, "The most rows to return (the server's row limit caps it)"};
}

std::string Encode(const std::string& text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// A checked argument as the API's query value (lists comma-joined).
std::string QueryValue(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_number()) return DumpJson(v, kCompactJson);
  std::string joined;
  for (const Json& item : v) joined += (joined.empty() ? "" : ",") + QueryValue(item);
  return joined;
}

// The query of the arguments `names` that the call has (mapped to API parameter names).
std::string QueryOf(const Call& call, const std::vector<std::pair<const char*, const char*>>& names) {
  std::string query;
  for (const auto& [arg, param] : names) {
    const auto it = call.args.find(arg);
    if (it == call.args.end()) continue;
    query += (query.empty() ? "" : "&") + std::string(param) + "=" + Encode(QueryValue(it->second));
  }
  return query;
}

std::vector<std::pair<const char*, const char*>> FilterNames() {
  std::vector<std::pair<const char*, const char*>> names;
  for (const Param& p : PointFilters()) names.emplace_back(p.name, p.name);
  return names;
}

// The route's reply as JSON; a 400 or 404 is the caller's argument error, in the route's words.
Json Route(Call& call, const std::string& path, const std::string& query) {
  const std::shared_ptr<const Snapshot> snapshot = call.source.Current();
  const ApiReply reply = HandleApi(*snapshot, call.source.Sources(), path, query);
  Json body = Json::parse(reply.body, nullptr, false);
  if (reply.status != 200) {
    std::string message = "the store answered " + std::to_string(reply.status);
    if (body.is_object() && body.contains("error")) {
      const Json& e = body["error"];
      if (e.value("field", Json(nullptr)).is_string()) message = "argument '" + e["field"].get<std::string>() + "'";
      message += ": " + e.value("message", std::string());
    }
    throw ToolArgumentError(message);
  }
  return body;
}

// `body[key]` cut to the call's rows, with `total`, `returned` and `truncated` beside it.
void Cut(Json& body, const char* key, std::size_t rows) {
  std::size_t total = 0;
  std::size_t kept = 0;
  {
    // A reference into an ordered object is invalidated by adding a key to it: done before.
    Json& list = body[key];
    if (!list.is_array()) return;
    total = list.size();
    if (total > rows) list.erase(list.begin() + static_cast<std::ptrdiff_t>(rows), list.end());
    kept = list.size();
  }
  body["total"] = total;
  body["returned"] = kept;
  body["truncated"] = total > rows;
}

// The fields of a point an agent gets unless it asks for all of them.
const std::vector<std::string>& CompactPointFields() {
  static const std::vector<std::string> fields = {"id",
                                                  "run_label",
                                                  "series",
                                                  "model",
                                                  "hardware",
                                                  "framework",
                                                  "precision",
                                                  "sequence",
                                                  "conc",
                                                  "num_gpus",
                                                  "kind",
                                                  "date",
                                                  "tput_per_gpu",
                                                  "output_tput_per_gpu",
                                                  "input_tput_per_gpu",
                                                  "interactivity",
                                                  "ttft_ms",
                                                  "tpot_ms",
                                                  "e2el_s",
                                                  "j_per_token",
                                                  "cost_per_m_tokens",
                                                  "valid",
                                                  "invalid_reasons"};
  return fields;
}

Json Summaries(const Snapshot& snapshot, const Call& call,
               const std::function<std::string(const DashboardPoint&)>& key) {
  struct Group {
    long long points = 0;
    long long measured = 0;
    std::set<std::string> hardware, models, frameworks, sequences;
    std::string latest;
  };
  std::map<std::string, Group> groups;
  const auto want = [&](const char* name, const std::string& value) {
    const auto it = call.args.find(name);
    if (it == call.args.end()) return true;
    const Json& v = it->second;
    if (v.is_string()) return v.get<std::string>() == value;
    return std::any_of(v.begin(), v.end(), [&](const Json& x) { return x.get<std::string>() == value; });
  };
  for (const DashboardPoint& p : snapshot.points) {
    if (!want("model", p.model) || !want("hardware", p.hardware) || !want("framework", p.framework)) continue;
    Group& g = groups[key(p)];
    ++g.points;
    g.measured += p.predicted ? 0 : 1;
    g.hardware.insert(p.hardware);
    g.models.insert(p.model);
    g.frameworks.insert(p.framework);
    g.sequences.insert(p.sequence);
    g.latest = std::max(g.latest, p.date);
  }
  const auto list = [](const std::set<std::string>& values) {
    return Json(std::vector<std::string>(values.begin(), values.end()));
  };
  Json items = Json::array();
  for (const auto& [name, g] : groups) {
    items.push_back({{"name", name},
                     {"points", g.points},
                     {"measured_points", g.measured},
                     {"hardware", list(g.hardware)},
                     {"models", list(g.models)},
                     {"frameworks", list(g.frameworks)},
                     {"sequences", list(g.sequences)},
                     {"latest_date", g.latest}});
  }
  Json body = Json{{"items", std::move(items)}};
  Cut(body, "items", call.Rows());
  return body;
}

std::vector<Param> With(std::vector<Param> params, std::initializer_list<Param> more) {
  params.insert(params.end(), more.begin(), more.end());
  return params;
}

const std::vector<Tool>& Tools() {
  static const std::vector<Tool> tools = {
      {"list_hardware",
       "List hardware",
       "The GPUs the store has points for, with their point counts, models, frameworks, sequences and latest date.",
       {{"model", Kind::kTexts, "Only points of these models"},
        {"framework", Kind::kTexts, "Only these frameworks"},
        LimitParam()},
       [](Call& c) { return Summaries(*c.source.Current(), c, [](const DashboardPoint& p) { return p.hardware; }); }},
      {"list_models",
       "List models",
       "The models the store has points for, with their hardware, frameworks, sequences and latest date.",
       {{"hardware", Kind::kTexts, "Only points on these GPUs"},
        {"framework", Kind::kTexts, "Only these frameworks"},
        LimitParam()},
       [](Call& c) { return Summaries(*c.source.Current(), c, [](const DashboardPoint& p) { return p.model; }); }},
      {"list_frameworks",
       "List frameworks",
       "The serving frameworks the store has points for, with their hardware and models.",
       {{"model", Kind::kTexts, "Only points of these models"},
        {"hardware", Kind::kTexts, "Only points on these GPUs"},
        LimitParam()},
       [](Call& c) { return Summaries(*c.source.Current(), c, [](const DashboardPoint& p) { return p.framework; }); }},
      {"list_runs",
       "List runs",
       "The store's runs (sweeps, predictions, ingests), newest first, with their point counts.",
       {LimitParam()},
       [](Call& c) {
         Json body = Route(c, "/api/v1/runs", "");
         std::reverse(body["runs"].begin(), body["runs"].end());
         Cut(body, "runs", c.Rows());
         return body;
       }},
      {"points", "Find points",
       "Benchmark points matching the filters: throughput per GPU, interactivity, latencies, power, cost, "
       "verdict. Each point's page is /point/<id> on the dashboard.",
       With(PointFilters(),
            {{"fields", Kind::kTexts,
              "Fields to return (default: a compact set; 'all' for every field the dashboard's API has)"},
             LimitParam()}),
       [](Call& c) {
         Json body = Route(c, "/api/v1/points", QueryOf(c, FilterNames()));
         Cut(body, "points", c.Rows());
         std::vector<std::string> fields = CompactPointFields();
         if (c.Has("fields")) {
           const Json& f = c.args["fields"];
           fields.clear();
           if (f.is_string()) fields.push_back(f.get<std::string>());
           for (const Json& x : f.is_array() ? f : Json::array()) fields.push_back(x.get<std::string>());
         }
         if (!(fields.size() == 1 && fields.front() == "all")) {
           for (Json& p : body["points"]) {
             Json kept = Json::object();
             for (const std::string& k : fields) {
               if (p.contains(k)) kept[k] = p[k];
             }
             p = std::move(kept);
           }
         }
         body.erase("count");
         return body;
       }},
      {"frontier_at_interactivity", "Read frontiers at interactivities",
       "Each series' Pareto frontier (throughput per GPU against interactivity) read at the given interactivities "
       "with a monotone spline, as the dashboard's head-to-head table does; null outside a frontier's range. "
       "INVALID points never count.",
       With(PointFilters(),
            {{"interactivity", Kind::kNumbers, "Target interactivities in tok/s/user", true},
             {"y",
              Kind::kText,
              "The metric read",
              false,
              {"tput_per_gpu", "input_tput_per_gpu", "output_tput_per_gpu", "j_per_token", "cost_per_m_tokens"}},
             LimitParam()}),
       [](Call& c) {
         std::vector<std::pair<const char*, const char*>> names = FilterNames();
         names.emplace_back("interactivity", "interactivity");
         names.emplace_back("y", "y");
         Json body = Route(c, "/api/v1/iso", QueryOf(c, names));
         Cut(body, "rows", c.Rows());
         return body;
       }},
      {"compare_runs",
       "Compare two runs",
       "results compare between two runs: every matched point's metrics and each frontier sampled, with the change "
       "in percent and regressions beyond the threshold flagged.",
       {{"base", Kind::kText, "The baseline run (id or key)", true},
        {"head", Kind::kText, "The candidate run (id or key)", true},
        LimitParam()},
       [](Call& c) {
         Json body = Route(c, "/api/v1/compare", QueryOf(c, {{"base", "base"}, {"head", "head"}}));
         // Regressions first: what an agent is asked about.
         std::stable_sort(body["rows"].begin(), body["rows"].end(), [](const Json& a, const Json& b) {
           return a.value("regression", false) && !b.value("regression", false);
         });
         Cut(body, "rows", c.Rows());
         return body;
       }},
      {"evaluations",
       "Find evaluations",
       "Accuracy evaluations (GSM8K…) with their scores, standard errors, thresholds and verdicts.",
       {{"run", Kind::kTexts, "Runs by id or key"},
        {"model", Kind::kTexts, "Models"},
        {"hardware", Kind::kTexts, "GPUs"},
        {"framework", Kind::kTexts, "Frameworks"},
        {"precision", Kind::kTexts, "Precisions"},
        {"task", Kind::kTexts, "Tasks, e.g. gsm8k"},
        {"status", Kind::kTexts, "scored, not_run, invalid or incomplete"},
        {"verdict", Kind::kTexts, "pass, fail, no threshold, not run, invalid or incomplete"},
        {"point", Kind::kTexts, "The evaluations of these points' configurations (point ids)"},
        LimitParam()},
       [](Call& c) {
         Json body = Route(c, "/api/v1/evaluations",
                           QueryOf(c, {{"run", "run"},
                                       {"model", "model"},
                                       {"hardware", "hardware"},
                                       {"framework", "framework"},
                                       {"precision", "precision"},
                                       {"task", "task"},
                                       {"status", "status"},
                                       {"verdict", "verdict"},
                                       {"point", "point"}}));
         for (Json& e : body["evaluations"]) e.erase("source_path");
         Cut(body, "evaluations", c.Rows());
         body.erase("count");
         return body;
       }},
      {"eval_samples",
       "Read an evaluation's samples",
       "An evaluation's documents: question, response, extracted answers, target and whether it was correct.",
       {{"evaluation", Kind::kInteger, "The evaluation's id (from evaluations)", true},
        {"wrong_only", Kind::kBool, "Only the documents answered wrong"},
        {"text", Kind::kText, "Only documents whose question, response or target contain this"},
        LimitParam()},
       [](Call& c) {
         std::string query =
             "filter=" + std::string(c.Has("wrong_only") && c.args["wrong_only"].get<bool>() ? "wrong" : "all");
         if (c.Has("text")) query += "&q=" + Encode(c.args["text"].get<std::string>());
         query += "&limit=" + std::to_string(std::min<std::size_t>(c.Rows(), 500));
         return Route(c, "/api/v1/evaluations/" + std::to_string(c.args["evaluation"].get<long long>()) + "/samples",
                      query);
       }},
      {"reliability",
       "Reliability",
       "How often benchmark rows succeeded per GPU and per runner label over 3, 7, 30 and 90 days and all time, "
       "failures counted by class (startup, readiness, client_error, server_exit, timeout, killed, store), and the "
       "latest failures.",
       {{"hardware", Kind::kTexts, "GPUs"},
        {"runner", Kind::kTexts, "Runner labels"},
        {"run", Kind::kTexts, "Runs by id or key"},
        {"at", Kind::kText, "Read the windows as of the end of this day, YYYY-MM-DD (default: now)"},
        LimitParam()},
       [](Call& c) {
         std::string query = QueryOf(c, {{"hardware", "hardware"}, {"runner", "runner"}, {"run", "run"}, {"at", "at"}});
         query += (query.empty() ? "" : "&") + std::string("limit=") + std::to_string(c.Rows());
         return Route(c, "/api/v1/reliability", query);
       }},
      {"query_sql",
       "Query the store with SQL",
       "One read-only SQL statement against the results store (tables runs, points, evaluations, row_attempts, "
       "point_details, gpu_samples, eval_samples; SQLite or PostgreSQL dialect as the store is). Writes are refused; "
       "the statement is stopped at the call's time limit and its rows cut at the row limit.",
       {{"sql", Kind::kText, "The statement", true}, LimitParam()},
       [](Call& c) {
         const results::SqlTable table =
             results::RunReadOnlySql(c.limits.db, c.args["sql"].get<std::string>(), c.Rows(), c.limits.timeout);
         Json rows = Json::array();
         for (const auto& r : table.rows) rows.push_back(r);
         return Json{{"columns", table.columns},
                     {"rows", std::move(rows)},
                     {"returned", table.rows.size()},
                     {"truncated", table.truncated}};
       }},
  };
  return tools;
}

Json SchemaOf(const Param& p) {
  Json s = Json::object();
  switch (p.kind) {
    case Kind::kText:
      s["type"] = "string";
      if (!p.choices.empty()) s["enum"] = p.choices;
      break;
    case Kind::kTexts:
      s["anyOf"] = Json::array({Json{{"type", "string"}}, Json{{"type", "array"}, {"items", {{"type", "string"}}}}});
      break;
    case Kind::kNumbers:
      s["anyOf"] = Json::array({Json{{"type", "number"}}, Json{{"type", "array"}, {"items", {{"type", "number"}}}}});
      break;
    case Kind::kInteger:
      s["type"] = "integer";
      s["minimum"] = 1;
      break;
    case Kind::kBool:
      s["type"] = "boolean";
      break;
  }
  s["description"] = p.description;
  return s;
}

// `value` checked against `p`; throws ToolArgumentError naming the argument.
void Check(const Param& p, const Json& value, const ToolLimits& limits) {
  const auto fail = [&](const std::string& rule) {
    throw ToolArgumentError("argument '" + std::string(p.name) + "': " + rule);
  };
  switch (p.kind) {
    case Kind::kText:
      if (!value.is_string()) fail("must be a string");
      if (!p.choices.empty() &&
          std::find(p.choices.begin(), p.choices.end(), value.get<std::string>()) == p.choices.end()) {
        std::string allowed;
        for (const char* c : p.choices) allowed += (allowed.empty() ? "" : ", ") + std::string(c);
        fail("must be one of " + allowed);
      }
      break;
    case Kind::kTexts:
      if (value.is_string()) break;
      if (!value.is_array() || value.empty() ||
          !std::all_of(value.begin(), value.end(), [](const Json& x) { return x.is_string(); }))
        fail("must be a string or a non-empty array of strings");
      break;
    case Kind::kNumbers:
      if (value.is_number()) break;
      if (!value.is_array() || value.empty() ||
          !std::all_of(value.begin(), value.end(), [](const Json& x) { return x.is_number(); }))
        fail("must be a number or a non-empty array of numbers");
      break;
    case Kind::kInteger: {
      if (!value.is_number_integer() || value.get<long long>() < 1) fail("must be a whole number of 1 or more");
      if (std::string(p.name) == "limit" && static_cast<std::size_t>(value.get<long long>()) > limits.max_rows)
        fail("must be at most " + std::to_string(limits.max_rows) + " (the server's row limit)");
      break;
    }
    case Kind::kBool:
      if (!value.is_boolean()) fail("must be true or false");
      break;
  }
}

}  // namespace

Json ToolList() {
  Json list = Json::array();
  for (const Tool& t : Tools()) {
    Json properties = Json::object();
    Json required = Json::array();
    for (const Param& p : t.params) {
      properties[p.name] = SchemaOf(p);
      if (p.required) required.push_back(p.name);
    }
    Json schema = {{"type", "object"}, {"properties", std::move(properties)}, {"additionalProperties", false}};
    if (!required.empty()) schema["required"] = std::move(required);
    list.push_back({{"name", t.name},
                    {"title", t.title},
                    {"description", t.description},
                    {"inputSchema", std::move(schema)},
                    {"annotations", {{"readOnlyHint", true}, {"openWorldHint", false}}}});
  }
  return list;
}

Json CallTool(SnapshotSource& source, const std::string& name, const Json& arguments, const ToolLimits& limits) {
  const auto& tools = Tools();
  const auto tool = std::find_if(tools.begin(), tools.end(), [&](const Tool& t) { return name == t.name; });
  if (tool == tools.end()) throw ToolArgumentError("no tool named '" + name + "' (tools/list names them)");
  if (!arguments.is_null() && !arguments.is_object()) throw ToolArgumentError("arguments must be an object");
  Call call{source, limits, {}};
  if (arguments.is_object()) {
    for (const auto& [key, value] : arguments.items()) {
      const auto p =
          std::find_if(tool->params.begin(), tool->params.end(), [&](const Param& x) { return key == x.name; });
      if (p == tool->params.end()) {
        std::string known;
        for (const Param& x : tool->params) known += (known.empty() ? "" : ", ") + std::string(x.name);
        throw ToolArgumentError("argument '" + key + "': " + name + " takes no such argument (it takes " + known + ")");
      }
      Check(*p, value, limits);
      call.args[key] = value;
    }
  }
  for (const Param& p : tool->params) {
    if (p.required && call.args.count(p.name) == 0)
      throw ToolArgumentError("argument '" + std::string(p.name) + "': required by " + name);
  }
  source.ReloadIfChanged();
  return tool->run(call);
}

}  // namespace infermark::dashboard
