#include "gpu/probe_library.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>

#include "gpu/probe_abi.h"

namespace infermark::gpu {

std::string ProbeLibrary::DefaultPath() {
  if (const char* path = std::getenv(kLibraryVariable); path != nullptr && *path != '\0') return path;
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return kLibraryName;
  return (self.parent_path() / kLibraryName).string();
}

DynamicLibrary ProbeLibrary::Open(const std::string& path) {
  std::error_code error;
  if (path.find('/') != std::string::npos && !std::filesystem::exists(path, error))
    throw ProbeUnavailable(path +
                           " not found: this infermark was built without the CUDA toolkit, so it has no GPU probe "
                           "(build with nvcc on the PATH, or set " +
                           kLibraryVariable + " to the library)");
  try {
    return DynamicLibrary(path);
  } catch (const DynamicLibraryError& e) {
    throw ProbeUnavailable(std::string("the GPU probe library cannot be loaded (are the CUDA runtime and cuBLAS "
                                       "libraries installed?): ") +
                           e.what());
  }
}

ProbeLibrary::ProbeLibrary(const std::string& path) : library_(Open(path)) {
  try {
    const auto version = library_.Function<infermark_probe_abi_version_fn>("infermark_probe_abi_version");
    // The other two are looked up at each call; a library lacking them is refused now.
    static_cast<void>(library_.Symbol("infermark_probe_run"));
    static_cast<void>(library_.Symbol("infermark_probe_free"));
    if (version() != INFERMARK_PROBE_ABI_VERSION)
      throw ProbeUnavailable(path + " has probe interface version " + std::to_string(version()) + ", this infermark " +
                             "needs version " + std::to_string(INFERMARK_PROBE_ABI_VERSION) +
                             ": rebuild them together");
  } catch (const DynamicLibraryError& e) {
    throw ProbeUnavailable(std::string("not a GPU probe library: ") + e.what());
  }
}

Json ProbeLibrary::Run(const Json& request) const {
  const auto run = library_.Function<infermark_probe_run_fn>("infermark_probe_run");
  const auto release = library_.Function<infermark_probe_free_fn>("infermark_probe_free");
  char* raw = nullptr;
  const int code = run(DumpJson(request).c_str(), &raw);
  const std::unique_ptr<char, infermark_probe_free_fn> text(raw, release);
  Json result;
  try {
    result = Json::parse(text ? text.get() : "");
  } catch (const Json::exception& e) {
    throw std::runtime_error(std::string("the GPU probe returned no JSON: ") + e.what());
  }
  std::string error = result.is_object() && result.contains("error") && result["error"].is_string()
                          ? result["error"].get<std::string>()
                          : std::string("no message");
  if (code == INFERMARK_PROBE_NO_DEVICE)
    throw ProbeUnavailable(
        "no usable CUDA device (no GPU, no NVIDIA driver, or a driver older than the CUDA "
        "runtime): " +
        error);
  if (code != INFERMARK_PROBE_OK) throw std::runtime_error("GPU probe failed: " + error);
  if (!result.is_object()) throw std::runtime_error("the GPU probe returned a result that is not an object");
  return result;
}

}  // namespace infermark::gpu
