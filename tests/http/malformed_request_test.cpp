// Hostile or broken clients on raw sockets: the server answers 4xx or closes, and keeps serving.
#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "http/client.hpp"
#include "http/server.hpp"
#include "raw_socket.hpp"

namespace infermark::http {
namespace {

class MalformedRequestTest : public testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.max_header_bytes = 4096;
    options.max_body_bytes = 1024;
    options.request_timeout = std::chrono::milliseconds(300);
    server_ = std::make_unique<Server>(options);
    server_->Route("POST", "/echo", [](Request& request, Responder r) { r.Respond(200, "text/plain", request.body); });
    server_->Start();
  }

  // Sends `bytes`, returns everything the server sends until it closes (or 3 s pass).
  std::string Exchange(std::string_view bytes) {
    test::Fd fd = test::ConnectLoopback(server_->port());
    test::SendAll(fd.get(), bytes);
    return test::ReadUntil(fd.get(), std::chrono::seconds(3));
  }

  void ExpectStillServing() {
    Client client({.port = server_->port()});
    ClientRequest request;
    request.target = "/echo";
    request.body = "alive";
    const FetchResult fetched = client.Fetch(request);
    ASSERT_TRUE(fetched.result.ok()) << fetched.result.message;
    EXPECT_EQ(fetched.body, "alive");
  }

  std::unique_ptr<Server> server_;
};

TEST_F(MalformedRequestTest, GarbageGets400AndAClose) {
  for (const std::string& bad :
       std::vector<std::string>{"GARBAGE\r\n\r\n", "GET / HTTP/9.9\r\n\r\n", "GET / HTTP/1.1\r\nNo colon here\r\n\r\n",
                                "POST /echo HTTP/1.1\r\nContent-Length: x\r\n\r\n",
                                "POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                                std::string("GET / HTTP/1.1\r\nHost: a\0b\r\n\r\n", 29)}) {
    const std::string reply = Exchange(bad);
    EXPECT_EQ(reply.rfind("HTTP/1.1 400 Bad Request\r\n", 0), 0u) << testing::PrintToString(bad) << " -> " << reply;
    EXPECT_NE(reply.find("Connection: close"), std::string::npos);
  }
  ExpectStillServing();
}

TEST_F(MalformedRequestTest, LimitsGive431And413) {
  EXPECT_EQ(Exchange("GET / HTTP/1.1\r\nX-Big: " + std::string(8000, 'a') + "\r\n\r\n").rfind("HTTP/1.1 431 ", 0), 0u);
  EXPECT_EQ(Exchange("POST /echo HTTP/1.1\r\nContent-Length: 5000\r\n\r\n" + std::string(5000, 'a'))
                .rfind("HTTP/1.1 413 ", 0),
            0u);
  ExpectStillServing();
}

TEST_F(MalformedRequestTest, SlowOrSilentClientsAreDropped) {
  test::Fd silent = test::ConnectLoopback(server_->port());
  test::Fd partial = test::ConnectLoopback(server_->port());
  test::SendAll(partial.get(), "POST /echo HTTP/1.1\r\nContent-Len");
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(test::ReadUntil(partial.get(), std::chrono::seconds(5)), "");  // closed by the request timeout
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  ExpectStillServing();
}

TEST_F(MalformedRequestTest, RandomBytesNeverCrashTheServer) {
  std::mt19937 random(12345);
  static constexpr char kAlphabet[] = "GETPOST /HTTP1.0\r\n:chunkedContent-Length 0123456789abcdef\0\xff";
  const std::string alphabet(kAlphabet, sizeof kAlphabet - 1);
  for (int round = 0; round < 300; ++round) {
    std::string bytes;
    const int length = static_cast<int>(random() % 200);
    for (int i = 0; i < length; ++i) bytes.push_back(alphabet[random() % alphabet.size()]);
    if (round % 3 == 0) bytes = "POST /echo HTTP/1.1\r\n" + bytes;
    test::Fd fd = test::ConnectLoopback(server_->port());
    test::SendAll(fd.get(), bytes);
    if (round % 2 == 0) test::ReadUntil(fd.get(), std::chrono::milliseconds(20));
  }
  ExpectStillServing();
}

TEST_F(MalformedRequestTest, ClientVanishingMidRequestIsHarmless) {
  for (int i = 0; i < 50; ++i) {
    test::Fd fd = test::ConnectLoopback(server_->port());
    test::SendAll(fd.get(), "POST /echo HTTP/1.1\r\nContent-Length: 100\r\n\r\nabc");
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ExpectStillServing();
  EXPECT_LE(server_->Stats().connections_open, 1u);
}

}  // namespace
}  // namespace infermark::http
