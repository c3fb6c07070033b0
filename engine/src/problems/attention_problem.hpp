#pragma once
// The host side of a decode-attention case over a paged KV cache, for both layouts:
//  - GQA: K and V caches [pages, page_size, kv_heads, head_dim]; query head h reads kv head h / (q/kv).
//  - MLA (absorbed, as FlashMLA runs it): one cache [pages, page_size, 1, latent + rope] shared by all
//    query heads; keys are whole entries, values the first `latent` dims of the same entries.
// Every sequence has `context` tokens; its pages come from a seeded shuffle of the pool, so a kernel
// cannot get away with reading the cache in order. An FP8 cache (E4M3, one per-tensor scale, vLLM's
// kv_cache_dtype "fp8_e4m3") is checked against the reference on the dequantised values it holds.

#include <cstdint>
#include <string>
#include <vector>

#include "fleetcast/engine/check.hpp"
#include "fleetcast/engine/shape.hpp"
#include "tensor_init.hpp"

namespace fleetcast::engine {

struct AttentionProblem {
  AttentionProblem(const Shape& shape, bool mla, Storage storage);
  bool mla;
  std::int64_t batch, context, q_heads, kv_heads, dk, dv, page_size;
  std::int64_t pages_per_seq, num_pages;
  double scale;  // 1 / sqrt(dk)
  Storage storage;     // as asked: fp32, bf16, or fp8_e4m3 (an FP8 KV cache)
  Storage q_storage;   // q and the output: bf16 when the cache is FP8, as vLLM's fp8 kv_cache_dtype runs
  Storage kv_storage;  // the cache; FP8 values dequantise with the per-tensor scale kFp8Scale (fill.hpp)
  TensorInit q;        // [batch, q_heads, dk]
  TensorInit k_cache;  // [num_pages, page_size, kv_heads, dk]
  TensorInit v_cache;  // [num_pages, page_size, kv_heads, dv]; unused (count 0) for MLA
  std::vector<std::int32_t> block_table;  // [batch, pages_per_seq]

  // Cache element offset of token t of sequence b, kv head h (the start of its dk or dv vector).
  std::int64_t k_offset(std::int64_t b, std::int64_t t, std::int64_t h) const;
  std::int64_t v_offset(std::int64_t b, std::int64_t t, std::int64_t h) const;

  // `out` reads [batch, q_heads, dv]. Samples whole sequences: the reference regenerates their cache.
  CheckResult check(const ReadRange& out, const std::string& what, double tolerance, bool full) const;
};

}  // namespace fleetcast::engine
