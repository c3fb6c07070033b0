#pragma once
// Where routed experts sit on the EP ranks when traffic is uneven: every EP rank waits for the busiest one
// in a MoE layer, so the hottest rank's share of the token-expert assignments sets the layer's time.
// Redundant copies go to the hottest experts (EPLB-style), then copies are packed largest first onto the
// least loaded rank with a free slot, every rank holding (experts + redundant) / ep slots.

#include <cstdint>
#include <vector>

#include "fleetcast/specs/deployment.hpp"
#include "fleetcast/specs/model.hpp"

namespace fleetcast::simulator {

struct ExpertPlacement {
  int ep = 1;
  // The busiest rank's share of all assignments times ep: 1 when perfectly balanced.
  double load_factor = 1.0;
  // The routing share of each expert copy on the busiest rank (all copies of all ranks sum to 1).
  std::vector<double> hottest_copies;
};

// Routing shares of the experts by the spec: uniform, Zipf-like i^-alpha by popularity rank, or as given
// (normalised to sum 1).
std::vector<double> expert_shares(const specs::MoeSpec& moe, const specs::MoeLoadSpec& load);

ExpertPlacement place_experts(const specs::MoeSpec& moe, const specs::MoeLoadSpec& load, int ep);

// Expected distinct expert copies the busiest rank reads when `tokens` tokens each pick top_k experts: a
// copy of routing share q is hit by one token with probability top_k x q.
double copies_touched_on_busiest(const ExpertPlacement& p, int top_k, double tokens);

// Grouped (MoE) GEMMs compute whole tiles of rows per expert, so an expert that receives x of the step's
// token-expert assignments computes ceil(x / tile) x tile rows. The tile: the power of two at or above the mean
// assignments per expert, within [16, 128] (triton_kernels' matmul_ogs opt_flags, which vLLM runs MXFP4 MoE with;
// vLLM's fused_moe and TensorRT-LLM's CUTLASS grouped GEMMs take row tiles of 16 to 128 by batch the same way).
int grouped_gemm_row_tile(double tokens, int top_k, int experts);
// Expected rows the busiest rank's grouped GEMM computes, padding included, when `tokens` tokens each pick
// top_k experts: per copy of routing share q, tile x E[ceil(x / tile)] with x ~ Binomial(tokens, top_k q).
double padded_rows_on_busiest(const ExpertPlacement& p, int top_k, double tokens, int tile);

// What one measured rank's routed experts received (the engine's model_step records it): the rows of each local
// expert, one list per MoE layer. The routing follows the step's data, so a rank of a small step can get half or
// twice its expected share; costing these rows compares the ops' composition with what the step really ran.
struct MeasuredExpertRows {
  std::vector<std::vector<std::int64_t>> layers;
  // Means over the MoE layers: rows, experts with at least one row, rows padded to whole tiles of `tile`.
  double rows() const;
  double experts_used() const;
  double padded_rows(int tile) const;
};

}  // namespace fleetcast::simulator
