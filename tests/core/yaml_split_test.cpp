#include "core/yaml_split.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"
#include "core/yaml_compare.hpp"
#include "test_paths.hpp"

namespace infermark {
namespace {

std::string ErrorOf(std::string_view text, std::size_t ranges) {
  try {
    (void)(ranges == 0 ? ParseYaml(text, "t.yaml") : ParseYamlInRanges(text, "t.yaml", ranges));
  } catch (const InputError& e) {
    return e.diagnostics().front().ToString();
  }
  return "";
}

// Checks the split parse against the whole one and returns whether it used the ranges.
bool ExpectSameAsWhole(std::string_view text, std::size_t ranges) {
  const std::string whole_error = ErrorOf(text, 0);
  EXPECT_EQ(ErrorOf(text, ranges), whole_error) << "ranges=" << ranges;
  if (!whole_error.empty()) return false;
  bool used_ranges = false;
  const YamlDocument whole = ParseYaml(text, "t.yaml");
  const YamlDocument split = ParseYamlInRanges(text, "t.yaml", ranges, {}, &used_ranges);
  EXPECT_TRUE(SameYamlTree(whole.root, split.root)) << "ranges=" << ranges;
  return used_ranges;
}

TEST(YamlSplit, RealMasterConfigsGiveTheWholeParsesTree) {
  for (const char* file : {"amd-master.yaml", "nvidia-master.yaml"}) {
    const std::string text = ReadFile(test::Fixture(std::string("inferencex/configs/") + file));
    for (std::size_t ranges : {2u, 3u, 7u, 16u}) EXPECT_TRUE(ExpectSameAsWhole(text, ranges)) << file;
    const YamlDocument split = ParseYamlInRanges(text, file, 5);
    EXPECT_GT(split.root.entries.size(), 10u);
  }
}

TEST(YamlSplit, MarksCountLinesOfEarlierRanges) {
  std::string text;
  for (int i = 0; i < 40; ++i) text += "key" + std::to_string(i) + ":\n  a: 1\n  b: [x, y]\n# comment\n";
  const YamlDocument split = ParseYamlInRanges(text, "t.yaml", 4);
  ASSERT_EQ(split.root.entries.size(), 40u);
  EXPECT_EQ(split.root.entries[39].first.line, 39 * 4 + 1);
  EXPECT_EQ(split.root.entries[39].second.entries[1].second.line, 39 * 4 + 3);
  EXPECT_TRUE(ExpectSameAsWhole(text, 4));
}

TEST(YamlSplit, WhatACutCouldChangeGoesThroughTheWholeParse) {
  std::string body;
  for (int i = 0; i < 30; ++i) body += "k" + std::to_string(i) + ": v\n";
  const std::string cases[] = {
      // a key repeated across ranges: the whole parse's message names both lines
      body + "k0: again\n",
      // an alias to an anchor in an earlier range
      "base: &b {x: 1}\n" + body + "use: *b\n",
      // a merge key
      "base: &b {x: 1}\n" + body + "use:\n  <<: *b\n  y: 2\n",
      // a double-quoted scalar continuing at column 0
      "long: \"first\n" + body + "last\"\n",
      // a second document
      body + "---\n" + body,
      // a bad line in a late range
      body + "broken: [1, 2\n",
      // CR alone as a line break
      "a: 1\r" + body,
      // a root that is a list
      "- 1\n" + body,
      // an indented mapping, then keys at column 0 (found by the fuzzer)
      "# comment\n  a: 1\n  b: 2\n" + body,
      // a flow mapping, then keys at column 0
      "{a: 1}\n" + body,
  };
  for (const auto& text : cases) {
    for (std::size_t ranges : {2u, 3u, 5u}) EXPECT_FALSE(ExpectSameAsWhole(text, ranges)) << text;
  }
  EXPECT_NE(ErrorOf(cases[0], 3).find("duplicate key 'k0'"), std::string::npos);
}

TEST(YamlSplit, TheNodeLimitHoldsForTheJoinedTree) {
  std::string text;
  for (int i = 0; i < 40; ++i) text += "k" + std::to_string(i) + ": [1, 2, 3]\n";
  YamlLimits limits;
  limits.max_nodes = 100;  // 40 keys + 40 lists + 120 items: over
  EXPECT_THROW((void)ParseYamlInRanges(text, "t.yaml", 4, limits), InputError);
  EXPECT_NO_THROW((void)ParseYamlInRanges(text, "t.yaml", 4));
}

}  // namespace
}  // namespace infermark
