// libinfermark_gpu_probe.so opened at run time: infermark links no CUDA, so `gpu probe` finds the
// library beside its own executable (or where INFERMARK_GPU_PROBE_LIBRARY says), checks its
// interface version and exchanges JSON with it (gpu/probe_abi.h).
#pragma once

#include <stdexcept>
#include <string>

#include "core/json_text.hpp"
#include "gpu/dynamic_library.hpp"

namespace infermark::gpu {

/// The probe cannot run here: the library is absent (a build without the CUDA toolkit), has
/// another interface version, or finds no CUDA device or driver. The message says which.
class ProbeUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An opened probe library.
class ProbeLibrary {
 public:
  /// The environment variable naming the library to load instead of the one beside infermark.
  static constexpr const char* kLibraryVariable = "INFERMARK_GPU_PROBE_LIBRARY";
  /// The library's file name.
  static constexpr const char* kLibraryName = "libinfermark_gpu_probe.so";

  /// $INFERMARK_GPU_PROBE_LIBRARY, else kLibraryName in the folder of the running executable.
  static std::string DefaultPath();

  /// Opens `path` and checks its interface version; throws ProbeUnavailable naming the path when
  /// the file is absent ("built without the CUDA toolkit"), cannot be loaded, or has another version.
  explicit ProbeLibrary(const std::string& path);

  /// Runs the probe; throws ProbeUnavailable when no CUDA device or driver is usable and
  /// std::runtime_error with the library's message for any other failure.
  [[nodiscard]] Json Run(const Json& request) const;

  /// The path it was opened from.
  [[nodiscard]] const std::string& path() const { return library_.path(); }

 private:
  static DynamicLibrary Open(const std::string& path);
  DynamicLibrary library_;
};

}  // namespace infermark::gpu
