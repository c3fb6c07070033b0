// Per-tensor FP8 quantisation of bf16 activations: an absmax pass (a block reduction, then one atomicMax per
// block on the float's bits: non-negative floats order as their bit patterns), then the scale and the E4M3
// values, every thread deriving the scale from the absmax the same way.

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <algorithm>

#include "cuda_check.hpp"
#include "element_convert.cuh"
#include "fp8_quant_kernels.hpp"

namespace fleetcast::engine::cuda {
namespace {

constexpr int kThreads = 256;
constexpr float kE4m3Max = 448.0f;  // fp8_quant.hpp's

unsigned blocks_for(std::int64_t count) {
  return static_cast<unsigned>(std::clamp<std::int64_t>((count + kThreads - 1) / kThreads, 1, 65535 * 8));
}

__device__ inline std::int64_t element_count(const Fp8Quantise& a) {
  return (a.rows_on_device != nullptr ? std::int64_t{*a.rows_on_device} : a.max_rows) * a.width;
}

__global__ void absmax_kernel(Fp8Quantise a) {
  const auto* x = static_cast<const __nv_bfloat16*>(a.x);
  const std::int64_t count = element_count(a);
  float m = 0.0f;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::int64_t{gridDim.x} * blockDim.x)
    m = fmaxf(m, fabsf(to_float(x[i])));
  for (int offset = 16; offset > 0; offset /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, offset));
  __shared__ float warp_max[kThreads / 32];
  if (threadIdx.x % 32 == 0) warp_max[threadIdx.x / 32] = m;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kThreads / 32; ++w) m = fmaxf(m, warp_max[w]);
    atomicMax(a.absmax, __float_as_uint(m));
  }
}

__global__ void quantise_kernel(Fp8Quantise a) {
  const auto* x = static_cast<const __nv_bfloat16*>(a.x);
  auto* out = static_cast<__nv_fp8_e4m3*>(a.out);
  const float absmax = __uint_as_float(*a.absmax);
  const float scale = absmax > 0.0f ? absmax / kE4m3Max : 1.0f;
  if (blockIdx.x == 0 && threadIdx.x == 0) *a.scale = scale;
  const std::int64_t count = element_count(a);
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::int64_t{gridDim.x} * blockDim.x)
    out[i] = __nv_fp8_e4m3(to_float(x[i]) / scale);  // to nearest even, as the host's round_e4m3
}

__global__ void to_fp8_kernel(const float* in, __nv_fp8_e4m3* out, std::int64_t count) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::int64_t{gridDim.x} * blockDim.x)
    out[i] = __nv_fp8_e4m3(in[i]);
}

}  // namespace

void quantise_fp8(const Fp8Quantise& a, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(a.absmax, 0, sizeof(unsigned), stream));
  const unsigned blocks = blocks_for(a.max_rows * a.width);
  absmax_kernel<<<blocks, kThreads, 0, stream>>>(a);
  CUDA_CHECK_LAUNCH();
  quantise_kernel<<<blocks, kThreads, 0, stream>>>(a);
  CUDA_CHECK_LAUNCH();
}

void to_fp8(const float* in, void* out, std::int64_t count, cudaStream_t stream) {
  if (count == 0) return;
  to_fp8_kernel<<<blocks_for(count), kThreads, 0, stream>>>(in, static_cast<__nv_fp8_e4m3*>(out), count);
  CUDA_CHECK_LAUNCH();
}

}  // namespace fleetcast::engine::cuda
