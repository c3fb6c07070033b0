#pragma once
// The CPU backend's kernels: fp32, vectorised with Eigen, rows split over threads. These are what the CPU
// backend times; they share no code with the reference in src/reference/, which checks them.

#include <cstdint>

namespace fleetcast::engine::cpu {

// y[m,n] = x[m,k] w[n,k]^T, all row-major.
void gemm(const float* x, const float* w, float* y, std::int64_t m, std::int64_t n, std::int64_t k);

void rmsnorm(const float* x, const float* weight, float* y, std::int64_t tokens, std::int64_t hidden, float eps);

// gate_up [tokens, 2 x width] (gate, then up) -> y [tokens, width]
void swiglu(const float* gate_up, float* y, std::int64_t tokens, std::int64_t width);

// q [tokens, q_heads, head_dim] and k [tokens, kv_heads, head_dim] rotated into q_out and k_out;
// cos_sin [positions, head_dim] holds cosines then sines.
void rope(const float* q, const float* k, const std::int32_t* positions, const float* cos_sin, float* q_out,
          float* k_out, std::int64_t tokens, std::int64_t q_heads, std::int64_t kv_heads, std::int64_t head_dim);

// Per row of logits [batch, vocab]: softmax, top_k by logit (ties to the lower id), a draw among them.
void sampling(const float* logits, const float* draws, std::int32_t* tokens, float* probs, std::int64_t batch,
              std::int64_t vocab, std::int64_t top_k);

struct PagedAttention {
  const float* q;          // [batch, q_heads, dk]
  const float* k_cache;    // [pages, page_size, kv_heads, dk]
  const float* v_cache;    // [pages, page_size, kv_heads, dv]; nullptr: the first dv of each key (MLA)
  const std::int32_t* block_table;  // [batch, pages_per_seq]
  float* out;              // [batch, q_heads, dv]
  std::int64_t batch, context, q_heads, kv_heads, dk, dv, page_size, pages_per_seq;
  float scale;
};
void attention_decode(const PagedAttention& a);

struct PagedPrefill {
  const float* q;          // [batch, chunk, q_heads, head_dim]
  const float* k_cache;    // [pages, page_size, kv_heads, head_dim]
  const float* v_cache;    // same layout as k_cache
  const std::int32_t* block_table;  // [batch, pages_per_seq]
  float* out;              // [batch, chunk, q_heads, head_dim]
  std::int64_t batch, chunk, context, q_heads, kv_heads, head_dim, page_size, pages_per_seq;
  float scale;
};
// Causal: query i of a chunk attends to cached tokens 0 .. context + i (the chunk's own already cached).
void attention_prefill(const PagedPrefill& a);

}  // namespace fleetcast::engine::cpu
