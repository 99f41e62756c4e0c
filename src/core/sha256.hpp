// SHA-256 digests (OpenSSL), used for recipe fingerprints, raw results and measurement receipts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace infermark {

/// Lower-case hex SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);

/// Lower-case hex SHA-256 of the file at `path`, read in blocks (a bundle's logs may be large);
/// `size`, when given, receives the bytes read. Throws InputError naming the path and the OS
/// reason when it cannot be read.
std::string Sha256FileHex(const std::string& path, std::uintmax_t* size = nullptr);

}  // namespace infermark
