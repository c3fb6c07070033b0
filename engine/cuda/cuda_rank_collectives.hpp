#pragma once
// NCCL collectives between the ranks of an MPI launch, one GPU each (cuda_rank_collectives.cpp).

#include <memory>
#include <string>

#include "cuda_context.hpp"
#include "fleetcast/engine/ranks.hpp"

namespace fleetcast::engine::cuda {

// Why this case cannot run between these ranks ("" when it can).
std::string rank_collective_support(const Ranks& ranks, const Shape& shape);
std::unique_ptr<PreparedOp> make_rank_collective(Context& ctx, Ranks& ranks, const Shape& shape, const std::string& op,
                                                 Storage s, std::string what);

}  // namespace fleetcast::engine::cuda
