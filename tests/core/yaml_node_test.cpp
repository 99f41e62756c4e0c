#include "core/yaml_node.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/diagnostic.hpp"

namespace infermark {
namespace {

YamlNode Scalar(const std::string& text) {
  return ParseYaml("v: " + text + "\n", "t.yaml").root.entries.at(0).second;
}

TEST(YamlNode, ResolvesPlainScalarsAsPyYamlDoes) {
  EXPECT_EQ(Scalar("8").kind, YamlKind::kInt);
  EXPECT_EQ(Scalar("8").int_value, 8);
  EXPECT_EQ(Scalar("0x1F").int_value, 31);
  EXPECT_EQ(Scalar("010").int_value, 8);  // YAML 1.1 octal
  EXPECT_EQ(Scalar("0b101").int_value, 5);
  EXPECT_EQ(Scalar("1_000").int_value, 1000);
  EXPECT_EQ(Scalar("1:30").int_value, 90);  // sexagesimal
  EXPECT_EQ(Scalar("-7").int_value, -7);
  EXPECT_EQ(Scalar("09").kind, YamlKind::kString);   // not octal, not decimal
  EXPECT_EQ(Scalar("1e5").kind, YamlKind::kString);  // YAML 1.1 floats need a dot
  EXPECT_EQ(Scalar("1.5").kind, YamlKind::kFloat);
  EXPECT_DOUBLE_EQ(Scalar("1.0e+3").float_value, 1000.0);
  EXPECT_DOUBLE_EQ(Scalar(".5").float_value, 0.5);
  EXPECT_TRUE(std::isinf(Scalar("-.inf").float_value));
  EXPECT_TRUE(std::isnan(Scalar(".NaN").float_value));
  EXPECT_EQ(Scalar("yes").kind, YamlKind::kBool);
  EXPECT_TRUE(Scalar("On").bool_value);
  EXPECT_FALSE(Scalar("FALSE").bool_value);
  EXPECT_EQ(Scalar("~").kind, YamlKind::kNull);
  EXPECT_EQ(Scalar("").kind, YamlKind::kNull);
  EXPECT_EQ(Scalar("2025-10-01").kind, YamlKind::kTimestamp);
  EXPECT_EQ(Scalar("'8'").kind, YamlKind::kString);
  EXPECT_EQ(Scalar("!!str 8").kind, YamlKind::kString);
  EXPECT_EQ(Scalar("vllm").kind, YamlKind::kString);
}

TEST(YamlNode, FlagsIntegersBeyond64Bits) {
  const YamlNode big = Scalar("99999999999999999999999999");
  EXPECT_EQ(big.kind, YamlKind::kInt);
  EXPECT_TRUE(big.int_overflow);
  EXPECT_FALSE(Scalar("9223372036854775807").int_overflow);
  EXPECT_EQ(Scalar("-9223372036854775808").int_value, INT64_MIN);
  EXPECT_TRUE(Scalar("9223372036854775808").int_overflow);
}

TEST(YamlNode, KeepsKeyOrderAndMarks) {
  const auto doc = ParseYaml("b: 1\na:\n  - x\n  - {k: v}\n", "m.yaml");
  ASSERT_EQ(doc.root.entries.size(), 2u);
  EXPECT_EQ(doc.root.entries[0].first.text, "b");
  EXPECT_EQ(doc.root.entries[1].first.text, "a");
  const YamlNode* a = doc.root.Find("a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->items[1].line, 4);
  EXPECT_EQ(a->items[1].column, 5);
  EXPECT_EQ(a->items[1].Find("k")->text, "v");
}

TEST(YamlNode, ExpandsAliasesAndMergeKeys) {
  const auto doc = ParseYaml("base: &b {x: 1, y: 2}\nuse: {<<: *b, x: 3, z: 4}\ncopy: *b\n", "a.yaml");
  const YamlNode* use = doc.root.Find("use");
  ASSERT_EQ(use->entries.size(), 3u);
  EXPECT_EQ(use->entries[0].first.text, "x");
  EXPECT_EQ(use->entries[0].second.int_value, 3);
  EXPECT_EQ(use->entries[1].first.text, "y");
  EXPECT_EQ(use->entries[2].first.text, "z");
  EXPECT_EQ(doc.root.Find("copy")->entries.size(), 2u);
}

std::string ErrorOf(const std::string& text) {
  try {
    ParseYaml(text, "bad.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(YamlNode, RejectsBadInputWithALocation) {
  EXPECT_EQ(ErrorOf("a: 1\na: 2\n"), "bad.yaml:2:1: duplicate key 'a' (first defined at line 1)");
  EXPECT_NE(ErrorOf("a: [1, 2\n").find("bad.yaml:2:1: YAML syntax error"), std::string::npos);
  EXPECT_NE(ErrorOf("a: *nothing\n").find("refers to no anchor"), std::string::npos);
  EXPECT_NE(ErrorOf("a: !custom 1\n").find("unsupported tag"), std::string::npos);
  EXPECT_NE(ErrorOf("a: 1\n---\nb: 2\n").find("single YAML document"), std::string::npos);
  EXPECT_NE(ErrorOf(std::string("a: \0\n", 5)).find("NUL byte"), std::string::npos);
  EXPECT_NE(ErrorOf("a: \xff\xfe\n").find("bad.yaml:"), std::string::npos);
}

// Large mappings find duplicates through a hash index instead of a scan; the verdicts must match.
TEST(YamlNode, FindsDuplicateKeysInLargeMappings) {
  std::string keys;
  for (int i = 0; i < 40; ++i) keys += "  k" + std::to_string(i) + ": " + std::to_string(i) + "\n";
  const std::string large = "m:\n" + keys;
  EXPECT_EQ(ErrorOf(large + "  k3: again\n"), "bad.yaml:42:3: duplicate key 'k3' (first defined at line 5)");
  EXPECT_EQ(ErrorOf(large + "  k39: again\n"), "bad.yaml:42:3: duplicate key 'k39' (first defined at line 41)");
  std::string kinds;  // the integer 7 and the string '7' are different keys
  for (int i = 0; i < 40; ++i) kinds += std::to_string(i) + ": a\n'" + std::to_string(i) + "': b\n";
  EXPECT_EQ(ParseYaml(kinds, "k.yaml").root.entries.size(), 80u);
  EXPECT_EQ(ErrorOf(kinds + "7: c\n"), "bad.yaml:81:1: duplicate key '7' (first defined at line 15)");
  const auto merged = ParseYaml("b: &b {k1: m, z: m}\nuse:\n  <<: *b\n" + keys, "m.yaml");
  const YamlNode* use = merged.root.Find("use");
  ASSERT_EQ(use->entries.size(), 41u);
  EXPECT_EQ(use->entries[0].first.text, "k1");
  EXPECT_EQ(use->entries[0].second.int_value, 1);
  EXPECT_EQ(use->entries[1].first.text, "z");
}

TEST(YamlNode, BoundsNestingAndAliasBombs) {
  EXPECT_NE(ErrorOf(std::string(10000, '[') + std::string(10000, ']')).find("nesting deeper"), std::string::npos);
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'j'; ++c, ++prev) {
    bomb += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) bomb += std::string(i ? ", *" : "*") + prev;
    bomb += "]\n";
  }
  EXPECT_NE(ErrorOf(bomb).find("alias bomb"), std::string::npos);
}

}  // namespace
}  // namespace infermark
