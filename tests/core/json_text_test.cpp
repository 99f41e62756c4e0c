#include "core/json_text.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/sha256.hpp"

namespace infermark {
namespace {

TEST(JsonText, WritesPythonJsonDumpsLayout) {
  Json row = Json::object();
  row["image"] = "vllm/x:1";
  row["tp"] = 8;
  row["dp-attn"] = false;
  row["conc"] = Json::array({1, 2});
  row["router"] = nullptr;
  EXPECT_EQ(DumpJson(row), R"({"image": "vllm/x:1", "tp": 8, "dp-attn": false, "conc": [1, 2], "router": null})");
  EXPECT_EQ(DumpJson(row, kCompactJson), R"({"image":"vllm/x:1","tp":8,"dp-attn":false,"conc":[1,2],"router":null})");
  EXPECT_EQ(DumpJson(row, kCanonicalJson), R"({"conc":[1,2],"dp-attn":false,"image":"vllm/x:1","router":null,"tp":8})");
}

TEST(JsonText, EscapesLikePython) {
  EXPECT_EQ(DumpJson(Json("a\"b\\c\n\t\x01\x7f")), R"("a\"b\\c\n\t\u0001\u007f")");
  EXPECT_EQ(DumpJson(Json("é😀")), R"("\u00e9\ud83d\ude00")");
  EXPECT_EQ(DumpJson(Json("é"), kCompactJson), "\"é\"");
  EXPECT_EQ(DumpJson(Json("a/b")), R"("a/b")");
}

TEST(JsonText, WritesFloatsAsPythonRepr) {
  EXPECT_EQ(DumpJson(Json(0.9)), "0.9");
  EXPECT_EQ(DumpJson(Json(100.0)), "100.0");
  EXPECT_EQ(DumpJson(Json(1e-5)), "1e-05");
  EXPECT_EQ(DumpJson(Json(0.0001)), "0.0001");
  EXPECT_EQ(DumpJson(Json(1e16)), "1e+16");
  EXPECT_EQ(DumpJson(Json(1e15)), "1000000000000000.0");
  EXPECT_EQ(DumpJson(Json(std::nan(""))), "NaN");
  EXPECT_EQ(DumpJson(Json(-HUGE_VAL)), "-Infinity");
}

TEST(Sha256, MatchesKnownDigest) {
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace infermark
