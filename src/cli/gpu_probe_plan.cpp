#include "cli/gpu_probe_plan.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "core/diagnostic.hpp"
#include "perfmodel/engine_data.hpp"
#include "perfmodel/kernel_shapes.hpp"

namespace infermark::cli {
namespace {

namespace fs = std::filesystem;
using perfmodel::ProbedGemm;

void AddGemm(GemmPlan& plan,
             std::map<std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t, int>, std::size_t>& unique,
             ProbedGemm entry) {
  const auto key = std::make_tuple(entry.dtype, entry.m, entry.n, entry.k, entry.experts);
  auto it = unique.find(key);
  if (it == unique.end()) {
    it = unique.emplace(key, plan.requests.size()).first;
    plan.requests.push_back(
        {{"dtype", entry.dtype}, {"m", entry.m}, {"n", entry.n}, {"k", entry.k}, {"experts", entry.experts}});
  }
  plan.request_index.push_back(it->second);
  plan.entries.push_back(std::move(entry));
}

}  // namespace

std::vector<std::int64_t> DecodeBatches(bool quick) {
  if (quick) return {1, 64, 256};
  return {1, 8, 32, 64, 128, 256};
}

std::vector<perfmodel::ModelSpec> Models(const std::vector<std::string>& names) {
  std::vector<perfmodel::ModelSpec> all;
  const fs::path dir = fs::path(perfmodel::EngineDataDir()) / "models";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) all.push_back(perfmodel::LoadModelFile(file.string()));
  if (names.empty()) return all;
  std::vector<perfmodel::ModelSpec> chosen;
  for (const std::string& name : names) {
    bool found = false;
    for (const perfmodel::ModelSpec& m : all) {
      if (m.name == name || std::find(m.aliases.begin(), m.aliases.end(), name) != m.aliases.end()) {
        chosen.push_back(m);
        found = true;
        break;
      }
    }
    if (!found) {
      std::string known;
      for (const perfmodel::ModelSpec& m : all) known += (known.empty() ? "" : ", ") + m.name;
      throw InputError(
          Diagnostic{SourceMark{}, "", "--models", "unknown model '" + name + "' (built-in: " + known + ")"});
    }
  }
  return chosen;
}

GemmPlan PlanGemms(const std::vector<perfmodel::ModelSpec>& models, const std::vector<int>& tps, bool quick) {
  GemmPlan plan;
  std::map<std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t, int>, std::size_t> unique;
  std::vector<std::pair<std::string, std::int64_t>> phases;
  for (const std::int64_t m : DecodeBatches(quick)) phases.emplace_back("decode", m);
  phases.emplace_back("prefill", kPrefillTokens);
  for (const perfmodel::ModelSpec& model : models) {
    for (const int tp : tps) {
      for (const perfmodel::KernelShape& shape : perfmodel::KernelShapes(model, tp)) {
        for (const auto& [phase, tokens] : phases) {
          // A prefill step projects only each sequence's last token onto the vocabulary.
          if (phase == "prefill" && shape.op == "lm_head") continue;
          ProbedGemm g;
          g.model = model.name;
          g.op = shape.op;
          g.phase = phase;
          g.tp = shape.tp;
          g.n = shape.n;
          g.k = shape.k;
          if (shape.Grouped()) {
            const perfmodel::ExpertLoad load = perfmodel::UniformExpertLoad(shape, tokens);
            g.m = load.m;
            g.experts = load.experts;
            g.dtype = "bf16";
            AddGemm(plan, unique, g);
            continue;
          }
          g.m = tokens;
          for (const char* dtype : {"bf16", "fp8"}) {
            g.dtype = dtype;
            AddGemm(plan, unique, g);
          }
        }
      }
    }
  }
  return plan;
}

CollectivePlan PlanCollectives(const std::vector<perfmodel::ModelSpec>& models, bool quick) {
  CollectivePlan plan;
  std::set<std::pair<std::string, std::int64_t>> unique;
  for (const perfmodel::ModelSpec& model : models) {
    for (const perfmodel::CollectiveShape& s :
         perfmodel::CollectiveShapes(model, DecodeBatches(quick), kPrefillTokens)) {
      if (unique.insert({s.op, s.bytes}).second) plan.tests.push_back({{"op", s.op}, {"bytes", s.bytes}});
      plan.shapes.push_back(s);
    }
  }
  return plan;
}

}  // namespace infermark::cli
