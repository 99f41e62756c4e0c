// Every way a request can fail ends as data: an ErrorKind and a message, never an exception.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "http/client.hpp"
#include "http/server.hpp"
#include "raw_socket.hpp"

namespace infermark::http {
namespace {

ClientRequest Post(std::string body = "{}") {
  ClientRequest request;
  request.target = "/v1/completions";
  request.body = std::move(body);
  return request;
}

// A port nothing listens on: bound, then closed.
std::uint16_t ClosedPort() {
  test::ScriptedServer probe([](int) {}, 0);
  return probe.port();
}

TEST(ClientErrors, ConnectionRefused) {
  Client client({.port = ClosedPort()});
  const FetchResult fetched = client.Fetch(Post());
  EXPECT_EQ(fetched.result.error, ErrorKind::kConnect);
  EXPECT_NE(fetched.result.message.find("refused"), std::string::npos) << fetched.result.message;
}

TEST(ClientErrors, UnresolvableHost) {
  Client client({.host = "no-such-host.invalid", .port = 80});
  const FetchResult fetched = client.Fetch(Post());
  EXPECT_EQ(fetched.result.error, ErrorKind::kConnect);
  EXPECT_NE(fetched.result.message.find("cannot resolve"), std::string::npos) << fetched.result.message;
}

TEST(ClientErrors, IdleTimeoutWhenTheServerStalls) {
  test::ScriptedServer raw([](int fd) {
    test::ReadRequest(fd);
    test::SendAll(fd, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\ndata: ");
    test::ReadUntil(fd, std::chrono::seconds(3));  // then silence until the client gives up
  });
  Client client({.port = raw.port(), .idle_timeout = std::chrono::milliseconds(200)});
  const auto start = std::chrono::steady_clock::now();
  const FetchResult fetched = client.Fetch(Post());
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(fetched.result.error, ErrorKind::kTimeout);
  EXPECT_NE(fetched.result.message.find("no data"), std::string::npos) << fetched.result.message;
  EXPECT_EQ(fetched.result.status, 200);
  EXPECT_GE(waited, std::chrono::milliseconds(190));
  EXPECT_LT(waited, std::chrono::seconds(2));
}

TEST(ClientErrors, RequestTimeoutEvenWhileBytesKeepComing) {
  test::ScriptedServer raw([](int fd) {
    test::ReadRequest(fd);
    test::SendAll(fd, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    for (int i = 0; i < 100; ++i) {
      if (!test::SendAll(fd, "8\r\ndata: x\n\r\n")) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  Client client({.port = raw.port(), .idle_timeout = std::chrono::milliseconds(500)});
  ClientRequest request = Post();
  request.timeout = std::chrono::milliseconds(300);
  const FetchResult fetched = client.Fetch(request);
  EXPECT_EQ(fetched.result.error, ErrorKind::kTimeout);
  EXPECT_NE(fetched.result.message.find("request timeout"), std::string::npos) << fetched.result.message;
  EXPECT_GT(fetched.result.body_bytes, 0u);
}

TEST(ClientErrors, ConnectionClosedBeforeAnyResponse) {
  test::ScriptedServer raw([](int fd) { test::ReadRequest(fd); });
  Client client({.port = raw.port()});
  const FetchResult fetched = client.Fetch(Post());
  EXPECT_EQ(fetched.result.error, ErrorKind::kReset) << fetched.result.message;
}

TEST(ClientErrors, ResetMidStream) {
  test::ScriptedServer raw([](int fd) {
    test::ReadRequest(fd);
    test::SendAll(fd, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n8\r\ndata: x\n\r\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    linger hard{1, 0};  // close with RST
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
  });
  Client client({.port = raw.port()});
  const FetchResult fetched = client.Fetch(Post());
  EXPECT_EQ(fetched.result.error, ErrorKind::kTruncated) << fetched.result.message;
  EXPECT_EQ(fetched.body, "data: x\n");
}

TEST(ClientErrors, TruncatedChunkedBodyAndContentLength) {
  for (const auto& response : {
           std::string("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n8\r\ndata: x\n\r\n4\r\nda"),
           std::string("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this"),
       }) {
    test::ScriptedServer raw([&](int fd) {
      test::ReadRequest(fd);
      test::SendAll(fd, response);
    });
    Client client({.port = raw.port()});
    const FetchResult fetched = client.Fetch(Post());
    EXPECT_EQ(fetched.result.error, ErrorKind::kTruncated) << response;
    EXPECT_NE(fetched.result.message.find("before the response ended"), std::string::npos);
  }
}

TEST(ClientErrors, MalformedResponses) {
  for (const auto& response : {
           std::string("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
           std::string("HTTX/1.1 200 OK\r\n\r\n"),
           std::string("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello"),
           std::string("HTTP/1.1 200 OK\r\nBad Header\r\n\r\n"),
       }) {
    test::ScriptedServer raw([&](int fd) {
      test::ReadRequest(fd);
      test::SendAll(fd, response);
      test::ReadUntil(fd, std::chrono::milliseconds(500));
    });
    Client client({.port = raw.port()});
    const FetchResult fetched = client.Fetch(Post());
    EXPECT_EQ(fetched.result.error, ErrorKind::kMalformed) << response << " -> " << fetched.result.message;
  }
}

TEST(ClientErrors, ServerErrorCarriesTheStartOfItsBody) {
  test::ScriptedServer raw([](int fd) {
    test::ReadRequest(fd);
    test::SendAll(fd, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 22\r\n\r\n{\"error\":\"overloaded\"}");
    test::ReadUntil(fd, std::chrono::milliseconds(200));
  });
  Client client({.port = raw.port()});
  const FetchResult fetched = client.Fetch(Post());
  EXPECT_EQ(fetched.result.error, ErrorKind::kHttpStatus);
  EXPECT_EQ(fetched.result.status, 503);
  EXPECT_EQ(fetched.result.message, "HTTP 503: {\"error\":\"overloaded\"}");
  EXPECT_EQ(fetched.body, "{\"error\":\"overloaded\"}");
}

TEST(ClientErrors, PooledConnectionClosedByTheServerIsNotReused) {
  ServerOptions options;
  options.keep_alive_timeout = std::chrono::milliseconds(100);
  Server server(options);
  server.Route("POST", "/v1/completions", [](Request&, Responder r) { r.Respond(200, "text/plain", "ok"); });
  server.Start();
  Client client({.port = server.port()});
  ASSERT_TRUE(client.Fetch(Post()).result.ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(400));  // the server drops the idle connection
  const FetchResult fetched = client.Fetch(Post());
  EXPECT_TRUE(fetched.result.ok()) << fetched.result.message;
  EXPECT_FALSE(fetched.result.reused_connection);
  EXPECT_EQ(client.Stats().connections_opened, 2u);
}

TEST(ClientErrors, ThrowingCallbackCancelsOnlyItsRequest) {
  Server server(ServerOptions{});
  server.Route("POST", "/v1/completions", [](Request&, Responder r) { r.Respond(200, "text/plain", "body"); });
  server.Start();
  Client client({.port = server.port()});
  std::promise<ClientResult> done;
  client.Send(Post(), {.on_body = [](std::string_view, std::int64_t) { throw std::runtime_error("boom"); },
                       .on_complete = [&](const ClientResult& r) { done.set_value(r); }});
  const ClientResult result = done.get_future().get();
  EXPECT_EQ(result.error, ErrorKind::kCancelled);
  EXPECT_NE(result.message.find("boom"), std::string::npos);
  EXPECT_TRUE(client.Fetch(Post()).result.ok());
}

TEST(ClientErrors, CancelAllEndsRequestsInFlightAndTheClientStaysUsable) {
  Server server(ServerOptions{});
  server.Route("POST", "/v1/completions", [](Request&, Responder responder) {
    std::thread([writer = responder.StartStream()]() mutable {
      while (writer.SendEvent("tick") != SendStatus::kClosed) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }).detach();
  });
  server.Route("GET", "/health", [](Request&, Responder r) { r.Respond(200, "text/plain", "ok"); });
  server.Start();
  Client client({.port = server.port()});
  std::promise<ClientResult> done;
  std::atomic<int> bodies{0};
  client.Send(Post(), {.on_body = [&](std::string_view, std::int64_t) { ++bodies; },
                       .on_complete = [&](const ClientResult& r) { done.set_value(r); }});
  while (bodies < 3) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  client.CancelAll("interrupted");
  const ClientResult result = done.get_future().get();
  EXPECT_EQ(result.error, ErrorKind::kCancelled);
  EXPECT_EQ(result.message, "interrupted");
  ClientRequest health;
  health.method = "GET";
  health.target = "/health";
  EXPECT_TRUE(client.Fetch(health).result.ok());
}

TEST(ClientErrors, DestroyingTheClientCancelsRequestsInFlight) {
  test::ScriptedServer raw([](int fd) {
    test::ReadRequest(fd);
    test::ReadUntil(fd, std::chrono::seconds(5));
  });
  std::promise<ClientResult> done;
  {
    Client client({.port = raw.port()});
    client.Send(Post(), {.on_complete = [&](const ClientResult& r) { done.set_value(r); }});
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  auto future = done.get_future();
  ASSERT_EQ(future.wait_for(std::chrono::seconds(1)), std::future_status::ready);
  EXPECT_EQ(future.get().error, ErrorKind::kCancelled);
}

}  // namespace
}  // namespace infermark::http
