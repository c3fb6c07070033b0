#pragma once
// The host side of a prefill-attention case: `chunk` new query tokens per sequence after `context` tokens
// already in a paged KV cache (chunked prefill: vLLM v1 schedules a long prompt as several chunks, each
// attending to the chunks before it). The chunk's own keys and values are in the cache already, at
// positions context .. context + chunk - 1: vLLM writes them (reshape_and_cache_flash) before the
// attention kernel runs (vLLM v0.11 vllm/v1/attention/backends/flash_attn.py). Causal: query i of the chunk
// sees keys 0 .. context + i. GQA heads: query head h reads kv head h / (q_heads / kv_heads).
//   q     [batch, chunk, q_heads, head_dim]
//   cache [pages, page_size, kv_heads, head_dim] for K and for V; pages a seeded shuffle of the pool
//   out   [batch, chunk, q_heads, head_dim]

#include <cstdint>
#include <string>
#include <vector>

#include "fleetcast/engine/check.hpp"
#include "fleetcast/engine/shape.hpp"
#include "tensor_init.hpp"

namespace fleetcast::engine {

struct PrefillProblem {
  PrefillProblem(const Shape& shape, Storage storage);
  std::int64_t batch, chunk, context, q_heads, kv_heads, head_dim, page_size;
  std::int64_t keys;  // context + chunk: the cached tokens of each sequence once the chunk is written
  std::int64_t pages_per_seq, num_pages;
  double scale;  // 1 / sqrt(head_dim)
  Storage storage;
  TensorInit q, k_cache, v_cache;
  std::vector<std::int32_t> block_table;  // [batch, pages_per_seq]

  // Cache element offset of token t of sequence b, kv head h.
  std::int64_t cache_offset(std::int64_t b, std::int64_t t, std::int64_t h) const;

  // `out` reads [batch, chunk, q_heads, head_dim]. Samples sequences and, within them, query positions
  // (the first and the last of the chunk always: the causal edges).
  CheckResult check(const ReadRange& out, const std::string& what, double tolerance, bool full) const;
};

}  // namespace fleetcast::engine
