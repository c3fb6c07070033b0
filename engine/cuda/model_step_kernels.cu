// model_step's glue kernels: one thread per element, grid-stride; they move little next to the GEMMs and
// attention of a step.

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <type_traits>

#include "cuda_check.hpp"
#include "element_convert.cuh"
#include "model_step_kernels.hpp"

namespace fleetcast::engine::cuda {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(std::int64_t count) {
  return static_cast<unsigned>(std::clamp<std::int64_t>((count + kThreads - 1) / kThreads, 1, 65535 * 8));
}

__device__ inline std::int64_t slot_of(const std::int32_t* table, std::int64_t t, std::int64_t new_tokens,
                                       std::int64_t context, std::int64_t page_size, std::int64_t pages_per_seq) {
  const std::int64_t b = t / new_tokens, pos = context + t % new_tokens;
  return std::int64_t{table[b * pages_per_seq + pos / page_size]} * page_size + pos % page_size;
}

// A cache element from an activation: the stored value itself, or (an FP8 cache) e4m3(value / kv_scale).
template <class C, class T>
__device__ inline C cache_value(T v, float kv_scale) {
  if constexpr (std::is_same_v<C, T>) {
    return v;
  } else {
    return from_float<C>(to_float(v) / kv_scale);
  }
}

template <class T>
__global__ void gather_rows_kernel(const T* table, const std::int32_t* ids, T* out, std::int64_t rows,
                                   std::int64_t width) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < rows * width;
       i += std::int64_t{gridDim.x} * blockDim.x)
    out[i] = table[std::int64_t{ids[i / width]} * width + i % width];
}

template <class T, class C>
__global__ void split_qkv_kernel(QkvSplit a) {
  const std::int64_t row = (a.q_heads + 2 * a.kv_heads) * a.head_dim;
  const std::int64_t qw = a.q_heads * a.head_dim, kw = a.kv_heads * a.head_dim;
  const T* qkv = static_cast<const T*>(a.qkv);
  T* q = static_cast<T*>(a.q);
  T* k = static_cast<T*>(a.k);
  C* v_cache = static_cast<C*>(a.v_cache);
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < a.tokens * row;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t t = i / row, c = i % row;
    const T v = qkv[i];
    if (c < qw) {
      q[t * qw + c] = v;
    } else if (c < qw + kw) {
      k[t * kw + c - qw] = v;
    } else {
      const std::int64_t slot = slot_of(a.block_table, t, a.new_tokens, a.context, a.page_size, a.pages_per_seq);
      v_cache[slot * kw + c - qw - kw] = cache_value<C>(v, a.kv_scale);
    }
  }
}

template <class T, class C>
__global__ void write_k_cache_kernel(KCacheWrite a) {
  const std::int64_t kw = a.kv_heads * a.head_dim;
  const T* k = static_cast<const T*>(a.k);
  C* k_cache = static_cast<C*>(a.k_cache);
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < a.tokens * kw;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t t = i / kw;
    k_cache[slot_of(a.block_table, t, a.new_tokens, a.context, a.page_size, a.pages_per_seq) * kw + i % kw] =
        cache_value<C>(k[i], a.kv_scale);
  }
}

template <class T>
__global__ void add_into_kernel(T* x, const T* y, std::int64_t count) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::int64_t{gridDim.x} * blockDim.x)
    x[i] = from_float<T>(to_float(x[i]) + to_float(y[i]));
}

template <class T>
__global__ void gather_last_kernel(const T* x, T* last, std::int64_t batch, std::int64_t new_tokens,
                                   std::int64_t width) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < batch * width;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t b = i / width;
    last[i] = x[(b * new_tokens + new_tokens - 1) * width + i % width];
  }
}

template <class T>
__global__ void mla_split_kernel(MlaSplit a) {
  const std::int64_t qr = a.q_heads * a.rope, row = qr + a.kv_lora + a.rope, qd = a.nope + a.rope;
  const T* q = static_cast<const T*>(a.q);
  const T* kv = static_cast<const T*>(a.kv);
  T* q_pe = static_cast<T*>(a.q_pe);
  T* latent = static_cast<T*>(a.latent);
  T* k_pe = static_cast<T*>(a.k_pe);
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < a.tokens * row;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t t = i / row, c = i % row;
    if (c < qr) {
      q_pe[t * qr + c] = q[(t * a.q_heads + c / a.rope) * qd + a.nope + c % a.rope];
    } else if (c < qr + a.kv_lora) {
      latent[t * a.kv_lora + c - qr] = kv[t * (a.kv_lora + a.rope) + c - qr];
    } else {
      k_pe[t * a.rope + c - qr - a.kv_lora] = kv[t * (a.kv_lora + a.rope) + c - qr];
    }
  }
}

