// HTTPS round trips with a self-signed certificate made at test time by the openssl CLI.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/subprocess.hpp"
#include "http/client.hpp"
#include "http/server.hpp"
#include "http/sse_parser.hpp"

namespace infermark::http {
namespace {

// A certificate for localhost and 127.0.0.1 with its key, in a temporary folder.
class SelfSignedCertificate {
 public:
  SelfSignedCertificate() {
    dir_ = std::filesystem::temp_directory_path() / ("infermark-tls-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    const ProcessResult made =
        RunCapture({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key(), "-out", cert(),
                    "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"});
    ok_ = made.exit_code == 0;
    error_ = made.err;
  }
  ~SelfSignedCertificate() { std::filesystem::remove_all(dir_); }
  std::string cert() const { return (dir_ / "cert.pem").string(); }
  std::string key() const { return (dir_ / "key.pem").string(); }
  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }

 private:
  std::filesystem::path dir_;
  bool ok_ = false;
  std::string error_;
};

class TlsTest : public testing::Test {
 protected:
  static void SetUpTestSuite() { certificate_ = new SelfSignedCertificate(); }
  static void TearDownTestSuite() {
    delete certificate_;
    certificate_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(certificate_->ok()) << certificate_->error(); }

  static ServerOptions TlsServer() {
    ServerOptions options;
    options.tls = TlsServerOptions{certificate_->cert(), certificate_->key()};
    return options;
  }
  static ClientOptions TlsClient(std::uint16_t port, std::string host = "127.0.0.1") {
    ClientOptions options;
    options.host = std::move(host);
    options.port = port;
    options.tls = true;
    options.tls_options.ca_file = certificate_->cert();
    return options;
  }

  static SelfSignedCertificate* certificate_;
};

SelfSignedCertificate* TlsTest::certificate_ = nullptr;

TEST_F(TlsTest, RoundTripAndStreamOverOneConnection) {
  Server server(TlsServer());
  server.Route("POST", "/echo", [](Request& request, Responder r) { r.Respond(200, "text/plain", request.body); });
  server.Route("POST", "/stream", [](Request&, Responder r) {
    StreamWriter writer = r.StartStream();
    for (int i = 0; i < 100; ++i) writer.SendEvent(std::to_string(i));
    writer.SendEvent("[DONE]");
    writer.End();
  });
  server.Start();
  for (const std::string host : {"127.0.0.1", "localhost"}) {
    Client client(TlsClient(server.port(), host));
    ClientRequest request;
    request.target = "/echo";
    request.body = "secret " + host;
    FetchResult fetched = client.Fetch(request);
    ASSERT_TRUE(fetched.result.ok()) << fetched.result.message;
    EXPECT_EQ(fetched.body, "secret " + host);

    request.target = "/stream";
    fetched = client.Fetch(request);
    ASSERT_TRUE(fetched.result.ok()) << fetched.result.message;
    SseParser parser;
    std::vector<std::string> events;
    parser.Feed(fetched.body, [&](const SseEvent& e) { events.emplace_back(e.data); });
    ASSERT_EQ(events.size(), 101u);
    EXPECT_EQ(events.front(), "0");
    EXPECT_EQ(events.back(), "[DONE]");
    EXPECT_TRUE(fetched.result.reused_connection);
    EXPECT_EQ(client.Stats().connections_opened, 1u);
  }
}

TEST_F(TlsTest, UntrustedOrMismatchedCertificateFailsAsTls) {
  Server server(TlsServer());
  server.Route("GET", "/", [](Request&, Responder r) { r.Respond(200, "text/plain", "x"); });
  server.Start();
  ClientRequest request;
  request.method = "GET";
  {
    ClientOptions options = TlsClient(server.port());
    options.tls_options.ca_file.clear();  // system store: does not trust our certificate
    Client client(options);
    const FetchResult fetched = client.Fetch(request);
    EXPECT_EQ(fetched.result.error, ErrorKind::kTls) << fetched.result.message;
  }
  {
    ClientOptions options = TlsClient(server.port());
    options.tls_options.server_name = "example.com";  // not in the certificate
    Client client(options);
    EXPECT_EQ(client.Fetch(request).result.error, ErrorKind::kTls);
  }
  {
    ClientOptions options = TlsClient(server.port());
    options.tls_options.verify_peer = false;
    options.tls_options.server_name = "example.com";
    Client client(options);
    EXPECT_TRUE(client.Fetch(request).result.ok());
  }
}

TEST_F(TlsTest, PlainClientAgainstTlsServerFailsCleanly) {
  Server server(TlsServer());
  server.Start();
  Client client({.port = server.port()});
  ClientRequest request;
  const FetchResult fetched = client.Fetch(request);
  EXPECT_FALSE(fetched.result.ok());
  EXPECT_NE(fetched.result.error, ErrorKind::kNone);
}

TEST_F(TlsTest, BadCertificateFilesStopTheStart) {
  ServerOptions options;
  options.tls = TlsServerOptions{"/nonexistent/cert.pem", "/nonexistent/key.pem"};
  Server server(options);
  EXPECT_THROW(server.Start(), std::runtime_error);
}

}  // namespace
}  // namespace infermark::http
