// One prompt's marginal step time beside the other clients' decodes (prompt_cost.hpp).
#include "fleetcast/validation/prompt_cost.hpp"

#include <algorithm>
#include <cmath>
#include <variant>

#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/load.hpp"
#include "fleetcast/validation/serving_mapping.hpp"

namespace fleetcast::validation {

double marginal_prompt_ms(const traces::MeasuredServingRun& run, int decode_context_tokens) {
  const auto mapped = map_serving_run(run);
  if (!std::holds_alternative<MappedRun>(mapped)) return NAN;
  try {
    const specs::ScenarioSpec s = specs::parse_scenario(std::get<MappedRun>(mapped).scenario, run.id);
    const simulator::StepTimeModel model(
        s.model, s.deployment, calibration::profile_for(s.deployment.hardware, s.deployment.runtime, s.model));
    const int dp = std::max(1, s.deployment.replica.dp);
    simulator::BatchShape decodes;
    decodes.decode_contexts.assign(static_cast<std::size_t>((run.concurrency - 1 + dp - 1) / dp),
                                   decode_context_tokens);
    simulator::BatchShape mixed = decodes;
    mixed.prefill.push_back({run.isl, 0, true});
    return 1e3 * (model.predict(mixed).total_s - model.predict(decodes).total_s);
  } catch (const std::exception&) {
    return NAN;  // a row validate could not simulate either
  }
}

}  // namespace fleetcast::validation
