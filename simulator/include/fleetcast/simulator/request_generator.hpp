#pragma once
// Draws the requests of a workload: lengths for all, arrival times for open loop.

#include <cstdint>
#include <vector>

#include "fleetcast/simulator/request.hpp"
#include "fleetcast/specs/workload.hpp"

namespace fleetcast::simulator {

// `rate_per_s` is the resolved open-loop rate (ignored for closed loop, whose arrivals happen at run time).
// `max_context` clamps lognormal draws that have no explicit max.
std::vector<Request> generate_requests(const specs::WorkloadSpec& w, std::int64_t count, double rate_per_s,
                                       std::uint64_t seed, int max_context);

}  // namespace fleetcast::simulator
