#pragma once
// The CPU backend's cases for the MoE ops and model_step (kept out of cpu_backend.cpp's list).

#include <memory>
#include <string>

#include "fleetcast/engine/backend.hpp"

namespace fleetcast::engine::cpu {

// nullptr when `op` is none of moe_routing, moe_permute, moe_unpermute, moe_grouped_gemm, model_step.
std::unique_ptr<PreparedOp> prepare_moe_or_step(const OpInfo& op, const Shape& shape, const std::string& what);

}  // namespace fleetcast::engine::cpu
