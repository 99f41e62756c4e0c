// The manifest of a measurement bundle: every member file with its path, size and SHA-256, and the
// check that a folder still holds exactly those files, byte for byte (docs/results.md,
// "Measurement receipts").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/diagnostic.hpp"

namespace infermark::results {

/// manifest.json's schema name.
inline constexpr const char* kManifestSchema = "infermark.bundle-manifest/1";

/// One file of a bundle.
struct BundleMember {
  std::string path;         ///< Relative to the bundle's artifact folder, `/`-separated, no `.` or `..` parts.
  std::uintmax_t size = 0;  ///< Bytes.
  std::string sha256;       ///< Lower-case hex SHA-256 of the bytes.
};

/// Every file below `root`, sorted by path (byte order), each hashed. Symbolic links (to files or
/// folders), sockets, pipes and devices are problems appended to `problems` (one each, naming the
/// path), never followed or hashed.
std::vector<BundleMember> ScanMembers(const std::string& root, std::vector<Diagnostic>& problems);

/// The manifest document's text: `{"members":[{"path","sha256","size"}…],"schema"}` in the
/// canonical JSON form (keys sorted, no spaces, ASCII; what receipts hash), then a newline.
std::string ManifestText(const std::vector<BundleMember>& members);

/// The members `text` lists (`path` names the file in messages). Appends a problem for text that is
/// not a manifest: another schema, a member without path, size or digest, an unsafe path (absolute,
/// empty, `.` or `..` parts, a backslash), or paths not strictly increasing.
std::vector<BundleMember> ParseManifest(const std::string& text, const std::string& path,
                                        std::vector<Diagnostic>& problems);

/// Compares the files below `root` with `manifest`: appends one problem per file the manifest does
/// not list ("extra member"), per listed file that is missing, per file whose size or SHA-256
/// differs, and per symbolic link or special file (ScanMembers).
void CheckMembers(const std::string& root, const std::vector<BundleMember>& manifest,
                  std::vector<Diagnostic>& problems);

/// True when `path` is a safe relative member path (ParseManifest's rule).
bool SafeMemberPath(const std::string& path);

}  // namespace infermark::results
