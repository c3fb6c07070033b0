// The CUDA backend's own kernels. Elementwise ops move 16 bytes per thread per access where the row
// length allows (8 bf16 or 4 fp32 values), since they are bound by memory bandwidth.

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <algorithm>

#include "cuda_check.hpp"
#include "cuda_kernels.hpp"
#include "element_convert.cuh"

namespace fleetcast::engine::cuda {
namespace {

// N values of T loaded or stored as one access (16 bytes when N = 16 / sizeof(T)).
template <class T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

template <class T, int N>
__device__ inline Pack<T, N> load(const T* p) { return *reinterpret_cast<const Pack<T, N>*>(p); }
template <class T, int N>
__device__ inline void store(T* p, const Pack<T, N>& v) { *reinterpret_cast<Pack<T, N>*>(p) = v; }

__global__ void fill_kernel(void* dst, int storage, std::uint64_t seed, std::size_t count, float amplitude,
                            float offset) {
  const auto s = static_cast<Storage>(storage);
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const float v = stored_value(s, seed, i, amplitude, offset);  // already representable in the storage
    if (s == Storage::fp32) {
      static_cast<float*>(dst)[i] = v;
    } else if (s == Storage::bf16) {
      static_cast<__nv_bfloat16*>(dst)[i] = __float2bfloat16_rn(v);
    } else {
      static_cast<__nv_fp8_e4m3*>(dst)[i] = __nv_fp8_e4m3(v / kFp8Scale);
    }
  }
}

__global__ void fill_bytes_kernel(unsigned char* dst, std::uint64_t seed, std::size_t count) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    dst[i] = byte_value(seed, i);
}

// Sum over the block; every thread gets the total. blockDim.x is a multiple of 32, at most 1024.
__device__ float block_sum(float v) {
  __shared__ float partial[32];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  const int warps = blockDim.x / 32;
  v = lane < warps ? partial[lane] : 0.0f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

template <class T, int N>
__global__ void rmsnorm_kernel(const T* x, const T* w, T* y, std::int64_t hidden, float eps) {
  const T* xr = x + blockIdx.x * hidden;
  T* yr = y + blockIdx.x * hidden;
  const std::int64_t first = static_cast<std::int64_t>(threadIdx.x) * N, stride = std::int64_t{blockDim.x} * N;
  float sum_sq = 0.0f;
  for (std::int64_t i = first; i < hidden; i += stride) {
    const auto p = load<T, N>(xr + i);
#pragma unroll
    for (int j = 0; j < N; ++j) sum_sq += to_float(p.v[j]) * to_float(p.v[j]);
  }
  const float inv_rms = rsqrtf(block_sum(sum_sq) / static_cast<float>(hidden) + eps);
  // Second pass over the row, which is in L1/L2 by now.
  for (std::int64_t i = first; i < hidden; i += stride) {
    const auto p = load<T, N>(xr + i);
    const auto q = load<T, N>(w + i);
    Pack<T, N> out;
#pragma unroll
    for (int j = 0; j < N; ++j) out.v[j] = from_float<T>(to_float(p.v[j]) * inv_rms * to_float(q.v[j]));
    store<T, N>(yr + i, out);
  }
}

template <class T, int N>
__global__ void swiglu_kernel(const T* gate_up, T* y, std::int64_t tokens, std::int64_t width) {
  const std::int64_t packs_per_row = width / N, total = tokens * packs_per_row;
  for (std::int64_t p = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; p < total;
       p += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t t = p / packs_per_row, i = (p % packs_per_row) * N;
    const auto g = load<T, N>(gate_up + t * 2 * width + i);
    const auto u = load<T, N>(gate_up + t * 2 * width + width + i);
    Pack<T, N> out;
#pragma unroll
    for (int j = 0; j < N; ++j) {
      const float gj = to_float(g.v[j]);
      out.v[j] = from_float<T>(gj / (1.0f + __expf(-gj)) * to_float(u.v[j]));
    }
    store<T, N>(y + t * width + i, out);
  }
}

unsigned grid_for(std::int64_t work, int threads) {
  const std::int64_t blocks = std::min<std::int64_t>((work + threads - 1) / threads, 1 << 20);
  return static_cast<unsigned>(std::max<std::int64_t>(1, blocks));
}

template <class T>
void rmsnorm_typed(const void* x, const void* w, void* y, std::int64_t tokens, std::int64_t hidden, float eps,
                   cudaStream_t stream) {
  constexpr int kVec = 16 / sizeof(T);
  const bool vec = hidden % kVec == 0;
  const std::int64_t lanes = vec ? hidden / kVec : hidden;
  const int threads = static_cast<int>(std::clamp<std::int64_t>((lanes + 31) / 32 * 32, 32, 256));
  const auto* xt = static_cast<const T*>(x);
  const auto* wt = static_cast<const T*>(w);
  auto* yt = static_cast<T*>(y);
  if (vec) {
    rmsnorm_kernel<T, kVec><<<static_cast<unsigned>(tokens), threads, 0, stream>>>(xt, wt, yt, hidden, eps);
  } else {
    rmsnorm_kernel<T, 1><<<static_cast<unsigned>(tokens), threads, 0, stream>>>(xt, wt, yt, hidden, eps);
  }
  CUDA_CHECK_LAUNCH();
}

template <class T>
void swiglu_typed(const void* gate_up, void* y, std::int64_t tokens, std::int64_t width, cudaStream_t stream) {
  constexpr int kVec = 16 / sizeof(T);
  const auto* in = static_cast<const T*>(gate_up);
  auto* out = static_cast<T*>(y);
  if (width % kVec == 0) {
    swiglu_kernel<T, kVec><<<grid_for(tokens * width / kVec, 256), 256, 0, stream>>>(in, out, tokens, width);
  } else {
    swiglu_kernel<T, 1><<<grid_for(tokens * width, 256), 256, 0, stream>>>(in, out, tokens, width);
  }
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void fill(void* dst, Storage s, std::uint64_t seed, std::size_t count, float amplitude, float offset,
          cudaStream_t stream) {
  if (count == 0) return;
  fill_kernel<<<grid_for(static_cast<std::int64_t>(count), 256), 256, 0, stream>>>(dst, static_cast<int>(s), seed,
                                                                                    count, amplitude, offset);
  CUDA_CHECK_LAUNCH();
}

void fill_bytes(void* dst, std::uint64_t seed, std::size_t count, cudaStream_t stream) {
  if (count == 0) return;
  fill_bytes_kernel<<<grid_for(static_cast<std::int64_t>(count), 256), 256, 0, stream>>>(
      static_cast<unsigned char*>(dst), seed, count);
  CUDA_CHECK_LAUNCH();
}

void rmsnorm(const void* x, const void* weight, void* y, std::int64_t tokens, std::int64_t hidden, float eps,
             Storage s, cudaStream_t stream) {
  if (s == Storage::bf16) {
    rmsnorm_typed<__nv_bfloat16>(x, weight, y, tokens, hidden, eps, stream);
  } else {
    rmsnorm_typed<float>(x, weight, y, tokens, hidden, eps, stream);
  }
}

void swiglu(const void* gate_up, void* y, std::int64_t tokens, std::int64_t width, Storage s, cudaStream_t stream) {
  if (s == Storage::bf16) {
    swiglu_typed<__nv_bfloat16>(gate_up, y, tokens, width, stream);
  } else {
    swiglu_typed<float>(gate_up, y, tokens, width, stream);
  }
}

}  // namespace fleetcast::engine::cuda
