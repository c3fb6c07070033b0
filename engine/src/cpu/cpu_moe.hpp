#pragma once
// The CPU backend's MoE kernels, fp32: routing, permute, unpermute and the grouped expert GEMM. They
// share no code with src/reference/moe_reference.cpp, which checks them.

#include <cstdint>

namespace fleetcast::engine::cpu {

struct MoeRouting {
  std::int64_t experts, top_k, n_group, topk_group;
  bool sigmoid;  // independent sigmoid scores (DeepSeek-V3); otherwise a softmax over the experts
};

// logits [tokens, experts] -> ids [tokens, top_k] (best first; ties to the lower index) and their scores
// renormalised to sum to one, weights [tokens, top_k]. Group-limited when n_group > 1 (see
// reference::moe_route for the rule).
void moe_routing(const float* logits, std::int32_t* ids, float* weights, std::int64_t tokens, const MoeRouting& r);

// Gathers the token slots routed to experts [first_expert, first_expert + local_experts) into expert
// order (token order within an expert): permuted [rows, hidden] with rows = the slots kept, offsets
// [local_experts + 1] (expert e's rows are offsets[e] .. offsets[e + 1]), source_slot [rows] (token * top_k
// + slot of each row) and dest_row [tokens * top_k] (each slot's row, -1 for an expert elsewhere: expert
// parallelism). All experts local: first_expert 0, local_experts = experts. Returns rows.
std::int64_t moe_permute(const float* x, const std::int32_t* ids, float* permuted, std::int32_t* offsets,
                         std::int32_t* source_slot, std::int32_t* dest_row, std::int64_t tokens, std::int64_t hidden,
                         std::int64_t top_k, std::int64_t first_expert, std::int64_t local_experts);

// y[t] = sum over slots s of weights[t, s] * expert_out[dest_row[t * top_k + s]], skipping rows of -1.
void moe_unpermute(const float* expert_out, const float* weights, const std::int32_t* dest_row, float* y,
                   std::int64_t tokens, std::int64_t hidden, std::int64_t top_k);

// y[offsets[e] .. offsets[e+1], n] = x[those rows, k] w[e]^T for each expert e, w [experts, n, k]; experts
// with no rows are not touched (their weights are not read).
void moe_grouped_gemm(const float* x, const float* w, const std::int32_t* offsets, float* y, std::int64_t experts,
                      std::int64_t n, std::int64_t k);

}  // namespace fleetcast::engine::cpu
