#pragma once
// The MoE ops and model_step in the op table: their entries, shape rules and costs, kept apart from
// ops.cpp's table so that both grow without stepping on each other.

#include <string>
#include <vector>

#include "fleetcast/engine/ops.hpp"

namespace fleetcast::engine {

// `base` followed by moe_routing, moe_permute, moe_unpermute, moe_grouped_gemm and model_step.
std::vector<OpInfo> with_moe_and_step_ops(std::vector<OpInfo> base);

// Fields that may be 0: moe_routing's sigmoid flag, moe_grouped_gemm's zipf_milli and seed, model_step's
// context (a prefill with nothing cached).
bool field_may_be_zero(const std::string& op, const std::string& field);

// The rules between fields of these ops; InputError naming the field. Nothing for other ops.
void validate_moe_and_step(const OpInfo& op, const Shape& shape, const std::string& file, const std::string& field);

// The hand count of these ops; false for other ops.
bool moe_and_step_cost(const OpInfo& op, const Shape& shape, double element_bytes, Cost& cost);

}  // namespace fleetcast::engine
