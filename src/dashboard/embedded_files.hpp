// The files embedded at build time (src/dashboard/embed_assets.cmake writes the table into a
// generated source): every file of src/dashboard/assets/ by its path there, and each vendored file
// listed in assets/VENDORED by its file name.
#pragma once

#include <cstddef>

namespace infermark::dashboard::detail {

/// One embedded file.
struct EmbeddedFile {
  const char* name;            ///< Name under /assets/ (e.g. `app.js`).
  const unsigned char* bytes;  ///< Its bytes (followed by one 0 byte not counted in size).
  std::size_t size;            ///< Its size in bytes.
};

/// The embedded files (kEmbeddedFileCount of them).
extern const EmbeddedFile kEmbeddedFiles[];
/// How many files are embedded.
extern const std::size_t kEmbeddedFileCount;

}  // namespace infermark::dashboard::detail
