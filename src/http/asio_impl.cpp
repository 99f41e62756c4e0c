// The compiled part of Boost.Asio, built once for the module (BOOST_ASIO_SEPARATE_COMPILATION is
// set in CMakeLists.txt). Asio's SSL part and Beast are in their own files so they build in parallel.
#include <boost/asio/impl/src.hpp>
#include <utility>  // see detail/asio.hpp
