#pragma once
// Index arithmetic of the tensor-core prefill kernel (attention_kernels.cu), kept apart and __host__ __device__
// so that a host test (tests/engine/test_gpu.cpp) checks it against the plain formulas where no GPU runs it:
// an off-by-one here would mask a visible key or read another sequence's page.

#include <cuda_runtime.h>

#include <cstdint>

namespace fleetcast::engine::cuda {

// The tensor-core kernel's tiles: query rows per block (16 per warp) and key positions per pass.
constexpr int kPrefillTcRows = 64, kPrefillTcKeys = 64;

// The query rows one block serves: tile `tile` of `tile_rows` rows of a chunk, the last tile possibly short.
struct PrefillTile {
  std::int64_t q0, rows;
};
__host__ __device__ inline PrefillTile prefill_tile(std::int64_t chunk, std::int64_t tile_rows, std::int64_t tile) {
  const std::int64_t q0 = tile * tile_rows;
  return {q0, chunk - q0 < tile_rows ? chunk - q0 : tile_rows};
}
__host__ __device__ inline std::int64_t prefill_tile_count(std::int64_t chunk, std::int64_t tile_rows) {
  return (chunk + tile_rows - 1) / tile_rows;
}

// New token i of a chunk (0-based) after `context` cached tokens attends the cached tokens and new tokens
// 0..i: cache positions 0..context + i, the bound inclusive.
__host__ __device__ inline std::int64_t prefill_last_key(std::int64_t context, std::int64_t i) { return context + i; }
__host__ __device__ inline bool prefill_visible(std::int64_t context, std::int64_t i, std::int64_t t) {
  return t <= prefill_last_key(context, i);
}
// Key tiles of `key_tile` positions a block of rows q0 .. q0 + rows - 1 walks: up to its last row's last key.
__host__ __device__ inline std::int64_t prefill_key_tiles(std::int64_t context, PrefillTile q, std::int64_t key_tile) {
  return (prefill_last_key(context, q.q0 + q.rows - 1) + 1 + key_tile - 1) / key_tile;
}

// Query head `head` reads kv head head / (q_heads / kv_heads) (GQA: consecutive query heads share one).
__host__ __device__ inline std::int64_t prefill_kv_head(std::int64_t head, std::int64_t q_heads,
                                                        std::int64_t kv_heads) {
  return head / (q_heads / kv_heads);
}

// Cache entry (in units of head_dim elements) of position t of a sequence whose block-table row is `pages`,
// kv head kvh: caches are [pages, page_size, kv_heads, head_dim], as the CUDA-core kernel reads them.
__host__ __device__ inline std::int64_t prefill_cache_entry(const std::int32_t* pages, std::int64_t t,
                                                            std::int64_t page_size, std::int64_t kv_heads,
                                                            std::int64_t kvh) {
  return (std::int64_t{pages[t / page_size]} * page_size + t % page_size) * kv_heads + kvh;
}

}  // namespace fleetcast::engine::cuda
