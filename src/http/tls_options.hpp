// TLS settings for the server and the client (OpenSSL through asio::ssl).
#pragma once

#include <string>

namespace infermark::http {

/// Certificate and key the server presents.
struct TlsServerOptions {
  std::string certificate_chain_file{};  ///< PEM file: the server certificate, then any intermediates.
  std::string private_key_file{};        ///< PEM file with the private key (unencrypted).
};

/// How the client checks the server.
struct TlsClientOptions {
  bool verify_peer = true;    ///< Verify the certificate chain and the host name; false accepts any certificate.
  std::string ca_file{};      ///< PEM file of trusted CAs; empty uses the system store.
  std::string server_name{};  ///< Name sent as SNI and verified; empty uses the client's host.
};

}  // namespace infermark::http
