#pragma once
// What `fleetcast plan` writes: the JSON (`-o plan.json`) and the text table. Both are deterministic: the same
// plan gives the same bytes (no wall times, no host names).

#include <nlohmann/json.hpp>
#include <string>

#include "fleetcast/planner/plan_search.hpp"

namespace fleetcast::planner {

// {"schema": "fleetcast.plan/1", "plan": the plan as read, "summary": counts, "best": the cheapest feasible
// entry or null, "feasible": ranked entries, "pareto": config indices, "rejected": every other candidate with
// its stage ("pruned" or "simulated") and why, "profiles": per hardware of the plan, the profile its figures come
// from (kind) and that profile's figures outside the kernel-level ones (calibration/kernel_caveats.hpp)}.
nlohmann::json plan_json(const specs::PlanSpec& plan, const PlanResult& result);

// The ranked feasible configurations (at most `rows`), the Pareto frontier, rejections counted by reason and
// the first `rows` rejected ones with why, and a line per profile with figures outside the kernel-level ones.
std::string plan_text(const nlohmann::json& plan_output, int rows);

}  // namespace fleetcast::planner
