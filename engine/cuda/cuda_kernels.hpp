#pragma once
// Host launchers for the backend's own kernels (cuda_kernels.cu): input fills and the elementwise ops.
// Enqueued on `stream`; launch errors are thrown as CudaError.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "fleetcast/engine/fill.hpp"

namespace fleetcast::engine::cuda {

// Element i of `dst` (stored as `s`) becomes stored_value(s, seed, i, amplitude, offset): the values the
// CPU reference regenerates (fill.hpp). FP8 elements hold value / kFp8Scale.
void fill(void* dst, Storage s, std::uint64_t seed, std::size_t count, float amplitude, float offset,
          cudaStream_t stream);
void fill_bytes(void* dst, std::uint64_t seed, std::size_t count, cudaStream_t stream);

// fp32 or bf16 tensors, fp32 arithmetic. RMSNorm: one block per token.
void rmsnorm(const void* x, const void* weight, void* y, std::int64_t tokens, std::int64_t hidden, float eps,
             Storage s, cudaStream_t stream);
// gate_up [tokens, 2 x width] (gate, then up) -> y [tokens, width]
void swiglu(const void* gate_up, void* y, std::int64_t tokens, std::int64_t width, Storage s, cudaStream_t stream);

}  // namespace fleetcast::engine::cuda
