// Loopback request/response: routing, keep-alive reuse, answers from other threads, HTTP/1.0.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "http/client.hpp"
#include "http/server.hpp"
#include "raw_socket.hpp"

namespace infermark::http {
namespace {

ClientRequest Post(std::string target, std::string body) {
  ClientRequest request;
  request.target = std::move(target);
  request.body = std::move(body);
  return request;
}

ClientRequest Get(std::string target) {
  ClientRequest request;
  request.method = "GET";
  request.target = std::move(target);
  return request;
}

class ServerClientTest : public testing::Test {
 protected:
  void SetUp() override {
    server_.Route("POST", "/echo", [](Request& request, Responder responder) {
      Response response;
      response.content_type = "text/plain";
      response.body = request.method + " " + request.target + " " + request.body + " " +
                      std::string(request.FindHeader("x-test").value_or("-"));
      response.headers.push_back({"X-Reply", "yes"});
      responder.Respond(response);
    });
    server_.Route("GET", "/later", [](Request&, Responder responder) {
      std::thread([r = std::move(responder)]() mutable {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        r.Respond(200, "text/plain", "from another thread");
      }).detach();
    });
    server_.Route("GET", "/unchanged", [](Request&, Responder responder) {
      Response response;
      response.status = 304;
      response.body = "bytes a 304 must not carry";
      response.headers.push_back({"ETag", "\"t1\""});
      responder.Respond(response);
    });
    server_.Route("GET", "/forgotten", [](Request&, Responder) {});
    server_.Route("GET", "/throws", [](Request&, Responder) { throw std::runtime_error("bug"); });
    server_.Start();
  }

