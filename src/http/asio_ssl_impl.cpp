// The compiled part of Asio's SSL support (see asio_impl.cpp).
#include <boost/asio/ssl/impl/src.hpp>
#include <utility>  // see detail/asio.hpp
