// A shared library opened at run time (dlopen) and the symbols looked up in it (dlsym), so that
// infermark needs no build dependency on libraries that only some hosts have (the NVIDIA driver's
// NVML, a CUDA probe).
#pragma once

#include <stdexcept>
#include <string>

namespace infermark::gpu {

/// A library that cannot be opened, or a symbol it lacks; the message names the path and dlerror().
class DynamicLibraryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An open shared library; closed (dlclose) when destroyed. Move-only.
class DynamicLibrary {
 public:
  /// Opens `path` (a file path or a name the dynamic loader searches for) with RTLD_NOW | RTLD_LOCAL;
  /// throws DynamicLibraryError with dlerror()'s reason when it cannot.
  explicit DynamicLibrary(const std::string& path);
  ~DynamicLibrary();
  DynamicLibrary(DynamicLibrary&& other) noexcept;
  DynamicLibrary& operator=(DynamicLibrary&& other) noexcept;
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;

  /// The address of `name`; throws DynamicLibraryError when the library does not export it.
  [[nodiscard]] void* Symbol(const char* name) const;

  /// The function `name` as a pointer of type `F` (e.g. `int (*)(unsigned)`); throws like Symbol.
  template <typename F>
  [[nodiscard]] F Function(const char* name) const {
    return reinterpret_cast<F>(Symbol(name));
  }

  /// The path the library was opened with.
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
  void* handle_ = nullptr;
};

}  // namespace infermark::gpu
