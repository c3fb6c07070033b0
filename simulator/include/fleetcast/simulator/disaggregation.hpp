#pragma once
// Prefill/decode disaggregation: each pool as a deployment of its own (specs::pool_deployment) with its memory
// plan and step-time model, and the fleet's steady-state capacity for `load`-based arrivals.

#include <memory>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/simulator/capacity.hpp"
#include "fleetcast/simulator/memory_model.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/scenario.hpp"

namespace fleetcast::simulator {

struct PoolPlan {
  specs::DeploymentSpec deployment;  // the pool alone: its nodes, layout and scheduler
  MemoryPlan memory;
  std::unique_ptr<StepTimeModel> step_model;
  int replicas = 0;
};

struct DisaggregatedPlan {
  PoolPlan prefill;
  PoolPlan decode;
};

// Throws InputError when the model does not fit a pool's layout.
DisaggregatedPlan plan_pools(const specs::ScenarioSpec& s, const calibration::Profile& profile,
                             const std::string& file);

// The fleet serving class `c` alone: min(prefill pool's prompt rate, decode pool's decode rate).
// - Prefill pool: a saturated step of each DP rank carries max_num_batched_tokens prompt tokens (whole mean-length
//   prompts and a remainder chunk; without chunked prefill only whole prompts, at least one), at most
//   max_num_seqs prompts; the pool finishes replicas x dp x those tokens / (step time x mean input) prompts per s.
// - Decode pool: B sequences per rank, B the least of max_num_seqs, the KV cache at input + output / 2 tokens,
//   the token budget / (1 + drafts) and the clients per rank; each request needs max(1, output - 1) of its tokens
//   decoded there (the prefill samples the first), acceptance-length tokens per step with speculation.
// limited_by names the binding pool and its limit ("decode_pool:kv_cache"); step and batch are that pool's.
CapacityEstimate estimate_disaggregated_capacity(const specs::ScenarioSpec& s, const specs::RequestClass& c,
                                                 const DisaggregatedPlan& pools,
                                                 double max_batch_per_decode_replica = 1e300);

}  // namespace fleetcast::simulator