template <class T, class C>
__global__ void mla_write_kernel(MlaEntries a) {
  const std::int64_t entry = a.kv_lora + a.rope, qr = a.q_heads * a.rope, row = entry + qr;
  const T* latent = static_cast<const T*>(a.latent);
  const T* k_pe = static_cast<const T*>(a.k_pe);
  const T* q_pe = static_cast<const T*>(a.q_pe);
  C* cache = static_cast<C*>(a.cache);
  T* q_attn = static_cast<T*>(a.q_attn);
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < a.tokens * row;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t t = i / row, c = i % row;
    if (c < entry) {
      const std::int64_t slot = slot_of(a.block_table, t, a.new_tokens, a.context, a.page_size, a.pages_per_seq);
      cache[slot * entry + c] =
          cache_value<C>(c < a.kv_lora ? latent[t * a.kv_lora + c] : k_pe[t * a.rope + c - a.kv_lora], a.kv_scale);
    } else {
      const std::int64_t h = (c - entry) / a.rope, j = (c - entry) % a.rope;
      q_attn[(t * a.q_heads + h) * entry + a.kv_lora + j] = q_pe[t * qr + c - entry];
    }
  }
}

}  // namespace

void mla_split(const MlaSplit& a, cudaStream_t stream) {
  const unsigned blocks = blocks_for(a.tokens * (a.q_heads * a.rope + a.kv_lora + a.rope));
  if (a.storage == Storage::bf16) {
    mla_split_kernel<__nv_bfloat16><<<blocks, kThreads, 0, stream>>>(a);
  } else {
    mla_split_kernel<float><<<blocks, kThreads, 0, stream>>>(a);
  }
  CUDA_CHECK_LAUNCH();
}

void mla_write(const MlaEntries& a, cudaStream_t stream) {
  const unsigned blocks = blocks_for(a.tokens * (a.kv_lora + a.rope + a.q_heads * a.rope));
  if (a.fp8_cache) {
    mla_write_kernel<__nv_bfloat16, __nv_fp8_e4m3><<<blocks, kThreads, 0, stream>>>(a);
  } else if (a.storage == Storage::bf16) {
    mla_write_kernel<__nv_bfloat16, __nv_bfloat16><<<blocks, kThreads, 0, stream>>>(a);
  } else {
    mla_write_kernel<float, float><<<blocks, kThreads, 0, stream>>>(a);
  }
  CUDA_CHECK_LAUNCH();
}

void gather_rows(const void* table, const std::int32_t* ids, void* out, std::int64_t rows, std::int64_t width,
                 Storage s, cudaStream_t stream) {
  if (s == Storage::bf16) {
    gather_rows_kernel<<<blocks_for(rows * width), kThreads, 0, stream>>>(
        static_cast<const __nv_bfloat16*>(table), ids, static_cast<__nv_bfloat16*>(out), rows, width);
  } else {
    gather_rows_kernel<<<blocks_for(rows * width), kThreads, 0, stream>>>(static_cast<const float*>(table), ids,
                                                                          static_cast<float*>(out), rows, width);
  }
  CUDA_CHECK_LAUNCH();
}

void split_qkv(const QkvSplit& a, cudaStream_t stream) {
  const unsigned blocks = blocks_for(a.tokens * (a.q_heads + 2 * a.kv_heads) * a.head_dim);
  if (a.fp8_cache) {
    split_qkv_kernel<__nv_bfloat16, __nv_fp8_e4m3><<<blocks, kThreads, 0, stream>>>(a);
  } else if (a.storage == Storage::bf16) {
    split_qkv_kernel<__nv_bfloat16, __nv_bfloat16><<<blocks, kThreads, 0, stream>>>(a);
  } else {
    split_qkv_kernel<float, float><<<blocks, kThreads, 0, stream>>>(a);
  }
  CUDA_CHECK_LAUNCH();
}

void write_k_cache(const KCacheWrite& a, cudaStream_t stream) {
  const unsigned blocks = blocks_for(a.tokens * a.kv_heads * a.head_dim);
  if (a.fp8_cache) {
    write_k_cache_kernel<__nv_bfloat16, __nv_fp8_e4m3><<<blocks, kThreads, 0, stream>>>(a);
  } else if (a.storage == Storage::bf16) {
    write_k_cache_kernel<__nv_bfloat16, __nv_bfloat16><<<blocks, kThreads, 0, stream>>>(a);
  } else {
    write_k_cache_kernel<float, float><<<blocks, kThreads, 0, stream>>>(a);
  }
  CUDA_CHECK_LAUNCH();
}

void add_into(void* x, const void* y, std::int64_t count, Storage s, cudaStream_t stream) {
  if (s == Storage::bf16) {
    add_into_kernel<<<blocks_for(count), kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(x),
                                                                static_cast<const __nv_bfloat16*>(y), count);
  } else {
    add_into_kernel<<<blocks_for(count), kThreads, 0, stream>>>(static_cast<float*>(x), static_cast<const float*>(y),
                                                                count);
  }
  CUDA_CHECK_LAUNCH();
}

void gather_last(const void* x, void* last, std::int64_t batch, std::int64_t new_tokens, std::int64_t width, Storage s,
                 cudaStream_t stream) {
  if (s == Storage::bf16) {
    gather_last_kernel<<<blocks_for(batch * width), kThreads, 0, stream>>>(
        static_cast<const __nv_bfloat16*>(x), static_cast<__nv_bfloat16*>(last), batch, new_tokens, width);
  } else {
    gather_last_kernel<<<blocks_for(batch * width), kThreads, 0, stream>>>(
        static_cast<const float*>(x), static_cast<float*>(last), batch, new_tokens, width);
  }
  CUDA_CHECK_LAUNCH();
}

}  // namespace fleetcast::engine::cuda
