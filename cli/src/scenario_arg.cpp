#include "scenario_arg.hpp"

#include <filesystem>

#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/load.hpp"
#include "fleetcast/specs/presets.hpp"

namespace fleetcast::cli {

specs::ScenarioSpec load_scenario_arg(const std::string& arg) {
  if (!std::filesystem::exists(arg) && specs::has_preset(specs::PresetKind::scenario, arg)) {
    return specs::parse_scenario(specs::preset_json(specs::PresetKind::scenario, arg), "preset:scenario/" + arg);
  }
  return specs::load_scenario(arg);
}

void select_pool(specs::ScenarioSpec& s, const std::string& scenario_arg, const std::string& pool) {
  if (s.deployment.disaggregation) {
    if (pool.empty()) {
      throw InputError(scenario_arg, "--pool", "(not given)",
                       "the deployment is disaggregated: say which pool, --pool prefill or --pool decode");
    }
    s.deployment = specs::pool_deployment(s.deployment, pool == "prefill" ? specs::Pool::prefill : specs::Pool::decode);
  } else if (!pool.empty()) {
    throw InputError(scenario_arg, "--pool", pool, "the deployment is not disaggregated: it has no pools");
  }
}

}  // namespace fleetcast::cli
