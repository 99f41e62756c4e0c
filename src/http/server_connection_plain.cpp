// ServerTransport over plain TCP, instantiated here only.
#include "http/detail/server_transport.hpp"

namespace infermark::http::detail {

template class ServerTransport<Tcp::socket>;

std::shared_ptr<ServerConnection> MakePlainServerConnection(ServerShared& shared, ServerLoop& loop,
                                                            Tcp::socket socket) {
  return std::make_shared<ServerTransport<Tcp::socket>>(shared, loop, std::move(socket));
}

}  // namespace infermark::http::detail
