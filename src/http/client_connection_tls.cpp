// ClientTransport over TLS, instantiated here only, and the client's OpenSSL context.
#include <openssl/ssl.h>

#include <boost/asio/ssl.hpp>
#include <stdexcept>
#include <utility>  // see detail/asio.hpp

#include "http/detail/client_transport.hpp"

namespace infermark::http::detail {

/// The client's OpenSSL context, shared by all its connections.
struct TlsClientContext {
  asio::ssl::context context{asio::ssl::context::tls_client};  ///< OpenSSL SSL_CTX.
};

using TlsStream = asio::ssl::stream<Tcp::socket>;

template <>
void ClientTransport<TlsStream>::StartHandshake() {
  const std::string& name = shared().server_name;
  ErrorCode not_address;
  asio::ip::make_address(name, not_address);
  if (not_address) {
    // SNI is for names only. SSL_set_tlsext_host_name is a macro with a C cast; this is its expansion.
    SSL_ctrl(stream_.native_handle(), SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
             const_cast<char*>(name.c_str()));
  }
  if (shared().options.tls_options.verify_peer) stream_.set_verify_callback(asio::ssl::host_name_verification(name));
  stream_.async_handshake(TlsStream::client, [self = Self()](const ErrorCode& ec) { self->OnHandshake(ec); });
}

template class ClientTransport<TlsStream>;

std::shared_ptr<ClientConnection> MakeTlsClientConnection(ClientShared& shared, ClientLoop& loop) {
  auto connection = std::make_shared<ClientTransport<TlsStream>>(shared, loop, loop.context, shared.tls->context);
  connection->Register();
  return connection;
}

std::shared_ptr<TlsClientContext> MakeTlsClientContext(const TlsClientOptions& options) {
  auto tls = std::make_shared<TlsClientContext>();
  tls->context.set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                           asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                           asio::ssl::context::no_tlsv1_1);
  if (!options.verify_peer) {
    tls->context.set_verify_mode(asio::ssl::verify_none);
    return tls;
  }
  ErrorCode ec;
  if (options.ca_file.empty()) {
    tls->context.set_default_verify_paths(ec);
  } else {
    tls->context.load_verify_file(options.ca_file, ec);
  }
  if (ec) throw std::runtime_error("cannot load TLS trust store " + options.ca_file + ": " + ec.message());
  tls->context.set_verify_mode(asio::ssl::verify_peer);
  return tls;
}

}  // namespace infermark::http::detail
