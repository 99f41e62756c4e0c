// The collectives each built-in model exchanges, at the sizes `gpu probe --collectives` times, and
// the step-time model's cost of each.
#include "perfmodel/collective_shapes.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "perfmodel/engine_data.hpp"
#include "perfmodel/project_engine_data.hpp"
#include "perfmodel/step_time.hpp"
#include "test_paths.hpp"

namespace infermark::perfmodel {
namespace {

const ModelSpec& Model(const std::string& name) {
  for (const ModelSpec& m : test::ProjectEngineData().models)
    if (m.name == name) return m;
  throw std::runtime_error("no model " + name);
}

std::map<std::string, CollectiveShape> ByUse(const std::vector<CollectiveShape>& shapes, const std::string& phase,
                                             std::int64_t tokens) {
  std::map<std::string, CollectiveShape> out;
  for (const CollectiveShape& s : shapes)
    if (s.phase == phase && (s.tokens == tokens || s.use == "logits_all_gather")) out[s.use] = s;
  return out;
}

TEST(CollectiveShapes, DeepSeekR1ExchangesHiddenStatesRoutedTokensAndLogits) {
  const ModelSpec& m = Model("deepseek-r1");  // hidden 7168, 61 layers (3 dense), top-8 of 256, vocab 129280
  const auto shapes = CollectiveShapes(m, {1, 64, 256}, 8192);
  auto d = ByUse(shapes, "decode", 64);
  EXPECT_EQ(d["tp_all_reduce"].op, "all_reduce");
  EXPECT_EQ(d["tp_all_reduce"].bytes, 64 * 7168 * 2);
  EXPECT_EQ(d["tp_all_reduce"].per_step, 122);
  EXPECT_EQ(d["dp_all_gather"].bytes, 64 * 7168 * 2);
  EXPECT_EQ(d["dp_all_gather"].per_step, 58);
  EXPECT_EQ(d["dp_reduce_scatter"].op, "reduce_scatter");
  EXPECT_EQ(d["ep_dispatch"].op, "all_to_all");
  EXPECT_EQ(d["ep_dispatch"].bytes, 64 * 8 * 7168);     // fp8
  EXPECT_EQ(d["ep_combine"].bytes, 64 * 8 * 7168 * 2);  // bf16
  const auto p = ByUse(shapes, "prefill", 8192);
  EXPECT_EQ(p.at("tp_all_reduce").bytes, 8192LL * 7168 * 2);
  EXPECT_EQ(p.at("logits_all_gather").tokens, 1);  // the last token of the one sequence
  EXPECT_EQ(p.at("logits_all_gather").bytes, 129280LL * 2);
  // Three decode batches and one prefill, six uses each.
  EXPECT_EQ(shapes.size(), 4u * 6u);
}

TEST(CollectiveShapes, DenseModelsHaveNoExpertOrGatherTraffic) {
  const ModelSpec& m = Model("llama-3.3-70b");
  std::set<std::string> uses;
  for (const CollectiveShape& s : CollectiveShapes(m, {1, 8}, 8192)) uses.insert(s.use);
  EXPECT_EQ(uses, (std::set<std::string>{"tp_all_reduce", "logits_all_gather"}));
}

TEST(CollectiveShapes, EveryBuiltInModelHasSizesForEveryBatch) {
  for (const ModelSpec& m : test::ProjectEngineData().models) {
    const auto shapes = CollectiveShapes(m, {1, 8, 32, 64, 128, 256}, 8192);
    std::size_t reduces = 0;
    for (const CollectiveShape& s : shapes) {
      EXPECT_GT(s.bytes, 0) << m.name << " " << s.use;
      if (s.use == "tp_all_reduce") {
        ++reduces;
        EXPECT_EQ(s.bytes, s.tokens * m.hidden * 2) << m.name;
      }
    }
    EXPECT_EQ(reduces, 7u) << m.name;
  }
}

TEST(CollectiveShapes, BusFactorsFollowNcclTests) {
  EXPECT_DOUBLE_EQ(BusFactor("all_reduce", 8), 1.75);
  EXPECT_DOUBLE_EQ(BusFactor("all_gather", 8), 0.875);
  EXPECT_DOUBLE_EQ(BusFactor("reduce_scatter", 4), 0.75);
  EXPECT_DOUBLE_EQ(BusFactor("all_to_all", 2), 0.5);
  EXPECT_DOUBLE_EQ(BusFactor("all_reduce", 1), 0);
}

TEST(CollectiveShapes, TheModelTermIsTheStepTimeModelsAllReduce) {
  DeploymentOptions o;
  o.model = "llama-3.3-70b";
  o.hardware = "h200";
  o.precision = "bf16";
  o.tp = 8;
  const Deployment d = ResolveDeployment(test::ProjectEngineData(), o);
  const HardwareSpec& hw = d.hardware;
  const EfficiencyFactors e = d.efficiency;
  const double bytes = 256.0 * 8192 * 2;
  const double latency = e.allreduce_latency_us >= 0 ? e.allreduce_latency_us * 1e-6 : hw.allreduce_latency_s;
  EXPECT_DOUBLE_EQ(ModelCollectiveSeconds(hw, e, "all_reduce", 8, bytes),
                   latency + 1.75 * bytes / (e.link_bw_fraction * hw.link_bytes_per_s));
  // The step time's collective share: two all-reduces per layer, as the model costs them.
  StepTimeModel model(d);
  EfficiencyFactors no_link = e;
  no_link.link_bw_fraction = 1e9;  // link time ~0
  BatchShape shape;
  AddDecode(shape, 1024, 1, model.caps());
  StepTimeModel fast(d);
  fast.SetEfficiency(no_link);
  const double collective_share = model.Seconds(shape) - fast.Seconds(shape);
  EXPECT_NEAR(collective_share, 2 * 80 * (ModelCollectiveSeconds(hw, e, "all_reduce", 8, 8192 * 2) - latency), 1e-12);
  EXPECT_LT(ModelCollectiveSeconds(hw, e, "all_gather", 8, bytes), 0);  // not costed by the model
  EXPECT_EQ(ModelCollectiveSeconds(hw, e, "all_to_all", 1, bytes), 0);
}

}  // namespace
}  // namespace infermark::perfmodel
