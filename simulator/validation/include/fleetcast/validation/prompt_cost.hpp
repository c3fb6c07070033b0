#pragma once
// The step model's price of one closed-loop client's prompt, for the decompositions of measured latencies
// (tpot_decomposition.hpp, ttft_decomposition.hpp).

#include "fleetcast/traces/serving_results.hpp"

namespace fleetcast::validation {

// The marginal step time, in ms, of one run.isl-token prompt prefilled whole in a step beside the other clients'
// decodes (ceil((C - 1) / dp) of them, each at decode_context_tokens), in the step model with the profile in use
// for the row's (hardware, runtime), the row mapped as validate maps it. NaN where the row does not map.
double marginal_prompt_ms(const traces::MeasuredServingRun& run, int decode_context_tokens);

}  // namespace fleetcast::validation
