#pragma once
#include <string>

#include "fleetcast/specs/scenario.hpp"

namespace fleetcast::cli {
// A scenario argument: a path to a JSON file, or the name of a shipped scenario preset.
specs::ScenarioSpec load_scenario_arg(const std::string& arg);
// A disaggregated deployment's replicas are its pools': `pool` ("prefill" or "decode", from --pool) picks the one a
// command works on, and must be given for such a deployment and only for it (InputError naming the scenario).
void select_pool(specs::ScenarioSpec& s, const std::string& scenario_arg, const std::string& pool);
}  // namespace fleetcast::cli
