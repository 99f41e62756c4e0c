// ServerTransport over TLS, instantiated here only, and the server's OpenSSL context.
#include <boost/asio/ssl.hpp>
#include <stdexcept>
#include <utility>  // see detail/asio.hpp

#include "http/detail/server_transport.hpp"

namespace infermark::http::detail {

/// The server's OpenSSL context (certificate and key), shared by all its connections.
struct TlsServerContext {
  asio::ssl::context context{asio::ssl::context::tls_server};  ///< OpenSSL SSL_CTX.
};

using TlsStream = asio::ssl::stream<Tcp::socket>;
template class ServerTransport<TlsStream>;

std::shared_ptr<ServerConnection> MakeTlsServerConnection(ServerShared& shared, ServerLoop& loop, Tcp::socket socket,
                                                          TlsServerContext& tls) {
  return std::make_shared<ServerTransport<TlsStream>>(shared, loop, std::move(socket), tls.context);
}

std::shared_ptr<TlsServerContext> MakeTlsServerContext(const TlsServerOptions& options) {
  auto tls = std::make_shared<TlsServerContext>();
  tls->context.set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                           asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                           asio::ssl::context::no_tlsv1_1);
  ErrorCode ec;
  tls->context.use_certificate_chain_file(options.certificate_chain_file, ec);
  if (ec)
    throw std::runtime_error("cannot load TLS certificate " + options.certificate_chain_file + ": " + ec.message());
  tls->context.use_private_key_file(options.private_key_file, asio::ssl::context::pem, ec);
  if (ec) throw std::runtime_error("cannot load TLS key " + options.private_key_file + ": " + ec.message());
  return tls;
}

}  // namespace infermark::http::detail
