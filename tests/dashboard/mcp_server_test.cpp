// `infermark mcp`'s protocol on a fixture store, message by message: the handshake, tools listed with
// their schemas, calls answered with structured content cut to the row limit, arguments checked
// (JSON-RPC's invalid params, naming the argument), a store's refusal reported as the tool's error,
// notifications unanswered, malformed lines and unknown methods answered as JSON-RPC says.
// tests/dashboard/api/mcp_test.mjs drives the built binary with the official MCP client.
#include "dashboard/mcp_server.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "dashboard_fixture.hpp"

namespace infermark::dashboard {
namespace {

class McpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::TempDir("mcp");
    const std::string url = "sqlite:" + (dir_ / "store.db").string();
    test::FillStore(url);
    McpOptions options;
    options.db = url;
    options.limits.default_rows = 3;
    options.limits.max_rows = 10;
    server_ = std::make_unique<McpServer>(options);
  }
  void TearDown() override {
    server_.reset();
    std::filesystem::remove_all(dir_);
  }

  Json Request(const std::string& method, const Json& params = Json::object()) {
    const Json message = {{"jsonrpc", "2.0"}, {"id", ++id_}, {"method", method}, {"params", params}};
    const std::optional<std::string> reply = server_->HandleLine(message.dump());
    EXPECT_TRUE(reply.has_value()) << method;
    const Json body = Json::parse(reply.value_or("{}"));
    EXPECT_EQ(body["id"], id_);
    return body;
  }
  Json Call(const std::string& tool, const Json& arguments) {
    return Request("tools/call", {{"name", tool}, {"arguments", arguments}});
  }

  std::filesystem::path dir_;
  std::unique_ptr<McpServer> server_;
  int id_ = 0;
};

TEST_F(McpServerTest, InitializesAndListsReadOnlyTools) {
  const Json init = Request("initialize", {{"protocolVersion", "2025-03-26"},
                                           {"capabilities", Json::object()},
                                           {"clientInfo", {{"name", "test"}, {"version", "1"}}}});
  EXPECT_EQ(init["result"]["protocolVersion"], "2025-03-26");
  EXPECT_EQ(init["result"]["serverInfo"]["name"], "infermark");
  EXPECT_TRUE(init["result"]["capabilities"].contains("tools"));
  // A revision it does not know: it offers its newest.
  EXPECT_EQ(Request("initialize", {{"protocolVersion", "1999-01-01"}})["result"]["protocolVersion"],
            kMcpProtocolVersions[0]);
  EXPECT_FALSE(server_->HandleLine(R"({"jsonrpc":"2.0","method":"notifications/initialized"})").has_value());
  EXPECT_EQ(Request("ping")["result"], Json::object());
  const Json tools = Request("tools/list")["result"]["tools"];
  std::set<std::string> names;
  for (const Json& t : tools) {
    names.insert(t["name"]);
    EXPECT_EQ(t["inputSchema"]["type"], "object");
    EXPECT_EQ(t["inputSchema"]["additionalProperties"], false);
    EXPECT_EQ(t["annotations"]["readOnlyHint"], true);
  }
  EXPECT_EQ(names, (std::set<std::string>{"list_hardware", "list_models", "list_frameworks", "list_runs", "points",
                                          "frontier_at_interactivity", "compare_runs", "evaluations", "eval_samples",
                                          "reliability", "query_sql"}));
}

