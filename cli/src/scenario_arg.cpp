#include "scenario_arg.hpp"

#include <filesystem>

#include "fleetcast/specs/load.hpp"
#include "fleetcast/specs/presets.hpp"

namespace fleetcast::cli {

specs::ScenarioSpec load_scenario_arg(const std::string& arg) {
  if (!std::filesystem::exists(arg) && specs::has_preset(specs::PresetKind::scenario, arg)) {
    return specs::parse_scenario(specs::preset_json(specs::PresetKind::scenario, arg), "preset:scenario/" + arg);
  }
  return specs::load_scenario(arg);
}

}  // namespace fleetcast::cli
