#pragma once
// Host launchers for model_step's glue kernels (model_step_kernels.cu): the embedding gather, the fused QKV's
// split into q and k and the new K and V's scatter into the paged cache, the residual add and the gather of
// each sequence's last token, MLA's splits and latent-cache writes, on fp32 or bf16 tensors (`s`: every tensor
// of the call; copies move the stored values, the residual add rounds fp32 sums to bf16, to nearest even). The
// KV cache writes may instead store into an FP8 E4M3 cache (an fp8 step's: bf16 values in, e4m3(value /
// kv_scale) stored, to nearest even, as the CPU step's store_cache).
// Enqueued on `stream`; launch errors are thrown as CudaError.

#include <cuda_runtime.h>

#include <cstdint>

#include "fleetcast/engine/fill.hpp"

namespace fleetcast::engine::cuda {

// out[t] = table[ids[t]], rows of `width` elements.
void gather_rows(const void* table, const std::int32_t* ids, void* out, std::int64_t rows, std::int64_t width,
                 Storage s, cudaStream_t stream);

// qkv [tokens, (q_heads + 2 kv_heads) head_dim] -> q [tokens, q_heads, d], k [tokens, kv_heads, d]; v straight
// into v_cache at the token's slot (token t is new token t % new_tokens of sequence t / new_tokens, at
// position context + t % new_tokens; slot from block_table [batch, pages_per_seq], pages of page_size).
struct QkvSplit {
  const void* qkv;
  void *q, *k, *v_cache;
  const std::int32_t* block_table;
  std::int64_t tokens, q_heads, kv_heads, head_dim, new_tokens, context, page_size, pages_per_seq;
  Storage storage;
  bool fp8_cache = false;  // v_cache E4M3 (storage bf16)
  float kv_scale = 1.0f;
};
void split_qkv(const QkvSplit& a, cudaStream_t stream);

// The rotated k [tokens, kv_heads, head_dim] into k_cache at each token's slot (as split_qkv); with fp8_cache,
// k is bf16 and k_cache E4M3 at kv_scale.
struct KCacheWrite {
  const void* k;
  void* k_cache;
  const std::int32_t* block_table;
  std::int64_t tokens, kv_heads, head_dim, new_tokens, context, page_size, pages_per_seq;
  Storage storage;
  bool fp8_cache = false;
  float kv_scale = 1.0f;
};
void write_k_cache(const KCacheWrite& a, cudaStream_t stream);

// x += y, count elements (bf16: the fp32 sum rounded).
void add_into(void* x, const void* y, std::int64_t count, Storage s, cudaStream_t stream);

// MLA: q_b's output q [tokens, q_heads, nope + rope] (each head's nope part, then its rope part) and kv_a's
// kv [tokens, kv_lora + rope] (the latent, then the shared rope key) split into the contiguous arrays RMSNorm
// and RoPE read: q_pe [tokens, q_heads, rope], latent [tokens, kv_lora], k_pe [tokens, rope]. q's nope parts
// stay where they are (the W_UK GEMM reads them in place).
struct MlaSplit {
  const void *q, *kv;
  void *q_pe, *latent, *k_pe;
  std::int64_t tokens, q_heads, nope, rope, kv_lora;
  Storage storage;
};
void mla_split(const MlaSplit& a, cudaStream_t stream);

// MLA: each new token's cache entry (the normed latent, then the rotated rope key: kv_lora + rope elements)
// into `cache` [pages, page_size, kv_lora + rope] at its slot (as split_qkv), and each head's rotated q_pe
// [tokens, q_heads, rope] after its latent query in q_attn [tokens, q_heads, kv_lora + rope].
struct MlaEntries {
  const void *latent, *k_pe, *q_pe;
  void *cache, *q_attn;
  const std::int32_t* block_table;
  std::int64_t tokens, q_heads, kv_lora, rope, new_tokens, context, page_size, pages_per_seq;
  Storage storage;
  bool fp8_cache = false;  // cache E4M3 (storage bf16)
  float kv_scale = 1.0f;
};
void mla_write(const MlaEntries& a, cudaStream_t stream);

// last[b] = x[b * new_tokens + new_tokens - 1], rows of `width`.
void gather_last(const void* x, void* last, std::int64_t batch, std::int64_t new_tokens, std::int64_t width, Storage s,
                 cudaStream_t stream);

}  // namespace fleetcast::engine::cuda
