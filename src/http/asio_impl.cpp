// The compiled part of Boost.Asio, Asio's SSL support and Beast, built once for the module
// (BOOST_ASIO_SEPARATE_COMPILATION / BOOST_BEAST_SEPARATE_COMPILATION are set in CMakeLists.txt).
#include <boost/asio/impl/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
#include <boost/beast/src.hpp>
#include <utility>  // see detail/asio.hpp
