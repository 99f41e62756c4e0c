#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include "gpu/probe/cuda_check.hpp"
#include "gpu/probe/kernels.hpp"

namespace infermark::gpu::probe {

namespace {

constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 8;
constexpr int kUnroll = 4;

__device__ std::uint64_t Mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A value of magnitude [0.1, 1) with a random sign.
__device__ float RandomValue(std::size_t i, std::uint64_t seed) {
  const std::uint64_t r = Mix(i ^ Mix(seed));
  const float magnitude = 0.1f + 0.9f * static_cast<float>(r >> 40) / 16777216.0f;
  return (r & 1u) ? -magnitude : magnitude;
}

__global__ void FillBf16Kernel(__nv_bfloat16* data, std::size_t count, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x)
    data[i] = __float2bfloat16(RandomValue(i, seed));
}

__global__ void FillFp8Kernel(__nv_fp8_e4m3* data, std::size_t count, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x)
    data[i] = __nv_fp8_e4m3(RandomValue(i, seed));
}

__device__ uint4 Pattern(std::size_t i, unsigned salt) {
  const unsigned lo = static_cast<unsigned>(i) | 1u;
  return make_uint4(lo, lo ^ 0x5a5a5a5au, salt | 0x10u, ~lo);
}

__global__ void FillPatternKernel(uint4* data, std::size_t count, unsigned salt) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x)
    data[i] = Pattern(i, salt);
}

__global__ void ReadKernel(const uint4* __restrict__ data, std::size_t count, unsigned* __restrict__ sink) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  unsigned acc = 0;
  for (; i + (kUnroll - 1) * stride < count; i += kUnroll * stride) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = data[i + u * stride];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) acc += v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < count; i += stride) {
    const uint4 v = data[i];
    acc += v.x ^ v.y ^ v.z ^ v.w;
  }
  for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, offset);
  if ((threadIdx.x & 31u) == 0) sink[(blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) / 32] = acc;
}

__global__ void WriteKernel(uint4* __restrict__ data, std::size_t count, unsigned salt) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count; i += stride)
    data[i] = Pattern(i, salt);
}

__global__ void CopyKernel(uint4* __restrict__ dst, const uint4* __restrict__ src, std::size_t count) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  for (; i + (kUnroll - 1) * stride < count; i += kUnroll * stride) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = src[i + u * stride];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) dst[i + u * stride] = v[u];
  }
  for (; i < count; i += stride) dst[i] = src[i];
}

__global__ void NonFiniteKernel(const __nv_bfloat16* data, std::size_t count, unsigned long long* bad) {
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x)
    if (!isfinite(__bfloat162float(data[i]))) ++local;
  if (local > 0) atomicAdd(bad, local);
}

__global__ void EmptyKernel() {}

unsigned Blocks(int sm_count) {
  return static_cast<unsigned>((sm_count > 0 ? sm_count : 1) * kBlocksPerSm);
}

}  // namespace

void FillBf16(void* data, std::size_t count, std::uint64_t seed, cudaStream_t stream) {
  FillBf16Kernel<<<1024, kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(data), count, seed);
  LaunchCheck("FillBf16Kernel");
}

void FillFp8(void* data, std::size_t count, std::uint64_t seed, cudaStream_t stream) {
  FillFp8Kernel<<<1024, kThreads, 0, stream>>>(static_cast<__nv_fp8_e4m3*>(data), count, seed);
  LaunchCheck("FillFp8Kernel");
}

void FillPattern(void* data, std::size_t bytes, std::uint64_t seed, cudaStream_t stream) {
  FillPatternKernel<<<1024, kThreads, 0, stream>>>(static_cast<uint4*>(data), bytes / 16, static_cast<unsigned>(seed));
  LaunchCheck("FillPatternKernel");
}

std::size_t SinkWords(int sm_count) {
  return std::size_t{Blocks(sm_count)} * kThreads / 32;
}

void StreamRead(const void* data, std::size_t bytes, unsigned* sink, int sm_count, cudaStream_t stream) {
  ReadKernel<<<Blocks(sm_count), kThreads, 0, stream>>>(static_cast<const uint4*>(data), bytes / 16, sink);
  LaunchCheck("ReadKernel");
}

void StreamWrite(void* data, std::size_t bytes, unsigned salt, int sm_count, cudaStream_t stream) {
  WriteKernel<<<Blocks(sm_count), kThreads, 0, stream>>>(static_cast<uint4*>(data), bytes / 16, salt);
  LaunchCheck("WriteKernel");
}

void StreamCopy(void* dst, const void* src, std::size_t bytes, int sm_count, cudaStream_t stream) {
  CopyKernel<<<Blocks(sm_count), kThreads, 0, stream>>>(static_cast<uint4*>(dst), static_cast<const uint4*>(src),
                                                        bytes / 16);
  LaunchCheck("CopyKernel");
}

std::size_t CountNonFiniteBf16(const void* data, std::size_t count, cudaStream_t stream) {
  DeviceBuffer counter(sizeof(unsigned long long));
  CudaCheck(cudaMemsetAsync(counter.get(), 0, counter.bytes(), stream), "cudaMemsetAsync");
  NonFiniteKernel<<<512, kThreads, 0, stream>>>(static_cast<const __nv_bfloat16*>(data), count,
                                                static_cast<unsigned long long*>(counter.get()));
  LaunchCheck("NonFiniteKernel");
  unsigned long long bad = 0;
  CudaCheck(cudaMemcpyAsync(&bad, counter.get(), sizeof bad, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
  CudaCheck(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  return static_cast<std::size_t>(bad);
}

void LaunchEmpty(cudaStream_t stream) {
  EmptyKernel<<<1, 1, 0, stream>>>();
  LaunchCheck("EmptyKernel");
}

}  // namespace infermark::gpu::probe
