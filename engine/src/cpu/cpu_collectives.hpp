#pragma once
// The CPU backend's collectives: real transfers between the processes of an MPI launch (Ranks), fp32
// host buffers, checked on every rank against the inputs regenerated on the host before timing.

#include <memory>
#include <string>

#include "fleetcast/engine/backend.hpp"
#include "fleetcast/engine/ranks.hpp"

namespace fleetcast::engine::cpu {

// Why this collective case cannot run between these ranks ("" when it can).
std::string collective_support(const Ranks* ranks, const Shape& shape);
std::unique_ptr<PreparedOp> make_collective(Ranks& ranks, const Shape& shape, const std::string& op, std::string what);

}  // namespace fleetcast::engine::cpu
