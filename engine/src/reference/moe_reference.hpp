#pragma once
// The reference for the MoE ops: routing, the expert-sorted order of token slots, and the weighted combine,
// in double precision and the plainest code. The CPU kernels (src/cpu/cpu_moe.cpp) share nothing with it.

#include <cstdint>
#include <vector>

namespace fleetcast::engine::reference {

struct MoeRoute {
  std::vector<std::int64_t> ids;  // top_k experts, best first
  std::vector<double> weights;    // their scores renormalised to sum to one
};

// One token's routing from its router logits over `experts`:
//  - scores: softmax over the experts, or an independent sigmoid per expert (DeepSeek-V3);
//  - group-limited routing when n_group > 1 (DeepSeek-V3 "noaux_tc", V2 "group_limited_greedy"): the
//    experts fall into n_group equal groups in index order; a group's score is the sum of its two best
//    scores (sigmoid, as V3) or its best score (softmax, as V2); only the experts of the topk_group best
//    groups may be picked;
//  - the top_k allowed experts by score; equal scores (and equal group scores) go to the lower index.
// DeepSeek-V3's score-correction bias and routed scaling factor are left out: they change no cost.
MoeRoute moe_route(const float* logits, std::int64_t experts, std::int64_t top_k, std::int64_t n_group,
                   std::int64_t topk_group, bool sigmoid);

// The token slots (token * top_k + slot) in expert order, token order within an expert: the rows of the
// permuted activations. ids is [tokens, top_k].
std::vector<std::int64_t> moe_slot_order(const std::int32_t* ids, std::int64_t tokens, std::int64_t top_k,
                                         std::int64_t experts);

}  // namespace fleetcast::engine::reference
