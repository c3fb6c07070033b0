#pragma once
// Draws the requests of a workload: lengths for all, arrival times for open loop.
//
// Each class draws from its own seeded streams (class k: arrivals 3k+1, inputs 3k+2, outputs 3k+3), so adding
// a class does not change the draws of the others. The open-loop classes come first, merged by arrival time
// (ties to the lower class index); then each closed-loop class's requests, class by class, in their own order.
// Ids follow that order. A closed-loop class with start "spread" shortens the answers of its first `clients`
// requests (one per client): request i answers max(1, round(drawn x (i + 1) / clients)) tokens.
//
// Prompts are identified block by block (prefix_block_tokens each, request.hpp): a class with a shared prefix
// draws each request's group from its own stream (kPrefixGroupStreamBase + class index), so prefixes change no
// other draw. Every other full block of a prompt gets an id of its own.

#include <cstdint>
#include <vector>

#include "fleetcast/simulator/request.hpp"
#include "fleetcast/specs/workload.hpp"

namespace fleetcast::simulator {

inline constexpr std::uint64_t kPrefixGroupStreamBase = std::uint64_t{2} << 32;

// One class's `count` requests, tagged with `class_index`. `rate_per_s` is the resolved open-loop rate
// (ignored for closed loop, whose arrivals happen at run time). `max_context` clamps lognormal draws that have
// no explicit max. `prefix_block_tokens` (>= 1): the size of the prompt blocks that carry ids.
std::vector<Request> generate_class_requests(const specs::RequestClass& c, int class_index, std::int64_t count,
                                             double rate_per_s, std::uint64_t seed, int max_context,
                                             int prefix_block_tokens = specs::kDefaultPrefixBlockTokens);

// The whole workload: counts[k] requests of class k at rates_per_s[k], in the order described above.
std::vector<Request> generate_requests(const specs::WorkloadSpec& w, const std::vector<std::int64_t>& counts,
                                       const std::vector<double>& rates_per_s, std::uint64_t seed, int max_context);

}  // namespace fleetcast::simulator
