#pragma once
// `fleetcast plan`: enumerate the search space, reject what the analytic bounds rule out, simulate the rest each
// in its own worker process, and rank the configurations that meet every SLO by $ per million tokens.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fleetcast/planner/plan_bounds.hpp"
#include "fleetcast/planner/plan_space.hpp"
#include "fleetcast/specs/plan.hpp"

namespace fleetcast::planner {

struct PlanOptions {
  int jobs = 1;                // worker processes at once
  bool progress_json = false;  // {"phase": "prune" | "simulate", "done": D, "total": T} lines on stderr
  bool prune = true;           // false: simulate every candidate within the limits (exhaustive; for checking)
  std::string file;            // the plan's file, for messages
  std::filesystem::path base_dir = ".";
};

struct PlanEntry {
  PlanCandidate candidate;
  double usd_per_hour = 0.0;
  bool simulated = false;
  std::optional<Rejection> rejection;  // none: feasible
  // Simulated: usd_per_m_blended, requests_per_s (finished in the window), arrival_rate_per_s (arrived in it),
  // output_tokens_per_s_per_gpu, tokens_per_s_per_user and per class ttft_p95_ms, tpot_p95_ms, success_rate (null where
  // the run measured none). Empty when pruned.
  nlohmann::json figures;
};

struct PlanResult {
  std::vector<PlanEntry> entries;  // every candidate, by index
  int invalid_combinations = 0;
  int simulated = 0;
  double simulate_wall_s = 0.0;  // wall time of the simulation phase (printed, never written to the JSON)
  std::vector<int> ranking;      // feasible candidates' indices, cheapest $/M first (ties: lower index)
  std::vector<int> frontier;     // Pareto frontier of the feasible ones ($/M down, tokens/s per user up), by rank
};

// Deterministic: the same plan gives the same result whatever `jobs` is (each simulation is seeded and its result
// is stored by candidate index).
PlanResult run_plan(const specs::PlanSpec& plan, const PlanOptions& options);

// Whether the simulated figures meet every class's SLOs and keep up with the offered rate; the first miss otherwise.
std::optional<Rejection> simulated_rejection(const specs::PlanSpec& plan, const nlohmann::json& figures);

}  // namespace fleetcast::planner
