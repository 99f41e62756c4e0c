// The probe's own kernels (fills, HBM streams, an empty kernel), launched from host code through
// these plain functions so that only kernels.cu needs nvcc. Each launcher checks its launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace infermark::gpu::probe {

/// Fills `count` bf16 values with random numbers of magnitude 0.1 to 1 and random sign (never 0).
void FillBf16(void* data, std::size_t count, std::uint64_t seed, cudaStream_t stream);
/// Fills `count` fp8 (e4m3) values alike.
void FillFp8(void* data, std::size_t count, std::uint64_t seed, cudaStream_t stream);
/// Fills `bytes` (a multiple of 16) with a non-zero pattern.
void FillPattern(void* data, std::size_t bytes, std::uint64_t seed, cudaStream_t stream);

/// Reads `bytes` (a multiple of 16) with 16-byte loads, reducing them to one word per warp written
/// to `sink` (which holds SinkWords(sm_count) words).
void StreamRead(const void* data, std::size_t bytes, unsigned* sink, int sm_count, cudaStream_t stream);
/// Writes `bytes` with 16-byte stores of a non-zero pattern.
void StreamWrite(void* data, std::size_t bytes, unsigned salt, int sm_count, cudaStream_t stream);
/// Copies `bytes` with 16-byte loads and stores.
void StreamCopy(void* dst, const void* src, std::size_t bytes, int sm_count, cudaStream_t stream);
/// Words StreamRead writes to its sink.
std::size_t SinkWords(int sm_count);

/// Counts the bf16 values among `count` that are NaN or infinite (an unwritten, poisoned output
/// reads as NaN); synchronizes `stream`.
std::size_t CountNonFiniteBf16(const void* data, std::size_t count, cudaStream_t stream);

/// Launches one empty kernel (one thread).
void LaunchEmpty(cudaStream_t stream);

}  // namespace infermark::gpu::probe
