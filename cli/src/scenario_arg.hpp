#pragma once
#include <string>

#include "fleetcast/specs/scenario.hpp"

namespace fleetcast::cli {
// A scenario argument: a path to a JSON file, or the name of a shipped scenario preset.
specs::ScenarioSpec load_scenario_arg(const std::string& arg);
}  // namespace fleetcast::cli
