// RoPE and sampling kernels.

#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>

#include "cuda_check.hpp"
#include "element_convert.cuh"
#include "rope_sampling_kernels.hpp"

namespace fleetcast::engine::cuda {
namespace {

unsigned grid_for(std::int64_t work, int threads) {
  const std::int64_t blocks = std::min<std::int64_t>((work + threads - 1) / threads, 1 << 20);
  return static_cast<unsigned>(std::max<std::int64_t>(1, blocks));
}

template <class T>
__global__ void rope_kernel(const T* q, const T* k, const std::int32_t* positions, const float* cos_sin, T* q_out,
                            T* k_out, std::int64_t tokens, std::int64_t q_heads, std::int64_t kv_heads,
                            std::int64_t head_dim) {
  const std::int64_t half = head_dim / 2, heads = q_heads + kv_heads, total = tokens * heads * half;
  for (std::int64_t p = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; p < total;
       p += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = p % half, h = p / half % heads, t = p / half / heads;
    const float* table = cos_sin + std::int64_t{positions[t]} * head_dim;
    const float c = table[i], s = table[half + i];
    const bool is_q = h < q_heads;
    const std::int64_t base = is_q ? (t * q_heads + h) * head_dim : (t * kv_heads + h - q_heads) * head_dim;
    const T* in = is_q ? q : k;
    T* out = is_q ? q_out : k_out;
    const float x1 = to_float(in[base + i]), x2 = to_float(in[base + half + i]);
    out[base + i] = from_float<T>(x1 * c - x2 * s);
    out[base + half + i] = from_float<T>(x2 * c + x1 * s);
  }
}

constexpr int kSampleThreads = 512;
constexpr int kMaxTopK = 1024;  // ops.cpp caps top_k here

// Order-preserving map of a float's bits to an unsigned integer: larger floats, larger keys.
__device__ inline unsigned key_of(float x) {
  const unsigned u = __float_as_uint(x);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
__device__ inline float float_of(unsigned key) {
  return __uint_as_float((key & 0x80000000u) ? (key & 0x7fffffffu) : ~key);
}

// Block-wide reductions and scan for kSampleThreads threads.
__device__ float block_reduce(float v, bool is_max, float* scratch) {
  for (int o = 16; o > 0; o >>= 1) {
    const float w = __shfl_xor_sync(0xffffffffu, v, o);
    v = is_max ? fmaxf(v, w) : v + w;
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();  // scratch may still be read by a previous call
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < kSampleThreads / 32 ? scratch[lane] : (is_max ? -INFINITY : 0.0f);
  for (int o = 16; o > 0; o >>= 1) {
    const float w = __shfl_xor_sync(0xffffffffu, v, o);
    v = is_max ? fmaxf(v, w) : v + w;
  }
  return v;
}

// Exclusive prefix sum of `flag` over the block, in thread order; `total` gets the block's sum.
__device__ int block_exclusive_scan(int flag, int* scratch, int& total) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int inclusive = flag;
  for (int o = 1; o < 32; o <<= 1) {
    const int n = __shfl_up_sync(0xffffffffu, inclusive, o);
    if (lane >= o) inclusive += n;
  }
  __syncthreads();
  if (lane == 31) scratch[warp] = inclusive;
  __syncthreads();
  int before = 0;
  total = 0;
  for (int w = 0; w < kSampleThreads / 32; ++w) {
    if (w < warp) before += scratch[w];
    total += scratch[w];
  }
  return before + inclusive - flag;
}

template <class T>
__global__ void __launch_bounds__(kSampleThreads)
    sampling_kernel(const T* logits, const float* draws, std::int32_t* tokens, float* probs, std::int64_t vocab,
                    int top_k) {
  __shared__ float fscratch[32];
  __shared__ int iscratch[32];
  __shared__ unsigned hist[256];
  __shared__ unsigned long long cand[kMaxTopK];  // key << 32 | ~id: descending order = the reference's
  __shared__ int count_s;
  __shared__ unsigned prefix_s, mask_s;
  __shared__ int remaining_s;
  const T* row = logits + blockIdx.x * vocab;
  const int tid = threadIdx.x;

  float m = -INFINITY;
  for (std::int64_t i = tid; i < vocab; i += kSampleThreads) m = fmaxf(m, to_float(row[i]));
  const float max_logit = block_reduce(m, true, fscratch);
  float sum = 0.0f;
  for (std::int64_t i = tid; i < vocab; i += kSampleThreads) sum += expf(to_float(row[i]) - max_logit);
  const float total = block_reduce(sum, false, fscratch);

  // Radix select, 8 bits a pass from the top: the key of the top_k-th largest logit.
  if (tid == 0) {
    prefix_s = 0;
    mask_s = 0;
    remaining_s = top_k;
  }
  for (int shift = 24; shift >= 0; shift -= 8) {
    for (int i = tid; i < 256; i += kSampleThreads) hist[i] = 0;
    __syncthreads();
    const unsigned prefix = prefix_s, mask = mask_s;
    for (std::int64_t i = tid; i < vocab; i += kSampleThreads) {
      const unsigned key = key_of(to_float(row[i]));
      if ((key & mask) == prefix) atomicAdd(&hist[(key >> shift) & 0xffu], 1u);
    }
    __syncthreads();
    if (tid == 0) {
      int remaining = remaining_s;
      int bin = 255;
      for (; bin > 0; --bin) {
        if (static_cast<int>(hist[bin]) >= remaining) break;
        remaining -= static_cast<int>(hist[bin]);
      }
      remaining_s = remaining;
      prefix_s = prefix | (static_cast<unsigned>(bin) << shift);
      mask_s = mask | (0xffu << shift);
    }
    __syncthreads();
  }
  const unsigned threshold = prefix_s;
  const int equal_needed = remaining_s;  // of the logits equal to the threshold, the lowest ids
  if (tid == 0) count_s = 0;
  __syncthreads();
  for (std::int64_t i = tid; i < vocab; i += kSampleThreads) {
    const unsigned key = key_of(to_float(row[i]));
    if (key > threshold)
      cand[atomicAdd(&count_s, 1)] = (static_cast<unsigned long long>(key) << 32) | ~static_cast<unsigned>(i);
  }
  __syncthreads();
  const int greater = count_s;
  int taken = 0;
  for (std::int64_t base = 0; base < vocab && taken < equal_needed; base += kSampleThreads) {
    const std::int64_t i = base + tid;
    const int flag = i < vocab && key_of(to_float(row[i])) == threshold ? 1 : 0;
    int chunk_total = 0;
    const int rank = taken + block_exclusive_scan(flag, iscratch, chunk_total);
    if (flag && rank < equal_needed)
      cand[greater + rank] = (static_cast<unsigned long long>(threshold) << 32) | ~static_cast<unsigned>(i);
    taken += chunk_total;  // the same on every thread: the loop ends together
  }
  // Bitonic sort, descending, over the next power of two (padding sorts last).
  int n = 1;
  while (n < top_k) n <<= 1;
  for (int i = top_k + tid; i < n; i += kSampleThreads) cand[i] = 0;
  __syncthreads();
  for (int size = 2; size <= n; size <<= 1) {
    for (int stride = size / 2; stride > 0; stride >>= 1) {
      for (int i = tid; i < n; i += kSampleThreads) {
        const int j = i ^ stride;
        if (j > i) {
          const bool descending = (i & size) == 0;
          const unsigned long long a = cand[i], b = cand[j];
          if (descending ? a < b : a > b) {
            cand[i] = b;
            cand[j] = a;
          }
        }
      }
      __syncthreads();
    }
  }
  if (tid == 0) {
    // The reference's rule (reference.cpp sample_row), in double and in the same order.
    auto logit = [](unsigned long long c) { return static_cast<double>(float_of(static_cast<unsigned>(c >> 32))); };
    auto id = [](unsigned long long c) { return static_cast<std::int32_t>(~static_cast<unsigned>(c)); };
    const double max_d = max_logit;
    std::int32_t chosen = id(cand[0]);
    if (top_k > 1) {
      double top_total = 0.0;
      for (int i = 0; i < top_k; ++i) top_total += exp(logit(cand[i]) - max_d);
      double cumulative = 0.0;
      for (int i = 0; i < top_k; ++i) {
        cumulative += exp(logit(cand[i]) - max_d) / top_total;
        chosen = id(cand[i]);
        if (static_cast<double>(draws[blockIdx.x]) < cumulative) break;
      }
    }
    tokens[blockIdx.x] = chosen;
    probs[blockIdx.x] = expf(to_float(row[chosen]) - max_logit) / total;
  }
}

}  // namespace

void rope(const void* q, const void* k, const std::int32_t* positions, const float* cos_sin, void* q_out, void* k_out,
          std::int64_t tokens, std::int64_t q_heads, std::int64_t kv_heads, std::int64_t head_dim, Storage s,
          cudaStream_t stream) {
  const unsigned grid = grid_for(tokens * (q_heads + kv_heads) * (head_dim / 2), 256);
  if (s == Storage::bf16) {
    rope_kernel<__nv_bfloat16><<<grid, 256, 0, stream>>>(
        static_cast<const __nv_bfloat16*>(q), static_cast<const __nv_bfloat16*>(k), positions, cos_sin,
        static_cast<__nv_bfloat16*>(q_out), static_cast<__nv_bfloat16*>(k_out), tokens, q_heads, kv_heads, head_dim);
  } else {
    rope_kernel<float><<<grid, 256, 0, stream>>>(static_cast<const float*>(q), static_cast<const float*>(k), positions,
                                                 cos_sin, static_cast<float*>(q_out), static_cast<float*>(k_out),
                                                 tokens, q_heads, kv_heads, head_dim);
  }
  CUDA_CHECK_LAUNCH();
}

void sampling(const void* logits, const float* draws, std::int32_t* tokens, float* probs, std::int64_t batch,
              std::int64_t vocab, std::int64_t top_k, Storage s, cudaStream_t stream) {
  const auto rows = static_cast<unsigned>(batch);
  if (s == Storage::bf16) {
    sampling_kernel<__nv_bfloat16><<<rows, kSampleThreads, 0, stream>>>(
        static_cast<const __nv_bfloat16*>(logits), draws, tokens, probs, vocab, static_cast<int>(top_k));
  } else {
    sampling_kernel<float><<<rows, kSampleThreads, 0, stream>>>(static_cast<const float*>(logits), draws, tokens, probs,
                                                                vocab, static_cast<int>(top_k));
  }
  CUDA_CHECK_LAUNCH();
}

}  // namespace fleetcast::engine::cuda