  Server server_{ServerOptions{}};
};

TEST_F(ServerClientTest, AnswersAPostWithHeadersAndBody) {
  Client client({.port = server_.port()});
  ClientRequest request = Post("/echo?q=1", R"({"prompt":"hi"})");
  request.headers.push_back({"X-Test", "42"});
  const FetchResult fetched = client.Fetch(request);
  ASSERT_TRUE(fetched.result.ok()) << fetched.result.message;
  EXPECT_EQ(fetched.result.status, 200);
  EXPECT_EQ(fetched.body, R"(POST /echo?q=1 {"prompt":"hi"} 42)");
  EXPECT_EQ(FindHeader(fetched.head.headers, "x-reply").value_or(""), "yes");
  EXPECT_EQ(FindHeader(fetched.head.headers, "content-type").value_or(""), "text/plain");
  EXPECT_GT(fetched.result.sent_ns, 0);
  EXPECT_GE(fetched.result.first_byte_ns, fetched.result.sent_ns);
  EXPECT_GE(fetched.result.done_ns, fetched.result.first_byte_ns);
}

TEST_F(ServerClientTest, ReusesOneConnectionForManyRequests) {
  Client client({.port = server_.port()});
  for (int i = 0; i < 200; ++i) {
    const FetchResult fetched = client.Fetch(Post("/echo", std::to_string(i)));
    ASSERT_TRUE(fetched.result.ok()) << fetched.result.message;
    ASSERT_EQ(fetched.body, "POST /echo " + std::to_string(i) + " -");
    EXPECT_EQ(fetched.result.reused_connection, i > 0);
  }
  EXPECT_EQ(client.Stats().connections_opened, 1u);
  EXPECT_EQ(server_.Stats().connections_accepted, 1u);
  EXPECT_EQ(server_.Stats().requests, 200u);
}

TEST_F(ServerClientTest, AnswersFromAnotherThreadLater) {
  Client client({.port = server_.port()});
  const FetchResult fetched = client.Fetch(Get("/later"));
  ASSERT_TRUE(fetched.result.ok()) << fetched.result.message;
  EXPECT_EQ(fetched.body, "from another thread");
}

TEST_F(ServerClientTest, ReportsErrorStatusesAsData) {
  Client client({.port = server_.port()});
  FetchResult fetched = client.Fetch(Get("/nowhere"));
  EXPECT_EQ(fetched.result.error, ErrorKind::kHttpStatus);
  EXPECT_EQ(fetched.result.status, 404);
  EXPECT_NE(fetched.result.message.find("HTTP 404"), std::string::npos);
  fetched = client.Fetch(Get("/echo"));
  EXPECT_EQ(fetched.result.status, 405);
  fetched = client.Fetch(Get("/forgotten"));
  EXPECT_EQ(fetched.result.status, 500);
  fetched = client.Fetch(Get("/throws"));
  EXPECT_EQ(fetched.result.status, 500);
  // The connection survived all of it.
  fetched = client.Fetch(Post("/echo", "ok"));
  EXPECT_TRUE(fetched.result.ok());
  EXPECT_EQ(client.Stats().connections_opened, 1u);
}

TEST_F(ServerClientTest, FallbackHandlesUnroutedRequests) {
  Server server{ServerOptions{}};
  server.SetFallback([](Request& request, Responder responder) {
    responder.Respond(404, "application/json", R"({"error":")" + std::string(request.Path()) + R"("})");
  });
  server.Start();
  Client client({.port = server.port()});
  const FetchResult fetched = client.Fetch(Get("/v1/unknown?x"));
  EXPECT_EQ(fetched.result.status, 404);
  EXPECT_EQ(fetched.body, R"({"error":"/v1/unknown"})");
}

TEST_F(ServerClientTest, ServesHttp10AndConnectionClose) {
  test::Fd fd = test::ConnectLoopback(server_.port());
  ASSERT_GE(fd.get(), 0);
  ASSERT_TRUE(test::SendAll(fd.get(), "POST /echo HTTP/1.0\r\nContent-Length: 2\r\n\r\nhi"));
  const std::string reply = test::ReadUntil(fd.get(), std::chrono::seconds(5));
  EXPECT_EQ(reply.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << reply;
  EXPECT_NE(reply.find("Connection: close"), std::string::npos);
  EXPECT_NE(reply.find("POST /echo hi -"), std::string::npos);

  fd = test::ConnectLoopback(server_.port());
  ASSERT_TRUE(test::SendAll(fd.get(), "GET /later HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  EXPECT_NE(test::ReadUntil(fd.get(), std::chrono::seconds(5)).find("from another thread"), std::string::npos);
}

TEST_F(ServerClientTest, A304CarriesNeitherLengthNorBodyAndTheConnectionGoesOn) {
  test::Fd fd = test::ConnectLoopback(server_.port());
  ASSERT_TRUE(test::SendAll(fd.get(),
                            "GET /unchanged HTTP/1.1\r\nHost: x\r\n\r\n"
                            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nafter"));
  const std::string reply = test::ReadUntil(fd.get(), std::chrono::seconds(5), [](const std::string& r) {
    return r.find("POST /echo after -") != std::string::npos;
  });
  ASSERT_EQ(reply.rfind("HTTP/1.1 304 Not Modified\r\n", 0), 0u) << reply;
  const std::string head = reply.substr(0, reply.find("\r\n\r\n"));
  EXPECT_EQ(head.find("Content-Length"), std::string::npos) << head;
  EXPECT_NE(head.find("ETag: \"t1\""), std::string::npos) << head;
  // The next bytes are the next response's: nothing of the handler's body went out.
  EXPECT_EQ(reply.find("must not carry"), std::string::npos) << reply;
  EXPECT_EQ(reply.find("HTTP/1.1 200 OK\r\n"), head.size() + 4) << reply;
}

TEST_F(ServerClientTest, AnswersPipelinedRequestsInOrder) {
  test::Fd fd = test::ConnectLoopback(server_.port());
  std::string two;
  for (int i = 0; i < 2; ++i) two += "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\n" + std::to_string(i);
  ASSERT_TRUE(test::SendAll(fd.get(), two));
  const std::string reply = test::ReadUntil(fd.get(), std::chrono::seconds(5), [](const std::string& r) {
    return r.find("POST /echo 1 -") != std::string::npos;
  });
  const auto first = reply.find("POST /echo 0 -");
  ASSERT_NE(first, std::string::npos) << reply;
  EXPECT_LT(first, reply.find("POST /echo 1 -"));
}

TEST_F(ServerClientTest, AnswersExpectContinue) {
  test::Fd fd = test::ConnectLoopback(server_.port());
  ASSERT_TRUE(
      test::SendAll(fd.get(), "POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n"));
  const std::string interim = test::ReadUntil(
      fd.get(), std::chrono::seconds(5), [](const std::string& r) { return r.find("\r\n\r\n") != std::string::npos; });
  EXPECT_EQ(interim, "HTTP/1.1 100 Continue\r\n\r\n");
  ASSERT_TRUE(test::SendAll(fd.get(), "abc"));
  EXPECT_NE(test::ReadUntil(fd.get(), std::chrono::seconds(5),
                            [](const std::string& r) { return r.find("abc") != std::string::npos; })
                .find("POST /echo abc -"),
            std::string::npos);
}

TEST_F(ServerClientTest, RunsManyLoopsOnBothSides) {
  Server server({.threads = 3});
  std::atomic<int> loops_seen_mask{0};
  server.Route("GET", "/loop", [&](Request& request, Responder responder) {
    loops_seen_mask |= 1 << request.loop;
    responder.Respond(200, "text/plain", std::to_string(request.loop));
  });
  server.Start();
  Client client({.port = server.port(), .threads = 3});
  std::atomic<int> done{0};
  for (int i = 0; i < 30; ++i) {
    client.Send(Get("/loop"), {.on_complete = [&](const ClientResult& r) {
                  EXPECT_TRUE(r.ok()) << r.message;
                  ++done;
                }});
  }
  for (int i = 0; i < 500 && done < 30; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(done, 30);
  EXPECT_EQ(loops_seen_mask, 7);
}

TEST_F(ServerClientTest, OpensAtMostMaxOpeningConnectionsAtOnce) {
  // Twelve requests at once to a server that holds every answer: with two opening slots only two
  // reach it. Once answered, the rest follow (on the connections the first ones left idle, or on
  // new ones as slots free) and every request completes.
  Server server{ServerOptions{}};
  std::mutex mu;
  std::vector<Responder> held;
  int arrived = 0;
  server.Route("GET", "/held", [&](Request&, Responder responder) {
    std::lock_guard lock(mu);
    ++arrived;
    held.push_back(std::move(responder));
  });
  server.Start();
  Client client({.port = server.port(), .max_opening = 2});
  std::atomic<int> ok{0};
  std::atomic<int> done{0};
  for (int i = 0; i < 12; ++i) {
    client.Send(Get("/held"), {.on_complete = [&](const ClientResult& r) {
                  if (r.ok()) ++ok;
                  ++done;
                }});
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  {
    std::lock_guard lock(mu);
    EXPECT_EQ(arrived, 2);
  }
  for (int i = 0; i < 500 && done < 12; ++i) {
    std::vector<Responder> answer;
    {
      std::lock_guard lock(mu);
      answer.swap(held);
    }
    for (Responder& r : answer) r.Respond(200, "text/plain", "ok");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(ok, 12);
  EXPECT_LE(client.Stats().connections_opened, 12u);
}

TEST_F(ServerClientTest, ANewConnectionRequestDoesNotTakeAnIdleOne) {
  Client client({.port = server_.port()});
  for (int i = 0; i < 5; ++i) {
    ClientRequest request = Post("/echo", "x");
    request.new_connection = i > 0;  // the first opens one anyway; the others would reuse it
    ASSERT_TRUE(client.Fetch(request).result.ok());
  }
  EXPECT_EQ(client.Stats().connections_opened, 5u);
  ASSERT_TRUE(client.Fetch(Post("/echo", "x")).result.ok());
  EXPECT_EQ(client.Stats().connections_opened, 5u);  // a plain request takes one of the five
}

TEST_F(ServerClientTest, RequestsWaitingForAnOpeningSlotAreCancelledWithTheClient) {
  Server server{ServerOptions{}};
  std::mutex mu;
  std::vector<Responder> held;
  server.Route("GET", "/held", [&](Request&, Responder responder) {
    std::lock_guard lock(mu);
    held.push_back(std::move(responder));
  });
  server.Start();
  std::atomic<int> cancelled{0};
  {
    Client client({.port = server.port(), .max_opening = 1});
    for (int i = 0; i < 3; ++i) {
      client.Send(Get("/held"), {.on_complete = [&](const ClientResult& r) {
                    if (r.error == ErrorKind::kCancelled) ++cancelled;
                  }});
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(cancelled, 3);  // one opening, two waiting for its slot
}

}  // namespace
}  // namespace infermark::http
