#pragma once
// The engine settings InferenceX's launch scripts give its servers, per model, engine and GPU, as a row measured by
// InferenceX (its database dump or dashboard export) carries them into the mapping: step budgets, chunk and block
// sizes, memory fractions, the KV cache's format. Each rule names the scripts and the commit it was read at.

#include "fleetcast/traces/serving_results.hpp"

namespace fleetcast::traces::detail {

void set_inferencex_launch_settings(MeasuredServingRun& r);

}  // namespace fleetcast::traces::detail
