#pragma once
// Small pieces the attention kernel files share: a min usable on host and device, and the one-time raise of a
// kernel's dynamic shared-memory limit.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <map>

#include "cuda_check.hpp"

namespace fleetcast::engine::cuda {

__host__ __device__ inline std::int64_t smaller(std::int64_t x, std::int64_t y) { return x < y ? x : y; }

// Raises a kernel's dynamic shared memory limit to `bytes` the first time a launch needs more than the
// last raise: once per kernel and size, not on every (timed) launch.
template <class Kernel>
void allow_shared(Kernel kernel, std::size_t bytes) {
  static std::map<const void*, std::size_t> allowed;  // by kernel; 48 KiB needs no asking
  std::size_t& limit = allowed.try_emplace(reinterpret_cast<const void*>(kernel), std::size_t{48} << 10).first->second;
  if (bytes <= limit) return;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  limit = bytes;
}

}  // namespace fleetcast::engine::cuda
