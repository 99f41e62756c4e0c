// ClientTransport over plain TCP, instantiated here only.
#include "http/detail/client_transport.hpp"

namespace infermark::http::detail {

template <>
void ClientTransport<Tcp::socket>::StartHandshake() {
  OnHandshake({});
}

template class ClientTransport<Tcp::socket>;

std::shared_ptr<ClientConnection> MakePlainClientConnection(ClientShared& shared, ClientLoop& loop) {
  auto connection = std::make_shared<ClientTransport<Tcp::socket>>(shared, loop, loop.context);
  connection->Register();
  return connection;
}

}  // namespace infermark::http::detail
