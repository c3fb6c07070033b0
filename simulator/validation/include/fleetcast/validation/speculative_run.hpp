#pragma once
// Speculative decoding as a measured run had it (traces::MeasuredServingRun's spec_* fields: the launch's method and
// drafts per step, the acceptance the benchmark reported) as a scenario's deployment.speculative: drafts from the
// model's own MTP layers, n per step, accepted at the rates the run measured. Other drafting methods (EAGLE heads, a
// separate draft model, n-grams, draft trees) are not modelled and leave the run unmapped, never simulated without.

#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "fleetcast/traces/serving_results.hpp"
#include "fleetcast/validation/serving_mapping.hpp"

namespace fleetcast::validation {

// The deployment spec's conditional rates (rate i: draft i accepted given drafts 1..i-1 were) from the shares of steps
// that accepted each position (vLLM's per-position rates; a position is accepted only after every one before it):
// r_i = p_i / p_(i-1), p_0 = 1. A position after one no step accepted keeps rate 0.
std::vector<double> conditional_acceptance(const std::vector<double>& position_shares);

// The one rate r, the same at every position, whose mean accepted length 1 + r + r^2 + ... + r^n equals `length`
// (in [1, n + 1]); the length grows with r, so bisection finds it.
double uniform_acceptance_rate(double length, int drafts);

// deployment.speculative for the run ({"method": "mtp", "num_draft_tokens": n, "acceptance_rates": [...]}), null when
// the run did not speculate, or why it cannot be modelled. `model_mtp_layers` is the model preset's; what was assumed
// is appended to `notes` ("; "-separated).
std::variant<nlohmann::json, Unmapped> speculative_for_run(const traces::MeasuredServingRun& run,
                                                           const std::string& model_name, int model_mtp_layers,
                                                           std::string& notes);

}  // namespace fleetcast::validation
