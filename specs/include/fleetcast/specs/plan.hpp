#pragma once
// A plan request (`fleetcast plan PLAN.json`): the traffic with its SLOs, the model, the hardware allowed, a budget
// or a GPU limit, and the search space. docs/PLANNER.md and docs/SPECS.md describe the fields.

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "fleetcast/specs/model.hpp"
#include "fleetcast/specs/workload.hpp"

namespace fleetcast::specs {

// What is searched: every combination of these values that makes a valid deployment.
struct PlanSearchSpace {
  std::vector<int> gpu_counts{1, 2, 4, 8};  // GPUs of the whole fleet (both pools when disaggregated)
  std::vector<int> tp{1, 2, 4, 8};
  std::vector<int> ep{1};  // MoE models only; a dense model is searched at ep 1
  std::vector<int> dp{1};  // attention data parallel ranks per replica
  std::vector<bool> disaggregated{false};
  std::vector<std::pair<int, int>> prefill_decode_ratios{{1, 1}};  // prefill : decode replicas
  // Empty: the runtime's engine's own for each GPU (docs/SPECS.md, scheduler), as a deployment leaving them out gets.
  std::vector<int> max_num_seqs;
  std::vector<int> max_num_batched_tokens;
  std::vector<bool> mtp{false};  // true is searched only for a model with MTP layers
  int mtp_draft_tokens = 1;
  double mtp_acceptance = 0.7;  // conditional acceptance rate of every draft position
  bool operator==(const PlanSearchSpace&) const = default;
};

// How big each simulation is: the speed / noise trade-off of docs/PLANNER.md.
struct PlanSimulation {
  std::int64_t num_requests = 1000;
  std::uint64_t seed = 1;
  double warmup_fraction = 0.1;
  double cooldown_fraction = 0.1;
  bool operator==(const PlanSimulation&) const = default;
};

struct PlanSpec {
  std::string name;
  nlohmann::json model;     // the model spec, resolved into a full object (specs::to_json)
  nlohmann::json workload;  // the workload spec, as to_json writes it
  ModelSpec model_spec;
  WorkloadSpec workload_spec;
  std::vector<std::string> hardware;  // hardware preset names, in the order given
  // The serving engines searched, in the order given (`runtime`: one name or a list): each candidate runs one, with
  // its profile and its scheduler. A pair the engine does not run on (specs::runtime_vendor_mismatch) is skipped.
  std::vector<std::string> runtimes{"vllm"};
  double budget_usd_per_hour = 0.0;  // 0: no budget
  int max_gpus = 0;                  // 0: no GPU limit
  // A configuration is pruned for capacity only when its estimated capacity x (1 + capacity_slack) is below the
  // offered rate: the estimate is a steady-state model, not a proof, and a pruned configuration is never simulated.
  double capacity_slack = 0.1;
  PlanSearchSpace search;
  PlanSimulation simulation;
  nlohmann::json resolved;  // the plan as read, model and workload expanded: echoed in the output
};

// Strict: unknown keys, wrong types and out-of-range values are InputErrors naming `file`, the field path and the
// value. The workload must be open loop with every class at a fixed `rate_per_s` (a `load` is relative to a fleet,
// and the fleet is what is searched) and at least one class must set an SLO. At least one of budget_usd_per_hour
// and max_gpus is required, so that the search is bounded by what the user can pay.
PlanSpec parse_plan(const nlohmann::json& j, const std::string& file, const std::filesystem::path& base_dir = ".");
PlanSpec load_plan(const std::filesystem::path& path);

}  // namespace fleetcast::specs
