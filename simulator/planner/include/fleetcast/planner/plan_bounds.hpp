#pragma once
// Analytic bounds that reject a plan candidate before it is simulated: the user's limits (GPUs, $/hour), memory
// (the weights must fit, and the KV of the workload's longest request), latency floors (a request alone can be no
// faster than its step time) and capacity (the steady-state throughput at the batch cap must reach the offered
// rate). Each rejection keeps its reason and the figure that decided it.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "fleetcast/planner/plan_space.hpp"
#include "fleetcast/specs/plan.hpp"
#include "fleetcast/specs/scenario.hpp"

namespace fleetcast::planner {

struct Rejection {
  std::string reason;         // gpu_limit, budget, memory, slo, capacity, failed
  std::string metric;         // the figure that decided: gpus, usd_per_hour, weight_bytes_per_gpu, ...
  std::string request_class;  // slo: the class whose objective is missed; "" otherwise
  std::string pool;           // disaggregated: "prefill" or "decode" where the pool decided; "" otherwise
  double value = 0.0;         // the candidate's figure
  double limit = 0.0;         // what it had to be within
  std::string detail;         // one sentence with units
};

nlohmann::json to_json(const Rejection& r);

// $/hour of the candidate's GPUs at the scenario's price (the hardware preset's reference price).
double usd_per_hour(const specs::ScenarioSpec& s);

// The plan's limits: more GPUs than max_gpus, or a $/hour above the budget.
std::optional<Rejection> limit_rejection(const specs::PlanSpec& plan, const specs::ScenarioSpec& s);

// Memory, then the latency floors, then capacity; nullopt when the candidate may meet the SLOs and must be
// simulated. `s` is candidate_scenario() parsed.
std::optional<Rejection> bound_rejection(const specs::PlanSpec& plan, const specs::ScenarioSpec& s);

// The median of a length distribution (fixed: the value; uniform: the midpoint; lognormal: its median, clamped;
// empirical: the lower middle value). A request's latency alone grows with its length, so the median request's
// latency alone is a floor for the class's p50 and so for its p95.
int median_length(const specs::LengthDistribution& l);
// The longest length a distribution draws (lognormal without max: `context_tokens`).
int longest_length(const specs::LengthDistribution& l, int context_tokens);

}  // namespace fleetcast::planner
