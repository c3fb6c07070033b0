#pragma once
// Host launchers for the MoE kernels (cuda_moe_kernels.cu). fp32 or bf16 data, fp32 arithmetic, int32 ids
// and maps; enqueued on `stream`, launch errors thrown as CudaError. Same contracts as the CPU kernels in
// src/cpu/cpu_moe.hpp.

#include <cuda_runtime.h>

#include <cstdint>

#include "fleetcast/engine/fill.hpp"

namespace fleetcast::engine::cuda {

// Routing keeps a token's scores in registers and local memory: at most this many experts and groups.
inline constexpr std::int64_t kMaxRoutedExperts = 512;
inline constexpr std::int64_t kMaxExpertGroups = 64;

// One thread per token: scores, group limit, top_k by repeated arg-max (ties to the lower index).
void moe_routing(const void* logits, Storage s, std::int32_t* ids, float* weights, std::int64_t tokens,
                 std::int64_t experts, std::int64_t top_k, std::int64_t n_group, std::int64_t topk_group, bool sigmoid,
                 cudaStream_t stream);

// Slots of experts [first_expert, first_expert + local_experts) in expert order, token order within one:
// offsets [local_experts + 1], source_slot [rows], dest_row [tokens * top_k] (-1: an expert elsewhere),
// then the rows of x gathered into permuted (up to tokens * top_k rows; offsets[local_experts] of them).
void moe_permute(const void* x, Storage s, const std::int32_t* ids, void* permuted, std::int32_t* offsets,
                 std::int32_t* source_slot, std::int32_t* dest_row, std::int64_t tokens, std::int64_t hidden,
                 std::int64_t top_k, std::int64_t first_expert, std::int64_t local_experts, cudaStream_t stream);

// y[t] = sum over slots of weights[t, s] * expert_out[dest_row[t * top_k + s]] (rows of -1 skipped).
void moe_unpermute(const void* expert_out, Storage s, const float* weights, const std::int32_t* dest_row, void* y,
                   std::int64_t tokens, std::int64_t hidden, std::int64_t top_k, cudaStream_t stream);

}  // namespace fleetcast::engine::cuda
