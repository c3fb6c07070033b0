#pragma once
// Host launchers for RoPE and sampling (rope_sampling_kernels.cu). Enqueued on `stream`; launch errors
// are thrown as CudaError.

#include <cuda_runtime.h>

#include <cstdint>

#include "fleetcast/engine/fill.hpp"

namespace fleetcast::engine::cuda {

// NeoX halves, as the CPU op: q [tokens, q_heads, head_dim] and k [tokens, kv_heads, head_dim] (fp32 or
// bf16) rotated into q_out and k_out at positions[t], from cos_sin [positions, head_dim] (fp32: cosines,
// then sines). One thread per rotated pair.
void rope(const void* q, const void* k, const std::int32_t* positions, const float* cos_sin, void* q_out, void* k_out,
          std::int64_t tokens, std::int64_t q_heads, std::int64_t kv_heads, std::int64_t head_dim, Storage s,
          cudaStream_t stream);

// Per row of logits [batch, vocab] (fp32 or bf16): the softmax's maximum and denominator, the top_k
// logits (ties to the lower id) by a radix select on the logits' bits, sorted, and a draw among them with
// draws[b] in [0, 1) by the reference's rule (sample_row, in double). One block per row.
void sampling(const void* logits, const float* draws, std::int32_t* tokens, float* probs, std::int64_t batch,
              std::int64_t vocab, std::int64_t top_k, Storage s, cudaStream_t stream);

}  // namespace fleetcast::engine::cuda
