#pragma once
// The configurations a plan searches: every combination of its search space that makes a valid deployment, each
// as the scenario that simulates it.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fleetcast/specs/deployment.hpp"
#include "fleetcast/specs/plan.hpp"

namespace fleetcast::planner {

struct PlanCandidate {
  int index = 0;  // position in enumeration order: the tie-break of every ranking
  std::string hardware;
  std::string runtime;          // the serving engine: its profile and its scheduler
  int gpus = 0;                 // the whole fleet
  specs::ReplicaLayout layout;  // both pools' when disaggregated
  bool disaggregated = false;
  int prefill_replicas = 0;  // disaggregated only
  int decode_replicas = 0;
  int max_num_seqs = 0;
  int max_num_batched_tokens = 0;
  bool mtp = false;
};

struct PlanSpace {
  std::vector<PlanCandidate> candidates;
  // Combinations that make no deployment (tp not dividing the GPUs or beyond the NVLink domain, ep not dividing
  // dp x tp, ep > 1 for a dense model, a ratio that does not split the replicas): counted, not listed.
  int invalid_combinations = 0;
};

// In a fixed order (hardware as listed, then runtime as listed, then GPU count, disaggregation, ratio, tp, dp, ep,
// max_num_seqs, token budget, MTP), so that the same plan gives the same indices. A disaggregated candidate splits its
// GPUs into replicas of dp x tp GPUs, k x P of them prefilling and k x D decoding for the ratio P:D; each pool "node"
// holds one replica (gpus_per_node = dp x tp, at most the hardware's GPUs per server), so KV moves between pools over
// the scale-out network.
PlanSpace enumerate_plan_space(const specs::PlanSpec& plan);

// The plan's (hardware, runtime) pairs in its order, hardware first: those searched (the engine runs on the GPU)
// and those not, each with why (specs::runtime_vendor_mismatch).
struct EnginePair {
  std::string hardware, runtime;
};
std::vector<EnginePair> plan_engine_pairs(const specs::PlanSpec& plan);
struct UnsupportedPair {
  std::string hardware, runtime, reason;
};
std::vector<UnsupportedPair> plan_unsupported_pairs(const specs::PlanSpec& plan);

// The scenario of one candidate, as JSON for specs::parse_scenario: the plan's model and workload, the candidate's
// deployment at the hardware preset's reference price, and the plan's simulation size.
nlohmann::json candidate_scenario(const specs::PlanSpec& plan, const PlanCandidate& c);

// What makes the candidate, for the output: hardware, runtime, gpus, layout, disaggregation and ratio, caps, MTP.
nlohmann::json candidate_json(const PlanCandidate& c);
// One line: "h200 vllm x8 tp4 dp1 ep1 agg seqs256 tok8192 mtp-off".
std::string candidate_text(const PlanCandidate& c);

}  // namespace fleetcast::planner
