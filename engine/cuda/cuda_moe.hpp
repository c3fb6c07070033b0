#pragma once
// The CUDA backend's MoE cases (cuda_moe.cpp), kept out of cuda_backend.cpp's own list.

#include <memory>
#include <string>

#include "cuda_context.hpp"

namespace fleetcast::engine::cuda {

inline bool is_moe_op(const std::string& op) {
  return op == "moe_routing" || op == "moe_permute" || op == "moe_unpermute" || op == "moe_grouped_gemm";
}

// Why the CUDA kernels cannot take `shape`, or "" when they can.
std::string moe_support(const OpInfo& op, const Shape& shape);

// nullptr for an op that is not a MoE op.
std::unique_ptr<PreparedOp> make_moe_op(Context& ctx, const OpInfo& op, const Shape& shape, Storage s,
                                        std::string what);

}  // namespace fleetcast::engine::cuda
