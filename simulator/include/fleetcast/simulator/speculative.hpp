#pragma once
// Speculative decoding's acceptance: how many of a step's draft tokens one sequence keeps. Draft i is
// accepted with its conditional rate given drafts 1..i-1 were, and the first rejection ends the run, as
// rejection sampling in vLLM and SGLang verifies drafts left to right.

#include <cstdint>

#include "fleetcast/simulator/random.hpp"
#include "fleetcast/specs/deployment.hpp"

namespace fleetcast::simulator {

// Tokens one sequence gains per step, on average, when its remaining output does not cap it:
// 1 + sum over i = 1..n of r_1 x ... x r_i (the verified token always counts).
double analytic_acceptance_length(const specs::SpeculativeSpec& spec);

// Random streams of the replicas' acceptance draws: this base + the replica index, far from the request
// generator's streams 1..3.
constexpr std::uint64_t kDraftAcceptanceStreamBase = std::uint64_t{1} << 32;
// Attention-DP rank k of a replica draws from stream base + replica + k x stride (rank 0: the replica's own).
constexpr std::uint64_t kDraftRankStride = std::uint64_t{1} << 20;

class DraftAcceptance {
public:
  // One independent stream per replica, so that replicas do not share draws and a report stays
  // byte-identical for a seed.
  DraftAcceptance(const specs::SpeculativeSpec& spec, std::uint64_t seed, std::uint64_t stream);

  int num_draft_tokens() const { return spec_.num_draft_tokens; }
  // Drafts accepted by one sequence in one step: 0..num_draft_tokens.
  int draw();

private:
  specs::SpeculativeSpec spec_;
  Random rng_;
};

}  // namespace fleetcast::simulator
