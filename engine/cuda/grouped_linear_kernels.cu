// A plain tiled grouped GEMM (fp32 or bf16 operands, fp32 accumulation in registers and shared memory): a 32 x 32
// output tile per block of one expert, 32-wide k slices of x and w staged in shared memory. The grid covers every
// expert's largest possible row count; blocks past an expert's real rows return at once. Correct and simple, far from
// cuBLASLt's grouped kernels: the op's own moe_grouped_gemm (cuBLASLt per expert) is what calibrates expert GEMMs.

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include "cuda_check.hpp"
#include "element_convert.cuh"
#include "grouped_linear_kernels.hpp"

namespace fleetcast::engine::cuda {
namespace {

constexpr int kTile = 32;
constexpr int kRowsPerThread = 4;  // a block of 32 x 8 threads, each computing 4 rows of one column

__device__ inline void store(float* p, float v) { *p = v; }
__device__ inline void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }

// XT: x's and w's element type; YT: y's. x_scale and w_scales (per expert) only for FP8 operands, else nullptr.
template <class XT, class YT>
__global__ void grouped_linear_kernel(const XT* x, const XT* w, const std::int32_t* offsets, YT* y, std::int64_t n,
                                      std::int64_t k, const float* x_scale, const float* w_scales) {
  const std::int64_t e = blockIdx.z;
  const std::int64_t first = offsets[e], rows = offsets[e + 1] - first;
  const std::int64_t row0 = std::int64_t{blockIdx.y} * kTile;
  if (row0 >= rows) return;  // the whole block: no thread reaches __syncthreads
  const std::int64_t col0 = std::int64_t{blockIdx.x} * kTile;
  const XT* we = w + e * n * k;
  __shared__ float xs[kTile][kTile + 1];
  __shared__ float ws[kTile][kTile + 1];
  float acc[kRowsPerThread] = {};
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (std::int64_t k0 = 0; k0 < k; k0 += kTile) {
    for (int i = 0; i < kRowsPerThread; ++i) {
      const int r = ty + i * (kTile / kRowsPerThread);
      const std::int64_t row = row0 + r, col = col0 + r, kk = k0 + tx;
      xs[r][tx] = row < rows && kk < k ? to_float(x[(first + row) * k + kk]) : 0.0f;
      ws[r][tx] = col < n && kk < k ? to_float(we[col * k + kk]) : 0.0f;
    }
    __syncthreads();
    for (int j = 0; j < kTile; ++j) {
      const float wv = ws[tx][j];
      for (int i = 0; i < kRowsPerThread; ++i) acc[i] += xs[ty + i * (kTile / kRowsPerThread)][j] * wv;
    }
    __syncthreads();
  }
  const std::int64_t col = col0 + tx;
  const float scale = x_scale != nullptr ? *x_scale * w_scales[e] : 1.0f;
  for (int i = 0; i < kRowsPerThread; ++i) {
    const std::int64_t row = row0 + ty + i * (kTile / kRowsPerThread);
    if (row < rows && col < n) store(y + (first + row) * n + col, acc[i] * scale);
  }
}

}  // namespace

void grouped_linear(const void* x, const void* w, const std::int32_t* offsets, void* y, std::int64_t experts,
                    std::int64_t max_rows_per_expert, std::int64_t n, std::int64_t k, Storage s, cudaStream_t stream) {
  if (experts == 0 || max_rows_per_expert == 0) return;
  const dim3 grid(static_cast<unsigned>((n + kTile - 1) / kTile),
                  static_cast<unsigned>((max_rows_per_expert + kTile - 1) / kTile), static_cast<unsigned>(experts));
  const dim3 block(kTile, kTile / kRowsPerThread);
  if (s == Storage::bf16) {
    grouped_linear_kernel<<<grid, block, 0, stream>>>(static_cast<const __nv_bfloat16*>(x),
                                                      static_cast<const __nv_bfloat16*>(w), offsets,
                                                      static_cast<__nv_bfloat16*>(y), n, k, nullptr, nullptr);
  } else {
    grouped_linear_kernel<<<grid, block, 0, stream>>>(static_cast<const float*>(x), static_cast<const float*>(w),
                                                      offsets, static_cast<float*>(y), n, k, nullptr, nullptr);
  }
  CUDA_CHECK_LAUNCH();
}

void grouped_linear_fp8(const void* x, const float* x_scale, const void* w, const float* w_scales,
                        const std::int32_t* offsets, void* y, std::int64_t experts, std::int64_t max_rows_per_expert,
                        std::int64_t n, std::int64_t k, cudaStream_t stream) {
  if (experts == 0 || max_rows_per_expert == 0) return;
  const dim3 grid(static_cast<unsigned>((n + kTile - 1) / kTile),
                  static_cast<unsigned>((max_rows_per_expert + kTile - 1) / kTile), static_cast<unsigned>(experts));
  const dim3 block(kTile, kTile / kRowsPerThread);
  grouped_linear_kernel<<<grid, block, 0, stream>>>(static_cast<const __nv_fp8_e4m3*>(x),
                                                    static_cast<const __nv_fp8_e4m3*>(w), offsets,
                                                    static_cast<__nv_bfloat16*>(y), n, k, x_scale, w_scales);
  CUDA_CHECK_LAUNCH();
}

}  // namespace fleetcast::engine::cuda
