// The map matches the territory: every module's #includes stay within the modules its CMake
// target depends on, the CMake dependencies stay within the directions the design allows, no
// module reaches into another's private headers, and docs/architecture.md and the README describe
// the modules that exist, with the dependencies they have.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "test_paths.hpp"

namespace infermark::test {
namespace {

namespace fs = std::filesystem;
using Graph = std::map<std::string, std::set<std::string>>;

std::string Read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Module folders under src/ (those with a CMakeLists.txt), cli included.
std::set<std::string> Modules() {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(SourcePath("src"))) {
    if (e.is_directory() && fs::exists(e.path() / "CMakeLists.txt")) out.insert(e.path().filename().string());
  }
  return out;
}

// `infermark_module(NAME DEPS infermark::a infermark::b …)` per module; cli links every module.
Graph CmakeDeps(const std::set<std::string>& modules) {
  Graph g;
  const std::regex declaration(R"(infermark_module\(\s*(\w+)\s+DEPS([^)]*)\))");
  const std::regex dep(R"(infermark::(\w+))");
  for (const auto& m : modules) {
    const std::string text = Read(SourcePath("src/" + m + "/CMakeLists.txt"));
    std::smatch match;
    if (!std::regex_search(text, match, declaration)) continue;
    EXPECT_EQ(match[1].str(), m) << "src/" << m << "/CMakeLists.txt declares another module";
    const std::string deps = match[2].str();
    g[m];
    for (std::sregex_iterator it(deps.begin(), deps.end(), dep), end; it != end; ++it) g[m].insert((*it)[1].str());
  }
  return g;
}

// What each module's files include of other modules: module → {(included module, file:line)}.
std::map<std::string, std::vector<std::pair<std::string, std::string>>> Includes(const std::set<std::string>& modules) {
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> out;
  const std::regex include(R"(^\s*#\s*include\s*"(\w+)/([^"]+)\")");
  for (const auto& m : modules) {
    for (const auto& e : fs::recursive_directory_iterator(SourcePath("src/" + m))) {
      const std::string ext = e.path().extension().string();
      if (ext != ".cpp" && ext != ".hpp" && ext != ".in") continue;
      std::ifstream in(e.path());
      int n = 0;
      for (std::string line; std::getline(in, line);) {
        ++n;
        std::smatch match;
        if (!std::regex_search(line, match, include)) continue;
        const std::string target = match[1].str();
        if (modules.count(target) == 0) continue;
        const std::string where = fs::relative(e.path(), SourcePath("")).string() + ":" + std::to_string(n);
        out[m].emplace_back(target, where);
        // Another module's private headers (detail/) are its own business.
        if (target != m) {
          EXPECT_NE(match[2].str().rfind("detail/", 0), 0u) << where << " includes " << line;
        }
      }
    }
  }
  return out;
}

// The directions the design allows (DESIGN's source layout): a module may depend on these only.
const Graph& Allowed() {
  static const Graph g = {
      {"core", {}},
      {"catalog", {"core"}},
      {"matrix", {"catalog", "core"}},
      {"tokenizer", {"core"}},
      {"http", {"core"}},
      {"metrics", {"core"}},
      {"gpu", {"core"}},        // telemetry through NVML loaded at run time: no build dependency on a driver
      {"perfmodel", {"core"}},  // no I/O beyond data files: never http, loadgen, engine or sim
      {"calibration", {"perfmodel", "core"}},  // fits the model to measurements; the model never needs it
      {"power", {"core"}},                     // telemetry files in, energy figures out: no store, no report
      // processed records and points carry their power figures, and a repeated point the layout of
      // its result files (metrics/repeat_result.hpp)
      {"results", {"metrics", "power", "core"}},
      {"store", {"results", "power", "core"}},            // keeps points; never draws them
      {"report", {"store", "results", "power", "core"}},  // reads the store; nothing below reads a report
      {"dashboard", {"report", "store", "results", "power", "http", "core"}},  // read-only server over the store
      {"loadgen", {"metrics", "http", "tokenizer", "core"}},                   // never perfmodel, engine or sim
      {"agentic", {"loadgen", "metrics", "http", "tokenizer", "core"}},  // a client: never perfmodel, engine or sim
      {"eval", {"loadgen", "metrics", "http", "core"}},  // a client that scores answers: never perfmodel, engine or sim
      {"engine", {"perfmodel", "http", "tokenizer", "core"}},
      {"sim", {"agentic", "loadgen", "calibration", "perfmodel", "metrics", "core"}},  // records calibration's traces
      // eval: a row's accuracy eval runs in process against the row's server, as its clients do
      {"runner",
       {"agentic", "eval", "sim", "gpu", "loadgen", "report", "store", "results", "power", "matrix", "calibration",
        "perfmodel", "metrics", "http", "catalog", "core"}},
  };
  return g;
}

TEST(Layering, EveryIncludeOfAnotherModuleIsADeclaredDependency) {
  const std::set<std::string> modules = Modules();
  const Graph deps = CmakeDeps(modules);
  for (const auto& [m, includes] : Includes(modules)) {
    if (m == "cli") continue;  // the binary links every module
    ASSERT_TRUE(deps.count(m)) << "src/" << m << " has no infermark_module() declaration";
    for (const auto& [target, where] : includes) {
      if (target == m) continue;
      EXPECT_TRUE(deps.at(m).count(target))
          << where << ": " << m << " includes " << target << " but its CMake target does not depend on it";
    }
  }
}

TEST(Layering, DependenciesPointTheWaysTheDesignAllows) {
  const std::set<std::string> modules = Modules();
  for (const auto& [m, targets] : CmakeDeps(modules)) {
    ASSERT_TRUE(Allowed().count(m)) << "module " << m << " is not in the design's layering: add it there first";
    for (const auto& t : targets) {
      EXPECT_TRUE(Allowed().at(m).count(t)) << m << " may not depend on " << t;
    }
  }
  // Every module the design names exists, and every folder is a module the design names.
  for (const auto& [m, ignored] : Allowed()) EXPECT_TRUE(modules.count(m)) << "src/" << m << " is missing";
  for (const auto& m : modules) EXPECT_TRUE(m == "cli" || Allowed().count(m)) << "src/" << m << " is unknown";
}

TEST(Layering, TheArchitectureDocumentDrawsTheRealDependencies) {
  // docs/architecture.md keeps the graph as lines `module: dep dep …` inside a fenced block that
  // follows the marker line; it must equal the CMake declarations.
  const std::string doc = Read(SourcePath("docs/architecture.md"));
  const std::string marker = "<!-- module dependencies: checked against CMake by tests/architecture -->";
  const std::size_t at = doc.find(marker);
  ASSERT_NE(at, std::string::npos) << "docs/architecture.md lost its dependency block";
  const std::size_t open = doc.find("```\n", at);
  const std::size_t close = doc.find("```", open + 4);
  ASSERT_NE(close, std::string::npos);
  std::istringstream block(doc.substr(open + 4, close - open - 4));
  Graph drawn;
  for (std::string line; std::getline(block, line);) {
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string m = line.substr(0, colon);
    std::istringstream rest(line.substr(colon + 1));
    drawn[m];
    for (std::string dep; rest >> dep;) drawn[m].insert(dep);
  }
  const std::set<std::string> modules = Modules();
  Graph real = CmakeDeps(modules);
  EXPECT_EQ(drawn, real);
  // The README's layout names every module.
  const std::string readme = Read(SourcePath("README.md"));
  for (const auto& m : modules) EXPECT_NE(readme.find("`src/" + m + "/`"), std::string::npos) << m;
}

}  // namespace
}  // namespace infermark::test
