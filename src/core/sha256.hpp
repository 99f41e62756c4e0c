// SHA-256 digests (OpenSSL), used for recipe fingerprints.
#pragma once

#include <string>
#include <string_view>

namespace infermark {

/// Lower-case hex SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);

}  // namespace infermark
