// The compiled part of Boost.Beast (BOOST_BEAST_SEPARATE_COMPILATION, see asio_impl.cpp).
#include <boost/beast/src.hpp>
#include <utility>  // see detail/asio.hpp
