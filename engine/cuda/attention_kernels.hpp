#pragma once
// Host launchers for the attention kernels (attention_kernels.cu): paged decode attention (GQA and
// absorbed MLA, fp32 / bf16 / FP8 E4M3 caches) split over the context flash-decoding style, and causal
// prefill attention over a paged cache (fp32 / bf16, or a bf16 q and out over an FP8 E4M3 cache; bf16 at
// head_dim 64 and 128 on tensor cores). Enqueued on `stream`; launch errors are thrown as CudaError.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "fleetcast/engine/fill.hpp"

namespace fleetcast::engine::cuda {

struct DecodeArgs {
  const void* q;                    // [batch, q_heads, dk], as q_storage
  const void* k_cache;              // [pages, page_size, kv_heads, dk], as kv_storage
  const void* v_cache;              // [pages, page_size, kv_heads, dv]; nullptr: the first dv of each key (MLA)
  const std::int32_t* block_table;  // [batch, pages_per_seq]
  void* out;                        // [batch, q_heads, dv], as q_storage
  float* partial_out;               // [batch, q_heads, splits, dv]: each split's normalised output (splits > 1)
  float* partial_lse;               // [batch, q_heads, splits]: each split's log-sum-exp of scores
  std::int64_t batch, context, q_heads, kv_heads, dk, dv, page_size, pages_per_seq;
  int splits;      // context pieces per sequence, from decode_splits
  float scale;     // 1 / sqrt(dk)
  float kv_scale;  // dequantisation scale of an FP8 cache (1 otherwise)
  Storage q_storage, kv_storage;
  // Causal rows (model_step's MLA prefill, the CPU step's decode kernel once per new token in one launch):
  // with queries_per_seq N > 1, `batch` counts query rows, row r is new token r % N of sequence r / N (its
  // block-table row) and attends the first context - (N - 1 - r % N) tokens; `context` is the sequence's
  // full length, context before the step + N. 1: every row a sequence of its own over `context` tokens.
  std::int64_t queries_per_seq = 1;
};

// Query row b of a decode launch: its block-table row and how many cache entries it attends. With
// queries_per_seq N > 1 the rows are a prefill's new tokens, causal: row b is new token b % N of sequence
// b / N and sees the first context - (N - 1 - b % N) entries; with N = 1 each row is a sequence over context.
struct DecodeRow {
  std::int64_t seq, context;
};
__host__ __device__ inline DecodeRow decode_row(const DecodeArgs& a, std::int64_t b) {
  return {b / a.queries_per_seq, a.context - (a.queries_per_seq - 1 - b % a.queries_per_seq)};
}

// Query heads one block serves (the K/V it reads serve them all): up to 8 of a kv head's group.
int decode_head_tile(std::int64_t group);
// Dynamic shared memory a decode block needs; the caller checks it against the device's opt-in limit.
std::size_t decode_shared_bytes(std::int64_t group, std::int64_t dk, std::int64_t dv);
// How many pieces to split each sequence's context into so that the grid has at least two blocks per SM
// (a batch-1 long-context decode would otherwise run on a handful of SMs), keeping each piece at least
// 256 tokens and at most 64 pieces.
int decode_splits(std::int64_t batch, std::int64_t kv_heads, std::int64_t group, std::int64_t context, int sm_count);
void attention_decode(const DecodeArgs& a, cudaStream_t stream);

struct PrefillArgs {
  const void* q;  // [batch, chunk, q_heads, head_dim]
  const void* k_cache;
  const void* v_cache;  // [pages, page_size, kv_heads, head_dim] each
  const std::int32_t* block_table;
  void* out;  // [batch, chunk, q_heads, head_dim]
  std::int64_t batch, chunk, context, q_heads, kv_heads, head_dim, page_size, pages_per_seq;
  float scale;
  Storage storage;         // fp32 or bf16, inputs and output
  bool fp8_cache = false;  // k_cache and v_cache E4M3 (storage bf16), each value times kv_scale
  float kv_scale = 1.0f;
};
// Whether the tensor-core prefill kernel serves a case: bf16 q and bf16 cache (not FP8) at head_dim 64 or 128,
// its shared memory within `shared_limit` (the device's opt-in bytes per block); the launch (the PrefillArgs
// form, which asks the current device) also needs kv_scale 1 and q, k_cache and v_cache 16-byte aligned.
// Otherwise the CUDA-core kernel runs.
bool prefill_tensor_cores(Storage storage, bool fp8_cache, std::int64_t head_dim, std::size_t shared_limit);
bool prefill_tensor_cores(const PrefillArgs& a);
// Dynamic shared memory a prefill block needs, of the tensor-core kernel (head_dim 64 or 128 only) or the
// CUDA-core one.
std::size_t prefill_shared_bytes(std::int64_t head_dim, bool tensor_cores);
// The tensor-core kernel's part of the above, and its launch (attention_prefill_tc.cu; head_dim 64 or 128, a
// case prefill_tensor_cores accepts).
std::size_t prefill_tc_shared_bytes(std::int64_t head_dim);
void attention_prefill_tc(const PrefillArgs& a, cudaStream_t stream);
// The tensor-core kernel where prefill_tensor_cores says so, else the CUDA-core kernel. Graph-capturable: no
// allocation or host sync; the device attribute query and the one cudaFuncSetAttribute per kernel and size
// are not stream operations.
void attention_prefill(const PrefillArgs& a, cudaStream_t stream);

}  // namespace fleetcast::engine::cuda
