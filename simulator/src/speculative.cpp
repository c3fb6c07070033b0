#include "fleetcast/simulator/speculative.hpp"

namespace fleetcast::simulator {

double analytic_acceptance_length(const specs::SpeculativeSpec& spec) {
  double length = 1.0, reach = 1.0;  // reach: probability that drafts 1..i are all accepted
  for (int i = 0; i < spec.num_draft_tokens; ++i) {
    reach *= spec.rate(i);
    length += reach;
  }
  return length;
}

DraftAcceptance::DraftAcceptance(const specs::SpeculativeSpec& spec, std::uint64_t seed, std::uint64_t stream)
    : spec_(spec), rng_(seed, stream) {}

int DraftAcceptance::draw() {
  int accepted = 0;
  while (accepted < spec_.num_draft_tokens && rng_.uniform() < spec_.rate(accepted)) ++accepted;
  return accepted;
}

}  // namespace fleetcast::simulator