TEST_F(McpServerTest, CallsAnswerStructuredContentCutToTheRowLimit) {
  const Json hardware = Call("list_hardware", Json::object())["result"];
  EXPECT_EQ(hardware["isError"], false);
  const Json& items = hardware["structuredContent"]["items"];
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0]["name"], "b200");
  // The text content is the same object, for clients that read text only.
  EXPECT_EQ(Json::parse(hardware["content"][0]["text"].get<std::string>()), hardware["structuredContent"]);

  const Json points = Call("points", {{"hardware", "mi355x"}, {"sequence", "1k/1k"}})["result"]["structuredContent"];
  EXPECT_EQ(points["returned"], 3);
  EXPECT_EQ(points["truncated"], true);
  EXPECT_GT(points["total"].get<int>(), 3);
  EXPECT_TRUE(points["points"][0].contains("tput_per_gpu"));
  EXPECT_FALSE(points["points"][0].contains("provenance"));  // the compact fields unless asked
  const Json all = Call("points", {{"hardware", Json::array({"b200"})}, {"fields", "all"}, {"limit", 10}});
  EXPECT_TRUE(all["result"]["structuredContent"]["points"][0].contains("provenance"));

  const Json iso =
      Call("frontier_at_interactivity", {{"interactivity", Json::array({20, 40})}, {"model", "amd/MiniMax-M3-MXFP4"}});
  EXPECT_FALSE(iso["result"]["structuredContent"]["rows"].empty());
  const Json compare = Call("compare_runs", {{"base", "nightly-1"}, {"head", "nightly-2"}})["result"];
  EXPECT_EQ(compare["structuredContent"]["base"]["key"], "nightly-1");
  EXPECT_EQ(compare["structuredContent"]["rows"][0]["regression"], true);  // regressions first
  const Json sql = Call("query_sql", {{"sql", "SELECT COUNT(*) AS n FROM points"}})["result"]["structuredContent"];
  EXPECT_EQ(sql["columns"], Json::array({"n"}));
  EXPECT_EQ(sql["rows"][0][0], 21);
}

TEST_F(McpServerTest, BadArgumentsAreInvalidParamsNamingTheArgument) {
  const auto error = [&](const std::string& tool, const Json& arguments) {
    const Json reply = Call(tool, arguments);
    EXPECT_EQ(reply["error"]["code"], -32602) << reply.dump();
    return reply["error"]["message"].get<std::string>();
  };
  EXPECT_NE(error("points", {{"hardwares", "b200"}}).find("argument 'hardwares'"), std::string::npos);
  EXPECT_NE(error("points", {{"limit", 0}}).find("argument 'limit'"), std::string::npos);
  EXPECT_NE(error("points", {{"limit", 11}}).find("at most 10"), std::string::npos);
  EXPECT_NE(error("points", {{"hardware", 7}}).find("argument 'hardware'"), std::string::npos);
  EXPECT_NE(error("points", {{"from", "yesterday"}}).find("argument 'from'"), std::string::npos);  // the route's rule
  EXPECT_NE(error("points", {{"run", "no-such-run"}}).find("argument 'run'"), std::string::npos);
  EXPECT_NE(error("frontier_at_interactivity", Json::object()).find("argument 'interactivity'"), std::string::npos);
  EXPECT_NE(error("compare_runs", {{"base", "nightly-1"}}).find("argument 'head'"), std::string::npos);
  EXPECT_NE(error("no_such_tool", Json::object()).find("no tool named 'no_such_tool'"), std::string::npos);
  // What the store refuses is the tool's own error.
  const Json write = Call("query_sql", {{"sql", "DELETE FROM points"}})["result"];
  EXPECT_EQ(write["isError"], true);
  EXPECT_NE(write["content"][0]["text"].get<std::string>().find("read-only"), std::string::npos);
}

TEST_F(McpServerTest, MalformedMessagesAndUnknownMethodsGetJsonRpcErrors) {
  EXPECT_EQ(Json::parse(*server_->HandleLine("{not json"))["error"]["code"], -32700);
  EXPECT_EQ(Request("resources/list")["error"]["code"], -32601);
  EXPECT_EQ(Json::parse(*server_->HandleLine(R"({"id": 1, "method": "ping"})"))["error"]["code"], -32600);
  EXPECT_FALSE(server_->HandleLine("   ").has_value());
  const Json batch = Json::parse(*server_->HandleLine(
      R"([{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}])"));
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch[0]["id"], "a");
  std::istringstream in("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n\n");
  std::ostringstream out;
  server_->Serve(in, out);
  EXPECT_EQ(out.str(), "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n");
}

}  // namespace
}  // namespace infermark::dashboard
