#include "gpu/probe/nccl_api.hpp"

#include <dlfcn.h>

#include "gpu/probe/cuda_check.hpp"
#include "gpu/probe_abi.h"

namespace infermark::gpu::probe {

namespace {

template <typename F>
void Resolve(void* handle, const std::string& path, const char* name, F& out) {
  dlerror();
  void* symbol = dlsym(handle, name);
  if (symbol == nullptr) {
    const char* why = dlerror();
    throw ProbeError(INFERMARK_PROBE_BAD_REQUEST, path + " has no " + name +
                                                      (why != nullptr ? std::string(" (") + why + ")" : std::string()) +
                                                      ": not an NCCL 2.x library");
  }
  out = reinterpret_cast<F>(symbol);
}

}  // namespace

Nccl::Nccl(const std::string& path) : path_(path) {
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* why = dlerror();
    throw ProbeError(INFERMARK_PROBE_BAD_REQUEST,
                     "cannot load NCCL from " + path + ": " + (why != nullptr ? why : "unknown dlopen error"));
  }
  try {
    Resolve(handle_, path, "ncclGetVersion", GetVersion);
    Resolve(handle_, path, "ncclGetErrorString", GetErrorString);
    Resolve(handle_, path, "ncclCommInitAll", CommInitAll);
    Resolve(handle_, path, "ncclCommDestroy", CommDestroy);
    Resolve(handle_, path, "ncclGroupStart", GroupStart);
    Resolve(handle_, path, "ncclGroupEnd", GroupEnd);
    Resolve(handle_, path, "ncclAllReduce", AllReduce);
    Resolve(handle_, path, "ncclAllGather", AllGather);
    Resolve(handle_, path, "ncclReduceScatter", ReduceScatter);
    Resolve(handle_, path, "ncclSend", Send);
    Resolve(handle_, path, "ncclRecv", Recv);
  } catch (...) {
    dlclose(handle_);
    throw;
  }
}

std::string Nccl::Version() const {
  int v = 0;
  Check(GetVersion(&v), "ncclGetVersion");
  // NCCL >= 2.9 encodes major*10000 + minor*100 + patch.
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

void Nccl::Check(int result, const char* call) const {
  if (result == 0) return;
  const char* why = GetErrorString != nullptr ? GetErrorString(result) : nullptr;
  throw ProbeError(INFERMARK_PROBE_CUDA_ERROR, std::string(call) + " failed: NCCL error " + std::to_string(result) +
                                                   (why != nullptr ? std::string(" (") + why + ")" : std::string()));
}

}  // namespace infermark::gpu::probe
